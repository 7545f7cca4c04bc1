//! Retry advice is decided by the failed layer, whether a final result exists, and replay
//! safety (tool annotations or an idempotency key), never by the status alone.

use mcp_verdict::advice::{ReplayBasis, RetryAction, RetryPolicy};
use mcp_verdict::{ExchangeFile, Protocol};
use rstest::rstest;
use serde_json::{Value, json};

use crate::support::judge::judge_under;

const READ_ONLY: &str =
    r#"{"name":"get_weather","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":true}}"#;
const PAYMENT: &str = r#"{"name":"pay_invoice","inputSchema":{"type":"object"},"annotations":{"readOnlyHint":false,"destructiveHint":true,"idempotentHint":false}}"#;

fn exchange(
    protocol: &str,
    response: Value,
    tool: Option<&str>,
    extra_req_headers: Value,
) -> ExchangeFile {
    let mut headers =
        json!({"MCP-Protocol-Version": protocol, "Mcp-Method": "tools/call", "Mcp-Name": "t"});
    for (k, v) in extra_req_headers.as_object().unwrap() {
        headers[k] = v.clone();
    }
    let mut f = json!({
        "request": {"headers": headers, "body": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
            "params": {"name": "t", "arguments": {}, "_meta": {
                "io.modelcontextprotocol/protocolVersion": protocol,
                "io.modelcontextprotocol/clientCapabilities": {}}}}},
        "response": response
    });
    if let Some(t) = tool {
        f["tool"] = serde_json::from_str(t).unwrap();
    }
    serde_json::from_value(f).unwrap()
}

fn advice(f: &ExchangeFile, p: Protocol) -> mcp_verdict::advice::RetryAdvice {
    let ex = f.to_exchange().unwrap();
    let ps = [p];
    let j = judge_under(&ex, &ps);
    mcp_verdict::advice::advise(&j.verdicts[0], &RetryPolicy::default())
}

fn json_body(status: u16, body: Value, headers: Value) -> Value {
    let mut h = json!({"Content-Type": "application/json"});
    for (k, v) in headers.as_object().unwrap() {
        h[k] = v.clone();
    }
    json!({"status": status, "headers": h, "body_json": body})
}

const OK: &str = r#"{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[]}}"#;

#[rstest]
#[case::success_nothing_to_do(json_body(200, serde_json::from_str(OK).unwrap(), json!({})), None, RetryAction::None, false)]
#[case::read_only_503_retries(json_body(503, json!({"note": "busy"}), json!({})), Some(READ_ONLY), RetryAction::Retry, true)]
#[case::payment_503_does_not(json_body(503, json!({"note": "busy"}), json!({})), Some(PAYMENT), RetryAction::DoNotRetry, false)]
#[case::unknown_tool_503_does_not(json_body(503, json!({"note": "busy"}), json!({})), None, RetryAction::DoNotRetry, false)]
#[case::read_only_429_waits(json_body(429, json!({}), json!({"Retry-After": "3"})), Some(READ_ONLY), RetryAction::RetryAfter, true)]
#[case::tool_error_goes_to_model(json_body(200, json!({"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":[{"type":"text","text":"bad date"}],"isError":true}}), json!({})), Some(READ_ONLY), RetryAction::ReportToModel, false)]
#[case::jsonrpc_error_is_final(json_body(200, json!({"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"Unknown tool"}}), json!({})), Some(READ_ONLY), RetryAction::DoNotRetry, false)]
#[case::header_mismatch_refreshes(json_body(400, json!({"jsonrpc":"2.0","id":1,"error":{"code":-32020,"message":"Header mismatch"}}), json!({})), None, RetryAction::RefreshToolsThenRetry, false)]
#[case::unsupported_version_switches(json_body(400, json!({"jsonrpc":"2.0","id":1,"error":{"code":-32022,"message":"no","data":{"supported":["2025-11-25"],"requested":"2026-07-28"}}}), json!({})), None, RetryAction::ChangeVersionThenRetry, false)]
#[case::input_required_follows_up(json_body(200, json!({"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required","requestState":"s"}}), json!({})), None, RetryAction::FollowUp, false)]
#[case::lost_stream_read_only_reissues(json!({"status":200,"headers":{"Content-Type":"text/event-stream"},"body":"data: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n","end":"reset"}), Some(READ_ONLY), RetryAction::ReissueWithNewId, true)]
#[case::lost_stream_payment_does_not(json!({"status":200,"headers":{"Content-Type":"text/event-stream"},"body":"","end":"reset"}), Some(PAYMENT), RetryAction::DoNotRetry, false)]
#[case::invalid_result_is_not_replayed(json_body(200, json!({"jsonrpc":"2.0","id":1,"result":{"resultType":"complete","content":"x"}}), json!({})), Some(READ_ONLY), RetryAction::DoNotRetry, false)]
#[case::unauthorized_authenticates(json_body(401, json!({}), json!({"WWW-Authenticate": "Bearer"})), Some(READ_ONLY), RetryAction::Authenticate, false)]
#[case::insufficient_scope_steps_up(json_body(403, json!({}), json!({"WWW-Authenticate": "Bearer error=\"insufficient_scope\", scope=\"a:write\""})), Some(READ_ONLY), RetryAction::StepUpThenRetry, false)]
#[case::other_403_does_not_retry(json_body(403, json!({}), json!({"WWW-Authenticate": "Bearer error=\"invalid_request\""})), Some(READ_ONLY), RetryAction::DoNotRetry, false)]
fn advice_under_2026(
    #[case] response: Value,
    #[case] tool: Option<&str>,
    #[case] action: RetryAction,
    #[case] replay: bool,
) {
    let f = exchange("2026-07-28", response, tool, json!({}));
    let a = advice(&f, Protocol::V2026_07_28);
    assert_eq!(a.action, action, "{a:?}");
    assert_eq!(a.replay, replay, "{a:?}");
    assert!(!a.cites.is_empty(), "advice without a citation: {a:?}");
    if replay {
        assert!(
            a.cites.iter().any(|c| c.id == "policy.replay-safety"),
            "{a:?}"
        );
    }
}

#[test]
fn retry_after_and_backoff_are_concrete() {
    let f = exchange(
        "2026-07-28",
        json_body(429, json!({}), json!({"Retry-After": "3"})),
        Some(READ_ONLY),
        json!({}),
    );
    assert_eq!(advice(&f, Protocol::V2026_07_28).wait_ms, Some(3000));
    let f = exchange(
        "2026-07-28",
        json_body(503, json!({}), json!({})),
        Some(READ_ONLY),
        json!({}),
    );
    let a = advice(&f, Protocol::V2026_07_28);
    assert_eq!(a.backoff_ms, vec![200, 400]);
    assert!(a.jitter);
    assert_eq!(a.replay_safety.basis, ReplayBasis::ReadOnlyHint);
}

#[test]
fn an_idempotency_key_makes_a_side_effecting_call_replayable() {
    let f = exchange(
        "2026-07-28",
        json_body(502, json!({}), json!({})),
        Some(PAYMENT),
        json!({"Idempotency-Key": "8e03978e-40d5"}),
    );
    let a = advice(&f, Protocol::V2026_07_28);
    assert_eq!(a.action, RetryAction::Retry);
    assert_eq!(a.replay_safety.basis, ReplayBasis::IdempotencyKey);
}

#[test]
fn a_2025_stream_with_event_ids_is_resumed_not_replayed() {
    let body = "id: e-1\ndata:\n\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{\"progressToken\":1,\"progress\":1}}\n\n";
    let f = exchange(
        "2025-11-25",
        json!({"status":200,"headers":{"Content-Type":"text/event-stream"},"body": body}),
        Some(PAYMENT),
        json!({}),
    );
    let a = advice(&f, Protocol::V2025_11_25);
    assert_eq!(a.action, RetryAction::ResumeStream);
    assert!(a.detail.contains("Last-Event-ID: e-1"), "{}", a.detail);
}

#[test]
fn every_verdict_carries_advice_in_json() {
    let f = exchange(
        "2026-07-28",
        json_body(503, json!({}), json!({})),
        Some(READ_ONLY),
        json!({}),
    );
    let ex = f.to_exchange().unwrap();
    let j = judge_under(&ex, &[Protocol::V2026_07_28]);
    let out = serde_json::to_value(mcp_verdict::views::JudgementOut::of(&j, None)).unwrap();
    assert_eq!(out["verdicts"][0]["retry"]["action"], "retry");
    assert_eq!(out["verdicts"][0]["retry"]["backoff_ms"], json!([200, 400]));
}

#[test]
fn a_2025_404_in_a_session_starts_a_new_session() {
    let not_found = || {
        json_body(
            404,
            json!({"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"Session not found"}}),
            json!({}),
        )
    };
    let f = exchange(
        "2025-11-25",
        not_found(),
        Some(READ_ONLY),
        json!({"MCP-Session-Id": "1868a90c"}),
    );
    let a = advice(&f, Protocol::V2025_11_25);
    assert_eq!(a.action, RetryAction::StartNewSession, "{a:?}");
    assert!(!a.replay, "{a:?}");
    assert!(
        a.cites.iter().any(|c| c.id == "transport.http.404-session"
            && c.url.ends_with("basic/transports#session-management")),
        "{a:?}"
    );
    // Without a session id the 404 is no ended session; under 2026-07-28 there are none.
    let f = exchange("2025-11-25", not_found(), Some(READ_ONLY), json!({}));
    assert_eq!(
        advice(&f, Protocol::V2025_11_25).action,
        RetryAction::DoNotRetry
    );
    let f = exchange(
        "2026-07-28",
        not_found(),
        Some(READ_ONLY),
        json!({"MCP-Session-Id": "1868a90c"}),
    );
    assert_ne!(
        advice(&f, Protocol::V2026_07_28).action,
        RetryAction::StartNewSession
    );
}

#[rstest]
#[case::challenged_scope(
    401,
    "Bearer resource_metadata=\"https://h.example/.well-known/oauth-protected-resource\", scope=\"files:read\"",
    "transport.auth.401-unauthorized",
    "(\"files:read\""
)]
#[case::no_scope(
    401,
    "Bearer resource_metadata=\"https://h.example/.well-known/oauth-protected-resource\"",
    "transport.auth.401-unauthorized",
    "(none named"
)]
#[case::step_up(
    403,
    "Bearer error=\"insufficient_scope\", scope=\"files:write\"",
    "transport.auth.403-insufficient-scope",
    "(\"files:write\")"
)]
fn auth_refusals_say_the_tool_did_not_run_and_cite_the_rule(
    #[case] status: u16,
    #[case] challenge: &str,
    #[case] rule: &str,
    #[case] scope: &str,
) {
    let f = exchange(
        "2026-07-28",
        json_body(
            status,
            json!({"error": "x"}),
            json!({"WWW-Authenticate": challenge}),
        ),
        Some(READ_ONLY),
        json!({}),
    );
    let a = advice(&f, Protocol::V2026_07_28);
    assert!(a.detail.starts_with("the tool did not run"), "{a:?}");
    assert!(a.detail.contains(scope), "{a:?}");
    assert!(a.cites.iter().any(|c| c.id == rule), "{a:?}");
    assert!(!a.replay, "{a:?}");
}
