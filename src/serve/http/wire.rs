//! Minimal HTTP/1.1 server plumbing: request parsing with `httparse`, and
//! responses written as raw bytes so that every fault is byte-exact.

use std::io::{self, Read, Write};
use std::net::TcpStream;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use crate::serve::incoming::{field_bytes, field_text};
use crate::vocab::http::{EVENT_STREAM, reason_phrase};

/// Largest request head accepted (request line, header fields and the blank line), in bytes:
/// a head of 65,536 bytes is read, one of 65,537 gets `431`.
pub(crate) const MAX_HEAD: usize = 64 * 1024;
/// Most header fields in a request head; more get `431`.
pub(crate) const MAX_HEADERS: usize = 96;
/// Largest request body accepted; a larger `Content-Length` gets `413`.
pub(crate) const MAX_BODY: usize = 4 * 1024 * 1024;
/// After a rejection, most request bytes read and discarded so that the client can read the
/// answer (a TCP close with unread bytes resets the connection, and a reset can discard the
/// answer before the client reads it).
pub(crate) const DRAIN_LIMIT: u64 = 16 * 1024 * 1024;
/// After a rejection, longest the request bytes are drained.
pub(crate) const DRAIN_TIME: Duration = Duration::from_secs(5);
/// How long a started request may take to arrive in full.
const REQUEST_DEADLINE: Duration = Duration::from_secs(10);
/// Poll interval for socket reads (lets threads notice shutdown).
pub(crate) const POLL: Duration = Duration::from_millis(50);

/// One parsed HTTP request.
#[derive(Debug, Clone)]
pub(crate) struct Request {
    pub method: String,
    /// Path without the query string.
    pub path: String,
    /// The query string, without its `?` (empty when there is none).
    pub query: String,
    /// Minor HTTP version (0 or 1).
    pub minor_version: u8,
    pub headers: Vec<(String, Vec<u8>)>,
    pub body: Vec<u8>,
}

impl Request {
    /// First header with this name (case-insensitive), raw bytes.
    pub fn header_bytes(&self, name: &str) -> Option<&[u8]> {
        field_bytes(&self.headers, name)
    }

    /// First header with this name as text (None if absent or not UTF-8).
    pub fn header(&self, name: &str) -> Option<&str> {
        field_text(&self.headers, name)
    }

    /// Whether the client asked to keep the connection open after this request.
    pub fn wants_keep_alive(&self) -> bool {
        let conn = self.header("connection").map(|v| v.to_ascii_lowercase());
        let has = |tok: &str| {
            conn.as_deref()
                .is_some_and(|c| c.split(',').any(|t| t.trim() == tok))
        };
        if self.minor_version == 0 {
            has("keep-alive")
        } else {
            !has("close")
        }
    }
}

/// What reading the next request produced.
pub(crate) enum ReadResult {
    /// A complete request.
    Request(Request),
    /// The peer closed the connection (or it idled out / the server is stopping).
    Closed,
    /// The request cannot be served; send this status + message and close.
    Reject(u16, &'static str),
}

/// What the bytes buffered so far make of a request head.
pub(crate) enum Head {
    /// A complete head: the request (its body still empty) and the head's length in bytes.
    Complete(Request, usize),
    /// More bytes are needed.
    Partial,
    /// The request cannot be served; send this status + message and close.
    Reject(u16, &'static str),
}

/// Parses the request head at the start of `buf` (no I/O): the request line and header fields
/// up to the blank line.
pub(crate) fn parse_head(buf: &[u8]) -> Head {
    let mut headers = [httparse::EMPTY_HEADER; MAX_HEADERS];
    let mut req = httparse::Request::new(&mut headers);
    match req.parse(buf) {
        Ok(httparse::Status::Complete(n)) if n > MAX_HEAD => {
            Head::Reject(431, "request head too large")
        }
        Ok(httparse::Status::Complete(n)) => {
            let method = req.method.unwrap_or("").to_string();
            let target = req.path.unwrap_or("");
            let target = target.split('#').next().unwrap_or("");
            let (path, query) = target.split_once('?').unwrap_or((target, ""));
            let (path, query) = (path.to_string(), query.to_string());
            let hs = req
                .headers
                .iter()
                .map(|h| (h.name.to_string(), h.value.to_vec()))
                .collect();
            Head::Complete(
                Request {
                    method,
                    path,
                    query,
                    minor_version: req.version.unwrap_or(1),
                    headers: hs,
                    body: Vec::new(),
                },
                n,
            )
        }
        Ok(httparse::Status::Partial) if buf.len() > MAX_HEAD => {
            Head::Reject(431, "request head too large")
        }
        Ok(httparse::Status::Partial) => Head::Partial,
        Err(httparse::Error::TooManyHeaders) => Head::Reject(431, "too many request headers"),
        Err(_) => Head::Reject(400, "malformed HTTP request"),
    }
}

/// How many body bytes follow a parsed head, or why the request cannot be served (no I/O).
pub(crate) fn body_length(req: &Request) -> Result<usize, (u16, &'static str)> {
    if let Some(te) = req.header("transfer-encoding")
        && !te.eq_ignore_ascii_case("identity")
    {
        return Err((
            411,
            "chunked (Transfer-Encoding) request bodies are not supported; send Content-Length",
        ));
    }
    let len = content_length(req).map_err(|why| (400, why))?;
    if len > MAX_BODY as u64 {
        return Err((413, "request body too large"));
    }
    Ok(len as usize)
}

/// What the bytes buffered so far make of the next request.
pub(crate) enum Parse {
    /// A complete request and how many bytes of the buffer it took (head and body).
    Request(Request, usize),
    /// More bytes are needed.
    Partial,
    /// The request cannot be served; send this status + message and close.
    Reject(u16, &'static str),
}

/// Parses the next request, head and body, from the bytes at the start of `buf`, as
/// [`read_request`] does from a connection (no I/O).
pub(crate) fn parse_request(buf: &[u8]) -> Parse {
    let (mut req, head_len) = match parse_head(buf) {
        Head::Complete(req, n) => (req, n),
        Head::Partial => return Parse::Partial,
        Head::Reject(status, why) => return Parse::Reject(status, why),
    };
    let len = match body_length(&req) {
        Ok(n) => n,
        Err((status, why)) => return Parse::Reject(status, why),
    };
    let rest = &buf[head_len..];
    if rest.len() < len {
        return Parse::Partial;
    }
    req.body = rest[..len].to_vec();
    Parse::Request(req, head_len + len)
}

/// Reads one request from `stream`. `buf` carries bytes already read past the
/// previous request (pipelining). Writes `100 Continue` when asked to.
pub(crate) fn read_request(
    stream: &mut TcpStream,
    buf: &mut Vec<u8>,
    shutdown: &AtomicBool,
    idle_timeout: Duration,
) -> io::Result<ReadResult> {
    let started = Instant::now();
    let mut first_byte_at: Option<Instant> = if buf.is_empty() { None } else { Some(started) };
    let mut chunk = [0u8; 16 * 1024];
    // Phase 1: the head.
    let (head_len, req_base) = loop {
        if !buf.is_empty() {
            match parse_head(buf) {
                Head::Complete(req, n) => break (n, req),
                Head::Partial => {}
                Head::Reject(status, why) => return Ok(ReadResult::Reject(status, why)),
            }
        }
        match read_some(stream, &mut chunk) {
            Ok(0) => return Ok(ReadResult::Closed),
            Ok(n) => {
                first_byte_at.get_or_insert_with(Instant::now);
                buf.extend_from_slice(&chunk[..n]);
            }
            Err(e) if is_timeout(&e) => {
                if shutdown.load(Ordering::SeqCst) {
                    return Ok(ReadResult::Closed);
                }
                match first_byte_at {
                    None if started.elapsed() >= idle_timeout => return Ok(ReadResult::Closed),
                    Some(t) if t.elapsed() >= REQUEST_DEADLINE => {
                        return Ok(ReadResult::Reject(408, "request not received in time"));
                    }
                    _ => {}
                }
            }
            Err(e) => return Err(e),
        }
    };
    let mut req = req_base;
    buf.drain(..head_len);

    // Phase 2: the body.
    let len = match body_length(&req) {
        Ok(n) => n,
        Err((status, why)) => return Ok(ReadResult::Reject(status, why)),
    };
    if len > buf.len()
        && req
            .header("expect")
            .is_some_and(|e| e.eq_ignore_ascii_case("100-continue"))
    {
        stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n")?;
    }
    let body_started = Instant::now();
    while buf.len() < len {
        match read_some(stream, &mut chunk) {
            Ok(0) => return Ok(ReadResult::Closed),
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
            Err(e) if is_timeout(&e) => {
                if shutdown.load(Ordering::SeqCst) {
                    return Ok(ReadResult::Closed);
                }
                if body_started.elapsed() >= REQUEST_DEADLINE {
                    return Ok(ReadResult::Reject(408, "request body not received in time"));
                }
            }
            Err(e) => return Err(e),
        }
    }
    req.body = buf.drain(..len).collect();
    Ok(ReadResult::Request(req))
}

/// The request's `Content-Length` (0 when absent). Every field and every comma-separated
/// member must be digits only, and all must agree (RFC 9112, section 6.3: differing values
/// are an unrecoverable error; identical repeats are accepted).
fn content_length(req: &Request) -> Result<u64, &'static str> {
    let mut found: Option<u64> = None;
    for (_, v) in req
        .headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("content-length"))
    {
        let text = std::str::from_utf8(v).map_err(|_| "invalid Content-Length")?;
        for member in text.split(',') {
            let member = member.trim_matches([' ', '\t']);
            if member.is_empty() || !member.bytes().all(|b| b.is_ascii_digit()) {
                return Err("invalid Content-Length");
            }
            let n: u64 = member.parse().map_err(|_| "invalid Content-Length")?;
            match found {
                Some(m) if m != n => return Err("differing Content-Length values"),
                _ => found = Some(n),
            }
        }
    }
    Ok(found.unwrap_or(0))
}

/// Ends a connection after a rejection has been written: no more writes, then the request
/// bytes still coming are read and discarded (up to [`DRAIN_LIMIT`] bytes or [`DRAIN_TIME`])
/// until the client closes, so that it can read the rejection instead of a reset.
pub(crate) fn drain_and_close(mut stream: TcpStream, shutdown: &AtomicBool) {
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let deadline = Instant::now() + DRAIN_TIME;
    let mut drained = 0u64;
    let mut scratch = [0u8; 16 * 1024];
    while drained < DRAIN_LIMIT && !shutdown.load(Ordering::SeqCst) {
        let now = Instant::now();
        if now >= deadline {
            break;
        }
        let _ =
            stream.set_read_timeout(Some(POLL.min(deadline - now).max(Duration::from_millis(1))));
        match stream.read(&mut scratch) {
            Ok(0) => break,
            Ok(n) => drained += n as u64,
            Err(e) if is_timeout(&e) || e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => break,
        }
    }
}

fn read_some(stream: &mut TcpStream, chunk: &mut [u8]) -> io::Result<usize> {
    loop {
        match stream.read(chunk) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            other => return other,
        }
    }
}

/// Whether an I/O error is a read timeout (platforms differ in the kind).
pub(crate) fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// Bytes of a response head: status line, the given headers, blank line.
pub(crate) fn head_bytes(status: u16, headers: &[(String, String)]) -> Vec<u8> {
    let mut out = format!("HTTP/1.1 {status} {}\r\n", reason_phrase(status)).into_bytes();
    for (k, v) in headers {
        out.extend_from_slice(k.as_bytes());
        out.extend_from_slice(b": ");
        out.extend_from_slice(v.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out
}

/// Writes a complete response with a `Content-Length` body.
/// `content_type` None means no `Content-Type` header.
pub(crate) fn write_full(
    stream: &mut TcpStream,
    status: u16,
    content_type: Option<&str>,
    extra: &[(String, String)],
    body: &[u8],
    close: bool,
) -> io::Result<()> {
    let mut headers: Vec<(String, String)> = Vec::with_capacity(extra.len() + 3);
    if let Some(ct) = content_type {
        headers.push(("Content-Type".into(), ct.into()));
    }
    headers.push(("Content-Length".into(), body.len().to_string()));
    headers.extend_from_slice(extra);
    if close {
        headers.push(("Connection".into(), "close".into()));
    }
    let mut bytes = head_bytes(status, &headers);
    bytes.extend_from_slice(body);
    stream.write_all(&bytes)?;
    stream.flush()
}

/// Frames `data` as one HTTP/1.1 chunk.
pub(crate) fn chunk_bytes(data: &[u8]) -> Vec<u8> {
    let mut out = format!("{:x}\r\n", data.len()).into_bytes();
    out.extend_from_slice(data);
    out.extend_from_slice(b"\r\n");
    out
}

/// One SSE event: optional `id:` line, then `data:` lines, then a blank line.
pub(crate) fn sse_event(id: Option<&str>, data: &str) -> String {
    let mut ev = String::new();
    if let Some(id) = id {
        ev.push_str("id: ");
        ev.push_str(id);
        ev.push('\n');
    }
    if data.is_empty() {
        ev.push_str("data: \n");
    } else {
        for line in data.split('\n') {
            ev.push_str("data: ");
            ev.push_str(line);
            ev.push('\n');
        }
    }
    ev.push('\n');
    ev
}

/// The header fields every SSE response starts with (framing fields aside).
pub(crate) fn sse_head_fields() -> Vec<(String, String)> {
    vec![
        ("Content-Type".into(), EVENT_STREAM.into()),
        ("Cache-Control".into(), "no-cache".into()),
        ("X-Accel-Buffering".into(), "no".into()),
    ]
}

/// Writer for an SSE response body, one event per chunk, flushed per event.
pub(crate) struct SseWriter<'a> {
    stream: &'a mut TcpStream,
    /// Chunked framing (HTTP/1.1); otherwise the body is close-delimited.
    chunked: bool,
    /// Complete events written so far.
    pub events: u64,
    /// A copy of the event-stream bytes written (without chunk framing), kept when asked for
    /// and up to [`SSE_COPY_CAP`] bytes, for judging what went out.
    copy: Option<Vec<u8>>,
    /// Whether bytes were left out of `copy` because of the cap.
    pub copy_cut: bool,
}

/// The most event-stream bytes an [`SseWriter`] keeps a copy of (1 MiB).
pub(crate) const SSE_COPY_CAP: usize = 1 << 20;

impl<'a> SseWriter<'a> {
    /// Writes the response head for an SSE stream.
    pub fn start(
        stream: &'a mut TcpStream,
        status: u16,
        extra: &[(String, String)],
        chunked: bool,
        close: bool,
    ) -> io::Result<Self> {
        let mut headers = sse_head_fields();
        if chunked {
            headers.push(("Transfer-Encoding".into(), "chunked".into()));
        }
        headers.extend_from_slice(extra);
        if close || !chunked {
            headers.push(("Connection".into(), "close".into()));
        }
        stream.write_all(&head_bytes(status, &headers))?;
        stream.flush()?;
        Ok(Self {
            stream,
            chunked,
            events: 0,
            copy: None,
            copy_cut: false,
        })
    }

    /// Keeps a copy of the event-stream bytes written from now on (see [`SseWriter::take_copy`]).
    pub fn keep_copy(&mut self) {
        self.copy.get_or_insert_with(Vec::new);
    }

    /// The copy kept since [`SseWriter::keep_copy`] (None if none was asked for).
    pub fn take_copy(&mut self) -> Option<Vec<u8>> {
        self.copy.take()
    }

    fn note(&mut self, bytes: &[u8]) {
        if let Some(c) = &mut self.copy {
            let room = SSE_COPY_CAP.saturating_sub(c.len());
            if bytes.len() > room {
                self.copy_cut = true;
            }
            c.extend_from_slice(&bytes[..bytes.len().min(room)]);
        }
    }

    /// Writes one complete event.
    pub fn event(&mut self, id: Option<&str>, data: &str) -> io::Result<()> {
        let ev = sse_event(id, data);
        self.raw(ev.as_bytes())?;
        self.note(ev.as_bytes());
        self.events += 1;
        Ok(())
    }

    /// Writes bytes as one chunk (or raw when close-delimited) and flushes.
    fn raw(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.chunked {
            self.stream.write_all(&chunk_bytes(bytes))?;
        } else {
            self.stream.write_all(bytes)?;
        }
        self.stream.flush()
    }

    /// Writes the start of an event and stops in the middle of it: with
    /// chunked framing the chunk header announces the whole event but only
    /// the first half of its bytes follow.
    pub fn partial_event(&mut self, data: &str) -> io::Result<()> {
        let ev = sse_event(None, data);
        let bytes = ev.as_bytes();
        let half = bytes.len() / 2;
        if self.chunked {
            let mut out = format!("{:x}\r\n", bytes.len()).into_bytes();
            out.extend_from_slice(&bytes[..half]);
            self.stream.write_all(&out)?;
        } else {
            self.stream.write_all(&bytes[..half])?;
        }
        self.note(&bytes[..half]);
        self.stream.flush()
    }

    /// Ends the body cleanly (zero-length chunk when chunked).
    pub fn finish(&mut self) -> io::Result<()> {
        if self.chunked {
            self.stream.write_all(b"0\r\n\r\n")?;
        }
        self.stream.flush()
    }

    /// The underlying stream.
    pub fn stream(&mut self) -> &mut TcpStream {
        self.stream
    }
}

/// Aborts the connection with a TCP reset: SO_LINGER 0, then close.
pub(crate) fn reset(stream: TcpStream) {
    let sock = socket2::SockRef::from(&stream);
    let _ = sock.set_linger(Some(Duration::ZERO));
    drop(stream);
}

/// Waits until the peer closes the connection, `limit` passes, or the server
/// stops. Returns true if the peer went away.
pub(crate) fn wait_for_peer_close(
    stream: &mut TcpStream,
    limit: Duration,
    shutdown: &AtomicBool,
) -> bool {
    let deadline = Instant::now() + limit;
    let mut scratch = [0u8; 4096];
    loop {
        if shutdown.load(Ordering::SeqCst) {
            return false;
        }
        let now = Instant::now();
        if now >= deadline {
            return false;
        }
        let _ =
            stream.set_read_timeout(Some(POLL.min(deadline - now).max(Duration::from_millis(1))));
        match stream.read(&mut scratch) {
            Ok(0) => return true,
            Ok(_) => {} // unexpected bytes while streaming: ignore them
            Err(e) if is_timeout(&e) || e.kind() == io::ErrorKind::Interrupted => {}
            Err(_) => return true,
        }
    }
}
