//! Protocol revisions the engine can judge under.
//!
//! A revision is only a name here: everything that differs between revisions lives in data
//! (`schemas/<revision>/` and the rule table's `[[revision]]` profiles and per-revision rule
//! overrides). Adding a revision means adding a variant below, its schema file and its rules.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use strum::{AsRefStr, Display, EnumIter, EnumString, IntoStaticStr};

/// An MCP protocol revision.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Display,
    EnumString,
    EnumIter,
    AsRefStr,
    IntoStaticStr,
    Serialize,
    Deserialize,
    JsonSchema,
)]
pub enum Protocol {
    /// Revision 2025-11-25: sessions, `initialize`, resumable SSE, server requests on streams.
    #[strum(serialize = "2025-11-25")]
    #[serde(rename = "2025-11-25")]
    V2025_11_25,
    /// Revision 2026-07-28: stateless requests, `resultType`, multi round-trip requests.
    #[strum(serialize = "2026-07-28")]
    #[serde(rename = "2026-07-28")]
    V2026_07_28,
}

impl Protocol {
    /// Every revision, oldest first.
    pub fn all() -> impl Iterator<Item = Protocol> {
        <Protocol as strum::IntoEnumIterator>::iter()
    }

    /// This revision alone, as the list [`crate::judge::Options::protocols`] takes (borrowed
    /// for as long as a judgement may live).
    pub fn only(self) -> &'static [Protocol] {
        match self {
            Protocol::V2025_11_25 => &[Protocol::V2025_11_25],
            Protocol::V2026_07_28 => &[Protocol::V2026_07_28],
        }
    }

    /// The revision's name as it appears on the wire (`MCP-Protocol-Version`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Parses a wire name; `None` for revisions this tool does not judge.
    pub fn parse(name: &str) -> Option<Protocol> {
        name.trim().parse().ok()
    }

    /// Names of all supported revisions, for messages.
    pub fn names() -> String {
        Protocol::all()
            .map(Protocol::as_str)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Protocol versions of the `initialize` era that a server answering both eras may negotiate
/// (2025-11-25 and the revisions before it), newest first.
pub const INITIALIZE_ERA_VERSIONS: [&str; 4] =
    ["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// `_meta` keys MCP reserves (`io.modelcontextprotocol/` prefix) and the plain ones it defines.
pub mod meta {
    /// The per-request protocol version (2026-07-28).
    pub const PROTOCOL_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
    /// The per-request client capabilities (2026-07-28).
    pub const CLIENT_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";
    /// The client's identity, sent beside the capabilities (2026-07-28).
    pub const CLIENT_INFO: &str = "io.modelcontextprotocol/clientInfo";
    /// The server's identity in a result's `_meta` (2026-07-28).
    pub const SERVER_INFO: &str = "io.modelcontextprotocol/serverInfo";
    /// The per-request log level (2026-07-28).
    pub const LOG_LEVEL: &str = "io.modelcontextprotocol/logLevel";
    /// The token progress notifications refer to.
    pub const PROGRESS_TOKEN: &str = "progressToken";
}

/// HTTP header fields MCP's Streamable HTTP transport defines (names compare
/// case-insensitively).
pub mod header {
    /// The protocol revision of the request.
    pub const PROTOCOL_VERSION: &str = "MCP-Protocol-Version";
    /// The JSON-RPC method of the request body (2026-07-28).
    pub const METHOD: &str = "Mcp-Method";
    /// The tool, prompt or resource the request names (2026-07-28).
    pub const NAME: &str = "Mcp-Name";
    /// The session of a 2025-11-25 connection.
    pub const SESSION_ID: &str = "MCP-Session-Id";
    /// The prefix of the headers that mirror tool parameters (2026-07-28).
    pub const PARAM_PREFIX: &str = "Mcp-Param-";
    /// The origin of the page that sent the request (RFC 6454), which servers must validate.
    pub const ORIGIN: &str = "Origin";
}

/// JSON-RPC error codes: JSON-RPC 2.0's own and those MCP revisions define. Which names a
/// revision gives them is data (`rules/revisions.toml`); a test keeps the two in step.
pub mod code {
    /// Invalid JSON was received.
    pub const PARSE_ERROR: i64 = -32700;
    /// The JSON sent is not a valid request object.
    pub const INVALID_REQUEST: i64 = -32600;
    /// The method does not exist or is not available.
    pub const METHOD_NOT_FOUND: i64 = -32601;
    /// Invalid method parameters.
    pub const INVALID_PARAMS: i64 = -32602;
    /// Internal JSON-RPC error.
    pub const INTERNAL_ERROR: i64 = -32603;
    /// A resource that does not exist (2025-11-25).
    pub const RESOURCE_NOT_FOUND: i64 = -32002;
    /// Headers disagree with the body (2026-07-28).
    pub const HEADER_MISMATCH: i64 = -32020;
    /// The request lacks a client capability the server requires (2026-07-28).
    pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;
    /// The server does not support the request's protocol version (2026-07-28).
    pub const UNSUPPORTED_PROTOCOL_VERSION: i64 = -32022;
    /// A URL elicitation is required before the request can proceed (2025-11-25).
    pub const URL_ELICITATION_REQUIRED: i64 = -32042;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in Protocol::all() {
            assert_eq!(Protocol::parse(p.as_str()), Some(p));
            assert_eq!(p.to_string(), p.as_str());
        }
        assert_eq!(Protocol::parse("2025-06-18"), None);
        assert_eq!(Protocol::names(), "2025-11-25, 2026-07-28");
    }
}
