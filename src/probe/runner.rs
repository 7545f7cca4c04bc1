//! One revision's run: its state, and sending one JSON-RPC message of it over the run's
//! transport and recording the steps that came of it (the message, and what the transport
//! did on the way: answers to server requests, resumptions).

use serde_json::Value;

use super::answers::capabilities_for;
use super::config::ProbeConfig;
use super::report::{RevisionRun, RunStatus};
use super::transport::HttpStep;
use super::transport::{Heard, Inbound, Outbound, SendError, Sent, Transport};
use crate::vocab::Protocol;
use crate::vocab::protocol::code::UNSUPPORTED_PROTOCOL_VERSION;

/// The state of one revision's run: the configuration, the transport, the revision, the
/// JSON-RPC ids handed out, the client capabilities declared and what the run has found so
/// far.
pub(super) struct Runner<'a> {
    pub(super) cfg: &'a ProbeConfig,
    pub(super) t: &'a mut dyn Transport,
    pub(super) p: Protocol,
    next_id: i64,
    pub(super) caps: Value,
    /// What `initialize` negotiated (2025-11-25), recorded with every exchange of the session.
    pub(super) negotiated: Option<crate::wire::exchange::Negotiated>,
    /// The revisions the server declared in its `server/discover` answer (2026-07-28),
    /// recorded with every exchange of the run.
    pub(super) declared: Option<crate::wire::exchange::RecordedServer>,
    /// A revision the server said it supports instead of this one (UnsupportedProtocolVersion),
    /// which the probe speaks.
    pub(super) fallback: Option<Protocol>,
    pub(super) run: RevisionRun,
}

impl<'a> Runner<'a> {
    pub(super) fn new(cfg: &'a ProbeConfig, t: &'a mut dyn Transport, p: Protocol) -> Runner<'a> {
        Runner {
            cfg,
            t,
            p,
            next_id: 0,
            caps: capabilities_for(&cfg.answers),
            negotiated: None,
            declared: None,
            fallback: None,
            run: RevisionRun {
                protocol: p,
                status: RunStatus::Probed,
                server: None,
                tools: Vec::new(),
                discovery: Vec::new(),
                steps: Vec::new(),
                exchanges: Vec::new(),
                failures: Vec::new(),
                unreachable: None,
                stream_messages: Vec::new(),
                rejected_tools: Vec::new(),
                active: Vec::new(),
                process: None,
            },
        }
    }

    pub(super) fn id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    /// Moves what the server sent on its own so far into the run. Called between requests
    /// (never while a call is under way, so that a call's steps stay its own).
    pub(super) fn drain_listener(&mut self) {
        let heard = self.t.drain();
        self.take_heard(heard);
    }

    /// Ends the run's session on the transport, keeping what it heard; true when the
    /// transport ended a session the server had issued (its step is recorded).
    pub(super) fn end_session(&mut self) -> bool {
        let ended = self.t.end();
        self.take_heard(ended.heard);
        self.run.process = ended.process;
        match ended.step {
            Some(step) => {
                self.push_step(step);
                true
            }
            None => false,
        }
    }

    fn take_heard(&mut self, heard: Heard) {
        for s in heard.steps {
            self.push_step(s);
        }
        self.run.stream_messages.extend(heard.lines);
    }

    pub(super) fn push_step(&mut self, mut step: HttpStep) -> usize {
        if step.http_method == "POST" || step.http_method == super::transport::STDIN {
            step.post = Some(self.run.post_count() + 1);
        }
        self.run.steps.push(step);
        self.run.steps.len() - 1
    }

    /// Sends one JSON-RPC message; records the steps. Server requests met on the way are
    /// answered as the run's answers say (see `answers`), and a broken answer is picked up
    /// again where the transport can (a 2025-11-25 stream resumed with `Last-Event-ID`); a
    /// 2026-07-28 request rejected as UnsupportedProtocolVersion by a server that lists this
    /// revision as supported is sent once more.
    pub(super) fn send(
        &mut self,
        body: &Value,
        tool: Option<&Value>,
        answered: &mut Vec<String>,
    ) -> Result<Inbound, SendError> {
        let out = Outbound {
            body,
            tool,
            edits: &[],
            resume: true,
        };
        let mut tries = 0;
        loop {
            tries += 1;
            let sent = self.t.send(&out);
            let retry = match &sent.result {
                Ok(r) if tries == 1 && self.p == Protocol::V2026_07_28 => self.version_retry(r),
                _ => None,
            };
            let again = retry.is_some();
            let result = self.record(sent, |note| retry.or(note), answered);
            if !again {
                return result;
            }
        }
    }

    /// Records what sending one message came to: the transport's steps (`note` decides the
    /// note of the message's own step) and the server requests answered on the way. A run
    /// whose first step could not reach the server at all is unreachable.
    pub(super) fn record(
        &mut self,
        sent: Sent,
        note: impl FnOnce(Option<String>) -> Option<String>,
        answered: &mut Vec<String>,
    ) -> Result<Inbound, SendError> {
        let mut steps = sent.steps.into_iter();
        if let Some(mut step) = steps.next() {
            step.note = note(step.note.take());
            self.push_step(step);
        }
        for s in steps {
            self.push_step(s);
        }
        answered.extend(sent.answered);
        if let Err(SendError::Unreachable(why)) = &sent.result
            && self.run.steps.len() == 1
        {
            self.run.unreachable = Some(why.clone());
        }
        sent.result
    }

    /// When `r` rejects the request as UnsupportedProtocolVersion (-32022) and its
    /// `error.data.supported` lists this run's revision, why the request is sent once more.
    /// 2026-07-28 basic/transports/streamable-http, Backward Compatibility: "If the body
    /// contains a recognized modern JSON-RPC error, the server speaks a modern version of MCP
    /// — retry using the advertised `supported` versions"; basic/versioning: "version
    /// mismatches surface as `UnsupportedProtocolVersionError` and the client retries with a
    /// mutually supported version". The probe speaks one revision per run, so it retries only
    /// when that revision is listed (a server listing only 2025-11-25 gets that run instead,
    /// see [`Runner::fallback`]).
    fn version_retry(&self, r: &Inbound) -> Option<String> {
        let supported = rejected_version(r)?;
        let ours = self.p.as_str();
        supported.iter().any(|v| v == ours).then(|| {
            format!(
                "rejected as UnsupportedProtocolVersion ({UNSUPPORTED_PROTOCOL_VERSION}) although the server lists {ours} among its supported versions {supported:?}; sent once more with {ours}"
            )
        })
    }
}

/// The supported versions of an UnsupportedProtocolVersion (-32022) error response, when `r`
/// is one (an error answer with an HTTP error status, or the response itself).
pub(super) fn rejected_version(r: &Inbound) -> Option<Vec<String>> {
    let msg = r.message.as_ref()?;
    let err = msg.get("error")?;
    if err.get("code").and_then(Value::as_i64) != Some(UNSUPPORTED_PROTOCOL_VERSION) {
        return None;
    }
    Some(
        err.pointer("/data/supported")
            .and_then(Value::as_array)
            .map(|v| {
                v.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default(),
    )
}
