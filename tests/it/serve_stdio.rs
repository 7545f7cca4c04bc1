//! `serve --stdio`: every scenario offered over stdio, in-process over pipes, under each
//! revision it applies to; what goes on stdout, and the verdict `serve` records on what it
//! sent, naming exactly the scenario's fault.

use std::collections::BTreeSet;
use std::time::Duration;

use mcp_verdict::serve::{SCENARIOS, Transport};
use mcp_verdict::views::diag::DiagRecord;
use mcp_verdict::vocab::Protocol;
use serde_json::{Value, json};

use crate::support::cli::{bin, run};
use crate::support::stdio::{StdioSession, params_for};

const WAIT: Duration = Duration::from_secs(5);

/// For each scenario offered over stdio: the outcome of the `tools/call` record and the stdio
/// rules its verdict names (deciding rule and error findings). `stdio_after_cancel` is a slow
/// answer until the client cancels (see `a_message_after_cancellation_is_named`).
const EXPECTED: &[(&str, &str, &[&str])] = &[
    ("baseline", "TOOL_SUCCESS", &[]),
    ("jsonrpc_error", "JSONRPC_ERROR", &[]),
    ("tool_error", "TOOL_ERROR", &[]),
    ("legacy_result", "TOOL_SUCCESS", &[]),
    ("invalid_result", "INVALID_TOOL_RESULT", &[]),
    ("malformed_json", "MALFORMED_JSON", &[]),
    ("wrong_id", "INVALID_ENVELOPE", &[]),
    ("sse_progress", "TOOL_SUCCESS", &[]),
    (
        "stdio_log_line",
        "TOOL_SUCCESS",
        &["transport.stdio.non-mcp-output"],
    ),
    (
        "stdio_pretty",
        "MALFORMED_JSON",
        &[
            "transport.stdio.split-response",
            "transport.stdio.embedded-newline",
        ],
    ),
    (
        "stdio_crash",
        "DELIVERY_UNKNOWN",
        &["transport.stdio.ended-early"],
    ),
    (
        "stdio_partial_exit",
        "DELIVERY_UNKNOWN",
        &["transport.stdio.ended-early"],
    ),
    ("stdio_slow:300", "TOOL_SUCCESS", &[]),
    ("stdio_stderr_chatter", "TOOL_SUCCESS", &[]),
    ("stdio_after_cancel:300", "TOOL_SUCCESS", &[]),
];

/// Scenarios that need more than one call to show what they do, each tested on its own below.
const INTERACTIVE: &[&str] = &["input_required", "server_request_on_stream", "stdio_banner"];

fn stdio_rules(rec: &DiagRecord) -> BTreeSet<String> {
    rec.rule
        .iter()
        .chain(rec.error_findings.iter())
        .filter(|r| r.starts_with("transport.stdio."))
        .cloned()
        .collect()
}

fn call(rev: Protocol, id: i64, name: &str) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
           "params": params_for(rev, json!({"name": name, "arguments": {"text": "hi"}}))})
}

/// A session under `rev`: setup, one `tools/call echo`; the records once stdin closed.
fn one_call(scenario: &str, rev: Protocol) -> (Vec<Vec<u8>>, Vec<DiagRecord>, Option<i32>) {
    let mut s = StdioSession::start(scenario);
    s.setup(rev);
    s.send(&call(rev, 7, "echo"));
    let (lines, _) = s.until_response(&json!(7), WAIT);
    let served = s.finish();
    (lines, served.records, served.exit_code)
}

fn call_record(records: &[DiagRecord]) -> &DiagRecord {
    records
        .iter()
        .find(|r| r.method.as_deref() == Some("tools/call"))
        .expect("a tools/call record")
}

#[test]
fn every_stdio_scenario_has_an_expectation() {
    for s in SCENARIOS
        .iter()
        .filter(|s| s.transports.contains(&Transport::Stdio))
    {
        assert!(
            EXPECTED
                .iter()
                .any(|(n, ..)| n.split(':').next() == Some(s.name))
                || INTERACTIVE.contains(&s.name),
            "{}: add it to EXPECTED",
            s.name
        );
    }
}

#[test]
fn serve_records_the_verdict_naming_the_fault() {
    for (scenario, outcome, rules) in EXPECTED {
        let info = SCENARIOS
            .iter()
            .find(|s| Some(s.name) == scenario.split(':').next())
            .unwrap();
        for rev in info.revisions.iter().copied() {
            let (_, records, _) = one_call(scenario, rev);
            let rec = call_record(&records);
            assert_eq!(
                rec.outcome.as_deref(),
                Some(*outcome),
                "{scenario} {rev}: {rec:?}"
            );
            if info.transports == [Transport::Stdio] {
                // One fault per scenario: the table names its error findings exactly.
                let named = match rev {
                    Protocol::V2025_11_25 => info.findings_legacy,
                    Protocol::V2026_07_28 => info.findings_modern,
                };
                let named: BTreeSet<&str> = named.iter().copied().collect();
                let got: BTreeSet<&str> = rec.error_findings.iter().map(String::as_str).collect();
                assert_eq!(got, named, "{scenario} {rev}: the table's findings");
            }
            let want: BTreeSet<String> = rules.iter().map(|r| r.to_string()).collect();
            assert_eq!(stdio_rules(rec), want, "{scenario} {rev}");
            // The table's promise starts with the outcome seen.
            let promised = match rev {
                Protocol::V2025_11_25 => info.verdict_legacy,
                Protocol::V2026_07_28 => info.verdict_modern,
            };
            assert!(
                promised.contains(outcome),
                "{scenario} {rev}: the table promises {promised:?}"
            );
        }
    }
}

#[test]
fn what_goes_on_stdout() {
    let r = Protocol::V2026_07_28;
    let (lines, ..) = one_call("stdio_log_line", r);
    assert!(lines[0].starts_with(b"[info] "), "{lines:?}");
    assert!(serde_json::from_slice::<Value>(&lines[1]).is_ok());

    let (lines, ..) = one_call("stdio_pretty", r);
    assert_eq!(lines[0], b"{\n");
    assert!(lines.len() > 5);

    let (lines, _, exit) = one_call("stdio_crash", r);
    assert!(lines.is_empty(), "{lines:?}");
    assert_eq!(exit, Some(1));

    let (lines, _, exit) = one_call("stdio_partial_exit", r);
    assert_eq!(lines.len(), 1);
    assert!(!lines[0].ends_with(b"\n") && lines[0].starts_with(b"{"));
    assert_eq!(exit, Some(1));

    let (lines, ..) = one_call("malformed_json", r);
    assert_eq!(lines, [b"{unclosed\n".to_vec()]);

    // Baseline: one line, the response, compact.
    let (lines, _, exit) = one_call("baseline", r);
    assert_eq!(lines.len(), 1);
    assert!(!lines[0][..lines[0].len() - 1].contains(&b'\n'));
    assert_eq!(exit, None);
}

#[test]
fn the_banner_is_judged_with_the_first_answer() {
    for rev in Protocol::all() {
        let mut s = StdioSession::start("stdio_banner");
        let first = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list",
                           "params": params_for(rev, json!({}))});
        if rev == Protocol::V2025_11_25 {
            s.setup(rev);
        } else {
            s.send(&first);
        }
        if rev == Protocol::V2026_07_28 {
            let (lines, _) = s.until_response(&json!(1), WAIT);
            assert!(lines[0].starts_with(b"mcp-verdict serve: "), "{lines:?}");
        }
        let served = s.finish();
        let first_rec = served
            .records
            .iter()
            .find(|r| r.method.as_deref() != Some("notifications/initialized"))
            .unwrap();
        assert_eq!(
            stdio_rules(first_rec),
            BTreeSet::from(["transport.stdio.non-mcp-output".to_string()]),
            "{rev}"
        );
    }
}

#[test]
fn a_message_after_cancellation_is_named() {
    for rev in Protocol::all() {
        let mut s = StdioSession::start("stdio_after_cancel:3000");
        s.setup(rev);
        s.send(&call(rev, 9, "echo"));
        std::thread::sleep(Duration::from_millis(200));
        s.send(
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                       "params": {"requestId": 9, "reason": "test"}}),
        );
        let (lines, resp) = s.until_response(&json!(9), WAIT);
        assert!(
            resp.is_some(),
            "{rev}: the fault answers after the cancellation"
        );
        assert_eq!(
            lines.len(),
            2,
            "{rev}: a progress notification, then the response"
        );
        let served = s.finish();
        let rec = call_record(&served.records);
        assert_eq!(rec.outcome.as_deref(), Some("DELIVERY_UNKNOWN"), "{rev}");
        // The message after the cancellation breaks a MUST NOT under 2026-07-28 (an error),
        // a SHOULD NOT under 2025-11-25 (a warning, no error finding).
        let mut want = BTreeSet::from(["transport.stdio.response-after-cancel".to_string()]);
        if rev == Protocol::V2026_07_28 {
            want.insert("transport.stdio.after-cancellation".to_string());
        }
        assert_eq!(stdio_rules(rec), want, "{rev}");
    }
}

#[test]
fn a_held_answer_is_let_go_when_stdin_ends() {
    // The answer is held far longer than the drain after stdin ends: closing stdin ends the
    // wait, so the server writes it, records it and returns, as a client that launched it and
    // closed its stdin finds in the log.
    for scenario in ["stdio_slow:600000", "stdio_after_cancel:600000"] {
        let mut s = StdioSession::start(scenario);
        let rev = Protocol::V2026_07_28;
        s.send(&call(rev, 4, "echo"));
        assert_eq!(s.line(Duration::from_millis(200)), None, "{scenario}: held");
        let served = s.finish();
        let rec = call_record(&served.records);
        assert!(rec.final_response, "{scenario}: {rec:?}");
        assert_eq!(rec.outcome.as_deref(), Some("TOOL_SUCCESS"), "{scenario}");
    }
}

#[test]
fn a_cancelled_request_gets_nothing_more_from_a_sound_server() {
    // stdio_slow holds the response; the cancellation arrives meanwhile and the server sends
    // nothing more for the request.
    let mut s = StdioSession::start("stdio_slow:600");
    let rev = Protocol::V2026_07_28;
    s.send(&call(rev, 3, "echo"));
    std::thread::sleep(Duration::from_millis(100));
    s.send(
        &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                   "params": {"requestId": 3}}),
    );
    assert_eq!(s.line(Duration::from_millis(1500)), None);
    let served = s.finish();
    let rec = call_record(&served.records);
    assert!(!rec.final_response);
}

#[test]
fn server_requests_and_their_answers() {
    // 2025-11-25: a ping before the result, which is sound; 2026-07-28: the stdio rule.
    for (rev, rules) in [
        (Protocol::V2025_11_25, BTreeSet::new()),
        (
            Protocol::V2026_07_28,
            BTreeSet::from(["transport.stdio.no-server-requests".to_string()]),
        ),
    ] {
        let mut s = StdioSession::start("server_request_on_stream");
        s.setup(rev);
        s.send(&call(rev, 4, "echo"));
        let (lines, resp) = s.until_response(&json!(4), WAIT);
        assert!(resp.is_some());
        assert!(s.stderr.0.lock().unwrap().is_empty(), "nothing on stderr");
        let request: Value = serde_json::from_slice(&lines[0]).unwrap();
        assert!(request.get("method").is_some() && request.get("id").is_some());
        let served = s.finish();
        assert_eq!(stdio_rules(call_record(&served.records)), rules, "{rev}");
    }
    // An elicitation asked of the client is answered on stdin, and the call goes on.
    let mut s = StdioSession::start("input_required");
    s.send(
        &json!({"jsonrpc": "2.0", "id": "init", "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {"elicitation": {}},
                   "clientInfo": {"name": "stdio-test", "version": "1"}}}),
    );
    let _ = s.until_response(&json!("init"), WAIT);
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    s.send(&call(Protocol::V2025_11_25, 5, "echo"));
    let ask: Value = serde_json::from_slice(&s.line(WAIT).expect("an elicitation")).unwrap();
    assert_eq!(ask["method"], "elicitation/create");
    s.send(&json!({"jsonrpc": "2.0", "id": ask["id"], "result": {"action": "accept", "content": {"confirm": true}}}));
    let (_, resp) = s.until_response(&json!(5), WAIT);
    assert_eq!(resp.unwrap()["result"]["isError"], false);
    let served = s.finish();
    assert_eq!(
        call_record(&served.records).outcome.as_deref(),
        Some("TOOL_SUCCESS")
    );
}

#[test]
fn faults_leave_other_methods_alone() {
    for s in SCENARIOS
        .iter()
        .filter(|s| s.transports.contains(&Transport::Stdio))
    {
        for rev in s.revisions.iter().copied() {
            let mut c = StdioSession::start(s.example);
            c.setup(rev);
            c.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list",
                           "params": params_for(rev, json!({}))}));
            let (_, resp) = c.until_response(&json!(2), WAIT);
            let resp = resp.unwrap_or_else(|| panic!("{} {rev}: tools/list answered", s.name));
            assert_eq!(
                resp["result"]["tools"].as_array().unwrap().len(),
                5,
                "{}",
                s.name
            );
            c.finish();
        }
    }
}

#[test]
fn notifications_get_no_answer_and_garbage_gets_a_parse_error() {
    let mut s = StdioSession::start("baseline");
    s.send(&json!({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 99}}));
    assert_eq!(s.line(Duration::from_millis(300)), None);
    s.send_raw(b"not json\n");
    let err: Value = serde_json::from_slice(&s.line(WAIT).unwrap()).unwrap();
    assert_eq!(err["error"]["code"], -32700);
    s.finish();
}

#[test]
fn the_cli_speaks_stdio_and_says_which_scenarios_each_transport_offers() {
    let init = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "t", "version": "1"}}});
    let out = run(
        bin().args(["serve", "--stdio", "--quiet"]),
        Some(format!("{init}\n").as_bytes()),
    );
    assert!(out.status.success(), "{out:?}");
    let lines: Vec<&[u8]> = out
        .stdout
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(lines.len(), 1, "stdout carries the answer alone");
    let v: Value = serde_json::from_slice(lines[0]).unwrap();
    assert_eq!(v["result"]["protocolVersion"], "2025-11-25");
    assert!(
        out.stderr.is_empty(),
        "--quiet: {}",
        String::from_utf8_lossy(&out.stderr)
    );

    let out = run(
        bin().args(["serve", "--stdio", "--scenario", "stdio_crash"]),
        Some(format!("{init}\n{}\n", call(Protocol::V2025_11_25, 2, "echo")).as_bytes()),
    );
    assert_eq!(out.status.code(), Some(1));

    let out = run(
        bin().args(["serve", "--stdio", "--scenario", "sse_reset"]),
        Some(b""),
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("over HTTP only"));

    let out = run(bin().args(["serve", "--list"]), None);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("transports          stdio\n"), "{text}");
    assert!(text.contains("transports          http, stdio\n"));
    assert!(text.contains("transports          http\n"));
}
