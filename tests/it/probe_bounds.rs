//! `probe` against servers whose calls never complete: a stalled stream, a body closed
//! mid-way, a redirect, an endless stream, a body past the size cap. Each call is labelled
//! with what happened, and the probe exits 1.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::thread;
use std::time::{Duration, Instant};

use crate::support::http::{Log, Request, SSE_HEAD, serve, write_json_response, write_json_result};
use mcp_verdict::Protocol;
use mcp_verdict::probe::{self, CallSpec, ProbeConfig, ProbeReport, Timeouts};
use serde_json::{Value, json};

fn sse_head(stream: &mut TcpStream) -> bool {
    stream.write_all(SSE_HEAD.as_bytes()).is_ok()
}

fn progress(id: &Value, n: u64) -> String {
    let msg = json!({"jsonrpc": "2.0", "method": "notifications/progress",
        "params": {"progressToken": format!("mcp-verdict-probe-{id}"), "progress": n}});
    format!("event: message\ndata: {msg}\n\n")
}

/// Answers one request; each tool misbehaves its own way. False to close the connection.
fn answer(request: &Request, stream: &mut TcpStream, _: &Log) -> bool {
    let body = &request.body;
    let id = body["id"].clone();
    let meta = json!({"io.modelcontextprotocol/serverInfo": {"name": "bad", "version": "1"}});
    let result = match body["method"].as_str().unwrap_or("") {
        "server/discover" => json!({
            "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
            "resultType": "complete", "ttlMs": 0, "cacheScope": "private", "_meta": meta
        }),
        "tools/list" => {
            let tools: Vec<Value> = ["stall", "cut", "redirect", "flood", "huge", "drip", "ok"]
                .iter()
                .map(|n| json!({"name": n, "inputSchema": {"type": "object"}}))
                .collect();
            json!({"tools": tools, "resultType": "complete", "ttlMs": 0,
                   "cacheScope": "private", "_meta": meta})
        }
        "tools/call" => {
            let done = json!({"jsonrpc": "2.0", "id": id, "result": {
                "content": [{"type": "text", "text": "ok"}], "resultType": "complete"}});
            match body["params"]["name"].as_str().unwrap_or("") {
                "stall" => {
                    // One event, then silence until the client gives up.
                    if sse_head(stream) {
                        let _ = stream.write_all(progress(&id, 1).as_bytes());
                        let _ = stream.set_read_timeout(Some(Duration::from_secs(20)));
                        let _ = stream.read(&mut [0u8; 16]);
                    }
                    return false;
                }
                "cut" => {
                    let text = done.to_string();
                    let head = format!(
                        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
                        text.len()
                    );
                    let _ = stream.write_all(head.as_bytes());
                    let _ = stream.write_all(&text.as_bytes()[..text.len() / 2]);
                    return false;
                }
                "redirect" => {
                    let _ = stream.write_all(
                        b"HTTP/1.1 302 Found\r\nLocation: /elsewhere\r\nContent-Length: 0\r\n\r\n",
                    );
                    return true;
                }
                "flood" => {
                    // Events as fast as the client reads them, forever.
                    if sse_head(stream) {
                        let mut n = 0;
                        while stream.write_all(progress(&id, n).as_bytes()).is_ok() {
                            n += 1;
                        }
                    }
                    return false;
                }
                "huge" => {
                    // One event whose data never ends.
                    if sse_head(stream) {
                        let _ = stream.write_all(b"data: {\"x\": \"");
                        let block = vec![b'a'; 64 * 1024];
                        while stream.write_all(&block).is_ok() {}
                    }
                    return false;
                }
                "drip" => {
                    // An event every 50 ms: never idle, never done.
                    if sse_head(stream) {
                        let mut n = 0;
                        while stream.write_all(progress(&id, n).as_bytes()).is_ok() {
                            n += 1;
                            thread::sleep(Duration::from_millis(50));
                        }
                    }
                    return false;
                }
                _ => {
                    write_json_response(stream, &done);
                    return true;
                }
            }
        }
        _ => json!({}),
    };
    write_json_result(stream, &id, result);
    true
}

fn config(url: &str, tools: &[&str]) -> ProbeConfig {
    let mut c = ProbeConfig::new(url);
    c.protocols = vec![Protocol::V2026_07_28];
    c.auto_calls = false;
    c.calls = tools
        .iter()
        .map(|t| CallSpec {
            name: (*t).into(),
            arguments: None,
        })
        .collect();
    c.timeouts = Timeouts {
        connect: Duration::from_secs(2),
        idle: Duration::from_millis(500),
        total: Duration::from_secs(3),
    };
    c
}

fn step_of<'a>(report: &'a ProbeReport, tool: &str) -> &'a mcp_verdict::probe::HttpStep {
    report.runs[0]
        .steps
        .iter()
        .find(|s| s.tool.as_deref() == Some(tool))
        .unwrap()
}

#[test]
fn calls_that_never_complete_are_labelled_and_exit_1() {
    let server = serve(answer);
    let url = server.url();
    for (tool, label) in [
        ("stall", "stalled"),
        ("cut", "closed mid-body"),
        ("redirect", "redirected"),
        ("flood", "cut at the event cap"),
        ("huge", "cut at the size cap"),
    ] {
        let mut c = config(&url, &[tool]);
        c.limits.events = 50;
        c.limits.body_bytes = 256 * 1024;
        let report = probe::run(&c).unwrap();
        let step = step_of(&report, tool);
        assert!(
            step.describe().contains(label),
            "{tool}: {}",
            step.describe()
        );
        let x = &report.runs[0].exchanges[0];
        let why = x.unanswered.as_deref().unwrap_or_default();
        assert!(why.contains(label), "{tool}: {why}");
        assert_eq!(report.exit_code(), 1, "{tool}: {}", step.describe());
        let text = mcp_verdict::outputs::probe::render_text(
            &report,
            mcp_verdict::outputs::Style::default(),
        );
        assert!(text.contains("no complete response:"), "{text}");
        assert!(!text.contains("(body end: timeout)"), "{text}");
        let out = serde_json::to_value(report.to_output()).unwrap();
        assert!(
            out["runs"][0]["exchanges"][0]["unanswered"]
                .as_str()
                .is_some_and(|u| u.contains(label)),
            "{out}"
        );
    }
    // The caps bound what is kept.
    let mut c = config(&url, &["huge", "flood"]);
    c.limits.events = 50;
    c.limits.body_bytes = 256 * 1024;
    let report = probe::run(&c).unwrap();
    let xs = &report.runs[0].exchanges;
    assert_eq!(xs[0].exchange.body.len(), 256 * 1024);
    assert!(xs[1].exchange.body.len() < 256 * 1024);

    let report = probe::run(&config(&url, &["ok"])).unwrap();
    assert_eq!(
        report.exit_code(),
        0,
        "a complete call still passes: {}",
        mcp_verdict::outputs::probe::render_text(&report, mcp_verdict::outputs::Style::default())
    );
    assert!(report.runs[0].exchanges[0].unanswered.is_none());
}

#[test]
fn the_deadline_ends_the_probe() {
    let server = serve(answer);
    let url = server.url();
    // Each drip call would take its whole total time (3 s); the deadline cuts the first and
    // leaves the others unsent.
    let mut c = config(&url, &["drip", "drip", "ok"]);
    c.limits.deadline = Duration::from_millis(1500);
    let report = probe::run(&c).unwrap();
    let run = &report.runs[0];
    assert_eq!(run.exchanges.len(), 1);
    let why = run.exchanges[0].unanswered.as_deref().unwrap_or_default();
    assert!(why.contains("deadline"), "{why}");
    assert_eq!(run.failures.len(), 2, "{:?}", run.failures);
    for (_, e) in &run.failures {
        assert!(e.contains("not sent") && e.contains("--deadline"), "{e}");
    }
    assert_eq!(report.exit_code(), 1);
}

/// Runs a chosen `mcp-verdict` binary (e.g. an older build) against the misbehaving server and
/// prints its exit status, duration and output size:
///
/// ```sh
/// MCP_VERDICT_PROBE_BIN=path/to/mcp-verdict MCP_VERDICT_PROBE_ARGS="--deadline 20" \
///     cargo test --test it probe_bounds::cli_against -- --ignored --nocapture
/// ```
#[test]
#[ignore = "measures a chosen binary; run with MCP_VERDICT_PROBE_BIN and --ignored"]
fn cli_against_a_misbehaving_server() {
    let server = serve(answer);
    let url = server.url();
    let bin = std::env::var("MCP_VERDICT_PROBE_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_mcp-verdict").to_string());
    let extra = std::env::var("MCP_VERDICT_PROBE_ARGS").unwrap_or_default();
    let mut args: Vec<String> = [
        "probe",
        &url,
        "--protocol",
        "2026-07-28",
        "--no-auto-calls",
        "--idle-timeout",
        "2",
        "--timeout",
        "10",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for t in ["stall", "cut", "redirect", "flood", "drip", "drip", "ok"] {
        args.push("--tool".into());
        args.push(t.into());
    }
    args.extend(extra.split_whitespace().map(str::to_string));
    let started = Instant::now();
    let out = std::process::Command::new(&bin)
        .args(&args)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    eprintln!(
        "{bin}: exit {:?} after {:.1} s, {} output lines",
        out.status.code(),
        started.elapsed().as_secs_f64(),
        text.lines().count()
    );
    for l in text
        .lines()
        .filter(|l| l.contains("HTTP so far") || l.contains("no complete") || l.contains("exit"))
    {
        eprintln!("  {}", l.chars().take(220).collect::<String>());
    }
}
