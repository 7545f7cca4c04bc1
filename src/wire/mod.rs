//! The wire: the recorded exchange and its file format, and the revision-independent reading
//! of its bytes (media type, UTF-8, JSON, repeated keys), with the transport bindings beside
//! each other: HTTP bodies and SSE events, stdio lines.

pub mod analysis;
pub mod auth;
pub mod auth_record;
pub mod deep;
pub mod exchange;
pub mod headers;
pub mod hints;
pub(crate) mod jsondup;
pub mod jsonref;
pub(crate) mod jsonstr;
pub mod message;
pub mod number;
pub mod origin;
pub mod param_headers;
pub mod sse;
pub mod stdio;
pub mod stream;
pub mod surrogate;
pub mod tape;
pub(crate) mod utf8;

/// The first `max` characters of a body, lossily decoded, with control characters shown.
pub fn excerpt(bytes: &[u8], max: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out: String = text
        .chars()
        .take(max)
        .map(|c| match c {
            '\n' => '⏎',
            c if c.is_control() => '·',
            c => c,
        })
        .collect();
    if text.chars().count() > max {
        out.push('…');
    }
    out
}
