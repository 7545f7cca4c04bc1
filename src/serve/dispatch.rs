//! Dispatch of a POST body: the per-POST faults first, then the JSON-RPC envelope checks, then
//! the choice of revision for the message (2026-07-28 by `_meta` or header, `initialize`
//! included; 2025-11-25 for other `initialize` requests and session traffic). Also the
//! exchange facts the diagnostic record carries.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::exchange::{Exchange, Kind, client_label};
use super::incoming::Incoming;
use super::reply::{Reply, error_msg, json_reply};
use super::shared::Shared;
use super::{faults, v2025_11_25, v2026_07_28};
use crate::vocab::Protocol;
use crate::vocab::protocol::{INITIALIZE_ERA_VERSIONS, code, header, meta};

fn kind_of(msg: &Map<String, Value>) -> Option<Kind> {
    let has_method = msg.get("method").is_some_and(Value::is_string);
    let has_id = msg.contains_key("id");
    if has_method {
        Some(if has_id {
            Kind::Request
        } else {
            Kind::Notification
        })
    } else if has_id && (msg.contains_key("result") || msg.contains_key("error")) {
        Some(Kind::Response)
    } else {
        None
    }
}

fn meta_of(msg: &Map<String, Value>) -> Option<&Map<String, Value>> {
    msg.get("params")?.get("_meta")?.as_object()
}

fn is_valid_id(id: &Value) -> bool {
    id.is_string() || id.as_i64().is_some() || id.as_u64().is_some()
}

/// Handles a POST to the MCP endpoint (the `post_no`-th POST).
pub(crate) fn handle_post(
    shared: &Arc<Shared>,
    req: &Incoming<'_>,
    post_no: u64,
) -> (Reply, Exchange) {
    let parsed: Option<Value> = serde_json::from_slice(req.body).ok();
    let mut ex = peek_exchange(shared, req, parsed.as_ref());

    // Transport-level scenarios act on every POST before anything else.
    if let Some(reply) = faults::per_post(&shared.config.scenario, post_no) {
        return (reply, ex);
    }

    let Some(value) = parsed else {
        let msg = error_msg(
            None,
            code::PARSE_ERROR,
            "Parse error: the request body is not valid JSON",
            None,
        );
        return (json_reply(400, msg, Vec::new()), ex);
    };
    let Some(msg) = value.as_object() else {
        let text = if value.is_array() {
            "Invalid Request: JSON-RPC batches are not supported"
        } else {
            "Invalid Request: the body must be a JSON-RPC object"
        };
        return (
            json_reply(
                400,
                error_msg(None, code::INVALID_REQUEST, text, None),
                Vec::new(),
            ),
            ex,
        );
    };
    if msg.get("jsonrpc") != Some(&json!("2.0")) {
        let id = msg.get("id").filter(|v| is_valid_id(v));
        let m = error_msg(
            id,
            code::INVALID_REQUEST,
            "Invalid Request: jsonrpc must be \"2.0\"",
            None,
        );
        return (json_reply(400, m, Vec::new()), ex);
    }
    let Some(kind) = kind_of(msg) else {
        let m = error_msg(
            None,
            code::INVALID_REQUEST,
            "Invalid Request: not a JSON-RPC request, notification or response",
            None,
        );
        return (json_reply(400, m, Vec::new()), ex);
    };
    if matches!(kind, Kind::Request) && !is_valid_id(&msg["id"]) {
        let m = error_msg(
            None,
            code::INVALID_REQUEST,
            "Invalid Request: id must be a string or an integer (not null)",
            None,
        );
        return (json_reply(400, m, Vec::new()), ex);
    }

    let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
    let session_hdr = req.session.map(str::to_string);
    let meta_version = meta_of(msg)
        .and_then(|m| m.get(meta::PROTOCOL_VERSION))
        .and_then(Value::as_str);
    let modern_by_meta = meta_of(msg).is_some_and(|m| m.contains_key(meta::PROTOCOL_VERSION))
        && !meta_version.is_some_and(|v| INITIALIZE_ERA_VERSIONS.contains(&v));
    let modern_by_header = session_hdr.is_none()
        && req.header(header::PROTOCOL_VERSION) == Some(Protocol::V2026_07_28.as_str());

    // A message that says it is 2026-07-28 is served as one, `initialize` included: that
    // revision has no such method (404, method not found).
    let reply = if modern_by_meta || modern_by_header {
        v2026_07_28::handle(shared, req, msg, kind, &mut ex)
    } else if method == "initialize" && matches!(kind, Kind::Request) {
        v2025_11_25::initialize(shared, msg, &mut ex)
    } else {
        v2025_11_25::handle(shared, req, msg, kind, session_hdr, &mut ex)
    };
    (reply, ex)
}

/// Best-effort exchange facts before any validation.
fn peek_exchange(shared: &Shared, req: &Incoming<'_>, parsed: Option<&Value>) -> Exchange {
    let mut ex = Exchange::default();
    let Some(msg) = parsed.and_then(Value::as_object) else {
        return ex;
    };
    ex.method = msg
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_string);
    ex.id = msg.get("id").cloned();
    if let Some(m) = meta_of(msg) {
        ex.client = client_label(m.get(meta::CLIENT_INFO));
        ex.protocol_version = m
            .get(meta::PROTOCOL_VERSION)
            .and_then(Value::as_str)
            .map(str::to_string);
    }
    if ex.method.as_deref() == Some("initialize") {
        ex.client = client_label(msg.get("params").and_then(|p| p.get("clientInfo")));
        ex.protocol_version = Some(Protocol::V2025_11_25.as_str().into());
    } else if let Some(sid) = req.session
        && ex.protocol_version.is_none()
        && let Some(s) = shared.sessions.lock().expect("sessions lock").get(sid)
    {
        ex.client = client_label(s.client_info.as_ref());
        ex.protocol_version = Some(s.protocol_version.clone());
    }
    ex
}
