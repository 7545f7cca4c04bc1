//! Every scenario in the table, under both revisions, checked on the wire.

use std::time::{Duration, Instant};

use mcp_verdict::Protocol;
use mcp_verdict::serve::{SCENARIOS, ScenarioInfo, ServerHandle, Transport};
use mcp_verdict::views::diag::StreamEnd;
use serde_json::{Value, json};

use crate::support::serve::*;

const WAIT: Duration = Duration::from_secs(5);

/// Scenario names this file checks; must equal the table.
const TESTED: &[&str] = &[
    "baseline",
    "http_status_sequence",
    "jsonrpc_error",
    "tool_error",
    "input_required",
    "legacy_result",
    "invalid_result",
    "malformed_json",
    "wrong_id",
    "non2xx_valid_body",
    "html_error_page",
    "wrong_content_type",
    "accepted_no_body",
    "sse_progress",
    "sse_close_early",
    "sse_reset",
    "sse_stall",
    "sse_malformed_event",
    "rate_limited",
    "server_request_on_stream",
    "lenient",
    // Its wire tests, with probe as the OAuth client: tests/it/serve_auth.rs.
    "auth",
];

#[test]
fn every_table_scenario_has_a_wire_test() {
    // The stdio scenarios have theirs in `serve_stdio`.
    let http: Vec<&ScenarioInfo> = SCENARIOS
        .iter()
        .filter(|s| s.transports.contains(&Transport::Http))
        .collect();
    let names: Vec<&str> = http.iter().map(|s| s.name).collect();
    assert_eq!(names, TESTED);
    for s in http {
        assert_eq!(
            s.revisions,
            Protocol::all().collect::<Vec<_>>(),
            "{} applies to both revisions",
            s.name
        );
    }
}

/// Starts a server with the scenario's table example and a client for `rev`.
fn begin(name: &str, rev: Protocol) -> (ServerHandle, Option<String>) {
    let info = SCENARIOS.iter().find(|s| s.name == name).unwrap();
    let h = start(info.example);
    let sid = setup(h.addr(), rev, json!({"elicitation": {}}));
    (h, sid)
}

/// The echo result as the server builds it ("hi"), per revision.
fn assert_echo_result(msg: &Value, rev: Protocol) {
    assert_eq!(msg["jsonrpc"], "2.0");
    assert_eq!(msg["id"], 7, "{msg}");
    let res = &msg["result"];
    assert_eq!(
        res["content"],
        json!([{"type": "text", "text": "hi"}]),
        "{msg}"
    );
    assert_eq!(res["isError"], false);
    match rev {
        Protocol::V2026_07_28 => {
            assert_eq!(res["resultType"], "complete");
            assert!(res["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());
        }
        Protocol::V2025_11_25 => assert!(res.get("resultType").is_none(), "{msg}"),
    }
}

fn last_call_record(h: &ServerHandle) -> mcp_verdict::views::diag::DiagRecord {
    settled_records(h)
        .into_iter()
        .rev()
        .find(|r| r.method.as_deref() == Some("tools/call"))
        .expect("a tools/call record")
}

fn both(f: impl Fn(Protocol)) {
    for rev in Protocol::all() {
        f(rev);
    }
}

/// echo with a progress token in `_meta`, for the SSE scenarios.
fn echo_with_token(
    h: &ServerHandle,
    rev: Protocol,
    sid: Option<&str>,
) -> (Vec<(&'static str, String)>, Value) {
    let (hd, mut b) = call_request(rev, sid, json!(7), "echo", json!({"text": "hi"}), json!({}));
    match rev {
        Protocol::V2026_07_28 => b["params"]["_meta"]["progressToken"] = json!("pt"),
        Protocol::V2025_11_25 => b["params"]["_meta"] = json!({"progressToken": "pt"}),
    }
    let _ = h;
    (hd, b)
}

fn assert_sse_head(r: &Resp) {
    assert_eq!(r.status, 200);
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    assert_eq!(r.header("x-accel-buffering"), Some("no"));
    assert_eq!(r.header("cache-control"), Some("no-cache"));
    assert_eq!(r.header("transfer-encoding"), Some("chunked"));
    assert!(r.header("content-length").is_none());
}

fn assert_progress(chunk: &[u8], n: u64) {
    let text = std::str::from_utf8(chunk).unwrap();
    assert!(
        text.starts_with("data: {") && text.ends_with("}\n\n"),
        "one event per chunk: {text:?}"
    );
    let v: Value = serde_json::from_str(text.trim_start_matches("data: ").trim_end()).unwrap();
    assert_eq!(v["method"], "notifications/progress");
    assert_eq!(v["params"]["progressToken"], "pt");
    assert_eq!(v["params"]["progress"], n);
    assert!(v.get("id").is_none());
}

/// Splits off the priming event (2025-11-25) and checks its exact bytes.
fn skip_priming(chunks: &[Vec<u8>], rev: Protocol) -> usize {
    match rev {
        Protocol::V2025_11_25 => {
            let p = std::str::from_utf8(&chunks[0]).unwrap();
            let (id_line, rest) = p.split_once('\n').unwrap();
            assert!(
                id_line.starts_with("id: ") && id_line.len() > 4,
                "priming: {p:?}"
            );
            assert_eq!(rest, "data: \n\n", "priming: {p:?}");
            1
        }
        Protocol::V2026_07_28 => 0,
    }
}

#[test]
fn baseline() {
    both(|rev| {
        let (h, sid) = begin("baseline", rev);
        let r = echo_call(h.addr(), rev, sid.as_deref());
        assert_eq!(r.status, 200);
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert_eq!(
            r.header("content-length"),
            Some(r.body.len().to_string().as_str())
        );
        assert_echo_result(&r.json(), rev);
        let rec = last_call_record(&h);
        assert!(rec.final_response);
        assert_eq!(rec.stream_end, StreamEnd::Complete);
        assert_eq!(rec.protocol_version.as_deref(), Some(rev.as_str()));
        h.shutdown();
    });
}

#[test]
fn http_status_sequence_counts_posts_not_tool_calls() {
    // 2025-11-25: initialize is POST #1 and takes the 503.
    let h = start("http_status_sequence:503,200");
    let a = h.addr();
    let r = legacy_initialize(a, json!({}));
    assert_eq!(r.status, 503);
    assert_eq!(r.header("content-type"), Some("text/plain; charset=utf-8"));
    assert!(r.text().contains("POST #1"), "{}", r.text());
    assert!(r.header("mcp-session-id").is_none());
    let sid = legacy_session(a, json!({})); // POST #2 (200 entry) and #3 (past the list)
    let r = echo_call(a, Protocol::V2025_11_25, Some(&sid)); // POST #4
    assert_echo_result(&r.json(), Protocol::V2025_11_25);
    assert_eq!(h.post_count(), 4);
    // Records are appended as exchanges finish; order them by POST number.
    let mut recs = settled_records(&h);
    recs.sort_by_key(|r| r.post_count);
    let statuses: Vec<Vec<u16>> = recs.iter().map(|r| r.http_statuses.clone()).collect();
    assert_eq!(statuses, [vec![503], vec![200], vec![202], vec![200]]);
    assert_eq!(recs[0].method.as_deref(), Some("initialize"));
    h.shutdown();

    // 2026-07-28: tools/list takes the first status; the call goes through.
    let h = start("http_status_sequence:502,200,500");
    let a = h.addr();
    let list = json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta": modern_meta(json!({}))}});
    assert_eq!(
        post(a, &modern_headers("tools/list", None), &list).status,
        502
    );
    assert_echo_result(
        &echo_call(a, Protocol::V2026_07_28, None).json(),
        Protocol::V2026_07_28,
    );
    let r = echo_call(a, Protocol::V2026_07_28, None);
    assert_eq!(r.status, 500);
    assert!(r.text().starts_with("HTTP 500 Internal Server Error"));
    assert_echo_result(
        &echo_call(a, Protocol::V2026_07_28, None).json(),
        Protocol::V2026_07_28,
    );
    assert_eq!(h.post_count(), 4);
    h.shutdown();
}

#[test]
fn jsonrpc_error() {
    both(|rev| {
        let (h, sid) = begin("jsonrpc_error", rev);
        let r = echo_call(h.addr(), rev, sid.as_deref());
        assert_eq!(r.status, 200);
        assert_eq!(r.header("content-type"), Some("application/json"));
        let v = r.json();
        assert_eq!(v["id"], 7);
        assert_eq!(v["error"]["code"], -32602);
        assert!(v.get("result").is_none());
        assert_eq!(last_call_record(&h).jsonrpc.error_code, Some(-32602));
        h.shutdown();
    });
    let h = start("jsonrpc_error:-32099");
    assert_eq!(
        echo_call(h.addr(), Protocol::V2026_07_28, None).json()["error"]["code"],
        -32099
    );
    h.shutdown();
}

#[test]
fn tool_error() {
    both(|rev| {
        let (h, sid) = begin("tool_error", rev);
        let v = echo_call(h.addr(), rev, sid.as_deref()).json();
        assert_eq!(v["result"]["isError"], true);
        assert!(v["result"]["content"][0]["text"].is_string());
        assert_eq!(
            v["result"].get("resultType").is_some(),
            rev == Protocol::V2026_07_28
        );
        h.shutdown();
    });
}

#[test]
fn input_required() {
    // 2026-07-28: round 1 is input_required (the round trip is in serve_modern.rs).
    let (h, _) = begin("input_required", Protocol::V2026_07_28);
    let (hd, b) = call_request(
        Protocol::V2026_07_28,
        None,
        json!(7),
        "echo",
        json!({"text": "hi"}),
        json!({"elicitation": {}}),
    );
    let r = post(h.addr(), &hd, &b);
    let res = r.json()["result"].clone();
    assert_eq!(res["resultType"], "input_required");
    assert_eq!(
        res["inputRequests"]["confirm"]["method"],
        "elicitation/create"
    );
    assert!(res["requestState"].is_string());
    assert_eq!(
        last_call_record(&h).result_type.as_deref(),
        Some("input_required")
    );
    h.shutdown();

    // 2025-11-25: an elicitation/create request on the stream (answered in
    // serve_legacy.rs); unanswered, the call ends as a tool error.
    let h = start_with("input_required", |c| {
        c.stall_cap = Duration::from_millis(300)
    });
    let sid = legacy_session(h.addr(), json!({"elicitation": {}}));
    let r = echo_call(h.addr(), Protocol::V2025_11_25, Some(&sid));
    assert_sse_head(&r);
    let first = skip_priming(&r.chunks, Protocol::V2025_11_25);
    let req: Value = serde_json::from_str(
        std::str::from_utf8(&r.chunks[first])
            .unwrap()
            .trim_start_matches("data: ")
            .trim(),
    )
    .unwrap();
    assert_eq!(req["method"], "elicitation/create");
    assert!(req["id"].is_string());
    let last = r.messages().pop().unwrap();
    assert_eq!(last["id"], 7);
    assert_eq!(last["result"]["isError"], true);
    h.shutdown();
}

#[test]
fn legacy_result() {
    both(|rev| {
        let (h, sid) = begin("legacy_result", rev);
        let v = echo_call(h.addr(), rev, sid.as_deref()).json();
        let res = &v["result"];
        assert!(res.get("resultType").is_none(), "{v}");
        assert_eq!(res["content"][0]["text"], "hi");
        if rev == Protocol::V2026_07_28 {
            assert!(res["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());
        }
        assert_eq!(last_call_record(&h).result_type, None);
        h.shutdown();
    });
}

#[test]
fn invalid_result() {
    both(|rev| {
        let (h, sid) = begin("invalid_result", rev);
        let v = echo_call(h.addr(), rev, sid.as_deref()).json();
        assert_eq!(v["result"]["content"], "not-an-array");
        assert_eq!(v["id"], 7);
        h.shutdown();
    });
}

#[test]
fn malformed_json() {
    both(|rev| {
        let (h, sid) = begin("malformed_json", rev);
        let r = echo_call(h.addr(), rev, sid.as_deref());
        assert_eq!(r.status, 200);
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert_eq!(r.header("content-length"), Some("9"));
        assert_eq!(r.body, b"{unclosed");
        assert!(!last_call_record(&h).final_response);
        h.shutdown();
    });
}

#[test]
fn wrong_id() {
    both(|rev| {
        let (h, sid) = begin("wrong_id", rev);
        let mut v = echo_call(h.addr(), rev, sid.as_deref()).json();
        assert_eq!(v["id"], 99999);
        v["id"] = json!(7);
        assert_echo_result(&v, rev);
        let (hd, b) = call_request(
            rev,
            sid.as_deref(),
            json!(99999),
            "echo",
            json!({"text": "hi"}),
            json!({}),
        );
        assert_eq!(post(h.addr(), &hd, &b).json()["id"], 99998);
        h.shutdown();
    });
}

#[test]
fn non2xx_valid_body() {
    both(|rev| {
        let (h, sid) = begin("non2xx_valid_body", rev);
        let r = echo_call(h.addr(), rev, sid.as_deref());
        assert_eq!(r.status, 500);
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert_echo_result(&r.json(), rev);
        h.shutdown();
    });
    let h = start("non2xx_valid_body:503");
    assert_eq!(echo_call(h.addr(), Protocol::V2026_07_28, None).status, 503);
    h.shutdown();
}

#[test]
fn html_error_page() {
    both(|rev| {
        let (h, sid) = begin("html_error_page", rev);
        let r = echo_call(h.addr(), rev, sid.as_deref());
        assert_eq!(r.status, 200);
        assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"));
        assert!(r.text().starts_with("<!DOCTYPE html>"));
        assert!(serde_json::from_slice::<Value>(&r.body).is_err());
        h.shutdown();
    });
    let h = start("html_error_page:502");
    let r = echo_call(h.addr(), Protocol::V2026_07_28, None);
    assert_eq!(r.status, 502);
    assert!(r.text().contains("<h1>502 Bad Gateway</h1>"));
    h.shutdown();
}

#[test]
fn wrong_content_type() {
    both(|rev| {
        let (h, sid) = begin("wrong_content_type", rev);
        let r = echo_call(h.addr(), rev, sid.as_deref());
        assert_eq!(r.status, 200);
        assert_eq!(r.header("content-type"), Some("text/plain; charset=utf-8"));
        assert_echo_result(&r.json(), rev);
        h.shutdown();
    });
}

#[test]
fn accepted_no_body() {
    both(|rev| {
        let (h, sid) = begin("accepted_no_body", rev);
        let (hd, b) = call_request(
            rev,
            sid.as_deref(),
            json!(7),
            "echo",
            json!({"text": "hi"}),
            json!({}),
        );
        let mut c = Conn::open(h.addr());
        c.send("POST", "/mcp", &hd, b.to_string().as_bytes());
        let r = c.read(WAIT);
        assert_eq!(r.status, 202);
        assert_eq!(r.header("content-length"), Some("0"));
        assert!(r.header("content-type").is_none());
        assert!(r.body.is_empty());
        // The connection stays usable.
        c.send("POST", "/mcp", &hd, b.to_string().as_bytes());
        assert_eq!(c.read(WAIT).status, 202);
        let rec = last_call_record(&h);
        assert!(!rec.final_response);
        assert_eq!(rec.content_type, None);
        h.shutdown();
    });
}

#[test]
fn sse_progress() {
    both(|rev| {
        let (h, sid) = begin("sse_progress", rev);
        let (hd, b) = echo_with_token(&h, rev, sid.as_deref());
        let r = post(h.addr(), &hd, &b);
        assert_sse_head(&r);
        assert_eq!(r.header("connection"), None);
        assert_eq!(r.end, End::Complete);
        let first = skip_priming(&r.chunks, rev);
        assert_eq!(r.chunks.len(), first + 4);
        for i in 0..3 {
            assert_progress(&r.chunks[first + i], i as u64 + 1);
        }
        assert_echo_result(r.messages().last().unwrap(), rev);
        assert!(r.raw_body.ends_with(b"}\n\n\r\n0\r\n\r\n"));
        let rec = last_call_record(&h);
        assert_eq!(rec.sse_event_count, Some(first as u64 + 4));
        assert!(rec.final_response);
        assert_eq!(rec.stream_end, StreamEnd::Complete);
        h.shutdown();
    });
}

#[test]
fn sse_progress_without_token_uses_a_request_derived_token() {
    let h = start("sse_progress");
    let r = echo_call(h.addr(), Protocol::V2026_07_28, None);
    assert_eq!(
        r.messages()[0]["params"]["progressToken"],
        "mcp-verdict-progress-7"
    );
    h.shutdown();
}

#[test]
fn sse_close_early() {
    both(|rev| {
        let (h, sid) = begin("sse_close_early", rev);
        let (hd, b) = echo_with_token(&h, rev, sid.as_deref());
        let mut c = Conn::open(h.addr());
        c.send("POST", "/mcp", &hd, b.to_string().as_bytes());
        let r = c.read(WAIT);
        assert_sse_head(&r);
        assert_eq!(r.header("connection"), Some("close"));
        assert_eq!(
            r.end,
            End::Complete,
            "the chunked body is terminated cleanly"
        );
        assert_eq!(r.chunks.len(), 3);
        for i in 0..3 {
            assert_progress(&r.chunks[i], i as u64 + 1);
        }
        assert!(
            r.events().iter().all(|(id, _)| id.is_none()),
            "no event ids"
        );
        assert!(c.closed_by_server(WAIT));
        let rec = last_call_record(&h);
        assert!(!rec.final_response);
        assert_eq!(rec.stream_end, StreamEnd::Eof);
        assert_eq!(rec.sse_event_count, Some(3));
        h.shutdown();
    });
}

#[test]
fn sse_reset() {
    both(|rev| {
        let (h, sid) = begin("sse_reset", rev);
        let (hd, b) = echo_with_token(&h, rev, sid.as_deref());
        let mut c = Conn::open(h.addr());
        c.send("POST", "/mcp", &hd, b.to_string().as_bytes());
        let r = c.read(WAIT);
        assert_sse_head(&r);
        assert_eq!(r.end, End::Reset, "body so far: {:?}", r.text());
        assert_progress(&r.chunks[0], 1);
        assert_eq!(r.messages().len(), 1, "only the progress event is complete");
        // Whatever arrived of the final event is a strict prefix of it.
        let tail = &r.body[r.chunks[0].len()..];
        assert!(
            tail.is_empty() || tail.starts_with(b"data: {") || b"data: {".starts_with(tail),
            "{tail:?}"
        );
        assert!(!tail.ends_with(b"\n\n"));
        let rec = last_call_record(&h);
        assert_eq!(rec.stream_end, StreamEnd::Reset);
        assert!(!rec.final_response);
        h.shutdown();
    });
}

#[test]
fn sse_stall_until_client_leaves() {
    both(|rev| {
        let h = start_with("sse_stall", |c| c.stall_cap = Duration::from_secs(20));
        let sid = setup(h.addr(), rev, json!({}));
        let (hd, b) = echo_with_token(&h, rev, sid.as_deref());
        let mut c = Conn::open(h.addr());
        c.send("POST", "/mcp", &hd, b.to_string().as_bytes());
        let r = c.read(Duration::from_millis(400));
        assert_sse_head(&r);
        assert_eq!(r.end, End::Timeout, "nothing after the first event");
        assert_eq!(r.chunks.len(), 1);
        assert_progress(&r.chunks[0], 1);
        let before = h.wait_for_records(h.post_count() as usize - 1, WAIT).len();
        drop(c);
        let t = Instant::now();
        while h.records().len() == before {
            assert!(
                t.elapsed() < Duration::from_secs(3),
                "server did not notice the client leaving"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        let rec = last_call_record(&h);
        assert_eq!(rec.stream_end, StreamEnd::Stall);
        assert!(!rec.final_response);
        h.shutdown();
    });
}

#[test]
fn sse_stall_until_cap() {
    both(|rev| {
        let h = start("sse_stall:1");
        let sid = setup(h.addr(), rev, json!({}));
        let (hd, b) = echo_with_token(&h, rev, sid.as_deref());
        let t = Instant::now();
        let mut c = Conn::open(h.addr());
        c.send("POST", "/mcp", &hd, b.to_string().as_bytes());
        let r = c.read(WAIT);
        let waited = t.elapsed();
        assert!(
            waited >= Duration::from_millis(900) && waited < Duration::from_secs(4),
            "{waited:?}"
        );
        assert_eq!(r.end, End::Eof, "closed without the terminating chunk");
        assert_eq!(r.chunks.len(), 1);
        assert_eq!(last_call_record(&h).stream_end, StreamEnd::Stall);
        h.shutdown();
    });
}

#[test]
fn sse_malformed_event() {
    both(|rev| {
        let (h, sid) = begin("sse_malformed_event", rev);
        let mut c = Conn::open(h.addr());
        let (hd, b) = call_request(
            rev,
            sid.as_deref(),
            json!(7),
            "echo",
            json!({"text": "hi"}),
            json!({}),
        );
        c.send("POST", "/mcp", &hd, b.to_string().as_bytes());
        let r = c.read(WAIT);
        assert_sse_head(&r);
        assert_eq!(r.header("connection"), Some("close"));
        assert_eq!(r.chunks, vec![b"data: {unclosed\n\n".to_vec()]);
        assert_eq!(r.end, End::Complete);
        assert!(c.closed_by_server(WAIT));
        let rec = last_call_record(&h);
        assert!(!rec.final_response);
        assert_eq!(rec.sse_event_count, Some(1));
        h.shutdown();
    });
}

#[test]
fn rate_limited() {
    // 2025-11-25: initialize is refused first.
    let h = start("rate_limited:1:3");
    let r = legacy_initialize(h.addr(), json!({}));
    assert_eq!(r.status, 429);
    assert_eq!(r.header("retry-after"), Some("3"));
    assert_eq!(r.header("content-type"), Some("text/plain; charset=utf-8"));
    let sid = legacy_session(h.addr(), json!({}));
    assert_echo_result(
        &echo_call(h.addr(), Protocol::V2025_11_25, Some(&sid)).json(),
        Protocol::V2025_11_25,
    );
    h.shutdown();

    let h = start("rate_limited:2");
    for _ in 0..2 {
        let r = echo_call(h.addr(), Protocol::V2026_07_28, None);
        assert_eq!(r.status, 429);
        assert_eq!(r.header("retry-after"), Some("1"));
    }
    assert_echo_result(
        &echo_call(h.addr(), Protocol::V2026_07_28, None).json(),
        Protocol::V2026_07_28,
    );
    assert_eq!(h.post_count(), 3);
    h.shutdown();
}

#[test]
fn server_request_on_stream() {
    both(|rev| {
        let (h, sid) = begin("server_request_on_stream", rev);
        let r = echo_call(h.addr(), rev, sid.as_deref());
        assert_sse_head(&r);
        let first = skip_priming(&r.chunks, rev);
        assert_eq!(r.chunks.len(), first + 2);
        let msgs = r.messages();
        let req = &msgs[0];
        assert!(req["id"].is_string());
        let expected = if rev == Protocol::V2025_11_25 {
            "ping"
        } else {
            "roots/list"
        };
        assert_eq!(req["method"], expected);
        assert_echo_result(&msgs[1], rev);
        if rev == Protocol::V2025_11_25 {
            // The client answers with a POST: 202.
            let reply = json!({"jsonrpc": "2.0", "id": req["id"], "result": {}});
            assert_eq!(
                post(h.addr(), &legacy_headers(sid.as_deref().unwrap()), &reply).status,
                202
            );
        }
        h.shutdown();
    });
    // With the roots capability declared, 2025-11-25 also uses roots/list.
    let h = start("server_request_on_stream");
    let sid = legacy_session(h.addr(), json!({"roots": {}}));
    let r = echo_call(h.addr(), Protocol::V2025_11_25, Some(&sid));
    assert_eq!(r.messages()[0]["method"], "roots/list");
    h.shutdown();
}

#[test]
fn faults_leave_other_methods_alone() {
    for s in SCENARIOS {
        // These act on every request (auth: a request without a token is refused).
        if matches!(s.name, "http_status_sequence" | "rate_limited" | "auth")
            || !s.transports.contains(&Transport::Http)
        {
            continue;
        }
        let h = start(s.example);
        let list = json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta": modern_meta(json!({}))}});
        let r = post(h.addr(), &modern_headers("tools/list", None), &list);
        assert_eq!(r.status, 200, "{}", s.name);
        assert_eq!(
            r.json()["result"]["tools"].as_array().unwrap().len(),
            5,
            "{}",
            s.name
        );
        let sid = legacy_session(h.addr(), json!({}));
        let r = post(
            h.addr(),
            &legacy_headers(&sid),
            &json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
        );
        assert_eq!(r.status, 200, "{}", s.name);
        // Protocol errors are not faulted either.
        let (hd, b) = call_request(
            Protocol::V2026_07_28,
            None,
            json!(3),
            "nope",
            json!({}),
            json!({}),
        );
        let r = post(h.addr(), &hd, &b);
        assert_eq!(r.json()["error"]["code"], -32602, "{}", s.name);
        h.shutdown();
    }
}

/// Reads everything until the server closes the connection.
fn read_to_close(c: &mut Conn) -> Vec<u8> {
    use std::io::Read;
    c.stream.set_read_timeout(Some(WAIT)).unwrap();
    let mut all = Vec::new();
    let _ = c.stream.read_to_end(&mut all);
    all
}

#[test]
fn exact_bytes_of_two_faults() {
    let h = start("malformed_json");
    let (hd, b) = call_request(
        Protocol::V2026_07_28,
        None,
        json!(7),
        "echo",
        json!({"text": "hi"}),
        json!({}),
    );
    let mut hd2 = hd.clone();
    hd2.push(("Connection", "close".into()));
    let mut c = Conn::open(h.addr());
    c.send("POST", "/mcp", &hd2, b.to_string().as_bytes());
    assert_eq!(
        String::from_utf8(read_to_close(&mut c)).unwrap(),
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 9\r\n\r\n{unclosed"
    );
    h.shutdown();

    let h = start("sse_malformed_event");
    let mut c = Conn::open(h.addr());
    c.send("POST", "/mcp", &hd, b.to_string().as_bytes());
    assert_eq!(
        String::from_utf8(read_to_close(&mut c)).unwrap(),
        "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\
         X-Accel-Buffering: no\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n\
         11\r\ndata: {unclosed\n\n\r\n0\r\n\r\n"
    );
    h.shutdown();
}

/// `lenient:PATH`: each variant gets its one error path wrong (what `baseline` answers is
/// shown alongside) and the echo call is served as in baseline.
#[test]
fn lenient() {
    let list = |meta: Value| json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {"_meta": meta}});
    let set = |mut h: Vec<(&'static str, String)>, name: &str, value: &str| {
        for (n, v) in h.iter_mut() {
            if n.eq_ignore_ascii_case(name) {
                *v = value.to_string();
            }
        }
        h
    };
    let bogus_meta = || {
        let mut m = modern_meta(json!({}));
        m["io.modelcontextprotocol/protocolVersion"] = json!("2000-01-01");
        m
    };
    // (variant, request, status under baseline, code under baseline, status when lenient,
    // code when lenient)
    type Req = (Vec<(&'static str, String)>, Value);
    type Case = (
        &'static str,
        Box<dyn Fn() -> Req>,
        u16,
        i64,
        u16,
        Option<i64>,
    );
    let modern: Vec<Case> = vec![
        (
            "version",
            Box::new(move || {
                (
                    set(
                        modern_headers("tools/list", None),
                        "MCP-Protocol-Version",
                        "2000-01-01",
                    ),
                    list(bogus_meta()),
                )
            }),
            400,
            -32022,
            200,
            None,
        ),
        (
            "version_header",
            Box::new(move || {
                (
                    set(
                        modern_headers("tools/list", None),
                        "MCP-Protocol-Version",
                        LEGACY,
                    ),
                    list(modern_meta(json!({}))),
                )
            }),
            400,
            -32020,
            400,
            Some(-32022),
        ),
        (
            "missing_meta",
            Box::new(move || {
                let mut m = modern_meta(json!({}));
                m.as_object_mut()
                    .unwrap()
                    .remove("io.modelcontextprotocol/clientCapabilities");
                (modern_headers("tools/list", None), list(m))
            }),
            400,
            -32602,
            200,
            None,
        ),
        (
            "initialize",
            Box::new(|| {
                (
                    modern_headers("initialize", None),
                    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"_meta": modern_meta(json!({}))}}),
                )
            }),
            404,
            -32601,
            200,
            Some(-32601),
        ),
        (
            "method_header",
            Box::new(move || {
                (
                    set(
                        modern_headers("tools/list", None),
                        "Mcp-Method",
                        "prompts/list",
                    ),
                    list(modern_meta(json!({}))),
                )
            }),
            400,
            -32020,
            200,
            None,
        ),
        (
            "name_header",
            Box::new(|| {
                let (_, b) = call_request(
                    Protocol::V2026_07_28,
                    None,
                    json!(1),
                    "echo",
                    json!({"text": "hi"}),
                    json!({}),
                );
                (modern_headers("tools/call", Some("other")), b)
            }),
            400,
            -32020,
            200,
            None,
        ),
    ];
    for (name, req, base_status, base_code, status, code) in &modern {
        for (scenario, want_status, want_code) in [
            ("baseline".to_string(), *base_status, Some(*base_code)),
            (format!("lenient:{name}"), *status, *code),
        ] {
            let h = start(&scenario);
            let (hd, b) = req();
            let r = post(h.addr(), &hd, &b);
            assert_eq!(r.status, want_status, "{scenario}: {}", r.text());
            let v = r.json();
            match want_code {
                Some(c) => assert_eq!(v["error"]["code"], c, "{scenario}"),
                None => assert!(v.get("result").is_some(), "{scenario}: {v}"),
            }
            // Everything else as in baseline.
            let v = echo_call(h.addr(), Protocol::V2026_07_28, None).json();
            assert_echo_result(&v, Protocol::V2026_07_28);
            h.shutdown();
        }
    }

    // param_header: the conformance tool set, Mcp-Param-Region not checked.
    for (scenario, want) in [
        ("baseline:tools=conformance", 400),
        ("lenient:param_header", 200),
    ] {
        let h = start(scenario);
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "test_header_param", "arguments": {"region": "eu"}, "_meta": modern_meta(json!({}))}});
        let mut hd = modern_headers("tools/call", Some("test_header_param"));
        hd.push(("Mcp-Param-Region", "us".to_string()));
        let r = post(h.addr(), &hd, &body);
        assert_eq!(r.status, want, "{scenario}: {}", r.text());
        h.shutdown();
    }

    // request_state and input_responses: the retries of confirm_action's input_required.
    let confirm = |id: i64, extra: Value| {
        let mut params = json!({"name": "confirm_action", "arguments": {"action": "ship"},
            "_meta": modern_meta(json!({"elicitation": {}}))});
        for (k, v) in extra.as_object().unwrap() {
            params[k] = v.clone();
        }
        json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": params})
    };
    let accept = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    for scenario in [
        "baseline",
        "lenient:request_state",
        "lenient:input_responses",
    ] {
        let h = start(scenario);
        let hd = modern_headers("tools/call", Some("confirm_action"));
        let first = post(h.addr(), &hd, &confirm(1, json!({}))).json();
        assert_eq!(
            first["result"]["resultType"], "input_required",
            "{scenario}"
        );
        let state = first["result"]["requestState"]
            .as_str()
            .unwrap()
            .to_string();
        let mut altered: Vec<char> = state.chars().collect();
        let i = altered.len() / 2;
        altered[i] = if altered[i] == 'A' { 'B' } else { 'A' };
        let altered: String = altered.into_iter().collect();
        let r = post(
            h.addr(),
            &hd,
            &confirm(
                2,
                json!({"requestState": altered, "inputResponses": accept}),
            ),
        )
        .json();
        if scenario == "lenient:request_state" {
            assert_eq!(r["result"]["resultType"], "complete", "{scenario}: {r}");
        } else {
            assert_eq!(r["error"]["code"], -32602, "{scenario}: {r}");
        }
        let r = post(
            h.addr(),
            &hd,
            &confirm(
                3,
                json!({"requestState": state, "inputResponses": {"other": {"action": "cancel"}}}),
            ),
        )
        .json();
        if scenario == "lenient:input_responses" {
            assert_eq!(r["error"]["code"], -32602, "{scenario}: {r}");
        } else {
            assert_eq!(
                r["result"]["resultType"], "input_required",
                "{scenario}: {r}"
            );
        }
        h.shutdown();
    }

    // 2025-11-25: a version no revision has, a missing session id, an ended session.
    for (scenario, version, missing, ended) in [
        ("baseline", 400, 400, 404),
        ("lenient:legacy_version", 200, 400, 404),
        ("lenient:session", 400, 404, 404),
        ("lenient:ended_session", 400, 400, 200),
    ] {
        let h = start(scenario);
        let sid = legacy_session(h.addr(), json!({}));
        let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"});
        let hd = set(legacy_headers(&sid), "MCP-Protocol-Version", "2000-01-01");
        assert_eq!(post(h.addr(), &hd, &body).status, version, "{scenario}");
        let hd: Vec<_> = legacy_headers(&sid)
            .into_iter()
            .filter(|(n, _)| *n != "Mcp-Session-Id")
            .collect();
        assert_eq!(post(h.addr(), &hd, &body).status, missing, "{scenario}");
        let v = echo_call(h.addr(), Protocol::V2025_11_25, Some(&sid)).json();
        assert_echo_result(&v, Protocol::V2025_11_25);
        let mut c = Conn::open(h.addr());
        c.send("DELETE", "/mcp", &legacy_headers(&sid), b"");
        assert_eq!(c.read(WAIT).status, 200, "{scenario}");
        assert_eq!(
            post(h.addr(), &legacy_headers(&sid), &body).status,
            ended,
            "{scenario}"
        );
        h.shutdown();
    }
}
