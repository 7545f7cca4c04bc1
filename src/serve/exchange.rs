//! What the server learns about one message for its diagnostic record, what kind of JSON-RPC
//! message it holds, and the facts of an answer every binding notes in the record.

use serde_json::Value;

use crate::views::diag::{DiagRecord, sanitize};

/// Facts about the exchange for the diagnostic record.
#[derive(Default, Clone)]
pub(crate) struct Exchange {
    pub client: Option<String>,
    pub protocol_version: Option<String>,
    pub method: Option<String>,
    pub id: Option<Value>,
    /// The 2025-11-25 session an `initialize` answer opened (a binding without a header
    /// layer keeps it for the connection's later messages).
    pub opened_session: Option<String>,
}

/// Message kinds a POST body can hold.
pub(crate) enum Kind {
    Request,
    Notification,
    Response,
}

/// `name@version` of a `clientInfo` object, sanitised for the record.
pub(crate) fn client_label(info: Option<&Value>) -> Option<String> {
    let info = info?;
    let name = info.get("name")?.as_str()?;
    let label = match info.get("version").and_then(Value::as_str) {
        Some(v) => format!("{name}@{v}"),
        None => name.to_string(),
    };
    Some(sanitize(&label))
}

/// Whether `msg` is a JSON-RPC response (a result or an error, no method).
pub(crate) fn is_response(msg: &Value) -> bool {
    msg.get("method").is_none() && (msg.get("result").is_some() || msg.get("error").is_some())
}

/// Copies a message's error / resultType facts into the record.
pub(crate) fn note_message(record: &mut DiagRecord, msg: &Value) {
    if let Some(err) = msg.get("error") {
        record.jsonrpc.error_code = err.get("code").and_then(Value::as_i64);
        record.jsonrpc.error_message = err.get("message").and_then(Value::as_str).map(sanitize);
    }
    if let Some(rt) = msg.pointer("/result/resultType").and_then(Value::as_str) {
        record.result_type = Some(rt.to_string());
    }
}
