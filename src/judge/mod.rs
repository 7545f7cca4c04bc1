//! The judge: binds the rule table's check names to the checks, plans per revision, runs the
//! plan over an analysed exchange and turns the table's effects into a verdict. An exchange is
//! analysed once (body read and parsed once, request facts extracted once); then, per revision,
//! every rule that can apply runs its check against that analysis.

mod facts;
mod judgement;
mod plan;
mod verdict;

use std::collections::BTreeMap;
use std::sync::LazyLock;

pub use facts::{ErrorFacts, Facts, MessageCounts, StdioFacts, StreamFacts};
pub use judgement::{Difference, Judgement};
pub use verdict::{Adjustment, Change, EvalStatus, Finding, Omitted, Verdict};

/// The default cap of the command line's `--max-findings-per-rule`: at most this many findings
/// of one rule per verdict (one exchange under one revision) are listed; the rest are counted
/// ([`Verdict::cap_findings`]). [`judge()`](fn@judge) itself caps nothing; [`judge_capped`]
/// caps as it judges.
pub const DEFAULT_MAX_FINDINGS_PER_RULE: usize = 100;

use crate::check_api::Cx;
use crate::rules::{CheckSig, LoadError, RuleTable};
use crate::vocab::Protocol;
use crate::vocab::protocol::{header, meta};
use crate::wire::analysis::{Analysis, Candidate, RequestFacts};
use crate::wire::exchange::Exchange;
use crate::wire::jsonref::JsonRef;
use plan::RevisionPlan;

/// A rule table bound to the checks it names, ready to judge.
#[derive(Debug)]
pub struct Engine {
    table: RuleTable,
    plans: BTreeMap<Protocol, RevisionPlan>,
}

static BUILTIN: LazyLock<Engine> = LazyLock::new(|| {
    let table = RuleTable::embedded(&checks())
        .unwrap_or_else(|e| panic!("the embedded rule table is invalid: {e}"));
    Engine::bind(table)
});

impl Engine {
    /// The engine with the table shipped in this build (`rules/`), loaded once.
    pub fn builtin() -> &'static Engine {
        &BUILTIN
    }

    /// Loads a table from `(file name, TOML text)` pairs and binds it.
    pub fn from_sources(sources: &[(String, String)]) -> Result<Engine, LoadError> {
        let table = RuleTable::from_sources(sources, &checks())?;
        Ok(Engine::bind(table))
    }

    /// Loads a table from every `*.toml` file in a directory and binds it.
    pub fn from_dir(dir: &std::path::Path) -> Result<Engine, LoadError> {
        let table = RuleTable::from_dir(dir, &checks())?;
        Ok(Engine::bind(table))
    }

    fn bind(table: RuleTable) -> Engine {
        let plans = plan::plans(&table);
        Engine { table, plans }
    }

    /// The rule table.
    pub fn table(&self) -> &RuleTable {
        &self.table
    }

    fn plan(&self, protocol: Protocol) -> &RevisionPlan {
        &self.plans[&protocol]
    }
}

/// The name and parameters of every check the code implements (what a rule table is loaded
/// against).
pub fn checks() -> Vec<CheckSig> {
    plan::registry().map(|c| c.sig).collect()
}

/// What a check looks for, by name.
pub fn check_doc(name: &str) -> Option<&'static str> {
    plan::registry().find(|c| c.sig.name == name).map(|c| c.doc)
}

/// How to judge.
#[derive(Clone, Copy, Debug)]
pub struct Options<'t> {
    /// The revisions to judge under; `None` takes them from the exchange.
    pub protocols: Option<&'t [Protocol]>,
    /// The engine (rule table and plan).
    pub engine: &'t Engine,
}

impl Default for Options<'static> {
    fn default() -> Self {
        Options {
            protocols: None,
            engine: Engine::builtin(),
        }
    }
}

/// Why an exchange could not be judged: only the choice of revision can fail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JudgeError {
    /// Neither the options nor the exchange say which revision to judge under.
    UnknownRevision,
    /// The exchange names a revision this build does not judge.
    UnsupportedRevision(String),
}

impl JudgeError {
    /// What is wrong, without how to fix it (which depends on who asks: a library caller sets
    /// [`Options::protocols`], a command-line user passes `--protocol`).
    pub fn reason(&self) -> String {
        match self {
            JudgeError::UnknownRevision => format!(
                "cannot tell which protocol revision to judge under: the request has no {} header and no _meta \"{}\"",
                header::PROTOCOL_VERSION,
                meta::PROTOCOL_VERSION
            ),
            JudgeError::UnsupportedRevision(v) => format!(
                "the request declares protocol revision `{v}`, which this tool does not judge (it knows {})",
                Protocol::names()
            ),
        }
    }
}

impl std::fmt::Display for JudgeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}; choose the revisions in `Options::protocols` (or set `Exchange::protocol`)",
            self.reason()
        )
    }
}

impl std::error::Error for JudgeError {}

/// Which revisions an exchange is judged under, absent an explicit choice: the file's
/// `protocol`, else the request's `MCP-Protocol-Version` header, else its `_meta` version,
/// else (an `initialize` request, which carries neither) the `protocolVersion` it asks for.
pub fn revisions_of(ex: &Exchange) -> Result<Vec<Protocol>, JudgeError> {
    if let Some(ps) = &ex.protocol
        && !ps.is_empty()
    {
        return Ok(ps.clone());
    }
    let req = RequestFacts::of(ex);
    let asked = || {
        if req.method != Some("initialize") {
            return None;
        }
        req.params?.get("protocolVersion")?.as_str()
    };
    let declared = req.header_version.or(req.meta_version).or_else(asked);
    match declared {
        Some(v) => Protocol::parse(v)
            .map(|p| vec![p])
            .ok_or_else(|| JudgeError::UnsupportedRevision(v.to_string())),
        None => Err(JudgeError::UnknownRevision),
    }
}

/// Judges an exchange under the selected revisions.
///
/// Any recorded exchange can be judged. A `tools/call` exchange gets the outcome of its tool
/// result. An exchange whose request is another method ends `NOT_A_TOOL_CALL`; its answer is
/// not read as a tool result, but the answers a client discovers tools from are judged by
/// rules of their own, whose findings the verdict carries: a `tools/list` result (its shape,
/// the 2026-07-28 caching hints, the tool names, each listed tool's input and output schema),
/// a `server/discover` result (2026-07-28) and an `initialize` result (2025-11-25).
pub fn judge<'t>(ex: &Exchange, options: &Options<'t>) -> Result<Judgement<'t>, JudgeError> {
    judge_capped(ex, options, 0)
}

/// Judges an exchange as [`judge()`](fn@judge) does, keeping at most `max_findings_per_rule`
/// findings of one rule per verdict (0: all) and counting the rest: the same judgement as
/// `judge` followed by [`Judgement::cap_findings`], but the checks that may trigger at every
/// event or item stop describing their hits past the cap, so that a hostile recording (a
/// finding at each of 400,000 events) is not held as 400,000 messages.
pub fn judge_capped<'t>(
    ex: &Exchange,
    options: &Options<'t>,
    max_findings_per_rule: usize,
) -> Result<Judgement<'t>, JudgeError> {
    let from_exchange;
    let protocols: &[Protocol] = match options.protocols {
        Some(ps) if !ps.is_empty() => ps,
        _ => {
            from_exchange = revisions_of(ex)?;
            &from_exchange
        }
    };
    // A stream notification that every selected revision's schema accepts, and whose `_meta`
    // keys are well-formed, is held as the few members the checks read of it, not as its
    // whole tree.
    let accepted = |method: &str, message: Candidate<'_, '_>| {
        let as_read = match message {
            Candidate::Tape(n) => JsonRef::Tape(n),
            Candidate::Value(v) => JsonRef::Value(v),
        };
        crate::checks::meta_keys_valid(as_read)
            && protocols
                .iter()
                .all(|&p| crate::schema::for_revision(p).accepts_candidate(method, message))
    };
    let analysis = Analysis::judged(ex, &accepted);
    // JSON nested past serde_json's limit is walked (and dropped) on a stack grown for its
    // depth; nothing deep leaves the judgement (facts keep shallow copies).
    let verdicts = crate::wire::deep::on_stack_for(analysis.nesting_depth(), move || {
        let verdicts: Vec<Verdict<'t>> = protocols
            .iter()
            .map(|&p| evaluate_capped(&analysis, p, options.engine, max_findings_per_rule))
            .collect();
        drop(analysis);
        verdicts
    });
    Ok(Judgement::new(verdicts))
}

/// Judges an already analysed exchange under one revision.
pub fn evaluate<'t>(
    analysis: &Analysis<'_>,
    protocol: Protocol,
    engine: &'t Engine,
) -> Verdict<'t> {
    evaluate_capped(analysis, protocol, engine, 0)
}

/// Judges an already analysed exchange under one revision, keeping at most
/// `max_findings_per_rule` findings of one rule (0: all; see [`judge_capped`]).
pub fn evaluate_capped<'t>(
    analysis: &Analysis<'_>,
    protocol: Protocol,
    engine: &'t Engine,
    max_findings_per_rule: usize,
) -> Verdict<'t> {
    let table = &engine.table;
    let plan = engine.plan(protocol);
    let cx = Cx::new(analysis, plan.setting(table, protocol)).capped(max_findings_per_rule);
    let actives = table.active(protocol);
    // Only the steps whose needs the exchange meets run; the rest could only say "not
    // applicable" (debug builds make sure), or judge another transport binding or framing,
    // which is never run over this one.
    let runnable = plan.runnable(cx.have());
    #[cfg(debug_assertions)]
    for (i, (step, active)) in plan.steps.iter().zip(actives).enumerate() {
        let other_binding = !step
            .needs
            .intersection(crate::check_api::Needs::FRAMINGS)
            .met_by(cx.have());
        if !other_binding && !runnable.iter().any(|&r| usize::from(r) == i) {
            debug_assert_eq!(
                (step.run)(&cx, &active.params),
                crate::check_api::Eval::NotApplicable,
                "check `{}` applies without what it declares it needs",
                table.rule_of(active).check
            );
        }
    }
    let evals = runnable.iter().map(|&i| {
        let i = usize::from(i);
        (i, (plan.steps[i].run)(&cx, &actives[i].params))
    });
    Verdict::assemble(&cx, table, actives, evals)
}
