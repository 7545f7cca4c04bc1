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
//! - **HTTP**: one thread per connection, at most
//!   [`ServeConfig::max_connections`] at once (a connection past the cap is answered `503`
//!   with `Retry-After: 1` and closed), HTTP/1.1 keep-alive and pipelining,
//!   `Expect: 100-continue`; chunked *request* bodies get `411`, differing `Content-Length`
//!   values `400`, a request head over 64 KiB (65,536 bytes) or 96 fields `431`, a body
//!   over 4 MiB `413`. After a rejection the server stops writing and reads (and discards)
//!   what the client still sends, up to 16 MiB or 5 seconds, so that the client reads the
//!   answer rather than a reset.
//! - **Bounded memory**: the diagnostic records [`ServerHandle::records`] returns are the
//!   last [`ServeConfig::keep_records`] (every record still goes to the log file); a
//!   2025-11-25 session idle for [`ServeConfig::session_ttl`] expires, and past
//!   [`ServeConfig::max_sessions`] the least recently used one is dropped (a request naming
//!   either gets `404`, as for any unknown session). Responses are
//!   written as raw bytes: `Content-Length` bodies, or chunked SSE with one event
//!   per chunk and a flush per event. A present `Origin` that is not a loopback
//!   origin (or one of [`ServeConfig::allowed_origins`]) gets `403` with a JSON-RPC
//!   error without `id`. GET gets `405`; DELETE terminates a 2025-11-25 session
//!   (`404` if unknown, `405` without `MCP-Session-Id`).
//! - **2026-07-28 validation order** (the spec leaves it open; this is the order
//!   the official conformance suite expects): required `_meta` fields (`400` +
//!   `-32602`), standard headers `MCP-Protocol-Version` / `Mcp-Method` /
//!   `Mcp-Name` against the body (`400` + `-32020`, so a header version that
//!   contradicts `_meta` is a mismatch even when `_meta` names an unsupported
//!   version), protocol version (`400` + `-32022`), method (`404` + `-32601`;
//!   `initialize` under 2026-07-28 too), then client capabilities (`400` +
//!   `-32021`).
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
//! - **Conformance tool set** (`--scenario baseline:tools=conformance`): besides the five
//!   baseline tools, the fixtures the official MCP conformance suite calls (tools named
//!   `test_*` and `json_schema_2020_12_tool`, prompts, `test://` resources and a template,
//!   `completion/complete`; `logging/setLevel` and `resources/subscribe` under 2025-11-25;
//!   caching hints on 2026-07-28 list and read results). Plain `baseline` offers none of them
//!   and declares only the tools capability.
//! - **`Mcp-Param-{Name}`** (2026-07-28): a `tools/call` whose tool annotates a parameter with
//!   `x-mcp-header` has that header checked against the argument (`400` + `-32020`).
//! - **SSE**: 2025-11-25 streams start with a priming event (`id:` + empty
//!   `data:`), except in the stream-fault scenarios (`sse_close_early`,
//!   `sse_reset`, `sse_stall`, `sse_malformed_event`), where no event id is sent
//!   so that nothing invites a resumption the server does not offer. Progress
//!   notifications carry the request's `_meta.progressToken`; when it has none,
//!   the SSE scenarios use `mcp-verdict-progress-<request id>`.
//!
//! # Layout
//!
//! This file is the public face: configuration, [`start`] and [`ServerHandle`].
//! `connection` accepts connections and routes requests; `dispatch` checks the
//! JSON-RPC envelope and picks the revision; `v2026_07_28` and `v2025_11_25`
//! hold the two dialogues; `tools_call` and `input_required` answer `tools/call`;
//! `faults` injects the scenario in force; `fixtures` is the conformance tool set.
//! Handlers plan a whole reply (`reply`) before `execute` and `http` put it on the wire. `scenario` and
//! `scenario_table` describe the scenarios, `state` keeps sessions and seals
//! `requestState`, `tools` are the tools and `cli` is the command line.
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

mod call;
mod connection;
mod dispatch;
mod exchange;
mod execute;
mod faults;
mod fixtures;
pub(crate) mod http;
mod input_required;
mod judged;
mod reply;
mod scenario;
mod scenario_table;
mod state;
mod tools;
mod tools_call;
mod v2025_11_25;
mod v2026_07_28;

use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::{self, JoinHandle};
use std::time::Duration;

pub use scenario::{Lenient, Scenario, ScenarioParseError};
pub use scenario_table::{SCENARIOS, ScenarioInfo, render_list};

use crate::views::diag::DiagRecord;
use state::{Keys, Sessions};

/// How request responses are framed when a scenario does not decide.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
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
    /// Most connections served at once (default 256); one past it is answered `503` with
    /// `Retry-After` and closed.
    pub max_connections: usize,
    /// Diagnostic records kept in memory for [`ServerHandle::records`], the most recent
    /// (default 1,000; the log file gets every one).
    pub keep_records: usize,
    /// A 2025-11-25 session unused this long expires (default 10 minutes).
    pub session_ttl: Duration,
    /// Most 2025-11-25 sessions kept (default 1,000); past it the least recently used goes.
    pub max_sessions: usize,
}

/// Default for [`ServeConfig::max_connections`].
pub const DEFAULT_MAX_CONNECTIONS: usize = 256;
/// Default for [`ServeConfig::keep_records`].
pub const DEFAULT_KEEP_RECORDS: usize = 1_000;
/// Default for [`ServeConfig::session_ttl`]: 10 minutes.
pub const DEFAULT_SESSION_TTL: Duration = Duration::from_secs(600);
/// Default for [`ServeConfig::max_sessions`].
pub const DEFAULT_MAX_SESSIONS: usize = 1_000;

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
            max_connections: DEFAULT_MAX_CONNECTIONS,
            keep_records: DEFAULT_KEEP_RECORDS,
            session_ttl: DEFAULT_SESSION_TTL,
            max_sessions: DEFAULT_MAX_SESSIONS,
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
    pub records: Mutex<Records>,
    pub records_changed: Condvar,
    pub log: Option<Mutex<File>>,
    pub sessions: Mutex<Sessions>,
    /// Connections being served now.
    pub active: AtomicUsize,
    pub keys: Keys,
    pub tools: Vec<tools::Tool>,
    /// The conformance fixture set, when the scenario asks for it.
    pub fixtures: Option<fixtures::Fixtures>,
}

/// The most recent diagnostic records, and how many there have been.
#[derive(Default)]
pub(crate) struct Records {
    pub recent: VecDeque<DiagRecord>,
    pub total: usize,
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

    /// Diagnostic records of the exchanges finished so far, the last
    /// [`ServeConfig::keep_records`] of them, oldest first.
    ///
    /// A record is added once the server has finished writing the response,
    /// which can be a moment after the client has read it; use
    /// [`ServerHandle::wait_for_records`] to wait for it.
    pub fn records(&self) -> Vec<DiagRecord> {
        let r = self.shared.records.lock().expect("records lock");
        r.recent.iter().cloned().collect()
    }

    /// Exchanges recorded since the start (records dropped from memory included).
    pub fn records_total(&self) -> usize {
        self.shared.records.lock().expect("records lock").total
    }

    /// Waits until at least `n` exchanges have been recorded (or `timeout` passes) and
    /// returns the records kept at that point (see [`ServerHandle::records`]).
    pub fn wait_for_records(&self, n: usize, timeout: Duration) -> Vec<DiagRecord> {
        let guard = self.shared.records.lock().expect("records lock");
        let (guard, _) = self
            .shared
            .records_changed
            .wait_timeout_while(guard, timeout, |r| r.total < n)
            .expect("records lock");
        guard.recent.iter().cloned().collect()
    }

    /// 2025-11-25 sessions held now (expired ones are dropped as requests arrive).
    pub fn session_count(&self) -> usize {
        self.shared.sessions.lock().expect("sessions lock").len()
    }

    /// Connections being served now.
    pub fn active_connections(&self) -> usize {
        self.shared.active.load(Ordering::SeqCst)
    }

    /// The configuration in force.
    pub fn config(&self) -> &ServeConfig {
        &self.shared.config
    }

    /// Stops accepting, ends every connection and joins all threads.
    pub fn shutdown(mut self) {
        self.stop();
    }

    /// Shuts the server down (every connection finished) and returns the records kept, the
    /// last exchanges included.
    pub fn shutdown_with_records(mut self) -> Vec<DiagRecord> {
        self.stop();
        self.records()
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
    let sessions = Sessions::new(config.session_ttl, config.max_sessions);
    let fixtures = matches!(
        config.scenario,
        Scenario::BaselineConformance | Scenario::Lenient(Lenient::ParamHeader)
    )
    .then(fixtures::Fixtures::new);
    let shared = Arc::new(Shared {
        config,
        shutdown: AtomicBool::new(false),
        post_count: AtomicU64::new(0),
        serial: AtomicU64::new(0),
        orders: AtomicU64::new(0),
        records: Mutex::new(Records::default()),
        records_changed: Condvar::new(),
        log,
        sessions: Mutex::new(sessions),
        active: AtomicUsize::new(0),
        keys: Keys::new(),
        tools: tools::catalogue(),
        fixtures,
    });
    let conns: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::new(Mutex::new(Vec::new()));
    let accept = {
        let shared = Arc::clone(&shared);
        let conns = Arc::clone(&conns);
        thread::Builder::new()
            .name("mcp-serve-accept".into())
            .spawn(move || connection::accept_loop(listener, shared, conns))?
    };
    Ok(ServerHandle {
        shared,
        addr,
        accept: Some(accept),
        conns,
    })
}
