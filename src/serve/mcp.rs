//! MCP behaviour of the server, per revision, and scenario injection.
//!
//! Handlers do not write to the socket: they return a [`Reply`] plan that the
//! connection loop executes byte by byte, so faults stay exact and testable.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use base64::Engine as _;
use serde_json::{Map, Value, json};

use super::http::Request;
use super::scenario::{Revision, Scenario};
use super::state::Session;
use super::tools::{self, Tool};
use super::{LEGACY_VERSION, MODERN_VERSION, ResponseMode, Shared};
use crate::diag::sanitize;

const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPS: &str = "io.modelcontextprotocol/clientCapabilities";
const META_CLIENT: &str = "io.modelcontextprotocol/clientInfo";
const META_SERVER: &str = "io.modelcontextprotocol/serverInfo";

/// Versions that name the legacy (initialize-based) era.
const LEGACY_ERA_VERSIONS: [&str; 4] = ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

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

/// Facts about the exchange for the diagnostic record.
#[derive(Default, Clone)]
pub(crate) struct Exchange {
    pub client: Option<String>,
    pub protocol_version: Option<String>,
    pub method: Option<String>,
    pub id: Option<Value>,
}

// ---------------------------------------------------------------------------
// Small builders

fn error_msg(id: Option<&Value>, code: i64, message: &str, data: Option<Value>) -> Value {
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

fn result_msg(id: &Value, result: Map<String, Value>) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": Value::Object(result)})
}

fn json_reply(status: u16, msg: Value, headers: Vec<(String, String)>) -> Reply {
    let final_response = msg.get("id").is_some() && msg.get("method").is_none();
    Reply::Full {
        status,
        content_type: Some("application/json".into()),
        headers,
        body: msg.to_string().into_bytes(),
        close: false,
        final_response,
        message: Some(msg),
    }
}

fn text_reply(status: u16, text: String, headers: Vec<(String, String)>, close: bool) -> Reply {
    Reply::Full {
        status,
        content_type: Some("text/plain; charset=utf-8".into()),
        headers,
        body: text.into_bytes(),
        close,
        final_response: false,
        message: None,
    }
}

fn accepted() -> Reply {
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

/// A JSON-RPC message as JSON or as a one-event SSE stream, per response mode.
fn deliver(
    shared: &Shared,
    rev: Revision,
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
fn priming(shared: &Shared, rev: Revision) -> Option<String> {
    match rev {
        Revision::Legacy => Some(format!("ev-{}", shared.next_serial())),
        Revision::Modern => None,
    }
}

fn server_info() -> Value {
    json!({"name": super::SERVER_NAME, "version": env!("CARGO_PKG_VERSION")})
}

/// Adds `resultType` (unless present) and `_meta` serverInfo (2026-07-28).
fn decorate_modern(mut m: Map<String, Value>, result_type: &str) -> Map<String, Value> {
    m.entry("resultType")
        .or_insert_with(|| Value::String(result_type.into()));
    let meta = m.entry("_meta").or_insert_with(|| json!({}));
    if let Some(meta) = meta.as_object_mut() {
        meta.insert(META_SERVER.into(), server_info());
    }
    m
}

fn decorate(rev: Revision, m: Map<String, Value>) -> Map<String, Value> {
    match rev {
        Revision::Modern => decorate_modern(m, "complete"),
        Revision::Legacy => m,
    }
}

fn client_label(info: Option<&Value>) -> Option<String> {
    let info = info?;
    let name = info.get("name")?.as_str()?;
    let label = match info.get("version").and_then(Value::as_str) {
        Some(v) => format!("{name}@{v}"),
        None => name.to_string(),
    };
    Some(sanitize(&label))
}

fn is_valid_id(id: &Value) -> bool {
    id.is_string() || id.as_i64().is_some() || id.as_u64().is_some()
}

// ---------------------------------------------------------------------------
// Entry points

/// Message kinds a POST body can hold.
enum Kind {
    Request,
    Notification,
    Response,
}

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

/// Handles a POST to the MCP endpoint (the `post_no`-th POST).
pub(crate) fn handle_post(shared: &Arc<Shared>, req: &Request, post_no: u64) -> (Reply, Exchange) {
    let parsed: Option<Value> = serde_json::from_slice(&req.body).ok();
    let mut ex = peek_exchange(shared, req, parsed.as_ref());

    // Transport-level scenarios act on every POST before anything else.
    match &shared.config.scenario {
        Scenario::HttpStatusSequence(seq) => {
            if let Some(&status) = seq.get((post_no - 1) as usize)
                && !(200..300).contains(&status)
            {
                let text = format!(
                    "HTTP {status} {} injected by mcp-verdict scenario http_status_sequence (POST #{post_no})\n",
                    crate::vocab::http::reason_phrase(status)
                );
                return (text_reply(status, text, Vec::new(), false), ex);
            }
        }
        Scenario::RateLimited { n, retry_after } if post_no <= *n => {
            let text = format!(
                "429 Too Many Requests injected by mcp-verdict scenario rate_limited (POST #{post_no} of the first {n}); retry after {retry_after} s\n"
            );
            let headers = vec![("Retry-After".into(), retry_after.to_string())];
            return (text_reply(429, text, headers, false), ex);
        }
        _ => {}
    }

    let Some(value) = parsed else {
        let msg = error_msg(
            None,
            -32700,
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
            json_reply(400, error_msg(None, -32600, text, None), Vec::new()),
            ex,
        );
    };
    if msg.get("jsonrpc") != Some(&json!("2.0")) {
        let id = msg.get("id").filter(|v| is_valid_id(v));
        let m = error_msg(id, -32600, "Invalid Request: jsonrpc must be \"2.0\"", None);
        return (json_reply(400, m, Vec::new()), ex);
    }
    let Some(kind) = kind_of(msg) else {
        let m = error_msg(
            None,
            -32600,
            "Invalid Request: not a JSON-RPC request, notification or response",
            None,
        );
        return (json_reply(400, m, Vec::new()), ex);
    };
    if matches!(kind, Kind::Request) && !is_valid_id(&msg["id"]) {
        let m = error_msg(
            None,
            -32600,
            "Invalid Request: id must be a string or an integer (not null)",
            None,
        );
        return (json_reply(400, m, Vec::new()), ex);
    }

    let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
    let session_hdr = req.header("mcp-session-id").map(str::to_string);
    let meta_version = meta_of(msg)
        .and_then(|m| m.get(META_VERSION))
        .and_then(Value::as_str);
    let modern_by_meta = meta_of(msg).is_some_and(|m| m.contains_key(META_VERSION))
        && !meta_version.is_some_and(|v| LEGACY_ERA_VERSIONS.contains(&v));
    let modern_by_header =
        session_hdr.is_none() && req.header("mcp-protocol-version") == Some(MODERN_VERSION);

    let reply = if method == "initialize" && matches!(kind, Kind::Request) {
        legacy_initialize(shared, msg, &mut ex)
    } else if modern_by_meta || modern_by_header {
        modern(shared, req, msg, kind, &mut ex)
    } else {
        legacy(shared, req, msg, kind, session_hdr, &mut ex)
    };
    (reply, ex)
}

/// Best-effort exchange facts before any validation.
fn peek_exchange(shared: &Shared, req: &Request, parsed: Option<&Value>) -> Exchange {
    let mut ex = Exchange::default();
    let Some(msg) = parsed.and_then(Value::as_object) else {
        return ex;
    };
    ex.method = msg
        .get("method")
        .and_then(Value::as_str)
        .map(str::to_string);
    ex.id = msg.get("id").cloned();
    if let Some(meta) = meta_of(msg) {
        ex.client = client_label(meta.get(META_CLIENT));
        ex.protocol_version = meta
            .get(META_VERSION)
            .and_then(Value::as_str)
            .map(str::to_string);
    }
    if ex.method.as_deref() == Some("initialize") {
        ex.client = client_label(msg.get("params").and_then(|p| p.get("clientInfo")));
        ex.protocol_version = Some(LEGACY_VERSION.into());
    } else if let Some(sid) = req.header("mcp-session-id")
        && ex.protocol_version.is_none()
        && let Some(s) = shared.sessions.lock().expect("sessions lock").get(sid)
    {
        ex.client = client_label(s.client_info.as_ref());
        ex.protocol_version = Some(s.protocol_version.clone());
    }
    ex
}

/// Handles DELETE: terminates a 2025-11-25 session; 405 otherwise.
pub(crate) fn handle_delete(shared: &Shared, req: &Request) -> (Reply, Exchange) {
    let mut ex = Exchange::default();
    let Some(sid) = req.header("mcp-session-id") else {
        return (method_not_allowed(), ex);
    };
    let removed = shared.sessions.lock().expect("sessions lock").remove(sid);
    match removed {
        Some(s) => {
            ex.client = client_label(s.client_info.as_ref());
            ex.protocol_version = Some(s.protocol_version);
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

/// 405 for GET and other methods.
pub(crate) fn method_not_allowed() -> Reply {
    text_reply(
        405,
        "Method Not Allowed: this endpoint accepts POST (and DELETE of a 2025-11-25 session); it offers no GET stream\n".into(),
        vec![("Allow".into(), "POST, DELETE".into())],
        false,
    )
}

// ---------------------------------------------------------------------------
// 2026-07-28

fn modern(
    shared: &Arc<Shared>,
    req: &Request,
    msg: &Map<String, Value>,
    kind: Kind,
    ex: &mut Exchange,
) -> Reply {
    match kind {
        Kind::Response => {
            let m = error_msg(
                None,
                -32600,
                "Invalid Request: 2026-07-28 clients MUST NOT send JSON-RPC responses",
                None,
            );
            return json_reply(400, m, Vec::new());
        }
        Kind::Notification => {
            let m = error_msg(
                None,
                -32600,
                "Invalid Request: 2026-07-28 defines no client notifications over Streamable HTTP",
                None,
            );
            return json_reply(400, m, Vec::new());
        }
        Kind::Request => {}
    }
    let id = &msg["id"];
    let method = msg["method"].as_str().unwrap_or("");
    let params = match msg.get("params") {
        None => None,
        Some(Value::Object(p)) => Some(p),
        Some(_) => {
            let m = error_msg(
                Some(id),
                -32602,
                "Invalid params: params must be an object",
                None,
            );
            return json_reply(400, m, Vec::new());
        }
    };
    let meta = params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object);
    let version = meta
        .and_then(|m| m.get(META_VERSION))
        .and_then(Value::as_str);
    let caps = meta
        .and_then(|m| m.get(META_CAPS))
        .and_then(Value::as_object);
    let (Some(version), Some(caps)) = (version, caps) else {
        let missing: Vec<&str> = [
            (version.is_none(), META_VERSION),
            (caps.is_none(), META_CAPS),
        ]
        .iter()
        .filter(|(m, _)| *m)
        .map(|(_, k)| *k)
        .collect();
        let m = error_msg(
            Some(id),
            -32602,
            &format!(
                "Invalid params: params._meta is missing required field(s) {}",
                missing.join(", ")
            ),
            None,
        );
        return json_reply(400, m, Vec::new());
    };
    ex.protocol_version = Some(version.to_string());
    ex.client = client_label(meta.and_then(|m| m.get(META_CLIENT)));

    if version != MODERN_VERSION {
        let m = error_msg(
            Some(id),
            -32022,
            "Unsupported protocol version",
            Some(json!({"supported": [MODERN_VERSION, LEGACY_VERSION], "requested": version})),
        );
        return json_reply(400, m, Vec::new());
    }
    if let Err(why) = check_headers(req, method, version, params) {
        let m = error_msg(Some(id), -32020, &format!("Header mismatch: {why}"), None);
        return json_reply(400, m, Vec::new());
    }
    match method {
        "server/discover" => {
            let result = Map::from_iter([
                (
                    "supportedVersions".to_string(),
                    json!([MODERN_VERSION, LEGACY_VERSION]),
                ),
                ("capabilities".into(), json!({"tools": {}})),
                (
                    "instructions".into(),
                    json!(format!(
                        "mcp-verdict test server; scenario in force: {}",
                        shared.config.scenario
                    )),
                ),
                ("ttlMs".into(), json!(60_000)),
                ("cacheScope".into(), json!("public")),
            ]);
            deliver(
                shared,
                Revision::Modern,
                200,
                result_msg(id, decorate_modern(result, "complete")),
                Vec::new(),
            )
        }
        "tools/list" => {
            let result = Map::from_iter([
                ("tools".to_string(), tool_list(shared)),
                ("ttlMs".into(), json!(60_000)),
                ("cacheScope".into(), json!("public")),
            ]);
            deliver(
                shared,
                Revision::Modern,
                200,
                result_msg(id, decorate_modern(result, "complete")),
                Vec::new(),
            )
        }
        "tools/call" => {
            let params = params.expect("_meta was present, so params is");
            let ctx = CallCtx {
                rev: Revision::Modern,
                id: id.clone(),
                caps: Value::Object(caps.clone()),
                session: None,
            };
            tools_call(shared, &ctx, params)
        }
        _ => {
            let m = error_msg(
                Some(id),
                -32601,
                &format!("Method not found: {method}"),
                None,
            );
            json_reply(404, m, Vec::new())
        }
    }
}

/// Validates the standard request headers against the body (2026-07-28).
fn check_headers(
    req: &Request,
    method: &str,
    version: &str,
    params: Option<&Map<String, Value>>,
) -> Result<(), String> {
    let get = |name: &str| -> Result<Option<String>, String> {
        match req.header_bytes(name) {
            None => Ok(None),
            Some(raw) => {
                if raw
                    .iter()
                    .any(|&b| !(b == b'\t' || (0x20..=0x7e).contains(&b)))
                {
                    return Err(format!("{name} header value contains invalid characters"));
                }
                Ok(Some(String::from_utf8_lossy(raw).trim().to_string()))
            }
        }
    };
    match get("mcp-protocol-version")? {
        None => return Err("required header MCP-Protocol-Version is missing".into()),
        Some(v) if v != version => {
            return Err(format!(
                "MCP-Protocol-Version header value '{v}' does not match body value '{version}'"
            ));
        }
        Some(_) => {}
    }
    match get("mcp-method")? {
        None => return Err("required header Mcp-Method is missing".into()),
        Some(v) if v != method => {
            return Err(format!(
                "Mcp-Method header value '{v}' does not match body value '{method}'"
            ));
        }
        Some(_) => {}
    }
    let name_field = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        _ => None,
    };
    if let Some(field) = name_field {
        let body = params.and_then(|p| p.get(field)).and_then(Value::as_str);
        match (get("mcp-name")?, body) {
            (None, _) => return Err("required header Mcp-Name is missing".into()),
            (Some(h), body) => {
                let decoded = decode_sentinel(&h).ok_or_else(|| {
                    format!("Mcp-Name header value '{h}' is not valid Base64 sentinel encoding")
                })?;
                if Some(decoded.as_str()) != body {
                    return Err(format!(
                        "Mcp-Name header value '{decoded}' does not match body value '{}'",
                        body.unwrap_or("(absent)")
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Decodes the `=?base64?…?=` sentinel form; plain values pass through.
fn decode_sentinel(value: &str) -> Option<String> {
    match value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    {
        None => Some(value.to_string()),
        Some(inner) => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(inner)
                .or_else(|_| base64::engine::general_purpose::STANDARD_NO_PAD.decode(inner))
                .ok()?;
            String::from_utf8(bytes).ok()
        }
    }
}

fn tool_list(shared: &Shared) -> Value {
    Value::Array(shared.tools.iter().map(|t| t.definition.clone()).collect())
}

// ---------------------------------------------------------------------------
// 2025-11-25

fn legacy_initialize(shared: &Arc<Shared>, msg: &Map<String, Value>, ex: &mut Exchange) -> Reply {
    let id = &msg["id"];
    let params = msg.get("params").and_then(Value::as_object);
    let Some(requested) = params
        .and_then(|p| p.get("protocolVersion"))
        .and_then(Value::as_str)
    else {
        let m = error_msg(
            Some(id),
            -32602,
            "Invalid params: initialize needs params.protocolVersion",
            None,
        );
        return json_reply(200, m, Vec::new());
    };
    // We implement one initialize-based revision; answer with it whatever was
    // asked (lifecycle: "respond with another protocol version it supports").
    let negotiated = LEGACY_VERSION;
    let _ = requested;
    let client_info = params.and_then(|p| p.get("clientInfo")).cloned();
    let capabilities = params
        .and_then(|p| p.get("capabilities"))
        .cloned()
        .unwrap_or_else(|| json!({}));
    let sid = shared.keys.random_hex();
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
        },
    );
    let result = Map::from_iter([
        ("protocolVersion".to_string(), json!(negotiated)),
        ("capabilities".into(), json!({"tools": {}})),
        ("serverInfo".into(), server_info()),
        (
            "instructions".into(),
            json!(format!(
                "mcp-verdict test server; scenario in force: {}",
                shared.config.scenario
            )),
        ),
    ]);
    deliver(
        shared,
        Revision::Legacy,
        200,
        result_msg(id, result),
        vec![("MCP-Session-Id".into(), sid)],
    )
}

fn legacy(
    shared: &Arc<Shared>,
    req: &Request,
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
        let m = error_msg(
            id,
            -32600,
            "Bad Request: missing MCP-Session-Id header (2025-11-25: send initialize first; \
             2026-07-28: put io.modelcontextprotocol/protocolVersion in params._meta)",
            None,
        );
        return json_reply(400, m, Vec::new());
    };
    let (caps, version) = {
        let sessions = shared.sessions.lock().expect("sessions lock");
        match sessions.get(&sid) {
            Some(s) => (s.capabilities.clone(), s.protocol_version.clone()),
            None => {
                drop(sessions);
                let m = error_msg(
                    id,
                    -32600,
                    "Session not found: it was terminated or never existed; send a new initialize",
                    None,
                );
                return json_reply(404, m, Vec::new());
            }
        }
    };
    ex.protocol_version = Some(version.clone());
    if let Some(v) = req.header("mcp-protocol-version")
        && v != version
    {
        let m = error_msg(
            id,
            -32600,
            &format!(
                "Bad Request: unsupported MCP-Protocol-Version '{v}' (session negotiated {version})"
            ),
            None,
        );
        return json_reply(400, m, Vec::new());
    }
    match kind {
        Kind::Notification => {
            if msg["method"] == "notifications/initialized"
                && let Some(s) = shared.sessions.lock().expect("sessions lock").get_mut(&sid)
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
                .get_mut(&sid)
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
                    Revision::Legacy,
                    200,
                    result_msg(id, Map::new()),
                    Vec::new(),
                ),
                "tools/list" => {
                    let result = Map::from_iter([("tools".to_string(), tool_list(shared))]);
                    deliver(
                        shared,
                        Revision::Legacy,
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
                                -32602,
                                "Invalid params: tools/call needs params with a name",
                                None,
                            );
                            return json_reply(200, m, Vec::new());
                        }
                    };
                    let ctx = CallCtx {
                        rev: Revision::Legacy,
                        id: id.clone(),
                        caps,
                        session: Some(sid),
                    };
                    tools_call(shared, &ctx, &params)
                }
                _ => {
                    let m = error_msg(
                        Some(id),
                        -32601,
                        &format!("Method not found: {method}"),
                        None,
                    );
                    json_reply(200, m, Vec::new())
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------
// tools/call, both revisions

struct CallCtx {
    rev: Revision,
    id: Value,
    /// Client capabilities (per request in 2026-07-28, per session in 2025-11-25).
    caps: Value,
    /// 2025-11-25 session id.
    session: Option<String>,
}

/// The server's own answer to a tools/call, before any fault.
enum Outcome {
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

fn protocol_error(code: i64, message: impl Into<String>, status: u16) -> Outcome {
    Outcome::Error {
        code,
        message: message.into(),
        data: None,
        status,
    }
}

fn tools_call(shared: &Arc<Shared>, ctx: &CallCtx, params: &Map<String, Value>) -> Reply {
    let id = &ctx.id;
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        let m = error_msg(
            Some(id),
            -32602,
            "Invalid params: tools/call needs a string name",
            None,
        );
        return json_reply(200, m, Vec::new());
    };
    let Some(tool) = shared.tools.iter().find(|t| t.name == name) else {
        let m = error_msg(Some(id), -32602, &format!("Unknown tool: {name}"), None);
        return json_reply(200, m, Vec::new());
    };
    let args = match params.get("arguments") {
        None | Some(Value::Null) => json!({}),
        Some(a @ Value::Object(_)) => a.clone(),
        Some(_) => {
            let m = error_msg(
                Some(id),
                -32602,
                "Invalid params: arguments must be an object",
                None,
            );
            return json_reply(200, m, Vec::new());
        }
    };
    let progress_token = params
        .get("_meta")
        .and_then(|m| m.get("progressToken"))
        .filter(|t| t.is_string() || t.is_number())
        .cloned();

    let scenario = &shared.config.scenario;
    let gate_all = matches!(scenario, Scenario::InputRequired);
    let outcome = own_outcome(
        shared,
        ctx,
        tool,
        &args,
        params,
        progress_token.is_some(),
        gate_all,
    );

    let faulted = !matches!(
        scenario,
        Scenario::Baseline
            | Scenario::HttpStatusSequence(_)
            | Scenario::RateLimited { .. }
            | Scenario::InputRequired
    );
    if !faulted {
        return render(shared, ctx, tool, &args, outcome, progress_token);
    }
    // A fault replaces a response that would carry a result; protocol errors
    // (bad state, missing capability) go out unchanged.
    let final_msg = match outcome {
        Outcome::Error { .. } => return render(shared, ctx, tool, &args, outcome, progress_token),
        Outcome::Result(m) => result_msg(id, decorate(ctx.rev, m)),
        Outcome::CountStream(_, _) => {
            let m = tools::execute(tool.name, &args, &shared.orders);
            result_msg(id, decorate(ctx.rev, m))
        }
        Outcome::InputRequired(m) => result_msg(id, decorate_modern(m, "input_required")),
        Outcome::LegacyElicit => {
            let m = tools::text_result(
                format!(
                    "{} needs a confirmation, which this server cannot request while scenario {} \
                     replaces the response",
                    tool.name,
                    scenario.name()
                ),
                true,
            );
            result_msg(id, m)
        }
    };
    inject(shared, ctx, scenario, final_msg, progress_token)
}

/// The tool's own outcome. With `gate_all`, every tool needs a confirmation.
fn own_outcome(
    shared: &Shared,
    ctx: &CallCtx,
    tool: &Tool,
    args: &Value,
    params: &Map<String, Value>,
    has_progress: bool,
    gate_all: bool,
) -> Outcome {
    let problems = tool.validate(args);
    if !problems.is_empty() {
        return Outcome::Result(tools::text_result(
            format!(
                "Invalid arguments for tool {}: {}",
                tool.name,
                problems.join("; ")
            ),
            true,
        ));
    }
    if tool.needs_confirmation() || gate_all {
        match ctx.rev {
            Revision::Modern => {
                if let Some(stop) = mrtr_gate(shared, ctx, tool, args, params) {
                    return stop;
                }
            }
            Revision::Legacy => {
                return if supports_form_elicitation(&ctx.caps) {
                    Outcome::LegacyElicit
                } else {
                    Outcome::Result(tools::text_result(
                        format!(
                            "{} needs the user's confirmation, but the client did not declare the \
                             elicitation capability (form mode) in initialize",
                            tool.name
                        ),
                        true,
                    ))
                };
            }
        }
    }
    if tool.name == "count" && has_progress {
        let token = params["_meta"]["progressToken"].clone();
        return Outcome::CountStream(tools::count_steps(args), token);
    }
    Outcome::Result(tools::execute(tool.name, args, &shared.orders))
}

/// Whether client capabilities allow a form-mode elicitation request.
fn supports_form_elicitation(caps: &Value) -> bool {
    match caps.get("elicitation") {
        Some(Value::Object(e)) => e.is_empty() || e.contains_key("form"),
        _ => false,
    }
}

const CONFIRM_KEY: &str = "confirm";

fn confirm_request(tool: &str, args: &Value) -> Value {
    let what = match tool {
        "confirm_action" => format!(
            "Confirm action: {}",
            args["action"].as_str().unwrap_or_default()
        ),
        other => format!("Allow the call to tool {other} with arguments {args}?"),
    };
    json!({
        "mode": "form",
        "message": what,
        "requestedSchema": {
            "type": "object",
            "properties": {
                "confirm": {"type": "boolean", "title": "Confirm", "description": "Set to true to go ahead"}
            },
            "required": ["confirm"]
        }
    })
}

/// Reads an ElicitResult: Some(true) confirmed, Some(false) declined, None malformed.
fn read_confirmation(answer: &Value) -> Option<bool> {
    match answer.get("action").and_then(Value::as_str)? {
        "accept" => {
            Some(answer.get("content").and_then(|c| c.get("confirm")) == Some(&json!(true)))
        }
        "decline" | "cancel" => Some(false),
        _ => None,
    }
}

fn declined(tool: &str) -> Outcome {
    Outcome::Result(tools::text_result(
        format!("{tool} was not confirmed by the user; nothing was done"),
        true,
    ))
}

/// 2026-07-28 MRTR gate. None: confirmed, run the tool.
fn mrtr_gate(
    shared: &Shared,
    ctx: &CallCtx,
    tool: &Tool,
    args: &Value,
    params: &Map<String, Value>,
) -> Option<Outcome> {
    let ask = || -> Outcome {
        if !supports_form_elicitation(&ctx.caps) {
            return Outcome::Error {
                code: -32021,
                message: format!(
                    "Missing required client capability: {} needs elicitation (form mode) to ask for confirmation",
                    tool.name
                ),
                data: Some(json!({"requiredCapabilities": {"elicitation": {"form": {}}}})),
                status: 400,
            };
        }
        let state = shared.keys.seal_state(tool.name, args, &ctx.id);
        let m = Map::from_iter([
            (
                "inputRequests".to_string(),
                json!({ CONFIRM_KEY: {"method": "elicitation/create", "params": confirm_request(tool.name, args)} }),
            ),
            ("requestState".into(), json!(state)),
        ]);
        Outcome::InputRequired(m)
    };
    let state = params.get("requestState");
    let responses = params.get("inputResponses");
    let Some(state) = state else {
        if responses.is_some() {
            return Some(protocol_error(
                -32602,
                "Invalid params: inputResponses without requestState (echo the requestState of the input_required result)",
                200,
            ));
        }
        return Some(ask());
    };
    let Some(state) = state.as_str() else {
        return Some(protocol_error(
            -32602,
            "Invalid params: requestState must be a string",
            200,
        ));
    };
    match shared.keys.open_state(state, tool.name, args) {
        Err(why) => {
            return Some(protocol_error(
                -32602,
                format!("Invalid params: requestState rejected: {why}"),
                200,
            ));
        }
        Ok(rid) if rid == ctx.id => {
            return Some(protocol_error(
                -32600,
                "Invalid Request: the retry reuses the JSON-RPC id of the request that received the input_required result; use a new id",
                200,
            ));
        }
        Ok(_) => {}
    }
    let answer = match responses {
        None => return Some(ask()),
        Some(Value::Object(r)) => r.get(CONFIRM_KEY),
        Some(_) => {
            return Some(protocol_error(
                -32602,
                "Invalid params: inputResponses must be an object",
                200,
            ));
        }
    };
    let Some(answer) = answer else {
        // The requested input is missing: ask again rather than fail.
        return Some(ask());
    };
    match read_confirmation(answer) {
        Some(true) => None,
        Some(false) => Some(declined(tool.name)),
        None => Some(protocol_error(
            -32602,
            "Invalid params: inputResponses.confirm is not an ElicitResult (action accept|decline|cancel)",
            200,
        )),
    }
}

fn progress_msg(token: &Value, progress: u64, total: u64) -> Value {
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

/// Renders an outcome without faults.
fn render(
    shared: &Arc<Shared>,
    ctx: &CallCtx,
    tool: &Tool,
    args: &Value,
    outcome: Outcome,
    _progress_token: Option<Value>,
) -> Reply {
    let id = &ctx.id;
    match outcome {
        Outcome::Result(m) => deliver(
            shared,
            ctx.rev,
            200,
            result_msg(id, decorate(ctx.rev, m)),
            Vec::new(),
        ),
        Outcome::InputRequired(m) => deliver(
            shared,
            ctx.rev,
            200,
            result_msg(id, decorate_modern(m, "input_required")),
            Vec::new(),
        ),
        Outcome::Error {
            code,
            message,
            data,
            status,
        } => deliver(
            shared,
            ctx.rev,
            status,
            error_msg(Some(id), code, &message, data),
            Vec::new(),
        ),
        Outcome::CountStream(n, token) => {
            let mut steps: Vec<SseStep> = (1..=n)
                .map(|i| SseStep::Message(progress_msg(&token, i, n)))
                .collect();
            let m = tools::execute(tool.name, args, &shared.orders);
            steps.push(SseStep::Message(result_msg(id, decorate(ctx.rev, m))));
            Reply::Sse(SsePlan {
                headers: Vec::new(),
                priming_id: priming(shared, ctx.rev),
                steps,
                end: SseEnd::Finish,
            })
        }
        Outcome::LegacyElicit => legacy_elicit(shared, ctx, tool, args),
    }
}

/// 2025-11-25: SSE stream with an elicitation/create request; the result
/// follows once the client POSTs its answer.
fn legacy_elicit(shared: &Arc<Shared>, ctx: &CallCtx, tool: &Tool, args: &Value) -> Reply {
    let sid = ctx.session.clone().expect("legacy calls have a session");
    let req_id = json!(format!("mcp-verdict-elicit-{}", shared.next_serial()));
    let key = req_id.to_string();
    let (tx, rx) = mpsc::channel();
    if let Some(s) = shared.sessions.lock().expect("sessions lock").get_mut(&sid) {
        s.pending.insert(key.clone(), tx);
    }
    let request = json!({
        "jsonrpc": "2.0",
        "id": req_id,
        "method": "elicitation/create",
        "params": confirm_request(tool.name, args),
    });
    let shared2 = Arc::clone(shared);
    let tool_name = tool.name;
    let args2 = args.clone();
    let id = ctx.id.clone();
    let limit = shared.config.stall_cap;
    let then: AfterAnswer = Box::new(move |answer: Answer| {
        let m = match answer {
            Answer::Timeout => tools::text_result(
                format!(
                    "{tool_name} got no answer to its elicitation/create request within {} s",
                    limit.as_secs_f64()
                ),
                true,
            ),
            Answer::Response(resp) => match resp.get("result").map(read_confirmation) {
                Some(Some(true)) => tools::execute(tool_name, &args2, &shared2.orders),
                Some(Some(false)) => tools::text_result(
                    format!("{tool_name} was not confirmed by the user; nothing was done"),
                    true,
                ),
                _ => tools::text_result(
                    format!(
                        "{tool_name}: the client answered elicitation/create with an error or an invalid ElicitResult"
                    ),
                    true,
                ),
            },
        };
        result_msg(&id, m)
    });
    Reply::Sse(SsePlan {
        headers: Vec::new(),
        priming_id: priming(shared, Revision::Legacy),
        steps: vec![
            SseStep::Message(request),
            SseStep::Await {
                rx,
                session: sid,
                key,
                limit,
                then,
            },
        ],
        end: SseEnd::Finish,
    })
}

/// Applies a response-replacing fault to `final_msg` (the response the server
/// would have sent).
fn inject(
    shared: &Arc<Shared>,
    ctx: &CallCtx,
    scenario: &Scenario,
    mut final_msg: Value,
    progress_token: Option<Value>,
) -> Reply {
    let id = &ctx.id;
    let rev = ctx.rev;
    let token = progress_token.unwrap_or_else(|| {
        let id_text = match id {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        json!(format!("mcp-verdict-progress-{id_text}"))
    });
    let sse = |priming_id: Option<String>, steps: Vec<SseStep>, end: SseEnd| {
        Reply::Sse(SsePlan {
            headers: Vec::new(),
            priming_id,
            steps,
            end,
        })
    };
    match scenario {
        Scenario::JsonRpcError(code) => {
            let m = error_msg(
                Some(id),
                *code,
                "Injected JSON-RPC error (mcp-verdict scenario jsonrpc_error)",
                None,
            );
            deliver(shared, rev, 200, m, Vec::new())
        }
        Scenario::ToolError => {
            let m = tools::text_result(
                "Injected tool execution error (mcp-verdict scenario tool_error): the tool failed",
                true,
            );
            deliver(
                shared,
                rev,
                200,
                result_msg(id, decorate(rev, m)),
                Vec::new(),
            )
        }
        Scenario::LegacyResult => {
            if let Some(r) = final_msg.get_mut("result").and_then(Value::as_object_mut) {
                r.remove("resultType");
            }
            deliver(shared, rev, 200, final_msg, Vec::new())
        }
        Scenario::InvalidResult => {
            if let Some(r) = final_msg.get_mut("result").and_then(Value::as_object_mut) {
                r.insert("content".into(), json!("not-an-array"));
            }
            deliver(shared, rev, 200, final_msg, Vec::new())
        }
        Scenario::WrongId => {
            let wrong = if *id == json!(99999) { 99998 } else { 99999 };
            final_msg["id"] = json!(wrong);
            deliver(shared, rev, 200, final_msg, Vec::new())
        }
        Scenario::MalformedJson => Reply::Full {
            status: 200,
            content_type: Some("application/json".into()),
            headers: Vec::new(),
            body: b"{unclosed".to_vec(),
            close: false,
            final_response: false,
            message: None,
        },
        Scenario::Non2xxValidBody(status) => json_reply(*status, final_msg, Vec::new()),
        Scenario::HtmlErrorPage(status) => {
            let title = format!("{status} {}", crate::vocab::http::reason_phrase(*status));
            let page = format!(
                "<!DOCTYPE html>\n<html><head><title>{title}</title></head>\n<body><h1>{title}</h1>\n\
                 <p>The upstream MCP server did not answer. (Injected by mcp-verdict scenario html_error_page.)</p>\n\
                 <hr><address>gateway/1.0</address></body></html>\n"
            );
            Reply::Full {
                status: *status,
                content_type: Some("text/html; charset=utf-8".into()),
                headers: Vec::new(),
                body: page.into_bytes(),
                close: false,
                final_response: false,
                message: None,
            }
        }
        Scenario::WrongContentType => Reply::Full {
            status: 200,
            content_type: Some("text/plain; charset=utf-8".into()),
            headers: Vec::new(),
            body: final_msg.to_string().into_bytes(),
            close: false,
            final_response: true,
            message: Some(final_msg),
        },
        Scenario::AcceptedNoBody => accepted(),
        Scenario::SseProgress => {
            let mut steps: Vec<SseStep> = (1..=3)
                .map(|i| SseStep::Message(progress_msg(&token, i, 3)))
                .collect();
            steps.push(SseStep::Message(final_msg));
            sse(priming(shared, rev), steps, SseEnd::Finish)
        }
        Scenario::SseCloseEarly => {
            let steps = (1..=3)
                .map(|i| SseStep::Message(progress_msg(&token, i, 3)))
                .collect();
            sse(None, steps, SseEnd::FinishAndClose)
        }
        Scenario::SseReset => sse(
            None,
            vec![SseStep::Message(progress_msg(&token, 1, 3))],
            SseEnd::ResetMidEvent(final_msg.to_string()),
        ),
        Scenario::SseStall(secs) => {
            let limit = secs
                .map(Duration::from_secs)
                .unwrap_or(shared.config.stall_cap);
            sse(
                None,
                vec![SseStep::Message(progress_msg(&token, 1, 3))],
                SseEnd::Stall(limit),
            )
        }
        Scenario::SseMalformedEvent => sse(
            None,
            vec![SseStep::RawData("{unclosed".into())],
            SseEnd::FinishAndClose,
        ),
        Scenario::ServerRequestOnStream => {
            let declared_roots = ctx.caps.get("roots").is_some_and(Value::is_object);
            let method = match rev {
                Revision::Legacy if !declared_roots => "ping",
                _ => "roots/list",
            };
            let request = json!({
                "jsonrpc": "2.0",
                "id": format!("mcp-verdict-srv-{}", shared.next_serial()),
                "method": method,
            });
            sse(
                priming(shared, rev),
                vec![SseStep::Message(request), SseStep::Message(final_msg)],
                SseEnd::Finish,
            )
        }
        Scenario::Baseline
        | Scenario::HttpStatusSequence(_)
        | Scenario::RateLimited { .. }
        | Scenario::InputRequired => deliver(shared, rev, 200, final_msg, Vec::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentinel_decoding() {
        assert_eq!(decode_sentinel("echo").as_deref(), Some("echo"));
        assert_eq!(
            decode_sentinel("=?base64?SGVsbG8sIOS4lueVjA==?=").as_deref(),
            Some("Hello, 世界")
        );
        assert_eq!(decode_sentinel("=?base64?!!!?="), None);
    }

    #[test]
    fn elicitation_capability() {
        assert!(supports_form_elicitation(&json!({"elicitation": {}})));
        assert!(supports_form_elicitation(
            &json!({"elicitation": {"form": {}}})
        ));
        assert!(!supports_form_elicitation(
            &json!({"elicitation": {"url": {}}})
        ));
        assert!(!supports_form_elicitation(&json!({})));
    }

    #[test]
    fn confirmation_reading() {
        assert_eq!(
            read_confirmation(&json!({"action": "accept", "content": {"confirm": true}})),
            Some(true)
        );
        assert_eq!(
            read_confirmation(&json!({"action": "accept", "content": {"confirm": false}})),
            Some(false)
        );
        assert_eq!(
            read_confirmation(&json!({"action": "decline"})),
            Some(false)
        );
        assert_eq!(read_confirmation(&json!({"nope": 1})), None);
    }
}
