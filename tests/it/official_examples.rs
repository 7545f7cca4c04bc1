//! The official 2026-07-28 examples that are tools/call results, JSON-RPC errors or
//! `InputRequiredResult`s, wrapped into exchanges under `tests/fixtures/official/`.
//!
//! The conversion is this file (re-run it with `MCP_VERDICT_BLESS=1 cargo test --test it
//! official_examples::` after the examples change, with `MCP_SPEC_DIR` naming the official
//! specification; without it these tests are skipped):
//!
//! - request: a complete 2026-07-28 `tools/call` (`_meta` with protocol version, client info and
//!   capabilities; `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name` headers). Its id is the
//!   example's own id for full envelopes, else 1. For `InputRequiredResult` examples the request
//!   declares elicitation, sampling and roots, so the examples' input requests are allowed.
//! - response: bare results become `{"jsonrpc": "2.0", "id": 1, "result": EXAMPLE}`, bare error
//!   objects `{"jsonrpc": "2.0", "id": 1, "error": EXAMPLE}`, full envelopes are kept as they are;
//!   `Content-Type: application/json`; the HTTP status the spec pairs with the error code
//!   (-32020, -32021, -32022: 400; -32601: 404), else 200.
//! - expectation, from the example's kind alone: a `CallToolResult` is TOOL_SUCCESS (TOOL_ERROR
//!   when `isError` is true), an `InputRequiredResult` is INPUT_REQUIRED, an error is
//!   JSONRPC_ERROR on 200 and HTTP_ERROR on 400/404.
//!
//! The committed files must equal the conversion, and (as every fixture) be judged as expected;
//! an official example must draw no error-severity finding.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mcp_verdict::{ExchangeFile, Protocol, Severity};
use serde_json::{Value, json};

use crate::support::judge::judge_under;
use crate::support::reference::{self, Reference};

const REV: &str = "2026-07-28";
const RESULTS: &[&str] = &["CallToolResult", "InputRequiredResult"];
const ENVELOPES: &[&str] = &[
    "CallToolResultResponse",
    "HeaderMismatchError",
    "MissingRequiredClientCapabilityError",
    "UnsupportedProtocolVersionError",
];
const ERRORS: &[&str] = &[
    "InvalidParamsError",
    "InternalError",
    "MethodNotFoundError",
    "ParseError",
    "InvalidRequestError",
];

fn examples_dir(spec: &Path) -> PathBuf {
    spec.join("2026-07-28/schema/examples")
}

fn out_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/official/2026-07-28")
}

fn request(id: &Value, caps: Value) -> Value {
    json!({
        "method": "POST",
        "url": "http://127.0.0.1:8931/mcp",
        "headers": {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": REV,
            "Mcp-Method": "tools/call",
            "Mcp-Name": "get_weather"
        },
        "body": {
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {
                "name": "get_weather",
                "arguments": {"location": "New York"},
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": REV,
                    "io.modelcontextprotocol/clientInfo": {"name": "example-client", "version": "1.0.0"},
                    "io.modelcontextprotocol/clientCapabilities": caps
                }
            }
        }
    })
}

fn status_for(code: Option<i64>) -> u16 {
    match code {
        Some(-32022..=-32020) => 400,
        Some(-32601) => 404,
        _ => 200,
    }
}

/// Converts one example into an exchange file.
fn convert(def: &str, file: &str, example: &Value) -> Value {
    let (message, caps) = if RESULTS.contains(&def) {
        let caps = if def == "InputRequiredResult" {
            json!({"elicitation": {}, "sampling": {}, "roots": {}})
        } else {
            json!({})
        };
        (json!({"jsonrpc": "2.0", "id": 1, "result": example}), caps)
    } else if ERRORS.contains(&def) {
        (
            json!({"jsonrpc": "2.0", "id": 1, "error": example}),
            json!({}),
        )
    } else {
        (example.clone(), json!({}))
    };
    let id = message.get("id").cloned().unwrap_or(json!(1));
    let code = message.pointer("/error/code").and_then(Value::as_i64);
    let status = status_for(code);
    let result = message.get("result");
    let outcome = match (result, code) {
        (Some(r), _) if r.get("resultType") == Some(&json!("input_required")) => "INPUT_REQUIRED",
        (Some(r), _) if r.get("isError") == Some(&json!(true)) => "TOOL_ERROR",
        (Some(_), _) => "TOOL_SUCCESS",
        (None, _) if status == 200 => "JSONRPC_ERROR",
        (None, _) => "HTTP_ERROR",
    };
    let stem = file.trim_end_matches(".json");
    json!({
        "$schema": "../../../../../schemas/exchange.schema.json",
        "name": format!("official example {def}/{stem}"),
        "description": format!(
            "Converted from the official 2026-07-28 example schema/examples/{def}/{file} by tests/it/official_examples.rs (see its header for the conversion)."
        ),
        "protocol": REV,
        "request": request(&id, caps),
        "response": {"status": status, "headers": {"Content-Type": "application/json"}, "body_json": message},
        "expect": {REV: {"outcome": outcome}}
    })
}

fn converted(spec: &Path) -> BTreeMap<PathBuf, String> {
    let mut out = BTreeMap::new();
    for def in RESULTS.iter().chain(ENVELOPES).chain(ERRORS) {
        let dir = examples_dir(spec).join(def);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut files: Vec<PathBuf> = entries.map(|e| e.unwrap().path()).collect();
        files.sort();
        for path in files {
            let file = path.file_name().unwrap().to_string_lossy().to_string();
            let example: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            let ex = convert(def, &file, &example);
            let target = out_dir().join(def).join(&file);
            out.insert(target, serde_json::to_string_pretty(&ex).unwrap() + "\n");
        }
    }
    out
}

#[test]
fn the_official_examples_are_converted_and_current() {
    let Some(spec) = reference::dir(Reference::Spec) else {
        return;
    };
    assert!(
        examples_dir(&spec).is_dir(),
        "the official examples are expected at {}",
        examples_dir(&spec).display()
    );
    let want = converted(&spec);
    assert!(want.len() >= 15, "only {} examples converted", want.len());
    if std::env::var_os("MCP_VERDICT_BLESS").is_some() {
        let _ = std::fs::remove_dir_all(out_dir());
        for (path, text) in &want {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        return;
    }
    for (path, text) in &want {
        let have = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            &have == text,
            "{} is missing or differs from the conversion; run MCP_VERDICT_BLESS=1 cargo test --test it official_examples::",
            path.display()
        );
    }
    let mut committed = 0;
    for def in std::fs::read_dir(out_dir()).unwrap() {
        committed += std::fs::read_dir(def.unwrap().path()).unwrap().count();
    }
    assert_eq!(
        committed,
        want.len(),
        "stale converted files under {}",
        out_dir().display()
    );
}

#[test]
fn official_examples_draw_no_error_findings() {
    let Some(spec) = reference::dir(Reference::Spec) else {
        return;
    };
    for (path, text) in converted(&spec) {
        let file = ExchangeFile::from_slice(text.as_bytes()).unwrap();
        let ex = file.to_exchange().unwrap();
        let j = judge_under(&ex, &[Protocol::V2026_07_28]);
        let v = &j.verdicts[0];
        let errors: Vec<String> = v
            .findings
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| format!("{}: {}", f.rule.id, f.message))
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", path.display());
        assert_eq!(
            v.outcome,
            file.expectation(Protocol::V2026_07_28).unwrap().outcome,
            "{}",
            path.display()
        );
    }
}
