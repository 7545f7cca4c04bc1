//! Numbers read exactly: ids beyond 64 bits compared by their digits, a number beyond a
//! double read rather than called malformed, long numbers printed with every digit, and an
//! error code that a double would round to an integer not read as that integer.

use mcp_verdict::{ExchangeFile, JudgementOut, Outcome, Protocol};

use crate::support::cli::{bin, run};
use crate::support::judge::judge_under;

const BOTH: [Protocol; 2] = [Protocol::V2025_11_25, Protocol::V2026_07_28];

/// An exchange file (as text, so that numbers stay as written) whose request has id
/// `request_id` and whose response body is `body`.
fn file(request_id: &str, body: &str) -> String {
    format!(
        r#"{{"request": {{"body": {{"jsonrpc": "2.0", "id": {request_id}, "method": "tools/call",
             "params": {{"name": "t", "arguments": {{}}}}}}}},
           "response": {{"status": 200, "headers": {{"Content-Type": "application/json"}},
             "body": {body:?}}}}}"#
    )
}

fn success(id: &str) -> String {
    format!(
        r#"{{"jsonrpc":"2.0","id":{id},"result":{{"content":[{{"type":"text","text":"x"}}]}}}}"#
    )
}

/// Outcomes and the rules of the findings, per revision, and the JSON output.
fn judged(text: &str) -> (Vec<(Outcome, Vec<String>)>, String) {
    let ex = ExchangeFile::from_slice(text.as_bytes())
        .unwrap()
        .into_exchange()
        .unwrap();
    let j = judge_under(&ex, &BOTH);
    let per = j
        .verdicts
        .iter()
        .map(|v| {
            let rules = v.findings.iter().map(|f| f.rule.id.to_string()).collect();
            (v.outcome, rules)
        })
        .collect();
    let out = serde_json::to_string(&JudgementOut::of(&j, None)).unwrap();
    (per, out)
}

#[test]
fn ids_beyond_64_bits_are_compared_exactly() {
    // 2^64 and 2^64 + 1 are one double; they are two ids.
    let (per, out) = judged(&file(
        "18446744073709551616",
        &success("18446744073709551617"),
    ));
    for (outcome, rules) in &per {
        assert_eq!(*outcome, Outcome::InvalidEnvelope, "{out}");
        assert!(
            rules.iter().any(|r| r == "jsonrpc.response.id-match"),
            "{out}"
        );
    }
    assert!(
        out.contains("response id 18446744073709551617 (integer) does not match request id 18446744073709551616 (integer)"),
        "{out}"
    );
    // The same id, written the same way, matches.
    let (per, out) = judged(&file(
        "18446744073709551616",
        &success("18446744073709551616"),
    ));
    for (outcome, _) in &per {
        assert_eq!(*outcome, Outcome::ToolSuccess, "{out}");
    }
    assert!(
        out.contains(r#""request_id":18446744073709551616"#),
        "{out}"
    );
}

#[test]
fn a_number_beyond_a_double_is_read_not_called_malformed() {
    let body = r#"{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"x"}],"_meta":{"big":1e400,"small":-1e-400}}}"#;
    let (per, out) = judged(&file("1", body));
    for (outcome, rules) in &per {
        assert_eq!(*outcome, Outcome::ToolSuccess, "{out}");
        assert!(
            !rules.iter().any(|r| r == "jsonrpc.message.well-formed"),
            "{out}"
        );
    }
}

#[test]
fn long_numbers_are_printed_with_every_digit() {
    let digits = "1".repeat(100);
    let (per, out) = judged(&file("1", &success(&digits)));
    for (outcome, _) in &per {
        assert_eq!(*outcome, Outcome::InvalidEnvelope, "{out}");
    }
    assert!(
        out.contains(&format!("response id {digits} (integer)")),
        "{out}"
    );
    assert!(!out.contains("e+99"), "{out}");
    // And on the command line, in every format that prints it.
    let dir = crate::support::temp::temp_dir("exact-numbers");
    let path = dir.join("long-id.json");
    std::fs::write(&path, file("1", &success(&digits))).unwrap();
    for format in ["text", "json"] {
        let o = run(
            bin()
                .args(["classify", "--protocol", "all", "--format", format])
                .arg(&path),
            None,
        );
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(1), "{format}: {stdout}");
        assert!(stdout.contains(&digits), "{format}: {stdout}");
    }
    // A JSON Lines stream: one exchange per line.
    let line: serde_json::Value = serde_json::from_str(&file("1", &success(&digits))).unwrap();
    let o = run(
        bin().args(["classify", "--protocol", "all", "--jsonl", "-"]),
        Some(format!("{line}\n").as_bytes()),
    );
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "jsonl: {stdout}");
    assert!(stdout.contains(&digits), "jsonl: {stdout}");
}

#[test]
fn error_codes_are_read_by_their_digits() {
    // A double rounds this code to -32602; it is not -32602, so the facts give no code.
    let body =
        r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602.0000000000000001,"message":"bad"}}"#;
    let (per, out) = judged(&file("1", body));
    assert!(!out.contains(r#""code":-32602"#), "{out}");
    // Nor is it an integer to the schema validators (JSON-RPC: "Error codes MUST be integers"):
    // the envelope is invalid, as for -32602.5.
    for (outcome, rules) in &per {
        assert_eq!(*outcome, Outcome::InvalidEnvelope, "{out}");
        assert!(
            rules.iter().any(|r| r == "jsonrpc.error.shape"),
            "{rules:?}"
        );
    }
    // Written with a zero fraction it is the integer -32602 (JSON Schema's `integer`).
    let body = r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32602.0,"message":"bad"}}"#;
    let (per, out) = judged(&file("1", body));
    for (outcome, _) in &per {
        assert_eq!(*outcome, Outcome::JsonrpcError, "{out}");
    }
    assert!(out.contains(r#""code":-32602"#), "{out}");
}
