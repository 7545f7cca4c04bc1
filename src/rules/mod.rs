//! The spec-rule table: loading, validation and per-revision resolution.
//!
//! The table (TOML files under `rules/`) decides, per protocol revision, which checks run, what
//! a triggered check means (an outcome with a precedence, a finding with a severity, or a
//! default applied) and which spec sentence it cites. Code implements checks by name
//! (`crate::checks`); nothing here knows what a check does.

mod load;
mod pattern;

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

pub use load::{LoadError, RuleSource};
pub use pattern::PointerPattern;

use crate::checks::{CheckDef, Params};
use crate::vocab::Protocol;
use crate::vocab::{Actor, Layer, Level, Outcome, Severity};

/// Where a rule's citation points.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Cite {
    /// The full URL of the cited sentence's section.
    pub url: String,
    /// The section, for people: e.g. `basic#result-responses` or `JSON-RPC 2.0 §5`.
    pub section: String,
    /// The cited sentence, quoted from the source.
    pub quote: String,
}

/// A default a rule applies when a field is absent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DefaultEffect {
    /// The field, e.g. `resultType`.
    pub field: String,
    /// The value it is taken to have.
    pub value: Value,
}

/// A rule as written in the table.
#[derive(Debug)]
pub struct Rule {
    /// Stable id, e.g. `jsonrpc.response.id-match`.
    pub id: String,
    /// A short title.
    pub title: String,
    /// What it checks.
    pub summary: String,
    /// Why it matters.
    pub why: String,
    /// A minimal example of a violation (or of the case it decides).
    pub example: Option<String>,
    /// Who the rule binds.
    pub actor: Actor,
    /// The layer it belongs to.
    pub layer: Layer,
    /// The named check it runs.
    pub check: &'static CheckDef,
    /// Revisions it applies to.
    pub revisions: Vec<Protocol>,
    /// Where it was defined.
    pub source: RuleSource,
}

/// A rule as it applies under one revision, with per-revision differences resolved.
#[derive(Debug)]
pub struct Active {
    /// Index of the rule in [`RuleTable::rules`].
    pub rule: usize,
    /// The revision.
    pub protocol: Protocol,
    /// The requirement level under this revision.
    pub level: Level,
    /// The outcome a trigger decides, if any.
    pub outcome: Option<Outcome>,
    /// Lower decides first when several outcome rules trigger.
    pub precedence: i32,
    /// The severity of the finding a trigger produces, if any.
    pub severity: Option<Severity>,
    /// The default a trigger applies, if any.
    pub default: Option<DefaultEffect>,
    /// The citation under this revision.
    pub cite: Cite,
    /// Check parameters under this revision.
    pub params: Params,
    /// What the exchange must have for the check to apply (the check's own needs plus its
    /// schema target's).
    pub needs: crate::checks::Needs,
}

/// Data that differs between revisions and is not a rule.
#[derive(Debug, Clone, Default)]
pub struct RevisionProfile {
    /// Base URL of the revision's specification pages.
    pub docs: String,
    /// `resultType` values the core protocol defines; `None` when the revision predates
    /// `resultType` (every result is then a final result).
    pub result_types: Option<Vec<String>>,
    /// Extra `resultType` values each extension defines, keyed by extension id.
    pub extension_result_types: BTreeMap<String, Vec<String>>,
    /// Names of the JSON-RPC error codes the revision defines or recognises.
    pub error_codes: BTreeMap<i64, String>,
}

/// A loaded, validated rule table.
#[derive(Debug)]
pub struct RuleTable {
    rules: Vec<Rule>,
    active: BTreeMap<Protocol, Vec<Active>>,
    profiles: BTreeMap<Protocol, RevisionProfile>,
    /// Schema groups per revision: each (definition, target) validated once per exchange.
    groups: BTreeMap<Protocol, Vec<SchemaGroup>>,
    /// Per revision, what the engine runs for each active rule, packed small so that one pass
    /// over the table stays in cache (an `Active` with its parameters and citation is large).
    plans: BTreeMap<Protocol, Vec<Step>>,
    /// Per revision and per set of parts an exchange has ([`Needs`] bits), the plan steps
    /// that can apply; every other step could only say "not applicable" and is not run.
    ///
    /// [`Needs`]: crate::checks::Needs
    runnable: BTreeMap<Protocol, Vec<Box<[u16]>>>,
}

/// One step of a revision's evaluation plan: the check to run for the active rule at the
/// same index, and what the exchange must have for it to apply.
#[derive(Clone, Copy, Debug)]
pub struct Step {
    /// The check.
    pub run: fn(&crate::engine::Cx<'_>, &crate::checks::Params) -> crate::checks::Eval,
    /// What it needs.
    pub needs: crate::checks::Needs,
}

/// Rules that share one schema validation, and how its errors are routed among them.
#[derive(Debug, Clone)]
pub struct SchemaGroup {
    /// The schema definition.
    pub def: String,
    /// Where in the message the definition applies.
    pub target: crate::checks::Target,
    /// Error-code filter for error-response targets.
    pub code: Option<i64>,
    /// Member rules: (index into the revision's active list, patterns, keyword filter).
    pub members: Vec<(usize, Vec<PointerPattern>, Vec<String>)>,
    /// The compiled definition, looked up on first use.
    pub(crate) validator: std::sync::OnceLock<Option<&'static jsonschema::Validator>>,
    /// Its specialised validity check, looked up on first use.
    pub(crate) fast: std::sync::OnceLock<Option<&'static crate::fast_schema::FastValidator>>,
}

impl SchemaGroup {
    /// The definition's compiled validator in a revision's schemas (`None` when the schema
    /// has no such definition).
    pub fn validator(&self, protocol: Protocol) -> Option<&'static jsonschema::Validator> {
        *self
            .validator
            .get_or_init(|| crate::schema::for_revision(protocol).def(&self.def))
    }

    /// The definition's specialised validity check ([`crate::fast_schema`]), when it has one.
    pub fn fast(&self, protocol: Protocol) -> Option<&'static crate::fast_schema::FastValidator> {
        *self
            .fast
            .get_or_init(|| crate::schema::for_revision(protocol).fast(&self.def))
    }

    /// The member (active index) that owns an error at `pointer` with `keyword`: the most
    /// specific matching pattern wins; ties go to the rule listed first.
    pub fn owner(&self, pointer: &str, keyword: &str) -> Option<usize> {
        let mut best: Option<(usize, (usize, usize, bool))> = None;
        for (idx, patterns, keywords) in &self.members {
            if !keywords.is_empty() && !keywords.iter().any(|k| k == keyword) {
                continue;
            }
            for p in patterns {
                if p.matches(pointer) {
                    let score = (p.literal_segments(), p.segments(), !keywords.is_empty());
                    if best.is_none_or(|(_, b)| score > b) {
                        best = Some((*idx, score));
                    }
                }
            }
        }
        best.map(|(i, _)| i)
    }
}

static DEFAULT_TABLE: std::sync::LazyLock<RuleTable> = std::sync::LazyLock::new(|| {
    RuleTable::from_sources(&load::embedded_sources())
        .unwrap_or_else(|e| panic!("the embedded rule table is invalid: {e}"))
});

impl RuleTable {
    /// The table shipped with this build (`rules/*.toml`), loaded once.
    pub fn builtin() -> &'static RuleTable {
        &DEFAULT_TABLE
    }

    /// Loads a table from `(file name, TOML text)` pairs.
    pub fn from_sources(sources: &[(String, String)]) -> Result<RuleTable, LoadError> {
        load::load(sources)
    }

    /// Loads a table from every `*.toml` file in a directory.
    pub fn from_dir(dir: &std::path::Path) -> Result<RuleTable, LoadError> {
        let mut sources = Vec::new();
        let entries = std::fs::read_dir(dir).map_err(|e| LoadError::io(dir, &e))?;
        let mut paths: Vec<_> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "toml"))
            .collect();
        paths.sort();
        for p in paths {
            let text = std::fs::read_to_string(&p).map_err(|e| LoadError::io(&p, &e))?;
            sources.push((p.display().to_string(), text));
        }
        RuleTable::from_sources(&sources)
    }

    /// Every rule, in table order.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// A rule by id.
    pub fn rule(&self, id: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.id == id)
    }

    /// The rules active under a revision, in table order.
    pub fn active(&self, protocol: Protocol) -> &[Active] {
        self.active.get(&protocol).map_or(&[], Vec::as_slice)
    }

    /// A rule's resolved form under a revision.
    pub fn active_rule(&self, protocol: Protocol, id: &str) -> Option<&Active> {
        self.active(protocol)
            .iter()
            .find(|a| self.rules[a.rule].id == id)
    }

    /// The revision's profile.
    pub fn profile(&self, protocol: Protocol) -> &RevisionProfile {
        self.profiles
            .get(&protocol)
            .expect("load() guarantees a profile per revision")
    }

    /// The revision's evaluation plan, parallel to [`RuleTable::active`].
    pub fn plan(&self, protocol: Protocol) -> &[Step] {
        self.plans.get(&protocol).map_or(&[], Vec::as_slice)
    }

    /// The indexes of the plan steps that can apply to an exchange that has `have`.
    pub fn runnable(&self, protocol: Protocol, have: crate::checks::Needs) -> &[u16] {
        self.runnable
            .get(&protocol)
            .and_then(|r| r.get(usize::from(have.bits())))
            .map_or(&[], |b| b)
    }

    /// The revision's schema groups.
    pub fn groups(&self, protocol: Protocol) -> &[SchemaGroup] {
        self.groups.get(&protocol).map_or(&[], Vec::as_slice)
    }

    /// The rule an active entry belongs to.
    pub fn rule_of(&self, active: &Active) -> &Rule {
        &self.rules[active.rule]
    }
}
