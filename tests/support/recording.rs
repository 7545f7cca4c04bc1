//! Large hostile recordings (the shapes `benches/big_recording.py` writes, built in memory).

use serde_json::json;

fn event(msg: &serde_json::Value) -> String {
    format!("event: message\ndata: {msg}\n\n")
}

/// An exchange file holding `request` and an SSE response whose body is `body`.
fn sse_exchange(request: serde_json::Value, body: String) -> String {
    json!({
        "name": "long stream",
        "protocol": "2025-11-25",
        "request": request,
        "response": {
            "status": 200,
            "headers": {"Content-Type": "text/event-stream"},
            "body": body
        }
    })
    .to_string()
}

/// The stream's last event: the result.
fn result_event() -> String {
    event(&json!({"jsonrpc": "2.0", "id": 1,
        "result": {"content": [{"type": "text", "text": "done"}]}}))
}

/// An exchange file whose SSE body holds `n` progress notifications with a token the request
/// never set (one `transport.sse.progress` finding each), then the result.
pub fn progress_without_token(n: usize) -> String {
    let mut body = String::with_capacity(n * 100);
    for i in 0..n {
        body.push_str(&event(
            &json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": "t", "progress": i + 1}}),
        ));
    }
    body.push_str(&result_event());
    let request = json!({
        "method": "POST",
        "url": "http://127.0.0.1:8931/mcp",
        "headers": {"MCP-Protocol-Version": "2025-11-25"},
        "body": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                 "params": {"name": "count", "arguments": {}}}
    });
    sse_exchange(request, body)
}

/// An exchange file of about `mib` MiB: an SSE body of progress notifications with the
/// request's token, each padded with a 900-byte message, then the result (a long, conforming
/// recording; `benches/big_recording.py size`).
pub fn long_conforming(mib: usize) -> String {
    let pad = "x".repeat(900);
    let n = mib * 1024;
    let mut body = String::with_capacity(n * 1000);
    for i in 0..n {
        body.push_str(&event(
            &json!({"jsonrpc": "2.0", "method": "notifications/progress",
            "params": {"progressToken": "t", "progress": i + 1, "message": pad}}),
        ));
    }
    body.push_str(&result_event());
    let request = json!({
        "method": "POST",
        "url": "http://127.0.0.1:8931/mcp",
        "headers": {"MCP-Protocol-Version": "2025-11-25", "Content-Type": "application/json"},
        "body": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                 "params": {"name": "count", "arguments": {}, "_meta": {"progressToken": "t"}}}
    });
    sse_exchange(request, body)
}
