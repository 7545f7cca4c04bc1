//! HAR reading: Chrome-, Firefox- and mitmproxy-shaped captures (small, hand-written after the
//! HAR 1.2 spec and each exporter's habits), pairing, body decoding, how bodies ended, entries
//! that are not tools/call, and entries whose body was not recorded.

use mcp_verdict::inputs::har::{self, Record, SkipKind};
use mcp_verdict::run::har::{EntryResult, judge as judge_har};
use mcp_verdict::{BodyEnd, Options, Outcome, Protocol};
use serde_json::{Value, json};

const URL: &str = "http://localhost:3001/mcp";

fn har_of(creator: &str, entries: Vec<Value>) -> Vec<u8> {
    serde_json::to_vec_pretty(&json!({
        "log": {"version": "1.2", "creator": {"name": creator, "version": "1.0"}, "entries": entries}
    }))
    .unwrap()
}

fn call(id: i64, tool: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": {"name": tool, "arguments": {}}})
}

fn success(id: i64) -> String {
    json!({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": "ok"}]}})
        .to_string()
}

/// A Chrome DevTools-shaped POST entry: HTTP/2 pseudo-headers, `_transferSize`, `_error`.
fn chrome_post(body: &Value, status: u16, content_type: &str, content: Value) -> Value {
    json!({
        "_initiator": {"type": "script"}, "_priority": "High", "_resourceType": "fetch",
        "cache": {}, "connection": "1234", "pageref": "page_1",
        "startedDateTime": "2026-05-12T09:14:03.120Z", "time": 20.5,
        "request": {
            "method": "POST", "url": URL, "httpVersion": "http/2.0",
            "headers": [
                {"name": ":authority", "value": "localhost:3001"},
                {"name": ":method", "value": "POST"},
                {"name": ":path", "value": "/mcp"},
                {"name": ":scheme", "value": "http"},
                {"name": "accept", "value": "application/json, text/event-stream"},
                {"name": "content-type", "value": "application/json"},
                {"name": "mcp-protocol-version", "value": "2025-11-25"}
            ],
            "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 90,
            "postData": {"mimeType": "application/json", "text": body.to_string()}
        },
        "response": {
            "status": status, "statusText": "", "httpVersion": "http/2.0",
            "headers": [{"name": "content-type", "value": content_type}],
            "cookies": [], "content": content, "redirectURL": "",
            "headersSize": -1, "bodySize": -1, "_transferSize": 300, "_error": null
        },
        "serverIPAddress": "127.0.0.1",
        "timings": {"blocked": 0.5, "dns": -1, "ssl": -1, "connect": -1, "send": 0.1, "wait": 18.0, "receive": 1.9}
    })
}

fn text_content(text: &str, mime: &str) -> Value {
    json!({"size": text.len(), "mimeType": mime, "text": text})
}

fn exchange(record: &Record) -> &mcp_verdict::Exchange {
    match record {
        Record::ToolsCall(ex) => ex,
        other => panic!("expected a tools/call exchange, got {other:?}"),
    }
}

#[test]
fn chrome_entry_becomes_an_exchange() {
    let body = call(7, "echo");
    let resp = success(7);
    let bytes = har_of(
        "WebInspector",
        vec![chrome_post(
            &body,
            200,
            "application/json",
            text_content(&resp, "application/json"),
        )],
    );
    let h = har::read(&bytes).unwrap();
    assert_eq!(h.version.as_deref(), Some("1.2"));
    assert_eq!(h.creator.as_deref(), Some("WebInspector 1.0"));
    assert_eq!(h.entries.len(), 1);
    let e = &h.entries[0];
    assert_eq!(e.index, 0);
    assert_eq!(e.method, "POST");
    assert_eq!(e.url, URL);
    assert_eq!(e.started.as_deref(), Some("2026-05-12T09:14:03.120Z"));
    assert_eq!(e.tool.as_deref(), Some("echo"));
    let ex = exchange(&e.record);
    assert_eq!(ex.request.method.as_deref(), Some("POST"));
    assert_eq!(ex.request.url.as_deref(), Some(URL));
    assert_eq!(ex.request.body.as_ref(), Some(&body));
    assert_eq!(
        ex.request.headers.get("MCP-Protocol-Version"),
        Some("2025-11-25")
    );
    assert!(
        ex.request.headers.iter().all(|(n, _)| !n.starts_with(':')),
        "HTTP/2 pseudo-headers are not header fields"
    );
    assert_eq!(ex.status, 200);
    assert_eq!(
        ex.response_headers.get("Content-Type"),
        Some("application/json")
    );
    assert_eq!(ex.body, resp.as_bytes());
    assert_eq!(ex.end, BodyEnd::Complete);
    assert!(e.notes.is_empty(), "{:?}", e.notes);

    let report = judge_har(&h, &Options::default());
    match &report.results[0] {
        EntryResult::Judged(j) => {
            assert_eq!(j.verdicts[0].protocol, Protocol::V2025_11_25);
            assert_eq!(j.verdicts[0].outcome, Outcome::ToolSuccess);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn sse_bodies_pass_through_byte_for_byte() {
    let stream = format!(
        "id: p1\r\ndata:\r\n\r\n: keep-alive\n\nevent: message\nid: p2\ndata: {}\n\n",
        success(3)
    );
    let bytes = har_of(
        "WebInspector",
        vec![chrome_post(
            &call(3, "echo"),
            200,
            "text/event-stream",
            text_content(&stream, "text/event-stream"),
        )],
    );
    let h = har::read(&bytes).unwrap();
    let ex = exchange(&h.entries[0].record);
    assert_eq!(ex.body, stream.as_bytes());
    assert_eq!(
        ex.response_headers.get("content-type"),
        Some("text/event-stream")
    );
    assert_eq!(ex.end, BodyEnd::Complete);
}

#[test]
fn base64_content_is_decoded_exactly() {
    // Not UTF-8: the engine must see the raw bytes.
    let raw: Vec<u8> = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":\"\xff\xfe\"}".to_vec();
    use base64::Engine as _;
    let b64 = base64::engine::general_purpose::STANDARD.encode(&raw);
    // mitmproxy and browsers write it on one line; tolerate line breaks too.
    let wrapped = format!("{}\n{}", &b64[..20], &b64[20..]);
    let content = json!({"size": raw.len(), "mimeType": "application/json",
                         "encoding": "base64", "text": wrapped});
    let bytes = har_of(
        "WebInspector",
        vec![chrome_post(
            &call(1, "echo"),
            200,
            "application/json",
            content,
        )],
    );
    let h = har::read(&bytes).unwrap();
    assert_eq!(exchange(&h.entries[0].record).body, raw);
}

#[test]
fn bad_or_unknown_content_encoding_is_not_judged() {
    let bad = json!({"size": 3, "mimeType": "application/json", "encoding": "base64", "text": "!!!not base64"});
    let odd = json!({"size": 3, "mimeType": "application/json", "encoding": "gzip", "text": "abc"});
    let bytes = har_of(
        "x",
        vec![
            chrome_post(&call(1, "a"), 200, "application/json", bad),
            chrome_post(&call(2, "b"), 200, "application/json", odd),
        ],
    );
    let h = har::read(&bytes).unwrap();
    for (e, word) in h.entries.iter().zip(["base64", "gzip"]) {
        match &e.record {
            Record::Unreadable { reason } => assert!(reason.contains(word), "{reason}"),
            other => panic!("{other:?}"),
        }
    }
    let report = judge_har(&h, &Options::default());
    assert_eq!(report.summary.not_judged, 2);
    assert!(report.summary.failed());
}

#[test]
fn missing_content_text_is_not_recorded_never_an_empty_body() {
    // Chrome when the body was evicted or never read: content without `text`.
    let chrome = chrome_post(
        &call(1, "slow"),
        200,
        "text/event-stream",
        json!({"size": 0, "mimeType": "text/event-stream"}),
    );
    // Firefox with "Save All As HAR" when bodies are not included.
    let mut firefox = chrome_post(
        &call(2, "slow"),
        200,
        "application/json",
        json!({"mimeType": "application/json", "size": 120, "comment": "Response bodies are not included."}),
    );
    firefox["response"]["_error"] = Value::Null;
    // No content object at all.
    let mut bare = chrome_post(&call(3, "slow"), 200, "application/json", json!({}));
    bare["response"].as_object_mut().unwrap().remove("content");
    // Text present but empty while the size says there were bytes.
    let emptied = chrome_post(
        &call(4, "slow"),
        200,
        "application/json",
        json!({"size": 75, "mimeType": "application/json", "text": ""}),
    );
    // A genuinely empty body (202 Accepted) is judged.
    let accepted = chrome_post(
        &call(5, "slow"),
        202,
        "text/plain",
        json!({"size": 0, "mimeType": "x-unknown", "text": ""}),
    );
    let bytes = har_of("x", vec![chrome, firefox, bare, emptied, accepted]);
    let h = har::read(&bytes).unwrap();
    for e in &h.entries[..3] {
        assert_eq!(e.tool.as_deref(), Some("slow"));
        match &e.record {
            Record::NotRecorded { reason } => assert!(reason.contains("no text"), "{reason}"),
            other => panic!("entry {}: {other:?}", e.index),
        }
    }
    match &h.entries[3].record {
        Record::NotRecorded { reason } => assert!(reason.contains("75 bytes"), "{reason}"),
        other => panic!("{other:?}"),
    }
    let accepted = exchange(&h.entries[4].record);
    assert!(accepted.body.is_empty());
    assert_eq!(accepted.status, 202);
    match &h.entries[1].record {
        Record::NotRecorded { reason } => {
            assert!(reason.contains("Response bodies are not included."))
        }
        _ => unreachable!(),
    }
    let report = judge_har(&h, &Options::default());
    assert_eq!(report.summary.not_recorded, 4);
    assert_eq!(report.summary.judged, 1);
    let out = mcp_verdict::outputs::har::view(&report, "f.har");
    for e in &out.entries[..4] {
        assert!(e.not_recorded && e.judgement.is_none() && e.reason.is_some());
    }
    assert!(!out.entries[4].not_recorded && out.entries[4].judgement.is_some());
    let text = mcp_verdict::outputs::har::text(&report, "f.har", Default::default());
    assert_eq!(text.matches("body not recorded: ").count(), 4, "{text}");
}

#[test]
fn error_strings_set_how_the_body_ended() {
    let partial = "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"res";
    let mk = |error: Value| {
        let mut e = chrome_post(
            &call(1, "echo"),
            200,
            "text/event-stream",
            text_content(partial, "text/event-stream"),
        );
        e["response"]["_error"] = error;
        e
    };
    let mut entry_level = mk(Value::Null);
    entry_level["_error"] = json!("net::ERR_CONNECTION_RESET");
    let bytes = har_of(
        "x",
        vec![
            mk(json!("net::ERR_INCOMPLETE_CHUNKED_ENCODING")),
            mk(json!("net::ERR_TIMED_OUT")),
            mk(json!("net::ERR_ABORTED")),
            mk(json!("")),
            mk(Value::Null),
            entry_level,
        ],
    );
    let h = har::read(&bytes).unwrap();
    let ends: Vec<BodyEnd> = h.entries.iter().map(|e| exchange(&e.record).end).collect();
    assert_eq!(
        ends,
        [
            BodyEnd::Reset,
            BodyEnd::Timeout,
            BodyEnd::Timeout,
            BodyEnd::Complete,
            BodyEnd::Complete,
            BodyEnd::Reset
        ]
    );
    // The partial text is judged as recorded, and the mapping is noted.
    assert_eq!(exchange(&h.entries[0].record).body, partial.as_bytes());
    assert!(h.entries[0].notes[0].contains("ERR_INCOMPLETE_CHUNKED_ENCODING"));
    assert!(h.entries[0].notes[0].contains("reset"));
}

#[test]
fn content_size_mismatch_is_only_noted() {
    let resp = success(1);
    let content = json!({"size": resp.len() + 500, "mimeType": "application/json", "text": resp});
    let bytes = har_of(
        "x",
        vec![chrome_post(
            &call(1, "echo"),
            200,
            "application/json",
            content,
        )],
    );
    let h = har::read(&bytes).unwrap();
    let e = &h.entries[0];
    assert_eq!(exchange(&e.record).end, BodyEnd::Complete);
    assert!(
        e.notes.iter().any(|n| n.contains("content.size")),
        "{:?}",
        e.notes
    );
}

#[test]
fn status_zero_means_no_response() {
    // Firefox: an aborted request keeps status 0 and no content text.
    let firefox = json!({
        "startedDateTime": "2026-05-12T09:14:03.120+02:00", "time": 0,
        "request": {"bodySize": 80, "method": "POST", "url": URL, "httpVersion": "HTTP/1.1",
            "headers": [{"name": "Content-Type", "value": "application/json"}],
            "cookies": [], "queryString": [], "headersSize": 400,
            "postData": {"mimeType": "application/json", "params": [], "text": call(1, "echo").to_string()}},
        "response": {"status": 0, "statusText": "", "httpVersion": "", "headers": [], "cookies": [],
            "content": {"mimeType": "", "size": -1}, "redirectURL": "", "headersSize": -1, "bodySize": -1},
        "cache": {}, "timings": {"blocked": -1, "dns": -1, "connect": -1, "ssl": -1, "send": 0, "wait": 0, "receive": 0}
    });
    // Chrome: status 0 with the network error.
    let mut chrome = chrome_post(
        &call(2, "echo"),
        0,
        "x-unknown",
        json!({"size": 0, "mimeType": "x-unknown"}),
    );
    chrome["response"]["headers"] = json!([]);
    chrome["response"]["_error"] = json!("net::ERR_CONNECTION_REFUSED");
    let bytes = har_of("x", vec![firefox, chrome]);
    let h = har::read(&bytes).unwrap();
    let reasons: Vec<&str> = h
        .entries
        .iter()
        .map(|e| match &e.record {
            Record::NotRecorded { reason } => reason.as_str(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert!(reasons[0].contains("status 0"), "{}", reasons[0]);
    assert!(
        reasons[1].contains("net::ERR_CONNECTION_REFUSED"),
        "{}",
        reasons[1]
    );
}

#[test]
fn firefox_shape() {
    let resp = success(4);
    let har = json!({"log": {
        "version": "1.2",
        "creator": {"name": "Firefox", "version": "138.0"},
        "browser": {"name": "Firefox", "version": "138.0"},
        "pages": [{"startedDateTime": "2026-05-12T11:14:03.000+02:00", "id": "page_1", "title": "Inspector", "pageTimings": {"onContentLoad": -1, "onLoad": -1}}],
        "entries": [{
            "pageref": "page_1",
            "startedDateTime": "2026-05-12T11:14:03.120+02:00",
            "request": {"bodySize": 95, "method": "POST", "url": URL, "httpVersion": "HTTP/1.1",
                "headers": [
                    {"name": "Host", "value": "localhost:3001"},
                    {"name": "Accept", "value": "application/json, text/event-stream"},
                    {"name": "Content-Type", "value": "application/json"},
                    {"name": "MCP-Protocol-Version", "value": "2025-11-25"}
                ],
                "cookies": [], "queryString": [], "headersSize": 412,
                "postData": {"mimeType": "application/json", "params": [], "text": call(4, "echo").to_string()}},
            "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                "headers": [{"name": "Content-Type", "value": "application/json"},
                            {"name": "Content-Length", "value": resp.len().to_string()}],
                "cookies": [],
                "content": {"mimeType": "application/json", "size": resp.len(), "text": resp},
                "redirectURL": "", "headersSize": 120, "bodySize": 200},
            "cache": {},
            "timings": {"blocked": 0, "dns": 0, "connect": 0, "ssl": 0, "send": 0, "wait": 12, "receive": 0},
            "time": 12,
            "_securityState": "insecure",
            "serverIPAddress": "127.0.0.1",
            "connection": "3001"
        }]
    }});
    let h = har::read(&serde_json::to_vec(&har).unwrap()).unwrap();
    assert_eq!(h.creator.as_deref(), Some("Firefox 138.0"));
    let ex = exchange(&h.entries[0].record);
    assert_eq!(ex.body, resp.as_bytes());
    assert_eq!(ex.request.body.as_ref(), Some(&call(4, "echo")));
}

#[test]
fn mitmproxy_shape() {
    // As mitmproxy's savehar addon writes it: `compression`, base64 for mostly-binary bodies,
    // and for a flow without a response status 0, `content: {}` and `_error`.
    let resp = success(9);
    let har = json!({"log": {
        "version": "1.2",
        "creator": {"name": "mitmproxy exporthar", "version": "0.1", "comment": "mitmproxy version 12.1.1"},
        "pages": [],
        "entries": [
            {
                "startedDateTime": "2026-05-12T09:14:03.120000+00:00", "time": 21.3,
                "request": {"method": "POST", "url": URL, "httpVersion": "HTTP/1.1", "cookies": [],
                    "headers": [{"name": "content-type", "value": "application/json"},
                                {"name": "mcp-protocol-version", "value": "2025-11-25"}],
                    "queryString": [], "headersSize": 180, "bodySize": 90,
                    "postData": {"mimeType": "application/json", "text": call(9, "echo").to_string(), "params": []}},
                "response": {"status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1", "cookies": [],
                    "headers": [{"name": "content-type", "value": "application/json"}],
                    "content": {"size": resp.len(), "compression": 0, "mimeType": "application/json", "text": resp},
                    "redirectURL": "", "headersSize": 60, "bodySize": resp.len()},
                "cache": {}, "timings": {"connect": 0.5, "ssl": null, "send": 0.2, "receive": 0.4, "wait": 20.2},
                "serverIPAddress": "127.0.0.1"
            },
            {
                "startedDateTime": "2026-05-12T09:14:05.000000+00:00", "time": 0,
                "request": {"method": "POST", "url": URL, "httpVersion": "HTTP/1.1", "cookies": [],
                    "headers": [{"name": "mcp-protocol-version", "value": "2025-11-25"}],
                    "queryString": [], "headersSize": 100, "bodySize": 90,
                    "postData": {"mimeType": "application/json", "text": call(10, "echo").to_string(), "params": []}},
                "response": {"status": 0, "statusText": "", "httpVersion": "", "headers": [], "cookies": [],
                    "content": {}, "redirectURL": "", "headersSize": -1, "bodySize": -1,
                    "_transferSize": 0, "_error": "Connection killed."},
                "cache": {}, "timings": {"connect": null, "ssl": null, "send": 0, "receive": 0, "wait": 0}
            }
        ]
    }});
    let h = har::read(&serde_json::to_vec(&har).unwrap()).unwrap();
    assert_eq!(h.creator.as_deref(), Some("mitmproxy exporthar 0.1"));
    assert_eq!(exchange(&h.entries[0].record).body, resp.as_bytes());
    match &h.entries[1].record {
        Record::NotRecorded { reason } => {
            assert!(reason.contains("Connection killed."), "{reason}")
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn entries_that_are_not_tools_call_are_counted_by_kind() {
    let post = |body: Value| {
        chrome_post(
            &body,
            200,
            "application/json",
            text_content("{}", "application/json"),
        )
    };
    let mut get = post(json!({}));
    get["request"]["method"] = json!("GET");
    get["request"].as_object_mut().unwrap().remove("postData");
    let mut options = get.clone();
    options["request"]["method"] = json!("options");
    let mut form = post(json!({}));
    form["request"]["postData"] = json!({"mimeType": "application/x-www-form-urlencoded", "params": [{"name": "q", "value": "1"}], "text": "q=1"});
    let mut no_body = post(json!({}));
    no_body["request"]
        .as_object_mut()
        .unwrap()
        .remove("postData");
    let bytes = har_of(
        "x",
        vec![
            post(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {}})),
            post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})),
            post(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})),
            post(json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"})),
            post(json!({"jsonrpc": "2.0", "id": "s1", "result": {}})),
            post(json!([{"jsonrpc": "2.0", "id": 3, "method": "ping"}])),
            post(json!({"hello": "world"})),
            form,
            no_body,
            get,
            options,
        ],
    );
    let h = har::read(&bytes).unwrap();
    let kinds: Vec<SkipKind> = h
        .entries
        .iter()
        .map(|e| match &e.record {
            Record::Skipped(k) => k.clone(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        kinds,
        [
            SkipKind::Method("initialize".into()),
            SkipKind::Method("notifications/initialized".into()),
            SkipKind::Method("tools/list".into()),
            SkipKind::Method("tools/list".into()),
            SkipKind::Response,
            SkipKind::Batch,
            SkipKind::NotJsonRpc,
            SkipKind::NotJsonRpc,
            SkipKind::NoRequestBody,
            SkipKind::HttpMethod("GET".into()),
            SkipKind::HttpMethod("OPTIONS".into()),
        ]
    );
    assert!(
        h.entries[7].notes[0].contains("not JSON"),
        "{:?}",
        h.entries[7].notes
    );
    let report = judge_har(&h, &Options::default());
    let s = &report.summary;
    assert_eq!(s.entries, 11);
    assert_eq!((s.judged, s.not_recorded, s.not_judged), (0, 0, 0));
    let skipped: Vec<(&str, usize)> = s.skipped.iter().map(|(k, n)| (k.as_str(), *n)).collect();
    assert_eq!(
        skipped,
        [
            ("HTTP GET", 1),
            ("HTTP OPTIONS", 1),
            ("JSON-RPC batch", 1),
            ("JSON-RPC response", 1),
            ("initialize", 1),
            ("not JSON-RPC", 2),
            ("notifications/initialized", 1),
            ("request body not recorded", 1),
            ("tools/list", 2),
        ]
    );
}

#[test]
fn each_request_is_paired_with_its_own_response() {
    let ok = success(1);
    let err = json!({"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "Unknown tool: nope"}}).to_string();
    let tool_err = json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "denied"}], "isError": true}}).to_string();
    let bytes = har_of(
        "x",
        vec![
            chrome_post(
                &call(1, "echo"),
                200,
                "application/json",
                text_content(&ok, "application/json"),
            ),
            chrome_post(
                &json!({"jsonrpc": "2.0", "id": 9, "method": "tools/list"}),
                200,
                "application/json",
                text_content("{}", "application/json"),
            ),
            chrome_post(
                &call(2, "nope"),
                200,
                "application/json",
                text_content(&err, "application/json"),
            ),
            chrome_post(
                &call(3, "rm"),
                200,
                "application/json",
                text_content(&tool_err, "application/json"),
            ),
        ],
    );
    let h = har::read(&bytes).unwrap();
    let report = judge_har(&h, &Options::default());
    let judged: Vec<(usize, Outcome, Value, Value)> = h
        .entries
        .iter()
        .zip(&report.results)
        .filter_map(|(e, r)| match r {
            EntryResult::Judged(j) => {
                let v = &j.verdicts[0];
                Some((
                    e.index,
                    v.outcome,
                    v.facts.request_id.clone().unwrap(),
                    v.facts.response_id.clone().unwrap(),
                ))
            }
            _ => None,
        })
        .collect();
    assert_eq!(
        judged,
        [
            (0, Outcome::ToolSuccess, json!(1), json!(1)),
            (2, Outcome::JsonrpcError, json!(2), json!(2)),
            (3, Outcome::ToolError, json!(3), json!(3)),
        ]
    );
    assert_eq!(report.summary.judged, 3);
}

#[test]
fn unknown_revision_is_reported_per_entry_and_the_rest_continue() {
    let mut undeclared = chrome_post(
        &call(1, "echo"),
        200,
        "application/json",
        text_content(&success(1), "application/json"),
    );
    undeclared["request"]["headers"] =
        json!([{"name": "content-type", "value": "application/json"}]);
    let mut unsupported = undeclared.clone();
    unsupported["request"]["headers"] =
        json!([{"name": "MCP-Protocol-Version", "value": "2024-11-05"}]);
    let declared = chrome_post(
        &call(2, "echo"),
        200,
        "application/json",
        text_content(&success(2), "application/json"),
    );
    let bytes = har_of("x", vec![undeclared, unsupported, declared]);
    let h = har::read(&bytes).unwrap();
    let report = judge_har(&h, &Options::default());
    assert!(matches!(&report.results[0], EntryResult::NotJudged(m) if m.contains("--protocol")));
    assert!(matches!(&report.results[1], EntryResult::NotJudged(m) if m.contains("2024-11-05")));
    assert!(matches!(&report.results[2], EntryResult::Judged(_)));
    assert_eq!((report.summary.judged, report.summary.not_judged), (1, 2));
    assert!(report.summary.failed());
    let out = mcp_verdict::outputs::har::view(&report, "f.har");
    assert!(out.entries[0].error.is_some() && out.entries[0].judgement.is_none());

    // An explicit revision judges them all.
    let all: Vec<Protocol> = Protocol::all().collect();
    let report = judge_har(
        &h,
        &Options {
            protocols: Some(&all),
            ..Options::default()
        },
    );
    assert_eq!(report.summary.judged, 3);
    match &report.results[0] {
        EntryResult::Judged(j) => assert_eq!(j.verdicts.len(), 2),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_missing_request_body_with_mcp_method_header_is_still_a_tools_call() {
    let mut e = chrome_post(
        &call(1, "echo"),
        200,
        "application/json",
        text_content(&success(1), "application/json"),
    );
    e["request"].as_object_mut().unwrap().remove("postData");
    e["request"]["headers"] = json!([
        {"name": "MCP-Protocol-Version", "value": "2026-07-28"},
        {"name": "Mcp-Method", "value": "tools/call"},
        {"name": "Mcp-Name", "value": "echo"}
    ]);
    let h = har::read(&har_of("x", vec![e])).unwrap();
    let entry = &h.entries[0];
    assert_eq!(entry.tool.as_deref(), Some("echo"));
    let ex = exchange(&entry.record);
    assert!(ex.request.body.is_none());
    assert!(entry.notes[0].contains("Mcp-Method"));
}

#[test]
fn tool_definitions_come_from_a_recorded_tools_list() {
    let tool = json!({"name": "weather", "inputSchema": {"type": "object"},
                      "outputSchema": {"type": "object", "required": ["t"], "properties": {"t": {"type": "number"}}}});
    let list = json!({"jsonrpc": "2.0", "id": 1, "result": {"tools": [tool]}});
    let sse_list = format!("id: a\ndata:\n\nevent: message\ndata: {list}\n\n");
    let resp = success(2);
    let bytes = har_of(
        "x",
        vec![
            chrome_post(
                &json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
                200,
                "text/event-stream",
                text_content(&sse_list, "text/event-stream"),
            ),
            chrome_post(
                &call(2, "weather"),
                200,
                "application/json",
                text_content(&resp, "application/json"),
            ),
            chrome_post(
                &call(3, "other"),
                200,
                "application/json",
                text_content(&success(3), "application/json"),
            ),
        ],
    );
    let h = har::read(&bytes).unwrap();
    assert_eq!(exchange(&h.entries[1].record).tool.as_ref(), Some(&tool));
    assert!(h.entries[1].notes.iter().any(|n| n.contains("entry 0")));
    assert!(exchange(&h.entries[2].record).tool.is_none());
}

#[test]
fn non_json_post_data_is_skipped_not_fatal() {
    let mut e = chrome_post(
        &call(1, "x"),
        200,
        "application/json",
        text_content("{}", "application/json"),
    );
    e["request"]["postData"]["text"] = json!("{\"jsonrpc\": \"2.0\", \"method\": \"tools/call\", ");
    let h = har::read(&har_of("x", vec![e])).unwrap();
    assert!(matches!(
        h.entries[0].record,
        Record::Skipped(SkipKind::NotJsonRpc)
    ));
    assert!(h.entries[0].notes[0].contains("not JSON"));
}

#[test]
fn invalid_har_files_name_line_and_column() {
    let e = har::read(b"{\n  \"log\": {\n    \"entries\": [,]\n  }\n}").unwrap_err();
    assert_eq!(e.line, Some(3));
    assert!(e.column.is_some());
    assert!(e.to_string().starts_with("line 3, column "), "{e}");
    let e = har::read(b"{\"log\": {\"version\": \"1.2\"}}").unwrap_err();
    assert!(e.message.contains("entries"), "{}", e.message);
    let e = har::read(b"{\"log\": {\"entries\": [{\"request\": {\"url\": \"x\"}}]}}").unwrap_err();
    assert!(e.message.contains("method"), "{}", e.message);
    let e = har::read(b"").unwrap_err();
    assert!(e.line.is_some());
}

#[test]
fn a_byte_order_mark_is_ignored() {
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend(har_of("x", vec![]));
    assert!(har::read(&bytes).unwrap().entries.is_empty());
}
