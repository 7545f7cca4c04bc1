//! `diag::record` turns a judged exchange into one diagnostic log line, with secrets redacted.

use mcp_verdict::views::diag::{Side, StreamEnd, record};
use mcp_verdict::{ExchangeFile, Protocol};

use crate::support::judge::judge_under;

#[test]
fn a_lost_stream_becomes_one_sanitised_record() {
    let text = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/both/stream/closed-before-result.json"
    ))
    .unwrap();
    let file = ExchangeFile::from_slice(&text).unwrap();
    let ex = file.to_exchange().unwrap();
    let j = judge_under(&ex, &[Protocol::V2026_07_28]);
    let r = record(&ex, &j.verdicts[0], Side::Probe);
    assert_eq!(r.client.as_deref(), Some("example-client@2.0.0"));
    assert_eq!(r.protocol_version.as_deref(), Some("2026-07-28"));
    assert_eq!(r.method.as_deref(), Some("tools/call"));
    assert_eq!(r.http_statuses, vec![200]);
    assert_eq!(r.sse_event_count, Some(2));
    assert!(!r.final_response);
    assert_eq!(r.stream_end, StreamEnd::Eof);
    assert_eq!(r.outcome.as_deref(), Some("DELIVERY_UNKNOWN"));
    assert_eq!(r.retry_advice.as_ref().unwrap()["action"], "do_not_retry");
    let line = r.to_json_line();
    let back: serde_json::Value = serde_json::from_str(&line).unwrap();
    assert_eq!(back["outcome"], "DELIVERY_UNKNOWN");
    assert_eq!(back["sseEventCount"], 2);
}

#[test]
fn error_messages_in_records_are_redacted() {
    let raw = br#"{"request":{"body":{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"t"}}},
        "response":{"status":200,"headers":{"Content-Type":"application/json"},
        "body_json":{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"upstream said: Authorization: Bearer sk-live-0123456789abcdef0123456789"}}}}"#;
    let ex = ExchangeFile::from_slice(raw)
        .unwrap()
        .to_exchange()
        .unwrap();
    let j = judge_under(&ex, &[Protocol::V2025_11_25]);
    let r = record(&ex, &j.verdicts[0], Side::Probe);
    let msg = r.jsonrpc.error_message.unwrap();
    assert!(!msg.contains("sk-live-0123456789abcdef"), "{msg}");
    assert_eq!(r.jsonrpc.error_code, Some(-32603));
}
