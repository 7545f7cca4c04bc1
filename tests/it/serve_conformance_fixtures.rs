//! `serve --scenario baseline:tools=conformance`: the fixture set the official MCP conformance
//! suite calls (tools, prompts, resources, completions, logging), under both revisions, and
//! plain `baseline` left as it was.

use std::io::Read;
use std::net::SocketAddr;
use std::time::{Duration, Instant};

use base64::Engine as _;
use mcp_verdict::serve::ResponseMode;
use serde_json::{Value, json};

use crate::support::serve::*;

const CONF: &str = "baseline:tools=conformance";

/// A 2025-11-25 request in a session; returns the response.
fn legacy(a: SocketAddr, sid: &str, id: u64, method: &str, params: Value) -> Resp {
    post(
        a,
        &legacy_headers(sid),
        &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
    )
}

/// A 2026-07-28 request with these client capabilities and extra headers.
fn modern(
    a: SocketAddr,
    id: u64,
    method: &str,
    mut params: Value,
    caps: Value,
    extra: &[(&'static str, String)],
) -> Resp {
    let name = params
        .get("name")
        .or_else(|| params.get("uri"))
        .and_then(Value::as_str)
        .map(str::to_string);
    params["_meta"] = modern_meta(caps);
    let mut headers = modern_headers(method, name.as_deref());
    headers.extend(extra.iter().cloned());
    post(
        a,
        &headers,
        &json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}),
    )
}

/// The JSON-RPC response of a reply (JSON body, or the response event of an SSE stream).
fn response(r: &Resp) -> Value {
    if r.header("content-type")
        .is_some_and(|c| c.starts_with("text/event-stream"))
    {
        r.messages()
            .into_iter()
            .find(|m| m.get("id").is_some() && m.get("method").is_none())
            .unwrap_or_else(|| panic!("no response on the stream: {}", r.text()))
    } else {
        r.json()
    }
}

fn result(r: &Resp) -> Value {
    let m = response(r);
    assert!(m.get("error").is_none(), "unexpected error: {m}");
    m["result"].clone()
}

fn text_of(result: &Value) -> String {
    result["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn notifications(r: &Resp, method: &str) -> Vec<Value> {
    r.messages()
        .into_iter()
        .filter(|m| m["method"] == method)
        .collect()
}

#[test]
fn plain_baseline_offers_no_fixtures() {
    let h = start("baseline");
    let a = h.addr();
    let init = legacy_initialize(a, json!({}));
    assert_eq!(init.json()["result"]["capabilities"], json!({"tools": {}}));
    let sid = legacy_session(a, json!({}));
    let tools = result(&legacy(a, &sid, 1, "tools/list", json!({})));
    assert_eq!(tools["tools"].as_array().unwrap().len(), 5);
    for method in [
        "prompts/list",
        "resources/list",
        "completion/complete",
        "logging/setLevel",
    ] {
        let r = legacy(a, &sid, 2, method, json!({}));
        assert_eq!(r.json()["error"]["code"], -32601, "{method}");
    }
    let r = legacy(
        a,
        &sid,
        3,
        "tools/call",
        json!({"name": "test_simple_text"}),
    );
    assert_eq!(r.json()["error"]["code"], -32602);
    let r = modern(a, 4, "prompts/list", json!({}), json!({}), &[]);
    assert_eq!(
        (r.status, r.json()["error"]["code"].clone()),
        (404, json!(-32601))
    );
    h.shutdown();
}

#[test]
fn legacy_content_prompts_resources_and_completions() {
    let h = start(CONF);
    let a = h.addr();
    let init = legacy_initialize(a, json!({}));
    let caps = init.json()["result"]["capabilities"].clone();
    for cap in ["tools", "prompts", "completions", "logging"] {
        assert!(caps[cap].is_object(), "{cap}: {caps}");
    }
    assert_eq!(caps["resources"]["subscribe"], true);
    schema_check(LEGACY, "InitializeResult", &init.json()["result"]);
    let sid = legacy_session(a, json!({}));

    let tools = result(&legacy(a, &sid, 1, "tools/list", json!({})));
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(
        &names[..5],
        ["echo", "add", "count", "create_order", "confirm_action"]
    );
    assert!(names.contains(&"test_simple_text") && names.contains(&"json_schema_2020_12_tool"));
    assert!(
        !names.contains(&"test_input_required_result_elicitation"),
        "2026-07-28 only"
    );
    schema_check(LEGACY, "ListToolsResult", &tools);

    let call = |id, name: &str| {
        result(&legacy(
            a,
            &sid,
            id,
            "tools/call",
            json!({"name": name, "arguments": {}}),
        ))
    };
    let image = call(2, "test_image_content");
    assert_eq!(image["content"][0]["mimeType"], "image/png");
    let png = base64::engine::general_purpose::STANDARD
        .decode(image["content"][0]["data"].as_str().unwrap())
        .unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    schema_check(LEGACY, "CallToolResult", &image);
    let audio = call(3, "test_audio_content");
    let wav = base64::engine::general_purpose::STANDARD
        .decode(audio["content"][0]["data"].as_str().unwrap())
        .unwrap();
    assert_eq!((&wav[..4], &wav[8..12]), (&b"RIFF"[..], &b"WAVE"[..]));
    let mixed = call(4, "test_multiple_content_types");
    let kinds: Vec<&str> = mixed["content"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["type"].as_str())
        .collect();
    assert_eq!(kinds, ["text", "image", "resource"]);
    schema_check(LEGACY, "CallToolResult", &mixed);
    let err = call(5, "test_error_handling");
    assert_eq!(err["isError"], true);

    let prompt = result(&legacy(
        a,
        &sid,
        6,
        "prompts/get",
        json!({"name": "test_prompt_with_arguments", "arguments": {"arg1": "hello", "arg2": "world"}}),
    ));
    let text = prompt["messages"][0]["content"]["text"].as_str().unwrap();
    assert!(text.contains("hello") && text.contains("world"), "{text}");
    schema_check(LEGACY, "GetPromptResult", &prompt);
    let r = legacy(
        a,
        &sid,
        7,
        "prompts/get",
        json!({"name": "test_prompt_with_arguments"}),
    );
    assert_eq!(r.json()["error"]["code"], -32602);

    let read = result(&legacy(
        a,
        &sid,
        8,
        "resources/read",
        json!({"uri": "test://template/123/data"}),
    ));
    assert!(
        read["contents"][0]["text"]
            .as_str()
            .unwrap()
            .contains("123")
    );
    schema_check(LEGACY, "ReadResourceResult", &read);
    let r = legacy(a, &sid, 9, "resources/read", json!({"uri": "test://nope"}));
    assert_eq!(r.json()["error"]["code"], -32602);
    assert_eq!(r.json()["error"]["data"]["uri"], "test://nope");
    let list = result(&legacy(a, &sid, 10, "resources/list", json!({})));
    assert!(
        list.get("ttlMs").is_none(),
        "no caching hints under 2025-11-25"
    );
    schema_check(LEGACY, "ListResourcesResult", &list);

    let done = result(&legacy(
        a,
        &sid,
        11,
        "completion/complete",
        json!({"ref": {"type": "ref/prompt", "name": "test_prompt_with_arguments"},
               "argument": {"name": "arg1", "value": "he"}}),
    ));
    assert_eq!(done["completion"]["values"], json!(["hello", "help"]));
    schema_check(LEGACY, "CompleteResult", &done);

    let sub = result(&legacy(
        a,
        &sid,
        12,
        "resources/subscribe",
        json!({"uri": "test://watched-resource"}),
    ));
    assert_eq!(sub, json!({}));
    let r = legacy(
        a,
        &sid,
        13,
        "resources/subscribe",
        json!({"uri": "test://nope"}),
    );
    assert_eq!(r.json()["error"]["code"], -32602);
    let unsub = result(&legacy(
        a,
        &sid,
        14,
        "resources/unsubscribe",
        json!({"uri": "test://watched-resource"}),
    ));
    assert_eq!(unsub, json!({}));
    h.shutdown();
}

#[test]
fn legacy_progress_and_logging_stream_notifications() {
    let h = start(CONF);
    let a = h.addr();
    let sid = legacy_session(a, json!({}));
    let r = legacy(
        a,
        &sid,
        1,
        "tools/call",
        json!({"name": "test_tool_with_progress", "arguments": {}, "_meta": {"progressToken": "p-1"}}),
    );
    let progress: Vec<Value> = notifications(&r, "notifications/progress")
        .into_iter()
        .map(|n| n["params"].clone())
        .collect();
    assert_eq!(progress.len(), 3, "{}", r.text());
    assert!(progress.iter().all(|p| p["progressToken"] == "p-1"));
    let values: Vec<u64> = progress
        .iter()
        .map(|p| p["progress"].as_u64().unwrap())
        .collect();
    assert_eq!(values, [0, 50, 100]);
    assert_eq!(response(&r)["id"], 1);

    // Above info: the tool logs nothing.
    assert_eq!(
        result(&legacy(
            a,
            &sid,
            2,
            "logging/setLevel",
            json!({"level": "warning"})
        )),
        json!({})
    );
    let quiet = legacy(
        a,
        &sid,
        3,
        "tools/call",
        json!({"name": "test_tool_with_logging", "arguments": {}}),
    );
    assert!(!quiet.text().contains("notifications/message"));
    let r = legacy(a, &sid, 4, "logging/setLevel", json!({"level": "loud"}));
    assert_eq!(r.json()["error"]["code"], -32602);
    result(&legacy(
        a,
        &sid,
        5,
        "logging/setLevel",
        json!({"level": "debug"}),
    ));
    let loud = legacy(
        a,
        &sid,
        6,
        "tools/call",
        json!({"name": "test_tool_with_logging", "arguments": {}}),
    );
    let logs = notifications(&loud, "notifications/message");
    assert_eq!(logs.len(), 3, "{}", loud.text());
    assert!(logs.iter().all(|l| l["params"]["level"] == "info"));
    assert_eq!(response(&loud)["id"], 6);
    h.shutdown();
}

/// Reads what has arrived on `c` so far; false once the peer closed.
fn read_more(c: &mut Conn, seen: &mut Vec<u8>) -> bool {
    let mut buf = [0u8; 4096];
    match c.stream.read(&mut buf) {
        Ok(0) => false,
        Ok(n) => {
            seen.extend_from_slice(&buf[..n]);
            true
        }
        Err(_) => true,
    }
}

/// The JSON data of every complete `data:` line seen so far.
fn data_lines(seen: &[u8]) -> Vec<Value> {
    String::from_utf8_lossy(seen)
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

#[test]
fn legacy_sampling_round_trip_on_the_stream() {
    let h = start(CONF);
    let a = h.addr();
    // Without the capability: a tool error, no server request.
    let sid = legacy_session(a, json!({}));
    let r = legacy(
        a,
        &sid,
        1,
        "tools/call",
        json!({"name": "test_sampling", "arguments": {"prompt": "Hi?"}}),
    );
    assert_eq!(result(&r)["isError"], true);

    let sid = legacy_session(a, json!({"sampling": {}}));
    let mut c = Conn::open(a);
    let body = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                      "params": {"name": "test_sampling", "arguments": {"prompt": "Hi?"}}});
    c.send(
        "POST",
        "/mcp",
        &legacy_headers(&sid),
        body.to_string().as_bytes(),
    );
    c.stream
        .set_read_timeout(Some(Duration::from_millis(100)))
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(5);
    let mut seen = Vec::new();
    let request = loop {
        assert!(read_more(&mut c, &mut seen), "stream closed early");
        if let Some(m) = data_lines(&seen)
            .into_iter()
            .find(|m| m["method"] == "sampling/createMessage")
        {
            break m;
        }
        assert!(Instant::now() < deadline, "no sampling request");
    };
    assert_eq!(request["params"]["messages"][0]["content"]["text"], "Hi?");
    schema_check(LEGACY, "CreateMessageRequest", &request);
    let answer = json!({"jsonrpc": "2.0", "id": request["id"], "result": {
        "role": "assistant", "content": {"type": "text", "text": "Hello!"},
        "model": "m", "stopReason": "endTurn"}});
    assert_eq!(post(a, &legacy_headers(&sid), &answer).status, 202);
    let done = loop {
        if let Some(m) = data_lines(&seen).into_iter().find(|m| m["id"] == 2) {
            break m;
        }
        assert!(
            read_more(&mut c, &mut seen) && Instant::now() < deadline,
            "no result"
        );
    };
    assert_eq!(text_of(&done["result"]), "LLM response: Hello!");
    h.shutdown();
}

#[test]
fn modern_lists_carry_caching_hints_and_removed_methods_stay_unknown() {
    let h = start(CONF);
    let a = h.addr();
    let d = result(&modern(a, 1, "server/discover", json!({}), json!({}), &[]));
    assert!(
        d["capabilities"]["prompts"].is_object() && d["capabilities"]["completions"].is_object()
    );
    assert!(d["capabilities"]["resources"].get("subscribe").is_none());
    for (id, method) in [
        (2, "tools/list"),
        (3, "prompts/list"),
        (4, "resources/list"),
        (5, "resources/templates/list"),
    ] {
        let r = result(&modern(a, id, method, json!({}), json!({}), &[]));
        assert_eq!(
            (r["ttlMs"].is_u64(), r["cacheScope"].as_str()),
            (true, Some("public")),
            "{method}"
        );
        assert_eq!(r["resultType"], "complete");
    }
    let read = result(&modern(
        a,
        6,
        "resources/read",
        json!({"uri": "test://static-binary"}),
        json!({}),
        &[],
    ));
    assert_eq!(read["cacheScope"], "public");
    assert_eq!(read["contents"][0]["mimeType"], "image/png");
    let tools = result(&modern(a, 7, "tools/list", json!({}), json!({}), &[]));
    schema_check(MODERN, "ListToolsResult", &tools);
    for method in [
        "logging/setLevel",
        "resources/subscribe",
        "ping",
        "initialize",
    ] {
        let r = modern(a, 8, method, json!({}), json!({}), &[]);
        assert_eq!(
            (r.status, r.json()["error"]["code"].clone()),
            (404, json!(-32601)),
            "{method}"
        );
    }
    h.shutdown();
}

#[test]
fn modern_input_required_rounds_and_state() {
    let h = start(CONF);
    let a = h.addr();
    let all = json!({"elicitation": {}, "sampling": {}, "roots": {}});
    let tool = "test_input_required_result_multi_round";
    let call = |id, extra: Value| {
        let mut params = json!({"name": tool, "arguments": {}});
        for (k, v) in extra.as_object().unwrap() {
            params[k] = v.clone();
        }
        result(&modern(a, id, "tools/call", params, all.clone(), &[]))
    };
    let r1 = call(1, json!({}));
    assert_eq!(r1["resultType"], "input_required");
    assert_eq!(r1["inputRequests"]["step1"]["method"], "elicitation/create");
    schema_check(MODERN, "InputRequiredResult", &r1);
    let s1 = r1["requestState"].as_str().unwrap().to_string();
    let r2 = call(
        2,
        json!({"requestState": s1,
        "inputResponses": {"step1": {"action": "accept", "content": {"name": "Ada"}}}}),
    );
    assert_eq!(r2["resultType"], "input_required");
    let s2 = r2["requestState"].as_str().unwrap().to_string();
    assert_ne!(s1, s2);
    assert!(r2["inputRequests"]["step2"].is_object());
    let r3 = call(
        3,
        json!({"requestState": s2,
        "inputResponses": {"step2": {"action": "accept", "content": {"color": "blue"}}}}),
    );
    assert_eq!(r3["resultType"], "complete");
    assert_eq!(text_of(&r3), "Ada's favorite color is blue");

    // A modified state is refused.
    let tampered = format!("{s2}-TAMPERED");
    let r = modern(
        a,
        4,
        "tools/call",
        json!({"name": tool, "arguments": {}, "requestState": tampered,
               "inputResponses": {"step2": {"action": "accept", "content": {"color": "red"}}}}),
        all.clone(),
        &[],
    );
    assert_eq!(r.json()["error"]["code"], -32602);

    // Stateless flow: a missing answer is asked again, extra keys are ignored, a malformed
    // answer is an error.
    let simple = |id, responses: Value| {
        modern(
            a,
            id,
            "tools/call",
            json!({"name": "test_input_required_result_elicitation", "arguments": {}, "inputResponses": responses}),
            all.clone(),
            &[],
        )
    };
    assert_eq!(
        result(&simple(5, json!({"wrong": {"action": "cancel"}})))["resultType"],
        "input_required"
    );
    let ok = result(&simple(
        6,
        json!({"user_name": {"action": "accept", "content": {"name": "Bo"}}, "extra": 1}),
    ));
    assert_eq!(text_of(&ok), "Hello, Bo!");
    assert_eq!(
        simple(7, json!({"user_name": 12345})).json()["error"]["code"],
        -32602
    );

    // Only what the client declared is asked for.
    let r = result(&modern(
        a,
        8,
        "tools/call",
        json!({"name": "test_input_required_result_capabilities", "arguments": {}}),
        json!({"sampling": {}}),
        &[],
    ));
    let methods: Vec<&str> = r["inputRequests"]
        .as_object()
        .unwrap()
        .values()
        .filter_map(|v| v["method"].as_str())
        .collect();
    assert_eq!(methods, ["sampling/createMessage"]);

    // A capability the tool needs and the client lacks: -32021 with HTTP 400.
    let r = modern(
        a,
        9,
        "tools/call",
        json!({"name": "test_missing_capability", "arguments": {}}),
        json!({}),
        &[],
    );
    assert_eq!(r.status, 400);
    assert_eq!(r.json()["error"]["code"], -32021);
    assert_eq!(
        r.json()["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}})
    );

    // prompts/get asks too.
    let p = result(&modern(
        a,
        10,
        "prompts/get",
        json!({"name": "test_input_required_result_prompt"}),
        all.clone(),
        &[],
    ));
    assert_eq!(p["resultType"], "input_required");
    let p = result(&modern(
        a,
        11,
        "prompts/get",
        json!({"name": "test_input_required_result_prompt",
               "inputResponses": {"user_context": {"action": "accept", "content": {"context": "tests"}}}}),
        all,
        &[],
    ));
    assert!(
        p["messages"][0]["content"]["text"]
            .as_str()
            .unwrap()
            .contains("tests")
    );
    h.shutdown();
}

#[test]
fn modern_logging_needs_the_log_level_in_meta() {
    let h = start_with(CONF, |c| c.response_mode = ResponseMode::Json);
    let a = h.addr();
    let quiet = modern(
        a,
        1,
        "tools/call",
        json!({"name": "test_logging_tool", "arguments": {}}),
        json!({}),
        &[],
    );
    assert!(
        quiet
            .header("content-type")
            .unwrap()
            .starts_with("application/json")
    );
    assert!(!quiet.text().contains("notifications/message"));
    let mut params = json!({"name": "test_logging_tool", "arguments": {}});
    params["_meta"] = modern_meta(json!({}));
    params["_meta"]["io.modelcontextprotocol/logLevel"] = json!("info");
    let loud = post(
        a,
        &modern_headers("tools/call", Some("test_logging_tool")),
        &json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": params}),
    );
    assert_eq!(
        notifications(&loud, "notifications/message").len(),
        3,
        "{}",
        loud.text()
    );
    assert_eq!(response(&loud)["result"]["resultType"], "complete");
    h.shutdown();
}

#[test]
fn modern_mcp_param_headers_are_checked() {
    let h = start(CONF);
    let a = h.addr();
    let call = |id, region: &str, header: Option<&str>| {
        let extra: Vec<(&'static str, String)> = header
            .map(|v| vec![("Mcp-Param-Region", v.to_string())])
            .unwrap_or_default();
        modern(
            a,
            id,
            "tools/call",
            json!({"name": "test_header_param", "arguments": {"region": region}}),
            json!({}),
            &extra,
        )
    };
    assert_eq!(
        text_of(&result(&call(1, "us-west1", Some("us-west1")))),
        "Region: us-west1"
    );
    assert_eq!(
        text_of(&result(&call(2, "Hello", Some("=?base64?SGVsbG8=?=")))),
        "Region: Hello"
    );
    for (id, header) in [
        (3, None),
        (4, Some("=?base64?SGVsbG8?=")),
        (5, Some("elsewhere")),
    ] {
        let r = call(id, "Hello", header);
        assert_eq!(
            (r.status, r.json()["error"]["code"].clone()),
            (400, json!(-32020)),
            "{header:?}"
        );
        assert_eq!(r.json()["id"], id);
    }
    h.shutdown();
}
