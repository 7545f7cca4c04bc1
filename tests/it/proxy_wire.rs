//! The proxy is transparent: a client and a server see the same bytes with and without it.
//! Each case runs twice against a scripted loopback server that records every byte it
//! receives: once with the client talking to it directly, once through `proxy`. The server
//! must receive the same bytes (the client names the proxy in `Host`, the proxy names the
//! server, so the request a direct client sends is the one that arrives), and the client must
//! read the same bytes and see the connection end the same way (closed, or reset).
//!
//! An SSE answer is sent one event at a time, the server waiting until the client has read
//! an event before it writes the next: a proxy that held events back would stall the case.

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::mpsc;
use std::time::Duration;

use mcp_verdict::proxy::{self, ProxyConfig};
use serde_json::Value;

use crate::support::temp::temp_dir;

/// How a connection ended for the side that read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ending {
    Closed,
    Reset,
    /// Still open when the reader stopped (it read what it waited for).
    Open,
}

/// What one run saw: the bytes the server received, the bytes the client read, how the
/// client's connection ended.
#[derive(Debug, PartialEq, Eq)]
struct Seen {
    server_got: Vec<u8>,
    client_got: Vec<u8>,
    ending: Ending,
}

/// A step of the server's script.
#[derive(Clone)]
enum Step {
    /// Read until this many complete requests have arrived.
    Requests(usize),
    /// Write these bytes.
    Write(Vec<u8>),
    /// Wait until the client has read everything written so far.
    Gate,
    /// Close (FIN).
    Close,
    /// Close with a reset.
    Reset,
}

/// Whether `buf` holds `n` complete requests (Content-Length bodies).
fn complete_requests(buf: &[u8]) -> usize {
    let mut n = 0;
    let mut at = 0;
    loop {
        let mut hs = [httparse::EMPTY_HEADER; 64];
        let mut r = httparse::Request::new(&mut hs);
        let Ok(httparse::Status::Complete(head)) = r.parse(&buf[at..]) else {
            return n;
        };
        let len: usize = r
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case("content-length"))
            .and_then(|h| std::str::from_utf8(h.value).ok()?.trim().parse().ok())
            .unwrap_or(0);
        if buf.len() < at + head + len {
            return n;
        }
        at += head + len;
        n += 1;
    }
}

/// Runs one case: a server following `script` on a fresh port, a client sending `request`
/// (with `Host` naming whom it talks to) and reading until `expect_len` bytes or the end,
/// directly or through a proxy.
fn run(script: &[Step], request: &[u8], expect_len: usize, through_proxy: bool) -> Seen {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let server_addr = listener.local_addr().unwrap();
    let (gate_tx, gate_rx) = mpsc::channel::<()>();
    let (got_tx, got_rx) = mpsc::channel::<Vec<u8>>();
    let steps = script.to_vec();
    let server = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        s.set_nodelay(true).unwrap();
        let mut got = Vec::new();
        for step in steps {
            match step {
                Step::Requests(n) => {
                    let mut buf = [0u8; 4096];
                    while complete_requests(&got) < n {
                        let k = s.read(&mut buf).expect("the server reads the request");
                        assert!(k > 0, "the client closed before its requests arrived");
                        got.extend_from_slice(&buf[..k]);
                    }
                }
                Step::Write(b) => s.write_all(&b).unwrap(),
                Step::Gate => gate_rx
                    .recv_timeout(Duration::from_secs(10))
                    .expect("the client read what was written (nothing held back)"),
                Step::Close => {
                    let _ = s.shutdown(std::net::Shutdown::Write);
                    // Keep reading what the client may still send, until it goes.
                    let _ = s.set_read_timeout(Some(Duration::from_millis(500)));
                    let mut buf = [0u8; 4096];
                    while let Ok(k) = s.read(&mut buf) {
                        if k == 0 {
                            break;
                        }
                        got.extend_from_slice(&buf[..k]);
                    }
                }
                Step::Reset => {
                    socket2::SockRef::from(&s)
                        .set_linger(Some(Duration::ZERO))
                        .unwrap();
                    break;
                }
            }
        }
        got_tx.send(got).unwrap();
    });
    let dir = temp_dir("proxy-wire");
    let proxy = through_proxy.then(|| {
        let mut c = ProxyConfig::new(&format!("http://{server_addr}/mcp"));
        c.log = Some(dir.join("log.jsonl"));
        proxy::start(c).expect("the proxy starts")
    });
    let target: SocketAddr = proxy.as_ref().map_or(server_addr, |p| p.addr());
    let request = String::from_utf8(request.to_vec())
        .unwrap()
        .replace("{host}", &target.to_string());
    let mut c = TcpStream::connect(target).unwrap();
    c.set_nodelay(true).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    c.write_all(request.as_bytes()).unwrap();
    let gates = script.iter().filter(|s| matches!(s, Step::Gate)).count();
    let mut client_got = Vec::new();
    let mut buf = [0u8; 4096];
    let mut gated = 0;
    let ending = loop {
        // Open the next gate once everything written before it has been read.
        if gated < gates && client_got.len() >= written_before_gate(script, gated) {
            gate_tx.send(()).unwrap();
            gated += 1;
            continue;
        }
        if gated == gates && client_got.len() >= expect_len && expect_len > 0 {
            break Ending::Open;
        }
        match c.read(&mut buf) {
            Ok(0) => break Ending::Closed,
            Ok(k) => client_got.extend_from_slice(&buf[..k]),
            Err(e) if e.kind() == ErrorKind::ConnectionReset => break Ending::Reset,
            Err(e) => panic!("client read: {e} after {} bytes", client_got.len()),
        }
    };
    drop(c);
    server.join().unwrap();
    // Each run has a server of its own, on its own port: the port is named alike.
    let server_got = String::from_utf8(got_rx.recv().unwrap())
        .unwrap()
        .replace(&server_addr.to_string(), "{server}")
        .into_bytes();
    if let Some(p) = proxy {
        p.stop();
    }
    Seen {
        server_got,
        client_got,
        ending,
    }
}

/// How many bytes the server has written before gate `n` (counted from 0).
fn written_before_gate(script: &[Step], n: usize) -> usize {
    let mut gates = 0;
    let mut bytes = 0;
    for s in script {
        match s {
            Step::Write(b) => bytes += b.len(),
            Step::Gate if gates == n => return bytes,
            Step::Gate => gates += 1,
            _ => {}
        }
    }
    bytes
}

/// The case run both ways: the same bytes on both sides, the same ending.
fn same_both_ways(script: &[Step], request: &str, expect_len: usize) -> Seen {
    let direct = run(script, request.as_bytes(), expect_len, false);
    let proxied = run(script, request.as_bytes(), expect_len, true);
    assert_eq!(
        String::from_utf8_lossy(&proxied.server_got),
        String::from_utf8_lossy(&direct.server_got),
        "the server received other bytes through the proxy"
    );
    assert_eq!(
        String::from_utf8_lossy(&proxied.client_got),
        String::from_utf8_lossy(&direct.client_got),
        "the client read other bytes through the proxy"
    );
    assert_eq!(
        proxied.ending, direct.ending,
        "the connection ended otherwise"
    );
    proxied
}

fn call(id: u32) -> String {
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":{id},"method":"tools/call","params":{{"name":"echo","arguments":{{"text":"hi"}},"_meta":{{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{{}},"io.modelcontextprotocol/clientInfo":{{"name":"t","version":"1"}}}}}}}}"#
    );
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {{host}}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nAuthorization: Bearer abc.def\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
}

fn result(id: u32) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"resultType":"complete","content":[{{"type":"text","text":"hi"}}]}}}}"#
    )
}

fn chunk(s: &str) -> Vec<u8> {
    format!("{:x}\r\n{s}\r\n", s.len()).into_bytes()
}

#[test]
fn json_answers_on_a_keep_alive_connection_pass_unchanged() {
    let (a, b) = (result(1), result(2));
    let answer = |body: &str| {
        format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nMcp-Session-Id: s-1\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        )
        .into_bytes()
    };
    let script = [
        Step::Requests(2),
        Step::Write(answer(&a)),
        Step::Write(answer(&b)),
    ];
    // Two requests pipelined on one connection.
    let request = call(1) + &call(2);
    let expect = answer(&a).len() + answer(&b).len();
    let seen = same_both_ways(&script, &request, expect);
    assert!(seen.client_got.ends_with(b.as_bytes()));
}

#[test]
fn sse_events_are_forwarded_as_they_arrive_with_their_chunk_framing() {
    let head =
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
            .to_vec();
    let progress = r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}"#;
    let mut script = vec![Step::Requests(1), Step::Write(head)];
    // One event split over two chunks, then two events in one chunk, with an extension and a
    // trailer, each step gated on the client having read the last.
    script.push(Step::Write(chunk("id: 1\ndata: ")));
    script.push(Step::Gate);
    script.push(Step::Write(chunk(&format!("{progress}\n\n"))));
    script.push(Step::Gate);
    script.push(Step::Write(
        format!(
            "{:x};note=x\r\nid: 2\ndata: {progress}\n\nid: 3\ndata: {}\n\n\r\n",
            format!("id: 2\ndata: {progress}\n\nid: 3\ndata: {}\n\n", result(1)).len(),
            result(1)
        )
        .into_bytes(),
    ));
    script.push(Step::Gate);
    script.push(Step::Write(b"0\r\nX-Trailer: t\r\n\r\n".to_vec()));
    script.push(Step::Close);
    same_both_ways(&script, &call(1), 0);
}

#[test]
fn a_stream_cut_in_the_middle_is_cut_the_same_way_for_the_client() {
    let head =
        b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n"
            .to_vec();
    let event = "data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\n";
    for cut in [Step::Close, Step::Reset] {
        let script = [
            Step::Requests(1),
            Step::Write(head.clone()),
            Step::Write(chunk(event)),
            Step::Gate,
            // Half a chunk: its size says more than comes.
            Step::Write(b"40\r\ndata: {\"jsonrpc\"".to_vec()),
            Step::Gate,
            cut.clone(),
        ];
        let seen = same_both_ways(&script, &call(1), 0);
        let want = if matches!(cut, Step::Reset) {
            Ending::Reset
        } else {
            Ending::Closed
        };
        assert_eq!(seen.ending, want);
    }
}

/// The proxy judges the cut stream: the call was not answered, and its log says so.
#[test]
fn the_cut_stream_is_judged_delivery_unknown() {
    let dir = temp_dir("proxy-wire-cut");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let server_addr = listener.local_addr().unwrap();
    let server = std::thread::spawn(move || {
        let (mut s, _) = listener.accept().unwrap();
        let mut got = Vec::new();
        let mut buf = [0u8; 4096];
        while complete_requests(&got) < 1 {
            let k = s.read(&mut buf).unwrap();
            got.extend_from_slice(&buf[..k]);
        }
        s.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n")
            .unwrap();
        s.write_all(&chunk("data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{\"level\":\"info\",\"data\":\"x\"}}\n\n"))
            .unwrap();
        std::thread::sleep(Duration::from_millis(50));
    });
    let mut c = ProxyConfig::new(&format!("http://{server_addr}/mcp"));
    let log = dir.join("log.jsonl");
    c.log = Some(log.clone());
    let p = proxy::start(c).unwrap();
    let mut client = TcpStream::connect(p.addr()).unwrap();
    client
        .write_all(call(1).replace("{host}", &p.addr().to_string()).as_bytes())
        .unwrap();
    let mut all = Vec::new();
    let _ = client.read_to_end(&mut all);
    server.join().unwrap();
    let summary = p.stop();
    assert_eq!(summary.calls, 1, "{summary:?}");
    let text = std::fs::read_to_string(&log).unwrap();
    let record: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(record["line"], 1);
    assert_eq!(
        record["verdicts"][0]["outcome"], "DELIVERY_UNKNOWN",
        "{record}"
    );
    assert!(
        !text.contains("abc.def"),
        "the bearer token is redacted in the log"
    );
}
