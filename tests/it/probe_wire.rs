//! What the probe puts on the wire, seen by a hand-written server: 2026-07-28 headers and
//! `_meta`, the Base64 sentinel for a tool name that is not header-safe, `x-mcp-header`
//! parameters, `tools/list` paging, and a server that never answers (idle timeout before the
//! response head).

use std::io::Read;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use crate::support::http::{Log, Request, serve, write_json_result};
use mcp_verdict::Protocol;
use mcp_verdict::probe::{self, CallSpec, ProbeConfig, RunStatus, Timeouts};
use serde_json::{Value, json};

const ODD_NAME: &str = "héllo wörld";

fn tools_page(cursor: Option<&str>) -> Value {
    match cursor {
        None => json!({
            "tools": [{
                "name": ODD_NAME,
                "inputSchema": {"type": "object", "properties": {
                    "region": {"type": "string", "x-mcp-header": "Region"}
                }},
                "annotations": {"readOnlyHint": true}
            }],
            "nextCursor": "p2"
        }),
        Some("p2") => {
            json!({"tools": [{"name": "silent", "inputSchema": {"type": "object"}}], "nextCursor": "p3"})
        }
        _ => json!({"tools": []}),
    }
}

/// Answers one request (already logged). False to close the connection.
fn answer(request: &Request, stream: &mut TcpStream, _: &Log) -> bool {
    let body = &request.body;
    let id = body["id"].clone();
    let meta = json!({"io.modelcontextprotocol/serverInfo": {"name": "fake", "version": "1"}});
    let result = match body["method"].as_str().unwrap_or("") {
        "server/discover" => json!({
            "supportedVersions": ["2026-07-28"], "capabilities": {"tools": {}},
            "resultType": "complete", "_meta": meta
        }),
        "tools/list" => {
            let mut r = tools_page(body["params"]["cursor"].as_str());
            r["resultType"] = json!("complete");
            r["_meta"] = meta;
            r
        }
        "tools/call" if body["params"]["name"] == "silent" => {
            // Never answer: wait until the client gives up and closes.
            let _ = stream.set_read_timeout(Some(Duration::from_secs(5)));
            let _ = stream.read(&mut [0u8; 8192]);
            return false;
        }
        "tools/call" => json!({
            "content": [{"type": "text", "text": "ok"}], "isError": false,
            "resultType": "complete", "_meta": meta
        }),
        _ => json!({}),
    };
    write_json_result(stream, &id, result);
    true
}

#[test]
fn modern_requests_paging_sentinel_and_a_silent_server() {
    let server = serve(answer);
    let url = server.url();
    let mut c = ProbeConfig::new(&url);
    c.protocols = vec![Protocol::V2026_07_28];
    c.calls = vec![
        CallSpec {
            name: ODD_NAME.into(),
            arguments: Some(json!({"region": "eu-west", "n": 1})),
        },
        CallSpec {
            name: "silent".into(),
            arguments: None,
        },
    ];
    c.auto_calls = false;
    c.headers = vec![("X-Trace".into(), "t-1".into())];
    c.timeouts = Timeouts {
        connect: Duration::from_secs(2),
        idle: Duration::from_millis(400),
        total: Duration::from_secs(5),
    };
    let started = Instant::now();
    let report = probe::run(&c).unwrap();
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "a silent server must not hang the probe"
    );
    let run = &report.runs[0];
    assert_eq!(run.status, RunStatus::Probed);
    let names: Vec<&str> = run
        .tools
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(
        names,
        [ODD_NAME, "silent"],
        "all pages of tools/list followed"
    );

    let seen = server.seen();
    let methods: Vec<&str> = seen
        .iter()
        .filter_map(|s| s.body["method"].as_str())
        .collect();
    assert_eq!(
        methods,
        [
            "server/discover",
            "tools/list",
            "tools/list",
            "tools/list",
            "tools/call",
            "tools/call"
        ]
    );
    assert_eq!(seen[2].body["params"]["cursor"], "p2");
    assert_eq!(seen[3].body["params"]["cursor"], "p3");
    for s in &seen {
        let method = s.body["method"].as_str().unwrap();
        assert_eq!(s.header("MCP-Protocol-Version"), Some("2026-07-28"));
        assert_eq!(s.header("Mcp-Method"), Some(method));
        assert_eq!(
            s.header("Accept"),
            Some("application/json, text/event-stream")
        );
        assert_eq!(s.header("Content-Type"), Some("application/json"));
        assert_eq!(s.header("X-Trace"), Some("t-1"));
        let meta = &s.body["params"]["_meta"];
        assert_eq!(
            meta["io.modelcontextprotocol/protocolVersion"],
            "2026-07-28"
        );
        assert_eq!(
            meta["io.modelcontextprotocol/clientCapabilities"],
            json!({})
        );
        assert_eq!(
            meta["io.modelcontextprotocol/clientInfo"]["name"],
            "mcp-verdict-probe"
        );
    }
    // The tool name is not header-safe: Base64 sentinel; x-mcp-header mirrored.
    let call = &seen[4];
    assert_eq!(
        call.header("Mcp-Name"),
        Some("=?base64?aMOpbGxvIHfDtnJsZA==?=")
    );
    assert_eq!(call.header("Mcp-Param-Region"), Some("eu-west"));
    assert!(call.body["params"]["_meta"]["progressToken"].is_string());
    assert_eq!(seen[5].header("Mcp-Name"), Some("silent"));

    assert_eq!(run.exchanges.len(), 1);
    assert_eq!(run.exchanges[0].verdict().outcome.as_str(), "TOOL_SUCCESS");
    assert_eq!(run.failures.len(), 1);
    let (label, why) = &run.failures[0];
    assert_eq!(label, "silent");
    assert!(why.contains("no response head"), "{why}");
    assert_eq!(
        report.exit_code(),
        1,
        "a call without a response is not a pass"
    );
}
