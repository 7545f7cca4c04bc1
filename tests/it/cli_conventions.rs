//! What users of ruff, cargo or check-jsonschema expect of a command line: `--color`,
//! `NO_COLOR` and `CLICOLOR_FORCE`, shell completions, `-` for stdin, `file:line:col`
//! locations, `--quiet`, no progress bar on a pipe, exit statuses in every `--help`,
//! GitHub workflow commands and a job summary.

use std::process::Output;

use rstest::rstest;

use crate::support::cli::{bin, run};
use crate::support::temp::temp_dir;

const FAIL: &str = "tests/data/check/corpus/fail/mismatch.json";

fn cmd(args: &[&str], env: &[(&str, &str)], stdin: Option<&[u8]>) -> Output {
    let mut c = bin();
    c.args(args)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("GITHUB_STEP_SUMMARY");
    for (k, v) in env {
        c.env(k, v);
    }
    run(&mut c, stdin)
}

fn out(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn err(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

#[rstest]
#[case::auto_on_a_pipe(&["--color", "auto"], &[], false)]
#[case::default_on_a_pipe(&[], &[], false)]
#[case::always(&["--color", "always"], &[], true)]
#[case::always_beats_no_color(&["--color", "always"], &[("NO_COLOR", "1")], true)]
#[case::clicolor_force(&[], &[("CLICOLOR_FORCE", "1")], true)]
#[case::clicolor_force_zero(&[], &[("CLICOLOR_FORCE", "0")], false)]
#[case::no_color_beats_clicolor_force(&[], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")], false)]
#[case::never_beats_clicolor_force(&["--color", "never"], &[("CLICOLOR_FORCE", "1")], false)]
fn color_choice(#[case] flags: &[&str], #[case] env: &[(&str, &str)], #[case] colour: bool) {
    for command in [
        vec!["check", FAIL],
        vec![
            "classify",
            "examples/exchanges/legacy-result-without-result-type.json",
            "--protocol",
            "all",
        ],
        vec!["rules", "transport.sse.final-response"],
    ] {
        let mut args = command.clone();
        args.extend_from_slice(flags);
        let o = cmd(&args, env, None);
        assert_eq!(
            out(&o).contains('\x1b'),
            colour,
            "{args:?} {env:?}\n{}",
            out(&o)
        );
    }
}

#[rstest]
#[case::bash("bash", "complete -F")]
#[case::zsh("zsh", "#compdef mcp-verdict")]
#[case::fish("fish", "complete -c mcp-verdict")]
#[case::powershell("powershell", "Register-ArgumentCompleter")]
#[case::elvish("elvish", "edit:completion:arg-completer")]
fn completions(#[case] shell: &str, #[case] marker: &str) {
    let o = cmd(&["completions", shell], &[], None);
    assert_eq!(o.status.code(), Some(0));
    let s = out(&o);
    assert!(s.contains(marker), "{s}");
    for word in ["classify", "check", "fail-on", "protocol"] {
        assert!(s.contains(word), "{shell}: {word}");
    }
    assert_eq!(
        cmd(&["completions", "tcsh"], &[], None).status.code(),
        Some(2)
    );
}

#[test]
fn every_help_states_its_exit_statuses() {
    for command in [
        "classify",
        "check",
        "rules",
        "serve",
        "probe",
        "completions",
    ] {
        let o = cmd(&[command, "--help"], &[], None);
        let s = out(&o);
        assert!(s.contains("Exit status:\n  0  "), "{command}:\n{s}");
    }
    let s = out(&cmd(&["--help"], &[], None));
    for line in ["  0  ", "  1  ", "  2  ", "  3  "] {
        assert!(s.contains(line), "{s}");
    }
}

#[test]
fn check_reads_paths_or_one_exchange_from_stdin() {
    // A list of paths, one per line (blank lines ignored).
    let list = format!("{FAIL}\n\ntests/data/check/corpus/ok/success-2025.json\n");
    let o = cmd(
        &["check", "-", "--format", "json"],
        &[],
        Some(list.as_bytes()),
    );
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    let doc: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(doc["summary"]["files"], 2);
    // NUL-separated, as `find -print0` writes.
    let list = format!("{FAIL}\0tests/data/check/corpus/ok/success-2025.json\0");
    let o = cmd(
        &["check", "-", "--format", "json"],
        &[],
        Some(list.as_bytes()),
    );
    let doc: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    assert_eq!(doc["summary"]["files"], 2);
    // One exchange.
    let bytes = std::fs::read(FAIL).unwrap();
    let o = cmd(&["check", "-"], &[], Some(&bytes));
    assert_eq!(o.status.code(), Some(1));
    assert!(
        out(&o).starts_with("FAIL      -:13:19  [2025-11-25]"),
        "{}",
        out(&o)
    );
    // Not a file named "-".
    let o = cmd(&["check", "-"], &[], Some(b""));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err(&o).contains("stdin holds no paths and no exchange"),
        "{}",
        err(&o)
    );
    let o = cmd(&["check", "-", FAIL], &[], Some(b""));
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn text_locations_are_file_line_column() {
    let o = cmd(&["check", FAIL], &[], None);
    let s = out(&o);
    let line = s
        .lines()
        .find(|l| l.contains("content.block.fields]"))
        .unwrap();
    assert!(
        line.contains("mismatch.json:10:69: $.result.content[0].text: "),
        "{line}"
    );
    // Files not judged: line and column are 1-based, even for an empty file.
    let d = temp_dir("cli-empty");
    std::fs::write(d.join("empty.json"), b"").unwrap();
    let o = cmd(&["check", d.to_str().unwrap()], &[], None);
    assert_eq!(o.status.code(), Some(3));
    assert!(out(&o).contains("empty.json:1:1: EOF"), "{}", out(&o));
    assert!(!out(&o).contains(":1:0"), "{}", out(&o));
}

#[test]
fn quiet_shows_failures_only() {
    let o = cmd(
        &["check", "tests/data/check/corpus/fail", "--quiet"],
        &[],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    let s = out(&o);
    assert!(s.starts_with("FAIL "), "{s}");
    assert!(!s.contains("conformance"), "{s}");
    assert!(!s.contains("check failed"), "{s}");
    let o = cmd(
        &[
            "check",
            "tests/data/check/corpus/ok",
            "-q",
            "--format",
            "json",
            "--output",
            "-",
        ],
        &[],
        None,
    );
    assert_eq!(o.status.code(), Some(0));
    let o = cmd(
        &[
            "check",
            "tests/data/check/corpus/ok",
            "-q",
            "--format",
            "json",
            "--output",
            temp_dir("cli-quiet").join("r.json").to_str().unwrap(),
        ],
        &[],
        None,
    );
    assert_eq!(err(&o), "", "no summary line with --quiet");
}

#[test]
fn no_progress_bar_on_a_pipe() {
    // stderr is a pipe here: neither the bar nor its escape sequences appear.
    let lines = std::fs::read_to_string("examples/jsonl/calls.jsonl").unwrap();
    let o = cmd(&["classify", "--jsonl", "-"], &[], Some(lines.as_bytes()));
    assert_eq!(err(&o), "");
    let o = cmd(
        &[
            "check",
            "tests/fixtures",
            "--format",
            "json",
            "--output",
            "-",
        ],
        &[],
        None,
    );
    let e = err(&o);
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.starts_with("mcp-verdict check: "), "{e}");
    assert!(!e.contains('\r') && !e.contains('\x1b'), "{e}");
}

#[test]
fn github_annotations_and_job_summary() {
    let summary = temp_dir("cli-github").join("summary.md");
    std::fs::write(&summary, "earlier step\n").unwrap();
    let o = cmd(
        &[
            "check",
            "tests/data/check/corpus/fail",
            "--format",
            "github",
        ],
        &[("GITHUB_STEP_SUMMARY", summary.to_str().unwrap())],
        None,
    );
    assert_eq!(o.status.code(), Some(1));
    let s = out(&o);
    assert!(
        s.contains("::error file=tests/data/check/corpus/fail/mismatch.json,line=10,col=69,title=content.block.fields::2025-11-25: $.result.content[0].text: \"text\" is a required property (the file lists this rule in `absent`) (https://"),
        "{s}"
    );
    assert!(
        s.contains("::error file=tests/data/check/corpus/fail/mismatch.json,line=13,col=19,title=mcp-verdict/expectation::2025-11-25: expected outcome TOOL_SUCCESS, got INVALID_TOOL_RESULT"),
        "{s}"
    );
    assert_eq!(
        s.lines().filter(|l| l.starts_with("::error ")).count(),
        3,
        "{s}"
    );
    let md = std::fs::read_to_string(&summary).unwrap();
    assert!(
        md.starts_with("earlier step\n## ❌ mcp-verdict check"),
        "{md}"
    );
}

#[test]
fn root_makes_paths_relative() {
    let root = std::fs::canonicalize("tests/data/check").unwrap();
    let o = cmd(
        &[
            "check",
            FAIL,
            "--root",
            root.to_str().unwrap(),
            "--format",
            "sarif",
        ],
        &[],
        None,
    );
    let log: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    let loc = &log["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(loc["uri"], "corpus/fail/mismatch.json");
    assert_eq!(loc["uriBaseId"], "%SRCROOT%");
    let base = log["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]["uri"]
        .as_str()
        .unwrap();
    assert!(
        base.starts_with("file:///") && base.ends_with("/tests/data/check/"),
        "{base}"
    );
    // A file outside the root keeps its absolute path (a file: URI in SARIF).
    let o = cmd(
        &[
            "check",
            "tests/data/check/corpus/ok/success-2025.json",
            "--root",
            root.join("corpus/fail").to_str().unwrap(),
            "--format",
            "json",
        ],
        &[],
        None,
    );
    let doc: serde_json::Value = serde_json::from_str(&out(&o)).unwrap();
    assert!(
        doc["files"][0]["file"].as_str().unwrap().starts_with('/'),
        "{doc}"
    );
}
