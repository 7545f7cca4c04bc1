//! What a probe found: the steps, judged exchanges, active checks and status of each
//! revision's run, and the exit status they add up to.

use serde::Serialize;
use serde_json::Value;

use super::plan::PlannedCall;
use super::transport::HttpStep;
use crate::judge::{Engine, Judgement, Verdict};
use crate::rules::Cite;
use crate::vocab::{Level, Protocol, Severity, exit};
use crate::wire::exchange::Exchange;

// ---------------------------------------------------------------------------
// Active checks (`--active`, see `active`)

/// The check that sends back an altered `requestState` (2026-07-28).
pub(crate) const TAMPERED_STATE: &str = "tampered-state";

/// What `tampered-state` tests: 2026-07-28 basic/patterns/mrtr, Server Requirements. It is no
/// rule of the table: the sentence binds only a server whose state "influences authorization,
/// resource access, or business logic", which no exchange shows, so a server that takes an
/// altered state is not known to break it and only a rejection is judged (passed).
const STATE_VERIFIED: (&str, &str) = (
    "basic/patterns/mrtr#server-requirements-basic-workflow",
    "If requestState influences authorization, resource access, or business logic, servers MUST protect its integrity (e.g. HMAC or AEAD) and MUST reject state that fails verification.",
);

/// What a check expects: an HTTP status and, for 2026-07-28, a JSON-RPC error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Expected {
    /// HTTP status.
    pub status: u16,
    /// JSON-RPC error code, when the rule names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<i64>,
}

impl std::fmt::Display for Expected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.code {
            Some(c) => write!(f, "HTTP {} with error {c}", self.status),
            None => write!(f, "HTTP {}", self.status),
        }
    }
}

/// A finding of an active check: the rule it breaks under the run's revision, with the
/// rule's level, citation and what was found.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActiveFinding {
    /// Rule id.
    pub rule: String,
    /// The rule's level (MUST, SHOULD, ...).
    pub level: Level,
    /// How serious.
    pub severity: Severity,
    /// The spec page cited.
    pub url: String,
    /// The spec text cited.
    pub quote: String,
    /// What was found.
    pub message: String,
    /// Whether the engine found it in the exchange (`false`: the probe, which knows what it
    /// sent, states it).
    pub by_engine: bool,
}

/// How a check came out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "result", content = "reason")]
pub enum ActiveResult {
    /// The server answered as the rule says.
    Passed,
    /// The answer breaks a rule (see the findings).
    Findings,
    /// The answer is one the spec leaves open, or says nothing about this check.
    NotJudged(String),
    /// Not sent.
    Skipped(String),
}

/// One active check of a run.
#[derive(Debug, Clone)]
pub struct ActiveCheck {
    /// Short name (`unsupported-version`, `method-header`, ...).
    pub check: &'static str,
    /// What was sent.
    pub sent: String,
    /// The rule whose expectation the check tests; empty for a check that tests a spec
    /// sentence no rule encodes (see [`ActiveCheck::cite`]).
    pub rule: &'static str,
    /// What the rule says the server must answer.
    pub expected: Option<Expected>,
    /// What the check wants, when no status and code say it (`a rejection`, `a new
    /// input_required result`).
    pub wants: Option<&'static str>,
    /// What the server answered (`HTTP 400 with error -32022`), when it did.
    pub got: Option<String>,
    /// Whether the answer was the one the check wants: the status and code the rule names,
    /// or what [`ActiveCheck::wants`] says (findings may still come of other rules, e.g. a
    /// malformed error object). A passed check always has it.
    pub as_expected: bool,
    /// How it came out.
    pub result: ActiveResult,
    /// Findings (engine's and the probe's).
    pub findings: Vec<ActiveFinding>,
    /// The exchange and its judgement, when a response arrived (recorded with `--record`).
    pub exchange: Option<(Exchange, Judgement<'static>)>,
}

impl ActiveCheck {
    pub(crate) fn skipped(
        check: &'static str,
        rule: &'static str,
        why: impl Into<String>,
    ) -> ActiveCheck {
        ActiveCheck {
            check,
            sent: String::new(),
            rule,
            expected: None,
            wants: None,
            got: None,
            as_expected: false,
            result: ActiveResult::Skipped(why.into()),
            findings: Vec::new(),
            exchange: None,
        }
    }

    /// The spec sentence the check tests under `p`: its rule's citation, or, for a check that
    /// tests no rule of the table (`tampered-state`), the sentence itself.
    pub fn cite(&self, p: Protocol) -> Option<Cite> {
        if let Some(a) = Engine::builtin().table().active_rule(p, self.rule) {
            return Some(a.cite.clone());
        }
        let (page, quote) = match self.check {
            TAMPERED_STATE => STATE_VERIFIED,
            _ => return None,
        };
        let docs = &Engine::builtin().table().profile(p).docs;
        Some(Cite {
            url: format!("{docs}/{page}"),
            section: format!("{p} {page}"),
            quote: quote.to_string(),
        })
    }

    /// The rule the check tests, or, for a check that tests no rule, the section it cites.
    pub fn cited(&self, p: Protocol) -> String {
        if self.rule.is_empty() {
            self.cite(p).map(|c| c.section).unwrap_or_default()
        } else {
            self.rule.to_string()
        }
    }

    /// Whether a finding of error severity came of it (the exit status is then 1).
    pub fn has_error_finding(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Error)
    }
}

/// One judged `tools/call` exchange.
#[derive(Debug, Clone)]
pub struct CallExchange {
    /// Label of the call (`echo`, `unknown-tool`, `add:invalid-args`).
    pub label: String,
    /// The call.
    pub call: PlannedCall,
    /// Round of the call (1 = first request; 2.. = input-required follow-ups).
    pub round: u32,
    /// The exchange as received (secret header values redacted).
    pub exchange: Exchange,
    /// The engine's judgement under the run's revision.
    pub judgement: Judgement<'static>,
    /// How many of the run's HTTP steps had happened when this exchange ended.
    pub steps_so_far: usize,
    /// POSTs sent for this call so far (rounds and answers to server requests).
    pub call_posts: u32,
    /// Their statuses, in order.
    pub call_statuses: Vec<u16>,
    /// Why the body ended the way it did, when it did not simply complete.
    pub end_note: Option<String>,
    /// Server requests seen on the stream and how the probe answered them.
    pub server_requests: Vec<String>,
    /// Why no follow-up round was sent after an `input_required` result.
    pub follow_up: Option<String>,
    /// Why the call got no complete response, when it did not (the body was cut at a cap,
    /// closed, stalled or timed out before the JSON-RPC response; a redirect). Such a call
    /// makes the exit status 1.
    pub unanswered: Option<String>,
}

impl CallExchange {
    /// The verdict under the run's revision.
    pub fn verdict(&self) -> &Verdict<'static> {
        &self.judgement.verdicts[0]
    }

    /// Whether the verdict carries an error-severity finding.
    pub fn has_error_finding(&self) -> bool {
        self.verdict().worst() == Some(Severity::Error)
    }
}

/// One judged discovery exchange: the `initialize` (2025-11-25), `server/discover`
/// (2026-07-28) or `tools/list` request of a run's setup and the server's answer, judged by
/// the discovery rules (its outcome is `NOT_A_TOOL_CALL`; what counts are its findings).
#[derive(Debug, Clone)]
pub struct SetupExchange {
    /// The request: its method, and the page for a `tools/list` after the first.
    pub label: String,
    /// The exchange as received (secret header values redacted).
    pub exchange: Exchange,
    /// The engine's judgement under the run's revision.
    pub judgement: Judgement<'static>,
}

impl SetupExchange {
    /// The verdict under the run's revision.
    pub fn verdict(&self) -> &Verdict<'static> {
        &self.judgement.verdicts[0]
    }

    /// Whether the verdict carries an error-severity finding.
    pub fn has_error_finding(&self) -> bool {
        self.verdict().worst() == Some(Severity::Error)
    }
}

/// How a run under one revision went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase", tag = "status", content = "reason")]
pub enum RunStatus {
    /// Set up and probed.
    Probed,
    /// The server does not speak this revision (its own answer says so).
    Unsupported(String),
    /// Setting up failed (the reason says which request and why).
    Failed(String),
}

/// The probe's work under one revision.
#[derive(Debug, Clone)]
pub struct RevisionRun {
    /// The revision.
    pub protocol: Protocol,
    /// How it went.
    pub status: RunStatus,
    /// What the server said about itself (`server/discover` result or `initialize` result).
    pub server: Option<Value>,
    /// Tools listed.
    pub tools: Vec<Value>,
    /// The setup's discovery exchanges, judged, in order (before any tool call).
    pub discovery: Vec<SetupExchange>,
    /// Every HTTP request, in order.
    pub steps: Vec<HttpStep>,
    /// Judged `tools/call` exchanges, in order.
    pub exchanges: Vec<CallExchange>,
    /// Calls that produced no HTTP response to judge: (label, why).
    pub failures: Vec<(String, String)>,
    /// Set when not a single request reached the server.
    pub unreachable: Option<String>,
    /// Messages that arrived on the standalone GET stream (2025-11-25) and what the probe did
    /// with them, one line each.
    pub stream_messages: Vec<String>,
    /// Listed tools the probe rejected and does not call (2026-07-28: invalid `x-mcp-header`
    /// annotations): (name, why).
    pub rejected_tools: Vec<(String, String)>,
    /// The active checks (`--active`), in order.
    pub active: Vec<ActiveCheck>,
    /// Over stdio: what the server process did (its stderr, how it ended, the transcript).
    pub process: Option<super::transport::ServerProcess>,
}

impl RevisionRun {
    /// POSTs sent in this run.
    pub fn post_count(&self) -> u32 {
        self.steps.iter().filter(|s| s.post.is_some()).count() as u32
    }
}

/// Everything a probe found.
#[derive(Debug, Clone)]
pub struct ProbeReport {
    /// The endpoint (secrets redacted).
    pub url: String,
    /// One run per revision probed.
    pub runs: Vec<RevisionRun>,
    /// The OAuth client's requests (discovery, registration, authorization, token), secrets
    /// redacted; empty when the server asked for no authorization.
    pub authorization: Vec<crate::oauth::FlowStep>,
}

impl ProbeReport {
    /// Every judged exchange, run by run.
    pub fn exchanges(&self) -> impl Iterator<Item = &CallExchange> {
        self.runs.iter().flat_map(|r| r.exchanges.iter())
    }

    /// The run under a revision.
    pub fn run(&self, p: Protocol) -> Option<&RevisionRun> {
        self.runs.iter().find(|r| r.protocol == p)
    }

    /// Judged exchanges that got no complete response.
    pub fn unanswered(&self) -> impl Iterator<Item = &CallExchange> {
        self.exchanges().filter(|x| x.unanswered.is_some())
    }

    /// 0 when every judged verdict (discovery and calls) is free of error-severity findings, every call got a
    /// complete response (none cut, closed, stalled, timed out, redirected or left unsent at
    /// the deadline), no run failed to set up and at least one run was probed; 1 otherwise.
    /// (Not testable is never a pass; a revision the server declines is not a failure.)
    pub fn exit_code(&self) -> u8 {
        let probed = self
            .runs
            .iter()
            .any(|r| matches!(r.status, RunStatus::Probed));
        let bad = self.runs.iter().any(|r| {
            matches!(r.status, RunStatus::Failed(_))
                || !r.failures.is_empty()
                // A revision the server declines is judged but not held against it: its
                // answer to a request of a revision it does not speak is no discovery answer.
                || (matches!(r.status, RunStatus::Probed)
                    && r.discovery.iter().any(SetupExchange::has_error_finding))
                || r.exchanges
                    .iter()
                    .any(|x| x.has_error_finding() || x.unanswered.is_some())
                || r.active.iter().any(ActiveCheck::has_error_finding)
        });
        if probed && !bad {
            exit::OK
        } else {
            exit::FINDINGS
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(status: RunStatus, failures: Vec<(String, String)>) -> RevisionRun {
        RevisionRun {
            protocol: Protocol::V2025_11_25,
            status,
            server: None,
            tools: Vec::new(),
            discovery: Vec::new(),
            steps: Vec::new(),
            exchanges: Vec::new(),
            failures,
            unreachable: None,
            stream_messages: Vec::new(),
            rejected_tools: Vec::new(),
            active: Vec::new(),
            process: None,
        }
    }

    fn code(runs: Vec<RevisionRun>) -> u8 {
        ProbeReport {
            url: "http://x/mcp".into(),
            runs,
            authorization: Vec::new(),
        }
        .exit_code()
    }

    #[test]
    fn exit_code_is_one_for_a_call_without_a_response_a_failed_setup_or_nothing_probed() {
        assert_eq!(code(vec![run(RunStatus::Probed, Vec::new())]), exit::OK);
        let unsent = vec![("echo".to_string(), "not sent".to_string())];
        assert_eq!(code(vec![run(RunStatus::Probed, unsent)]), exit::FINDINGS);
        assert_eq!(
            code(vec![
                run(RunStatus::Probed, Vec::new()),
                run(RunStatus::Failed("initialize".into()), Vec::new())
            ]),
            exit::FINDINGS
        );
        // A declined revision is no failure, but something must have been probed.
        assert_eq!(
            code(vec![
                run(RunStatus::Unsupported("no".into()), Vec::new()),
                run(RunStatus::Probed, Vec::new())
            ]),
            exit::OK
        );
        assert_eq!(
            code(vec![run(RunStatus::Unsupported("no".into()), Vec::new())]),
            exit::FINDINGS
        );
    }
}
