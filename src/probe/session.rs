//! Per-revision setup and what every request carries: `server/discover` (2026-07-28) or
//! `initialize` and `notifications/initialized` (2025-11-25), the tool list, the `_meta` each
//! 2026-07-28 request sends, and the session's end.

use serde_json::{Map, Value, json};

use super::config::CLIENT_NAME;
use super::report::RunStatus;
use super::runner::Runner;
use super::transport::{Inbound, error_text};
use crate::views::diag::sanitize_value;
use crate::vocab::Protocol;
use crate::vocab::protocol::code::{
    HEADER_MISMATCH, INVALID_PARAMS, METHOD_NOT_FOUND, MISSING_REQUIRED_CLIENT_CAPABILITY,
    UNSUPPORTED_PROTOCOL_VERSION,
};
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

    /// A setup request: returns the `result` of the response, or why the run stops.
    fn setup(&mut self, method: &str, params: Value) -> SetupResult<(Value, Inbound)> {
        self.drain_listener();
        let id = self.id();
        let mut body = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            body["params"] = params;
        }
        let r = self
            .send(&body, None, &mut Vec::new())
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
        self.judge_setup(&label, &r);
        match r.response.as_ref() {
            Some(m) if r.accepted() => {
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
                Err(Stop::Failed(format!("{method}: {}", r.failure)))
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

    /// Sets the run up under its revision (2026-07-28: `server/discover`; 2025-11-25:
    /// `initialize` and `notifications/initialized`; then the tool list); false, with the
    /// reason recorded as the run's status, when that failed.
    pub(super) fn set_up(&mut self) -> bool {
        let outcome = match self.p {
            Protocol::V2026_07_28 => self.modern_setup(),
            Protocol::V2025_11_25 => self.legacy_setup(),
        };
        match outcome {
            Ok(()) => true,
            Err(s) => {
                self.stop(s);
                false
            }
        }
    }

    fn modern_setup(&mut self) -> SetupResult<()> {
        let id = self.id();
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "server/discover",
                          "params": {"_meta": self.meta()}});
        let r = self
            .send(&body, None, &mut Vec::new())
            .map_err(|e| Stop::Failed(format!("server/discover: {e}")))?;
        self.judge_setup("server/discover", &r);
        // Error responses to a rejected request may come with a 4xx status.
        let msg = r.message.clone();
        let error_code = msg
            .as_ref()
            .and_then(|m| m.get("error"))
            .and_then(|e| e.get("code"))
            .and_then(Value::as_i64);
        match (r.status, msg.as_ref().and_then(|m| m.get("result"))) {
            (_, Some(result)) if r.accepted() => {
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
                self.declared = Some(crate::wire::exchange::RecordedServer {
                    supported_versions: versions.iter().map(|v| v.to_string()).collect(),
                });
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
                    "server/discover was rejected as UnsupportedProtocolVersion ({}); the server supports {supported}",
                    r.head()
                )));
            }
            (None, _) => {
                // Over stdio, which has no status to tell a legacy server by: 2026-07-28
                // basic/transports/stdio, Backward Compatibility: "The server returns any
                // other error, or does not respond within a reasonable timeout: the server is
                // legacy. Fall back to the `initialize` handshake." "The fallback MUST NOT be
                // keyed to one specific error code".
                let got = match (error_code, &r.unanswered) {
                    (Some(c), _) => format!("answered error {c}"),
                    (None, Some(why)) => format!("got no answer ({why})"),
                    (None, None) => "got an answer that is neither a result nor an error".into(),
                };
                self.fallback = Protocol::all().find(|q| *q != self.p);
                return Err(Stop::Unsupported(format!(
                    "server/discover {got}: a stdio server that does so is a legacy server (basic/transports/stdio, Backward Compatibility)"
                )));
            }
            (_, _) if error_code == Some(METHOD_NOT_FOUND) => {
                // A modern server without server/discover (it MUST implement it; the
                // probe carries on with tools/list).
                self.run.server = Some(json!({
                    "note": format!("server/discover answered {METHOD_NOT_FOUND} Method not found")
                }));
            }
            (Some(400 | 404 | 405), _)
                if !error_code.is_some_and(|c| MODERN_ERROR_CODES.contains(&c)) =>
            {
                return Err(Stop::Unsupported(format!(
                    "server/discover got {} without a modern JSON-RPC error: the endpoint does not speak {} (a legacy or non-MCP endpoint)",
                    r.head(),
                    self.p
                )));
            }
            _ => {
                return Err(Stop::Failed(format!("server/discover: {}", r.failure)));
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
                    // A tool the transport cannot carry is rejected: listed in the report,
                    // never called.
                    if let Some(why) = self.t.tool_problem(tool) {
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

    fn legacy_setup(&mut self) -> SetupResult<()> {
        let params = json!({
            "protocolVersion": self.p.as_str(),
            "capabilities": self.caps,
            "clientInfo": Self::client_info(),
        });
        let (result, _) = self.setup("initialize", params)?;
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
        let r = self
            .send(&body, None, &mut Vec::new())
            .map_err(|e| Stop::Failed(format!("notifications/initialized: {e}")))?;
        if !r.accepted() {
            return Err(Stop::Failed(format!(
                "notifications/initialized: {}",
                r.failure
            )));
        }
        self.t.initialized();
        self.list_tools()
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
