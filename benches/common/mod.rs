//! The exchanges the classify and instructions benches judge, and the parse floor they are
//! measured against. Each bench uses some of them.
#![allow(dead_code)]

use mcp_verdict::{Exchange, Headers};
use serde_json::{Value, json};

pub const TEXT: &str = "Current weather in Lisbon: 21°C, clear sky, wind 12 km/h from the north-west, \
    humidity 58%. The forecast for the next hours stays dry with temperatures between 18 and 23°C.";

pub fn request(id: u64) -> Value {
    json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {
            "name": "get_weather", "arguments": {"location": "Lisbon"},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "bench-client", "version": "1.0.0"},
                "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}},
                "progressToken": "p-42"
            }
        }
    })
}

pub fn exchange(media: &str, body: Vec<u8>) -> Exchange {
    let mut ex = Exchange::new(
        Some(request(42)),
        200,
        Headers::new([("Content-Type", media)]),
        body,
    );
    ex.request.headers = Headers::new([
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "get_weather"),
    ]);
    ex.response_headers.push("X-Accel-Buffering", "no");
    ex
}

pub fn server_meta() -> Value {
    json!({"io.modelcontextprotocol/serverInfo": {"name": "weather-server", "version": "3.2.1"}})
}

pub fn result(content: Value, is_error: bool) -> Value {
    json!({"jsonrpc": "2.0", "id": 42, "result": {
        "resultType": "complete", "content": content, "isError": is_error, "_meta": server_meta()}})
}

pub fn json_case(body: &Value) -> Exchange {
    exchange("application/json", serde_json::to_vec(body).unwrap())
}

/// A ~1 KB TOOL_SUCCESS: text blocks (one annotated) and a resource link.
pub fn success_1kb() -> Exchange {
    json_case(&result(
        json!([
            {"type": "text", "text": TEXT},
            {"type": "text", "text": TEXT, "annotations": {"audience": ["user"], "priority": 0.5}},
            {"type": "text", "text": "Source: national weather service, station LPPT, observation at 14:00 local time."},
            {"type": "resource_link", "uri": "https://weather.example.com/lisbon", "name": "lisbon-forecast",
             "mimeType": "text/html", "description": "Full forecast page for Lisbon and the surrounding region"}
        ]),
        false,
    ))
}

/// The same size of success, with structured content mirrored in a text block.
pub fn success_structured_1kb() -> Exchange {
    let sc = json!({"temperature": 21, "conditions": "clear sky", "humidity": 58, "wind_kmh": 12});
    let mut body = result(
        json!([{"type": "text", "text": TEXT}, {"type": "text", "text": TEXT},
               {"type": "text", "text": sc.to_string()}]),
        false,
    );
    body["result"]["structuredContent"] = sc;
    json_case(&body)
}

pub fn tool_error() -> Exchange {
    json_case(&result(
        json!([{"type": "text", "text": "Invalid departure date: must be in the future. Current date is 08/08/2025."}]),
        true,
    ))
}

pub fn jsonrpc_error() -> Exchange {
    json_case(&json!({"jsonrpc": "2.0", "id": 42,
        "error": {"code": -32602, "message": "Unknown tool: get_wether", "data": {"tool": "get_wether"}}}))
}

pub fn input_required() -> Exchange {
    json_case(&json!({"jsonrpc": "2.0", "id": 42, "result": {
        "resultType": "input_required",
        "inputRequests": {"github_login": {"method": "elicitation/create", "params": {
            "mode": "form", "message": "Please provide your GitHub username",
            "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}}}},
        "requestState": "eyJsb2NhdGlvbiI6Ik5ldyBZb3JrIn0", "_meta": server_meta()}}))
}

/// A ~100 KB result: a base64 PNG-sized image and its caption.
pub fn image_100kb() -> Exchange {
    use base64::Engine as _;
    let bytes: Vec<u8> = (0..75_000u32)
        .map(|i| (i * 2_654_435_761 % 251) as u8)
        .collect();
    let data = base64::engine::general_purpose::STANDARD.encode(bytes);
    json_case(&result(
        json!([{"type": "text", "text": "Radar image, last hour"},
               {"type": "image", "data": data, "mimeType": "image/png"}]),
        false,
    ))
}

pub fn event(v: &Value) -> String {
    format!("event: message\ndata: {v}\n\n")
}

pub fn progress(p: u32) -> Value {
    json!({"jsonrpc": "2.0", "method": "notifications/progress",
           "params": {"progressToken": "p-42", "progress": p, "total": 3, "message": format!("step {p} of 3")}})
}

/// Three progress notifications, then the final result, as one SSE stream.
pub fn sse_progress() -> Exchange {
    let mut s = String::new();
    for p in 1..=3 {
        s.push_str(&event(&progress(p)));
    }
    s.push_str(&event(&result(
        json!([{"type": "text", "text": TEXT}]),
        false,
    )));
    exchange("text/event-stream", s.into_bytes())
}

/// A stream that stops in the middle of the final event.
pub fn sse_incomplete() -> Exchange {
    let mut ex = sse_progress();
    let cut = ex.body.len() - 120;
    ex.body.truncate(cut);
    ex.end = mcp_verdict::BodyEnd::Reset;
    ex
}

/// The 1 KB success written by a stdio server as its one stdout line.
pub fn success_stdio_1kb() -> Exchange {
    let json = success_1kb();
    let mut line = json.body.clone();
    line.push(b'\n');
    Exchange::stdio(line)
        .request(json.request.body.clone().expect("a request"))
        .build()
}

/// Three progress notifications, then the final result, as stdout lines.
pub fn stdio_progress() -> Exchange {
    let mut s = String::new();
    for p in 1..=3 {
        s.push_str(&format!("{}\n", progress(p)));
    }
    s.push_str(&format!(
        "{}\n",
        result(json!([{"type": "text", "text": TEXT}]), false)
    ));
    Exchange::stdio(s.into_bytes()).request(request(42)).build()
}

/// The parse floor for a body: JSON parsed once, or an SSE stream split into events (blank
/// lines) with each event's `data:` lines joined and parsed, or a stdio server's stdout split
/// into lines with each line parsed.
pub fn parse_floor(ex: &Exchange) -> usize {
    if let Some(s) = &ex.stdio {
        return s
            .stdout
            .split(|b| *b == b'\n')
            .filter(|l| serde_json::from_slice::<Value>(l).is_ok())
            .count();
    }
    let is_sse = ex
        .response_headers
        .get("Content-Type")
        .is_some_and(|c| c.starts_with("text/event-stream"));
    if !is_sse {
        return serde_json::from_slice::<Value>(&ex.body).map_or(0, |v| usize::from(!v.is_null()));
    }
    let text = std::str::from_utf8(&ex.body).unwrap_or("");
    let mut n = 0;
    for block in text.split("\n\n") {
        let mut data = String::new();
        for line in block.lines() {
            if let Some(d) = line.strip_prefix("data:") {
                if !data.is_empty() {
                    data.push('\n');
                }
                data.push_str(d.strip_prefix(' ').unwrap_or(d));
            }
        }
        if !data.is_empty() && serde_json::from_str::<Value>(&data).is_ok() {
            n += 1;
        }
    }
    n
}
