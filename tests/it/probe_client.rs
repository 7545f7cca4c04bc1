//! `probe` as a complete client, against hand-written loopback servers: a 2025-11-25 response
//! stream closed before the response is resumed with GET and `Last-Event-ID` after the
//! stream's `retry`; server requests on the standalone GET stream are answered (an accepted
//! form keeps its schema defaults, an unknown method gets -32601); a 405 to the GET is fine;
//! a 2026-07-28 request rejected as UnsupportedProtocolVersion is retried once, and a server
//! that lists only 2025-11-25 gets a 2025-11-25 run.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use mcp_verdict::probe::{self, CallSpec, ProbeConfig, RunStatus, Timeouts};
use mcp_verdict::{Outcome, Protocol};
use serde_json::{Map, Value, json};

use crate::support::http::{Log, Request, SSE_HEAD, respond, serve};

fn json_reply(stream: &mut TcpStream, status: &str, body: &Value, extra: &str) -> bool {
    let headers = format!("Content-Type: application/json\r\n{extra}");
    respond(stream, status, &headers, &body.to_string())
}

fn empty_reply(stream: &mut TcpStream, status: &str) -> bool {
    respond(stream, status, "", "")
}

fn sse_reply(stream: &mut TcpStream, events: &str) {
    let _ = stream.write_all(format!("{SSE_HEAD}{events}").as_bytes());
    let _ = stream.flush();
}

/// The parts of a 2025-11-25 session every legacy server here shares: initialize (with a
/// session id), the initialized notification, a tools/list with `tools`, DELETE (405), and
/// JSON-RPC responses POSTed by the client (202). Returns None for anything else.
fn legacy_basics(seen: &Request, s: &mut TcpStream, tools: &Value) -> Option<bool> {
    let id = seen.body.get("id").cloned().unwrap_or(Value::Null);
    match (seen.method.as_str(), seen.rpc()) {
        ("DELETE", _) => Some(empty_reply(s, "405 Method Not Allowed")),
        ("POST", Some("initialize")) => Some(json_reply(
            s,
            "200 OK",
            &json!({"jsonrpc": "2.0", "id": id, "result": {"protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}}, "serverInfo": {"name": "t", "version": "1"}}}),
            "Mcp-Session-Id: s-1\r\n",
        )),
        ("POST", Some("notifications/initialized")) => Some(empty_reply(s, "202 Accepted")),
        ("POST", Some("tools/list")) => Some(json_reply(
            s,
            "200 OK",
            &json!({"jsonrpc": "2.0", "id": id, "result": {"tools": tools}}),
            "",
        )),
        ("POST", None) => Some(empty_reply(s, "202 Accepted")),
        _ => None,
    }
}

fn legacy_config(url: &str) -> ProbeConfig {
    let mut cfg = ProbeConfig::new(url);
    cfg.protocols = vec![Protocol::V2025_11_25];
    cfg.auto_calls = false;
    cfg.calls.push(CallSpec {
        name: "slow".into(),
        arguments: None,
    });
    cfg.timeouts = Timeouts {
        connect: Duration::from_secs(5),
        idle: Duration::from_secs(5),
        total: Duration::from_secs(10),
    };
    cfg.limits.deadline = Duration::from_secs(30);
    cfg
}

#[test]
fn a_broken_stream_is_resumed_with_last_event_id_after_retry() {
    let tools = json!([{"name": "slow", "inputSchema": {"type": "object"}}]);
    let call_id: Arc<Mutex<Value>> = Arc::default();
    let server = serve(move |seen, s, _log| {
        if let Some(keep) = legacy_basics(seen, s, &tools) {
            return keep;
        }
        match (seen.method.as_str(), seen.header("last-event-id")) {
            ("POST", _) => {
                // Prime, ask for 300 ms between reconnections, and close before the response.
                *call_id.lock().unwrap() = seen.body["id"].clone();
                sse_reply(s, "id: ev-1\nretry: 300\ndata: \n\n");
                false
            }
            ("GET", Some("ev-1")) => {
                let id = call_id.lock().unwrap().clone();
                let response = json!({"jsonrpc": "2.0", "id": id,
                    "result": {"content": [{"type": "text", "text": "done"}]}});
                sse_reply(s, &format!("id: ev-2\ndata: {response}\n\n"));
                false
            }
            // The standalone stream: not offered.
            ("GET", None) => empty_reply(s, "405 Method Not Allowed"),
            _ => empty_reply(s, "400 Bad Request"),
        }
    });
    let url = server.url();
    let report = probe::run(&legacy_config(&url)).expect("reachable");
    let run = report.run(Protocol::V2025_11_25).unwrap();
    assert_eq!(run.status, RunStatus::Probed);
    let x = &run.exchanges[0];
    assert_eq!(x.unanswered, None, "{:?}", run.steps);
    assert_eq!(x.verdict().outcome, Outcome::ToolSuccess);
    assert_eq!(report.exit_code(), 0);

    let log = server.seen();
    let call = log.iter().find(|s| s.rpc() == Some("tools/call")).unwrap();
    let resume = log
        .iter()
        .find(|s| s.method == "GET" && s.header("last-event-id").is_some())
        .expect("a GET with Last-Event-ID");
    assert_eq!(resume.header("last-event-id"), Some("ev-1"));
    assert_eq!(resume.header("mcp-session-id"), Some("s-1"));
    assert!(
        resume
            .header("accept")
            .is_some_and(|a| a.contains("text/event-stream"))
    );
    assert!(
        resume.at.duration_since(call.at) >= Duration::from_millis(300),
        "reconnected before the retry interval"
    );
    // The standalone GET (no Last-Event-ID) came first and was refused with 405: fine.
    let standalone = log
        .iter()
        .find(|s| s.method == "GET" && s.header("last-event-id").is_none())
        .expect("the standalone GET");
    assert!(standalone.at <= call.at);
    let notes: Vec<&str> = run.steps.iter().filter_map(|s| s.note.as_deref()).collect();
    assert!(
        notes.iter().any(|n| n.contains("405 Method Not Allowed")),
        "{notes:?}"
    );
    assert!(
        notes.iter().any(|n| n.contains("Last-Event-ID: ev-1")),
        "{notes:?}"
    );
}

#[test]
fn a_stream_closed_without_an_event_id_is_not_resumed() {
    let tools = json!([{"name": "slow", "inputSchema": {"type": "object"}}]);
    let server = serve(move |seen, s, _log| {
        if let Some(keep) = legacy_basics(seen, s, &tools) {
            return keep;
        }
        match seen.method.as_str() {
            "POST" => {
                sse_reply(s, "retry: 10\ndata: \n\n");
                false
            }
            _ => empty_reply(s, "405 Method Not Allowed"),
        }
    });
    let url = server.url();
    let report = probe::run(&legacy_config(&url)).expect("reachable");
    let x = &report.run(Protocol::V2025_11_25).unwrap().exchanges[0];
    assert!(x.unanswered.is_some());
    assert_eq!(report.exit_code(), 1);
    let log = server.seen();
    assert!(
        !log.iter()
            .any(|s| s.method == "GET" && s.header("last-event-id").is_some())
    );
}

#[test]
fn server_requests_on_the_get_stream_are_answered() {
    let tools = json!([{"name": "slow", "inputSchema": {"type": "object"}}]);
    let server = serve(move |seen, s, log| {
        if let Some(keep) = legacy_basics(seen, s, &tools) {
            return keep;
        }
        let answered = |log: &Log| {
            log.lock()
                .unwrap()
                .iter()
                .filter(|q| q.method == "POST" && q.rpc().is_none())
                .count()
        };
        match seen.method.as_str() {
            "GET" => {
                let elicit = json!({"jsonrpc": "2.0", "id": "e-1", "method": "elicitation/create",
                    "params": {"message": "who?", "requestedSchema": {"type": "object", "properties": {
                        "name": {"type": "string", "default": "Ann"},
                        "age": {"type": "integer", "default": 7}}}}});
                let unknown = json!({"jsonrpc": "2.0", "id": 7, "method": "x/unknown"});
                let note = json!({"jsonrpc": "2.0", "method": "notifications/message",
                    "params": {"level": "info", "data": "hi"}});
                let _ = s.write_all(
                    format!("{SSE_HEAD}data: {elicit}\n\ndata: {unknown}\n\ndata: {note}\n\n")
                        .as_bytes(),
                );
                let _ = s.flush();
                // Keep the stream open until the client closes it.
                let mut b = [0u8; 64];
                let _ = s.set_read_timeout(Some(Duration::from_secs(10)));
                let _ = s.read(&mut b);
                false
            }
            _ => {
                // Answer the call once both server requests have been answered.
                let until = Instant::now() + Duration::from_secs(5);
                while answered(log) < 2 && Instant::now() < until {
                    thread::sleep(Duration::from_millis(20));
                }
                let id = seen.body["id"].clone();
                json_reply(
                    s,
                    "200 OK",
                    &json!({"jsonrpc": "2.0", "id": id,
                        "result": {"content": [{"type": "text", "text": "ok"}]}}),
                    "",
                )
            }
        }
    });
    let url = server.url();
    let mut cfg = legacy_config(&url);
    let answers: Map<String, Value> = serde_json::from_value(
        json!({"elicitation/create": {"action": "accept", "content": {"age": 9}}}),
    )
    .unwrap();
    cfg.answers = answers;
    let report = probe::run(&cfg).expect("reachable");
    let run = report.run(Protocol::V2025_11_25).unwrap();
    assert_eq!(report.exit_code(), 0, "{:?}", run.steps);

    let log = server.seen();
    let get = log.iter().find(|s| s.method == "GET").expect("a GET");
    assert!(
        get.header("accept")
            .is_some_and(|a| a.contains("text/event-stream"))
    );
    assert_eq!(get.header("mcp-session-id"), Some("s-1"));
    assert_eq!(get.header("mcp-protocol-version"), Some("2025-11-25"));
    let replies: Vec<&Value> = log
        .iter()
        .filter(|s| s.method == "POST" && s.rpc().is_none())
        .map(|s| &s.body)
        .collect();
    let elicit = replies.iter().find(|r| r["id"] == "e-1").expect("answered");
    // The answer's own value wins; the missing field keeps its default.
    assert_eq!(
        elicit["result"]["content"],
        json!({"age": 9, "name": "Ann"})
    );
    let unknown = replies.iter().find(|r| r["id"] == 7).expect("answered");
    assert_eq!(unknown["error"]["code"], -32601);

    // Everything that arrived on the stream is reported.
    assert_eq!(run.stream_messages.len(), 3, "{:?}", run.stream_messages);
    assert!(run.stream_messages[2].contains("notifications/message"));
    assert!(
        run.steps
            .iter()
            .any(|s| s.http_method == "GET" && s.status == Some(200))
    );
}

fn modern_discover(id: &Value, versions: &[&str]) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"supportedVersions": versions,
        "capabilities": {"tools": {}}, "serverInfo": {"name": "t", "version": "1"}}})
}

#[test]
fn an_unsupported_version_answer_is_retried_once_with_a_listed_version() {
    let rejected = Arc::new(Mutex::new(false));
    let server = serve(move |seen, s, _log| {
        let id = seen.body.get("id").cloned().unwrap_or(Value::Null);
        match seen.rpc() {
            Some(_) if !std::mem::replace(&mut *rejected.lock().unwrap(), true) => json_reply(
                s,
                "400 Bad Request",
                &json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32022,
                    "message": "Unsupported protocol version",
                    "data": {"supported": ["2026-07-28"], "requested": "2026-07-28"}}}),
                "",
            ),
            Some("server/discover") => {
                json_reply(s, "200 OK", &modern_discover(&id, &["2026-07-28"]), "")
            }
            Some("tools/list") => json_reply(
                s,
                "200 OK",
                &json!({"jsonrpc": "2.0", "id": id, "result": {"tools": []}}),
                "",
            ),
            _ => empty_reply(s, "405 Method Not Allowed"),
        }
    });
    let url = server.url();
    let mut cfg = ProbeConfig::new(&url);
    cfg.protocols = vec![Protocol::V2026_07_28];
    cfg.auto_calls = false;
    let report = probe::run(&cfg).expect("reachable");
    let run = report.run(Protocol::V2026_07_28).unwrap();
    assert_eq!(run.status, RunStatus::Probed, "{:?}", run.steps);
    let discovers = server
        .seen()
        .iter()
        .filter(|s| s.rpc() == Some("server/discover"))
        .count();
    assert_eq!(discovers, 2);
    assert!(
        run.steps[0]
            .note
            .as_deref()
            .is_some_and(|n| n.contains("sent once more"))
    );
}

#[test]
fn a_server_listing_only_the_other_revision_gets_that_run() {
    let tools = json!([]);
    let server = serve(move |seen, s, _log| {
        let id = seen.body.get("id").cloned().unwrap_or(Value::Null);
        if seen.rpc() == Some("server/discover") {
            return json_reply(
                s,
                "400 Bad Request",
                &json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32022,
                    "message": "Unsupported protocol version",
                    "data": {"supported": ["2025-11-25"], "requested": "2026-07-28"}}}),
                "",
            );
        }
        if let Some(keep) = legacy_basics(seen, s, &tools) {
            return keep;
        }
        empty_reply(s, "405 Method Not Allowed")
    });
    let url = server.url();
    let mut cfg = ProbeConfig::new(&url);
    cfg.protocols = vec![Protocol::V2026_07_28];
    cfg.auto_calls = false;
    let report = probe::run(&cfg).expect("reachable");
    assert!(matches!(
        report.run(Protocol::V2026_07_28).unwrap().status,
        RunStatus::Unsupported(_)
    ));
    assert_eq!(
        report.run(Protocol::V2025_11_25).unwrap().status,
        RunStatus::Probed
    );
    // Rejected once: not retried under the revision the server does not list.
    let discovers = server
        .seen()
        .iter()
        .filter(|s| s.rpc() == Some("server/discover"))
        .count();
    assert_eq!(discovers, 1);
    assert_eq!(report.exit_code(), 0);
}

#[test]
fn tools_with_invalid_x_mcp_header_are_rejected_and_not_called() {
    let server = serve(move |seen, s, _log| {
        let id = seen.body.get("id").cloned().unwrap_or(Value::Null);
        match seen.rpc() {
            Some("server/discover") => {
                json_reply(s, "200 OK", &modern_discover(&id, &["2026-07-28"]), "")
            }
            Some("tools/list") => json_reply(
                s,
                "200 OK",
                &json!({"jsonrpc": "2.0", "id": id, "result": {"tools": [
                    {"name": "good", "annotations": {"readOnlyHint": true}, "inputSchema": {"type": "object",
                        "properties": {"r": {"type": "string", "x-mcp-header": "Region"}}, "required": ["r"]}},
                    {"name": "bad", "annotations": {"readOnlyHint": true}, "inputSchema": {"type": "object",
                        "properties": {"r": {"type": "string", "x-mcp-header": "has space"}}, "required": ["r"]}}
                ]}}),
                "",
            ),
            Some("tools/call") => json_reply(
                s,
                "200 OK",
                &json!({"jsonrpc": "2.0", "id": id, "result": {"content": []}}),
                "",
            ),
            _ => empty_reply(s, "405 Method Not Allowed"),
        }
    });
    let url = server.url();
    let mut cfg = ProbeConfig::new(&url);
    cfg.protocols = vec![Protocol::V2026_07_28];
    cfg.calls.push(CallSpec {
        name: "bad".into(),
        arguments: Some(json!({"r": "x"})),
    });
    let report = probe::run(&cfg).expect("reachable");
    let run = report.run(Protocol::V2026_07_28).unwrap();
    assert_eq!(run.rejected_tools.len(), 1);
    assert_eq!(run.rejected_tools[0].0, "bad");
    assert!(run.rejected_tools[0].1.contains("has space"));
    let called: Vec<String> = server
        .seen()
        .iter()
        .filter(|s| s.rpc() == Some("tools/call"))
        .map(|s| s.body["params"]["name"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(called.iter().any(|n| n == "good"), "{called:?}");
    assert!(!called.iter().any(|n| n == "bad"), "{called:?}");
    // Asked for by name, the rejected tool is a call without a response.
    assert_eq!(run.failures.len(), 1, "{:?}", run.failures);
    assert_eq!(report.exit_code(), 1);
}

/// The rule ids of a discovery exchange's findings.
fn discovery_rules(run: &probe::RevisionRun, label: &str) -> Vec<String> {
    let x = run
        .discovery
        .iter()
        .find(|x| x.label == label)
        .unwrap_or_else(|| panic!("no {label} among {:?}", labels(run)));
    assert_eq!(x.verdict().outcome, Outcome::NotAToolCall);
    x.verdict()
        .findings
        .iter()
        .map(|f| f.rule.id.clone())
        .collect()
}

fn labels(run: &probe::RevisionRun) -> Vec<&str> {
    run.discovery.iter().map(|x| x.label.as_str()).collect()
}

#[test]
fn discovery_answers_are_judged_before_the_calls() {
    // 2025-11-25: initialize and two tools/list pages; the second page repeats a name and has
    // one with a space and a comma (SHOULD: warnings, exit 0).
    let server = serve(move |seen, s, _log| {
        let id = seen.body.get("id").cloned().unwrap_or(Value::Null);
        let schema = json!({"type": "object"});
        if seen.rpc() == Some("tools/list") {
            let page = if seen.body.pointer("/params/cursor").is_some() {
                json!({"tools": [{"name": "search", "inputSchema": schema},
                                 {"name": "get weather, now", "inputSchema": schema},
                                 {"name": "search", "inputSchema": schema}]})
            } else {
                json!({"tools": [{"name": "echo", "inputSchema": schema}], "nextCursor": "2"})
            };
            return json_reply(
                s,
                "200 OK",
                &json!({"jsonrpc": "2.0", "id": id, "result": page}),
                "",
            );
        }
        legacy_basics(seen, s, &json!([]))
            .unwrap_or_else(|| empty_reply(s, "405 Method Not Allowed"))
    });
    let url = server.url();
    let mut cfg = legacy_config(&url);
    cfg.calls.clear();
    let report = probe::run(&cfg).expect("reachable");
    let run = report.run(Protocol::V2025_11_25).unwrap();
    assert_eq!(
        labels(run),
        ["initialize", "tools/list", "tools/list page 2"]
    );
    assert!(discovery_rules(run, "initialize").is_empty());
    assert!(discovery_rules(run, "tools/list").is_empty());
    let page2 = discovery_rules(run, "tools/list page 2");
    assert!(
        page2.contains(&"tools.list.name-characters".to_string()),
        "{page2:?}"
    );
    assert!(
        page2.contains(&"tools.list.name-unique".to_string()),
        "{page2:?}"
    );
    assert_eq!(report.exit_code(), 0, "warnings only");

    // 2026-07-28: a tools/list result without the caching hints the schema requires is an
    // error finding, and an error finding exits 1 even when every call is fine.
    let server = serve(move |seen, s, _log| {
        let id = seen.body.get("id").cloned().unwrap_or(Value::Null);
        match seen.rpc() {
            Some("server/discover") => {
                json_reply(s, "200 OK", &modern_discover(&id, &["2026-07-28"]), "")
            }
            Some("tools/list") => json_reply(
                s,
                "200 OK",
                &json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete",
                    "tools": [{"name": "echo", "inputSchema": {"type": "object"}}]}}),
                "",
            ),
            _ => empty_reply(s, "405 Method Not Allowed"),
        }
    });
    let url = server.url();
    let mut cfg = ProbeConfig::new(&url);
    cfg.protocols = vec![Protocol::V2026_07_28];
    cfg.auto_calls = false;
    let report = probe::run(&cfg).expect("reachable");
    let run = report.run(Protocol::V2026_07_28).unwrap();
    assert_eq!(labels(run), ["server/discover", "tools/list"]);
    let list = discovery_rules(run, "tools/list");
    assert!(
        list.contains(&"tools.list.cache-hints".to_string()),
        "{list:?}"
    );
    assert_eq!(report.exit_code(), 1);
    let json = serde_json::to_value(report.to_output()).unwrap();
    let found = &json["runs"][0]["discovery"][1];
    assert_eq!(found["label"], "tools/list");
    assert_eq!(
        found["judgement"]["verdicts"][0]["outcome"],
        "NOT_A_TOOL_CALL"
    );
    let text = mcp_verdict::outputs::probe::render_text(&report, Default::default());
    assert!(text.contains("judged tools/list → 200:"), "{text}");
    assert!(text.contains("tools.list.cache-hints"), "{text}");
}
