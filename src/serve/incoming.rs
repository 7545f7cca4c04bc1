//! A message as the dialogue reads it: the body the client sent and, beside it, what the
//! binding carries with it (over HTTP: the header fields). The dialogue never learns more of
//! the binding than this.

/// One message from the client.
pub(crate) struct Incoming<'a> {
    /// The message's bytes as received.
    pub body: &'a [u8],
    /// The header fields sent with it, names as sent; `None` over a binding that has no
    /// such layer.
    pub fields: Option<&'a [(String, Vec<u8>)]>,
    /// The 2025-11-25 session the message belongs to, as the binding knows it: over HTTP
    /// the `MCP-Session-Id` field; over stdio the session the connection's `initialize`
    /// opened.
    pub session: Option<&'a str>,
}

impl Incoming<'_> {
    /// First header field with this name (case-insensitive), raw bytes.
    pub fn header_bytes(&self, name: &str) -> Option<&[u8]> {
        field_bytes(self.fields?, name)
    }

    /// First header field with this name as text (None if absent or not UTF-8).
    pub fn header(&self, name: &str) -> Option<&str> {
        field_text(self.fields?, name)
    }
}

/// First field with this name (case-insensitive) among `fields`, raw bytes.
pub(crate) fn field_bytes<'a>(fields: &'a [(String, Vec<u8>)], name: &str) -> Option<&'a [u8]> {
    fields
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_slice())
}

/// First field with this name among `fields` as trimmed text (None if absent or not UTF-8).
pub(crate) fn field_text<'a>(fields: &'a [(String, Vec<u8>)], name: &str) -> Option<&'a str> {
    field_bytes(fields, name)
        .and_then(|v| std::str::from_utf8(v).ok())
        .map(str::trim)
}
