//! What to probe and how: the configuration a run starts from.

use serde_json::{Map, Value};

use super::transport::{Limits, StdioCommand, Timeouts};
use crate::vocab::Protocol;

/// `clientInfo.name` the probe reports (also its User-Agent product and the prefix of its
/// progress tokens).
pub(crate) const CLIENT_NAME: &str = "mcp-verdict-probe";

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
    /// The MCP endpoint URL; for a stdio server, the command as shown.
    pub url: String,
    /// A stdio server to launch and probe instead of the URL (one process per revision).
    pub stdio: Option<StdioCommand>,
    /// Revisions to probe under, in order.
    pub protocols: Vec<Protocol>,
    /// Tools to call, in order.
    pub calls: Vec<CallSpec>,
    /// Also make the calls that need no fixture tools (unknown tool, invalid arguments).
    pub auto_calls: bool,
    /// Let the invalid-arguments calls target tools not marked `readOnlyHint: true`.
    pub allow_side_effects: bool,
    /// Also send the requests that exercise the server's error paths (`--active`, see
    /// `probe::active`).
    pub active: bool,
    /// Answers to server input requests: input-request key or method → response object.
    pub answers: Map<String, Value>,
    /// Most `tools/call` requests sent for one call (the first and its follow-ups).
    pub max_rounds: u32,
    /// Extra header fields sent on every request (values redacted in records if secret).
    pub headers: Vec<(String, String)>,
    /// Deadlines per request.
    pub timeouts: Timeouts,
    /// The probe's overall deadline and the caps on one response.
    pub limits: Limits,
    /// How to authorize when the server asks (`None`: a 401 is reported as it is). Not used
    /// when `headers` carry an `Authorization` field of their own.
    pub auth: Option<crate::oauth::OAuthConfig>,
}

impl ProbeConfig {
    /// Defaults: both revisions, auto calls on, no answers, 3 rounds, default timeouts and
    /// limits.
    pub fn new(url: impl Into<String>) -> ProbeConfig {
        ProbeConfig {
            url: url.into(),
            stdio: None,
            protocols: Protocol::all().collect(),
            calls: Vec::new(),
            auto_calls: true,
            allow_side_effects: false,
            active: false,
            answers: Map::new(),
            max_rounds: 3,
            headers: Vec::new(),
            timeouts: Timeouts::default(),
            limits: Limits::default(),
            auth: None,
        }
    }

    /// Defaults as [`ProbeConfig::new`], probing the stdio server `command` launches.
    pub fn stdio(command: StdioCommand) -> ProbeConfig {
        ProbeConfig {
            stdio: Some(command.clone()),
            ..ProbeConfig::new(command.display())
        }
    }
}
