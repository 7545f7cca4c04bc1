//! `--active`: requests that exercise a server's error paths. Each check sends one request
//! with exactly one thing wrong, records the exchange and judges it with the engine under the
//! run's revision like any other, and compares the answer with what the rule table says the
//! server must answer (the rule's HTTP status and JSON-RPC error code). A check either passes,
//! citing its rule, or carries findings: the engine's (server rules only; what the probe got
//! wrong on purpose is no finding) and, when the engine has nothing to say about an answer
//! that still breaks the rule, one the probe states itself, citing that rule.
//!
//! Under **2026-07-28**, after the calls: an unsupported protocol version (`tools/list`
//! naming `2000-01-01` in the header and `_meta`), a header version contradicting `_meta`,
//! `_meta` without `clientCapabilities`, `initialize` (a method the revision does not have),
//! an `Mcp-Method` header naming another method, and an `Mcp-Name` header naming another tool
//! than the body, and an `Mcp-Param-*` header contradicting its argument (both sent only
//! against a tool the probe may call: `readOnlyHint: true`, or, with `--allow-side-effects`,
//! `destructiveHint: false`); and, when a call got an `input_required` result during the run,
//! its retry with the `requestState` altered and one whose `inputResponses` answer none of the
//! `inputRequests`. Under **2025-11-25**, in the session: a `tools/list` whose `MCP-Protocol-Version` header names a
//! version older than every MCP revision, one without the session id the server issued, and,
//! once the server has answered the probe's DELETE, one in the session it ended.
//!
//! What the probe knows and one exchange does not show is recorded with the exchange, so that
//! the engine judges it there (and again from a `--record` file): the session the server
//! issued and whether the probe's DELETE ended it (`session`), the `input_required` result a
//! retry answers and whether its `requestState` was altered (`retry`). The altered-state retry
//! tests no rule of the table: the spec binds only a server whose state "influences
//! authorization, resource access, or business logic", which no exchange shows, so a rejection
//! passes and a retry the server took is not judged; the check cites the spec sentence itself
//! ([`ActiveCheck::cite`]).
//!
//! A check that cannot apply is reported as skipped, with why; an answer the spec leaves open
//! (a dual-era server answering `initialize`, a transient 429 or 5xx) is reported as not
//! judged, never as a finding.

mod legacy;
mod modern;

use serde_json::Value;

use crate::judge::{Engine, Options, judge};
use crate::probe::runner::Runner;
use crate::probe::transport::{Inbound, MetaEdit, Outbound};
use crate::vocab::{Actor, Level, Protocol, Severity};
use crate::wire::exchange::{BodyEnd, Exchange, RecordedRetry, RecordedSession};

/// A protocol version no MCP server implements: it precedes the first revision (2024-11-05).
pub const BOGUS_VERSION: &str = "2000-01-01";

use crate::probe::report::TAMPERED_STATE;
pub use crate::probe::report::{ActiveCheck, ActiveFinding, ActiveResult, Expected};

/// A check not sent, and why.
struct Skip(&'static str, &'static str, String);

impl Skip {
    fn new(check: &'static str, rule: &'static str, why: impl Into<String>) -> Skip {
        Skip(check, rule, why.into())
    }
}

/// One request of a check: the body, the changes to the transport's metadata, what it is.
struct Probe {
    check: &'static str,
    rule: &'static str,
    sent: String,
    body: Value,
    /// The definition of the tool a `tools/call` names (what the metadata mirrors of it).
    tool: Option<Value>,
    /// Changes to the transport's metadata (over HTTP: its header fields).
    edits: Vec<MetaEdit>,
    /// Answers the spec leaves open: a 2xx is not judged (dual-era `initialize`).
    lenient_2xx: Option<String>,
    /// Codes besides the expected one that also satisfy the spec here (with 400).
    also: Vec<i64>,
    /// Whether any answer but the expected one is left unjudged (dual-era `initialize`).
    strict: bool,
    /// How the answer is judged.
    kind: Kind,
    /// Whether the request is sent in the session the server ended (2025-11-25): recorded as
    /// `session.ended` with the exchange.
    ended: bool,
    /// The `input_required` result the request answers (2026-07-28), recorded as `retry`.
    retry: Option<RecordedRetry>,
}

/// The base of a check's request: judged against its rule's status and code, strictly, with
/// no other code accepted.
impl Default for Probe {
    fn default() -> Self {
        Self {
            check: "",
            rule: "",
            sent: String::new(),
            body: Value::Null,
            tool: None,
            edits: Vec::new(),
            lenient_2xx: None,
            also: Vec::new(),
            strict: true,
            kind: Kind::Expect,
            ended: false,
            retry: None,
        }
    }
}

/// How a check's answer is judged.
enum Kind {
    /// Against the rule's status and code.
    Expect,
    /// Any rejection (a JSON-RPC error, a 4xx) passes; a served request is not judged, for
    /// the reason given.
    Rejection(String),
    /// As the engine judges the retry (its rule reads the exchange's `retry`): a new
    /// `input_required` result passes, a JSON-RPC error is a finding; anything else is not
    /// judged.
    AskAgain,
}

/// The expectation a rule states under `p`: its `status` and `code` parameters.
fn expected_of(p: Protocol, rule: &str) -> Option<Expected> {
    let a = Engine::builtin().table().active_rule(p, rule)?;
    Some(Expected {
        status: a.params.status?,
        code: a.params.code,
    })
}

/// A finding the probe states: the rule under `p` with its citation.
fn probe_finding(p: Protocol, rule: &str, message: String) -> Option<ActiveFinding> {
    let table = Engine::builtin().table();
    let a = table.active_rule(p, rule)?;
    let severity = a.severity.unwrap_or(match a.level {
        Level::Should | Level::ShouldNot | Level::May => Severity::Warning,
        _ => Severity::Error,
    });
    Some(ActiveFinding {
        rule: rule.to_string(),
        level: a.level,
        severity,
        url: a.cite.url.clone(),
        quote: a.cite.quote.clone(),
        message,
        by_engine: false,
    })
}

/// The JSON-RPC error code of an answer, when it is an error (JSON body or SSE message).
fn error_code(r: &Inbound) -> Option<i64> {
    r.message.as_ref()?.get("error")?.get("code")?.as_i64()
}

fn got_text(r: &Inbound) -> String {
    let head = r.head();
    match error_code(r) {
        Some(c) => format!("{head} with error {c}"),
        None if r.accepted() && r.response.is_some() => {
            match r
                .response
                .as_ref()
                .and_then(|m| m.pointer("/result/resultType"))
                .and_then(Value::as_str)
            {
                Some(t) => format!(
                    "{head} with a result (resultType {})",
                    crate::views::diag::sanitize(t)
                ),
                None => format!("{head} with a result"),
            }
        }
        None => format!("{head} without a JSON-RPC error"),
    }
}

impl Runner<'_> {
    /// Runs the active checks of this run's revision (after the calls).
    pub(super) fn active_checks(&mut self) {
        if !self.cfg.active || self.run.unreachable.is_some() {
            return;
        }
        let probes = match self.p {
            Protocol::V2026_07_28 => self.modern_probes(),
            Protocol::V2025_11_25 => self.legacy_probes(),
        };
        for probe in probes {
            let c = match probe {
                Ok(probe) => self.active_send(probe),
                Err(Skip(check, rule, why)) => ActiveCheck::skipped(check, rule, why),
            };
            self.run.active.push(c);
            if self.run.unreachable.is_some() {
                return;
            }
        }
    }

    /// Sends a check's request (once: no version retry, no resumption), judges the exchange
    /// and compares the answer with the rule's expectation.
    fn active_send(&mut self, probe: Probe) -> ActiveCheck {
        let expected = expected_of(self.p, probe.rule);
        let mut c = ActiveCheck {
            check: probe.check,
            sent: probe.sent.clone(),
            rule: probe.rule,
            expected,
            wants: match probe.kind {
                Kind::Expect => None,
                Kind::Rejection(_) => Some("a rejection (a JSON-RPC error or a 4xx)"),
                Kind::AskAgain => Some("a new input_required result"),
            },
            got: None,
            as_expected: false,
            result: ActiveResult::NotJudged(String::new()),
            findings: Vec::new(),
            exchange: None,
        };
        if expected.is_none() && matches!(probe.kind, Kind::Expect) {
            c.result = ActiveResult::Skipped(format!(
                "the rule table has no {} expectation for {}",
                probe.rule, self.p
            ));
            return c;
        }
        if self.t.remaining().is_zero() {
            c.result = ActiveResult::Skipped("the probe's deadline has passed".into());
            return c;
        }
        if !probe.edits.is_empty() && !self.t.has_metadata_layer() {
            c.result = ActiveResult::Skipped(
                "the transport sends no metadata beside the message for the check to alter".into(),
            );
            return c;
        }
        self.drain_listener();
        let out = Outbound {
            body: &probe.body,
            tool: probe.tool.as_ref(),
            edits: &probe.edits,
            resume: false,
        };
        let sent = self.t.send(&out);
        let check = probe.check;
        let res = self.record(
            sent,
            |note| {
                Some(match note {
                    Some(n) => format!("active check {check}; {n}"),
                    None => format!("active check {check}"),
                })
            },
            &mut Vec::new(),
        );
        let r = match res {
            Ok(r) => r,
            Err(e) => {
                c.result = ActiveResult::NotJudged(format!("no response: {e}"));
                return c;
            }
        };
        let got = got_text(&r);
        c.got = Some(got.clone());
        let exchange = Exchange {
            name: Some(format!("probe {} active {}", self.p, probe.check)),
            initialize: self.negotiated.clone(),
            server: self.declared.clone(),
            // What the probe knows and one exchange does not show: the session the server
            // issued (and whether it ended), the result a retry answers.
            session: self.t.session_id().map(|id| RecordedSession {
                id: id.to_string(),
                ended: probe.ended,
            }),
            retry: probe.retry.clone(),
            ..r.exchange.clone()
        };
        let judgement = judge(
            &exchange,
            &Options {
                protocols: Some(match self.p {
                    Protocol::V2025_11_25 => &[Protocol::V2025_11_25],
                    Protocol::V2026_07_28 => &[Protocol::V2026_07_28],
                }),
                ..Options::default()
            },
        )
        .expect("the revision is given explicitly");
        // The engine's findings on the server (the probe's own deliberate fault in the request
        // is what `request.*` rules report; those are no findings here).
        for f in &judgement.verdicts[0].findings {
            if f.rule.actor != Actor::Server || f.severity == Severity::Info {
                continue;
            }
            c.findings.push(ActiveFinding {
                rule: f.rule.id.clone(),
                level: f.active.level,
                severity: f.severity,
                url: f.active.cite.url.clone(),
                quote: f.active.cite.quote.clone(),
                message: crate::views::diag::sanitize(&f.message),
                by_engine: true,
            });
        }
        // The check's own rule first (as the probe listed its own finding first).
        c.findings.sort_by_key(|f| f.rule != probe.rule);
        let mut exchange = exchange;
        crate::views::redact::exchange_headers(&mut exchange);
        c.exchange = Some((exchange, judgement));

        let code = error_code(&r);
        let transient = matches!(r.status, Some(408 | 429 | 502 | 503 | 504))
            || r.response.is_none() && r.end != BodyEnd::Complete;
        if transient {
            c.result = ActiveResult::NotJudged(format!(
                "{got}: a transient answer, which says nothing about this check"
            ));
            return self.conclude(c);
        }
        let result_type = r
            .response
            .as_ref()
            .and_then(|m| m.pointer("/result/resultType"))
            .and_then(Value::as_str);
        match &probe.kind {
            Kind::Expect => {}
            Kind::Rejection(why) => {
                let rejected = code.is_some() || r.status.is_some_and(|s| (400..500).contains(&s));
                c.as_expected = rejected;
                if !rejected && c.findings.is_empty() {
                    c.result = ActiveResult::NotJudged(format!("{got}: {why}"));
                }
                return self.conclude(c);
            }
            Kind::AskAgain => {
                // The engine judged the retry (the exchange records what it answers): an error
                // is its finding; a final result is not judged.
                c.as_expected = result_type == Some("input_required");
                if result_type != Some("input_required") && c.findings.is_empty() {
                    c.result = ActiveResult::NotJudged(if code.is_none() && r.accepted() {
                        format!(
                            "{got}: the server did without the input it had asked for, so it was not necessary"
                        )
                    } else {
                        format!("{got}: neither a JSON-RPC error nor a new input_required result")
                    });
                }
                return self.conclude(c);
            }
        }
        let Some(expected) = expected else {
            return self.conclude(c);
        };
        let status_ok = r.status == Some(expected.status);
        let code_ok = match expected.code {
            None => true,
            Some(want) => code == Some(want) || code.is_some_and(|g| probe.also.contains(&g)),
        };
        if status_ok && code_ok {
            // Right answer; engine findings (a malformed error object) still count.
            c.as_expected = true;
        } else if r.accepted() && code.is_none() && probe.lenient_2xx.is_some() {
            c.result = ActiveResult::NotJudged(format!(
                "{got}: {}",
                probe.lenient_2xx.unwrap_or_default()
            ));
            return self.conclude(c);
        } else if !probe.strict {
            if c.findings.is_empty() {
                c.result = ActiveResult::NotJudged(format!(
                    "{got}: {}",
                    probe.lenient_2xx.unwrap_or_default()
                ));
            }
            return self.conclude(c);
        } else if !c.findings.iter().any(|f| f.rule == probe.rule) {
            let message = format!(
                "{}: expected {expected}{}, got {got}",
                probe.sent,
                if probe.also.is_empty() {
                    String::new()
                } else {
                    format!(
                        " (or error {})",
                        probe
                            .also
                            .iter()
                            .map(i64::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }
            );
            if let Some(f) = probe_finding(self.p, probe.rule, message) {
                c.findings.insert(0, f);
            }
        }
        self.conclude(c)
    }

    fn conclude(&self, mut c: ActiveCheck) -> ActiveCheck {
        if !c.findings.is_empty() {
            c.result = ActiveResult::Findings;
        } else if matches!(&c.result, ActiveResult::NotJudged(w) if w.is_empty()) {
            c.result = ActiveResult::Passed;
        }
        c
    }
}
