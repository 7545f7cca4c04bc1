//! The small loopback servers some tests start in place of an MCP server: one reader of HTTP
//! requests, one scripted server that hands each request to a closure, and the answers they
//! write.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The head of a `200` event stream that ends when the connection closes.
pub const SSE_HEAD: &str =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n";

/// One request as a loopback server received it, and when.
#[derive(Debug, Clone)]
pub struct Request {
    pub method: String,
    /// The request target, as sent.
    #[allow(dead_code, reason = "no test routes on it yet")]
    pub path: String,
    /// Name and value of each header line, trimmed, in the order sent.
    pub headers: Vec<(String, String)>,
    /// The body parsed as JSON; `Null` when it is empty or not JSON.
    pub body: Value,
    /// The body as received (its Content-Length bytes).
    #[allow(dead_code, reason = "no test reads a body that is not JSON yet")]
    pub bytes: Vec<u8>,
    pub at: Instant,
}

impl Request {
    /// The first header of that name, compared without case.
    pub fn header(&self, name: &str) -> Option<&str> {
        header(&self.headers, name)
    }

    /// The JSON-RPC method of the body, if it has one.
    pub fn rpc(&self) -> Option<&str> {
        self.body.get("method").and_then(Value::as_str)
    }
}

/// The value of the first header called `name` (compared without case) among `headers`.
pub fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

/// Reads one request (head up to the blank line, then Content-Length body bytes) from `stream`.
/// `buf` carries what was read past the request to the next call, so keep-alive and pipelined
/// requests are read in turn. None when the peer went away or a read failed (or timed out).
pub fn read_request(stream: &mut impl Read, buf: &mut Vec<u8>) -> Option<Request> {
    let mut chunk = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut line = head.lines().next().unwrap_or("").split(' ');
    let method = line.next().unwrap_or("").to_string();
    let path = line.next().unwrap_or("").to_string();
    let headers: Vec<(String, String)> = head
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
        .collect();
    let len: usize = header(&headers, "content-length")
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + len {
        match stream.read(&mut chunk) {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
    let bytes = buf[head_end..head_end + len].to_vec();
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    buf.drain(..head_end + len);
    Some(Request {
        method,
        path,
        headers,
        body,
        bytes,
        at: Instant::now(),
    })
}

/// Every request a scripted server has read, in the order read.
pub type Log = Arc<Mutex<Vec<Request>>>;

/// How a scripted server serves its connections.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Set on each accepted connection: a read that waits longer ends the connection.
    pub read_timeout: Option<Duration>,
    /// Serve one connection after the other on the accepting thread (by default each
    /// connection has a thread of its own).
    pub one_at_a_time: bool,
    /// Stop accepting after this many connections.
    pub connections: Option<usize>,
}

/// A loopback server started by [`serve`]: it stops accepting when dropped.
pub struct Scripted {
    addr: SocketAddr,
    log: Log,
    stop: Arc<AtomicBool>,
    acceptor: Option<JoinHandle<()>>,
}

impl Scripted {
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://ADDR/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}/mcp", self.addr)
    }

    /// The requests read so far.
    pub fn seen(&self) -> Vec<Request> {
        self.log.lock().unwrap().clone()
    }
}

impl Drop for Scripted {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the acceptor, which sees the flag and returns (refused once it has returned).
        let _ = TcpStream::connect(self.addr);
        if let Some(acceptor) = self.acceptor.take() {
            let _ = acceptor.join();
        }
    }
}

/// Starts a server on a loopback port with the default [`Options`]; see [`serve_with`].
pub fn serve(
    handler: impl Fn(&Request, &mut TcpStream, &Log) -> bool + Send + Sync + 'static,
) -> Scripted {
    serve_with(Options::default(), handler)
}

/// Starts a server on a loopback port. Each request read from a connection is logged, then
/// handed to `handler` with the connection's stream (to write the response, or to stall, cut or
/// read on as the test needs) and the log; the connection is kept for its next request while the
/// handler returns true, closed when it returns false or the peer goes away.
pub fn serve_with(
    options: Options,
    handler: impl Fn(&Request, &mut TcpStream, &Log) -> bool + Send + Sync + 'static,
) -> Scripted {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let log = Log::default();
    let stop = Arc::new(AtomicBool::new(false));
    let handler = Arc::new(handler);
    let (l, s) = (log.clone(), stop.clone());
    let acceptor = thread::spawn(move || {
        let limit = options.connections.unwrap_or(usize::MAX);
        for stream in listener.incoming().take(limit) {
            if s.load(Ordering::SeqCst) {
                return;
            }
            let Ok(stream) = stream else { continue };
            if let Some(t) = options.read_timeout {
                let _ = stream.set_read_timeout(Some(t));
            }
            if options.one_at_a_time {
                serve_connection(stream, &*handler, &l);
            } else {
                let (h, l) = (handler.clone(), l.clone());
                thread::spawn(move || serve_connection(stream, &*h, &l));
            }
        }
    });
    Scripted {
        addr,
        log,
        stop,
        acceptor: Some(acceptor),
    }
}

fn serve_connection(
    mut stream: TcpStream,
    handler: &(impl Fn(&Request, &mut TcpStream, &Log) -> bool + ?Sized),
    log: &Log,
) {
    let mut buf = Vec::new();
    while let Some(request) = read_request(&mut stream, &mut buf) {
        log.lock().unwrap().push(request.clone());
        if !handler(&request, &mut stream, log) {
            return;
        }
    }
}

/// Writes a whole response in one write: the status line, `headers` (each line ending in
/// CRLF), the Content-Length of `body`, and `body`. False when the write failed.
pub fn respond(stream: &mut impl Write, status: &str, headers: &str, body: &str) -> bool {
    stream
        .write_all(
            format!(
                "HTTP/1.1 {status}\r\n{headers}Content-Length: {}\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        )
        .is_ok()
}

/// Writes `body` as a complete `200 application/json` response with its Content-Length.
pub fn write_json_response(stream: &mut impl Write, body: &Value) {
    let text = body.to_string();
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        text.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(text.as_bytes());
    let _ = stream.flush();
}

/// Writes the JSON-RPC result `result` for `id` as a complete `200 application/json` response.
pub fn write_json_result(stream: &mut impl Write, id: &Value, result: Value) {
    write_json_response(
        stream,
        &json!({"jsonrpc": "2.0", "id": id, "result": result}),
    );
}
