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
}

impl Incoming<'_> {
    /// First header field with this name (case-insensitive), raw bytes.
    pub fn header_bytes(&self, name: &str) -> Option<&[u8]> {
        self.fields?
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_slice())
    }

    /// First header field with this name as text (None if absent or not UTF-8).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.header_bytes(name)
            .and_then(|v| std::str::from_utf8(v).ok())
            .map(str::trim)
    }
}
