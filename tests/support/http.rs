//! Answers written by the small loopback servers some tests start in place of an MCP server.

use std::io::Write;

use serde_json::Value;

/// Writes `body` as a complete `200 application/json` response with its Content-Length.
pub fn write_json_response(stream: &mut impl Write, body: &Value) {
    let text = body.to_string();
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        text.len()
    );
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(text.as_bytes());
    let _ = stream.flush();
}
