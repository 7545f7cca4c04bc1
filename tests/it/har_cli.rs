//! `mcp-verdict classify --har`: text and JSON output on the bundled example, exit codes.

use std::process::Output;

use serde_json::Value;

use crate::support::cli::{bin, run};
use crate::support::temp::temp_dir;

const EXAMPLE: &str = "examples/har/inspector-session.har";

fn mcp_verdict(args: &[&str], stdin: Option<&[u8]>) -> Output {
    run(bin().args(args).env("NO_COLOR", "1"), stdin)
}

fn json_report(args: &[&str]) -> (Value, i32) {
    let out = mcp_verdict(args, None);
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (v, out.status.code().unwrap())
}

#[test]
fn example_json_output() {
    let (v, code) = json_report(&["classify", "--har", EXAMPLE, "--format", "json"]);
    assert_eq!(code, 0);
    assert_eq!(v["file"], EXAMPLE);
    let entries = v["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 9);
    for (i, e) in entries.iter().enumerate() {
        assert_eq!(e["index"], i);
        assert!(e["url"].is_string() && e["started"].is_string() && e["method"].is_string());
        let shapes = ["judgement", "skipped", "not_recorded", "error"]
            .iter()
            .filter(|k| e.get(**k).is_some())
            .count();
        assert_eq!(
            shapes, 1,
            "entry {i} has exactly one of judgement/skipped/not_recorded/error: {e}"
        );
    }
    let skipped: Vec<&str> = entries
        .iter()
        .filter_map(|e| e["skipped"].as_str())
        .collect();
    assert_eq!(
        skipped,
        [
            "HTTP GET",
            "HTTP OPTIONS",
            "initialize",
            "notifications/initialized",
            "tools/list"
        ]
    );
    // The three tools/call entries with recorded bodies: SSE success, JSON-RPC error, isError.
    let judged: Vec<&Value> = entries
        .iter()
        .filter(|e| e.get("judgement").is_some())
        .collect();
    let tools: Vec<&str> = judged.iter().map(|e| e["tool"].as_str().unwrap()).collect();
    assert_eq!(tools, ["get_forecast", "get_forcast", "delete_file"]);
    let sse = &judged[0]["judgement"];
    assert_eq!(sse["exchange"], format!("{EXAMPLE}#5"));
    assert_eq!(sse["verdicts"][0]["protocol"], "2025-11-25");
    assert_eq!(
        sse["verdicts"][0]["facts"]["media_type"],
        "text/event-stream"
    );
    // The SSE body reaches the engine byte for byte.
    let har: Value = serde_json::from_slice(&std::fs::read(EXAMPLE).unwrap()).unwrap();
    let recorded = har["log"]["entries"][5]["response"]["content"]["text"]
        .as_str()
        .unwrap();
    assert_eq!(sse["verdicts"][0]["facts"]["body_bytes"], recorded.len());
    assert_eq!(
        judged[1]["judgement"]["verdicts"][0]["outcome"],
        "JSONRPC_ERROR"
    );
    assert_eq!(
        judged[2]["judgement"]["verdicts"][0]["outcome"],
        "TOOL_ERROR"
    );
    // The Inspector's page (localhost:6274) calls the server on another port of the same host:
    // the ordinary local set-up, which draws no finding at all.
    for j in &judged {
        assert_eq!(
            j["judgement"]["verdicts"][0]["findings"],
            serde_json::json!([]),
            "{j}"
        );
    }
    let not_recorded = &entries[8];
    assert_eq!(not_recorded["not_recorded"], true);
    assert_eq!(not_recorded["tool"], "generate_report");
    assert!(
        not_recorded["reason"]
            .as_str()
            .unwrap()
            .contains("net::ERR_ABORTED")
    );

    let s = &v["summary"];
    assert_eq!(s["entries"], 9);
    assert_eq!(s["judged"], 3);
    assert_eq!(s["not_recorded"], 1);
    assert_eq!(s["not_judged"], 0);
    assert_eq!(s["with_error_findings"], 0);
    assert_eq!(s["skipped"]["tools/list"], 1);
    assert_eq!(
        s["skipped"]
            .as_object()
            .unwrap()
            .values()
            .map(|n| n.as_u64().unwrap())
            .sum::<u64>(),
        5
    );
}

#[test]
fn example_text_output() {
    let out = mcp_verdict(&["classify", "--har", EXAMPLE], None);
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(
        text.starts_with(&format!(
            "{EXAMPLE} (HAR 1.2, WebInspector 537.36): 9 entries\n"
        )),
        "{text}"
    );
    for header in [
        "entry 5: POST http://localhost:3001/mcp (tool get_forecast)\n  2025-11-25  ",
        "entry 6: POST http://localhost:3001/mcp (tool get_forcast)\n  2025-11-25  JSONRPC_ERROR",
        "entry 7: POST http://localhost:3001/mcp (tool delete_file)\n  2025-11-25  TOOL_ERROR",
        "entry 8: POST http://localhost:3001/mcp (tool generate_report)\n  body not recorded: ",
    ] {
        assert!(text.contains(header), "missing {header:?} in\n{text}");
    }
    assert!(
        !text.contains("entry 2:"),
        "skipped entries are only counted"
    );
    assert!(text.contains("\nsummary\n  judged        3 tools/call (0 with error-severity findings)\n  not recorded  1 tools/call\n  not judged    0 tools/call\n  skipped       5: HTTP GET 1, HTTP OPTIONS 1, initialize 1, notifications/initialized 1, tools/list 1\n"), "{text}");
}

#[test]
fn error_findings_fail_the_run() {
    // Judged under 2026-07-28 too, the 2025-11-25 requests lack the per-request _meta.
    let (v, code) = json_report(&[
        "classify",
        "--har",
        EXAMPLE,
        "--protocol",
        "all",
        "--format",
        "json",
    ]);
    assert_eq!(code, 1);
    assert_eq!(v["summary"]["with_error_findings"], 3);
    let verdicts = &v["entries"][6]["judgement"]["verdicts"];
    assert_eq!(verdicts.as_array().unwrap().len(), 2);
}

#[test]
fn har_from_stdin() {
    let bytes =
        std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(EXAMPLE)).unwrap();
    let out = mcp_verdict(
        &["classify", "--har", "-", "--format", "json"],
        Some(&bytes),
    );
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["file"], "-");
    assert_eq!(v["summary"]["judged"], 3);
}

#[test]
fn invalid_har_exits_3_naming_file_line_and_column() {
    let dir = temp_dir("har-cli");
    let path = dir.join("broken.har");
    std::fs::write(
        &path,
        "{\n  \"log\": {\n    \"entries\": [\n      {,}\n    ]\n  }\n}\n",
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let out = mcp_verdict(&["classify", "--har", p], None);
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains(p) && err.contains("line 4, column"), "{err}");
    assert!(out.stdout.is_empty());

    let out = mcp_verdict(
        &[
            "classify",
            "--har",
            dir.join("missing.har").to_str().unwrap(),
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(3));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn inputs_are_exclusive() {
    let out = mcp_verdict(&["classify", "x.json", "--har", EXAMPLE], None);
    assert_eq!(out.status.code(), Some(2));
    let out = mcp_verdict(&["classify"], None);
    assert_eq!(out.status.code(), Some(2));
}
