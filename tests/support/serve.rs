//! Raw-HTTP client helpers for the `serve` tests (no HTTP client crate: the
//! point is to see the exact bytes, chunk boundaries and how streams end).
#![allow(dead_code)]

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use mcp_verdict::Protocol;
use mcp_verdict::serve::{self, ServeConfig, ServerHandle};
use serde_json::{Value, json};

pub const MODERN: &str = "2026-07-28";
pub const LEGACY: &str = "2025-11-25";

/// Starts a server with this scenario and short timeouts.
pub fn start(scenario: &str) -> ServerHandle {
    start_with(scenario, |_| {})
}

/// Starts a server with this scenario after tweaking the config.
pub fn start_with(scenario: &str, tweak: impl FnOnce(&mut ServeConfig)) -> ServerHandle {
    let mut config = ServeConfig {
        scenario: scenario.parse().expect("scenario parses"),
        stall_cap: Duration::from_secs(2),
        idle_timeout: Duration::from_secs(5),
        ..ServeConfig::default()
    };
    tweak(&mut config);
    serve::start(config).expect("server starts")
}

/// How a response body ended, as the client saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// Content-Length reached or chunked terminator seen.
    Complete,
    /// Clean EOF before the body was complete.
    Eof,
    /// Connection reset.
    Reset,
    /// Nothing more arrived before the read deadline.
    Timeout,
}

/// A response as read off the wire.
#[derive(Debug, Clone)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// Body after de-chunking (what arrived, even if incomplete).
    pub body: Vec<u8>,
    /// Raw bytes after the head (chunk framing included).
    pub raw_body: Vec<u8>,
    /// Chunk payloads in arrival order (chunked responses only).
    pub chunks: Vec<Vec<u8>>,
    pub end: End,
    /// Whether the body used chunked framing.
    pub chunked: bool,
}

impl Resp {
    pub fn header(&self, name: &str) -> Option<&str> {
        super::http::header(&self.headers, name)
    }
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("body is not JSON ({e}): {:?}", self.text()))
    }
    /// SSE events (complete ones only): (id, data).
    pub fn events(&self) -> Vec<(Option<String>, String)> {
        sse_events(&self.text())
    }
    /// JSON messages carried by complete SSE events with non-empty data.
    pub fn messages(&self) -> Vec<Value> {
        self.events()
            .into_iter()
            .filter(|(_, d)| !d.is_empty())
            .map(|(_, d)| {
                serde_json::from_str(&d).unwrap_or_else(|e| panic!("event data {d:?}: {e}"))
            })
            .collect()
    }
    /// The single JSON-RPC message: the JSON body, or the last SSE message.
    pub fn message(&self) -> Value {
        if self.header("content-type") == Some("text/event-stream") {
            self.messages().pop().expect("an SSE message")
        } else {
            self.json()
        }
    }
}

/// Parses complete SSE events from text.
pub fn sse_events(text: &str) -> Vec<(Option<String>, String)> {
    let mut out = Vec::new();
    let mut id = None;
    let mut data: Vec<String> = Vec::new();
    let mut saw_field = false;
    // Only events terminated by a blank line count.
    let complete_len = text.rfind("\n\n").map(|i| i + 2).unwrap_or(0);
    for line in text[..complete_len].split('\n') {
        if line.is_empty() {
            if saw_field {
                out.push((id.take(), data.join("\n")));
            }
            data.clear();
            saw_field = false;
            continue;
        }
        if line.starts_with(':') {
            continue;
        }
        let (field, value) = match line.split_once(':') {
            Some((f, v)) => (f, v.strip_prefix(' ').unwrap_or(v)),
            None => (line, ""),
        };
        saw_field = true;
        match field {
            "id" => id = Some(value.to_string()),
            "data" => data.push(value.to_string()),
            _ => {}
        }
    }
    out
}

/// A client connection (keep-alive capable).
pub struct Conn {
    pub stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    pub fn open(addr: SocketAddr) -> Self {
        let stream = TcpStream::connect(addr).expect("connect");
        stream.set_nodelay(true).unwrap();
        Self {
            stream,
            buf: Vec::new(),
        }
    }

    /// Sends a request with a Content-Length body.
    pub fn send(&mut self, method: &str, path: &str, headers: &[(&str, String)], body: &[u8]) {
        let mut req = format!("{method} {path} HTTP/1.1\r\nHost: localhost\r\n");
        for (k, v) in headers {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        if !body.is_empty() || method == "POST" {
            req.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        req.push_str("\r\n");
        let mut bytes = req.into_bytes();
        bytes.extend_from_slice(body);
        self.stream.write_all(&bytes).expect("send");
    }

    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).expect("send");
    }

    fn fill(&mut self, deadline: Instant) -> Result<usize, End> {
        let now = Instant::now();
        if now >= deadline {
            return Err(End::Timeout);
        }
        self.stream
            .set_read_timeout(Some((deadline - now).max(Duration::from_millis(1))))
            .unwrap();
        let mut chunk = [0u8; 8192];
        match self.stream.read(&mut chunk) {
            Ok(0) => Err(End::Eof),
            Ok(n) => {
                self.buf.extend_from_slice(&chunk[..n]);
                Ok(n)
            }
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                Err(End::Timeout)
            }
            Err(e) if e.kind() == ErrorKind::ConnectionReset => Err(End::Reset),
            Err(e) => panic!("read error: {e}"),
        }
    }

    /// Reads one response (waiting at most `wait` overall).
    pub fn read(&mut self, wait: Duration) -> Resp {
        let deadline = Instant::now() + wait;
        // Head.
        let (head_len, status, headers) = loop {
            let mut hs = [httparse::EMPTY_HEADER; 64];
            let mut r = httparse::Response::new(&mut hs);
            if let Ok(httparse::Status::Complete(n)) = r.parse(&self.buf) {
                let status = r.code.unwrap();
                let headers: Vec<(String, String)> = r
                    .headers
                    .iter()
                    .map(|h| {
                        (
                            h.name.to_string(),
                            String::from_utf8_lossy(h.value).into_owned(),
                        )
                    })
                    .collect();
                if status == 100 {
                    self.buf.drain(..n);
                    continue;
                }
                break (n, status, headers);
            }
            if let Err(end) = self.fill(deadline) {
                panic!(
                    "no response head ({end:?}); got {:?}",
                    String::from_utf8_lossy(&self.buf)
                );
            }
        };
        self.buf.drain(..head_len);
        let find = |name: &str| {
            headers
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.clone())
        };
        let mut resp = Resp {
            status,
            headers: headers.clone(),
            body: Vec::new(),
            raw_body: Vec::new(),
            chunks: Vec::new(),
            end: End::Complete,
            chunked: false,
        };
        if find("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked")) {
            resp.chunked = true;
            let mut pos = 0; // parse position in self.buf
            loop {
                // chunk size line
                let line_end = loop {
                    if let Some(i) = find_crlf(&self.buf[pos..]) {
                        break pos + i;
                    }
                    if let Err(end) = self.fill(deadline) {
                        resp.end = end;
                        resp.raw_body = self.buf.drain(..).collect();
                        return resp;
                    }
                };
                let size_text = String::from_utf8_lossy(&self.buf[pos..line_end]).into_owned();
                let size = usize::from_str_radix(size_text.trim(), 16).expect("chunk size");
                let data_start = line_end + 2;
                while self.buf.len() < data_start + size + 2 {
                    if let Err(end) = self.fill(deadline) {
                        resp.end = end;
                        let avail = self.buf.len().min(data_start + size);
                        if avail > data_start {
                            resp.body.extend_from_slice(&self.buf[data_start..avail]);
                        }
                        resp.raw_body = self.buf.drain(..).collect();
                        return resp;
                    }
                }
                if size == 0 {
                    let total = data_start + 2;
                    resp.raw_body = self.buf.drain(..total).collect();
                    return resp;
                }
                let data = self.buf[data_start..data_start + size].to_vec();
                resp.body.extend_from_slice(&data);
                resp.chunks.push(data);
                pos = data_start + size + 2;
            }
        } else if let Some(len) = find("content-length") {
            let len: usize = len.parse().unwrap();
            while self.buf.len() < len {
                if let Err(end) = self.fill(deadline) {
                    resp.end = end;
                    resp.body = self.buf.drain(..).collect();
                    resp.raw_body = resp.body.clone();
                    return resp;
                }
            }
            resp.body = self.buf.drain(..len).collect();
            resp.raw_body = resp.body.clone();
        } else {
            // Close-delimited.
            loop {
                match self.fill(deadline) {
                    Ok(_) => {}
                    Err(End::Eof) => break,
                    Err(end) => {
                        resp.end = end;
                        break;
                    }
                }
            }
            resp.body = self.buf.drain(..).collect();
            resp.raw_body = resp.body.clone();
        }
        resp
    }

    /// Whether the server closed the connection (EOF) within `wait`.
    pub fn closed_by_server(&mut self, wait: Duration) -> bool {
        matches!(
            self.fill(Instant::now() + wait),
            Err(End::Eof) | Err(End::Reset)
        )
    }
}

fn find_crlf(b: &[u8]) -> Option<usize> {
    b.windows(2).position(|w| w == b"\r\n")
}

/// Standard request `_meta` for 2026-07-28.
pub fn modern_meta(caps: Value) -> Value {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": caps,
        "io.modelcontextprotocol/clientInfo": {"name": "raw-test", "version": "0.0.1"}
    })
}

/// Headers for a 2026-07-28 POST.
pub fn modern_headers(method: &str, name: Option<&str>) -> Vec<(&'static str, String)> {
    let mut h = vec![
        ("Content-Type", "application/json".to_string()),
        ("Accept", "application/json, text/event-stream".to_string()),
        ("MCP-Protocol-Version", MODERN.to_string()),
        ("Mcp-Method", method.to_string()),
    ];
    if let Some(n) = name {
        h.push(("Mcp-Name", n.to_string()));
    }
    h
}

/// Headers for a 2025-11-25 POST in a session.
pub fn legacy_headers(sid: &str) -> Vec<(&'static str, String)> {
    vec![
        ("Content-Type", "application/json".to_string()),
        ("Accept", "application/json, text/event-stream".to_string()),
        ("MCP-Protocol-Version", LEGACY.to_string()),
        ("Mcp-Session-Id", sid.to_string()),
    ]
}

/// One POST on a fresh connection.
pub fn post(addr: SocketAddr, headers: &[(&str, String)], body: &Value) -> Resp {
    post_raw(
        addr,
        headers,
        body.to_string().as_bytes(),
        Duration::from_secs(5),
    )
}

pub fn post_raw(addr: SocketAddr, headers: &[(&str, String)], body: &[u8], wait: Duration) -> Resp {
    let mut c = Conn::open(addr);
    c.send("POST", "/mcp", headers, body);
    c.read(wait)
}

/// initialize + notifications/initialized; returns the session id.
pub fn legacy_session(addr: SocketAddr, caps: Value) -> String {
    let r = legacy_initialize(addr, caps);
    assert_eq!(r.status, 200, "initialize: {}", r.text());
    let sid = r.header("mcp-session-id").expect("session id").to_string();
    let n = post(
        addr,
        &legacy_headers(&sid),
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    );
    assert_eq!(n.status, 202);
    assert!(n.body.is_empty());
    sid
}

pub fn legacy_initialize(addr: SocketAddr, caps: Value) -> Resp {
    post(
        addr,
        &[
            ("Content-Type", "application/json".to_string()),
            ("Accept", "application/json, text/event-stream".to_string()),
        ],
        &json!({
            "jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": LEGACY, "capabilities": caps,
                       "clientInfo": {"name": "raw-legacy", "version": "9.9"}}
        }),
    )
}

/// A tools/call request for either revision: (headers, body).
pub fn call_request(
    rev: Protocol,
    sid: Option<&str>,
    id: Value,
    tool: &str,
    args: Value,
    caps: Value,
) -> (Vec<(&'static str, String)>, Value) {
    match rev {
        Protocol::V2026_07_28 => (
            modern_headers("tools/call", Some(tool)),
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": tool, "arguments": args, "_meta": modern_meta(caps)}}),
        ),
        Protocol::V2025_11_25 => (
            legacy_headers(sid.expect("legacy needs a session")),
            json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                   "params": {"name": tool, "arguments": args}}),
        ),
    }
}

/// Sets up a client for `rev` (a session for 2025-11-25) and returns its id.
pub fn setup(addr: SocketAddr, rev: Protocol, caps: Value) -> Option<String> {
    match rev {
        Protocol::V2025_11_25 => Some(legacy_session(addr, caps)),
        Protocol::V2026_07_28 => None,
    }
}

/// Calls `echo` with text "hi" (id 7).
pub fn echo_call(addr: SocketAddr, rev: Protocol, sid: Option<&str>) -> Resp {
    let (h, b) = call_request(rev, sid, json!(7), "echo", json!({"text": "hi"}), json!({}));
    post(addr, &h, &b)
}

/// Validates `instance` against `$defs/<def>` of the official schema, when the official
/// specification is given (`MCP_SPEC_DIR`). Returns false when it is not (the check is skipped
/// and said so).
pub fn schema_check(rev: &str, def: &str, instance: &Value) -> bool {
    let Some(spec) = super::reference::dir(super::reference::Reference::Spec) else {
        return false;
    };
    let path = spec.join(rev).join("schema/schema.json");
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let mut schema: Value = serde_json::from_str(&text).unwrap();
    schema["$ref"] = json!(format!("#/$defs/{def}"));
    let v = jsonschema::validator_for(&schema).expect("schema compiles");
    let errors: Vec<String> = v
        .iter_errors(instance)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{rev} {def} invalid: {errors:?}\n{instance}"
    );
    true
}

/// Records once every POST so far has one (plus any non-POST exchanges).
pub fn settled_records(h: &ServerHandle) -> Vec<mcp_verdict::views::diag::DiagRecord> {
    h.wait_for_records(h.post_count() as usize, Duration::from_secs(5))
}
