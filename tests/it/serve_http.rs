//! HTTP layer of `serve`: framing, keep-alive, methods, Origin, shutdown.

use std::net::{IpAddr, TcpListener};
use std::time::Duration;

use mcp_verdict::Protocol;
use mcp_verdict::serve::{self, ServeConfig};
use mcp_verdict::views::diag::{Side, StreamEnd};
use serde_json::json;

use crate::support::serve::*;
use crate::support::temp::temp_dir;

const WAIT: Duration = Duration::from_secs(5);

#[test]
fn url_and_port_zero() {
    let h = start("baseline");
    assert_ne!(h.addr().port(), 0);
    assert!(h.addr().ip().is_loopback());
    assert_eq!(h.url(), format!("http://127.0.0.1:{}/mcp", h.addr().port()));
    h.shutdown();
}

#[test]
fn keep_alive_serves_several_requests_on_one_connection() {
    let h = start("baseline");
    let mut c = Conn::open(h.addr());
    for i in 0..3 {
        let (hd, body) = call_request(
            Protocol::V2026_07_28,
            None,
            json!(i),
            "echo",
            json!({"text": format!("n{i}")}),
            json!({}),
        );
        c.send("POST", "/mcp", &hd, body.to_string().as_bytes());
        let r = c.read(WAIT);
        assert_eq!(r.status, 200);
        assert_eq!(r.header("connection"), None);
        assert_eq!(r.json()["result"]["content"][0]["text"], format!("n{i}"));
        assert_eq!(r.json()["id"], i);
    }
    assert_eq!(h.post_count(), 3);
    let recs = settled_records(&h);
    assert_eq!(recs.len(), 3);
    assert_eq!(
        recs.iter().map(|r| r.post_count).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    h.shutdown();
}

#[test]
fn connection_close_is_honoured() {
    let h = start("baseline");
    let mut c = Conn::open(h.addr());
    let (mut hd, body) = call_request(
        Protocol::V2026_07_28,
        None,
        json!(1),
        "echo",
        json!({"text": "x"}),
        json!({}),
    );
    hd.push(("Connection", "close".into()));
    c.send("POST", "/mcp", &hd, body.to_string().as_bytes());
    assert_eq!(c.read(WAIT).status, 200);
    assert!(c.closed_by_server(WAIT));
    h.shutdown();
}

#[test]
fn pipelined_requests_are_answered_in_order() {
    let h = start("baseline");
    let mut c = Conn::open(h.addr());
    let mut bytes = Vec::new();
    for i in 1..=2 {
        let body = json!({"jsonrpc":"2.0","id":i,"method":"tools/list","params":{"_meta": modern_meta(json!({}))}}).to_string();
        bytes.extend_from_slice(
            format!(
                "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: tools/list\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        );
    }
    c.send_raw(&bytes);
    assert_eq!(c.read(WAIT).json()["id"], 1);
    assert_eq!(c.read(WAIT).json()["id"], 2);
    h.shutdown();
}

#[test]
fn expect_100_continue() {
    let h = start("baseline");
    let mut c = Conn::open(h.addr());
    let body = json!({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta": modern_meta(json!({}))}}).to_string();
    c.send_raw(
        format!(
            "POST /mcp HTTP/1.1\r\nHost: x\r\nMCP-Protocol-Version: 2026-07-28\r\nMcp-Method: server/discover\r\nExpect: 100-continue\r\nContent-Length: {}\r\n\r\n",
            body.len()
        )
        .as_bytes(),
    );
    let mut first = [0u8; 25];
    use std::io::Read;
    c.stream.set_read_timeout(Some(WAIT)).unwrap();
    c.stream.read_exact(&mut first).unwrap();
    assert_eq!(&first, b"HTTP/1.1 100 Continue\r\n\r\n");
    c.send_raw(body.as_bytes());
    let r = c.read(WAIT);
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["result"]["resultType"], "complete");
    h.shutdown();
}

#[test]
fn chunked_request_bodies_are_refused_politely() {
    let h = start("baseline");
    let mut c = Conn::open(h.addr());
    c.send_raw(
        b"POST /mcp HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n",
    );
    let r = c.read(WAIT);
    assert_eq!(r.status, 411);
    assert_eq!(r.header("connection"), Some("close"));
    assert!(r.text().contains("Content-Length"), "{}", r.text());
    h.shutdown();
}

#[test]
fn malformed_http_gets_400() {
    let h = start("baseline");
    let mut c = Conn::open(h.addr());
    c.send_raw(b"NOT HTTP AT ALL\r\n\r\n");
    assert_eq!(c.read(WAIT).status, 400);
    h.shutdown();
}

#[test]
fn get_and_other_methods_are_405() {
    let h = start("baseline");
    for method in ["GET", "PUT", "OPTIONS"] {
        let mut c = Conn::open(h.addr());
        c.send(
            method,
            "/mcp",
            &[("Accept", "text/event-stream".into())],
            b"",
        );
        let r = c.read(WAIT);
        assert_eq!(r.status, 405, "{method}");
        assert_eq!(r.header("allow"), Some("POST, DELETE"));
    }
    // DELETE without a session: 405 too (2026-07-28 has no sessions).
    let mut c = Conn::open(h.addr());
    c.send("DELETE", "/mcp", &[], b"");
    assert_eq!(c.read(WAIT).status, 405);
    // None of these is a POST.
    assert_eq!(h.post_count(), 0);
    h.shutdown();
}

#[test]
fn other_paths_are_404_and_not_counted() {
    let h = start_with("baseline", |c| c.path = "/custom".into());
    assert!(h.url().ends_with("/custom"));
    let r = post(h.addr(), &[], &json!({}));
    assert_eq!(r.status, 404);
    assert_eq!(h.post_count(), 0);
    let mut c = Conn::open(h.addr());
    c.send("POST", "/custom?x=1", &modern_headers("server/discover", None), json!({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta": modern_meta(json!({}))}}).to_string().as_bytes());
    assert_eq!(c.read(WAIT).status, 200);
    assert_eq!(h.post_count(), 1);
    h.shutdown();
}

#[test]
fn origin_is_validated() {
    let h = start_with("baseline", |c| {
        c.allowed_origins = vec!["https://trusted.example".into()]
    });
    let body = json!({"jsonrpc":"2.0","id":1,"method":"server/discover","params":{"_meta": modern_meta(json!({}))}});
    for (origin, status) in [
        ("http://evil.example", 403),
        ("null", 403),
        ("http://localhost:5173", 200),
        ("http://127.0.0.1:9", 200),
        ("https://trusted.example", 200),
    ] {
        let mut hd = modern_headers("server/discover", None);
        hd.push(("Origin", origin.into()));
        let r = post(h.addr(), &hd, &body);
        assert_eq!(r.status, status, "{origin}");
        if status == 403 {
            let v = r.json();
            assert_eq!(v["error"]["code"], -32600);
            assert!(v.get("id").is_none(), "403 error has no id: {v}");
        }
    }
    h.shutdown();
}

#[test]
fn invalid_json_and_batches() {
    let h = start("baseline");
    let r = post_raw(
        h.addr(),
        &modern_headers("tools/call", Some("echo")),
        b"{nope",
        WAIT,
    );
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32700);
    let r = post(
        h.addr(),
        &modern_headers("tools/list", None),
        &json!([{"jsonrpc":"2.0","id":1,"method":"tools/list"}]),
    );
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32600);
    let r = post(
        h.addr(),
        &modern_headers("tools/list", None),
        &json!({"jsonrpc":"2.0","id":null,"method":"tools/list"}),
    );
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32600);
    h.shutdown();
}

#[test]
fn shutdown_joins_threads_and_frees_the_port() {
    // On a loopback address no other test binds, so a port freed here is not taken by another
    // test's server (they bind 127.0.0.1:0, in parallel) before it is checked.
    let own = IpAddr::from([127, 0, 0, 2]);
    for _ in 0..20 {
        let h = start_with("baseline", |c| c.host = own);
        let addr = h.addr();
        assert_eq!(addr.ip(), own);
        // An idle keep-alive connection must not keep the server alive.
        let mut c = Conn::open(addr);
        c.send("GET", "/mcp", &[], b"");
        assert_eq!(c.read(WAIT).status, 405);
        let t = std::time::Instant::now();
        h.shutdown();
        assert!(
            t.elapsed() < Duration::from_secs(2),
            "shutdown took {:?}",
            t.elapsed()
        );
        // Freed: the address binds again (a connection attempt could reach a socket connected
        // to itself, which loopback allows when the kernel picks the same port as the source).
        let again = TcpListener::bind(addr);
        assert!(
            again.is_ok(),
            "{addr} still bound after shutdown: {again:?}"
        );
    }
}

#[test]
fn records_and_log_file() {
    let dir = temp_dir("serve-log");
    let log = dir.join("serve.jsonl");
    let _ = std::fs::remove_file(&log);
    let h = serve::start(ServeConfig {
        scenario: "jsonrpc_error:-32603".parse().unwrap(),
        log_path: Some(log.clone()),
        ..ServeConfig::default()
    })
    .unwrap();
    let r = echo_call(h.addr(), Protocol::V2026_07_28, None);
    assert_eq!(r.json()["error"]["code"], -32603);
    let recs = settled_records(&h);
    h.shutdown();
    assert_eq!(recs.len(), 1);
    let rec = &recs[0];
    assert_eq!(rec.side, Side::Serve);
    assert_eq!(rec.client.as_deref(), Some("raw-test@0.0.1"));
    assert_eq!(rec.protocol_version.as_deref(), Some(MODERN));
    assert_eq!(rec.scenario.as_deref(), Some("jsonrpc_error:-32603"));
    assert_eq!(rec.method.as_deref(), Some("tools/call"));
    assert_eq!(rec.post_count, 1);
    assert_eq!(rec.http_statuses, [200]);
    assert_eq!(rec.content_type.as_deref(), Some("application/json"));
    assert_eq!(rec.sse_event_count, None);
    assert!(rec.final_response);
    assert_eq!(rec.stream_end, StreamEnd::Complete);
    assert_eq!(rec.jsonrpc.id, Some(json!(7)));
    assert_eq!(rec.jsonrpc.error_code, Some(-32603));
    // serve judged what it sent.
    assert_eq!(rec.outcome.as_deref(), Some("JSONRPC_ERROR"));
    assert_eq!(rec.rule.as_deref(), Some("jsonrpc.error-response"));
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 1);
    let v: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(v["side"], "serve");
    assert_eq!(v["jsonrpc"]["errorCode"], -32603);
    assert_eq!(v["retryOrigin"], "none");
    assert_eq!(v["outcome"], "JSONRPC_ERROR");
    assert_eq!(v["retryAdvice"]["action"], "do_not_retry");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn http_1_0_sse_is_close_delimited() {
    let h = start("sse_progress");
    let mut c = Conn::open(h.addr());
    let (hd, body) = call_request(
        Protocol::V2026_07_28,
        None,
        json!(1),
        "echo",
        json!({"text": "a"}),
        json!({}),
    );
    let mut req = String::from("POST /mcp HTTP/1.0\r\n");
    for (k, v) in &hd {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    let body = body.to_string();
    req.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    c.send_raw(req.as_bytes());
    let r = c.read(WAIT);
    assert!(!r.chunked);
    assert_eq!(r.header("connection"), Some("close"));
    assert_eq!(r.messages().len(), 4);
    h.shutdown();
}
