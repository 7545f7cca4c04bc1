//! Reply planning: a handler decides the whole reply (status, headers, body or every SSE step
//! and how the stream ends) as a [`Reply`] value before anything is written, and the
//! connection executes it byte by byte, so faults stay exact and testable. The builders for
//! JSON-RPC messages and the common replies live here too.

use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Map, Value, json};

use super::config::ResponseMode;
use super::shared::Shared;
use crate::vocab::Protocol;
use crate::vocab::http::{JSON, TEXT_PLAIN};
use crate::vocab::protocol::meta;

/// `serverInfo.name` the server reports.
const SERVER_NAME: &str = "mcp-verdict-serve";

/// What the connection loop should send.
pub(crate) enum Reply {
    /// A response with a `Content-Length` body (possibly empty).
    Full {
        status: u16,
        content_type: Option<String>,
        headers: Vec<(String, String)>,
        body: Vec<u8>,
        /// Close the connection after the response.
        close: bool,
        /// Whether the body is a complete JSON-RPC response to the request.
        final_response: bool,
        /// The JSON-RPC message in the body, when there is one (for records).
        message: Option<Value>,
    },
    /// An SSE stream.
    Sse(SsePlan),
}

/// An SSE stream, step by step.
pub(crate) struct SsePlan {
    pub headers: Vec<(String, String)>,
    /// Id of a priming event (id + empty data) sent first, if any.
    pub priming_id: Option<String>,
    pub steps: Vec<SseStep>,
    pub end: SseEnd,
}

/// Callback computing the message that follows a server request's answer.
pub(crate) type AfterAnswer = Box<dyn FnOnce(Answer) -> Value + Send>;

/// One step of an SSE stream.
pub(crate) enum SseStep {
    /// An event carrying this JSON-RPC message.
    Message(Value),
    /// An event whose data is this raw text (not valid JSON).
    RawData(String),
    /// Nothing is written for this long (work in progress between two events).
    Pause(Duration),
    /// Wait for the client's JSON-RPC response to a server request, then send
    /// the message `then` computes.
    Await {
        rx: mpsc::Receiver<Value>,
        /// Session and pending-request key, for clean-up.
        session: String,
        key: String,
        limit: Duration,
        then: AfterAnswer,
    },
}

/// How the client answered a server request on the stream.
pub(crate) enum Answer {
    /// The JSON-RPC response message the client POSTed.
    Response(Value),
    /// Nothing arrived in time.
    Timeout,
}

/// How an SSE stream ends.
pub(crate) enum SseEnd {
    /// Zero-length chunk; the connection stays usable (keep-alive).
    Finish,
    /// Zero-length chunk, then the connection is closed.
    FinishAndClose,
    /// Half of an event carrying this data, then a TCP reset.
    ResetMidEvent(String),
    /// Silence until the peer leaves or this long passes; then close
    /// without terminating the chunked body.
    Stall(Duration),
}

// ---------------------------------------------------------------------------
// Builders

/// A JSON-RPC error response (`id` omitted when the request's id is unknown).
pub(crate) fn error_msg(
    id: Option<&Value>,
    code: i64,
    message: &str,
    data: Option<Value>,
) -> Value {
    let mut err = json!({"code": code, "message": message});
    if let Some(d) = data {
        err["data"] = d;
    }
    let mut msg = json!({"jsonrpc": "2.0", "error": err});
    if let Some(id) = id {
        msg["id"] = id.clone();
    }
    msg
}

/// A JSON-RPC result response.
pub(crate) fn result_msg(id: &Value, result: Map<String, Value>) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": Value::Object(result)})
}

/// A JSON-RPC message as an `application/json` body.
pub(crate) fn json_reply(status: u16, msg: Value, headers: Vec<(String, String)>) -> Reply {
    let final_response = msg.get("id").is_some() && msg.get("method").is_none();
    Reply::Full {
        status,
        content_type: Some(JSON.into()),
        headers,
        body: msg.to_string().into_bytes(),
        close: false,
        final_response,
        message: Some(msg),
    }
}

/// A plain-text body (for refusals that carry no JSON-RPC message).
pub(crate) fn text_reply(
    status: u16,
    text: String,
    headers: Vec<(String, String)>,
    close: bool,
) -> Reply {
    Reply::Full {
        status,
        content_type: Some(TEXT_PLAIN.into()),
        headers,
        body: text.into_bytes(),
        close,
        final_response: false,
        message: None,
    }
}

/// `202 Accepted` with no body.
pub(crate) fn accepted() -> Reply {
    Reply::Full {
        status: 202,
        content_type: None,
        headers: Vec::new(),
        body: Vec::new(),
        close: false,
        final_response: false,
        message: None,
    }
}

/// 405 for GET and other methods (and DELETE without a session).
pub(crate) fn method_not_allowed() -> Reply {
    text_reply(
        405,
        "Method Not Allowed: this endpoint accepts POST (and DELETE of a 2025-11-25 session); it offers no GET stream\n".into(),
        vec![("Allow".into(), "POST, DELETE".into())],
        false,
    )
}

/// A JSON-RPC message as JSON or as a one-event SSE stream, per response mode.
pub(crate) fn deliver(
    shared: &Shared,
    rev: Protocol,
    status: u16,
    msg: Value,
    headers: Vec<(String, String)>,
) -> Reply {
    if shared.config.response_mode == ResponseMode::Sse && status == 200 {
        Reply::Sse(SsePlan {
            headers,
            priming_id: priming(shared, rev),
            steps: vec![SseStep::Message(msg)],
            end: SseEnd::Finish,
        })
    } else {
        json_reply(status, msg, headers)
    }
}

/// Priming event id for a 2025-11-25 stream (none for 2026-07-28).
pub(crate) fn priming(shared: &Shared, rev: Protocol) -> Option<String> {
    match rev {
        Protocol::V2025_11_25 => Some(format!("ev-{}", shared.next_serial())),
        Protocol::V2026_07_28 => None,
    }
}

/// The `serverInfo` object (`initialize` result, 2026-07-28 `_meta`).
pub(crate) fn server_info() -> Value {
    json!({"name": SERVER_NAME, "version": env!("CARGO_PKG_VERSION")})
}

/// The server's capabilities (`initialize` result, `server/discover`): tools, plus, when the
/// conformance fixture set is in force, the prompts, resources, completions and logging it
/// serves.
pub(crate) fn server_capabilities(shared: &Shared, rev: Protocol) -> Value {
    if shared.fixtures.is_none() {
        return json!({"tools": {}});
    }
    match rev {
        Protocol::V2025_11_25 => json!({
            "tools": {},
            "prompts": {},
            "resources": {"subscribe": true},
            "completions": {},
            "logging": {}
        }),
        // 2026-07-28 has no resources/subscribe (subscriptions/listen replaces it, and this
        // server offers no listen stream), so no `subscribe` flag.
        Protocol::V2026_07_28 => json!({
            "tools": {},
            "prompts": {},
            "resources": {},
            "completions": {},
            "logging": {}
        }),
    }
}

/// The `instructions` text (`initialize` result, `server/discover`).
pub(crate) fn server_instructions(shared: &Shared) -> Value {
    json!(format!(
        "mcp-verdict test server; scenario in force: {}",
        shared.config.scenario
    ))
}

/// Adds `resultType` (unless present) and `_meta` serverInfo (2026-07-28).
pub(crate) fn decorate_modern(mut m: Map<String, Value>, result_type: &str) -> Map<String, Value> {
    m.entry("resultType")
        .or_insert_with(|| Value::String(result_type.into()));
    let slot = m.entry("_meta").or_insert_with(|| json!({}));
    if let Some(slot) = slot.as_object_mut() {
        slot.insert(meta::SERVER_INFO.into(), server_info());
    }
    m
}

/// A complete result as `rev` sends it (decorated for 2026-07-28, as is for 2025-11-25).
pub(crate) fn decorate(rev: Protocol, m: Map<String, Value>) -> Map<String, Value> {
    match rev {
        Protocol::V2026_07_28 => decorate_modern(m, "complete"),
        Protocol::V2025_11_25 => m,
    }
}

/// A `notifications/progress` message.
pub(crate) fn progress_msg(token: &Value, progress: u64, total: u64) -> Value {
    json!({
        "jsonrpc": "2.0",
        "method": "notifications/progress",
        "params": {
            "progressToken": token,
            "progress": progress,
            "total": total,
            "message": format!("step {progress} of {total}")
        }
    })
}
