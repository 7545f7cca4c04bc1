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
