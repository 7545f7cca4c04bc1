//! The wire: the recorded exchange and its file format, and the revision-independent reading
//! of its bytes (media type, UTF-8, JSON, SSE events, repeated keys).

pub mod analysis;
pub mod exchange;
pub(crate) mod jsondup;
pub mod sse;
pub(crate) mod utf8;
