//! The loop closed: for every scenario in `serve::SCENARIOS`, start `serve` in-process on
//! loopback, run the probe (library API) against it under each revision the scenario
//! applies to, and assert the engine's verdict the scenario is meant to produce, the HTTP
//! statuses, how the body ended, and the POST count (as counted by the probe and by the
//! server).

use std::collections::BTreeSet;
use std::time::Duration;

use mcp_verdict::Protocol;
use mcp_verdict::advice::RetryPolicy;
use mcp_verdict::probe::{self, CallExchange, CallSpec, ProbeConfig, RunStatus, Timeouts};
use mcp_verdict::serve::{self, SCENARIOS, ScenarioInfo, ServeConfig, ServerHandle, Transport};
use mcp_verdict::vocab::Severity;
use mcp_verdict::wire::exchange::BodyEnd;
use rstest::rstest;
use serde_json::json;

const L: Protocol = Protocol::V2025_11_25;
const M: Protocol = Protocol::V2026_07_28;

/// What one judged exchange must look like.
#[derive(Debug, Clone, Copy)]
struct X {
    outcome: &'static str,
    /// HTTP statuses of the call's POSTs so far (the call itself, answers, rounds).
    statuses: &'static [u16],
    end: BodyEnd,
    /// Rules the verdict must cite or find.
    rules: &'static [&'static str],
    /// The exact set of rules with error-severity findings.
    errors: &'static [&'static str],
    /// The retry advice's action; empty: the usual one for the outcome (see `usual_retry`).
    retry: &'static str,
}

/// One probe run against one scenario under one revision.
#[derive(Debug, Clone, Copy)]
struct Case {
    /// `--scenario` value.
    scenario: &'static str,
    rev: Protocol,
    /// Answer elicitation requests (declares the elicitation capability).
    answers: bool,
    /// POSTs sent by the probe (and received by the server).
    posts: u64,
    /// `None`: probed; `Some(text)`: setup failed with a reason containing `text`.
    setup_failure: Option<&'static str>,
    exchanges: &'static [X],
}

const fn x(outcome: &'static str, statuses: &'static [u16]) -> X {
    X {
        outcome,
        statuses,
        end: BodyEnd::Complete,
        rules: &[],
        errors: &[],
        retry: "",
    }
}

/// The retry advice expected for an outcome of a call to `echo` (read-only, so replay is
/// safe).
fn usual_retry(outcome: &str) -> &'static str {
    match outcome {
        "TOOL_SUCCESS" => "none",
        "TOOL_ERROR" => "report_to_model",
        "INPUT_REQUIRED" => "follow_up",
        "JSONRPC_ERROR" | "INVALID_TOOL_RESULT" => "do_not_retry",
        "DELIVERY_UNKNOWN" => "reissue_with_new_id",
        "HTTP_ERROR"
        | "MALFORMED_JSON"
        | "INVALID_ENVELOPE"
        | "UNEXPECTED_CONTENT_TYPE"
        | "NO_RESPONSE" => "retry",
        other => panic!("no usual retry advice for {other}"),
    }
}

const fn case(scenario: &'static str, rev: Protocol, posts: u64, exchanges: &'static [X]) -> Case {
    Case {
        scenario,
        rev,
        answers: false,
        posts,
        setup_failure: None,
        exchanges,
    }
}

// Legacy runs: initialize, notifications/initialized, tools/list, tools/call = 4 POSTs.
// Modern runs: server/discover, tools/list, tools/call = 3 POSTs.
#[rustfmt::skip]
const CASES: &[Case] = &[
    // A lenient server gets an error path wrong that only `probe --active` provokes; the
    // calls a probe makes get baseline's verdicts.
    case("lenient:ended_session", L, 4, &[X { rules: &["tools.result.complete"], ..x("TOOL_SUCCESS", &[200]) }]),
    case("lenient:name_header", M, 3, &[X { rules: &["tools.result.complete"], ..x("TOOL_SUCCESS", &[200]) }]),
    case("baseline", L, 4, &[X { rules: &["tools.result.complete"], ..x("TOOL_SUCCESS", &[200]) }]),
    case("baseline", M, 3, &[X { rules: &["tools.result.complete"], ..x("TOOL_SUCCESS", &[200]) }]),
    // The Nth POST gets the Nth status: aim the 503 at the tools/call...
    case("http_status_sequence:200,200,200,503", L, 4, &[X { rules: &["http.status.non-2xx"], ..x("HTTP_ERROR", &[503]) }]),
    case("http_status_sequence:200,200,503", M, 3, &[X { rules: &["http.status.non-2xx"], ..x("HTTP_ERROR", &[503]) }]),
    // ...or, with the default sequence, at the first setup request.
    Case { setup_failure: Some("initialize: HTTP 503"), ..case("http_status_sequence", L, 1, &[]) },
    Case { setup_failure: Some("server/discover: HTTP 503"), ..case("http_status_sequence", M, 1, &[]) },
    case("jsonrpc_error", L, 4, &[X { rules: &["jsonrpc.error-response"], ..x("JSONRPC_ERROR", &[200]) }]),
    case("jsonrpc_error", M, 3, &[X { rules: &["jsonrpc.error-response"], ..x("JSONRPC_ERROR", &[200]) }]),
    case("jsonrpc_error:-32020", M, 3, &[X {
        rules: &["jsonrpc.error-response"],
        errors: &["transport.http.400-header-mismatch"],
        ..x("JSONRPC_ERROR", &[200])
    }]),
    case("tool_error", L, 4, &[X { rules: &["tools.result.is-error"], ..x("TOOL_ERROR", &[200]) }]),
    case("tool_error", M, 3, &[X { rules: &["tools.result.is-error"], ..x("TOOL_ERROR", &[200]) }]),
    // With answers: 2025-11-25 answers elicitation/create on the stream (one more POST,
    // 202); 2026-07-28 gets input_required and follows up with a new id.
    Case { answers: true, ..case("input_required", L, 5, &[x("TOOL_SUCCESS", &[200, 202])]) },
    Case { answers: true, ..case("input_required", M, 4, &[
        X { rules: &["mrtr.input-required"], ..x("INPUT_REQUIRED", &[200]) },
        x("TOOL_SUCCESS", &[200, 200]),
    ]) },
    // Without answers the probe declares no elicitation capability.
    case("input_required", L, 4, &[X { rules: &["tools.result.is-error"], ..x("TOOL_ERROR", &[200]) }]),
    case("input_required", M, 3, &[X {
        rules: &["http.status.non-2xx"],
        retry: "declare_capability_then_retry",
        ..x("HTTP_ERROR", &[400])
    }]),
    case("legacy_result", L, 4, &[x("TOOL_SUCCESS", &[200])]),
    case("legacy_result", M, 3, &[X {
        rules: &["base.result-type.absent-is-complete"],
        errors: &["base.result-type.required"],
        ..x("TOOL_SUCCESS", &[200])
    }]),
    case("invalid_result", L, 4, &[X { errors: &["tools.result.content-required"], ..x("INVALID_TOOL_RESULT", &[200]) }]),
    case("invalid_result", M, 3, &[X { errors: &["tools.result.content-required"], ..x("INVALID_TOOL_RESULT", &[200]) }]),
    case("malformed_json", L, 4, &[X { errors: &["jsonrpc.message.well-formed"], ..x("MALFORMED_JSON", &[200]) }]),
    case("malformed_json", M, 3, &[X { errors: &["jsonrpc.message.well-formed"], ..x("MALFORMED_JSON", &[200]) }]),
    case("wrong_id", L, 4, &[X { errors: &["jsonrpc.response.id-match"], ..x("INVALID_ENVELOPE", &[200]) }]),
    case("wrong_id", M, 3, &[X { errors: &["jsonrpc.response.id-match"], ..x("INVALID_ENVELOPE", &[200]) }]),
    case("non2xx_valid_body", L, 4, &[X { rules: &["http.status.non-2xx"], ..x("HTTP_ERROR", &[500]) }]),
    case("non2xx_valid_body", M, 3, &[X { rules: &["http.status.non-2xx"], ..x("HTTP_ERROR", &[500]) }]),
    case("html_error_page", L, 4, &[X { errors: &["transport.http.response-content-type"], ..x("UNEXPECTED_CONTENT_TYPE", &[200]) }]),
    case("html_error_page", M, 3, &[X { errors: &["transport.http.response-content-type"], ..x("UNEXPECTED_CONTENT_TYPE", &[200]) }]),
    case("html_error_page:502", M, 3, &[X { rules: &["http.status.non-2xx"], ..x("HTTP_ERROR", &[502]) }]),
    case("wrong_content_type", L, 4, &[X { errors: &["transport.http.response-content-type"], ..x("UNEXPECTED_CONTENT_TYPE", &[200]) }]),
    case("wrong_content_type", M, 3, &[X { errors: &["transport.http.response-content-type"], ..x("UNEXPECTED_CONTENT_TYPE", &[200]) }]),
    case("accepted_no_body", L, 4, &[X { errors: &["transport.http.request-needs-response"], ..x("NO_RESPONSE", &[202]) }]),
    case("accepted_no_body", M, 3, &[X { errors: &["transport.http.request-needs-response"], ..x("NO_RESPONSE", &[202]) }]),
    case("sse_progress", L, 4, &[X { rules: &["tools.result.complete"], ..x("TOOL_SUCCESS", &[200]) }]),
    case("sse_progress", M, 3, &[X { rules: &["tools.result.complete"], ..x("TOOL_SUCCESS", &[200]) }]),
    case("sse_close_early", L, 4, &[X { rules: &["transport.sse.final-response"], ..x("DELIVERY_UNKNOWN", &[200]) }]),
    case("sse_close_early", M, 3, &[X { rules: &["transport.sse.final-response"], ..x("DELIVERY_UNKNOWN", &[200]) }]),
    case("sse_reset", L, 4, &[X { end: BodyEnd::Reset, rules: &["transport.sse.final-response"], ..x("DELIVERY_UNKNOWN", &[200]) }]),
    case("sse_reset", M, 3, &[X { end: BodyEnd::Reset, rules: &["transport.sse.final-response"], ..x("DELIVERY_UNKNOWN", &[200]) }]),
    case("sse_stall", L, 4, &[X { end: BodyEnd::Timeout, rules: &["transport.sse.final-response"], ..x("DELIVERY_UNKNOWN", &[200]) }]),
    case("sse_stall", M, 3, &[X { end: BodyEnd::Timeout, rules: &["transport.sse.final-response"], ..x("DELIVERY_UNKNOWN", &[200]) }]),
    case("sse_malformed_event", L, 4, &[X { errors: &["transport.sse.event-json"], ..x("MALFORMED_JSON", &[200]) }]),
    case("sse_malformed_event", M, 3, &[X { errors: &["transport.sse.event-json"], ..x("MALFORMED_JSON", &[200]) }]),
    // 429 hits the first POST, a setup request; the probe does not retry on its own.
    Case { setup_failure: Some("initialize: HTTP 429 (text/plain; charset=utf-8, Retry-After: 1)"), ..case("rate_limited", L, 1, &[]) },
    Case { setup_failure: Some("server/discover: HTTP 429 (text/plain; charset=utf-8, Retry-After: 1)"), ..case("rate_limited", M, 1, &[]) },
    // A probe that does not authorize (the library's default) stops at the first 401.
    Case { setup_failure: Some("initialize: HTTP 401 Unauthorized: the server requires authorization"), ..case("auth", L, 1, &[]) },
    Case { setup_failure: Some("server/discover: HTTP 401 Unauthorized: the server requires authorization"), ..case("auth", M, 1, &[]) },
    // 2025-11-25: the server pings on the stream (no roots capability declared) and the
    // probe answers (one more POST, 202). 2026-07-28 forbids server requests there.
    case("server_request_on_stream", L, 5, &[x("TOOL_SUCCESS", &[200, 202])]),
    case("server_request_on_stream", M, 3, &[X {
        errors: &["transport.sse.no-server-requests"],
        ..x("TOOL_SUCCESS", &[200])
    }]),
];

fn start(scenario: &str) -> ServerHandle {
    serve::start(ServeConfig {
        scenario: scenario.parse().expect("scenario parses"),
        stall_cap: Duration::from_secs(3),
        idle_timeout: Duration::from_secs(5),
        ..ServeConfig::default()
    })
    .expect("server starts")
}

fn config(url: &str, rev: Protocol, answers: bool) -> ProbeConfig {
    let mut c = ProbeConfig::new(url);
    c.protocols = vec![rev];
    c.auto_calls = false;
    c.calls = vec![CallSpec {
        name: "echo".into(),
        arguments: Some(json!({"text": "hi"})),
    }];
    c.timeouts = Timeouts {
        connect: Duration::from_secs(2),
        idle: Duration::from_millis(500),
        total: Duration::from_secs(10),
    };
    if answers {
        c.answers = serde_json::from_value(json!({
            "confirm": {"action": "accept", "content": {"confirm": true}},
            "elicitation/create": {"action": "accept", "content": {"confirm": true}}
        }))
        .unwrap();
    }
    c
}

fn error_rules(x: &CallExchange) -> BTreeSet<String> {
    x.verdict()
        .findings
        .iter()
        .filter(|f| f.severity == Severity::Error)
        .map(|f| f.rule.id.clone())
        .collect()
}

fn check(c: &Case) {
    let server = start(c.scenario);
    let report = probe::run(&config(&server.url(), c.rev, c.answers))
        .unwrap_or_else(|e| panic!("{} {}: {e}", c.scenario, c.rev));
    let run = report.run(c.rev).expect("one run");
    let tag = format!("{} under {}", c.scenario, c.rev);
    let summary: Vec<String> = run
        .exchanges
        .iter()
        .map(|x| {
            format!(
                "{} {:?} end={} retry={:?} errors={:?} cited={:?}",
                x.verdict().outcome,
                x.call_statuses,
                x.exchange.end.as_str(),
                mcp_verdict::advice::advise(x.verdict(), &RetryPolicy::default()).action,
                error_rules(x),
                x.verdict().cited_ids().collect::<Vec<_>>()
            )
        })
        .collect();
    eprintln!(
        "{tag}: {:?} posts={} {summary:?}",
        run.status,
        run.post_count()
    );
    match c.setup_failure {
        None => assert_eq!(run.status, RunStatus::Probed, "{tag}"),
        Some(text) => match &run.status {
            RunStatus::Failed(why) => assert!(why.contains(text), "{tag}: {why}"),
            other => panic!("{tag}: expected a setup failure, got {other:?}"),
        },
    }
    assert_eq!(
        run.exchanges.len(),
        c.exchanges.len(),
        "{tag}: exchanges {summary:?}"
    );
    for (i, (got, want)) in run.exchanges.iter().zip(c.exchanges).enumerate() {
        let v = got.verdict();
        let at = format!("{tag}, exchange {}", i + 1);
        assert_eq!(v.protocol, c.rev, "{at}");
        assert_eq!(v.outcome.as_str(), want.outcome, "{at}: {summary:?}");
        assert_eq!(got.call_statuses, want.statuses, "{at}");
        assert_eq!(got.exchange.end, want.end, "{at}: {:?}", got.end_note);
        assert_eq!(got.round, i as u32 + 1, "{at}");
        for r in want.rules {
            assert!(
                v.mentions(r),
                "{at}: {r} neither cited nor found: {summary:?}"
            );
        }
        let advice = mcp_verdict::advice::advise(v, &RetryPolicy::default());
        let want_retry = if want.retry.is_empty() {
            usual_retry(want.outcome)
        } else {
            want.retry
        };
        assert_eq!(
            serde_json::to_value(advice.action).unwrap(),
            json!(want_retry),
            "{at}: retry advice"
        );
        let want_errors: BTreeSet<String> = want.errors.iter().map(|s| s.to_string()).collect();
        assert_eq!(error_rules(got), want_errors, "{at}");
    }
    assert!(run.failures.is_empty(), "{tag}: {:?}", run.failures);
    assert_eq!(
        u64::from(run.post_count()),
        c.posts,
        "{tag}: probe's POST count"
    );
    assert_eq!(server.post_count(), c.posts, "{tag}: server's POST count");
    // A call without a complete response (a stream that ended before it) is not a pass.
    let expect_exit = if c.setup_failure.is_some()
        || c.exchanges
            .iter()
            .any(|x| !x.errors.is_empty() || x.outcome == "DELIVERY_UNKNOWN")
    {
        1
    } else {
        0
    };
    assert_eq!(report.exit_code(), expect_exit, "{tag}");
    // The server finished one exchange per POST (plus the DELETE for a 2025-11-25 session,
    // and the GETs: the standalone stream a 2025-11-25 session opens, resumptions).
    let delete = u64::from(c.rev == L && c.setup_failure.is_none());
    let gets = run.steps.iter().filter(|s| s.http_method == "GET").count() as u64;
    let want = c.posts + delete + gets;
    let records = server.wait_for_records(want as usize, Duration::from_secs(5));
    assert_eq!(records.len() as u64, want, "{tag}: server records");
    server.shutdown();
}

fn scenario_name(s: &str) -> &str {
    s.split(':').next().unwrap_or(s)
}

/// The scenarios `serve` offers over HTTP (the stdio ones have their loop in `serve_stdio`).
fn over_http() -> impl Iterator<Item = &'static ScenarioInfo> {
    SCENARIOS
        .iter()
        .filter(|s| s.transports.contains(&Transport::Http))
}

#[test]
fn every_scenario_and_revision_has_a_case() {
    for s in over_http() {
        for rev in s.revisions {
            let p = match rev {
                Protocol::V2025_11_25 => L,
                Protocol::V2026_07_28 => M,
            };
            assert!(
                CASES
                    .iter()
                    .any(|c| scenario_name(c.scenario) == s.name && c.rev == p),
                "scenario {} has no loop case under {p}",
                s.name
            );
        }
    }
    for c in CASES {
        assert!(
            over_http().any(|s| s.name == scenario_name(c.scenario)),
            "case for unknown scenario {}",
            c.scenario
        );
    }
}

#[rstest]
#[case("baseline")]
#[case("http_status_sequence")]
#[case("jsonrpc_error")]
#[case("tool_error")]
#[case("input_required")]
#[case("legacy_result")]
#[case("invalid_result")]
#[case("malformed_json")]
#[case("wrong_id")]
#[case("non2xx_valid_body")]
#[case("html_error_page")]
#[case("wrong_content_type")]
#[case("accepted_no_body")]
#[case("sse_progress")]
#[case("sse_close_early")]
#[case("sse_reset")]
#[case("sse_stall")]
#[case("sse_malformed_event")]
#[case("rate_limited")]
#[case("server_request_on_stream")]
#[case("lenient")]
#[case("auth")]
fn scenario(#[case] name: &str) {
    let cases: Vec<&Case> = CASES
        .iter()
        .filter(|c| scenario_name(c.scenario) == name)
        .collect();
    assert!(!cases.is_empty(), "no cases for {name}");
    for c in cases {
        check(c);
    }
}

#[test]
fn every_scenario_has_an_rstest_case() {
    // Keep the #[case] list above in step with the table.
    let src = include_str!("loop_scenarios.rs");
    for s in over_http() {
        assert!(
            src.contains(&format!("#[case(\"{}\")]", s.name)),
            "add #[case(\"{}\")] to fn scenario",
            s.name
        );
    }
}

/// After the 429s, later POSTs are served normally: a second probe gets through.
#[test]
fn rate_limited_then_served() {
    let server = start("rate_limited:1:1");
    let first = probe::run(&config(&server.url(), M, false)).unwrap();
    assert!(matches!(first.runs[0].status, RunStatus::Failed(_)));
    let second = probe::run(&config(&server.url(), M, false)).unwrap();
    let x = &second.runs[0].exchanges[0];
    assert_eq!(x.verdict().outcome.as_str(), "TOOL_SUCCESS");
    assert_eq!(server.post_count(), 4);
}

/// The auto calls against the well-behaved server: an unknown tool is a JSON-RPC error,
/// invalid arguments a tool error; side-effecting tools are left alone unless allowed,
/// and even then invalid arguments create no order.
#[rstest]
#[case(L)]
#[case(M)]
fn auto_calls_on_baseline(#[case] rev: Protocol) {
    let server = start("baseline");
    let mut c = config(&server.url(), rev, false);
    c.calls.clear();
    c.auto_calls = true;
    let report = probe::run(&c).unwrap();
    let got: Vec<(String, String)> = report
        .exchanges()
        .map(|x| (x.label.clone(), x.verdict().outcome.to_string()))
        .collect();
    assert_eq!(
        got,
        [
            ("unknown-tool", "JSONRPC_ERROR"),
            ("echo:invalid-args", "TOOL_ERROR"),
            ("add:invalid-args", "TOOL_ERROR"),
            ("count:invalid-args", "TOOL_ERROR"),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
    );
    let unknown = report.exchanges().next().unwrap();
    assert_eq!(
        unknown.verdict().facts.error.as_ref().and_then(|e| e.code),
        Some(-32602)
    );
    assert_eq!(report.exit_code(), 0);

    c.allow_side_effects = true;
    let report = probe::run(&c).unwrap();
    let labels: Vec<String> = report.exchanges().map(|x| x.label.clone()).collect();
    assert!(labels.contains(&"create_order:invalid-args".to_string()));
    assert!(labels.contains(&"confirm_action:invalid-args".to_string()));
    assert!(
        report
            .exchanges()
            .skip(1)
            .all(|x| x.verdict().outcome.as_str() == "TOOL_ERROR")
    );
    assert_eq!(
        server.orders_created(),
        0,
        "invalid arguments created an order"
    );
}

/// confirm_action on the well-behaved server: 2026-07-28 MRTR with a new id, echoed
/// requestState and inputResponses; a declined answer is the tool's own TOOL_ERROR; without
/// follow-up rounds left, the interim result is reported.
#[test]
fn confirm_action_rounds() {
    let server = start("baseline");
    let mut c = config(&server.url(), M, true);
    c.calls = vec![CallSpec {
        name: "confirm_action".into(),
        arguments: Some(json!({"action": "deploy"})),
    }];
    let report = probe::run(&c).unwrap();
    let xs = &report.runs[0].exchanges;
    assert_eq!(xs.len(), 2);
    assert_eq!(xs[0].verdict().outcome.as_str(), "INPUT_REQUIRED");
    assert_eq!(xs[1].verdict().outcome.as_str(), "TOOL_SUCCESS");
    let first = xs[0].exchange.request.body.as_ref().unwrap();
    let retry = xs[1].exchange.request.body.as_ref().unwrap();
    assert_ne!(first["id"], retry["id"], "the retry uses a new id");
    assert_eq!(retry["params"]["name"], "confirm_action");
    assert_eq!(retry["params"]["arguments"], json!({"action": "deploy"}));
    assert!(retry["params"]["inputResponses"]["confirm"].is_object());
    let state = xs[0].verdict().facts.result_type.clone();
    assert_eq!(state, Some(json!("input_required")));
    assert!(retry["params"]["requestState"].is_string());

    c.answers = serde_json::from_value(json!({"confirm": {"action": "decline"}})).unwrap();
    let report = probe::run(&c).unwrap();
    let outcomes: Vec<String> = report
        .exchanges()
        .map(|x| x.verdict().outcome.to_string())
        .collect();
    assert_eq!(outcomes, ["INPUT_REQUIRED", "TOOL_ERROR"]);

    c.max_rounds = 1;
    let report = probe::run(&c).unwrap();
    let xs: Vec<&CallExchange> = report.exchanges().collect();
    assert_eq!(xs.len(), 1);
    assert!(
        xs[0]
            .follow_up
            .as_deref()
            .unwrap()
            .contains("--max-rounds 1")
    );

    // Answers for another key: the input request stays unanswered.
    c.max_rounds = 3;
    c.answers = serde_json::from_value(json!({"other": {"action": "accept"}})).unwrap();
    let report = probe::run(&c).unwrap();
    let xs: Vec<&CallExchange> = report.exchanges().collect();
    assert_eq!(xs.len(), 1);
    assert!(
        xs[0].follow_up.as_deref().unwrap().contains("`confirm`"),
        "{:?}",
        xs[0].follow_up
    );
}
