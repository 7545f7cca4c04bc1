//! JSON nested past `serde_json`'s recursion limit: read and judged up to the documented
//! depth, on any caller's stack; past it, said to be too deep rather than malformed; and the
//! exchange file's `body_json` likewise.

use mcp_verdict::wire::deep::MAX_DEPTH;
use mcp_verdict::{ExchangeFile, JudgementOut, Outcome, Protocol};
use serde_json::json;

use crate::support::cli::{bin, run};
use crate::support::judge::judge_under;

/// A tools/call response whose body nests `depth` levels (the message, `result`,
/// `structuredContent`, then arrays).
fn body(depth: usize) -> String {
    let inner = depth - 3;
    format!(
        r#"{{"jsonrpc":"2.0","id":1,"result":{{"content":[],"structuredContent":{{"tree":{}0{}}}}}}}"#,
        "[".repeat(inner),
        "]".repeat(inner)
    )
}

fn exchange_file(response: serde_json::Value) -> serde_json::Value {
    json!({
        "protocol": "2025-11-25",
        "request": {"body": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                             "params": {"name": "walk", "arguments": {}}}},
        "response": response,
    })
}

/// The judgement, its serialised output and every value dropped, on a thread with a small
/// stack: nothing relies on the caller's stack being deep.
fn judged_on_a_small_stack(file: Vec<u8>) -> (Vec<Outcome>, String) {
    std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            let ex = ExchangeFile::from_slice(&file)
                .unwrap()
                .into_exchange()
                .unwrap();
            let j = judge_under(&ex, &[Protocol::V2025_11_25, Protocol::V2026_07_28]);
            let outcomes = j.verdicts.iter().map(|v| v.outcome).collect();
            let out = serde_json::to_string(&JudgementOut::of(&j, None)).unwrap();
            (outcomes, out)
        })
        .unwrap()
        .join()
        .unwrap()
}

#[test]
fn bodies_up_to_the_limit_are_judged() {
    for depth in [129, 200, MAX_DEPTH] {
        let file = exchange_file(json!({"status": 200,
            "headers": {"Content-Type": "application/json"}, "body": body(depth)}));
        let (outcomes, out) = judged_on_a_small_stack(serde_json::to_vec(&file).unwrap());
        assert_eq!(
            outcomes,
            [Outcome::ToolSuccess, Outcome::ToolSuccess],
            "{depth}: {out}"
        );
    }
}

#[test]
fn past_the_limit_the_verdict_says_too_deep() {
    let file = exchange_file(json!({"status": 200,
        "headers": {"Content-Type": "application/json"}, "body": body(MAX_DEPTH + 1)}));
    let (outcomes, out) = judged_on_a_small_stack(serde_json::to_vec(&file).unwrap());
    assert_eq!(outcomes, [Outcome::NestingTooDeep, Outcome::NestingTooDeep]);
    assert!(
        out.contains(&format!("more than {MAX_DEPTH} levels")),
        "{out}"
    );
    assert!(!out.contains("MALFORMED_JSON"), "{out}");
}

#[test]
fn a_deep_error_data_leaves_the_judgement_shallow() {
    let data = format!("{}1{}", "[".repeat(5000), "]".repeat(5000));
    let body = format!(
        r#"{{"jsonrpc":"2.0","id":1,"error":{{"code":-32603,"message":"boom","data":{data}}}}}"#
    );
    let file = exchange_file(json!({"status": 200,
        "headers": {"Content-Type": "application/json"}, "body": body}));
    let (outcomes, out) = judged_on_a_small_stack(serde_json::to_vec(&file).unwrap());
    assert_eq!(outcomes, [Outcome::JsonrpcError, Outcome::JsonrpcError]);
    assert!(out.contains("nested deeper than 128 levels"), "{out}");
}

/// `body_json` nested to the limit is read (the file is deeper than serde_json's limit).
#[test]
fn a_deep_body_json_is_read() {
    let text = serde_json::to_string(&exchange_file(json!({"status": 200,
        "headers": {"Content-Type": "application/json"}, "body_json": "PLACEHOLDER"})))
    .unwrap()
    .replace("\"PLACEHOLDER\"", &body(MAX_DEPTH));
    let (outcomes, _) = judged_on_a_small_stack(text.into_bytes());
    assert_eq!(outcomes, [Outcome::ToolSuccess, Outcome::ToolSuccess]);
}

#[test]
fn a_too_deep_exchange_file_is_refused_by_its_depth() {
    let text = serde_json::to_string(&exchange_file(
        json!({"status": 200, "body_json": "PLACEHOLDER"}),
    ))
    .unwrap()
    .replace("\"PLACEHOLDER\"", &body(MAX_DEPTH + 1));
    let e = ExchangeFile::from_slice(text.as_bytes()).unwrap_err();
    assert!(
        e.message
            .contains(&format!("more than {} levels", MAX_DEPTH + 2)),
        "{e}"
    );
    // Only body_json may be deep: a deep request is refused, naming the limit.
    let deep_args = format!("{}{}", "[".repeat(300), "]".repeat(300));
    let text = serde_json::to_string(&exchange_file(json!({"status": 200, "body": "{}"})))
        .unwrap()
        .replace("\"arguments\":{}", &format!("\"arguments\":{deep_args}"));
    let e = ExchangeFile::from_slice(text.as_bytes()).unwrap_err();
    assert!(e.message.contains("only `response.body_json`"), "{e}");
    assert!(e.message.contains("128"), "{e}");
}

#[test]
fn classify_reads_a_deep_file_and_says_too_deep_past_the_limit() {
    let ok = serde_json::to_string(&exchange_file(json!({"status": 200,
        "headers": {"Content-Type": "application/json"}, "body_json": "PLACEHOLDER"})))
    .unwrap()
    .replace("\"PLACEHOLDER\"", &body(MAX_DEPTH));
    let out = run(
        bin().args(["classify", "-", "--format", "json"]),
        Some(ok.as_bytes()),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("TOOL_SUCCESS"));
    let deep = serde_json::to_string(&exchange_file(json!({"status": 200,
        "headers": {"Content-Type": "application/json"}, "body": body(MAX_DEPTH + 1)})))
    .unwrap();
    let out = run(
        bin().args(["classify", "-", "--format", "json"]),
        Some(deep.as_bytes()),
    );
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("NESTING_TOO_DEEP"), "{stdout}");
}
