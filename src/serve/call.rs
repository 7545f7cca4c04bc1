//! One `tools/call` as the server handles it: the request it answers and the server's own
//! answer before any fault is applied.

use serde_json::{Map, Value};

use crate::vocab::Protocol;

/// The request a `tools/call` answers.
pub(crate) struct CallCtx {
    pub rev: Protocol,
    pub id: Value,
    /// Client capabilities (per request in 2026-07-28, per session in 2025-11-25).
    pub caps: Value,
    /// 2025-11-25 session id.
    pub session: Option<String>,
}

/// The server's own answer to a tools/call, before any fault.
pub(crate) enum Outcome {
    /// A tool result (undecorated).
    Result(Map<String, Value>),
    /// A JSON-RPC error with its HTTP status.
    Error {
        code: i64,
        message: String,
        data: Option<Value>,
        status: u16,
    },
    /// 2026-07-28 InputRequiredResult (undecorated).
    InputRequired(Map<String, Value>),
    /// 2025-11-25: ask for confirmation on the stream, then run the tool.
    LegacyElicit,
    /// `count` with a progress token: stream this many progress steps, then the result.
    CountStream(u64, Value),
}

/// A JSON-RPC error outcome without `data`.
pub(crate) fn protocol_error(code: i64, message: impl Into<String>, status: u16) -> Outcome {
    Outcome::Error {
        code,
        message: message.into(),
        data: None,
        status,
    }
}
