//! What the server learns about one POST for its diagnostic record, and what kind of JSON-RPC
//! message the body holds.

use serde_json::Value;

use crate::views::diag::sanitize;

/// Facts about the exchange for the diagnostic record.
#[derive(Default, Clone)]
pub(crate) struct Exchange {
    pub client: Option<String>,
    pub protocol_version: Option<String>,
    pub method: Option<String>,
    pub id: Option<Value>,
}

/// Message kinds a POST body can hold.
pub(crate) enum Kind {
    Request,
    Notification,
    Response,
}

/// `name@version` of a `clientInfo` object, sanitised for the record.
pub(crate) fn client_label(info: Option<&Value>) -> Option<String> {
    let info = info?;
    let name = info.get("name")?.as_str()?;
    let label = match info.get("version").and_then(Value::as_str) {
        Some(v) => format!("{name}@{v}"),
        None => name.to_string(),
    };
    Some(sanitize(&label))
}
