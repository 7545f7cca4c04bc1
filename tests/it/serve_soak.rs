//! `serve` under sustained load: resident memory stays bounded (diagnostic records in a ring,
//! sessions that expire or are evicted), and idle connections past the cap cost no thread.
//!
//! The always-on runs are small enough for a debug build on two cores. The full soak
//! (200,000 calls against a release build) is `#[ignore]`d:
//!
//! ```sh
//! cargo build --release
//! MCP_VERDICT_SOAK_BIN=target/release/mcp-verdict MCP_VERDICT_SOAK_CALLS=200000 \
//!     cargo test --test it serve_soak::full_soak -- --ignored --nocapture
//! ```
//!
//! Linux only (resident memory and thread counts come from `/proc`); elsewhere the tests
//! print `SKIP`.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A `serve` process, killed when dropped.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Server {
    fn start(bin: &Path, extra: &[&str]) -> Server {
        let mut child = Command::new(bin)
            .args(["serve", "--port", "0", "--quiet"])
            .args(extra)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("serve starts");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let url = line.trim().strip_prefix("listening on ").expect(&line);
        let hostport = url
            .strip_prefix("http://")
            .and_then(|r| r.split('/').next())
            .unwrap();
        Server {
            child,
            addr: hostport.parse().unwrap(),
        }
    }

    /// A field of `/proc/<pid>/status` (`VmRSS` in KiB, `Threads`), when there is one.
    fn status(&self, field: &str) -> Option<u64> {
        let text = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        text.lines()
            .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
            .and_then(|v| v.split_whitespace().next()?.parse().ok())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn has_proc() -> bool {
    Path::new("/proc/self/status").exists()
}

const MODERN_CALL: &str = r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"},"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"soak","version":"1"}}}}"#;
const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"soak","version":"1"}}}"#;

/// One keep-alive connection making calls.
struct Driver {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Driver {
    fn open(addr: SocketAddr) -> Driver {
        let stream = TcpStream::connect(addr).unwrap();
        stream.set_nodelay(true).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .unwrap();
        Driver {
            stream,
            buf: Vec::new(),
        }
    }

    /// POSTs `body` and reads the response; returns its status.
    fn post(&mut self, body: &str, modern: bool) -> u16 {
        let mut req = String::with_capacity(512 + body.len());
        req.push_str("POST /mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n");
        if modern {
            req.push_str(
                "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/call\r\nMcp-Name: echo\r\n",
            );
        }
        req.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
        self.stream.write_all(req.as_bytes()).unwrap();
        let mut chunk = [0u8; 8192];
        loop {
            if let Some(end) = self.buf.windows(4).position(|w| w == b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&self.buf[..end]).into_owned();
                let status: u16 = head[9..12].parse().unwrap();
                let len: usize = head
                    .lines()
                    .find_map(|l| {
                        let (n, v) = l.split_once(':')?;
                        n.eq_ignore_ascii_case("content-length")
                            .then(|| v.trim().parse().ok())?
                    })
                    .expect("a Content-Length response");
                while self.buf.len() < end + 4 + len {
                    let n = self.stream.read(&mut chunk).unwrap();
                    assert!(n > 0, "the server closed a keep-alive connection");
                    self.buf.extend_from_slice(&chunk[..n]);
                }
                self.buf.drain(..end + 4 + len);
                return status;
            }
            let n = self.stream.read(&mut chunk).unwrap();
            assert!(n > 0, "the server closed a keep-alive connection");
            self.buf.extend_from_slice(&chunk[..n]);
        }
    }
}

/// Makes `calls` POSTs on `conns` keep-alive connections (one in 20 an `initialize` that
/// opens a 2025-11-25 session never deleted, the rest 2026-07-28 `echo` calls) and returns the
/// resident set (KiB) after the first tenth and at the end.
fn soak(server: &Server, calls: usize, conns: usize) -> (u64, u64) {
    let per = calls / conns;
    let warm = calls / 10;
    let mut warm_rss = 0;
    let mut drivers: Vec<Driver> = (0..conns).map(|_| Driver::open(server.addr)).collect();
    for i in 0..per {
        for d in &mut drivers {
            let status = if i % 20 == 19 {
                d.post(INITIALIZE, false)
            } else {
                d.post(MODERN_CALL, true)
            };
            assert_eq!(status, 200);
        }
        if (i + 1) * conns == warm.max(conns) {
            warm_rss = server.status("VmRSS").unwrap();
        }
    }
    (warm_rss, server.status("VmRSS").unwrap())
}

/// Resident memory grows by less than a fixed bound from the first tenth of the calls to the
/// last (before records were kept in a ring and sessions expired, ~0.65 KB per call).
#[test]
fn resident_memory_stays_bounded() {
    if !has_proc() {
        eprintln!("SKIP serve_soak: no /proc");
        return;
    }
    let server = Server::start(Path::new(env!("CARGO_BIN_EXE_mcp-verdict")), &[]);
    let calls = 40_000;
    let (warm, end) = soak(&server, calls, 2);
    eprintln!(
        "serve RSS after {} calls: {warm} KiB; after {calls}: {end} KiB",
        calls / 10
    );
    assert!(
        end.saturating_sub(warm) < 6 * 1024,
        "resident memory grew from {warm} KiB to {end} KiB over {calls} calls"
    );
}

/// The 200,000-call soak against a chosen binary (a release build), with the figures printed.
#[test]
#[ignore = "minutes in a debug build; run with MCP_VERDICT_SOAK_BIN and --ignored"]
fn full_soak() {
    if !has_proc() {
        eprintln!("SKIP serve_soak: no /proc");
        return;
    }
    let bin = std::env::var("MCP_VERDICT_SOAK_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_mcp-verdict").to_string());
    let calls: usize = std::env::var("MCP_VERDICT_SOAK_CALLS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000);
    let server = Server::start(Path::new(&bin), &[]);
    let started = Instant::now();
    let (warm, end) = soak(&server, calls, 2);
    eprintln!(
        "{bin}: serve RSS after {} calls: {warm} KiB; after {calls}: {end} KiB ({:.1} s)",
        calls / 10,
        started.elapsed().as_secs_f64()
    );
}

/// Opens `n` connections that never send a byte and returns the server's thread count then.
fn idle_threads(server: &Server, n: usize) -> (u64, Vec<TcpStream>) {
    let socks: Vec<TcpStream> = (0..n)
        .map(|_| TcpStream::connect(server.addr).unwrap())
        .collect();
    // Let the accept loop catch up with the connections (bounded wait).
    let deadline = Instant::now() + Duration::from_secs(10);
    let mut last = 0;
    loop {
        std::thread::sleep(Duration::from_millis(200));
        let t = server.status("Threads").unwrap();
        if (t == last && t > 1) || Instant::now() >= deadline {
            return (t, socks);
        }
        last = t;
    }
}

/// The thread count for 5,000 idle sockets against a chosen binary, printed.
#[test]
#[ignore = "opens 5,000 sockets; run with MCP_VERDICT_SOAK_BIN and --ignored"]
fn idle_sockets_full() {
    if !has_proc() {
        eprintln!("SKIP serve_soak: no /proc");
        return;
    }
    let bin = std::env::var("MCP_VERDICT_SOAK_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_mcp-verdict").to_string());
    let server = Server::start(Path::new(&bin), &[]);
    let (threads, _socks) = idle_threads(&server, 5_000);
    eprintln!("{bin}: {threads} threads with 5000 idle sockets");
}

/// Idle sockets past the connection cap cost no thread (before the cap, one thread each).
#[test]
fn idle_sockets_past_the_cap_cost_no_thread() {
    if !has_proc() {
        eprintln!("SKIP serve_soak: no /proc");
        return;
    }
    let server = Server::start(
        Path::new(env!("CARGO_BIN_EXE_mcp-verdict")),
        &["--max-connections", "20"],
    );
    let (threads, _socks) = idle_threads(&server, 300);
    assert!(
        threads <= 20 + 6,
        "{threads} threads for 300 idle sockets with --max-connections 20"
    );
}
