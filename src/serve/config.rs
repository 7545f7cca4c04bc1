//! What a server is told: the configuration every binding and the dialogue read, with its
//! defaults.

use std::net::{IpAddr, Ipv4Addr};
use std::path::PathBuf;
use std::time::Duration;

use super::scenario::Scenario;

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
    /// Diagnostic records kept in memory for [`super::ServerHandle::records`], the most recent
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
