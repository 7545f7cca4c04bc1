//! The probe's transports: how the client logic's JSON-RPC messages reach a server and how
//! what the server sends comes back.
//!
//! The client logic (a session per revision, discovery, listing, calling, `input_required`
//! rounds, what to answer to a server request, judging) is written against [`Transport`]
//! alone, the way a `tower::Service` caller never learns whether the bytes travel over a
//! socket or a pipe. A transport owns what only it knows: its framing, its metadata layer
//! (over HTTP: the header fields, the session id, SSE resumption, the standalone GET stream,
//! DELETE), how it delivers an answer to a server request, and what a recorded exchange
//! looks like on its wire. Each transport is one module beside the others (`http`, `stdio`).

pub(crate) mod http;
pub(crate) mod stdio;
mod step;

pub use stdio::{ServerProcess, StdioCommand};
pub use step::{HttpStep, ReadStop, STDIN};

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;

use crate::views::diag::sanitize;
use crate::wire::exchange::{BodyEnd, Exchange};

/// Default for [`Limits::body_bytes`]: 32 MiB.
pub const DEFAULT_MAX_BODY: usize = 32 * 1024 * 1024;

/// Default for [`Limits::events`].
pub const DEFAULT_MAX_EVENTS: usize = 1_000;

/// Default for [`Limits::deadline`]: 5 minutes.
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(300);

/// Deadlines for one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeouts {
    /// Establishing the TCP (and TLS) connection.
    pub connect: Duration,
    /// Longest silence tolerated while waiting for the response head or the next body bytes
    /// (per SSE event, per read).
    pub idle: Duration,
    /// Longest one request may take in total, response body included.
    pub total: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Timeouts {
            connect: Duration::from_secs(10),
            idle: Duration::from_secs(30),
            total: Duration::from_secs(120),
        }
    }
}

/// What one response, and the whole probe, may take: the caps that keep a misbehaving server
/// from holding the probe for long or filling its memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Longest the whole probe may take, every revision and request included (default 5
    /// minutes). Requests due after it are not sent and count as calls without a response.
    pub deadline: Duration,
    /// Most body bytes kept per response (default 32 MiB); reading stops there.
    pub body_bytes: usize,
    /// Most SSE events read per response (default 1,000); reading stops there.
    pub events: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            deadline: DEFAULT_DEADLINE,
            body_bytes: DEFAULT_MAX_BODY,
            events: DEFAULT_MAX_EVENTS,
        }
    }
}

/// Why a message produced no answer at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum SendError {
    /// The server could not be reached (DNS, refused, connect timeout, TLS).
    Unreachable(String),
    /// Connected, but no response head arrived (timeout, reset, garbage).
    NoResponse(String),
    /// The request could not be built (bad header, bad URL).
    Request(String),
    /// Not sent: the probe's overall deadline had passed.
    Deadline(Duration),
}

impl std::fmt::Display for SendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SendError::Unreachable(m) => write!(f, "cannot reach the server: {m}"),
            SendError::NoResponse(m) => write!(f, "no HTTP response: {m}"),
            SendError::Request(m) => write!(f, "cannot send the request: {m}"),
            SendError::Deadline(d) => write!(
                f,
                "not sent: the probe's deadline ({} s, --deadline) had passed",
                secs(*d)
            ),
        }
    }
}

/// A duration in seconds, as compactly as it reads: `30`, `0.25`.
pub(crate) fn secs(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s.fract() == 0.0 {
        format!("{s:.0}")
    } else {
        format!("{s:.3}")
            .trim_end_matches('0')
            .trim_end_matches('.')
            .to_string()
    }
}

/// How the client logic answers a server request: what to say. The transport says how (a
/// POSTed response, a line on the server's stdin) and reports what came of it.
pub(crate) enum Reply {
    /// Send this JSON-RPC response; `how` says in a few words what it is.
    Answer {
        /// The JSON-RPC response.
        response: Value,
        /// `empty result`, `answer from the answers file`, `error response -32601 ...`.
        how: String,
    },
    /// Leave the request unanswered, for this reason (one line for the report).
    Decline(String),
}

/// The client logic's side of a server request, handed to the transport (which may meet
/// server requests on a thread of its own, such as the standalone GET stream's).
pub(crate) trait Responder: Send + Sync {
    /// The reply to `msg`; `None` when `msg` is not a request.
    fn reply(&self, msg: &Value) -> Option<Reply>;
}

/// A responder shared by a transport and the threads it starts.
pub(crate) type SharedResponder = Arc<dyn Responder>;

/// One change a check makes to the metadata a transport sends beside the message (over
/// HTTP: its header fields), to see how the server takes it. A transport without such a
/// layer ([`Transport::has_metadata_layer`]) cannot send a message with edits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum MetaEdit {
    /// Give the field of this name this value instead of its own (encoded as the transport
    /// encodes such values).
    Set(String, String),
    /// Leave the field of this name out.
    Drop(String),
}

/// One JSON-RPC message for the transport to send.
pub(crate) struct Outbound<'a> {
    /// The message as the client logic wrote it.
    pub body: &'a Value,
    /// The definition of the tool a `tools/call` names, when it was listed (what the
    /// transport's metadata may mirror of the arguments).
    pub tool: Option<&'a Value>,
    /// Changes to the transport's metadata (active checks only).
    pub edits: &'a [MetaEdit],
    /// Whether an answer the server broke off may be picked up again (a check's request is
    /// sent once, as it is).
    pub resume: bool,
}

/// What came back for one message, as the client logic reads it.
#[derive(Debug, Clone)]
pub(crate) struct Inbound {
    /// The JSON-RPC response to the message, when one was read.
    pub response: Option<Value>,
    /// The JSON-RPC message the answer holds: the response, or a JSON body that is not one
    /// (an error answer sent with an HTTP error status).
    pub message: Option<Value>,
    /// The transport's status for the answer, when it has such a thing (HTTP).
    pub status: Option<u16>,
    /// How the answer ended.
    pub end: BodyEnd,
    /// Why the answer ended the way it did, when it did not simply complete.
    pub end_note: Option<String>,
    /// Why the answer is not a complete answer to the message, when it is not.
    pub unanswered: Option<String>,
    /// Why the answer is unusable as the answer to a setup request, for the report: what
    /// the transport says of it (status, media type, an excerpt).
    pub failure: String,
    /// The exchange as it went over the wire (no name, tool, negotiated session or retry
    /// context yet: the client logic adds what it knows).
    pub exchange: Exchange,
}

impl Inbound {
    /// Whether the transport accepted the message (over HTTP: a 2xx status).
    pub(crate) fn accepted(&self) -> bool {
        self.status.is_none_or(|s| (200..300).contains(&s))
    }

    /// `HTTP 400` for a transport with statuses; what the client logic says of an answer.
    pub(crate) fn head(&self) -> String {
        match self.status {
            Some(s) => format!("HTTP {s}"),
            None => "the answer".into(),
        }
    }
}

/// What sending one message came to: the answer (or why none came), the transport's steps
/// (the message's own first, then those it took on the way: answers to server requests,
/// resumptions) and one line per server request met and how it was answered.
pub(crate) struct Sent {
    pub result: Result<Inbound, SendError>,
    pub steps: Vec<HttpStep>,
    pub answered: Vec<String>,
}

/// What the server sent outside any request (over HTTP: on the standalone GET stream): the
/// transport's steps and one line per message.
#[derive(Debug, Default)]
pub(crate) struct Heard {
    pub steps: Vec<HttpStep>,
    pub lines: Vec<String>,
}

/// How a run's session ended on its transport.
#[derive(Default)]
pub(crate) struct SessionEnd {
    /// What the server sent on its own since the last call.
    pub heard: Heard,
    /// The step that ended a session the server had issued (over HTTP: DELETE).
    pub step: Option<HttpStep>,
    /// What the server process did, over a transport that launched one (stdio).
    pub process: Option<ServerProcess>,
}

/// A transport for one revision's run: one connection, or one session, to the server.
pub(crate) trait Transport {
    /// Sends one JSON-RPC message and reads what answers it, answering the server requests
    /// met on the way as the run's [`Responder`] says.
    fn send(&mut self, out: &Outbound<'_>) -> Sent;

    /// Says that the session is set up (2025-11-25: `notifications/initialized` accepted), so
    /// that the transport may start listening for what the server sends on its own.
    fn initialized(&mut self);

    /// What the server sent on its own since the last call. Called between requests only,
    /// so that a call's steps stay its own.
    fn drain(&mut self) -> Heard;

    /// Ends the run's session: stops listening (what was heard is returned) and ends the
    /// session the way the transport does (over HTTP: DELETE, whose step is returned; over
    /// stdio: the server process is shut down).
    fn end(&mut self) -> SessionEnd;

    /// Time left before the probe's deadline.
    fn remaining(&self) -> Duration;

    /// The session id the server issued, when the transport carries one (over HTTP:
    /// `MCP-Session-Id`).
    fn session_id(&self) -> Option<&str>;

    /// Whether messages travel with metadata beside them that checks may alter
    /// ([`MetaEdit`]).
    fn has_metadata_layer(&self) -> bool;

    /// Why a listed tool cannot be called over this transport, when it cannot (over HTTP,
    /// 2026-07-28: invalid `x-mcp-header` annotations).
    fn tool_problem(&self, tool: &Value) -> Option<String>;
}

/// `error.code` and `error.message` of a JSON-RPC error, for messages.
pub(crate) fn error_text(err: Option<&Value>) -> String {
    let Some(e) = err else {
        return "(no error object)".into();
    };
    let code = e
        .get("code")
        .map_or_else(|| "?".to_string(), Value::to_string);
    let msg = e.get("message").and_then(Value::as_str).unwrap_or("");
    sanitize(&format!("{code}: {msg}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_render_compactly() {
        assert_eq!(secs(Duration::from_secs(30)), "30");
        assert_eq!(secs(Duration::from_millis(250)), "0.25");
    }
}
