//! What the judging proxy adds on loopback, as ratios to the direct call, in one run. Run with
//! `cargo bench --bench proxy`; `MCP_VERDICT_BENCH_ROUNDS` sets the paired rounds (2,000).
//!
//! - **1 KB JSON answer**: a keep-alive client POSTs a `tools/call` and reads a 1 KB
//!   `application/json` result from a loopback server, directly and through the proxy (which
//!   judges every call). Criterion measures each way; then paired rounds (one direct call, one
//!   proxied, alternating) give the p50 and p99 of each and of the added time.
//! - **SSE events**: the server writes an event stream of progress notifications and the result,
//!   one event per chunk, 2 ms apart; the client reads each. The time from the server's write
//!   of an event to the client's read of it is taken for every event, directly and through the
//!   proxy: its p50 and p99, and the added time.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use criterion::Criterion;
use mcp_verdict::proxy::{self, ProxyConfig, ProxyHandle};

/// A 1 KB tools/call result.
fn result_1kb() -> String {
    let text = "x".repeat(1024 - 110);
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"resultType":"complete","content":[{{"type":"text","text":"{text}"}}]}}}}"#
    );
    assert!((1000..1100).contains(&body.len()), "{}", body.len());
    body
}

fn request(path: &str) -> Vec<u8> {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"bench","version":"1"}}}}"#;
    format!(
        "POST {path} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .into_bytes()
}

/// Reads one request (head and Content-Length body) into `buf`; false when the peer went.
fn read_request(s: &mut TcpStream, buf: &mut Vec<u8>) -> bool {
    let mut chunk = [0u8; 8192];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
            let len: usize = head
                .lines()
                .find_map(|l| l.strip_prefix("content-length:"))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0);
            if buf.len() >= end + 4 + len {
                buf.drain(..end + 4 + len);
                return true;
            }
        }
        match s.read(&mut chunk) {
            Ok(0) | Err(_) => return false,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}

/// When the SSE server wrote each event of the last stream.
type Written = Arc<Mutex<Vec<Instant>>>;

/// A loopback server: JSON answers (`sse` false) or an event stream per request.
fn server(sse: bool, events: usize) -> (SocketAddr, Written) {
    let l = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = l.local_addr().unwrap();
    let written: Written = Arc::default();
    let w = written.clone();
    std::thread::spawn(move || {
        for s in l.incoming() {
            let Ok(mut s) = s else { continue };
            s.set_nodelay(true).unwrap();
            let w = w.clone();
            std::thread::spawn(move || {
                let body = result_1kb();
                let json = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                    body.len()
                );
                let mut buf = Vec::new();
                while read_request(&mut s, &mut buf) {
                    if !sse {
                        if s.write_all(json.as_bytes()).is_err() {
                            return;
                        }
                        continue;
                    }
                    let _ = s.write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n");
                    let mut times = Vec::new();
                    for i in 0..events {
                        std::thread::sleep(Duration::from_millis(2));
                        let data = if i + 1 == events {
                            body.clone()
                        } else {
                            format!(
                                r#"{{"jsonrpc":"2.0","method":"notifications/progress","params":{{"progressToken":"p","progress":{i}}}}}"#
                            )
                        };
                        let event = format!("data: {data}\n\n");
                        times.push(Instant::now());
                        let _ = s.write_all(format!("{:x}\r\n{event}\r\n", event.len()).as_bytes());
                    }
                    let _ = s.write_all(b"0\r\n\r\n");
                    *w.lock().unwrap() = times;
                }
            });
        }
    });
    (addr, written)
}

/// A keep-alive client.
struct Client {
    s: TcpStream,
    request: Vec<u8>,
}

impl Client {
    fn new(addr: SocketAddr) -> Client {
        let s = TcpStream::connect(addr).unwrap();
        s.set_nodelay(true).unwrap();
        Client {
            s,
            request: request("/mcp"),
        }
    }

    /// One call with a JSON answer of `len` body bytes.
    fn call_json(&mut self, len: usize) -> Duration {
        let t = Instant::now();
        self.s.write_all(&self.request).unwrap();
        let mut got = Vec::new();
        let mut chunk = [0u8; 8192];
        loop {
            let n = self.s.read(&mut chunk).unwrap();
            assert!(n > 0);
            got.extend_from_slice(&chunk[..n]);
            if let Some(end) = got.windows(4).position(|w| w == b"\r\n\r\n")
                && got.len() >= end + 4 + len
            {
                return t.elapsed();
            }
        }
    }

    /// One call with an event stream: when each event was read.
    fn call_sse(&mut self, events: usize) -> Vec<Instant> {
        self.s.write_all(&self.request).unwrap();
        let mut got = Vec::new();
        let mut at = Vec::new();
        let mut chunk = [0u8; 8192];
        while !got.ends_with(b"0\r\n\r\n") {
            let n = self.s.read(&mut chunk).unwrap();
            assert!(n > 0);
            got.extend_from_slice(&chunk[..n]);
            let seen = got.windows(2).filter(|w| w == b"\n\n").count();
            while at.len() < seen.min(events) {
                at.push(Instant::now());
            }
        }
        at
    }
}

fn proxy_for(addr: SocketAddr) -> ProxyHandle {
    proxy::start(ProxyConfig::new(&format!("http://{addr}/mcp"))).unwrap()
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    let i = ((v.len() as f64 - 1.0) * p).round() as usize;
    v[i]
}

fn us(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}

fn rounds() -> usize {
    std::env::var("MCP_VERDICT_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000)
}

fn json_bench(c: &mut Criterion) {
    let (addr, _) = server(false, 0);
    let p = proxy_for(addr);
    let len = result_1kb().len();
    let mut direct = Client::new(addr);
    let mut proxied = Client::new(p.addr());
    let mut g = c.benchmark_group("proxy_json_1kb");
    g.bench_function("direct", |b| b.iter(|| direct.call_json(len)));
    g.bench_function("proxied", |b| b.iter(|| proxied.call_json(len)));
    g.finish();

    // Paired rounds: p50 and p99 of each way and of the added time.
    let n = rounds();
    let (mut d, mut q, mut added) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..n {
        let a = us(direct.call_json(len));
        let b = us(proxied.call_json(len));
        d.push(a);
        q.push(b);
        added.push(b - a);
    }
    let (d50, d99) = (percentile(&mut d, 0.5), percentile(&mut d, 0.99));
    let (q50, q99) = (percentile(&mut q, 0.5), percentile(&mut q, 0.99));
    let (a50, a99) = (percentile(&mut added, 0.5), percentile(&mut added, 0.99));
    println!(
        "proxy 1 KB JSON, {n} paired rounds: direct p50 {d50:.0} us p99 {d99:.0} us; proxied p50 {q50:.0} us ({:.2}x) p99 {q99:.0} us ({:.2}x); added p50 {a50:.0} us, p99 {a99:.0} us (aim: p99 added under 1000 us: {})",
        q50 / d50,
        q99 / d99,
        if a99 < 1000.0 { "met" } else { "missed" }
    );
    let summary = p.stop();
    assert_eq!(summary.unjudged, 0, "every call was judged: {summary:?}");
}

fn sse_bench(_: &mut Criterion) {
    const EVENTS: usize = 5;
    let (addr, written) = server(true, EVENTS);
    let p = proxy_for(addr);
    let mut direct = Client::new(addr);
    let mut proxied = Client::new(p.addr());
    let n = (rounds() / 20).max(20);
    let (mut d, mut q) = (Vec::new(), Vec::new());
    for _ in 0..n {
        for (client, out) in [(&mut direct, &mut d), (&mut proxied, &mut q)] {
            let read = client.call_sse(EVENTS);
            // The server records its write times once the stream is written.
            let sent = loop {
                let w = written.lock().unwrap().clone();
                if w.len() == EVENTS && w[EVENTS - 1] <= read[EVENTS - 1] {
                    break w;
                }
                std::thread::sleep(Duration::from_micros(100));
            };
            written.lock().unwrap().clear();
            for (w, r) in sent.iter().zip(&read) {
                out.push(us(r.saturating_duration_since(*w)));
            }
        }
    }
    let (d50, d99) = (percentile(&mut d, 0.5), percentile(&mut d, 0.99));
    let (q50, q99) = (percentile(&mut q, 0.5), percentile(&mut q, 0.99));
    println!(
        "proxy SSE, {} events in {n} paired streams: write-to-read direct p50 {d50:.0} us p99 {d99:.0} us; proxied p50 {q50:.0} us ({:.2}x) p99 {q99:.0} us ({:.2}x); added p50 {:.0} us, p99 {:.0} us (aim: each event forwarded within 1000 us: {})",
        n * EVENTS,
        q50 / d50,
        q99 / d99,
        q50 - d50,
        q99 - d99,
        if q99 - d99 < 1000.0 { "met" } else { "missed" }
    );
    p.stop();
}

fn main() {
    let mut c = Criterion::default().configure_from_args();
    json_bench(&mut c);
    sse_bench(&mut c);
    c.final_summary();
}
