//! What the probe puts on the wire, seen by a hand-written server: 2026-07-28 headers and
//! `_meta`, the Base64 sentinel for a tool name that is not header-safe, `x-mcp-header`
//! parameters, `tools/list` paging, and a server that never answers (idle timeout before the
//! response head).

use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use crate::support::http::write_json_response;
use mcp_verdict::Protocol;
use mcp_verdict::probe::{self, CallSpec, ProbeConfig, RunStatus, Timeouts};
use serde_json::{Value, json};

/// One request as the fake server received it.
#[derive(Debug, Clone)]
struct Seen {
    headers: Vec<(String, String)>,
    body: Value,
}

impl Seen {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

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

fn serve_connection(mut stream: TcpStream, seen: Arc<Mutex<Vec<Seen>>>) {
    let mut buf = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        // Read one request: head, then Content-Length bytes.
        let head_end = loop {
            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
        let headers: Vec<(String, String)> = head
            .lines()
            .skip(1)
            .filter_map(|l| l.split_once(':'))
            .map(|(n, v)| (n.trim().to_string(), v.trim().to_string()))
            .collect();
        let len: usize = headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case("content-length"))
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0);
        while buf.len() < head_end + len {
            match stream.read(&mut chunk) {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
        let body: Value =
            serde_json::from_slice(&buf[head_end..head_end + len]).unwrap_or(Value::Null);
        buf.drain(..head_end + len);
        seen.lock().unwrap().push(Seen {
            headers,
            body: body.clone(),
        });
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
                let _ = stream.read(&mut chunk);
                return;
            }
            "tools/call" => json!({
                "content": [{"type": "text", "text": "ok"}], "isError": false,
                "resultType": "complete", "_meta": meta
            }),
            _ => json!({}),
        };
        write_json_response(
            &mut stream,
            &json!({"jsonrpc": "2.0", "id": id, "result": result}),
        );
    }
}

fn start() -> (String, Arc<Mutex<Vec<Seen>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let s = Arc::clone(&seen);
    thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            let s = Arc::clone(&s);
            thread::spawn(move || serve_connection(conn, s));
        }
    });
    (url, seen)
}

#[test]
fn modern_requests_paging_sentinel_and_a_silent_server() {
    let (url, seen) = start();
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

    let seen = seen.lock().unwrap().clone();
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
