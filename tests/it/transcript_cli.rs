//! `mcp-verdict classify --transcript`: a stdio session transcript's calls paired with their
//! answers and judged, as text and JSON, with the exit statuses `--har` has.

use std::process::Output;

use serde_json::{Value, json};

use crate::support::cli::{bin, run};
use crate::support::temp::temp_dir;

const EXAMPLE: &str = "examples/stdio/session.jsonl";

fn mcp_verdict(args: &[&str], stdin: Option<&[u8]>) -> Output {
    run(bin().args(args).env("NO_COLOR", "1"), stdin)
}

/// A transcript of `(dir, line)` entries.
fn transcript(entries: &[(&str, Value)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (dir, line) in entries {
        let line = match line {
            Value::String(s) => s.clone(),
            v => v.to_string(),
        };
        out.extend(serde_json::to_vec(&json!({"dir": dir, "line": line})).unwrap());
        out.push(b'\n');
    }
    out
}

fn call(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {"name": "echo", "arguments": {},
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}})
}

fn answer(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"resultType": "complete",
        "content": [{"type": "text", "text": "ok"}]}})
}

#[test]
fn the_example_pairs_each_call_with_its_answer() {
    let out = mcp_verdict(
        &["classify", "--transcript", EXAMPLE, "--format", "json"],
        None,
    );
    assert_eq!(out.status.code(), Some(1), "the banner is an error finding");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let calls = v["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2);
    let outcome = |c: &Value| c["judgement"]["verdicts"][0]["outcome"].clone();
    assert_eq!(calls[0]["line"], 8);
    assert_eq!(outcome(&calls[0]), "TOOL_SUCCESS");
    let found: Vec<&str> = calls[0]["judgement"]["verdicts"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["rule"].as_str())
        .collect();
    assert_eq!(found, ["transport.stdio.non-mcp-output"]);
    // The second call's server died mid-answer; its tool is read-only (from tools/list).
    assert_eq!(outcome(&calls[1]), "DELIVERY_UNKNOWN");
    assert_eq!(
        calls[1]["judgement"]["verdicts"][0]["retry"]["action"],
        "reissue_with_new_id"
    );
    // The revision came from initialize: the requests name none.
    assert_eq!(
        calls[1]["judgement"]["verdicts"][0]["protocol"],
        "2025-11-25"
    );
    assert_eq!(v["summary"]["judged"], 2);
    assert_eq!(v["summary"]["other"]["tools/list"], 1);
    let text = mcp_verdict(&["classify", "--transcript", EXAMPLE], None);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("line 11: tools/call id 3 (tool get_weather)"),
        "{text}"
    );
    assert!(text.contains("session.jsonl:8::stdout:1"), "{text}");
}

#[test]
fn concurrent_calls_each_get_their_own_answer() {
    let t = transcript(&[
        ("stdin", call(1)),
        ("stdin", call(2)),
        ("stdout", answer(2)),
        ("stdout", json!("log: done")),
        ("stdout", answer(1)),
    ]);
    let out = mcp_verdict(
        &["classify", "--transcript", "-", "--format", "json"],
        Some(&t),
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let calls = v["calls"].as_array().unwrap();
    let outcomes: Vec<&Value> = calls
        .iter()
        .map(|c| &c["judgement"]["verdicts"][0]["outcome"])
        .collect();
    assert_eq!(outcomes, [&json!("TOOL_SUCCESS"), &json!("TOOL_SUCCESS")]);
    // Only the call in flight when the log line came sees it.
    let rules = |c: &Value| -> Vec<String> {
        c["judgement"]["verdicts"][0]["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["rule"].as_str().unwrap().to_string())
            .filter(|r| r.starts_with("transport.stdio."))
            .collect()
    };
    assert_eq!(rules(&calls[0]), ["transport.stdio.non-mcp-output"]);
    assert!(rules(&calls[1]).is_empty(), "{}", calls[1]);
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn exit_statuses_match_har() {
    // Nothing to judge: 4, saying why.
    let t = transcript(&[(
        "stdin",
        json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}),
    )]);
    let out = mcp_verdict(&["classify", "--transcript", "-"], Some(&t));
    assert_eq!(out.status.code(), Some(4));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no tools/call request") && err.contains("tools/list 1"),
        "{err}"
    );
    // A call whose revision cannot be told is not judged: 1 beside a judged one, 4 alone.
    let mut unnamed = call(2);
    unnamed["params"]["_meta"] = json!({});
    let t = transcript(&[
        ("stdin", call(1)),
        ("stdout", answer(1)),
        ("stdin", unnamed.clone()),
        ("stdout", answer(2)),
    ]);
    let out = mcp_verdict(&["classify", "--transcript", "-"], Some(&t));
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("not judged: cannot tell which protocol revision"),
        "{text}"
    );
    let t = transcript(&[("stdin", unnamed), ("stdout", answer(2))]);
    let out = mcp_verdict(&["classify", "--transcript", "-"], Some(&t));
    assert_eq!(out.status.code(), Some(4));
    // ... unless the command line names it: 0.
    let out = mcp_verdict(
        &["classify", "--transcript", "-", "--protocol", "2026-07-28"],
        Some(&transcript(&[("stdin", call(1)), ("stdout", answer(1))])),
    );
    assert_eq!(out.status.code(), Some(0));
    // A bad entry: 3, naming its line and the fix.
    let out = mcp_verdict(
        &["classify", "--transcript", "-"],
        Some(b"{\"dir\":\"stdin\",\"line\":\"{}\"}\n{\"dir\":\"sideways\"}\n"),
    );
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line 2") && err.contains("\"dir\""), "{err}");
}

#[test]
fn a_transcript_given_as_an_exchange_file_is_named() {
    let dir = temp_dir("transcript-as-file");
    let path = dir.join("session.jsonl");
    std::fs::write(&path, transcript(&[("stdin", call(1))])).unwrap();
    let out = mcp_verdict(&["classify", path.to_str().unwrap()], None);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--transcript"), "{err}");
}
