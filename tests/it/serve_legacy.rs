//! 2025-11-25 behaviour of `serve`: initialize, sessions, tools, and the
//! elicitation request on the response stream.

use std::time::Duration;

use mcp_verdict::Protocol;
use mcp_verdict::views::diag::StreamEnd;
use serde_json::{Value, json};

use crate::support::serve::*;

const WAIT: Duration = Duration::from_secs(5);

#[test]
fn initialize_negotiates_and_assigns_a_session() {
    let h = start("baseline");
    let r = legacy_initialize(h.addr(), json!({}));
    assert_eq!(r.status, 200);
    let sid = r.header("mcp-session-id").unwrap().to_string();
    assert!(sid.len() >= 16 && sid.bytes().all(|b| (0x21..=0x7e).contains(&b)));
    let res = r.json()["result"].clone();
    assert_eq!(res["protocolVersion"], LEGACY);
    assert_eq!(res["capabilities"]["tools"], json!({}));
    assert_eq!(res["serverInfo"]["name"], "mcp-verdict-serve");
    assert!(res.get("resultType").is_none());
    schema_check(LEGACY, "InitializeResult", &res);

    // A version the server does not implement is answered with its own.
    let body = json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{
        "protocolVersion":"2024-11-05","capabilities":{},"clientInfo":{"name":"old","version":"1"}}});
    let r = post(
        h.addr(),
        &[("Content-Type", "application/json".into())],
        &body,
    );
    assert_eq!(r.json()["result"]["protocolVersion"], LEGACY);
    let r2_sid = r.header("mcp-session-id").unwrap();
    assert_ne!(r2_sid, sid);
    h.shutdown();
}

#[test]
fn session_rules() {
    let h = start("baseline");
    let a = h.addr();
    let sid = legacy_session(a, json!({}));
    let list = json!({"jsonrpc":"2.0","id":2,"method":"tools/list"});

    let r = post(a, &legacy_headers(&sid), &list);
    assert_eq!(r.status, 200);
    let res = r.json()["result"].clone();
    assert_eq!(res["tools"].as_array().unwrap().len(), 5);
    assert!(res.get("resultType").is_none() && res.get("ttlMs").is_none());
    schema_check(LEGACY, "ListToolsResult", &res);

    // No session header: 400.
    let r = post(
        a,
        &[
            ("Content-Type", "application/json".into()),
            ("MCP-Protocol-Version", LEGACY.into()),
        ],
        &list,
    );
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["id"], 2);
    // Unknown session: 404.
    let r = post(a, &legacy_headers("0123456789abcdef"), &list);
    assert_eq!(r.status, 404);
    // Unsupported protocol version header: 400.
    let mut hd = legacy_headers(&sid);
    hd.retain(|(k, _)| *k != "MCP-Protocol-Version");
    hd.push(("MCP-Protocol-Version", "2099-01-01".into()));
    assert_eq!(post(a, &hd, &list).status, 400);
    // Without the header the session's version is used.
    let mut hd = legacy_headers(&sid);
    hd.retain(|(k, _)| *k != "MCP-Protocol-Version");
    assert_eq!(post(a, &hd, &list).status, 200);

    // ping, unknown method, a stray client response.
    let r = post(
        a,
        &legacy_headers(&sid),
        &json!({"jsonrpc":"2.0","id":3,"method":"ping"}),
    );
    assert_eq!(r.json()["result"], json!({}));
    let r = post(
        a,
        &legacy_headers(&sid),
        &json!({"jsonrpc":"2.0","id":4,"method":"server/discover"}),
    );
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["error"]["code"], -32601);
    let r = post(
        a,
        &legacy_headers(&sid),
        &json!({"jsonrpc":"2.0","id":"x","result":{}}),
    );
    assert_eq!(r.status, 202);
    assert!(r.body.is_empty());
    assert_eq!(r.header("content-length"), Some("0"));

    // GET: 405 (no standalone stream).
    let mut c = Conn::open(a);
    c.send(
        "GET",
        "/mcp",
        &[
            ("Mcp-Session-Id", sid.clone()),
            ("Accept", "text/event-stream".into()),
        ],
        b"",
    );
    assert_eq!(c.read(WAIT).status, 405);

    // DELETE terminates; afterwards the session is 404; a second DELETE is 404.
    let mut c = Conn::open(a);
    c.send("DELETE", "/mcp", &[("Mcp-Session-Id", sid.clone())], b"");
    assert_eq!(c.read(WAIT).status, 200);
    assert_eq!(post(a, &legacy_headers(&sid), &list).status, 404);
    let mut c = Conn::open(a);
    c.send("DELETE", "/mcp", &[("Mcp-Session-Id", sid.clone())], b"");
    assert_eq!(c.read(WAIT).status, 404);
    h.shutdown();
}

#[test]
fn tools_without_result_type() {
    let h = start("baseline");
    let a = h.addr();
    let sid = legacy_session(a, json!({}));
    let r = echo_call(a, Protocol::V2025_11_25, Some(&sid));
    let res = r.json()["result"].clone();
    assert_eq!(res["content"][0]["text"], "hi");
    assert!(res.get("resultType").is_none());
    assert!(res.get("_meta").is_none());
    schema_check(LEGACY, "CallToolResult", &res);

    let (hd, b) = call_request(
        Protocol::V2025_11_25,
        Some(&sid),
        json!(2),
        "nope",
        json!({}),
        json!({}),
    );
    let r = post(a, &hd, &b);
    assert_eq!(r.status, 200);
    assert_eq!(r.json()["error"]["code"], -32602);

    let (hd, b) = call_request(
        Protocol::V2025_11_25,
        Some(&sid),
        json!(3),
        "create_order",
        json!({"item": "x"}),
        json!({}),
    );
    let r = post(a, &hd, &b);
    assert_eq!(r.json()["result"]["isError"], true);
    assert_eq!(h.orders_created(), 0);

    // count with a progress token: SSE with a priming event first.
    let (hd, mut b) = call_request(
        Protocol::V2025_11_25,
        Some(&sid),
        json!(4),
        "count",
        json!({"to": 2}),
        json!({}),
    );
    b["params"]["_meta"] = json!({"progressToken": 77});
    let r = post(a, &hd, &b);
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    let ev = r.events();
    assert_eq!(ev.len(), 4);
    assert!(ev[0].0.is_some() && ev[0].1.is_empty(), "priming: {ev:?}");
    let msgs = r.messages();
    assert_eq!(msgs[0]["params"]["progressToken"], 77);
    assert_eq!(msgs[2]["id"], 4);
    h.shutdown();
}

/// Legacy confirmation: the server asks on the stream; the client answers
/// with a separate POST; the result follows on the original stream.
fn elicitation_round(answer: Value) -> (Value, u64) {
    let h = start("baseline");
    let a = h.addr();
    let sid = legacy_session(a, json!({"elicitation": {}}));
    let (hd, b) = call_request(
        Protocol::V2025_11_25,
        Some(&sid),
        json!(11),
        "confirm_action",
        json!({"action": "ship"}),
        json!({}),
    );
    let mut c = Conn::open(a);
    c.send("POST", "/mcp", &hd, b.to_string().as_bytes());
    // Read progressively: the stream stays open until the client answers.
    c.stream
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let mut seen = Vec::new();
    let read_more = |c: &mut Conn, seen: &mut Vec<u8>| {
        use std::io::Read;
        let mut buf = [0u8; 4096];
        match c.stream.read(&mut buf) {
            Ok(0) => false,
            Ok(n) => {
                seen.extend_from_slice(&buf[..n]);
                true
            }
            Err(_) => true,
        }
    };
    let deadline = std::time::Instant::now() + WAIT;
    let req_id = loop {
        assert!(read_more(&mut c, &mut seen), "stream closed early");
        let text = String::from_utf8_lossy(&seen).to_string();
        if let Some(pos) = text.find("elicitation/create") {
            let line_start = text[..pos].rfind("data: ").unwrap() + 6;
            let line_end = line_start + text[line_start..].find('\n').unwrap();
            let req: Value = serde_json::from_str(&text[line_start..line_end]).unwrap();
            assert_eq!(req["params"]["mode"], "form");
            assert!(!text.contains("\"id\":11"), "no result before the answer");
            break req["id"].clone();
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no elicitation request: {text}"
        );
    };
    let reply = json!({"jsonrpc": "2.0", "id": req_id, "result": answer});
    let ack = post(a, &legacy_headers(&sid), &reply);
    assert_eq!(ack.status, 202);
    while !seen.ends_with(b"0\r\n\r\n") && std::time::Instant::now() < deadline {
        if !read_more(&mut c, &mut seen) {
            break;
        }
    }
    let r = String::from_utf8_lossy(&seen).to_string();
    assert!(r.starts_with("HTTP/1.1 200 OK\r\n"), "{r}");
    assert!(r.contains("Content-Type: text/event-stream\r\n"));
    let body = r
        .split("\r\n\r\n")
        .skip(1)
        .collect::<Vec<_>>()
        .join("\r\n\r\n");
    let data_lines: Vec<&str> = body
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter(|l| !l.is_empty())
        .collect();
    let last: Value = serde_json::from_str(data_lines.last().unwrap()).unwrap();
    assert_eq!(last["id"], 11);
    let recs = settled_records(&h);
    let call = recs
        .iter()
        .find(|r| r.jsonrpc.id == Some(json!(11)))
        .unwrap();
    assert_eq!(call.stream_end, StreamEnd::Complete);
    assert_eq!(call.sse_event_count, Some(3), "priming + request + result");
    let orders = h.orders_created();
    h.shutdown();
    (last["result"].clone(), orders)
}

#[test]
fn elicitation_on_the_stream_accept() {
    let (res, _) = elicitation_round(json!({"action": "accept", "content": {"confirm": true}}));
    assert_eq!(res["content"][0]["text"], "Confirmed: ship");
    assert_eq!(res["isError"], false);
}

#[test]
fn elicitation_on_the_stream_decline() {
    let (res, _) = elicitation_round(json!({"action": "decline"}));
    assert_eq!(res["isError"], true);
}

#[test]
fn confirmation_without_elicitation_capability_is_a_tool_error() {
    let h = start("baseline");
    let sid = legacy_session(h.addr(), json!({}));
    let (hd, b) = call_request(
        Protocol::V2025_11_25,
        Some(&sid),
        json!(1),
        "confirm_action",
        json!({"action": "a"}),
        json!({}),
    );
    let r = post(h.addr(), &hd, &b);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.json()["result"]["isError"], true);
    h.shutdown();
}

#[test]
fn elicitation_times_out_without_answer() {
    let h = start_with("input_required", |c| {
        c.stall_cap = Duration::from_millis(300)
    });
    let sid = legacy_session(h.addr(), json!({"elicitation": {"form": {}}}));
    let r = echo_call(h.addr(), Protocol::V2025_11_25, Some(&sid));
    let msgs = r.messages();
    assert_eq!(msgs.len(), 2);
    assert_eq!(msgs[0]["method"], "elicitation/create");
    assert_eq!(msgs[1]["id"], 7);
    assert_eq!(msgs[1]["result"]["isError"], true);
    let rec = settled_records(&h)
        .into_iter()
        .find(|r| r.method.as_deref() == Some("tools/call"))
        .unwrap();
    assert_eq!(rec.stream_end, StreamEnd::Timeout);
    h.shutdown();
}

#[test]
fn a_session_header_keeps_legacy_even_with_legacy_meta() {
    let h = start("baseline");
    let sid = legacy_session(h.addr(), json!({}));
    let (hd, mut b) = call_request(
        Protocol::V2025_11_25,
        Some(&sid),
        json!(1),
        "echo",
        json!({"text": "m"}),
        json!({}),
    );
    b["params"]["_meta"] = json!({"io.modelcontextprotocol/protocolVersion": LEGACY});
    let r = post(h.addr(), &hd, &b);
    assert!(r.json()["result"].get("resultType").is_none());
    h.shutdown();
}
