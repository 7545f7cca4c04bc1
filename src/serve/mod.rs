//! `serve`: an MCP Streamable HTTP server on loopback that behaves well by
//! default and injects one named fault [`Scenario`] at a time.
//!
//! Both protocol revisions are served on one endpoint and chosen per request:
//! a request whose `params._meta` carries `io.modelcontextprotocol/protocolVersion`
//! (or, without a session, an `MCP-Protocol-Version: 2026-07-28` header) is
//! served statelessly as 2026-07-28; `initialize` and `MCP-Session-Id` traffic
//! is served as 2025-11-25.
//!
//! # Behaviour worth knowing
//!
//! - **HTTP**: one thread per connection, HTTP/1.1 keep-alive and pipelining,
//!   `Expect: 100-continue`; chunked *request* bodies get `411`. Responses are
//!   written as raw bytes: `Content-Length` bodies, or chunked SSE with one event
//!   per chunk and a flush per event. A present `Origin` that is not a loopback
//!   origin (or one of [`ServeConfig::allowed_origins`]) gets `403` with a JSON-RPC
//!   error without `id`. GET gets `405`; DELETE terminates a 2025-11-25 session
//!   (`404` if unknown, `405` without `MCP-Session-Id`).
//! - **2026-07-28 validation order** (the spec leaves it open): required `_meta`
//!   fields (`400` + `-32602`), protocol version (`400` + `-32022`), standard
//!   headers `MCP-Protocol-Version` / `Mcp-Method` / `Mcp-Name` (`400` + `-32020`),
//!   method (`404` + `-32601`), then client capabilities (`400` + `-32021`).
//!   Other JSON-RPC errors (unknown tool, malformed `tools/call` params, a
//!   rejected `requestState`) go out with HTTP 200.
//! - **Confirmation** (`confirm_action`, and every tool under the
//!   `input_required` scenario): 2026-07-28 uses MRTR; the `requestState` is a
//!   base64url JSON payload (tool, digest of the arguments, id of the request
//!   that received it, 10-minute expiry) sealed with a keyed SipHash tag under a
//!   per-process random key. A retry must echo it, answer `inputResponses.confirm`
//!   and use a new id; a tampered, foreign, expired or reused-id state is rejected
//!   with a JSON-RPC error, a missing answer is asked for again. 2025-11-25 sends an
//!   `elicitation/create` request on the `tools/call` SSE stream and finishes the
//!   stream once the client POSTs its JSON-RPC response (or after the stall cap);
//!   URL-mode `-32042` is not used because a confirmation is not a URL interaction.
//!   Without the elicitation capability, 2026-07-28 answers `-32021` and
//!   2025-11-25 a tool result with `isError: true`.
//! - **Faults** replace the response to a `tools/call` that names a known tool
//!   and would otherwise be answered with a result; protocol errors (unknown tool,
//!   bad headers, bad state) go out unchanged. `http_status_sequence` and
//!   `rate_limited` act on every POST instead.
//! - **SSE**: 2025-11-25 streams start with a priming event (`id:` + empty
//!   `data:`), except in the stream-fault scenarios (`sse_close_early`,
//!   `sse_reset`, `sse_stall`, `sse_malformed_event`), where no event id is sent
//!   so that nothing invites a resumption the server does not offer. Progress
//!   notifications carry the request's `_meta.progressToken`; when it has none,
//!   the SSE scenarios use `mcp-verdict-progress-<request id>`.
//!
//! ```no_run
//! use mcp_verdict::serve::{self, ServeConfig};
//! let handle = serve::start(ServeConfig {
//!     scenario: "sse_reset".parse().unwrap(),
//!     ..ServeConfig::default()
//! })
//! .unwrap();
//! println!("{}", handle.url());
//! // ... drive a client against it ...
//! let records = handle.records();
//! handle.shutdown();
//! # let _ = records;
//! ```

pub mod cli;
mod http;
mod mcp;
pub mod scenario;
mod state;
pub mod tools;

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, mpsc};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use serde_json::Value;

pub use scenario::{Revision, SCENARIOS, Scenario, ScenarioInfo, ScenarioParseError};

use crate::diag::{DiagRecord, Side, StreamEnd, sanitize};
use http::{ReadResult, Request, SseWriter};
use mcp::{Answer, Exchange, Reply, SseEnd, SsePlan, SseStep};
use state::{Keys, Session};

/// The stateless revision.
pub const MODERN_VERSION: &str = "2026-07-28";
/// The initialize-based revision.
pub const LEGACY_VERSION: &str = "2025-11-25";
/// `serverInfo.name` the server reports.
pub const SERVER_NAME: &str = "mcp-verdict-serve";

/// How request responses are framed when a scenario does not decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum ResponseMode {
    /// One `application/json` object per response.
    #[default]
    Json,
    /// A `text/event-stream` with the response as its only message event.
    Sse,
}

/// Server configuration.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// Address to bind (default 127.0.0.1).
    pub host: IpAddr,
    /// Port to bind; 0 picks a free port.
    pub port: u16,
    /// Endpoint path (default `/mcp`).
    pub path: String,
    /// Fault scenario in force.
    pub scenario: Scenario,
    /// Framing of ordinary responses.
    pub response_mode: ResponseMode,
    /// Longest a stalled stream (and a wait for an elicitation answer) lasts.
    pub stall_cap: Duration,
    /// How long an idle keep-alive connection is kept open.
    pub idle_timeout: Duration,
    /// Extra `Origin` values accepted besides loopback origins (exact match).
    pub allowed_origins: Vec<String>,
    /// Append one JSON line per exchange to this file.
    pub log_path: Option<PathBuf>,
    /// Print a one-line summary of each exchange to stderr.
    pub echo_stderr: bool,
}

impl Default for ServeConfig {
    fn default() -> Self {
        Self {
            host: IpAddr::V4(Ipv4Addr::LOCALHOST),
            port: 0,
            path: "/mcp".into(),
            scenario: Scenario::Baseline,
            response_mode: ResponseMode::Json,
            stall_cap: Duration::from_secs(30),
            idle_timeout: Duration::from_secs(30),
            allowed_origins: Vec::new(),
            log_path: None,
            echo_stderr: false,
        }
    }
}

/// State shared by all connection threads.
pub(crate) struct Shared {
    pub config: ServeConfig,
    pub shutdown: AtomicBool,
    pub post_count: AtomicU64,
    pub serial: AtomicU64,
    pub orders: AtomicU64,
    pub records: Mutex<Vec<DiagRecord>>,
    pub records_changed: Condvar,
    pub log: Option<Mutex<File>>,
    pub sessions: Mutex<HashMap<String, Session>>,
    pub keys: Keys,
    pub tools: Vec<tools::Tool>,
}

impl Shared {
    /// A fresh number for event and request ids.
    pub fn next_serial(&self) -> u64 {
        self.serial.fetch_add(1, Ordering::SeqCst) + 1
    }
}

/// A running server. Dropping it shuts the server down.
pub struct ServerHandle {
    shared: Arc<Shared>,
    addr: SocketAddr,
    accept: Option<JoinHandle<()>>,
    conns: Arc<Mutex<Vec<JoinHandle<()>>>>,
}

impl ServerHandle {
    /// The bound address (with the real port when 0 was asked for).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The endpoint URL, e.g. `http://127.0.0.1:41234/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{}", self.addr, self.shared.config.path)
    }

    /// POSTs received on the endpoint so far (every POST counts).
    pub fn post_count(&self) -> u64 {
        self.shared.post_count.load(Ordering::SeqCst)
    }

    /// Orders created by the side-effecting `create_order` tool so far.
    pub fn orders_created(&self) -> u64 {
        self.shared.orders.load(Ordering::SeqCst)
    }

    /// Diagnostic records of the exchanges finished so far.
    ///
    /// A record is added once the server has finished writing the response,
    /// which can be a moment after the client has read it; use
    /// [`ServerHandle::wait_for_records`] to wait for it.
    pub fn records(&self) -> Vec<DiagRecord> {
        self.shared.records.lock().expect("records lock").clone()
    }

    /// Waits until at least `n` records exist (or `timeout` passes) and
    /// returns the records at that point.
    pub fn wait_for_records(&self, n: usize, timeout: Duration) -> Vec<DiagRecord> {
        let guard = self.shared.records.lock().expect("records lock");
        let (guard, _) = self
            .shared
            .records_changed
            .wait_timeout_while(guard, timeout, |r| r.len() < n)
            .expect("records lock");
        guard.clone()
    }

    /// The configuration in force.
    pub fn config(&self) -> &ServeConfig {
        &self.shared.config
    }

    /// Stops accepting, ends every connection and joins all threads.
    pub fn shutdown(mut self) {
        self.stop();
    }

    fn stop(&mut self) {
        if self.accept.is_none() {
            return;
        }
        self.shared.shutdown.store(true, Ordering::SeqCst);
        // Wake the blocking accept() with a throwaway connection.
        let wake = match self.addr.ip() {
            IpAddr::V4(ip) if ip.is_unspecified() => {
                SocketAddr::new(Ipv4Addr::LOCALHOST.into(), self.addr.port())
            }
            IpAddr::V6(ip) if ip.is_unspecified() => {
                SocketAddr::new(Ipv6Addr::LOCALHOST.into(), self.addr.port())
            }
            _ => self.addr,
        };
        let _ = TcpStream::connect_timeout(&wake, Duration::from_secs(1));
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
        let handles: Vec<JoinHandle<()>> =
            std::mem::take(&mut *self.conns.lock().expect("conns lock"));
        for h in handles {
            let _ = h.join();
        }
    }
}

impl Drop for ServerHandle {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Binds the listener and starts serving in background threads.
pub fn start(config: ServeConfig) -> io::Result<ServerHandle> {
    let listener = TcpListener::bind(SocketAddr::new(config.host, config.port))?;
    let addr = listener.local_addr()?;
    let log = match &config.log_path {
        Some(p) => Some(Mutex::new(
            OpenOptions::new().create(true).append(true).open(p)?,
        )),
        None => None,
    };
    let shared = Arc::new(Shared {
        config,
        shutdown: AtomicBool::new(false),
        post_count: AtomicU64::new(0),
        serial: AtomicU64::new(0),
        orders: AtomicU64::new(0),
        records: Mutex::new(Vec::new()),
        records_changed: Condvar::new(),
        log,
        sessions: Mutex::new(HashMap::new()),
        keys: Keys::new(),
        tools: tools::catalogue(),
    });
    let conns: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::new(Mutex::new(Vec::new()));
    let accept = {
        let shared = Arc::clone(&shared);
        let conns = Arc::clone(&conns);
        thread::Builder::new()
            .name("mcp-serve-accept".into())
            .spawn(move || accept_loop(listener, shared, conns))?
    };
    Ok(ServerHandle {
        shared,
        addr,
        accept: Some(accept),
        conns,
    })
}

fn accept_loop(listener: TcpListener, shared: Arc<Shared>, conns: Arc<Mutex<Vec<JoinHandle<()>>>>) {
    for conn in listener.incoming() {
        if shared.shutdown.load(Ordering::SeqCst) {
            break;
        }
        let stream = match conn {
            Ok(s) => s,
            Err(_) => {
                thread::sleep(Duration::from_millis(10));
                continue;
            }
        };
        let shared2 = Arc::clone(&shared);
        let spawned = thread::Builder::new()
            .name("mcp-serve-conn".into())
            .spawn(move || serve_connection(shared2, stream));
        if let Ok(h) = spawned {
            let mut list = conns.lock().expect("conns lock");
            // Reap finished threads so a long run does not accumulate handles.
            let (done, live): (Vec<_>, Vec<_>) = list.drain(..).partition(|h| h.is_finished());
            for h in done {
                let _ = h.join();
            }
            *list = live;
            list.push(h);
        }
    }
}

/// What the connection must do after a response.
#[derive(PartialEq, Eq)]
enum After {
    KeepOpen,
    Close,
    Reset,
}

fn serve_connection(shared: Arc<Shared>, mut stream: TcpStream) {
    let _ = stream.set_nodelay(true);
    let _ = stream.set_read_timeout(Some(http::POLL));
    let _ = stream.set_write_timeout(Some(Duration::from_secs(10)));
    let mut buf = Vec::new();
    loop {
        let _ = stream.set_read_timeout(Some(http::POLL));
        let req = match http::read_request(
            &mut stream,
            &mut buf,
            &shared.shutdown,
            shared.config.idle_timeout,
        ) {
            Ok(ReadResult::Request(r)) => r,
            Ok(ReadResult::Closed) | Err(_) => return,
            Ok(ReadResult::Reject(status, why)) => {
                let _ = http::write_full(
                    &mut stream,
                    status,
                    Some("text/plain; charset=utf-8"),
                    &[],
                    format!("{why}\n").as_bytes(),
                    true,
                );
                return;
            }
        };
        let keep_alive = req.wants_keep_alive();
        match handle_request(&shared, &mut stream, req) {
            After::KeepOpen if keep_alive && !shared.shutdown.load(Ordering::SeqCst) => continue,
            After::Reset => {
                http::reset(stream);
                return;
            }
            _ => return,
        }
    }
}

/// Whether an `Origin` value is acceptable: loopback hosts, or configured.
fn origin_allowed(config: &ServeConfig, origin: &str) -> bool {
    if config.allowed_origins.iter().any(|o| o == origin) {
        return true;
    }
    let Some((_, rest)) = origin.split_once("://") else {
        return false;
    };
    let host_port = rest.split('/').next().unwrap_or("");
    let host = if let Some(v6) = host_port.strip_prefix('[') {
        v6.split(']').next().unwrap_or("")
    } else {
        host_port.split(':').next().unwrap_or("")
    };
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

fn handle_request(shared: &Arc<Shared>, stream: &mut TcpStream, req: Request) -> After {
    let config = &shared.config;
    let chunked = req.minor_version >= 1;
    if req.path != config.path {
        let body = format!("Not Found: the MCP endpoint is {}\n", config.path);
        return match http::write_full(
            stream,
            404,
            Some("text/plain; charset=utf-8"),
            &[],
            body.as_bytes(),
            false,
        ) {
            Ok(()) => After::KeepOpen,
            Err(_) => After::Close,
        };
    }
    let post_no = if req.method == "POST" {
        shared.post_count.fetch_add(1, Ordering::SeqCst) + 1
    } else {
        0
    };
    let (reply, exchange) = if let Some(origin) =
        req.header("origin").filter(|o| !origin_allowed(config, o))
    {
        let msg = serde_json::json!({
            "jsonrpc": "2.0",
            "error": {"code": -32600, "message": format!("Forbidden: Origin '{origin}' is not allowed")}
        });
        (
            Reply::Full {
                status: 403,
                content_type: Some("application/json".into()),
                headers: Vec::new(),
                body: msg.to_string().into_bytes(),
                close: false,
                final_response: false,
                message: Some(msg),
            },
            Exchange::default(),
        )
    } else {
        match req.method.as_str() {
            "POST" => mcp::handle_post(shared, &req, post_no),
            "DELETE" => mcp::handle_delete(shared, &req),
            _ => (mcp::method_not_allowed(), Exchange::default()),
        }
    };
    let mut record = DiagRecord::new(Side::Serve);
    record.client = exchange.client;
    record.protocol_version = exchange.protocol_version;
    record.scenario = Some(config.scenario.to_string());
    record.method = exchange.method;
    record.post_count = post_no;
    record.jsonrpc.id = exchange.id;
    let after = execute(shared, stream, reply, chunked, &mut record);
    record.ts = crate::diag::now_rfc3339();
    push_record(shared, record);
    after
}

/// Copies a message's error / resultType facts into the record.
fn note_message(record: &mut DiagRecord, msg: &Value) {
    if let Some(err) = msg.get("error") {
        record.jsonrpc.error_code = err.get("code").and_then(Value::as_i64);
        record.jsonrpc.error_message = err.get("message").and_then(Value::as_str).map(sanitize);
    }
    if let Some(rt) = msg
        .get("result")
        .and_then(|r| r.get("resultType"))
        .and_then(Value::as_str)
    {
        record.result_type = Some(rt.to_string());
    }
}

fn is_response(msg: &Value) -> bool {
    msg.get("method").is_none() && (msg.get("result").is_some() || msg.get("error").is_some())
}

fn execute(
    shared: &Arc<Shared>,
    stream: &mut TcpStream,
    reply: Reply,
    chunked: bool,
    record: &mut DiagRecord,
) -> After {
    match reply {
        Reply::Full {
            status,
            content_type,
            headers,
            body,
            close,
            final_response,
            message,
        } => {
            record.http_statuses = vec![status];
            record.content_type = content_type.clone();
            if let Some(m) = &message {
                note_message(record, m);
            }
            match http::write_full(
                stream,
                status,
                content_type.as_deref(),
                &headers,
                &body,
                close,
            ) {
                Ok(()) => {
                    record.final_response = final_response;
                    record.stream_end = StreamEnd::Complete;
                    if close { After::Close } else { After::KeepOpen }
                }
                Err(_) => {
                    record.stream_end = StreamEnd::Eof;
                    After::Close
                }
            }
        }
        Reply::Sse(plan) => run_sse(shared, stream, plan, chunked, record),
    }
}

/// Writes one event and notes it in the record; false if the write failed.
fn send_event(
    w: &mut SseWriter<'_>,
    record: &mut DiagRecord,
    id: Option<&str>,
    data: &str,
    msg: Option<&Value>,
) -> bool {
    if w.event(id, data).is_err() {
        return false;
    }
    record.sse_event_count = Some(w.events);
    if let Some(m) = msg
        && is_response(m)
    {
        record.final_response = true;
        note_message(record, m);
    }
    true
}

fn run_sse(
    shared: &Arc<Shared>,
    stream: &mut TcpStream,
    plan: SsePlan,
    chunked: bool,
    record: &mut DiagRecord,
) -> After {
    record.http_statuses = vec![200];
    record.content_type = Some("text/event-stream".into());
    record.sse_event_count = Some(0);
    // A close-delimited body (HTTP/1.0) always ends the connection.
    let close = !matches!(plan.end, SseEnd::Finish) || !chunked;
    let mut w = match SseWriter::start(stream, 200, &plan.headers, chunked, close) {
        Ok(w) => w,
        Err(_) => {
            record.stream_end = StreamEnd::Eof;
            return After::Close;
        }
    };
    let mut broken = false;
    if let Some(pid) = &plan.priming_id {
        broken = !send_event(&mut w, record, Some(pid), "", None);
    }
    for step in plan.steps {
        if broken {
            // Release a pending server request the stream can no longer serve.
            if let SseStep::Await { session, key, .. } = step {
                forget_pending(shared, &session, &key);
            }
            continue;
        }
        match step {
            SseStep::Message(m) => {
                broken = !send_event(&mut w, record, None, &m.to_string(), Some(&m))
            }
            SseStep::RawData(d) => broken = !send_event(&mut w, record, None, &d, None),
            SseStep::Await {
                rx,
                session,
                key,
                limit,
                then,
            } => {
                let answer = await_answer(shared, w.stream(), &rx, limit);
                forget_pending(shared, &session, &key);
                match answer {
                    Some(a) => {
                        if matches!(a, Answer::Timeout) {
                            record.stream_end = StreamEnd::Timeout;
                        }
                        let m = then(a);
                        broken = !send_event(&mut w, record, None, &m.to_string(), Some(&m));
                    }
                    None => broken = true,
                }
            }
        }
    }
    if broken {
        record.stream_end = StreamEnd::Eof;
        record.final_response = false;
        return After::Close;
    }
    match plan.end {
        SseEnd::Finish | SseEnd::FinishAndClose => {
            if w.finish().is_err() {
                record.stream_end = StreamEnd::Eof;
                return After::Close;
            }
            if record.stream_end != StreamEnd::Timeout {
                record.stream_end = if record.final_response {
                    StreamEnd::Complete
                } else {
                    StreamEnd::Eof
                };
            }
            if close { After::Close } else { After::KeepOpen }
        }
        SseEnd::ResetMidEvent(data) => {
            let _ = w.partial_event(&data);
            // Give the peer a moment to read the partial bytes before the RST.
            thread::sleep(Duration::from_millis(20));
            record.stream_end = StreamEnd::Reset;
            record.final_response = false;
            After::Reset
        }
        SseEnd::Stall(limit) => {
            http::wait_for_peer_close(w.stream(), limit, &shared.shutdown);
            record.stream_end = StreamEnd::Stall;
            record.final_response = false;
            After::Close
        }
    }
}

/// Waits for the client's answer to a server request. None: the client went
/// away or the server is stopping.
fn await_answer(
    shared: &Shared,
    stream: &mut TcpStream,
    rx: &mpsc::Receiver<Value>,
    limit: Duration,
) -> Option<Answer> {
    let deadline = Instant::now() + limit;
    loop {
        match rx.recv_timeout(http::POLL) {
            Ok(v) => return Some(Answer::Response(v)),
            Err(mpsc::RecvTimeoutError::Disconnected) => return Some(Answer::Timeout),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        if shared.shutdown.load(Ordering::SeqCst) || peer_closed(stream) {
            return None;
        }
        if Instant::now() >= deadline {
            return Some(Answer::Timeout);
        }
    }
}

/// Non-blocking check whether the peer has closed the connection.
fn peer_closed(stream: &TcpStream) -> bool {
    let mut b = [0u8; 1];
    if stream.set_nonblocking(true).is_err() {
        return false;
    }
    let closed = match stream.peek(&mut b) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => !http::is_timeout(&e),
    };
    let _ = stream.set_nonblocking(false);
    closed
}

fn forget_pending(shared: &Shared, session: &str, key: &str) {
    if let Some(s) = shared
        .sessions
        .lock()
        .expect("sessions lock")
        .get_mut(session)
    {
        s.pending.remove(key);
    }
}

fn push_record(shared: &Shared, record: DiagRecord) {
    if let Some(log) = &shared.log {
        let mut f = log.lock().expect("log lock");
        let _ = writeln!(f, "{}", record.to_json_line());
        let _ = f.flush();
    }
    if shared.config.echo_stderr {
        let statuses: Vec<String> = record.http_statuses.iter().map(u16::to_string).collect();
        eprintln!(
            "POST#{} {} {} -> {} {} end={:?}{}",
            record.post_count,
            record.protocol_version.as_deref().unwrap_or("?"),
            record.method.as_deref().unwrap_or("-"),
            statuses.join(","),
            record.content_type.as_deref().unwrap_or("(no body)"),
            record.stream_end,
            record
                .jsonrpc
                .error_code
                .map(|c| format!(" error={c}"))
                .unwrap_or_default()
        );
    }
    shared.records.lock().expect("records lock").push(record);
    shared.records_changed.notify_all();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins() {
        let c = ServeConfig {
            allowed_origins: vec!["https://app.example".into()],
            ..ServeConfig::default()
        };
        for ok in [
            "http://localhost:3000",
            "http://127.0.0.1",
            "http://[::1]:8080",
            "https://LOCALHOST",
            "https://app.example",
            "http://127.5.6.7:1",
        ] {
            assert!(origin_allowed(&c, ok), "{ok}");
        }
        for bad in [
            "null",
            "http://evil.example",
            "http://localhost.evil.example",
            "http://127.0.0.1.evil.example",
            "https://app.example:444",
        ] {
            assert!(!origin_allowed(&c, bad), "{bad}");
        }
    }
}
