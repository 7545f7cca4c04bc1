//! Verdicts: what the table's effects make of the checks' evaluations.

use crate::check_api::{Cx, Eval, ResultKind};
use crate::rules::{Active, Rule, RuleTable};
use crate::vocab::{Layer, Outcome, Protocol, Severity};
use crate::wire::hints::RetryContext;

use super::facts::{Facts, facts_of};

/// How a rule's check came out on one exchange.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EvalStatus {
    /// The check's precondition did not hold.
    NotApplicable,
    /// Looked; condition absent.
    Passed,
    /// Condition present.
    Triggered,
}

/// A rule the responder (or the recorded request) broke.
#[derive(Clone, Debug)]
pub struct Finding<'t> {
    /// The rule.
    pub rule: &'t Rule,
    /// The rule under this revision.
    pub active: &'t Active,
    /// How serious.
    pub severity: Severity,
    /// JSON Pointer into the response message.
    pub pointer: String,
    /// What was found.
    pub message: String,
    /// SSE event index, for stream bodies.
    pub event: Option<usize>,
    /// stdout line (1-based), for stdio exchanges.
    pub line: Option<usize>,
}

/// Findings of one rule left out of a verdict by a cap ([`crate::judge::judge_capped`],
/// [`Verdict::cap_findings`]): nothing is dropped silently, the count stays.
#[derive(Clone, Debug)]
pub struct Omitted<'t> {
    /// The rule.
    pub rule: &'t Rule,
    /// The rule under this revision.
    pub active: &'t Active,
    /// The severity of its findings.
    pub severity: Severity,
    /// How many findings were left out.
    pub count: usize,
}

/// What a caller's settings did to one rule's findings in a verdict (`--ignore`, a per-rule
/// severity; see `crate::config`). Settings never change the outcome, the citations or the
/// evaluations: only which findings are reported, and how severe they are.
#[derive(Clone, Debug)]
pub struct Adjustment<'t> {
    /// The rule.
    pub rule: &'t Rule,
    /// What changed.
    pub change: Change,
    /// How many findings of the rule it changed (those a cap left out included).
    pub count: usize,
    /// The setting that made the change, as its user wrote it (`--ignore`,
    /// `mcp-verdict.toml`, ...).
    pub by: String,
}

/// A change an [`Adjustment`] made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// The findings are not reported.
    Ignored,
    /// The findings are reported with another severity.
    Severity {
        /// The rule's own severity.
        from: Severity,
        /// The severity the settings give it.
        to: Severity,
    },
}

/// The verdict on one exchange under one revision.
#[derive(Clone, Debug)]
pub struct Verdict<'t> {
    /// The revision.
    pub protocol: Protocol,
    /// What a conforming client should conclude.
    pub outcome: Outcome,
    /// The rule that decided the outcome.
    pub decided_by: Option<&'t Active>,
    /// Other outcome rules that triggered but were outranked (e.g. a JSON-RPC error inside an
    /// HTTP 400), for context.
    pub context: Vec<&'t Active>,
    /// Defaults applied (absent `resultType`, absent `isError`).
    pub defaults: Vec<&'t Active>,
    /// Every finding, in table order (at most the cap per rule when judged with
    /// [`crate::judge::judge_capped`] or after [`Verdict::cap_findings`]).
    pub findings: Vec<Finding<'t>>,
    /// Per rule, how many findings a cap left out (empty unless capped), in table order.
    pub omitted: Vec<Omitted<'t>>,
    /// Every active rule's evaluation, indexed like [`RuleTable::active`] for the verdict's
    /// revision (table order).
    pub evaluations: Vec<EvalStatus>,
    /// Facts read off the exchange.
    pub facts: Facts,
    /// Remarks about what could not be judged.
    pub notes: Vec<String>,
    /// What settings changed in the findings (empty unless a caller applied some).
    pub adjustments: Vec<Adjustment<'t>>,
    /// What the deciding rule's check found (its first hit), if it said anything.
    pub detail: Option<String>,
    /// What the exchange says about retrying (replay safety, Retry-After).
    pub retry: RetryContext,
    table: &'t RuleTable,
}

impl<'t> Verdict<'t> {
    pub(super) fn assemble(
        cx: &Cx<'_>,
        table: &'t RuleTable,
        actives: &'t [Active],
        evals: impl Iterator<Item = (usize, Eval)>,
    ) -> Verdict<'t> {
        // Rules the engine did not run could only say "not applicable".
        let mut evaluations = vec![EvalStatus::NotApplicable; actives.len()];
        let mut findings = Vec::new();
        let mut defaults = Vec::new();
        // The deciding rule is the triggered outcome rule with the lowest precedence; only its
        // first hit is kept (as the verdict's detail), so the success path allocates nothing.
        let mut decided_by: Option<&'t Active> = None;
        let mut detail: Option<String> = None;
        let mut omitted = Vec::new();
        // The verdict's context when the transport decides (below): of the triggered outcome
        // rules whose outcome differs from the deciding rule's, the one of lowest precedence
        // (the first in table order on a tie), followed as the rules come.
        let mut context_rule: Option<&'t Active> = None;
        for (i, eval) in evals {
            let (mut hits, mut more) = match eval {
                Eval::NotApplicable => continue,
                Eval::Pass => {
                    evaluations[i] = EvalStatus::Passed;
                    continue;
                }
                Eval::Trigger(hits) => (hits, 0),
                Eval::TriggerMore(hits, more) => (hits, more),
            };
            // The cap: a check that described more hits than are kept loses the rest here.
            if cx.cap() > 0 && hits.len() > cx.cap() {
                more += hits.len() - cx.cap();
                hits.truncate(cx.cap());
            }
            evaluations[i] = EvalStatus::Triggered;
            let active = &actives[i];
            let rule = table.rule_of(active);
            if active.outcome.is_some() {
                match decided_by {
                    Some(d) if active.precedence >= d.precedence => {
                        if active.outcome != d.outcome
                            && context_rule.is_none_or(|c| active.precedence < c.precedence)
                        {
                            context_rule = Some(active);
                        }
                    }
                    former => {
                        // The rule it outranks comes first of all those before it: the context
                        // when its outcome differs (else the context already differs from both).
                        if let Some(d) = former
                            && d.outcome != active.outcome
                        {
                            context_rule = Some(d);
                        }
                        decided_by = Some(active);
                        // A rule without findings keeps nothing of its hits: the message moves.
                        detail = match (active.severity, hits.first_mut()) {
                            (None, Some(h)) => Some(std::mem::take(&mut h.message)),
                            (Some(_), Some(h)) => Some(h.message.clone()),
                            (_, None) => None,
                        };
                    }
                }
            }
            if active.default.is_some() {
                defaults.push(active);
            }
            // Over stdio the body is the response's line, so a framing finding on the body is
            // on that line too.
            let stdio = cx.an.stdio().is_some();
            let message_event = match rule.layer {
                crate::vocab::Layer::Transport | crate::vocab::Layer::Framing if !stdio => None,
                _ => cx.an.message_event(),
            };
            if let Some(severity) = active.severity {
                if hits.is_empty() {
                    findings.push(Finding {
                        rule,
                        active,
                        severity,
                        pointer: String::new(),
                        message: rule.title.clone(),
                        event: None,
                        line: None,
                    });
                }
                for h in hits {
                    // A hit's message index is an SSE event, or over stdio a stdout line.
                    let at = h.event.or(message_event);
                    let (event, line) = if stdio {
                        (None, at.map(|l| l + 1))
                    } else {
                        (at, None)
                    };
                    findings.push(Finding {
                        rule,
                        active,
                        severity,
                        pointer: h.pointer,
                        message: h.message,
                        event,
                        line,
                    });
                }
                if more > 0 {
                    omitted.push(Omitted {
                        rule,
                        active,
                        severity,
                        count: more,
                    });
                }
            }
        }
        let mut notes = Vec::new();
        let outcome = match decided_by {
            Some(a) => a.outcome.expect("outcome rules have outcomes"),
            None => {
                notes.push(
                    "no outcome rule applied to this exchange under this revision; the rule table has a gap (reported as INVALID_ENVELOPE)"
                        .to_string(),
                );
                Outcome::InvalidEnvelope
            }
        };
        // When the transport decided, say what the body carried (e.g. a JSON-RPC error inside
        // an HTTP 400); otherwise outranked outcomes only restate what the findings show.
        let context = match decided_by {
            Some(_) if outcome.layer() == crate::vocab::Layer::Transport => {
                context_rule.into_iter().collect()
            }
            _ => Vec::new(),
        };
        if cx.an.req.body.is_none() {
            notes.push(
                "the request was not recorded: id matching and request-dependent rules were not applied"
                    .to_string(),
            );
        }
        if matches!(cx.kind(), ResultKind::Extension(_)) {
            notes.push(
                "the result is an extension result type this engine does not inspect further"
                    .to_string(),
            );
        }
        Verdict {
            protocol: cx.protocol,
            outcome,
            decided_by,
            context,
            defaults,
            findings,
            omitted,
            evaluations,
            facts: facts_of(cx, table),
            notes,
            adjustments: Vec::new(),
            detail,
            retry: RetryContext::of(cx.an.ex),
            table,
        }
    }

    /// Keeps at most `max` findings per rule (the first ones, in table order) and counts the
    /// rest in [`Verdict::omitted`]; `0` keeps every finding. The outcome, the citations, the
    /// evaluations and which rules have findings (and the worst severity) do not change.
    pub fn cap_findings(&mut self, max: usize) {
        if max == 0 || self.findings.len() <= max {
            return;
        }
        let mut seen: Vec<(&'t str, usize)> = Vec::new();
        let mut kept = Vec::with_capacity(self.findings.len().min(max * 8));
        for f in std::mem::take(&mut self.findings) {
            let id = f.rule.id.as_str();
            let n = match seen.iter_mut().find(|(r, _)| *r == id) {
                Some((_, n)) => {
                    *n += 1;
                    *n
                }
                None => {
                    seen.push((id, 1));
                    1
                }
            };
            if n <= max {
                kept.push(f);
            } else {
                match self.omitted.iter_mut().find(|o| o.rule.id == id) {
                    Some(o) => o.count += 1,
                    None => self.omitted.push(Omitted {
                        rule: f.rule,
                        active: f.active,
                        severity: f.severity,
                        count: 1,
                    }),
                }
            }
        }
        self.findings = kept;
    }

    /// How many findings a cap left out, over every rule.
    pub fn omitted_count(&self) -> usize {
        self.omitted.iter().map(|o| o.count).sum()
    }

    /// The outcome's layer.
    pub fn layer(&self) -> Layer {
        self.outcome.layer()
    }

    /// The rule table the verdict was reached with.
    pub fn table(&self) -> &'t RuleTable {
        self.table
    }

    /// The rule that decided the outcome.
    pub fn deciding_rule(&self) -> Option<&'t Rule> {
        self.decided_by.map(|a| self.table.rule_of(a))
    }

    /// Ids of every cited rule: the deciding rule, then defaults, then context.
    pub fn cited_ids(&self) -> impl Iterator<Item = &'t str> + '_ {
        self.decided_by
            .iter()
            .chain(self.defaults.iter())
            .chain(self.context.iter())
            .map(|a| self.table.rule_of(a).id.as_str())
    }

    /// Whether a rule id is cited or found.
    pub fn mentions(&self, id: &str) -> bool {
        self.cited_ids().any(|c| c == id) || self.findings.iter().any(|f| f.rule.id == id)
    }

    /// The worst finding severity.
    pub fn worst(&self) -> Option<Severity> {
        self.findings.iter().map(|f| f.severity).max()
    }

    /// A one-line explanation of the outcome, with the specifics of this exchange.
    pub fn summary(&self) -> String {
        let f = &self.facts;
        let mut s = match self.outcome {
            Outcome::JsonrpcError => format!("{}: {}", error_label(f), self.outcome.meaning()),
            _ => self.outcome.meaning().to_string(),
        };
        if let Some(d) = &self.detail {
            s.push_str(" — ");
            s.push_str(d);
        }
        if self.outcome == Outcome::HttpError && f.error.is_some() {
            s.push_str(&format!("; the body carries {}", error_label(f)));
        }
        s
    }
}

fn error_label(f: &Facts) -> String {
    match &f.error {
        Some(e) => match (e.code, &e.name) {
            (Some(c), Some(n)) => format!("JSON-RPC error {c} ({n})"),
            (Some(c), None) => format!("JSON-RPC error {c}"),
            _ => "a JSON-RPC error".to_string(),
        },
        None => "a JSON-RPC error".to_string(),
    }
}
