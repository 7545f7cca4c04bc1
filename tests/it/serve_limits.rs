//! `serve`'s limits: differing `Content-Length` values, the exact head limit, an oversized
//! body the client can still read the `413` for, the connection cap (`503` + `Retry-After`),
//! records kept in a ring, sessions that expire or are evicted, and the warning when binding
//! beyond loopback.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::process::Stdio;
use std::time::{Duration, Instant};

use mcp_verdict::Protocol;
use serde_json::json;

use crate::support::cli::bin;
use crate::support::serve::*;

const WAIT: Duration = Duration::from_secs(5);

fn echo_bytes() -> (Vec<(&'static str, String)>, Vec<u8>) {
    let (h, b) = call_request(
        Protocol::V2026_07_28,
        None,
        json!(1),
        "echo",
        json!({"text": "hi"}),
        json!({}),
    );
    (h, b.to_string().into_bytes())
}

/// A raw request head with these extra lines, then the body.
fn raw(extra: &str, body: &[u8]) -> Vec<u8> {
    let (h, _) = echo_bytes();
    let mut head = String::from("POST /mcp HTTP/1.1\r\nHost: localhost\r\n");
    for (k, v) in h {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(extra);
    head.push_str("\r\n");
    let mut out = head.into_bytes();
    out.extend_from_slice(body);
    out
}

#[test]
fn differing_content_lengths_are_rejected() {
    let h = start("baseline");
    let (_, body) = echo_bytes();
    let n = body.len();
    for (extra, want) in [
        (
            format!("Content-Length: {n}\r\nContent-Length: {}\r\n", n + 1),
            400,
        ),
        (format!("Content-Length: {n}, {}\r\n", n + 1), 400),
        (format!("Content-Length: +{n}\r\n"), 400),
        (
            format!("Content-Length: {n}\r\nContent-Length: {n}\r\n"),
            200,
        ),
        (format!("Content-Length: {n}, {n}\r\n"), 200),
    ] {
        let mut c = Conn::open(h.addr());
        c.send_raw(&raw(&extra, &body));
        let r = c.read(WAIT);
        assert_eq!(r.status, want, "{extra:?}: {}", r.text());
        if want == 400 {
            assert!(r.text().contains("Content-Length"), "{}", r.text());
        }
    }
    h.shutdown();
}

#[test]
fn the_head_limit_is_exact() {
    let h = start("baseline");
    let (_, body) = echo_bytes();
    let cl = format!("Content-Length: {}\r\n", body.len());
    let base = raw(&cl, b"").len() + "X-Pad: \r\n".len();
    for (size, want) in [(65_536usize, 200u16), (65_537, 431), (70_000, 431)] {
        let pad = "a".repeat(size - base);
        let bytes = raw(&format!("{cl}X-Pad: {pad}\r\n"), &body);
        assert_eq!(bytes.len() - body.len(), size);
        let mut c = Conn::open(h.addr());
        c.send_raw(&bytes);
        assert_eq!(c.read(WAIT).status, want, "a head of {size} bytes");
    }
    h.shutdown();
}

#[test]
fn an_oversized_body_is_drained_so_the_413_can_be_read() {
    let h = start("baseline");
    let len = 6 * 1024 * 1024;
    let mut c = Conn::open(h.addr());
    c.send_raw(&raw(&format!("Content-Length: {len}\r\n"), b""));
    // The client sends the whole body before reading, as simple clients do.
    let block = vec![b' '; 64 * 1024];
    let mut sent = 0;
    while sent < len {
        c.stream
            .write_all(&block)
            .expect("the server reads the body");
        sent += block.len();
    }
    let r = c.read(WAIT);
    assert_eq!(r.status, 413, "{}", r.text());
    assert_eq!(r.header("connection"), Some("close"));
    h.shutdown();
}

#[test]
fn connections_past_the_cap_get_503_with_retry_after() {
    let h = start_with("baseline", |c| c.max_connections = 3);
    let idle: Vec<TcpStream> = (0..3)
        .map(|_| TcpStream::connect(h.addr()).unwrap())
        .collect();
    let deadline = Instant::now() + WAIT;
    while h.active_connections() < 3 {
        assert!(Instant::now() < deadline, "the idle connections are served");
        std::thread::sleep(Duration::from_millis(10));
    }
    let (hd, body) = echo_bytes();
    let r = post_raw(h.addr(), &hd, &body, WAIT);
    assert_eq!(r.status, 503, "{}", r.text());
    assert_eq!(r.header("retry-after"), Some("1"));
    assert!(r.text().contains("--max-connections"), "{}", r.text());
    assert_eq!(h.post_count(), 0, "a refused request is never handled");
    drop(idle);
    let deadline = Instant::now() + WAIT;
    while h.active_connections() > 0 {
        assert!(
            Instant::now() < deadline,
            "closed connections free their slots"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    assert_eq!(post_raw(h.addr(), &hd, &body, WAIT).status, 200);
    h.shutdown();
}

#[test]
fn records_are_kept_in_a_ring() {
    let h = start_with("baseline", |c| c.keep_records = 4);
    let mut c = Conn::open(h.addr());
    let (hd, body) = echo_bytes();
    for _ in 0..10 {
        c.send("POST", "/mcp", &hd, &body);
        assert_eq!(c.read(WAIT).status, 200);
    }
    let recs = h.wait_for_records(10, WAIT);
    assert_eq!(h.records_total(), 10);
    assert_eq!(
        recs.iter().map(|r| r.post_count).collect::<Vec<_>>(),
        [7, 8, 9, 10]
    );
    h.shutdown();
}

#[test]
fn sessions_expire_and_are_evicted_past_the_cap() {
    let h = start_with("baseline", |c| {
        c.session_ttl = Duration::from_millis(300);
        c.max_sessions = 2;
    });
    let a = legacy_session(h.addr(), json!({}));
    assert_eq!(
        echo_call(h.addr(), Protocol::V2025_11_25, Some(&a)).status,
        200
    );
    std::thread::sleep(Duration::from_millis(600));
    assert_eq!(
        echo_call(h.addr(), Protocol::V2025_11_25, Some(&a)).status,
        404,
        "an expired session is unknown"
    );
    let b = legacy_session(h.addr(), json!({}));
    let c = legacy_session(h.addr(), json!({}));
    let d = legacy_session(h.addr(), json!({}));
    assert!(h.session_count() <= 2);
    assert_eq!(
        echo_call(h.addr(), Protocol::V2025_11_25, Some(&b)).status,
        404
    );
    for s in [&c, &d] {
        assert_eq!(
            echo_call(h.addr(), Protocol::V2025_11_25, Some(s)).status,
            200
        );
    }
    h.shutdown();
}

/// Reads stderr lines of `serve` until one contains `want` (or a few seconds pass).
fn serve_stderr(host: &str) -> String {
    let mut child = bin()
        .args(["serve", "--port", "0", "--quiet", "--host", host])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut seen = String::new();
    // The last startup line names the scenario.
    for line in lines.by_ref().map_while(Result::ok) {
        seen.push_str(&line);
        seen.push('\n');
        if line.contains("scenario") {
            break;
        }
    }
    child.kill().unwrap();
    let _ = child.wait();
    seen
}

#[test]
fn binding_beyond_loopback_warns() {
    let wide = serve_stderr("0.0.0.0");
    assert!(
        wide.contains("warning") && wide.contains("0.0.0.0"),
        "{wide}"
    );
    let local = serve_stderr("127.0.0.1");
    assert!(!local.contains("warning"), "{local}");
}
