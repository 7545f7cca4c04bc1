//! Classify vs. parse, in one run: every figure is read as a ratio to the time serde_json takes
//! to parse the same bytes into a `Value` (the floor: reading the body once).

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use mcp_verdict::{Exchange, Headers, Options, Protocol, RuleTable, judge};
use serde_json::{Value, json};

/// A ~1 KB TOOL_SUCCESS answer to a 2026-07-28 tools/call, as a conformant server sends it.
fn success_1kb() -> Exchange {
    let request = json!({
        "jsonrpc": "2.0", "id": 42, "method": "tools/call",
        "params": {
            "name": "get_weather", "arguments": {"location": "Lisbon"},
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "bench-client", "version": "1.0.0"},
                "io.modelcontextprotocol/clientCapabilities": {}
            }
        }
    });
    let text = "Current weather in Lisbon: 21°C, clear sky, wind 12 km/h from the north-west, humidity 58%. \
                The forecast for the next hours stays dry with temperatures between 18 and 23°C.";
    let body = json!({
        "jsonrpc": "2.0", "id": 42,
        "result": {
            "resultType": "complete",
            "content": [
                {"type": "text", "text": text},
                {"type": "text", "text": text, "annotations": {"audience": ["user"], "priority": 0.5}},
                {"type": "text", "text": "{\"temperature\":21,\"conditions\":\"clear sky\",\"humidity\":58}"},
                {"type": "resource_link", "uri": "https://weather.example.com/lisbon", "name": "lisbon-forecast",
                 "mimeType": "text/html", "description": "Full forecast page"}
            ],
            "structuredContent": {"temperature": 21, "conditions": "clear sky", "humidity": 58},
            "isError": false,
            "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "weather-server", "version": "3.2.1"}}
        }
    });
    let bytes = serde_json::to_vec(&body).unwrap();
    let mut ex = Exchange::new(
        Some(request),
        200,
        Headers::new([("Content-Type", "application/json")]),
        bytes,
    );
    ex.request.headers = Headers::new([
        ("MCP-Protocol-Version", "2026-07-28"),
        ("Mcp-Method", "tools/call"),
        ("Mcp-Name", "get_weather"),
    ]);
    ex
}

fn bench(c: &mut Criterion) {
    let ex = success_1kb();
    let protocols = [Protocol::V2026_07_28];
    let options = Options {
        protocols: Some(&protocols),
        table: RuleTable::builtin(),
    };
    // Warm the lazily compiled schemas and table, and check the case is what it claims.
    let j = judge(&ex, &options).unwrap();
    assert_eq!(j.verdicts[0].outcome, mcp_verdict::Outcome::ToolSuccess);
    assert!(
        j.verdicts[0].findings.is_empty(),
        "{:?}",
        j.verdicts[0].findings
    );

    let mut g = c.benchmark_group(format!("success_json_{}b", ex.body.len()));
    g.bench_function("parse", |b| {
        b.iter(|| black_box(serde_json::from_slice::<Value>(black_box(&ex.body)).unwrap()))
    });
    g.bench_function("classify", |b| {
        b.iter(|| black_box(judge(black_box(&ex), &options).unwrap()))
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
