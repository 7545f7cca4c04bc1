//! The library side of `check`: coverage computation, baseline semantics, per-file checks.

use mcp_verdict::judge::EvalStatus;
use mcp_verdict::run::check::{
    self as report, Baseline, BaselineEntry, CheckOptions, FailureKind, FileResult, InputErrorKind,
    RevisionResult, RuleEval, Status,
};
use mcp_verdict::{Layer, Outcome, Protocol};
use rstest::rstest;

fn result(protocol: Protocol, evals: &[(&str, EvalStatus)]) -> RevisionResult {
    RevisionResult {
        protocol,
        status: Status::Pass,
        expected: None,
        expected_at: None,
        outcome: Outcome::ToolSuccess,
        layer: Layer::Application,
        summary: String::new(),
        decided_by: None,
        cited: Vec::new(),
        diff: None,
        failures: Vec::new(),
        findings: Vec::new(),
        omitted: Vec::new(),
        settings: Vec::new(),
        evaluations: evals
            .iter()
            .map(|(r, s)| RuleEval {
                rule: r.to_string(),
                status: *s,
            })
            .collect(),
    }
}

fn file(name: &str, results: Vec<RevisionResult>) -> FileResult {
    FileResult {
        file: name.to_string(),
        name: None,
        error: None,
        results,
        elapsed: Default::default(),
    }
}

use EvalStatus::{NotApplicable as N, Passed as P, Triggered as T};

#[test]
fn coverage_lists_triggering_and_satisfying_files_per_revision() {
    let v1 = Protocol::V2025_11_25;
    let v2 = Protocol::V2026_07_28;
    let files = vec![
        file(
            "b.json",
            vec![
                result(v1, &[("r1", T), ("r2", P)]),
                result(v2, &[("r1", P), ("r3", N)]),
            ],
        ),
        file("a.json", vec![result(v1, &[("r1", P), ("r2", P)])]),
        FileResult {
            error: Some(report::InputError {
                kind: InputErrorKind::Invalid,
                line: Some(1),
                column: Some(1),
                message: "x".into(),
            }),
            ..file("bad.json", vec![])
        },
    ];
    let c = report::coverage(&files);
    assert_eq!(c.revisions.len(), 2);
    let r1 = &c.revisions[0].rules[0];
    assert_eq!(r1.rule, "r1");
    assert_eq!(r1.triggered_by, ["b.json"]);
    assert_eq!(r1.satisfied_by, ["a.json"], "sorted, deduplicated");
    assert!(r1.is_complete());
    let r2 = &c.revisions[0].rules[1];
    assert_eq!(r2.satisfied_by, ["a.json", "b.json"]);
    assert_eq!(r2.lacks(), ["no triggering fixture"]);
    let r3 = &c.revisions[1].rules[1];
    assert_eq!(
        r3.lacks(),
        ["no triggering fixture", "no satisfying fixture"],
        "not applicable is not coverage"
    );
    let gaps: Vec<(Protocol, &str)> = c.gaps().map(|(p, r)| (p, r.rule.as_str())).collect();
    assert_eq!(gaps, [(v1, "r2"), (v2, "r1"), (v2, "r3")]);
    assert!(!c.is_complete());

    let full = vec![
        file("t.json", vec![result(v1, &[("r1", T)])]),
        file("s.json", vec![result(v1, &[("r1", P)])]),
    ];
    assert!(report::coverage(&full).is_complete());
    assert!(
        report::coverage(&[]).is_complete(),
        "no judged revision, no rule to cover"
    );
}

#[test]
fn coverage_of_the_test_corpus() {
    let run = report::run_check(&["tests/data/check/corpus/ok"], &CheckOptions::default()).unwrap();
    let c = report::coverage(&run.files);
    let rule = |p: &str, id: &str| {
        c.revisions
            .iter()
            .find(|r| r.protocol.as_str() == p)
            .unwrap()
            .rules
            .iter()
            .find(|r| r.rule == id)
            .unwrap()
            .clone()
    };
    let r = rule("2025-11-25", "http.status.non-2xx");
    assert_eq!(r.triggered_by, ["tests/data/check/corpus/ok/http-500.json"]);
    assert_eq!(
        r.satisfied_by,
        [
            "tests/data/check/corpus/ok/success-2025.json",
            "tests/data/check/corpus/ok/tool-error-both.json"
        ]
    );
    let r = rule("2026-07-28", "base.result-type.required");
    assert_eq!(
        r.triggered_by,
        ["tests/data/check/corpus/ok/tool-error-both.json"]
    );
    assert!(r.satisfied_by.is_empty());
    // Every rule active under a judged revision is listed.
    for rc in &c.revisions {
        assert_eq!(
            rc.rules.len(),
            mcp_verdict::Engine::builtin()
                .table()
                .active(rc.protocol)
                .len()
        );
    }
}

#[rstest]
#[case::not_an_array(r#"{"file": "a"}"#, "expected a JSON array")]
#[case::both(
    r#"[{"file": "a", "protocol": "2025-11-25", "rule": "x", "outcome": "TOOL_ERROR"}]"#,
    "exactly one"
)]
#[case::neither(r#"[{"file": "a", "protocol": "2025-11-25"}]"#, "exactly one")]
#[case::unknown_field(
    r#"[{"file": "a", "protocol": "2025-11-25", "rule": "x", "why": "y"}]"#,
    "unknown field `why`"
)]
#[case::unknown_revision(
    r#"[{"file": "a", "protocol": "2024-01-01", "rule": "x"}]"#,
    "2024-01-01"
)]
#[case::unknown_outcome(
    r#"[{"file": "a", "protocol": "2025-11-25", "outcome": "FINE"}]"#,
    "FINE"
)]
fn bad_baselines_are_rejected(#[case] text: &str, #[case] message: &str) {
    let e = Baseline::parse(text).unwrap_err();
    assert!(e.contains(message), "{e}");
}

#[test]
fn baseline_paths_are_normalised_and_rendering_is_sorted() {
    let b = Baseline::parse(r#"[{"file": ".\\dir\\b.json", "protocol": "2025-11-25", "rule": "x"}, {"file": "./a.json", "protocol": "2026-07-28", "outcome": "TOOL_ERROR"}]"#).unwrap();
    assert_eq!(b.entries[0].file, "dir/b.json");
    assert_eq!(b.entries[1].file, "a.json");
    assert_eq!(
        Baseline::render(&b.entries),
        "[\n  {\"file\":\"a.json\",\"protocol\":\"2026-07-28\",\"outcome\":\"TOOL_ERROR\"},\n  {\"file\":\"dir/b.json\",\"protocol\":\"2025-11-25\",\"rule\":\"x\"}\n]\n"
    );
    assert_eq!(Baseline::render(&[]), "[]\n");
    assert_eq!(
        Baseline::parse("[]\n").unwrap().entries,
        Vec::<BaselineEntry>::new()
    );
}

#[test]
fn baseline_application_and_staleness() {
    let mut run =
        report::run_check(&["tests/data/check/corpus/fail"], &CheckOptions::default()).unwrap();
    assert_eq!(run.exit_code(false), 1);
    let entries = run.baseline_entries();
    let kinds: Vec<FailureKind> = run.files[0].results[0]
        .failures
        .iter()
        .map(|x| x.kind)
        .collect();
    assert_eq!(
        kinds,
        [
            FailureKind::Outcome,
            FailureKind::Missing,
            FailureKind::Unexpected
        ]
    );
    assert_eq!(entries.len(), 3);
    run.apply_baseline(Some(&Baseline {
        entries: entries.clone(),
    }));
    assert_eq!(run.files[0].results[0].status, Status::Baselined);
    assert_eq!(run.exit_code(false), 0);
    // An extra entry for the judged file that matches nothing is stale.
    let mut more = entries.clone();
    more.push(BaselineEntry {
        file: "tests/data/check/corpus/fail/mismatch.json".into(),
        protocol: Protocol::V2025_11_25,
        rule: Some("jsonrpc.version".into()),
        outcome: None,
    });
    run.apply_baseline(Some(&Baseline { entries: more }));
    assert_eq!(run.stale.len(), 1);
    assert_eq!(run.exit_code(false), 1);
    // Under another revision the file was not judged: not stale.
    let other = vec![BaselineEntry {
        file: "tests/data/check/corpus/fail/mismatch.json".into(),
        protocol: Protocol::V2026_07_28,
        rule: Some("jsonrpc.version".into()),
        outcome: None,
    }];
    run.apply_baseline(Some(&Baseline { entries: other }));
    assert!(run.stale.is_empty());
    assert_eq!(run.files[0].results[0].status, Status::Fail);
    run.apply_baseline(None);
    assert_eq!(run.exit_code(false), 1);
}

#[rstest]
#[case::no_revision(
    r#"{"request": {"body": {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}}}, "response": {"status": 200}}"#,
    InputErrorKind::NoRevision, None, "cannot tell which protocol revision"
)]
#[case::two_bodies(
    "{\"protocol\": \"2025-11-25\",\n \"response\": {\"status\": 200, \"body\": \"{}\", \"body_json\": {}}}",
    InputErrorKind::Invalid, Some((2, 14)), "only one of"
)]
#[case::unknown_key_in_rules(
    "{\"protocol\": \"2025-11-25\", \"response\": {\"status\": 200},\n \"expect\": {\"2025-11-25\": {\"outcome\": \"TOOL_SUCCESS\",\n   \"rules\": [\"jsonrpc.version\", \"nope\"]}}}",
    InputErrorKind::Invalid, Some((3, 33)), "expect.2025-11-25.rules: `nope`"
)]
#[case::unknown_outcome(
    "{\"protocol\": \"2025-11-25\", \"response\": {\"status\": 200},\n \"expect\": {\"all\": {\"outcome\": \"FINE\"}}}",
    InputErrorKind::Invalid, Some((2, 37)), "FINE"
)]
fn invalid_files_name_the_problem_and_position(
    #[case] text: &str,
    #[case] kind: InputErrorKind,
    #[case] at: Option<(usize, usize)>,
    #[case] message: &str,
) {
    let r = report::check_bytes("x.json", text.as_bytes(), &CheckOptions::default());
    let e = r.error.expect("not judged");
    assert_eq!(e.kind, kind);
    assert_eq!(e.line.zip(e.column), at, "{}", e.message);
    assert!(e.message.contains(message), "{}", e.message);
    assert!(r.results.is_empty());
}

#[test]
fn revisions_come_from_protocol_and_expect_keys_or_the_command_line() {
    let text = r#"{"protocol": "2025-11-25",
      "request": {"body": {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}}},
      "response": {"status": 500},
      "expect": {"2026-07-28": {"outcome": "HTTP_ERROR"}}}"#;
    let r = report::check_bytes("x.json", text.as_bytes(), &CheckOptions::default());
    let revs: Vec<(Protocol, Status)> = r.results.iter().map(|x| (x.protocol, x.status)).collect();
    assert_eq!(
        revs,
        [
            (Protocol::V2025_11_25, Status::Ok),
            (Protocol::V2026_07_28, Status::Pass)
        ],
        "the protocol field and the expect keys both name revisions"
    );
    let options = CheckOptions {
        protocols: Some(vec![Protocol::V2025_11_25]),
        ..CheckOptions::default()
    };
    let r = report::check_bytes("x.json", text.as_bytes(), &options);
    assert_eq!(r.results.len(), 1);
    assert_eq!(r.results[0].protocol, Protocol::V2025_11_25);
    // `all` alone, with no revision recorded anywhere: every revision.
    let text = r#"{"request": {"body": {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "x"}}},
      "response": {"status": 500}, "expect": {"all": {"outcome": "HTTP_ERROR"}}}"#;
    let r = report::check_bytes("x.json", text.as_bytes(), &CheckOptions::default());
    assert_eq!(r.results.len(), 2);
    assert!(r.results.iter().all(|x| x.status == Status::Pass));
}

#[test]
fn expected_findings_are_marked_and_do_not_fail() {
    let run = report::run_check(
        &["tests/data/check/corpus/ok/tool-error-both.json"],
        &CheckOptions::default(),
    )
    .unwrap();
    let r = &run.files[0].results[1];
    assert_eq!(r.protocol, Protocol::V2026_07_28);
    assert_eq!(r.status, Status::Pass);
    let marked: Vec<(&str, bool)> = r
        .findings
        .iter()
        .map(|f| (f.finding.rule.as_str(), f.expected))
        .filter(|(rule, _)| {
            *rule == "base.result-type.required" || *rule == "transport.http.400-missing-meta"
        })
        .collect();
    assert_eq!(
        marked,
        [
            ("transport.http.400-missing-meta", false),
            ("base.result-type.required", true)
        ]
    );
    // strict: the unlisted error finding fails it, the listed one does not.
    let strict = CheckOptions {
        strict: true,
        ..CheckOptions::default()
    };
    let run = report::run_check(
        &["tests/data/check/corpus/ok/tool-error-both.json"],
        &strict,
    )
    .unwrap();
    let r = &run.files[0].results[1];
    assert_eq!(r.status, Status::Fail);
    assert_eq!(
        r.diff.as_ref().unwrap().unlisted,
        ["transport.http.400-missing-meta"]
    );
}

#[test]
fn collect_files_walks_directories_and_rejects_empty_matches() {
    let files = report::collect_files(&[
        "tests/data/check/corpus/ok",
        "./tests/data/check/corpus/ok/http-500.json",
    ])
    .unwrap();
    let shown: Vec<String> = files
        .iter()
        .map(|p| p.display().to_string().replace('\\', "/"))
        .collect();
    assert_eq!(shown.len(), 3, "{shown:?}");
    assert!(matches!(
        report::collect_files(&["tests/data/check/corpus/zz*.json"]),
        Err(report::CorpusError::NothingMatched(_))
    ));
    assert_eq!(
        report::collect_files::<&str>(&[]),
        Err(report::CorpusError::NoPaths)
    );
}
