//! `probe`: a Streamable HTTP MCP client that exercises a live server under each protocol
//! revision, records every `tools/call` exchange exactly as received, and judges it with
//! the engine.
//!
//! Under **2026-07-28** every request is stateless: `params._meta` carries
//! `io.modelcontextprotocol/protocolVersion`, `clientCapabilities` (what `--answers` can
//! satisfy) and `clientInfo`; the headers `MCP-Protocol-Version`, `Mcp-Method` and, for
//! `tools/call`, `Mcp-Name` mirror the body (Base64 sentinel when the name is not
//! header-safe; `x-mcp-header` tool parameters become `Mcp-Param-*`). The probe asks
//! `server/discover` first, lists the tools (following `nextCursor`), then calls. An
//! `input_required` result is followed up, when the answers file covers every input request,
//! with a new JSON-RPC id, `inputResponses` keyed like `inputRequests`, the echoed
//! `requestState` and the same name and arguments, up to [`ProbeConfig::max_rounds`].
//!
//! Under **2025-11-25** the probe sends `initialize`, then `notifications/initialized`, and
//! then carries `MCP-Session-Id` (when the server assigned one) and `MCP-Protocol-Version` on
//! every request. A server request arriving on a `tools/call` SSE stream (`ping`,
//! `elicitation/create`, `roots/list`, ...) is answered with a POSTed JSON-RPC response: a
//! `ping` with an empty result, others from the answers file, or an error response when
//! there is no answer. The session is DELETEd at the end (405 is fine).
//!
//! Every `tools/call` carries `_meta.progressToken` (`mcp-verdict-probe-<id>`), so servers
//! may stream progress notifications.
//!
//! Each `tools/call` exchange becomes an [`Exchange`] built from the bytes as received and
//! is judged under the revision probed; nothing is retried on its own. Secrets in header
//! values (`Authorization`, cookies, `*-Api-Key`, `*token*`, session ids) are replaced by
//! `[REDACTED]` before they reach an exchange, a record, a log line or the output.
//!
//! ```no_run
//! use mcp_verdict::probe::{self, CallSpec, ProbeConfig};
//! use mcp_verdict::Protocol;
//!
//! let mut config = ProbeConfig::new("http://127.0.0.1:3000/mcp");
//! config.protocols = vec![Protocol::V2026_07_28];
//! config.calls.push(CallSpec { name: "echo".into(), arguments: Some(serde_json::json!({"text": "hi"})) });
//! let report = probe::run(&config).expect("server reachable");
//! for x in report.exchanges() {
//!     println!("{} {}", x.label, x.verdict().outcome);
//! }
//! std::process::exit(report.exit_code().into());
//! ```

pub mod cli;
mod http;
mod output;
mod plan;

use serde::Serialize;
use serde_json::{Map, Value, json};

pub use http::{LINGER, SendError, Timeouts};
pub use output::{ExchangeOut, FailureOut, ProbeOut, RunOut, ToolOut, render_text};
pub use plan::{CallKind, PlannedCall, UNKNOWN_TOOL, header_value, is_secret_header};

use crate::diag::{sanitize, sanitize_value};
use crate::engine::{Judgement, Options, Verdict, judge};
use crate::vocab::{Outcome, Severity};
use crate::vocab::{Protocol, exit};
use crate::wire::exchange::{BodyEnd, Exchange, Headers, RecordedRequest};
use http::{Outgoing, Received, Transport};

use crate::vocab::protocol::meta::{
    CLIENT_CAPABILITIES as META_CAPS, CLIENT_INFO as META_CLIENT, PROTOCOL_VERSION as META_VERSION,
    SERVER_INFO as META_SERVER,
};
const ACCEPT: &str = "application/json, text/event-stream";
/// Most `tools/list` pages followed.
const MAX_PAGES: usize = 100;
/// JSON-RPC error codes a 2026-07-28 server uses for requests it rejects; their presence
/// shows the server speaks the modern era.
const MODERN_ERROR_CODES: [i64; 5] = [-32020, -32021, -32022, -32601, -32602];

/// `clientInfo.name` the probe reports.
pub const CLIENT_NAME: &str = "mcp-verdict-probe";

/// A tool the probe is asked to call.
#[derive(Debug, Clone, PartialEq)]
pub struct CallSpec {
    /// Tool name.
    pub name: String,
    /// Arguments (`None`: send `{}`).
    pub arguments: Option<Value>,
}

/// What to probe and how.
#[derive(Debug, Clone)]
pub struct ProbeConfig {
    /// The MCP endpoint URL.
    pub url: String,
    /// Revisions to probe under, in order.
    pub protocols: Vec<Protocol>,
    /// Tools to call, in order.
    pub calls: Vec<CallSpec>,
    /// Also make the calls that need no fixture tools (unknown tool, invalid arguments).
    pub auto_calls: bool,
    /// Let the invalid-arguments calls target tools not marked `readOnlyHint: true`.
    pub allow_side_effects: bool,
    /// Answers to server input requests: input-request key or method → response object.
    pub answers: Map<String, Value>,
    /// Most `tools/call` requests sent for one call (the first and its follow-ups).
    pub max_rounds: u32,
    /// Extra header fields sent on every request (values redacted in records if secret).
    pub headers: Vec<(String, String)>,
    /// Deadlines.
    pub timeouts: Timeouts,
}

impl ProbeConfig {
    /// Defaults: both revisions, auto calls on, no answers, 3 rounds, default timeouts.
    pub fn new(url: impl Into<String>) -> ProbeConfig {
        ProbeConfig {
            url: url.into(),
            protocols: Protocol::all().collect(),
            calls: Vec::new(),
            auto_calls: true,
            allow_side_effects: false,
            answers: Map::new(),
            max_rounds: 3,
            headers: Vec::new(),
            timeouts: Timeouts::default(),
        }
    }
}

/// Why a probe could not run at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    /// The configuration cannot work (bad URL, https without TLS support).
    #[error("{0}")]
    Config(String),
    /// No request reached the server.
    #[error("cannot reach the MCP server at {url}: {reason}")]
    Unreachable {
        /// The endpoint (secrets in it redacted).
        url: String,
        /// Why.
        reason: String,
    },
}

/// One HTTP request of a run and what came of it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HttpStep {
    /// Ordinal among the run's POSTs (1-based); `None` for GET and DELETE.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub post: Option<u32>,
    /// HTTP method.
    pub http_method: String,
    /// JSON-RPC method (or `response` for an answer to a server request).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rpc_method: Option<String>,
    /// Tool name, for `tools/call`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// HTTP status, when a response arrived.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// How the body ended (`complete`, `reset`, `timeout`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<BodyEnd>,
    /// What went wrong, if anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

impl HttpStep {
    /// One line for people: `#3 POST tools/call echo → 200`.
    pub fn describe(&self) -> String {
        let mut s = match self.post {
            Some(n) => format!("#{n} POST"),
            None => self.http_method.clone(),
        };
        if let Some(m) = &self.rpc_method {
            s.push(' ');
            s.push_str(m);
        }
        if let Some(t) = &self.tool {
            s.push(' ');
            s.push_str(t);
        }
        match self.status {
            Some(st) => s.push_str(&format!(" → {st}")),
            None => s.push_str(" → no response"),
        }
        if let Some(e) = self.end
            && e != BodyEnd::Complete
        {
            s.push_str(&format!(" (body end: {})", e.as_str()));
        }
        s
    }
}

/// One judged `tools/call` exchange.
#[derive(Debug, Clone)]
pub struct CallExchange {
    /// Label of the call (`echo`, `unknown-tool`, `add:invalid-args`).
    pub label: String,
    /// The call.
    pub call: PlannedCall,
    /// Round of the call (1 = first request; 2.. = input-required follow-ups).
    pub round: u32,
    /// The exchange as received (secret header values redacted).
    pub exchange: Exchange,
    /// The engine's judgement under the run's revision.
    pub judgement: Judgement<'static>,
    /// How many of the run's HTTP steps had happened when this exchange ended.
    pub steps_so_far: usize,
    /// POSTs sent for this call so far (rounds and answers to server requests).
    pub call_posts: u32,
    /// Their statuses, in order.
    pub call_statuses: Vec<u16>,
    /// Why the body ended the way it did, when it did not simply complete.
    pub end_note: Option<String>,
    /// Server requests seen on the stream and how the probe answered them.
    pub server_requests: Vec<String>,
    /// Why no follow-up round was sent after an `input_required` result.
    pub follow_up: Option<String>,
}

impl CallExchange {
    /// The verdict under the run's revision.
    pub fn verdict(&self) -> &Verdict<'static> {
        &self.judgement.verdicts[0]
    }

    /// Whether the verdict carries an error-severity finding.
    pub fn has_error_finding(&self) -> bool {
        self.verdict().worst() == Some(Severity::Error)
    }
}

/// How a run under one revision went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase", tag = "status", content = "reason")]
pub enum RunStatus {
    /// Set up and probed.
    Probed,
    /// The server does not speak this revision (its own answer says so).
    Unsupported(String),
    /// Setting up failed (the reason says which request and why).
    Failed(String),
}

/// The probe's work under one revision.
#[derive(Debug, Clone)]
pub struct RevisionRun {
    /// The revision.
    pub protocol: Protocol,
    /// How it went.
    pub status: RunStatus,
    /// What the server said about itself (`server/discover` result or `initialize` result).
    pub server: Option<Value>,
    /// Tools listed.
    pub tools: Vec<Value>,
    /// Every HTTP request, in order.
    pub steps: Vec<HttpStep>,
    /// Judged `tools/call` exchanges, in order.
    pub exchanges: Vec<CallExchange>,
    /// Calls that produced no HTTP response to judge: (label, why).
    pub failures: Vec<(String, String)>,
    /// Set when not a single request reached the server.
    pub unreachable: Option<String>,
}

impl RevisionRun {
    /// POSTs sent in this run.
    pub fn post_count(&self) -> u32 {
        self.steps.iter().filter(|s| s.post.is_some()).count() as u32
    }
}

/// Everything a probe found.
#[derive(Debug, Clone)]
pub struct ProbeReport {
    /// The endpoint (secrets redacted).
    pub url: String,
    /// One run per revision probed.
    pub runs: Vec<RevisionRun>,
}

impl ProbeReport {
    /// Every judged exchange, run by run.
    pub fn exchanges(&self) -> impl Iterator<Item = &CallExchange> {
        self.runs.iter().flat_map(|r| r.exchanges.iter())
    }

    /// The run under a revision.
    pub fn run(&self, p: Protocol) -> Option<&RevisionRun> {
        self.runs.iter().find(|r| r.protocol == p)
    }

    /// 0 when every judged verdict is free of error-severity findings, no call went
    /// unanswered, no run failed to set up and at least one run was probed; 1 otherwise.
    /// (Not testable is never a pass; a revision the server declines is not a failure.)
    pub fn exit_code(&self) -> u8 {
        let probed = self
            .runs
            .iter()
            .any(|r| matches!(r.status, RunStatus::Probed));
        let bad = self.runs.iter().any(|r| {
            matches!(r.status, RunStatus::Failed(_))
                || !r.failures.is_empty()
                || r.exchanges.iter().any(CallExchange::has_error_finding)
        });
        if probed && !bad {
            exit::OK
        } else {
            exit::FINDINGS
        }
    }
}

/// Probes the server under each configured revision.
pub fn run(config: &ProbeConfig) -> Result<ProbeReport, ProbeError> {
    let transport = Transport::new(&config.url, config.timeouts).map_err(ProbeError::Config)?;
    let url = sanitize(&config.url);
    let mut runs = Vec::new();
    for &p in &config.protocols {
        let mut runner = Runner::new(config, &transport, p, &url);
        match p {
            Protocol::V2025_11_25 => runner.legacy(),
            Protocol::V2026_07_28 => runner.modern(),
        }
        runs.push(runner.run);
    }
    if let Some(first) = runs.first()
        && runs.iter().all(|r| r.unreachable.is_some())
    {
        let reason = first.unreachable.clone().unwrap_or_default();
        return Err(ProbeError::Unreachable { url, reason });
    }
    Ok(ProbeReport { url, runs })
}

/// Why a run stopped early.
enum Stop {
    Unsupported(String),
    Failed(String),
}

type SetupResult<T> = Result<T, Stop>;

struct Runner<'a> {
    cfg: &'a ProbeConfig,
    t: &'a Transport,
    p: Protocol,
    url: &'a str,
    next_id: i64,
    session: Option<String>,
    caps: Value,
    run: RevisionRun,
}

fn single(p: Protocol) -> &'static [Protocol] {
    match p {
        Protocol::V2025_11_25 => &[Protocol::V2025_11_25],
        Protocol::V2026_07_28 => &[Protocol::V2026_07_28],
    }
}

impl<'a> Runner<'a> {
    fn new(cfg: &'a ProbeConfig, t: &'a Transport, p: Protocol, url: &'a str) -> Runner<'a> {
        Runner {
            cfg,
            t,
            p,
            url,
            next_id: 0,
            session: None,
            caps: plan::capabilities_for(&cfg.answers),
            run: RevisionRun {
                protocol: p,
                status: RunStatus::Probed,
                server: None,
                tools: Vec::new(),
                steps: Vec::new(),
                exchanges: Vec::new(),
                failures: Vec::new(),
                unreachable: None,
            },
        }
    }

    fn id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    fn client_info() -> Value {
        json!({"name": CLIENT_NAME, "version": env!("CARGO_PKG_VERSION")})
    }

    fn meta(&self) -> Value {
        json!({
            META_VERSION: Protocol::V2026_07_28.as_str(),
            META_CAPS: self.caps,
            META_CLIENT: Self::client_info(),
        })
    }

    /// Header fields for a POST carrying `method` (and, for tools/call, `name`).
    fn headers(&self, method: &str, name: Option<&str>) -> Vec<(String, String)> {
        let mut h: Vec<(String, String)> = vec![
            ("Content-Type".into(), "application/json".into()),
            ("Accept".into(), ACCEPT.into()),
        ];
        match self.p {
            Protocol::V2026_07_28 => {
                h.push(("MCP-Protocol-Version".into(), self.p.as_str().into()));
                h.push(("Mcp-Method".into(), method.into()));
                if let Some(n) = name {
                    h.push(("Mcp-Name".into(), plan::header_value(n)));
                }
            }
            Protocol::V2025_11_25 => {
                if method != "initialize" {
                    if let Some(s) = &self.session {
                        h.push(("MCP-Session-Id".into(), s.clone()));
                    }
                    h.push(("MCP-Protocol-Version".into(), self.p.as_str().into()));
                }
            }
        }
        h.extend(self.cfg.headers.iter().cloned());
        h
    }

    fn push_step(&mut self, mut step: HttpStep) -> usize {
        if step.http_method == "POST" {
            step.post = Some(self.run.post_count() + 1);
        }
        self.run.steps.push(step);
        self.run.steps.len() - 1
    }

    /// Sends one JSON-RPC message; records the step. Server requests on the stream are
    /// answered (2025-11-25) and recorded after it.
    fn send(
        &mut self,
        body: &Value,
        headers: &[(String, String)],
        tool: Option<&str>,
        answered: &mut Vec<String>,
    ) -> Result<Received, http::SendError> {
        let bytes = serde_json::to_vec(body).expect("JSON serializes");
        let rpc_id = body.get("id");
        let rpc_method = body
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_string);
        let mut extra_steps: Vec<HttpStep> = Vec::new();
        let legacy = self.p == Protocol::V2025_11_25;
        let answer_headers = self.headers("response", None);
        let t = self.t;
        let answers = &self.cfg.answers;
        let mut on_message = |msg: &Value| {
            if !legacy {
                return;
            }
            let (Some(id), Some(method)) =
                (msg.get("id"), msg.get("method").and_then(Value::as_str))
            else {
                return;
            };
            let key = match id {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            let (reply, how) = if method == "ping" {
                (
                    json!({"jsonrpc": "2.0", "id": id, "result": {}}),
                    "empty result".to_string(),
                )
            } else if let Some(a) = plan::answer_for(answers, &key, Some(method)) {
                (
                    json!({"jsonrpc": "2.0", "id": id, "result": a}),
                    "answer from the answers file".to_string(),
                )
            } else {
                (
                    json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": format!("mcp-verdict probe has no answer for {method} (pass --answers)")}}),
                    "error response -32601 (no answer in --answers)".to_string(),
                )
            };
            let rb = serde_json::to_vec(&reply).expect("JSON serializes");
            let out = Outgoing {
                method: "POST",
                headers: &answer_headers,
                body: Some(&rb),
                rpc_id: None,
            };
            let res = t.send(&out, &mut |_| {});
            let (status, end, note) = match &res {
                Ok(r) => (
                    Some(r.status),
                    Some(r.end),
                    (r.status != 202).then(|| {
                        format!(
                            "expected 202 Accepted for a JSON-RPC response, got {}",
                            r.status
                        )
                    }),
                ),
                Err(e) => (None, None, Some(e.to_string())),
            };
            answered.push(format!(
                "{method} (id {id}) answered with {how}: {}",
                status.map_or_else(|| "no response".to_string(), |s| format!("HTTP {s}"))
            ));
            extra_steps.push(HttpStep {
                post: None,
                http_method: "POST".into(),
                rpc_method: Some(format!("response to {method}")),
                tool: None,
                status,
                end,
                note,
            });
        };
        let out = Outgoing {
            method: "POST",
            headers,
            body: Some(&bytes),
            rpc_id,
        };
        let res = self.t.send(&out, &mut on_message);
        let step = HttpStep {
            post: None,
            http_method: "POST".into(),
            rpc_method,
            tool: tool.map(str::to_string),
            status: res.as_ref().ok().map(|r| r.status),
            end: res.as_ref().ok().map(|r| r.end),
            note: match &res {
                Ok(r) => r.end_note.clone(),
                Err(e) => Some(e.to_string()),
            },
        };
        self.push_step(step);
        for s in extra_steps {
            self.push_step(s);
        }
        if let Err(http::SendError::Unreachable(why)) = &res
            && self.run.steps.len() == 1
        {
            self.run.unreachable = Some(why.clone());
        }
        res
    }

    /// A setup request: returns the `result` of the response, or why the run stops.
    fn setup(&mut self, method: &str, params: Value) -> SetupResult<(Value, Received)> {
        let id = self.id();
        let mut body = json!({"jsonrpc": "2.0", "id": id, "method": method});
        if !params.is_null() {
            body["params"] = params;
        }
        let headers = self.headers(method, None);
        let r = self
            .send(&body, &headers, None, &mut Vec::new())
            .map_err(|e| Stop::Failed(format!("{method}: {e}")))?;
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
            _ => Err(Stop::Failed(format!("{method}: {}", describe_failure(&r)))),
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

    fn modern(&mut self) {
        if let Err(s) = self.modern_setup() {
            self.stop(s);
            return;
        }
        self.calls();
    }

    fn modern_setup(&mut self) -> SetupResult<()> {
        let id = self.id();
        let body = json!({"jsonrpc": "2.0", "id": id, "method": "server/discover",
                          "params": {"_meta": self.meta()}});
        let headers = self.headers("server/discover", None);
        let r = self
            .send(&body, &headers, None, &mut Vec::new())
            .map_err(|e| Stop::Failed(format!("server/discover: {e}")))?;
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
                if let Some(info) = result.get("_meta").and_then(|m| m.get(META_SERVER)) {
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
            (_, _) if error_code == Some(-32022) => {
                let supported = msg
                    .as_ref()
                    .and_then(|m| m.pointer("/error/data/supported"))
                    .cloned()
                    .unwrap_or(Value::Null);
                return Err(Stop::Unsupported(format!(
                    "server/discover was rejected as UnsupportedProtocolVersion (HTTP {}); the server supports {supported}",
                    r.status
                )));
            }
            (_, _) if error_code == Some(-32601) => {
                // A modern server without server/discover (it MUST implement it; the
                // probe carries on with tools/list).
                self.run.server =
                    Some(json!({"note": "server/discover answered -32601 Method not found"}));
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
                self.run.tools.extend(tools.iter().cloned());
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

    fn legacy(&mut self) {
        let outcome = self.legacy_setup();
        if let Err(s) = outcome {
            self.stop(s);
        } else {
            self.calls();
        }
        if self.session.is_some() && self.run.unreachable.is_none() {
            self.delete_session();
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
            .get("mcp-session-id")
            .map(|s| s.trim().to_string());
        self.run.server = Some(sanitize_value(&result));
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
        self.list_tools()
    }

    fn delete_session(&mut self) {
        let mut headers = vec![
            (
                "MCP-Session-Id".to_string(),
                self.session.clone().unwrap_or_default(),
            ),
            (
                "MCP-Protocol-Version".to_string(),
                self.p.as_str().to_string(),
            ),
        ];
        headers.extend(self.cfg.headers.iter().cloned());
        let out = Outgoing {
            method: "DELETE",
            headers: &headers,
            body: None,
            rpc_id: None,
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
            note,
        });
    }

    // -----------------------------------------------------------------------------------
    // tools/call, both revisions

    fn planned_calls(&self) -> Vec<PlannedCall> {
        let mut calls: Vec<PlannedCall> = self
            .cfg
            .calls
            .iter()
            .map(|c| PlannedCall {
                name: c.name.clone(),
                arguments: Some(c.arguments.clone().unwrap_or_else(|| json!({}))),
                kind: CallKind::Named,
            })
            .collect();
        if self.cfg.auto_calls {
            calls.extend(plan::auto_calls(
                &self.run.tools,
                self.cfg.allow_side_effects,
            ));
        }
        calls
    }

    fn calls(&mut self) {
        for call in self.planned_calls() {
            self.call(&call);
            if self.run.unreachable.is_some() {
                return;
            }
        }
    }

    fn call(&mut self, call: &PlannedCall) {
        let label = call.label();
        let tool_def = self
            .run
            .tools
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(call.name.as_str()))
            .cloned();
        let mut params = Map::new();
        params.insert("name".into(), json!(call.name));
        if let Some(a) = &call.arguments {
            params.insert("arguments".into(), a.clone());
        }
        let mut call_statuses: Vec<u16> = Vec::new();
        let mut call_posts = 0u32;
        let mut round = 1u32;
        loop {
            let id = self.id();
            let mut p = params.clone();
            let mut meta = match self.p {
                Protocol::V2026_07_28 => self.meta(),
                Protocol::V2025_11_25 => json!({}),
            };
            // Ask for progress, so that servers may stream notifications/progress.
            meta["progressToken"] = json!(format!("mcp-verdict-probe-{id}"));
            p.insert("_meta".into(), meta);
            let body = json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": p});
            let mut headers = self.headers("tools/call", Some(&call.name));
            if self.p == Protocol::V2026_07_28 {
                headers.extend(plan::param_headers(
                    tool_def.as_ref().and_then(|t| t.get("inputSchema")),
                    call.arguments.as_ref(),
                ));
            }
            let before = self.run.post_count();
            let mut answered = Vec::new();
            let res = self.send(&body, &headers, Some(&call.name), &mut answered);
            call_posts += self.run.post_count() - before;
            for s in
                &self.run.steps[self.run.steps.len() - (self.run.post_count() - before) as usize..]
            {
                if let Some(st) = s.status {
                    call_statuses.push(st);
                }
            }
            let r = match res {
                Ok(r) => r,
                Err(e) => {
                    self.run.failures.push((label.clone(), e.to_string()));
                    return;
                }
            };
            let exchange = self.exchange_of(&label, round, &headers, &body, &r, tool_def.clone());
            let judgement = judge(
                &exchange,
                &Options {
                    protocols: Some(single(self.p)),
                    ..Options::default()
                },
            )
            .expect("the revision is given explicitly");
            let outcome = judgement.verdicts[0].outcome;
            let mut x = CallExchange {
                label: label.clone(),
                call: call.clone(),
                round,
                exchange,
                judgement,
                steps_so_far: self.run.steps.len(),
                call_posts,
                call_statuses: call_statuses.clone(),
                end_note: r.end_note.clone(),
                server_requests: answered,
                follow_up: None,
            };
            let next = if self.p == Protocol::V2026_07_28 && outcome == Outcome::InputRequired {
                match self.follow_up(&r, round) {
                    Ok(extra) => Some(extra),
                    Err(why) => {
                        x.follow_up = Some(why);
                        None
                    }
                }
            } else {
                None
            };
            self.run.exchanges.push(x);
            let Some(extra) = next else { return };
            params.remove("inputResponses");
            params.remove("requestState");
            params.extend(extra);
            round += 1;
        }
    }

    /// The members a follow-up request adds (`inputResponses`, `requestState`), or why none
    /// is sent.
    fn follow_up(&self, r: &Received, round: u32) -> Result<Map<String, Value>, String> {
        let result = r
            .final_message
            .as_ref()
            .and_then(|m| m.get("result"))
            .ok_or_else(|| "the input_required result could not be read".to_string())?;
        if round >= self.cfg.max_rounds {
            return Err(format!(
                "not followed up: --max-rounds {} reached",
                self.cfg.max_rounds
            ));
        }
        let requests = result.get("inputRequests").and_then(Value::as_object);
        let state = result.get("requestState");
        let mut extra = Map::new();
        if let Some(reqs) = requests {
            let mut responses = Map::new();
            let mut missing = Vec::new();
            for (key, req) in reqs {
                let method = req.get("method").and_then(Value::as_str);
                match plan::answer_for(&self.cfg.answers, key, method) {
                    Some(a) => {
                        responses.insert(key.clone(), a.clone());
                    }
                    None => missing.push(format!("`{key}` ({})", method.unwrap_or("?"))),
                }
            }
            if !missing.is_empty() {
                return Err(format!(
                    "not followed up: no answer for input request {} (pass --answers FILE mapping the key or method to a response)",
                    missing.join(", ")
                ));
            }
            extra.insert("inputResponses".into(), Value::Object(responses));
        }
        match state {
            Some(s) => {
                extra.insert("requestState".into(), s.clone());
            }
            None if requests.is_none() => {
                return Err(
                    "not followed up: the result has neither inputRequests nor requestState".into(),
                );
            }
            None => {}
        }
        Ok(extra)
    }

    fn exchange_of(
        &self,
        label: &str,
        round: u32,
        sent: &[(String, String)],
        body: &Value,
        r: &Received,
        tool: Option<Value>,
    ) -> Exchange {
        let name = if round > 1 {
            format!("probe {} {label} round {round}", self.p)
        } else {
            format!("probe {} {label}", self.p)
        };
        Exchange {
            name: Some(name),
            request: RecordedRequest {
                method: Some("POST".into()),
                url: Some(self.url.to_string()),
                headers: Headers::new(plan::redact_headers(
                    sent.iter().map(|(n, v)| (n.as_str(), v.as_str())),
                )),
                body: Some(body.clone()),
            },
            status: r.status,
            response_headers: Headers::new(plan::redact_headers(r.headers.iter())),
            body: r.body.clone(),
            end: r.end,
            tool,
            protocol: Some(vec![self.p]),
        }
    }
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
                sanitize(&crate::engine::excerpt(&r.body, 120))
            ));
        }
    }
    if let Some(n) = &r.end_note {
        s.push_str(&format!("; {n}"));
    }
    s
}
