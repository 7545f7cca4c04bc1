//! The HTTP client under the probe's HTTP transport: one request at a time over `ureq`, with
//! the response body read incrementally on a worker thread so that idle and total deadlines
//! are enforced per read, SSE events are seen as they arrive, and reading stops soon after the
//! final response.

use std::io::Read;
use std::net::IpAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::probe::transport::{Limits, ReadStop, SendError, Timeouts, secs};
use crate::wire::analysis::Media;
use crate::wire::analysis::ids_equal;
use crate::wire::exchange::{BodyEnd, Headers};

/// How long the probe keeps reading an SSE stream after its final response arrived, to see
/// whether the server ends the stream (and whether anything follows the response).
const LINGER: Duration = Duration::from_millis(250);

/// How often a read that can be cancelled checks its cancel flag.
const CANCEL_POLL: Duration = Duration::from_millis(50);

/// A response as received: status, headers, body bytes and how the body ended.
#[derive(Debug, Clone)]
pub(super) struct Received {
    /// HTTP status.
    pub status: u16,
    /// Response header fields, in order (names as the HTTP library reports them, lowercase).
    pub headers: Headers,
    /// Body bytes exactly as received (after de-chunking).
    pub body: Vec<u8>,
    /// How the body ended.
    pub end: BodyEnd,
    /// Why the body ended the way it did, when not a plain complete body.
    pub end_note: Option<String>,
    /// Why the probe stopped reading, when the body did not simply complete.
    pub stop: Option<ReadStop>,
    /// The JSON-RPC response to the request, when one was read (JSON body or SSE event).
    pub final_message: Option<Value>,
    /// The SSE stream's last event id, when the server set one (the cursor to resume from).
    pub last_event_id: Option<String>,
    /// The SSE stream's last `retry` field: how long to wait before reconnecting.
    pub retry: Option<Duration>,
    /// Where the body's last complete SSE event ends (the whole body when it is not a cut
    /// stream); a resumed stream continues from there.
    pub complete_len: usize,
}

impl Received {
    /// Where a 3xx response points (its `Location`, sanitised), or `(no Location)`.
    pub(super) fn redirect(&self) -> Option<String> {
        (300..400).contains(&self.status).then(|| {
            self.headers
                .get("location")
                .map_or_else(|| "(no Location)".to_string(), crate::views::diag::sanitize)
        })
    }
}

/// One HTTP request to send.
pub(super) struct Outgoing<'a> {
    /// `POST`, `GET` or `DELETE`.
    pub method: &'a str,
    /// Header fields (the caller's, in order).
    pub headers: &'a [(String, String)],
    /// Body bytes (POST only).
    pub body: Option<&'a [u8]>,
    /// The JSON-RPC id whose response ends the exchange (requests only).
    pub rpc_id: Option<&'a Value>,
    /// Set by another thread to make the probe stop reading the body (a standalone GET
    /// stream is closed this way at the end of the session).
    pub cancel: Option<&'a AtomicBool>,
    /// Called with the status once the response head has arrived.
    pub on_head: Option<&'a dyn Fn(u16)>,
}

/// The HTTP client for one probe (clones share the deadline).
#[derive(Clone)]
pub(crate) struct Client {
    agent: ureq::Agent,
    url: String,
    timeouts: Timeouts,
    limits: Limits,
    /// When the probe's deadline passes.
    deadline: Instant,
}

enum Piece {
    Bytes(Vec<u8>),
    Eof,
    Failed(BodyEnd, ReadStop, String),
}

impl Client {
    /// A client for `url` that calls itself `product` (in `User-Agent`, with the version).
    /// Proxy settings come from the environment, except for loopback targets, which are
    /// always reached directly.
    pub(crate) fn new(
        url: &str,
        product: &str,
        timeouts: Timeouts,
        limits: Limits,
    ) -> Result<Client, String> {
        let uri: ureq::http::Uri = url
            .parse()
            .map_err(|e| format!("`{url}` is not a valid URL: {e}"))?;
        match uri.scheme_str() {
            Some("http") => {}
            Some("https") => {
                if !cfg!(feature = "tls") {
                    return Err(format!(
                        "`{url}` is an https URL, but this build has no TLS support (rebuild with `--features tls`)"
                    ));
                }
            }
            _ => return Err(format!("`{url}` is not an http:// or https:// URL")),
        }
        let host = uri.host().unwrap_or("");
        let loopback = host.eq_ignore_ascii_case("localhost")
            || host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .parse::<IpAddr>()
                .is_ok_and(|ip| ip.is_loopback());
        let mut builder = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .max_redirects(0)
            .user_agent(format!("{product}/{}", env!("CARGO_PKG_VERSION")))
            .timeout_connect(Some(timeouts.connect))
            .timeout_per_read(Some(timeouts.idle))
            .timeout_per_call(Some(timeouts.total))
            // A connection per request: a server that ends a response and then closes its
            // connection races the next request written on it, which then fails with a reset
            // before any answer and would read as a server that did not respond. A probe sends
            // a few dozen requests; a fresh connection for each costs nothing it would notice.
            .max_idle_connections(0)
            .max_idle_connections_per_host(0);
        if loopback {
            builder = builder.proxy(None);
        }
        Ok(Client {
            agent: builder.build().new_agent(),
            url: url.to_string(),
            timeouts,
            limits,
            deadline: Instant::now() + limits.deadline,
        })
    }

    /// Time left before the probe's deadline.
    pub(super) fn remaining(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    /// The request with its time limits cut to what is left before the probe's deadline.
    fn bounded<S: ureq::AsSendBody>(
        &self,
        request: ureq::http::Request<S>,
        remaining: Duration,
    ) -> ureq::http::Request<S> {
        self.agent
            .configure_request(request)
            .timeout_connect(Some(self.timeouts.connect.min(remaining)))
            .timeout_per_call(Some(self.timeouts.total.min(remaining)))
            .build()
    }

    /// Sends one request and reads the response. `on_message` sees every JSON-RPC message
    /// of an SSE stream other than the final response, as it arrives.
    pub(super) fn send(
        &self,
        out: &Outgoing<'_>,
        on_message: &mut dyn FnMut(&Value),
    ) -> Result<Received, SendError> {
        let started = Instant::now();
        let remaining = self.deadline.saturating_duration_since(started);
        if remaining.is_zero() {
            return Err(SendError::Deadline(self.limits.deadline));
        }
        let mut req = ureq::http::Request::builder()
            .method(out.method)
            .uri(&self.url);
        for (n, v) in out.headers {
            req = req.header(n.as_str(), v.as_str());
        }
        let result = match out.body {
            Some(b) => {
                let request = req
                    .body(b.to_vec())
                    .map_err(|e| SendError::Request(e.to_string()))?;
                self.agent.run(self.bounded(request, remaining))
            }
            None => {
                let request = req
                    .body(())
                    .map_err(|e| SendError::Request(e.to_string()))?;
                self.agent.run(self.bounded(request, remaining))
            }
        };
        let response = result.map_err(|e| {
            if Instant::now() >= self.deadline {
                SendError::Deadline(self.limits.deadline)
            } else {
                classify_error(e, &self.timeouts)
            }
        })?;
        let (parts, body) = response.into_parts();
        let mut headers = Headers::default();
        for (n, v) in &parts.headers {
            headers.push(n.as_str(), String::from_utf8_lossy(v.as_bytes()));
        }
        let status = parts.status.as_u16();
        if let Some(f) = out.on_head {
            f(status);
        }
        let sse = Media::parse(headers.get("content-type")) == Media::EventStream;

        // A bounded channel: the reader never runs far ahead of the caps.
        let (tx, rx) = mpsc::sync_channel::<Piece>(8);
        let mut reader = body.into_reader();
        let idle = self.timeouts.idle;
        thread::Builder::new()
            .name("mcp-probe-body".into())
            .spawn(move || {
                let mut buf = vec![0u8; 16 * 1024];
                loop {
                    let piece = match reader.read(&mut buf) {
                        Ok(0) => Piece::Eof,
                        Ok(n) => Piece::Bytes(buf[..n].to_vec()),
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                        Err(e) => {
                            let (end, stop, why) = describe_read_error(e, idle);
                            Piece::Failed(end, stop, why)
                        }
                    };
                    let last = !matches!(piece, Piece::Bytes(_));
                    if tx.send(piece).is_err() || last {
                        return;
                    }
                }
            })
            .map_err(|e| SendError::NoResponse(format!("cannot start a reader thread: {e}")))?;

        let own = started + self.timeouts.total;
        let deadline = own.min(self.deadline);
        let max_body = self.limits.body_bytes;
        let mut bytes = Vec::new();
        let mut events = 0usize;
        let mut parser = crate::wire::sse::Parser::default();
        let mut final_message: Option<Value> = None;
        let mut final_at: Option<Instant> = None;
        let (end, stop, end_note) = loop {
            let now = Instant::now();
            let (limit, stop, why) = match final_at {
                Some(t) => (
                    (t + LINGER).min(deadline),
                    ReadStop::AfterResponse,
                    "the client stopped reading shortly after the final response (the server had not ended the stream)".to_string(),
                ),
                None if now + idle >= deadline && deadline < own => (
                    deadline,
                    ReadStop::Deadline,
                    format!(
                        "the probe's deadline ({} s, --deadline) passed before the body ended",
                        secs(self.limits.deadline)
                    ),
                ),
                None if now + idle >= deadline => (
                    deadline,
                    ReadStop::TimedOut,
                    format!(
                        "the request's total time limit ({} s) passed before the body ended",
                        secs(self.timeouts.total)
                    ),
                ),
                None => (
                    now + idle,
                    ReadStop::Stalled,
                    format!(
                        "no bytes arrived for {} s (idle timeout) before the body ended",
                        secs(idle)
                    ),
                ),
            };
            // With a cancel flag, wake up often enough to notice it.
            let wait = limit.saturating_duration_since(now);
            let wait = match out.cancel {
                Some(_) => wait.min(CANCEL_POLL),
                None => wait,
            };
            let got = rx.recv_timeout(wait);
            if matches!(got, Err(RecvTimeoutError::Timeout)) {
                if out.cancel.is_some_and(|c| c.load(Ordering::SeqCst)) {
                    break (
                        BodyEnd::Timeout,
                        ReadStop::ClosedByClient,
                        Some("the probe closed the stream at the end of the session".into()),
                    );
                }
                if Instant::now() < limit {
                    continue;
                }
            }
            match got {
                Ok(Piece::Bytes(b)) => {
                    let room = max_body - bytes.len();
                    let cut = b.len() > room;
                    let b = &b[..b.len().min(room)];
                    bytes.extend_from_slice(b);
                    if sse {
                        for ev in parser.feed(b) {
                            events += 1;
                            let Ok(msg) = serde_json::from_str::<Value>(&ev.data) else {
                                continue;
                            };
                            if final_message.is_none() && is_response_to(&msg, out.rpc_id) {
                                final_message = Some(msg);
                                final_at = Some(Instant::now());
                            } else {
                                on_message(&msg);
                            }
                            if events >= self.limits.events {
                                break;
                            }
                        }
                    }
                    if cut {
                        break (
                            BodyEnd::Timeout,
                            ReadStop::SizeCap,
                            Some(format!(
                                "the body exceeded {max_body} bytes (--max-body); the client stopped reading"
                            )),
                        );
                    }
                    if sse && events >= self.limits.events {
                        break (
                            BodyEnd::Timeout,
                            ReadStop::EventCap,
                            Some(format!(
                                "{events} events arrived (--max-events); the client stopped reading"
                            )),
                        );
                    }
                }
                Ok(Piece::Eof) => break (BodyEnd::Complete, ReadStop::AfterResponse, None),
                Ok(Piece::Failed(end, stop, why)) => {
                    // The client library enforces the same limits; name the one that passed.
                    if stop == ReadStop::TimedOut && deadline < own && Instant::now() >= deadline {
                        break (
                            end,
                            ReadStop::Deadline,
                            Some(format!(
                                "the probe's deadline ({} s, --deadline) passed before the body ended",
                                secs(self.limits.deadline)
                            )),
                        );
                    }
                    break (end, stop, Some(why));
                }
                Err(RecvTimeoutError::Timeout) => break (BodyEnd::Timeout, stop, Some(why)),
                Err(RecvTimeoutError::Disconnected) => {
                    break (
                        BodyEnd::Reset,
                        ReadStop::Closed,
                        Some("the body reader stopped unexpectedly".into()),
                    );
                }
            }
        };
        let stop = (end_note.is_some()).then_some(stop);
        let (mut last_event_id, mut retry, mut complete_len) = (None, None, bytes.len());
        if sse {
            let parsed = crate::wire::sse::parse(&bytes);
            last_event_id = (!parsed.last_event_id.is_empty()).then_some(parsed.last_event_id);
            retry = parsed.retry.map(Duration::from_millis);
            if let Some(t) = &parsed.tail {
                complete_len = t.start.min(bytes.len());
            }
        }
        if !sse && (200..300).contains(&status) {
            final_message = serde_json::from_slice::<Value>(&bytes)
                .ok()
                .filter(|m| is_response_to(m, out.rpc_id));
        }
        Ok(Received {
            status,
            headers,
            body: bytes,
            end,
            end_note,
            stop,
            final_message,
            last_event_id,
            retry,
            complete_len,
        })
    }
}

/// Whether `msg` is a JSON-RPC response carrying `id`.
fn is_response_to(msg: &Value, id: Option<&Value>) -> bool {
    let Some(id) = id else { return false };
    msg.get("method").is_none()
        && (msg.get("result").is_some() || msg.get("error").is_some())
        && msg.get("id").is_some_and(|got| ids_equal(got, id))
}

/// How a failed body read ended: a timeout, or the connection closing early.
fn describe_read_error(e: std::io::Error, idle: Duration) -> (BodyEnd, ReadStop, String) {
    if matches!(
        e.kind(),
        std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
    ) {
        return (
            BodyEnd::Timeout,
            ReadStop::Stalled,
            format!("no bytes arrived for {} s (idle timeout)", secs(idle)),
        );
    }
    match ureq::Error::from(e) {
        ureq::Error::Timeout(ureq::Timeout::PerRead) => (
            BodyEnd::Timeout,
            ReadStop::Stalled,
            format!("no bytes arrived for {} s (idle timeout)", secs(idle)),
        ),
        ureq::Error::Timeout(t) => (
            BodyEnd::Timeout,
            ReadStop::TimedOut,
            format!("the client timed out ({t})"),
        ),
        ureq::Error::Io(io) => (
            BodyEnd::Reset,
            ReadStop::Closed,
            format!(
                "the connection closed before the body was complete ({})",
                io_reason(&io)
            ),
        ),
        other => (
            BodyEnd::Reset,
            ReadStop::Closed,
            format!("the body could not be read to its end ({other})"),
        ),
    }
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::UnexpectedEof => {
            "the peer closed or reset the connection mid-body".into()
        }
        std::io::ErrorKind::ConnectionReset => "connection reset".into(),
        _ => e.to_string(),
    }
}

fn classify_error(e: ureq::Error, t: &Timeouts) -> SendError {
    use ureq::Timeout as T;
    match e {
        ureq::Error::HostNotFound => SendError::Unreachable("host not found".into()),
        ureq::Error::ConnectionFailed => SendError::Unreachable("connection failed".into()),
        ureq::Error::BadUri(m) => SendError::Request(format!("bad URL: {m}")),
        ureq::Error::Http(h) => SendError::Request(h.to_string()),
        ureq::Error::Timeout(T::Connect | T::Resolve) => SendError::Unreachable(format!(
            "no connection within {} s (connect timeout)",
            secs(t.connect)
        )),
        ureq::Error::Timeout(T::PerRead | T::RecvResponse) => SendError::NoResponse(format!(
            "no response head within {} s (idle timeout)",
            secs(t.idle)
        )),
        ureq::Error::Timeout(other) => {
            SendError::NoResponse(format!("the request timed out ({other})"))
        }
        ureq::Error::Io(io) => match io.kind() {
            std::io::ErrorKind::ConnectionRefused => {
                SendError::Unreachable("connection refused".into())
            }
            std::io::ErrorKind::AddrNotAvailable | std::io::ErrorKind::NotConnected => {
                SendError::Unreachable(io.to_string())
            }
            std::io::ErrorKind::TimedOut => SendError::Unreachable(format!(
                "no connection within {} s (connect timeout)",
                secs(t.connect)
            )),
            _ => SendError::NoResponse(format!(
                "the connection failed before a response head arrived ({})",
                io_reason(&io)
            )),
        },
        other => SendError::NoResponse(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn responses_match_by_id() {
        let r = json!({"jsonrpc": "2.0", "id": 3, "result": {}});
        assert!(is_response_to(&r, Some(&json!(3))));
        assert!(is_response_to(&r, Some(&json!(3.0))));
        assert!(!is_response_to(&r, Some(&json!("3"))));
        assert!(!is_response_to(&r, None));
        let req = json!({"jsonrpc": "2.0", "id": 3, "method": "ping"});
        assert!(!is_response_to(&req, Some(&json!(3))));
    }

    #[test]
    fn urls_are_checked() {
        let (t, l) = (Timeouts::default(), Limits::default());
        assert!(Client::new("ftp://x/mcp", "p", t, l).is_err());
        assert!(Client::new("not a url", "p", t, l).is_err());
        assert!(Client::new("http://127.0.0.1:1/mcp", "p", t, l).is_ok());
    }
}
