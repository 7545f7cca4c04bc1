//! 2026-07-28 behaviour of `serve`: header/`_meta` pairings, discovery,
//! tools, and the MRTR round trip.

use std::net::SocketAddr;

use mcp_verdict::Protocol;
use serde_json::{Value, json};

use crate::support::serve::*;

fn modern_call(
    addr: SocketAddr,
    id: Value,
    tool: &str,
    args: Value,
    caps: Value,
    extra: Value,
) -> Resp {
    let (h, mut b) = call_request(Protocol::V2026_07_28, None, id, tool, args, caps);
    if let Value::Object(m) = extra {
        for (k, v) in m {
            b["params"][k] = v;
        }
    }
    post(addr, &h, &b)
}

fn assert_error(r: &Resp, status: u16, code: i64, id: Option<Value>) -> Value {
    assert_eq!(r.status, status, "{}", r.text());
    assert_eq!(r.header("content-type"), Some("application/json"));
    let v = r.json();
    assert_eq!(v["jsonrpc"], "2.0");
    assert_eq!(v["error"]["code"], code, "{v}");
    assert!(v["error"]["message"].is_string());
    assert_eq!(v.get("id").cloned(), id, "{v}");
    v
}

#[test]
fn discover() {
    let h = start("baseline");
    let body = json!({"jsonrpc":"2.0","id":"d1","method":"server/discover","params":{"_meta": modern_meta(json!({}))}});
    let r = post(h.addr(), &modern_headers("server/discover", None), &body);
    assert_eq!(r.status, 200);
    let v = r.json();
    assert_eq!(v["id"], "d1");
    let res = &v["result"];
    assert_eq!(res["resultType"], "complete");
    assert_eq!(res["supportedVersions"], json!([MODERN, LEGACY]));
    assert_eq!(res["capabilities"]["tools"], json!({}));
    assert_eq!(
        res["_meta"]["io.modelcontextprotocol/serverInfo"]["name"],
        "mcp-verdict-serve"
    );
    assert!(res["ttlMs"].is_u64());
    assert_eq!(res["cacheScope"], "public");
    schema_check(MODERN, "DiscoverResult", res);
    h.shutdown();
}

#[test]
fn tools_list_has_cache_fields_and_annotations() {
    let h = start("baseline");
    let body = json!({"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta": modern_meta(json!({}))}});
    let r = post(h.addr(), &modern_headers("tools/list", None), &body);
    let res = r.json()["result"].clone();
    assert_eq!(res["resultType"], "complete");
    assert!(res["ttlMs"].is_u64());
    assert_eq!(res["cacheScope"], "public");
    assert!(res["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());
    let tools = res["tools"].as_array().unwrap();
    let names: Vec<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(
        names,
        ["echo", "add", "count", "create_order", "confirm_action"]
    );
    let by = |n: &str| tools.iter().find(|t| t["name"] == n).unwrap();
    assert_eq!(by("echo")["annotations"]["readOnlyHint"], true);
    assert_eq!(by("add")["annotations"]["idempotentHint"], true);
    assert!(by("add")["outputSchema"].is_object());
    assert_eq!(by("create_order")["annotations"]["destructiveHint"], true);
    assert_eq!(by("create_order")["annotations"]["idempotentHint"], false);
    for t in tools {
        assert_eq!(t["inputSchema"]["type"], "object");
    }
    schema_check(MODERN, "ListToolsResult", &res);
    h.shutdown();
}

#[test]
fn well_behaved_tools() {
    let h = start("baseline");
    let r = modern_call(
        h.addr(),
        json!(1),
        "echo",
        json!({"text": "héllo"}),
        json!({}),
        json!({}),
    );
    let res = r.json()["result"].clone();
    assert_eq!(res["content"], json!([{"type": "text", "text": "héllo"}]));
    assert_eq!(res["isError"], false);
    assert_eq!(res["resultType"], "complete");
    schema_check(MODERN, "CallToolResult", &res);

    let r = modern_call(
        h.addr(),
        json!(2),
        "add",
        json!({"a": 2, "b": 40}),
        json!({}),
        json!({}),
    );
    let res = r.json()["result"].clone();
    assert_eq!(res["structuredContent"], json!({"sum": 42}));
    assert_eq!(res["content"][0]["text"], "{\"sum\":42}");

    let before = h.orders_created();
    let r = modern_call(
        h.addr(),
        json!(3),
        "create_order",
        json!({"item": "book", "quantity": 2}),
        json!({}),
        json!({}),
    );
    assert_eq!(r.json()["result"]["structuredContent"]["quantity"], 2);
    assert_eq!(h.orders_created(), before + 1);

    // count without a progress token: plain JSON.
    let r = modern_call(
        h.addr(),
        json!(4),
        "count",
        json!({"to": 2}),
        json!({}),
        json!({}),
    );
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(r.json()["result"]["content"][0]["text"], "counted to 2");
    h.shutdown();
}

#[test]
fn count_streams_progress_when_asked() {
    let h = start("baseline");
    let (hd, mut b) = call_request(
        Protocol::V2026_07_28,
        None,
        json!(9),
        "count",
        json!({"to": 4}),
        json!({}),
    );
    b["params"]["_meta"]["progressToken"] = json!("tok-1");
    let r = post(h.addr(), &hd, &b);
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    assert_eq!(r.header("x-accel-buffering"), Some("no"));
    assert!(r.chunked);
    let msgs = r.messages();
    assert_eq!(msgs.len(), 5);
    for (i, m) in msgs[..4].iter().enumerate() {
        assert_eq!(m["method"], "notifications/progress");
        assert_eq!(m["params"]["progressToken"], "tok-1");
        assert_eq!(m["params"]["progress"], i as u64 + 1);
        schema_check(MODERN, "ProgressNotification", m);
    }
    assert_eq!(msgs[4]["id"], 9);
    assert_eq!(msgs[4]["result"]["content"][0]["text"], "counted to 4");
    // No priming event under 2026-07-28.
    assert!(r.events().iter().all(|(id, _)| id.is_none()));
    h.shutdown();
}

#[test]
fn tool_errors_versus_protocol_errors() {
    let h = start("baseline");
    let r = modern_call(h.addr(), json!(1), "nope", json!({}), json!({}), json!({}));
    let v = assert_error(&r, 200, -32602, Some(json!(1)));
    assert!(v["error"]["message"].as_str().unwrap().contains("nope"));

    let r = modern_call(
        h.addr(),
        json!(2),
        "add",
        json!({"a": "one"}),
        json!({}),
        json!({}),
    );
    assert_eq!(r.status, 200);
    let res = r.json()["result"].clone();
    assert_eq!(res["isError"], true, "{res}");
    assert_eq!(res["resultType"], "complete");
    assert!(
        res["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("Invalid arguments")
    );

    let r = modern_call(
        h.addr(),
        json!(3),
        "echo",
        json!(null),
        json!({}),
        json!({"arguments": "str"}),
    );
    assert_error(&r, 200, -32602, Some(json!(3)));
    h.shutdown();
}

#[test]
fn header_and_meta_pairings() {
    let h = start("baseline");
    let a = h.addr();
    let (good_h, good_b) = call_request(
        Protocol::V2026_07_28,
        None,
        json!(5),
        "echo",
        json!({"text": "x"}),
        json!({}),
    );
    let without = |name: &str| -> Vec<(&'static str, String)> {
        good_h
            .iter()
            .filter(|(k, _)| !k.eq_ignore_ascii_case(name))
            .cloned()
            .collect()
    };
    let with = |name: &'static str, value: &str| -> Vec<(&'static str, String)> {
        let mut h = without(name);
        h.push((name, value.to_string()));
        h
    };

    // Missing or mismatched headers: 400 + -32020.
    for hd in [
        without("MCP-Protocol-Version"),
        without("Mcp-Method"),
        without("Mcp-Name"),
        with("Mcp-Method", "tools/list"),
        with("Mcp-Name", "add"),
        with("Mcp-Name", "=?base64?YWRk?="), // "add"
        with("Mcp-Name", "=?base64?not base64?="),
        with("Mcp-Name", "ECHO"),
    ] {
        let r = post(a, &hd, &good_b);
        let v = assert_error(&r, 400, -32020, Some(json!(5)));
        schema_check(MODERN, "HeaderMismatchError", &v);
    }
    // Base64 sentinel that decodes to the body value is accepted.
    let r = post(a, &with("Mcp-Name", "=?base64?ZWNobw==?="), &good_b);
    assert_eq!(r.status, 200, "{}", r.text());
    // Header names are case-insensitive.
    let lower: Vec<(&str, String)> = vec![
        ("mcp-protocol-version", MODERN.into()),
        ("mcp-method", "tools/call".into()),
        ("mcp-name", "echo".into()),
    ];
    assert_eq!(post(a, &lower, &good_b).status, 200);

    // MCP-Protocol-Version header differing from _meta: -32020.
    let r = post(a, &with("MCP-Protocol-Version", "2026-07-29"), &good_b);
    assert_error(&r, 400, -32020, Some(json!(5)));

    // Missing required _meta fields: 400 + -32602.
    for key in [
        "io.modelcontextprotocol/clientCapabilities",
        "io.modelcontextprotocol/protocolVersion",
    ] {
        let mut b = good_b.clone();
        b["params"]["_meta"].as_object_mut().unwrap().remove(key);
        let r = post(a, &good_h, &b);
        let v = assert_error(&r, 400, -32602, Some(json!(5)));
        if key.ends_with("clientCapabilities") {
            assert!(v["error"]["message"].as_str().unwrap().contains(key));
        }
    }
    let mut b = good_b.clone();
    b["params"].as_object_mut().unwrap().remove("_meta");
    assert_error(&post(a, &good_h, &b), 400, -32602, Some(json!(5)));

    // A header version contradicting _meta is a header mismatch even when _meta names a
    // version the server does not support: -32020, not -32022.
    let mut b = good_b.clone();
    b["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("v999.0.0");
    let v = assert_error(&post(a, &good_h, &b), 400, -32020, Some(json!(5)));
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("MCP-Protocol-Version"),
        "{v}"
    );

    // Unsupported version: 400 + -32022 with data.
    let mut b = good_b.clone();
    b["params"]["_meta"]["io.modelcontextprotocol/protocolVersion"] = json!("1900-01-01");
    let r = post(a, &with("MCP-Protocol-Version", "1900-01-01"), &b);
    let v = assert_error(&r, 400, -32022, Some(json!(5)));
    assert_eq!(v["error"]["data"]["requested"], "1900-01-01");
    assert_eq!(v["error"]["data"]["supported"], json!([MODERN, LEGACY]));
    schema_check(MODERN, "UnsupportedProtocolVersionError", &v);

    // Unknown method: 404 + -32601.
    let body = json!({"jsonrpc":"2.0","id":6,"method":"prompts/list","params":{"_meta": modern_meta(json!({}))}});
    let r = post(a, &modern_headers("prompts/list", None), &body);
    let v = assert_error(&r, 404, -32601, Some(json!(6)));
    schema_check(MODERN, "MethodNotFoundError", &v["error"]);

    // initialize is no method of 2026-07-28: 404 + -32601, the request's id echoed.
    let body = json!({"jsonrpc":"2.0","id":500,"method":"initialize","params":{"_meta": modern_meta(json!({}))}});
    let r = post(a, &modern_headers("initialize", None), &body);
    let v = assert_error(&r, 404, -32601, Some(json!(500)));
    schema_check(MODERN, "MethodNotFoundError", &v["error"]);
    assert!(r.header("mcp-session-id").is_none());

    // Missing capability: 400 + -32021 with data.requiredCapabilities.
    let r = modern_call(
        a,
        json!(8),
        "confirm_action",
        json!({"action": "x"}),
        json!({}),
        json!({}),
    );
    let v = assert_error(&r, 400, -32021, Some(json!(8)));
    assert!(v["error"]["data"]["requiredCapabilities"]["elicitation"].is_object());
    schema_check(MODERN, "MissingRequiredClientCapabilityError", &v);

    // Mcp-Session-Id is ignored, never echoed.
    let r = post(a, &with("Mcp-Session-Id", "stale-session"), &good_b);
    assert_eq!(r.status, 200);
    assert!(r.header("mcp-session-id").is_none());

    // The header alone (no _meta, no session) selects 2026-07-28: -32602.
    let b = json!({"jsonrpc":"2.0","id":9,"method":"tools/list"});
    assert_error(
        &post(a, &modern_headers("tools/list", None), &b),
        400,
        -32602,
        Some(json!(9)),
    );

    // Notifications and responses have no place in 2026-07-28 over HTTP.
    let n = json!({"jsonrpc":"2.0","method":"notifications/cancelled","params":{"_meta": modern_meta(json!({}))}});
    assert_error(
        &post(a, &modern_headers("notifications/cancelled", None), &n),
        400,
        -32600,
        None,
    );
    h.shutdown();
}

const ELICIT: fn() -> Value = || json!({"elicitation": {}});

#[test]
fn mrtr_round_trip() {
    let h = start("baseline");
    let a = h.addr();
    let r1 = modern_call(
        a,
        json!(1),
        "confirm_action",
        json!({"action": "deploy"}),
        ELICIT(),
        json!({}),
    );
    assert_eq!(r1.status, 200);
    let res = r1.json()["result"].clone();
    assert_eq!(res["resultType"], "input_required");
    assert!(res["_meta"]["io.modelcontextprotocol/serverInfo"].is_object());
    let req = &res["inputRequests"]["confirm"];
    assert_eq!(req["method"], "elicitation/create");
    assert_eq!(req["params"]["mode"], "form");
    assert!(
        req["params"]["message"]
            .as_str()
            .unwrap()
            .contains("deploy")
    );
    let state = res["requestState"].as_str().unwrap().to_string();
    schema_check(MODERN, "InputRequiredResult", &res);

    let accept = json!({"confirm": {"action": "accept", "content": {"confirm": true}}});
    // Retry with a new id, the echoed state and the answer: complete.
    let r2 = modern_call(
        a,
        json!(2),
        "confirm_action",
        json!({"action": "deploy"}),
        ELICIT(),
        json!({"inputResponses": accept, "requestState": state}),
    );
    let res2 = r2.json()["result"].clone();
    assert_eq!(res2["resultType"], "complete", "{res2}");
    assert_eq!(res2["isError"], false);
    assert_eq!(res2["content"][0]["text"], "Confirmed: deploy");
    assert_eq!(r2.json()["id"], 2);

    // Same id as the round that received the state: rejected.
    let r = modern_call(
        a,
        json!(1),
        "confirm_action",
        json!({"action": "deploy"}),
        ELICIT(),
        json!({"inputResponses": accept, "requestState": state}),
    );
    assert_error(&r, 200, -32600, Some(json!(1)));

    // Tampered state: rejected.
    let mut bad = state.clone().into_bytes();
    bad[2] = if bad[2] == b'A' { b'B' } else { b'A' };
    let bad = String::from_utf8(bad).unwrap();
    let r = modern_call(
        a,
        json!(3),
        "confirm_action",
        json!({"action": "deploy"}),
        ELICIT(),
        json!({"inputResponses": accept, "requestState": bad}),
    );
    assert_error(&r, 200, -32602, Some(json!(3)));

    // State replayed for other arguments: rejected.
    let r = modern_call(
        a,
        json!(4),
        "confirm_action",
        json!({"action": "destroy"}),
        ELICIT(),
        json!({"inputResponses": accept, "requestState": state}),
    );
    assert_error(&r, 200, -32602, Some(json!(4)));

    // Answer without state: rejected.
    let r = modern_call(
        a,
        json!(5),
        "confirm_action",
        json!({"action": "deploy"}),
        ELICIT(),
        json!({"inputResponses": accept}),
    );
    assert_error(&r, 200, -32602, Some(json!(5)));

    // State but the answer missing: asked again.
    let r = modern_call(
        a,
        json!(6),
        "confirm_action",
        json!({"action": "deploy"}),
        ELICIT(),
        json!({"inputResponses": {}, "requestState": state}),
    );
    assert_eq!(r.json()["result"]["resultType"], "input_required");

    // Declined: a complete result with isError.
    let r = modern_call(
        a,
        json!(7),
        "confirm_action",
        json!({"action": "deploy"}),
        ELICIT(),
        json!({"inputResponses": {"confirm": {"action": "decline"}}, "requestState": state}),
    );
    let res = r.json()["result"].clone();
    assert_eq!(res["resultType"], "complete");
    assert_eq!(res["isError"], true);
    h.shutdown();
}

#[test]
fn input_required_scenario_gates_every_tool() {
    let h = start("input_required");
    let a = h.addr();
    let r1 = modern_call(
        a,
        json!(1),
        "create_order",
        json!({"item": "pen", "quantity": 1}),
        ELICIT(),
        json!({}),
    );
    let res = r1.json()["result"].clone();
    assert_eq!(res["resultType"], "input_required");
    assert_eq!(h.orders_created(), 0, "no side effect before confirmation");
    let state = res["requestState"].clone();
    let r2 = modern_call(
        a,
        json!(2),
        "create_order",
        json!({"item": "pen", "quantity": 1}),
        ELICIT(),
        json!({"inputResponses": {"confirm": {"action": "accept", "content": {"confirm": true}}}, "requestState": state}),
    );
    assert_eq!(r2.json()["result"]["structuredContent"]["item"], "pen");
    assert_eq!(h.orders_created(), 1);
    // Without the elicitation capability: -32021.
    let r = modern_call(
        a,
        json!(3),
        "echo",
        json!({"text": "x"}),
        json!({}),
        json!({}),
    );
    assert_error(&r, 400, -32021, Some(json!(3)));
    h.shutdown();
}

#[test]
fn sse_response_mode() {
    let h = start_with("baseline", |c| {
        c.response_mode = mcp_verdict::serve::ResponseMode::Sse
    });
    let r = echo_call(h.addr(), Protocol::V2026_07_28, None);
    assert_eq!(r.header("content-type"), Some("text/event-stream"));
    assert_eq!(r.chunks.len(), 1);
    assert_eq!(r.messages()[0]["result"]["content"][0]["text"], "hi");
    // Pinned-status errors stay JSON.
    let (hd, b) = call_request(
        Protocol::V2026_07_28,
        None,
        json!(1),
        "confirm_action",
        json!({"action": "x"}),
        json!({}),
    );
    let r = post(h.addr(), &hd, &b);
    assert_eq!(r.status, 400);
    assert_eq!(r.header("content-type"), Some("application/json"));
    h.shutdown();
}
