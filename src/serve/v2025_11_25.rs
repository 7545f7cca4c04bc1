//! The 2025-11-25 dialogue: `initialize` opens a session (`MCP-Session-Id`), later requests
//! and notifications are served in it, the client's answers to server requests are routed to
//! the stream waiting for them, and DELETE ends the session.

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::call::CallCtx;
use super::conformance;
use super::exchange::{Exchange, Kind, client_label};
use super::incoming::Incoming;
use super::reply::{
    Reply, accepted, deliver, error_msg, json_reply, method_not_allowed, result_msg,
    server_capabilities, server_info, server_instructions, text_reply,
};
use super::scenario::{Lenient, Scenario};
use super::shared::Shared;
use super::state::Session;
use super::tools_call::tools_call;
use crate::vocab::Protocol;
use crate::vocab::protocol::{code, header, meta};

/// Answers `initialize`: opens a session.
pub(crate) fn initialize(
    shared: &Arc<Shared>,
    msg: &Map<String, Value>,
    ex: &mut Exchange,
) -> Reply {
    let id = &msg["id"];
    let params = msg.get("params").and_then(Value::as_object);
    let Some(requested) = params
        .and_then(|p| p.get("protocolVersion"))
        .and_then(Value::as_str)
    else {
        let m = error_msg(
            Some(id),
            code::INVALID_PARAMS,
            "Invalid params: initialize needs params.protocolVersion",
            None,
        );
        return json_reply(200, m, Vec::new());
    };
    // We implement one initialize-based revision; answer with it whatever was
    // asked (lifecycle: "respond with another protocol version it supports").
    let negotiated = Protocol::V2025_11_25.as_str();
    let _ = requested;
    let client_info = params.and_then(|p| p.get("clientInfo")).cloned();
    let capabilities = params
        .and_then(|p| p.get("capabilities"))
        .cloned()
        .unwrap_or_else(|| json!({}));
    let sid = shared.keys.random_hex();
    ex.opened_session = Some(sid.clone());
    ex.client = client_label(client_info.as_ref());
    ex.protocol_version = Some(negotiated.into());
    shared.sessions.lock().expect("sessions lock").insert(
        sid.clone(),
        Session {
            client_info,
            capabilities,
            protocol_version: negotiated.into(),
            initialized: false,
            pending: HashMap::new(),
            log_level: None,
            subscriptions: Default::default(),
        },
    );
    let result = Map::from_iter([
        ("protocolVersion".to_string(), json!(negotiated)),
        (
            "capabilities".into(),
            server_capabilities(shared, Protocol::V2025_11_25),
        ),
        ("serverInfo".into(), server_info()),
        ("instructions".into(), server_instructions(shared)),
    ]);
    deliver(
        shared,
        Protocol::V2025_11_25,
        200,
        result_msg(id, result),
        vec![(header::SESSION_ID.into(), sid)],
    )
}

/// Answers a message served as 2025-11-25 (in a session).
pub(crate) fn handle(
    shared: &Arc<Shared>,
    req: &Incoming<'_>,
    msg: &Map<String, Value>,
    kind: Kind,
    session_hdr: Option<String>,
    ex: &mut Exchange,
) -> Reply {
    let id = match kind {
        Kind::Request => Some(&msg["id"]),
        _ => None,
    };
    let Some(sid) = session_hdr else {
        // lenient:session answers with 404, which is for a session that ended.
        let status = if shared.config.scenario == Scenario::Lenient(Lenient::Session) {
            404
        } else {
            400
        };
        let what = match req.fields {
            Some(_) => format!("Bad Request: missing {} header", header::SESSION_ID),
            None => "Invalid Request: no session".to_string(),
        };
        let m = error_msg(
            id,
            code::INVALID_REQUEST,
            &format!(
                "{what} (2025-11-25: send initialize first; 2026-07-28: put {} in \
                 params._meta)",
                meta::PROTOCOL_VERSION
            ),
            None,
        );
        return json_reply(status, m, Vec::new());
    };
    let (caps, version) = {
        let mut sessions = shared.sessions.lock().expect("sessions lock");
        match sessions.get(&sid) {
            Some(s) => (s.capabilities.clone(), s.protocol_version.clone()),
            None => {
                drop(sessions);
                let m = error_msg(
                    id,
                    code::INVALID_REQUEST,
                    "Session not found: it was terminated or never existed; send a new initialize",
                    None,
                );
                return json_reply(404, m, Vec::new());
            }
        }
    };
    ex.protocol_version = Some(version.clone());
    if let Some(v) = req.header(header::PROTOCOL_VERSION)
        && v != version
        && shared.config.scenario != Scenario::Lenient(Lenient::LegacyVersion)
    {
        let m = error_msg(
            id,
            code::INVALID_REQUEST,
            &format!(
                "Bad Request: unsupported {} '{v}' (session negotiated {version})",
                header::PROTOCOL_VERSION
            ),
            None,
        );
        return json_reply(400, m, Vec::new());
    }
    match kind {
        Kind::Notification => {
            if msg["method"] == "notifications/initialized"
                && let Some(s) = shared.sessions.lock().expect("sessions lock").get(&sid)
            {
                s.initialized = true;
            }
            accepted()
        }
        Kind::Response => {
            let key = msg["id"].to_string();
            let waiter = shared
                .sessions
                .lock()
                .expect("sessions lock")
                .get(&sid)
                .and_then(|s| s.pending.remove(&key));
            if let Some(tx) = waiter {
                let _ = tx.send(Value::Object(msg.clone()));
            }
            accepted()
        }
        Kind::Request => {
            let id = &msg["id"];
            let method = msg["method"].as_str().unwrap_or("");
            match method {
                "ping" => deliver(
                    shared,
                    Protocol::V2025_11_25,
                    200,
                    result_msg(id, Map::new()),
                    Vec::new(),
                ),
                "tools/list" => {
                    let result = Map::from_iter([(
                        "tools".to_string(),
                        conformance::tool_list(shared, Protocol::V2025_11_25),
                    )]);
                    deliver(
                        shared,
                        Protocol::V2025_11_25,
                        200,
                        result_msg(id, result),
                        Vec::new(),
                    )
                }
                "tools/call" => {
                    let params = match msg.get("params") {
                        Some(Value::Object(p)) => p.clone(),
                        _ => {
                            let m = error_msg(
                                Some(id),
                                code::INVALID_PARAMS,
                                "Invalid params: tools/call needs params with a name",
                                None,
                            );
                            return json_reply(200, m, Vec::new());
                        }
                    };
                    let ctx = CallCtx {
                        rev: Protocol::V2025_11_25,
                        id: id.clone(),
                        caps,
                        session: Some(sid),
                    };
                    tools_call(shared, &ctx, &params)
                }
                _ => {
                    let fx = conformance::MethodCtx {
                        rev: Protocol::V2025_11_25,
                        id,
                        params: msg.get("params").and_then(Value::as_object),
                        caps: &caps,
                        session: Some(&sid),
                    };
                    if let Some(reply) = conformance::handle_method(shared, &fx, method) {
                        return reply;
                    }
                    let m = error_msg(
                        Some(id),
                        code::METHOD_NOT_FOUND,
                        &format!("Method not found: {method}"),
                        None,
                    );
                    json_reply(200, m, Vec::new())
                }
            }
        }
    }
}

/// Handles DELETE: terminates a 2025-11-25 session; 405 without a session id.
pub(crate) fn delete(shared: &Shared, req: &Incoming<'_>) -> (Reply, Exchange) {
    let mut ex = Exchange::default();
    let Some(sid) = req.header(header::SESSION_ID) else {
        return (method_not_allowed(), ex);
    };
    let removed = {
        let mut sessions = shared.sessions.lock().expect("sessions lock");
        // lenient:ended_session answers the DELETE but keeps the session.
        if shared.config.scenario == Scenario::Lenient(Lenient::EndedSession) {
            sessions
                .get(sid)
                .map(|s| (s.client_info.clone(), s.protocol_version.clone()))
        } else {
            sessions
                .remove(sid)
                .map(|s| (s.client_info, s.protocol_version))
        }
    };
    match removed {
        Some((client_info, protocol_version)) => {
            ex.client = client_label(client_info.as_ref());
            ex.protocol_version = Some(protocol_version);
            (
                text_reply(200, "session terminated\n".into(), Vec::new(), false),
                ex,
            )
        }
        None => (
            text_reply(404, "session not found\n".into(), Vec::new(), false),
            ex,
        ),
    }
}
