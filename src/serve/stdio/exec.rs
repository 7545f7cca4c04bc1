//! Executing a planned [`Reply`] as lines on stdout: a JSON-RPC message is one line of compact
//! JSON; the steps of a streamed reply (progress, a server request, its answer awaited) are
//! lines in order; what only HTTP has (a status, header fields, an SSE priming event, a body
//! without a message) writes nothing. The stdio faults (`stdio_*` scenarios) spoil the one
//! line or moment they name, and nothing else.

use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use super::out::{Out, Unwritten};
use crate::serve::exchange::{is_response, note_message};
use crate::serve::reply::{Answer, Reply, SseEnd, SseStep};
use crate::serve::scenario::{Scenario, StdioFault};
use crate::serve::shared::Shared;
use crate::views::diag::{DiagRecord, StreamEnd};
use crate::vocab::http::JSON;

/// How often a wait for the client's answer checks whether the server is stopping.
const POLL: Duration = Duration::from_millis(50);

/// The banner `stdio_banner` writes.
const BANNER: &str = "mcp-verdict serve: MCP server running on stdio (scenario stdio_banner)";

/// The request a reply answers.
pub(super) struct Call<'a> {
    /// Its id as JSON text (the key of what is kept for it), `None` for a notification.
    pub key: Option<&'a str>,
    /// Its JSON-RPC method.
    pub method: &'a str,
    /// Its `_meta.progressToken`, when it gave one.
    pub progress_token: Option<Value>,
}

/// How executing a reply ended.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Ended {
    /// Everything planned was written.
    Written,
    /// The request was cancelled; what was left was not written.
    Cancelled,
    /// The server exited (a fault), or its stdout is gone.
    Gone,
}

/// Writes the reply to `call`; notes in `record` what went out.
pub(super) fn execute(
    shared: &Shared,
    out: &Out,
    call: &Call<'_>,
    reply: Reply,
    record: &mut DiagRecord,
) -> Ended {
    let w = Writer {
        shared,
        out,
        call,
        fault: match &shared.config.scenario {
            Scenario::Stdio(f) => Some(*f),
            _ => None,
        },
    };
    let ended = match reply {
        Reply::Full {
            message,
            body,
            content_type,
            ..
        } => match message {
            Some(m) => w.message(&m, record),
            // Bytes meant as a message that is not one (`malformed_json`) go out as their line.
            None if content_type.as_deref() == Some(JSON) && !body.is_empty() => {
                let mut line = body;
                line.push(b'\n');
                w.line(&line, false)
            }
            // A status, or a refusal in words: nothing to say on stdout.
            None => Ok(()),
        },
        Reply::Sse(plan) => w.steps(plan.steps, plan.end, record),
    };
    match ended {
        Ok(()) => Ended::Written,
        Err(Unwritten::Cancelled) => Ended::Cancelled,
        Err(Unwritten::Gone) => Ended::Gone,
    }
}

struct Writer<'a> {
    shared: &'a Shared,
    out: &'a Out,
    call: &'a Call<'a>,
    fault: Option<StdioFault>,
}

impl Writer<'_> {
    fn line(&self, bytes: &[u8], despite_cancel: bool) -> Result<(), Unwritten> {
        if self.fault == Some(StdioFault::Banner) && self.out.lines() == 0 {
            self.out
                .stdout(None, format!("{BANNER}\n").as_bytes(), false)?;
        }
        self.out.stdout(self.call.key, bytes, despite_cancel)
    }

    fn compact(&self, msg: &Value, despite_cancel: bool) -> Result<(), Unwritten> {
        let mut bytes = msg.to_string().into_bytes();
        bytes.push(b'\n');
        self.line(&bytes, despite_cancel)
    }

    /// Writes one message; the response to a `tools/call` carrying a result is where a
    /// `stdio_*` fault strikes.
    fn message(&self, msg: &Value, record: &mut DiagRecord) -> Result<(), Unwritten> {
        if self.fault == Some(StdioFault::StderrChatter) && is_response(msg) {
            self.out
                .stderr(&format!("[debug] answering {}", self.call.method));
            self.out.stderr(
                "ERROR (not really): stderr is for logs, whatever they say (scenario stdio_stderr_chatter)",
            );
        }
        let faulty =
            is_response(msg) && self.call.method == "tools/call" && msg.get("result").is_some();
        let written = match self.fault.filter(|_| faulty) {
            None | Some(StdioFault::Banner | StdioFault::StderrChatter) => self.compact(msg, false),
            Some(StdioFault::LogLine) => {
                self.line(
                    b"[info] tools/call: running the tool (scenario stdio_log_line)\n",
                    false,
                )?;
                self.compact(msg, false)
            }
            Some(StdioFault::Pretty) => {
                let mut bytes = serde_json::to_vec_pretty(msg).expect("JSON serializes");
                bytes.push(b'\n');
                self.line(&bytes, false)
            }
            Some(StdioFault::Crash) => {
                self.out.exit(1);
                Err(Unwritten::Gone)
            }
            Some(StdioFault::PartialExit) => {
                let text = msg.to_string();
                let half = &text.as_bytes()[..text.len() / 2];
                let _ = self.line(half, false);
                self.out.exit(1);
                Err(Unwritten::Gone)
            }
            Some(StdioFault::Slow(ms)) => {
                self.pause(Duration::from_millis(ms));
                self.compact(msg, false)
            }
            Some(StdioFault::AfterCancel(ms)) => {
                let key = self.call.key.unwrap_or_default();
                if self.out.wait_cancel(key, Duration::from_millis(ms)) {
                    // The fault: work goes on and is reported after the cancellation.
                    let token = self
                        .call
                        .progress_token
                        .clone()
                        .unwrap_or_else(|| json!(format!("mcp-verdict-progress-{key}")));
                    let progress = crate::serve::reply::progress_msg(&token, 1, 1);
                    self.compact(&progress, true)?;
                    self.compact(msg, true)
                } else {
                    self.compact(msg, false)
                }
            }
        };
        if written.is_ok() && is_response(msg) {
            record.final_response = true;
            note_message(record, msg);
        }
        written
    }

    fn pause(&self, d: Duration) {
        let until = Instant::now() + d;
        while Instant::now() < until && !self.out.stopping() {
            thread::sleep((until - Instant::now()).min(POLL));
        }
    }

    fn steps(
        &self,
        steps: Vec<SseStep>,
        end: SseEnd,
        record: &mut DiagRecord,
    ) -> Result<(), Unwritten> {
        for step in steps {
            match step {
                SseStep::Message(m) => self.message(&m, record)?,
                // Data that is not JSON goes out as the line it is.
                SseStep::RawData(d) => self.line(format!("{d}\n").as_bytes(), false)?,
                SseStep::Pause(d) => self.pause(d),
                SseStep::Await {
                    rx,
                    session,
                    key,
                    limit,
                    then,
                } => {
                    let answer = self.await_answer(&rx, limit);
                    self.shared.forget_pending(&session, &key);
                    if matches!(answer, Answer::Timeout) {
                        record.stream_end = StreamEnd::Timeout;
                    }
                    let m = then(answer);
                    self.message(&m, record)?;
                }
            }
        }
        match end {
            SseEnd::Finish | SseEnd::FinishAndClose => Ok(()),
            // HTTP's own ways of ending a stream early have no stdio form: the request simply
            // goes unanswered.
            SseEnd::ResetMidEvent(_) | SseEnd::Stall(_) => Ok(()),
        }
    }

    /// Waits for the client's answer to a server request (it arrives as a line on stdin and
    /// reaches `rx` through the dialogue), up to `limit`.
    fn await_answer(&self, rx: &mpsc::Receiver<Value>, limit: Duration) -> Answer {
        let until = Instant::now() + limit;
        loop {
            match rx.recv_timeout(POLL) {
                Ok(v) => return Answer::Response(v),
                Err(mpsc::RecvTimeoutError::Disconnected) => return Answer::Timeout,
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            let stopping = self
                .shared
                .shutdown
                .load(std::sync::atomic::Ordering::SeqCst);
            if stopping || self.out.exited().is_some() || Instant::now() >= until {
                return Answer::Timeout;
            }
        }
    }
}
