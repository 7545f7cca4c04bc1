//! `mcp-verdict check` from the outside: exit codes, the diff text, output pairing, baselines,
//! coverage and determinism. Fixtures are under `tests/data/check/corpus/`.

use std::path::PathBuf;
use std::process::Output;
use std::sync::LazyLock;

use rstest::rstest;

use crate::support::cli::{bin, run};
use crate::support::temp::temp_dir;

const D: &str = "tests/data/check/corpus";

fn check(args: &[&str]) -> Output {
    check_env(args, &[])
}

fn check_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = bin();
    c.arg("check").args(args).env_remove("NO_COLOR");
    for (k, v) in env {
        c.env(k, v);
    }
    run(&mut c, None)
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

fn tmp(name: &str) -> PathBuf {
    static DIR: LazyLock<PathBuf> = LazyLock::new(|| temp_dir("check-cli"));
    DIR.join(name)
}

#[rstest]
#[case::all_expectations_met(&["tests/data/check/corpus/ok"], 0)]
#[case::glob(&["tests/data/check/corpus/ok/*.json"], 0)]
#[case::recursive_glob(&["tests/data/check/corpus/**/success-*.json"], 0)]
#[case::mismatch(&["tests/data/check/corpus/fail"], 1)]
#[case::conformant_without_expect(&["tests/data/check/corpus/conformance/clean-2025.json"], 0)]
#[case::error_finding_without_expect(&["tests/data/check/corpus/conformance/missing-result-type.json"], 1)]
#[case::fail_on_never(&["tests/data/check/corpus/conformance/missing-result-type.json", "--fail-on", "never"], 0)]
#[case::fail_on_info(&["tests/data/check/corpus/conformance/clean-2025.json", "--fail-on", "info"], 0)]
#[case::strict_unlisted_error_finding(&["tests/data/check/corpus/ok/tool-error-both.json", "--strict"], 1)]
#[case::strict_with_listed_findings_only(&["tests/data/check/corpus/ok/success-2025.json", "--strict"], 0)]
#[case::protocol_override(&["tests/data/check/corpus/ok/success-2025.json", "--protocol", "all"], 0)]
#[case::invalid_syntax(&["tests/data/check/corpus/invalid/syntax.json"], 3)]
#[case::unknown_expect_key(&["tests/data/check/corpus/invalid/unknown-expect-key.json"], 3)]
#[case::unknown_rule_id(&["tests/data/check/corpus/invalid/unknown-rule.json"], 3)]
#[case::missing_file(&["tests/data/check/corpus/no-such-file.json"], 3)]
#[case::invalid_beats_mismatch(&["tests/data/check/corpus"], 3)]
#[case::glob_matching_nothing(&["tests/data/check/corpus/nothing-*.json"], 2)]
#[case::bad_revision(&["tests/data/check/corpus/ok", "--protocol", "1999-01-01"], 2)]
#[case::two_formats_on_stdout(&["tests/data/check/corpus/ok", "--format", "text,json"], 2)]
#[case::github_format(&["tests/data/check/corpus/fail", "--format", "github"], 1)]
#[case::gitlab_format(&["tests/data/check/corpus/ok", "--format", "gitlab"], 0)]
#[case::root_not_a_directory(&["tests/data/check/corpus/ok", "--root", "Cargo.toml"], 2)]
#[case::quiet_and_verbose(&["tests/data/check/corpus/ok", "-q", "-v"], 2)]
#[case::output_before_format(&["tests/data/check/corpus/ok", "--output", "x.json", "--format", "json"], 2)]
#[case::no_paths(&[], 2)]
#[case::coverage_gaps(&["tests/data/check/corpus/ok", "--coverage"], 1)]
#[case::unreadable_baseline(&["tests/data/check/corpus/ok", "--baseline", "tests/data/check/no-such-baseline.json"], 2)]
fn exit_codes(#[case] args: &[&str], #[case] code: i32) {
    let o = check(args);
    assert_eq!(
        o.status.code(),
        Some(code),
        "{args:?}\nstdout:\n{}\nstderr:\n{}",
        stdout(&o),
        stderr(&o)
    );
}

#[test]
fn the_diff_names_outcome_missing_and_unexpected_rules() {
    let o = check(&[&format!("{D}/fail/mismatch.json")]);
    let out = stdout(&o);
    let expected = "\
FAIL      tests/data/check/corpus/fail/mismatch.json:13:19  [2025-11-25]  INVALID_TOOL_RESULT
    - outcome TOOL_SUCCESS
    + outcome INVALID_TOOL_RESULT (decided by content.block.fields)
    - rule tools.result.is-error (expected to be cited or found; it is not)
    + rule content.block.fields (listed in absent; it is found)
    error tests/data/check/corpus/fail/mismatch.json:10:69: $.result.content[0].text: \"text\" is a required property  [error content.block.fields]
";
    assert!(out.starts_with(expected), "{out}");
    assert!(
        out.ends_with("check failed: 1 file, 1 result: 1 failed\n"),
        "{out}"
    );
    assert_eq!(
        stderr(&o),
        "",
        "no progress bar or noise when stderr is not a terminal"
    );
}

#[test]
fn invalid_files_are_reported_apart_with_line_and_column() {
    let o = check(&[D]);
    let out = stdout(&o);
    let (judged, rest) = out
        .split_once("Unreadable or invalid files (not judged):")
        .expect("a section of its own");
    assert!(!judged.contains("syntax.json"));
    assert!(
        rest.contains("tests/data/check/corpus/invalid/syntax.json:4:3: trailing comma"),
        "{rest}"
    );
    assert!(rest.contains("tests/data/check/corpus/invalid/unknown-expect-key.json:5:19: expect: unknown key `2024-01-01`"), "{rest}");
    assert!(rest.contains("tests/data/check/corpus/invalid/unknown-rule.json:5:51: expect.all.absent: `no.such.rule`"), "{rest}");
    // Without text on stdout, they still reach the terminal.
    let o = check(&[D, "--format", "json"]);
    let err = stderr(&o);
    assert!(
        err.contains("tests/data/check/corpus/invalid/syntax.json:4:3:"),
        "{err}"
    );
    assert!(err.contains("3 unreadable or invalid files"), "{err}");
}

#[test]
fn outputs_pair_with_the_format_before_them() {
    let junit = tmp("pair.xml");
    let md = tmp("pair.md");
    let o = check(&[
        &format!("{D}/ok"),
        "--format",
        "junit",
        "--output",
        junit.to_str().unwrap(),
        "--format",
        "markdown",
        "--output",
        md.to_str().unwrap(),
        "--format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        std::fs::read_to_string(&junit)
            .unwrap()
            .starts_with("<?xml")
    );
    assert!(
        std::fs::read_to_string(&md)
            .unwrap()
            .starts_with("## ✅ mcp-verdict check")
    );
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["exit_code"], 0);
    // A comma list: the output belongs to the last format listed before it.
    let sarif = tmp("pair.sarif");
    let o = check(&[
        &format!("{D}/ok"),
        "--format",
        "text,sarif",
        "--output",
        sarif.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("check passed"));
    assert!(
        std::fs::read_to_string(&sarif)
            .unwrap()
            .contains("\"2.1.0\"")
    );
}

fn write(name: &str, text: &str) -> PathBuf {
    let p = tmp(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn baseline_lists_known_failures_and_stale_entries_fail() {
    let full = write(
        "baseline-full.json",
        r#"[
  {"file": "./tests/data/check/corpus/fail/mismatch.json", "protocol": "2025-11-25", "outcome": "INVALID_TOOL_RESULT"},
  {"file": "tests/data/check/corpus/fail/mismatch.json", "protocol": "2025-11-25", "rule": "tools.result.is-error"},
  {"file": "tests/data/check/corpus/fail/mismatch.json", "protocol": "2025-11-25", "rule": "content.block.fields"},
  {"file": "tests/data/check/corpus/conformance/missing-result-type.json", "protocol": "2026-07-28", "rule": "base.result-type.required"},
  {"file": "tests/data/check/corpus/conformance/missing-result-type.json", "protocol": "2026-07-28", "rule": "transport.http.400-missing-meta"},
  {"file": "tests/data/check/corpus/elsewhere.json", "protocol": "2025-11-25", "rule": "tools.result.complete"}
]"#,
    );
    let args = [
        "tests/data/check/corpus/fail",
        "tests/data/check/corpus/conformance",
        "--baseline",
        full.to_str().unwrap(),
    ];
    let o = check(&args);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(
        out.contains("BASELINED tests/data/check/corpus/fail/mismatch.json:13:19  [2025-11-25]"),
        "{out}"
    );
    assert!(out.contains("listed in the baseline: outcome INVALID_TOOL_RESULT, tools.result.is-error, content.block.fields"), "{out}");
    assert!(
        !out.contains("STALE"),
        "an entry for a file not judged is not stale: {out}"
    );

    // One failure not listed: the run fails.
    let partial = write(
        "baseline-partial.json",
        r#"[{"file": "tests/data/check/corpus/fail/mismatch.json", "protocol": "2025-11-25", "outcome": "INVALID_TOOL_RESULT"}]"#,
    );
    let o = check(&[
        "tests/data/check/corpus/fail",
        "--baseline",
        partial.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("FAIL      tests/data/check/corpus/fail/mismatch.json"));

    // An entry that now passes is stale and fails the run.
    let stale = write(
        "baseline-stale.json",
        r#"[{"file": "tests/data/check/corpus/ok/success-2025.json", "protocol": "2025-11-25", "rule": "tools.result.complete"},
            {"file": "tests/data/check/corpus/fail/mismatch.json", "protocol": "2025-11-25", "outcome": "TOOL_ERROR"}]"#,
    );
    let o = check(&[
        "tests/data/check/corpus/ok/success-2025.json",
        "tests/data/check/corpus/fail",
        "--baseline",
        stale.to_str().unwrap(),
    ]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(out.contains("STALE tests/data/check/corpus/ok/success-2025.json [2025-11-25] rule tools.result.complete"), "{out}");
    assert!(
        out.contains(
            "STALE tests/data/check/corpus/fail/mismatch.json [2025-11-25] outcome TOOL_ERROR"
        ),
        "{out}"
    );
    assert!(out.contains("2 stale baseline entries"), "{out}");

    // A malformed baseline is a usage error.
    let bad = write(
        "baseline-bad.json",
        r#"[{"file": "a.json", "protocol": "2025-11-25"}]"#,
    );
    let o = check(&[
        "tests/data/check/corpus/ok",
        "--baseline",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("exactly one of `rule` and `outcome`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn write_baseline_round_trips() {
    let written = tmp("baseline-written.json");
    let args = [
        "tests/data/check/corpus/fail",
        "tests/data/check/corpus/conformance",
        "--write-baseline",
        written.to_str().unwrap(),
    ];
    let o = check(&args);
    assert_eq!(
        o.status.code(),
        Some(0),
        "written failures do not fail this run: {}",
        stdout(&o)
    );
    let text = std::fs::read_to_string(&written).unwrap();
    assert_eq!(
        text,
        r#"[
  {"file":"tests/data/check/corpus/conformance/missing-result-type.json","protocol":"2026-07-28","rule":"base.result-type.required"},
  {"file":"tests/data/check/corpus/conformance/missing-result-type.json","protocol":"2026-07-28","rule":"transport.http.400-missing-meta"},
  {"file":"tests/data/check/corpus/fail/mismatch.json","protocol":"2025-11-25","outcome":"INVALID_TOOL_RESULT"},
  {"file":"tests/data/check/corpus/fail/mismatch.json","protocol":"2025-11-25","rule":"content.block.fields"},
  {"file":"tests/data/check/corpus/fail/mismatch.json","protocol":"2025-11-25","rule":"tools.result.is-error"}
]
"#
    );
    let o = check(&[
        "tests/data/check/corpus/fail",
        "tests/data/check/corpus/conformance",
        "--baseline",
        written.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}

#[test]
fn coverage_lists_rules_with_their_fixtures() {
    let o = check(&["tests/data/check/corpus/ok", "--coverage"]);
    let out = stdout(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(out.contains("coverage 2025-11-25"), "{out}");
    assert!(out.contains("coverage 2026-07-28"), "{out}");
    let line = out
        .lines()
        .find(|l| l.contains("tools.result.is-error ") && l.contains("MISS"))
        .or_else(|| out.lines().find(|l| l.contains(" tools.result.is-error ")))
        .unwrap();
    assert!(line.contains("triggered by   1"), "{line}");
    assert!(
        out.contains("triggered: tests/data/check/corpus/ok/tool-error-both.json"),
        "{out}"
    );
    assert!(out.contains("(no triggering fixture)"), "{out}");
    assert!(
        out.contains("rules lack a triggering or a satisfying fixture"),
        "{out}"
    );
}

#[rstest]
fn output_is_deterministic_across_runs_and_thread_counts(
    #[values(
        "text", "json", "ndjson", "markdown", "junit", "sarif", "html", "github", "gitlab"
    )]
    format: &str,
) {
    let args = [D, "--format", format, "--coverage"];
    let a = check_env(&args, &[("RAYON_NUM_THREADS", "1")]);
    let b = check_env(&args, &[("RAYON_NUM_THREADS", "4")]);
    let c = check(&args);
    assert_eq!(a.status.code(), Some(3));
    assert!(!a.stdout.is_empty());
    // JUnit carries how long each file took (`time`): everything else is the same.
    let strip = |o: &Output| {
        let s = stdout(o);
        if format != "junit" {
            return s;
        }
        s.split(" time=\"")
            .enumerate()
            .map(|(i, part)| {
                if i == 0 {
                    part.to_string()
                } else {
                    part[part.find('"').unwrap() + 1..].to_string()
                }
            })
            .collect::<Vec<_>>()
            .join(" time=\"T\"")
    };
    assert_eq!(strip(&a), strip(&b), "{format}: 1 vs 4 threads");
    assert_eq!(strip(&b), strip(&c), "{format}: twice");
}

#[test]
fn no_color_when_piped_or_no_color_set() {
    let o = check_env(&[&format!("{D}/fail")], &[("NO_COLOR", "1")]);
    assert!(!stdout(&o).contains('\x1b'));
    let o = check(&[&format!("{D}/fail")]);
    assert!(!stdout(&o).contains('\x1b'), "stdout is a pipe");
}

#[test]
fn help_documents_exit_codes_and_pairing() {
    let o = check(&["--help"]);
    let out = stdout(&o);
    assert!(
        out.contains("Exit status:\n  0  all as expected\n  1  "),
        "{out}"
    );
    assert!(
        out.contains("each --output FILE belongs to the --format value just before it"),
        "{out}"
    );
}
