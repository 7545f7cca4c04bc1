//! `check` on stdio exchange files, in every report format: a finding on a stdout line is
//! placed at that line in the file (in `stdio.stdout`, in its element of `stdio.stdout_lines`,
//! or at `stdio.stdout_base64`), named `stdout:N`, and shown with the line around it.

use std::process::Output;

use serde_json::Value;

use crate::support::cli::{bin, run};
use crate::support::temp::temp_dir;

const BANNER: &str = "tests/fixtures/both/stdio/banner-line.json";
const BLANK: &str = "tests/fixtures/both/stdio/blank-line.json";
const SHAPE: &str = "tests/fixtures/both/stdio/progress-bad-shape.json";
const BASE64: &str = "tests/fixtures/both/stdio/not-utf8-line.json";

fn check(args: &[&str]) -> Output {
    run(
        bin()
            .arg("check")
            .args(args)
            .args(["--protocol", "2026-07-28"])
            .env("NO_COLOR", "1"),
        None,
    )
}

fn out(args: &[&str]) -> String {
    out_with(args, 0)
}

fn out_with(args: &[&str], status: i32) -> String {
    let o = check(args);
    assert_eq!(
        o.status.code(),
        Some(status),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).unwrap()
}

/// A copy of a fixture without its `expect`, so that its findings fail the run and every
/// report lists them; the copy keeps the file's lines, so positions compare.
fn unexpected(file: &str) -> String {
    let text = std::fs::read_to_string(file).unwrap();
    let cut = text
        .rfind(",\n  \"expect\"")
        .expect("the fixture ends with expect");
    let path = temp_dir("check-stdio").join("banner-line.json");
    std::fs::write(&path, format!("{}\n}}\n", &text[..cut])).unwrap();
    path.to_str().unwrap().to_string()
}

/// The 1-based line and column of the first occurrence of `needle` in a file.
fn position(file: &str, needle: &str) -> (usize, usize) {
    let text = std::fs::read_to_string(file).unwrap();
    let at = text
        .find(needle)
        .unwrap_or_else(|| panic!("{needle} not in {file}"));
    let line = text[..at].matches('\n').count() + 1;
    let column = text[..at].rsplit('\n').next().unwrap().chars().count() + 1;
    (line, column)
}

fn findings(json: &Value) -> Vec<&Value> {
    json["files"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|f| f["results"].as_array().unwrap())
        .flat_map(|r| r["findings"].as_array().unwrap())
        .filter(|f| f["rule"].as_str().unwrap().starts_with("transport.stdio."))
        .collect()
}

#[test]
fn text_and_json_place_stdout_lines_in_the_file() {
    let text = out(&[BANNER, BLANK, SHAPE, "--verbose"]);
    // In `stdout_lines`, the banner's element; the value inside a JSON element.
    let (l, c) = position(BANNER, "MCP weather server running on stdio");
    assert!(
        text.contains(&format!(
            "{BANNER}:{l}:{c}: stdout:1: stdout line 1 is not JSON"
        )),
        "{text}"
    );
    let (l, c) = position(SHAPE, "\"half\"");
    assert!(
        text.contains(&format!("{SHAPE}:{l}:{c}: stdout:1.params.progress:")),
        "{text}"
    );
    // In the `stdout` literal: the blank line is its first character.
    let (l, c) = position(BLANK, "\"stdout\": \"");
    let c = c + "\"stdout\": \"".len();
    assert!(
        text.contains(&format!(
            "{BLANK}:{l}:{c}: stdout:1: stdout line 1 is blank"
        )),
        "{text}"
    );
    // Files are reported in path order: the banner, the base64 output, the progress.
    let json: Value =
        serde_json::from_str(&out(&[BANNER, SHAPE, BASE64, "--format", "json"])).unwrap();
    let f = findings(&json);
    assert_eq!(f.len(), 3);
    assert_eq!(f[0]["line"], 1);
    assert_eq!(
        f[0]["excerpt"]["target"],
        "MCP weather server running on stdio"
    );
    assert_eq!(f[2]["excerpt"]["target"], "\"half\"");
    // Bytes given as base64 are placed at the member; the excerpt is not shown (not text).
    let (l, c) = position(BASE64, "\"stdout_base64\"");
    assert_eq!(f[1]["location"]["line"], l);
    assert!(f[1]["location"]["column"].as_u64().unwrap() > c as u64);
    assert!(f[1].get("excerpt").is_none_or(Value::is_null), "{}", f[1]);
}

#[test]
fn every_report_format_names_the_stdout_line() {
    let (l, _) = position(BANNER, "MCP weather server running on stdio");
    let copy = unexpected(BANNER);
    let banner = copy.as_str();
    let sarif: Value = serde_json::from_str(&out_with(&[banner, "--format", "sarif"], 1)).unwrap();
    let result = sarif["runs"][0]["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["ruleId"] == "transport.stdio.non-mcp-output")
        .expect("a SARIF result for the banner");
    assert_eq!(
        result["locations"][0]["physicalLocation"]["region"]["startLine"],
        l
    );
    assert_eq!(result["properties"]["stdoutLine"], 1);
    let github = out_with(&[banner, "--format", "github"], 1);
    assert!(
        github.contains(&format!("line={l}")) && github.contains("stdout:1"),
        "{github}"
    );
    let gitlab: Value =
        serde_json::from_str(&out_with(&[banner, "--format", "gitlab"], 1)).unwrap();
    let g = gitlab
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["check_name"] == "transport.stdio.non-mcp-output")
        .expect("a GitLab issue for the banner");
    assert_eq!(g["location"]["lines"]["begin"], l);
    let html = out_with(&[banner, "--format", "html"], 1);
    assert!(
        html.contains("(stdout line 1)"),
        "no stdout line in the HTML report"
    );
    let markdown = out_with(&[banner, "--format", "markdown"], 1);
    assert!(
        markdown.contains("transport.stdio.non-mcp-output") && markdown.contains("stdout:1"),
        "{markdown}"
    );
    let junit = out_with(&[banner, "--format", "junit"], 1);
    assert!(
        junit.contains("transport.stdio.non-mcp-output") && junit.contains("stdout:1"),
        "{junit}"
    );
}
