//! `classify` as its users meet it: a file that is not an exchange file is named for what it is,
//! with the command that judges it; a position is given once; several files are judged in
//! turn with a closing summary line; findings are placed at `file:line:col`; the outcome is
//! coloured by the worst finding.

use std::path::Path;

use rstest::rstest;

use crate::support::cli::{bin, run};
use crate::support::temp::temp_dir;

const LEGACY: &str = "examples/exchanges/legacy-result-without-result-type.json";

fn classify(args: &[&str]) -> (i32, String, String) {
    let out = run(bin().arg("classify").arg("--isolated").args(args), None);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Each mistake, the file that makes it, and the start of the one message it gets.
#[rstest]
#[case::a_har_capture(
    "capture.json",
    r#"{"log": {"version": "1.2", "entries": []}}"#,
    "capture.json: is a HAR capture, not an exchange file: judge its tools/call entries with `mcp-verdict classify --har "
)]
#[case::json_lines(
    "calls.json",
    "{\"response\": {\"status\": 200}}\n{\"response\": {\"status\": 500}}\n",
    "calls.json: holds one JSON value per line, not an exchange file: judge it with `mcp-verdict classify --jsonl "
)]
#[case::a_bare_json_rpc_response(
    "response.json",
    r#"{"jsonrpc": "2.0", "id": 1, "result": {"content": []}}"#,
    "response.json: is a bare JSON-RPC message, not an exchange file: record it as an exchange, the request in `request.body` and this message in `response.body_json`"
)]
#[case::a_position_given_once(
    "broken.json",
    "{\n  \"response\": {\"status\": x}\n}\n",
    "broken.json: not a valid exchange file: line 2, column 26: expected value (the exchange file itself must be valid JSON"
)]
fn a_file_that_is_not_an_exchange_is_named_for_what_it_is(
    #[case] name: &str,
    #[case] text: &str,
    #[case] message: &str,
) {
    let dir = temp_dir("classify-misfiled");
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    let (code, _, stderr) = classify(&[path.to_str().unwrap()]);
    assert_eq!(code, 3, "{stderr}");
    let shown = stderr.replace(&format!("{}/", dir.display()), "");
    assert!(
        shown.starts_with(&format!("mcp-verdict: {message}")),
        "got:  {shown}want: mcp-verdict: {message}"
    );
    assert_eq!(shown.lines().count(), 1, "{shown}");
    assert!(
        !shown.contains(" at line "),
        "one position per message: {shown}"
    );
}

#[test]
fn a_directory_is_sent_to_check() {
    let (code, _, stderr) = classify(&["examples"]);
    assert_eq!(code, 3);
    assert_eq!(
        stderr.trim_end(),
        "mcp-verdict: examples: is a directory; judge the exchange files in it with `mcp-verdict check examples`"
    );
}

#[test]
fn several_files_are_judged_in_turn_with_a_summary_line() {
    let stream = "examples/exchanges/stream-closed-before-result.json";
    let (code, stdout, _) = classify(&[LEGACY, stream, "--protocol", "all"]);
    assert_eq!(code, 1, "the legacy example has an error finding");
    assert!(stdout.contains(LEGACY) && stdout.contains(stream));
    assert_eq!(
        stdout.lines().last().unwrap(),
        "4 verdicts (2 files): 1 with errors, 1 with warnings, 2 without errors or warnings; exit 1"
    );
    // A file that cannot be read does not stop the others, and decides the exit status.
    let (code, stdout, stderr) = classify(&[stream, "no-such-file.json"]);
    assert_eq!(code, 3);
    assert!(stderr.contains("cannot read no-such-file.json"), "{stderr}");
    assert!(
        stdout.ends_with("; 1 file not judged (see above); exit 3\n"),
        "{stdout}"
    );
    // JSON: an array of the documents one file gives.
    let (_, json, _) = classify(&[LEGACY, stream, "--format", "json"]);
    let docs: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(docs.as_array().unwrap().len(), 2);
    assert_eq!(docs[1]["exchange"], stream);
    let (_, one, _) = classify(&[LEGACY, "--format", "json"]);
    assert!(serde_json::from_str::<serde_json::Value>(&one).unwrap()["verdicts"].is_array());
}

#[test]
fn findings_are_placed_at_file_line_col() {
    let (_, stdout, _) = classify(&[LEGACY, "--protocol", "2026-07-28"]);
    // The line and column of `"result"` in the file: the member the finding is about is
    // missing, so its object is shown.
    let text = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join(LEGACY)).unwrap();
    let line = stdout
        .lines()
        .find(|l| l.contains("base.result-type.required"))
        .unwrap();
    let at = line
        .split_whitespace()
        .find(|w| w.starts_with(LEGACY))
        .unwrap();
    let mut parts = at.trim_end_matches(':').rsplitn(3, ':');
    let column: usize = parts.next().unwrap().parse().unwrap();
    let row: usize = parts.next().unwrap().parse().unwrap();
    let there: String = text
        .lines()
        .nth(row - 1)
        .unwrap()
        .chars()
        .skip(column - 1)
        .collect();
    assert!(there.starts_with('{'), "{at} points at {there:?}");
    assert!(line.contains(": $.result.resultType:"), "{line}");
}

#[test]
fn the_outcome_is_coloured_by_the_worst_finding() {
    let (_, stdout, _) = classify(&[LEGACY, "--protocol", "all", "--color", "always"]);
    // 2025-11-25: no finding, green; 2026-07-28: a MUST broken, red although TOOL_SUCCESS.
    assert!(stdout.contains("\x1b[1;32mTOOL_SUCCESS"), "{stdout:?}");
    assert!(stdout.contains("\x1b[1;31mTOOL_SUCCESS"), "{stdout:?}");
    assert!(stdout.trim_end().ends_with("exit 1\x1b[0m"), "{stdout:?}");
}
