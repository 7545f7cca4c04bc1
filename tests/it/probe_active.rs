//! `probe --active`: against the well-behaved server every check passes (or is skipped, with
//! why); against each `lenient:PATH` scenario, the check for that error path reports the rule
//! it breaks and nothing else does; the exchanges are recorded and re-judge offline; the CLI
//! shows each check with its rule and citation.

use std::time::Duration;

use mcp_verdict::Protocol;
use mcp_verdict::judge::{EvalStatus, Options, judge};
use mcp_verdict::probe::{self, ActiveResult, CallSpec, ProbeConfig, ProbeReport, Timeouts};
use mcp_verdict::serve::{self, Lenient, ServeConfig, ServerHandle};
use mcp_verdict::vocab::Severity;
use mcp_verdict::wire::exchange::ExchangeFile;
use serde_json::{Value, json};

use crate::support::cli::bin;
use crate::support::temp::temp_dir;

const SECRET: &str = "s3cr3t-active-token-0987654321";

fn start(scenario: &str) -> ServerHandle {
    serve::start(ServeConfig {
        scenario: scenario.parse().unwrap(),
        stall_cap: Duration::from_secs(3),
        ..ServeConfig::default()
    })
    .unwrap()
}

/// An active probe that also calls `confirm_action` (which answers input_required under
/// 2026-07-28), answering its elicitation, with side effects allowed (it is not
/// destructive) and a secret header.
fn config(url: &str) -> ProbeConfig {
    let mut c = ProbeConfig::new(url);
    c.active = true;
    c.allow_side_effects = true;
    c.calls = vec![CallSpec {
        name: "confirm_action".into(),
        arguments: Some(json!({"action": "ship"})),
    }];
    c.answers = serde_json::from_value(json!({
        "elicitation/create": {"action": "accept", "content": {"confirm": true}}
    }))
    .unwrap();
    c.headers = vec![("Authorization".into(), format!("Bearer {SECRET}"))];
    c.timeouts = Timeouts {
        connect: Duration::from_secs(2),
        idle: Duration::from_secs(5),
        total: Duration::from_secs(10),
    };
    c
}

fn probe(scenario: &str) -> ProbeReport {
    let server = start(scenario);
    let report = probe::run(&config(&server.url())).unwrap();
    server.shutdown();
    report
}

/// (revision, check, result) of every active check.
fn results(report: &ProbeReport) -> Vec<(Protocol, &'static str, ActiveResult)> {
    report
        .runs
        .iter()
        .flat_map(|r| {
            r.active
                .iter()
                .map(move |c| (r.protocol, c.check, c.result.clone()))
        })
        .collect()
}

const ALL_CHECKS: [(Protocol, &str, &str); 12] = [
    (
        Protocol::V2025_11_25,
        "unsupported-version",
        "transport.http.400-unsupported-version-header",
    ),
    (
        Protocol::V2025_11_25,
        "missing-session",
        "transport.http.400-missing-session",
    ),
    (
        Protocol::V2025_11_25,
        "ended-session",
        "transport.http.404-ended-session",
    ),
    (
        Protocol::V2026_07_28,
        "unsupported-version",
        "transport.http.400-unsupported-version",
    ),
    (
        Protocol::V2026_07_28,
        "version-header-mismatch",
        "transport.http.header-mismatch-rejected",
    ),
    (
        Protocol::V2026_07_28,
        "missing-meta",
        "transport.http.400-missing-meta",
    ),
    (
        Protocol::V2026_07_28,
        "initialize",
        "transport.http.404-method-not-found",
    ),
    (
        Protocol::V2026_07_28,
        "method-header",
        "transport.http.header-mismatch-rejected",
    ),
    (
        Protocol::V2026_07_28,
        "name-header",
        "transport.http.header-mismatch-rejected",
    ),
    (
        Protocol::V2026_07_28,
        "param-header",
        "transport.http.400-header-mismatch",
    ),
    (Protocol::V2026_07_28, "tampered-state", ""),
    (
        Protocol::V2026_07_28,
        "unmatched-input-responses",
        "mrtr.missing-input-asked-again",
    ),
];

#[test]
fn the_well_behaved_server_passes_every_check() {
    let report = probe("baseline");
    assert_eq!(report.exit_code(), 0, "{}", summary(&report));
    let got = results(&report);
    for (p, check, rule) in ALL_CHECKS {
        let c = report
            .run(p)
            .unwrap()
            .active
            .iter()
            .find(|c| c.check == check)
            .unwrap_or_else(|| panic!("{p} {check} missing"));
        assert_eq!(c.rule, rule, "{p} {check}");
        if check == "param-header" {
            // Baseline has no tool with x-mcp-header.
            assert!(
                matches!(&c.result, ActiveResult::Skipped(w) if w.contains("x-mcp-header")),
                "{c:?}"
            );
        } else {
            assert_eq!(c.result, ActiveResult::Passed, "{p} {check}: {c:?}");
            assert!(c.findings.is_empty());
            // A passed check got the answer it wants, whatever says what that is.
            assert!(c.as_expected, "{p} {check}: {c:?}");
        }
    }
    assert_eq!(got.len(), 12, "{got:?}");
}

#[test]
fn the_conformance_tool_set_lets_the_param_header_check_run() {
    let report = probe("baseline:tools=conformance");
    let run = report.run(Protocol::V2026_07_28).unwrap();
    let c = run
        .active
        .iter()
        .find(|c| c.check == "param-header")
        .unwrap();
    assert_eq!(c.result, ActiveResult::Passed, "{c:?}");
    assert!(c.sent.contains("test_header_param"), "{}", c.sent);
}

fn summary(report: &ProbeReport) -> String {
    let mut s = String::new();
    for (p, check, result) in results(report) {
        s.push_str(&format!("{p} {check}: {result:?}\n"));
    }
    s
}

/// Each planted deviation draws the finding of its own check, citing its rule, and nothing
/// else; an error finding exits 1, the SHOULD-level one (a 404 for a missing session id) is
/// a warning and exits 0.
#[test]
fn each_planted_deviation_is_reported_by_its_check_alone() {
    let cases: [(Lenient, Protocol, &str, &str, Severity); 11] = [
        (
            Lenient::InputResponses,
            Protocol::V2026_07_28,
            "unmatched-input-responses",
            "mrtr.missing-input-asked-again",
            Severity::Warning,
        ),
        (
            Lenient::Version,
            Protocol::V2026_07_28,
            "unsupported-version",
            "transport.http.400-unsupported-version",
            Severity::Error,
        ),
        (
            Lenient::VersionHeader,
            Protocol::V2026_07_28,
            "version-header-mismatch",
            "transport.http.header-mismatch-rejected",
            Severity::Error,
        ),
        (
            Lenient::MissingMeta,
            Protocol::V2026_07_28,
            "missing-meta",
            "transport.http.400-missing-meta",
            Severity::Error,
        ),
        (
            Lenient::Initialize,
            Protocol::V2026_07_28,
            "initialize",
            "transport.http.404-method-not-found",
            Severity::Error,
        ),
        (
            Lenient::MethodHeader,
            Protocol::V2026_07_28,
            "method-header",
            "transport.http.header-mismatch-rejected",
            Severity::Error,
        ),
        (
            Lenient::NameHeader,
            Protocol::V2026_07_28,
            "name-header",
            "transport.http.header-mismatch-rejected",
            Severity::Error,
        ),
        (
            Lenient::ParamHeader,
            Protocol::V2026_07_28,
            "param-header",
            "transport.http.400-header-mismatch",
            Severity::Error,
        ),
        (
            Lenient::LegacyVersion,
            Protocol::V2025_11_25,
            "unsupported-version",
            "transport.http.400-unsupported-version-header",
            Severity::Error,
        ),
        (
            Lenient::Session,
            Protocol::V2025_11_25,
            "missing-session",
            "transport.http.400-missing-session",
            Severity::Warning,
        ),
        (
            Lenient::EndedSession,
            Protocol::V2025_11_25,
            "ended-session",
            "transport.http.404-ended-session",
            Severity::Error,
        ),
    ];
    // lenient:request_state is the one deviation that draws no finding (below).
    assert_eq!(cases.len() + 1, Lenient::ALL.len());
    for (lenient, p, check, rule, severity) in cases {
        let scenario = format!("lenient:{}", lenient.name());
        let report = probe(&scenario);
        let tag = format!("{scenario}\n{}", summary(&report));
        for r in &report.runs {
            for c in &r.active {
                if r.protocol == p && c.check == check {
                    assert_eq!(c.result, ActiveResult::Findings, "{tag}");
                    assert!(
                        c.findings
                            .iter()
                            .any(|f| f.rule == rule && f.severity == severity),
                        "{tag}: {:?}",
                        c.findings
                    );
                    let f = &c.findings[0];
                    assert!(
                        f.url
                            .starts_with("https://modelcontextprotocol.io/specification/")
                    );
                    assert!(!f.quote.is_empty());
                    // The text says what the check wanted, never a placeholder.
                    let text =
                        mcp_verdict::outputs::probe::render_text(&report, Default::default());
                    assert!(!text.contains("expected ?"), "{tag}");
                    assert!(!c.as_expected, "{tag}");
                    if check == "unmatched-input-responses" {
                        assert!(
                            text.contains("FINDING: expected a new input_required result, got"),
                            "{text}"
                        );
                    }
                } else {
                    assert!(
                        matches!(c.result, ActiveResult::Passed | ActiveResult::Skipped(_)),
                        "{tag}: {} {}: {:?}",
                        r.protocol,
                        c.check,
                        c.result
                    );
                    assert_eq!(
                        c.as_expected,
                        c.result == ActiveResult::Passed,
                        "{tag}: {} {}",
                        r.protocol,
                        c.check
                    );
                }
            }
        }
        // The normal calls are unaffected.
        assert!(report.exchanges().all(|x| !x.has_error_finding()), "{tag}");
        let want = if severity == Severity::Error { 1 } else { 0 };
        assert_eq!(report.exit_code(), want, "{tag}");
    }
}

/// A server that takes an altered requestState is not judged: integrity protection is
/// required only where the state matters, which cannot be seen from outside.
#[test]
fn an_altered_request_state_taken_is_not_judged() {
    let report = probe("lenient:request_state");
    let run = report.run(Protocol::V2026_07_28).unwrap();
    let c = run
        .active
        .iter()
        .find(|c| c.check == "tampered-state")
        .unwrap();
    assert!(
        matches!(&c.result, ActiveResult::NotJudged(w) if w.contains("integrity")),
        "{c:?}"
    );
    assert!(c.findings.is_empty());
    // No rule of the table: the check cites the spec sentence it tests.
    assert_eq!(c.rule, "");
    let cite = c.cite(Protocol::V2026_07_28).unwrap();
    assert!(
        cite.url
            .ends_with("2026-07-28/basic/patterns/mrtr#server-requirements-basic-workflow"),
        "{cite:?}"
    );
    assert!(
        cite.quote
            .contains("MUST reject state that fails verification")
    );
    assert_eq!(report.exit_code(), 0, "{}", summary(&report));
    // Against baseline the same retry is rejected: passed.
    let report = probe("baseline");
    let run = report.run(Protocol::V2026_07_28).unwrap();
    let c = run
        .active
        .iter()
        .find(|c| c.check == "tampered-state")
        .unwrap();
    assert_eq!(c.result, ActiveResult::Passed);
}

/// The active exchanges are recorded after the calls, re-judge offline to the engine's
/// findings, and carry no secret.
#[test]
fn active_exchanges_are_recorded_and_rejudge() {
    let report = probe("lenient:method_header");
    let dir = temp_dir("probe-active-record");
    let paths = report.write_records(&dir).unwrap();
    let active: Vec<_> = report
        .runs
        .iter()
        .flat_map(|r| r.active.iter())
        .filter(|c| c.exchange.is_some())
        .collect();
    // The calls, the active checks, then the setup's discovery exchanges.
    let discovery: usize = report.runs.iter().map(|r| r.discovery.len()).sum();
    assert_eq!(
        paths.len(),
        report.exchanges().count() + active.len() + discovery
    );
    let recorded = &paths[report.exchanges().count()..];
    for (path, c) in recorded.iter().zip(&active) {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        assert!(name.contains(&format!("active-{}", c.check)), "{name}");
        let text = std::fs::read_to_string(path).unwrap();
        assert!(!text.contains(SECRET), "{name} leaks the secret");
        let file = ExchangeFile::from_slice(text.as_bytes()).unwrap();
        let ex = file.to_exchange().unwrap();
        let j = judge(&ex, &Options::default()).unwrap();
        let (_, probe_j) = c.exchange.as_ref().unwrap();
        let ids = |j: &mcp_verdict::judge::Judgement<'_>| -> Vec<String> {
            j.verdicts[0]
                .findings
                .iter()
                .map(|f| f.rule.id.clone())
                .collect()
        };
        assert_eq!(ids(&j), ids(probe_j), "{name}");
        if c.check == "method-header" {
            assert!(ids(&j).contains(&"transport.http.header-mismatch-rejected".to_string()));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The checks whose rules depend on what the probe sent before (the session it left out or
/// ended, the input_required result a retry answers) record that context in their exchange
/// files, so that `check` on the recording reaches the probe's verdict: triggered against the
/// planted deviation, satisfied against baseline. The session id is redacted in the context
/// as in the header.
#[test]
fn context_dependent_checks_rejudge_from_their_recordings() {
    let cases = [
        (
            "lenient:session",
            Protocol::V2025_11_25,
            "missing-session",
            "transport.http.400-missing-session",
        ),
        (
            "lenient:ended_session",
            Protocol::V2025_11_25,
            "ended-session",
            "transport.http.404-ended-session",
        ),
        (
            "lenient:input_responses",
            Protocol::V2026_07_28,
            "unmatched-input-responses",
            "mrtr.missing-input-asked-again",
        ),
    ];
    let baseline = probe("baseline");
    for (scenario, p, check, rule) in cases {
        for (report, planted) in [(probe(scenario), true), (baseline.clone(), false)] {
            let tag = format!("{scenario} planted={planted} {check}");
            let dir = temp_dir("probe-active-context");
            let paths = report.write_records(&dir).unwrap();
            let path = paths
                .iter()
                .find(|p| p.to_string_lossy().contains(&format!("active-{check}")))
                .unwrap_or_else(|| panic!("{tag}: no recording in {paths:?}"));
            let text = std::fs::read_to_string(path).unwrap();
            let doc: Value = serde_json::from_str(&text).unwrap();
            if p == Protocol::V2025_11_25 {
                assert_eq!(doc["session"]["id"], "[REDACTED]", "{tag}: {text}");
                assert_eq!(
                    doc["session"]["ended"] == true,
                    check == "ended-session",
                    "{tag}"
                );
            } else {
                assert!(doc["retry"]["inputRequests"].is_object(), "{tag}: {text}");
            }
            let file = ExchangeFile::from_slice(text.as_bytes()).unwrap();
            let ex = file.to_exchange().unwrap();
            let j = judge(&ex, &Options::default()).unwrap();
            let v = &j.verdicts[0];
            assert_eq!(v.protocol, p);
            let table = mcp_verdict::Engine::builtin().table();
            let i = table
                .active(p)
                .iter()
                .position(|a| table.rule_of(a).id == rule)
                .unwrap();
            let c = report
                .run(p)
                .unwrap()
                .active
                .iter()
                .find(|c| c.check == check)
                .unwrap();
            if planted {
                assert_eq!(v.evaluations[i], EvalStatus::Triggered, "{tag}");
                assert!(
                    c.findings.iter().any(|f| f.rule == rule && f.by_engine),
                    "{tag}: {c:?}"
                );
            } else {
                assert_eq!(v.evaluations[i], EvalStatus::Passed, "{tag}");
                assert_eq!(c.result, ActiveResult::Passed, "{tag}");
            }
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
    // The altered-state retry records that the state was altered; no rule judges it.
    let report = probe("lenient:request_state");
    let dir = temp_dir("probe-active-context-state");
    let paths = report.write_records(&dir).unwrap();
    let path = paths
        .iter()
        .find(|p| p.to_string_lossy().contains("active-tampered-state"))
        .unwrap();
    let doc: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    assert_eq!(doc["retry"]["requestStateAltered"], true);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Without `--active` nothing of this is sent.
#[test]
fn passive_probes_send_no_active_request() {
    let server = start("baseline");
    let mut c = config(&server.url());
    c.active = false;
    let report = probe::run(&c).unwrap();
    server.shutdown();
    assert!(report.runs.iter().all(|r| r.active.is_empty()));
    assert!(
        report.runs.iter().flat_map(|r| &r.steps).all(|s| !s
            .note
            .as_deref()
            .unwrap_or("")
            .contains("active check"))
    );
}

/// Side effects: without `--allow-side-effects` and with only a tool that is not read-only
/// answering input_required, the MRTR checks are skipped, saying why; no check calls a
/// destructive tool.
#[test]
fn checks_that_would_run_a_tool_keep_to_the_call_policy() {
    let server = start("baseline");
    let mut c = config(&server.url());
    c.allow_side_effects = false;
    let report = probe::run(&c).unwrap();
    server.shutdown();
    let run = report.run(Protocol::V2026_07_28).unwrap();
    for check in ["tampered-state", "unmatched-input-responses"] {
        let a = run.active.iter().find(|a| a.check == check).unwrap();
        assert!(
            matches!(&a.result, ActiveResult::Skipped(w) if w.contains("readOnlyHint")),
            "{a:?}"
        );
    }
    let name = run
        .active
        .iter()
        .find(|a| a.check == "name-header")
        .unwrap();
    assert_eq!(name.result, ActiveResult::Passed);
    assert!(name.sent.contains("tools/call echo"), "{}", name.sent);
    for r in &report.runs {
        assert!(
            r.steps
                .iter()
                .filter(|s| s.note.as_deref().unwrap_or("").contains("active check"))
                .all(|s| s.tool.as_deref() != Some("create_order")),
        );
    }
}

/// The CLI: `--active` in the text report (check, result, rule) and in the JSON document
/// (rule, citation, expectation, result); a planted deviation exits 1.
#[test]
fn the_cli_reports_each_check_with_its_rule() {
    let server = start("baseline");
    let out = bin()
        .args(["probe", "--active", "--color", "never", &server.url()])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}");
    assert!(text.contains("-- active checks"), "{text}");
    assert!(
        text.contains(
            "passed: HTTP 400 with error -32022 (transport.http.400-unsupported-version)"
        ),
        "{text}"
    );
    let out = bin()
        .args(["probe", "--active", "--format", "json", &server.url()])
        .output()
        .unwrap();
    server.shutdown();
    let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
    let modern = doc["runs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["protocol"] == "2026-07-28")
        .unwrap();
    // `asExpected` never contradicts the result: a passed check got what it wants.
    for run in doc["runs"].as_array().unwrap() {
        for c in run["active"].as_array().unwrap() {
            if c["result"] == "passed" {
                assert_eq!(c["asExpected"], true, "{c}");
            }
        }
    }
    let retry = modern["active"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["check"] == "unmatched-input-responses");
    if let Some(retry) = retry.filter(|c| c["result"] != "skipped") {
        assert_eq!(retry["wants"], "a new input_required result", "{retry}");
    }
    let first = &modern["active"][0];
    assert_eq!(first["check"], "unsupported-version");
    assert_eq!(first["result"], "passed");
    assert_eq!(first["rule"], "transport.http.400-unsupported-version");
    assert_eq!(first["expected"], json!({"status": 400, "code": -32022}));
    assert!(
        first["cite"]["url"]
            .as_str()
            .unwrap()
            .ends_with("basic/transports/streamable-http#protocol-version-header")
    );
    assert!(
        first["cite"]["quote"]
            .as_str()
            .unwrap()
            .contains("MUST respond with 400")
    );

    let server = start("lenient:name_header");
    let out = bin()
        .args(["probe", "--active", "--color", "never", &server.url()])
        .output()
        .unwrap();
    server.shutdown();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("name-header"), "{text}");
    assert!(text.contains("FINDING"), "{text}");
    assert!(
        text.contains("transport.http.header-mismatch-rejected"),
        "{text}"
    );
}
