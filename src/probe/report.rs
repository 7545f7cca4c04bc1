//! What a probe found: the HTTP steps, judged exchanges and status of each revision's run,
//! and the exit status they add up to.

use serde::Serialize;
use serde_json::Value;

use super::{PlannedCall, ReadStop};
use crate::judge::{Judgement, Verdict};
use crate::vocab::{Protocol, Severity, exit};
use crate::wire::exchange::{BodyEnd, Exchange};

/// One HTTP request of a run and what came of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HttpStep {
    /// Ordinal among the run's POSTs (1-based); `None` for GET and DELETE.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub post: Option<u32>,
    /// HTTP method.
    pub http_method: String,
    /// JSON-RPC method (or `response` for an answer to a server request).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rpc_method: Option<String>,
    /// Tool name, for `tools/call`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// HTTP status, when a response arrived.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// How the body ended (`complete`, `reset`, `timeout`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<BodyEnd>,
    /// Why the probe stopped reading the body, when it did not simply complete
    /// (`closed`, `stalled`, `timed-out`, `deadline`, `size-cap`, `event-cap`,
    /// `after-response`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<ReadStop>,
    /// Where a 3xx response pointed (`Location`, secrets redacted); never followed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redirect: Option<String>,
    /// What went wrong, if anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl HttpStep {
    /// One line for people: `#3 POST tools/call echo → 200`, with what happened when the
    /// body did not complete (`(cut at the size cap)`, `(closed mid-body)`, `(stalled)`) or
    /// the answer was a redirect (`(redirected, not followed)`).
    pub fn describe(&self) -> String {
        let mut s = match self.post {
            Some(n) => format!("#{n} POST"),
            None => self.http_method.clone(),
        };
        if let Some(m) = &self.rpc_method {
            s.push(' ');
            s.push_str(m);
        }
        if let Some(t) = &self.tool {
            s.push(' ');
            s.push_str(t);
        }
        match self.status {
            Some(st) => s.push_str(&format!(" → {st}")),
            None => s.push_str(" → no response"),
        }
        if self.status.is_some_and(|st| (300..400).contains(&st)) {
            s.push_str(" (redirected, not followed)");
        }
        match (self.stopped, self.end) {
            (Some(stop), _) => s.push_str(&format!(" ({})", stop.label())),
            (None, Some(e)) if e != BodyEnd::Complete => {
                s.push_str(&format!(" (body end: {})", e.as_str()));
            }
            _ => {}
        }
        s
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
    pub active: Vec<super::ActiveCheck>,
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
                || r.active.iter().any(super::ActiveCheck::has_error_finding)
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
        }
    }

    fn code(runs: Vec<RevisionRun>) -> u8 {
        ProbeReport {
            url: "http://x/mcp".into(),
            runs,
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
