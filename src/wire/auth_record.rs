//! What a client knew of a server's authorization when it sent a request, as an exchange file
//! records it (`auth`): plain data, below both the exchange and the rules that read it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What the client knew of the server's authorization when it sent the request: whether it
/// held a token, and the discovery documents it read (recorded with an exchange as `auth`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RecordedAuth {
    /// The client had been issued an access token for this server before it sent the request
    /// (the session had one): a request without it left it out. `false` when absent.
    #[serde(default, skip_serializing_if = "is_false")]
    pub authorized: bool,
    /// The protected resource metadata (RFC 9728) the client read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protected_resource_metadata: Option<RecordedDocument>,
    /// The authorization server metadata (RFC 8414 or OpenID Connect Discovery) it read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authorization_server_metadata: Option<RecordedDocument>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A discovery document and where it was read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordedDocument {
    /// The URL it was fetched from.
    pub url: String,
    /// The document as received (a JSON object).
    pub document: Value,
}

impl RecordedDocument {
    /// A string member.
    pub fn str(&self, name: &str) -> Option<&str> {
        self.document.get(name).and_then(Value::as_str)
    }
}
