//! Per-revision setup and what every request carries: `server/discover` (2026-07-28) or
//! `initialize` and `notifications/initialized` with the session id (2025-11-25), the tool
//! list, the header fields and `_meta` each request sends, and the session's end.

use serde_json::{Map, Value, json};

use super::CLIENT_NAME;
use super::headers::header_value;
use super::http::{Outgoing, Received};
use super::report::{HttpStep, RunStatus};
use super::runner::Runner;
use crate::views::diag::{sanitize, sanitize_value};
use crate::vocab::Protocol;
use crate::vocab::http::{EVENT_STREAM, JSON};
use crate::vocab::protocol::code::{
    HEADER_MISMATCH, INVALID_PARAMS, METHOD_NOT_FOUND, MISSING_REQUIRED_CLIENT_CAPABILITY,
    UNSUPPORTED_PROTOCOL_VERSION,
};
use crate::vocab::protocol::header;
use crate::vocab::protocol::meta;

/// Most `tools/list` pages followed.
const MAX_PAGES: usize = 100;
/// JSON-RPC error codes a 2026-07-28 server uses for requests it rejects; their presence
/// shows the server speaks the modern era.
const MODERN_ERROR_CODES: [i64; 5] = [
    HEADER_MISMATCH,
    MISSING_REQUIRED_CLIENT_CAPABILITY,
    UNSUPPORTED_PROTOCOL_VERSION,
    METHOD_NOT_FOUND,
    INVALID_PARAMS,
];

/// Why a run stopped early.
enum Stop {
    Unsupported(String),
    Failed(String),
}

type SetupResult<T> = Result<T, Stop>;

impl Runner<'_> {
    fn client_info() -> Value {
        json!({"name": CLIENT_NAME, "version": env!("CARGO_PKG_VERSION")})
    }

    pub(super) fn meta(&self) -> Value {
        json!({
            meta::PROTOCOL_VERSION: Protocol::V2026_07_28.as_str(),
            meta::CLIENT_CAPABILITIES: self.caps,
            meta::CLIENT_INFO: Self::client_info(),
        })
    }

    /// Header fields for a POST carrying `method` (and, for tools/call, `name`).
    pub(super) fn headers(&self, method: &str, name: Option<&str>) -> Vec<(String, String)> {
        let mut h: Vec<(String, String)> = vec![
            ("Content-Type".into(), JSON.into()),
            ("Accept".into(), format!("{JSON}, {EVENT_STREAM}")),
        ];
        match self.p {
            Protocol::V2026_07_28 => {
                h.push((header::PROTOCOL_VERSION.into(), self.p.as_str().into()));
                h.push((header::METHOD.into(), method.into()));
                if let Some(n) = name {
                    h.push((header::NAME.into(), header_value(n)));
                }
            }
            Protocol::V2025_11_25 => {
                if method != "initialize" {
                    if let Some(s) = &self.session {
                        h.push((header::SESSION_ID.into(), s.clone()));
                    }
                    h.push((header::PROTOCOL_VERSION.into(), self.p.as_str().into()));
                }
            }
        }
        h.extend(self.cfg.headers.iter().cloned());
        h
    }

    /// Header fields for a GET on the endpoint (the standalone stream, a resumption): an
    /// `Accept` listing `text/event-stream` (2025-11-25 basic/transports: "The client **MUST**
    /// include an `Accept` header, listing `text/event-stream` as a supported content type"),
    /// the session id and protocol version, and the `--header` fields.
    pub(super) fn stream_headers(&self) -> Vec<(String, String)> {
        let mut h: Vec<(String, String)> = vec![("Accept".into(), EVENT_STREAM.into())];
        if let Some(s) = &self.session {
            h.push((header::SESSION_ID.into(), s.clone()));
        }
        h.push((header::PROTOCOL_VERSION.into(), self.p.as_str().into()));
        h.extend(self.cfg.headers.iter().cloned());
        h
    }

    /// A setup request: returns the `result` of the response, or why the run stops.
    fn setup(&mut self, method: &str, params: Value) -> SetupResult<(Value, Received)> {
        self.drain_listener();
        let id = self.id();
        let mut body = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            body["params"] = params;
        }
        let headers = self.headers(method, None);
        let r = self
            .send(&body, &headers, None, &mut Vec::new())
            .map_err(|e| Stop::Failed(format!("{method}: {e}")))?;
        let label = match self
            .run
            .discovery
            .iter()
            .filter(|x| x.label.starts_with(method))
            .count()
        {
            0 => method.to_string(),
            n => format!("{method} page {}", n + 1),
        };
        self.judge_setup(&label, &headers, &body, &r);
        match r.final_message.as_ref() {
            Some(m) if (200..300).contains(&r.status) => {
                if let Some(result) = m.get("result") {
                    return Ok((result.clone(), r));
                }
                Err(Stop::Failed(format!(
                    "{method}: JSON-RPC error {}",
                    error_text(m.get("error"))
                )))
            }
            _ => {
                // A modern-only server may reject initialize as UnsupportedProtocolVersion,
                // listing the versions it supports.
                if let Some(supported) = super::runner::rejected_version(&r) {
                    self.fallback = fallback_from(&json!(supported), self.p);
                }
                Err(Stop::Failed(format!("{method}: {}", describe_failure(&r))))
            }
        }
    }

    fn stop(&mut self, s: Stop) {
        self.run.status = match s {
            Stop::Unsupported(m) => RunStatus::Unsupported(m),
            Stop::Failed(m) => RunStatus::Failed(m),
        };
    }

    // -----------------------------------------------------------------------------------
    // 2026-07-28

    pub(super) fn modern(&mut self) {
        if let Err(s) = self.modern_setup() {
            self.stop(s);
            return;
        }
        self.calls();
        self.active_checks();
    }

    fn modern_setup(&mut self) -> SetupResult<()> {
        let id = self.id();
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "server/discover",
                          "params": {"_meta": self.meta()}});
        let headers = self.headers("server/discover", None);
        let r = self
            .send(&body, &headers, None, &mut Vec::new())
            .map_err(|e| Stop::Failed(format!("server/discover: {e}")))?;
        self.judge_setup("server/discover", &headers, &body, &r);
        let msg = r.final_message.clone().or_else(|| {
            // Error responses to a rejected request may come with a 4xx status.
            serde_json::from_slice::<Value>(&r.body).ok()
        });
        let error_code = msg
            .as_ref()
            .and_then(|m| m.get("error"))
            .and_then(|e| e.get("code"))
            .and_then(Value::as_i64);
        match (r.status, msg.as_ref().and_then(|m| m.get("result"))) {
            (200..=299, Some(result)) => {
                let versions: Vec<&str> = result
                    .get("supportedVersions")
                    .and_then(Value::as_array)
                    .map(|v| v.iter().filter_map(Value::as_str).collect())
                    .unwrap_or_default();
                let mut server = sanitize_value(result);
                if let Some(info) = result.get("_meta").and_then(|m| m.get(meta::SERVER_INFO)) {
                    server["serverInfo"] = sanitize_value(info);
                }
                self.run.server = Some(server);
                if !versions.contains(&self.p.as_str()) {
                    return Err(Stop::Unsupported(format!(
                        "server/discover lists supportedVersions {versions:?}, without {}",
                        self.p
                    )));
                }
            }
            (_, _) if error_code == Some(UNSUPPORTED_PROTOCOL_VERSION) => {
                let supported = msg
                    .as_ref()
                    .and_then(|m| m.pointer("/error/data/supported"))
                    .cloned()
                    .unwrap_or(Value::Null);
                self.fallback = fallback_from(&supported, self.p);
                return Err(Stop::Unsupported(format!(
                    "server/discover was rejected as UnsupportedProtocolVersion (HTTP {}); the server supports {supported}",
                    r.status
                )));
            }
            (_, _) if error_code == Some(METHOD_NOT_FOUND) => {
                // A modern server without server/discover (it MUST implement it; the
                // probe carries on with tools/list).
                self.run.server = Some(json!({
                    "note": format!("server/discover answered {METHOD_NOT_FOUND} Method not found")
                }));
            }
            (400 | 404 | 405, _)
                if !error_code.is_some_and(|c| MODERN_ERROR_CODES.contains(&c)) =>
            {
                return Err(Stop::Unsupported(format!(
                    "server/discover got HTTP {} without a modern JSON-RPC error: the endpoint does not speak {} (a legacy or non-MCP endpoint)",
                    r.status, self.p
                )));
            }
            _ => {
                return Err(Stop::Failed(format!(
                    "server/discover: {}",
                    describe_failure(&r)
                )));
            }
        }
        self.list_tools()
    }

    fn list_tools(&mut self) -> SetupResult<()> {
        let mut cursor: Option<Value> = None;
        for _ in 0..MAX_PAGES {
            let mut params = Map::new();
            if let Some(c) = &cursor {
                params.insert("cursor".into(), c.clone());
            }
            if self.p == Protocol::V2026_07_28 {
                params.insert("_meta".into(), self.meta());
            }
            let params = if params.is_empty() {
                Value::Null
            } else {
                Value::Object(params)
            };
            let (result, _) = self.setup("tools/list", params)?;
            if let Some(tools) = result.get("tools").and_then(Value::as_array) {
                for tool in tools {
                    // Under 2026-07-28 a tool with invalid x-mcp-header annotations is
                    // rejected: listed in the report, never called (see
                    // `headers::x_mcp_header_problem`).
                    if self.p == Protocol::V2026_07_28
                        && let Some(why) =
                            super::headers::x_mcp_header_problem(tool.get("inputSchema"))
                    {
                        let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
                        self.run.rejected_tools.push((name.to_string(), why));
                    }
                    self.run.tools.push(tool.clone());
                }
            }
            match result.get("nextCursor") {
                Some(c) if !c.is_null() => cursor = Some(c.clone()),
                _ => return Ok(()),
            }
        }
        Err(Stop::Failed(format!(
            "tools/list: still returning nextCursor after {MAX_PAGES} pages"
        )))
    }

    // -----------------------------------------------------------------------------------
    // 2025-11-25

    pub(super) fn legacy(&mut self) {
        let outcome = self.legacy_setup();
        if let Err(s) = outcome {
            self.stop(s);
        } else {
            self.calls();
            self.active_checks();
        }
        self.close_listener();
        if self.session.is_some() && self.run.unreachable.is_none() {
            self.delete_session();
            self.active_after_delete();
        }
    }

    fn legacy_setup(&mut self) -> SetupResult<()> {
        let params = json!({
            "protocolVersion": self.p.as_str(),
            "capabilities": self.caps,
            "clientInfo": Self::client_info(),
        });
        let (result, r) = self.setup("initialize", params)?;
        self.session = r
            .headers
            .get(header::SESSION_ID)
            .map(|s| s.trim().to_string());
        self.run.server = Some(sanitize_value(&result));
        self.negotiated = Some(crate::wire::exchange::Negotiated {
            client_capabilities: self.caps.as_object().cloned().unwrap_or_default(),
            protocol_version: result
                .get("protocolVersion")
                .and_then(Value::as_str)
                .map(str::to_string),
            client_info: Some(Self::client_info()),
            server_capabilities: result.get("capabilities").map(sanitize_value),
            server_info: result.get("serverInfo").map(sanitize_value),
        });
        let negotiated = result.get("protocolVersion").and_then(Value::as_str);
        if negotiated != Some(self.p.as_str()) {
            return Err(Stop::Unsupported(format!(
                "initialize negotiated protocol version {}, not {}",
                negotiated.map_or_else(|| "(none)".to_string(), |v| format!("`{v}`")),
                self.p
            )));
        }
        let body = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let headers = self.headers("notifications/initialized", None);
        let r = self
            .send(&body, &headers, None, &mut Vec::new())
            .map_err(|e| Stop::Failed(format!("notifications/initialized: {e}")))?;
        if !(200..300).contains(&r.status) {
            return Err(Stop::Failed(format!(
                "notifications/initialized: {}",
                describe_failure(&r)
            )));
        }
        // The standalone GET stream, for server messages unrelated to a request (see
        // `listen`); a 405 answer means the server offers none.
        self.listener = Some(super::listen::Listener::open(
            self.t,
            self.stream_headers(),
            self.headers("response", None),
            self.cfg.answers.clone(),
        ));
        self.list_tools()
    }

    fn delete_session(&mut self) {
        let mut headers = vec![
            (
                header::SESSION_ID.to_string(),
                self.session.clone().unwrap_or_default(),
            ),
            (
                header::PROTOCOL_VERSION.to_string(),
                self.p.as_str().to_string(),
            ),
        ];
        headers.extend(self.cfg.headers.iter().cloned());
        let out = Outgoing {
            method: "DELETE",
            headers: &headers,
            body: None,
            rpc_id: None,
            cancel: None,
            on_head: None,
        };
        let res = self.t.send(&out, &mut |_| {});
        let note = match &res {
            Ok(r) if (200..300).contains(&r.status) || r.status == 405 => None,
            Ok(r) => Some(format!(
                "session termination answered HTTP {} (expected 2xx, or 405 if the server does not allow it)",
                r.status
            )),
            Err(e) => Some(e.to_string()),
        };
        self.push_step(HttpStep {
            post: None,
            http_method: "DELETE".into(),
            rpc_method: None,
            tool: None,
            status: res.as_ref().ok().map(|r| r.status),
            end: res.as_ref().ok().map(|r| r.end),
            stopped: res.as_ref().ok().and_then(|r| r.stop),
            redirect: res.as_ref().ok().and_then(super::http::Received::redirect),
            note,
        });
    }
}

/// The revision to run instead of `current`, from the `supported` list of an
/// UnsupportedProtocolVersion error: one the probe speaks, other than `current`, when
/// `current` is not listed.
fn fallback_from(supported: &Value, current: Protocol) -> Option<Protocol> {
    let listed: Vec<&str> = supported
        .as_array()
        .map(|v| v.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if listed.contains(&current.as_str()) {
        return None;
    }
    Protocol::all().find(|p| *p != current && listed.contains(&p.as_str()))
}

/// `error.code` and `error.message` of a JSON-RPC error, for messages.
fn error_text(err: Option<&Value>) -> String {
    let Some(e) = err else {
        return "(no error object)".into();
    };
    let code = e
        .get("code")
        .map_or_else(|| "?".to_string(), Value::to_string);
    let msg = e.get("message").and_then(Value::as_str).unwrap_or("");
    sanitize(&format!("{code}: {msg}"))
}

/// Why a setup response is unusable: status, media type, a body excerpt.
fn describe_failure(r: &Received) -> String {
    let ct = r.headers.get("content-type").unwrap_or("(none)");
    let mut s = format!("HTTP {} ({ct}", r.status);
    if let Some(ra) = r.headers.get("retry-after") {
        s.push_str(&format!(", Retry-After: {ra}"));
    }
    s.push(')');
    if let Some(m) = serde_json::from_slice::<Value>(&r.body)
        .ok()
        .filter(|m| m.get("error").is_some())
    {
        s.push_str(&format!(", JSON-RPC error {}", error_text(m.get("error"))));
    } else if r.final_message.is_none() {
        s.push_str(", no JSON-RPC response");
        if !r.body.is_empty() {
            s.push_str(&format!(
                ": {}",
                sanitize(&crate::wire::excerpt(&r.body, 120))
            ));
        }
    }
    if let Some(n) = &r.end_note {
        s.push_str(&format!("; {n}"));
    }
    s
}
