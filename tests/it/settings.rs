//! Settings (`mcp-verdict.toml`, `[tool.mcp-verdict]` in `pyproject.toml`, and the same as
//! flags) against what `classify` and `check` print and exit with; errors that name the file,
//! the position and the fix; and outcomes that never change by configuration.

use std::path::{Path, PathBuf};

use mcp_verdict::config::{self, Flags};
use mcp_verdict::{Engine, ExchangeFile, Options, Protocol, judge};
use serde_json::Value;

use crate::support::cli::{bin, run};
use crate::support::temp::temp_dir;

const LEGACY: &str = "examples/exchanges/legacy-result-without-result-type.json";
const REQUIRED: &str = "base.result-type.required";

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A scratch project: the legacy example without its `expect` (so that findings decide) at
/// `name`, and the given files.
fn project(tag: &str, name: &str, files: &[(&str, &str)]) -> PathBuf {
    let dir = temp_dir(tag);
    let mut doc: Value =
        serde_json::from_slice(&std::fs::read(root().join(LEGACY)).unwrap()).unwrap();
    doc.as_object_mut().unwrap().remove("expect");
    doc["protocol"] = "2026-07-28".into();
    let at = dir.join(name);
    std::fs::create_dir_all(at.parent().unwrap()).unwrap();
    std::fs::write(&at, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    for (path, text) in files {
        let p = dir.join(path);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    dir
}

struct Ran {
    code: i32,
    stdout: String,
    stderr: String,
}

fn in_dir(dir: &Path, args: &[&str]) -> Ran {
    let out = run(bin().current_dir(dir).args(args), None);
    Ran {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `classify ex.json --format json` with `extra` flags, in `dir`.
fn classify_json(dir: &Path, extra: &[&str]) -> Ran {
    let mut args = vec!["classify", "ex.json", "--format", "json"];
    args.extend_from_slice(extra);
    in_dir(dir, &args)
}

fn findings(json: &str) -> Vec<(String, String)> {
    let doc: Value = serde_json::from_str(json).unwrap();
    doc["verdicts"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            (
                f["rule"].as_str().unwrap().to_owned(),
                f["severity"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn without_settings_the_must_finding_fails_classify() {
    let dir = project("settings-none", "ex.json", &[]);
    let r = classify_json(&dir, &[]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(findings(&r.stdout).contains(&(REQUIRED.into(), "error".into())));
}

#[test]
fn ignore_by_prefix_drops_the_finding_says_so_and_keeps_the_outcome() {
    let dir = project("settings-ignore", "ex.json", &[]);
    let r = classify_json(&dir, &["--ignore", "base.result-type"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    let v = &doc["verdicts"][0];
    assert_eq!(v["outcome"], "TOOL_SUCCESS");
    assert!(findings(&r.stdout).is_empty());
    assert_eq!(v["settings"][0]["rule"], REQUIRED);
    assert_eq!(v["settings"][0]["change"], "ignored");
    assert_eq!(v["settings"][0]["count"], 1);
    assert_eq!(v["settings"][0]["by"], "--ignore");
    let text = in_dir(
        &dir,
        &["classify", "ex.json", "--ignore", "base.result-type"],
    );
    assert!(
        text.stdout
            .contains(&format!("1 finding of {REQUIRED} not reported (--ignore)")),
        "{}",
        text.stdout
    );
}

#[test]
fn a_severity_and_fail_on_decide_what_fails() {
    let dir = project("settings-severity", "ex.json", &[]);
    let sev = format!("{REQUIRED}=warning");
    let r = classify_json(&dir, &["--severity", &sev]);
    assert_eq!(
        r.code, 0,
        "a warning does not fail by default: {}",
        r.stderr
    );
    assert_eq!(
        findings(&r.stdout),
        [(REQUIRED.to_owned(), "warning".to_owned())]
    );
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(doc["verdicts"][0]["settings"][0]["from"], "error");
    assert_eq!(doc["verdicts"][0]["settings"][0]["to"], "warning");
    let r = in_dir(
        &dir,
        &[
            "classify",
            "ex.json",
            "--severity",
            &sev,
            "--fail-on",
            "warning",
        ],
    );
    assert_eq!(r.code, 1);
}

#[test]
fn fail_on_outcome_fails_a_stream_that_ended_before_its_result() {
    let stream = root().join("examples/exchanges/stream-closed-before-result.json");
    let stream = stream.to_str().unwrap();
    let dir = temp_dir("settings-outcome");
    let r = in_dir(&dir, &["classify", stream, "--protocol", "2026-07-28"]);
    assert_eq!(r.code, 0, "no finding: {}", r.stdout);
    let r = in_dir(
        &dir,
        &[
            "classify",
            stream,
            "--protocol",
            "2026-07-28",
            "--fail-on-outcome",
            "DELIVERY_UNKNOWN",
        ],
    );
    assert_eq!(r.code, 1);
    let r = in_dir(
        &dir,
        &["check", stream, "--fail-on-outcome", "DELIVERY_UNKNOWN"],
    );
    assert_eq!(r.code, 2, "check says it compares outcomes with expect");
    assert!(r.stderr.contains("is for classify"), "{}", r.stderr);
}

#[test]
fn the_settings_file_is_found_upward_and_flags_win() {
    let toml = format!("ignore = [\"{REQUIRED}\"]\n");
    let dir = project(
        "settings-upward",
        "a/b/ex.json",
        &[("mcp-verdict.toml", &toml)],
    );
    let deep = dir.join("a/b");
    let r = in_dir(&deep, &["classify", "ex.json", "--format", "json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        doc["verdicts"][0]["settings"][0]["by"],
        "../../mcp-verdict.toml"
    );
    // The command line's select is more recent than the file's ignore.
    let r = in_dir(&deep, &["classify", "ex.json", "--select", REQUIRED]);
    assert_eq!(r.code, 1);
    // --isolated reads no file.
    let r = in_dir(&deep, &["classify", "ex.json", "--isolated"]);
    assert_eq!(r.code, 1);
}

#[test]
fn pyproject_holds_settings_and_one_without_the_table_is_passed_over() {
    let with =
        format!("[project]\nname = \"x\"\n\n[tool.mcp-verdict]\nignore = [\"{REQUIRED}\"]\n");
    let dir = project(
        "settings-pyproject",
        "sub/ex.json",
        &[("pyproject.toml", &with)],
    );
    // A pyproject.toml without the table, nearer, does not hide the one above.
    std::fs::write(dir.join("sub/pyproject.toml"), "[project]\nname = \"y\"\n").unwrap();
    let r = in_dir(
        &dir.join("sub"),
        &["classify", "ex.json", "--format", "json"],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(
        doc["verdicts"][0]["settings"][0]["by"],
        "../pyproject.toml [tool.mcp-verdict]"
    );
    // mcp-verdict.toml comes first in a directory.
    std::fs::write(dir.join("sub/mcp-verdict.toml"), "fail-on = \"never\"\n").unwrap();
    let r = in_dir(
        &dir.join("sub"),
        &["classify", "ex.json", "--format", "json"],
    );
    assert_eq!(r.code, 0);
    assert!(findings(&r.stdout).contains(&(REQUIRED.into(), "error".into())));
}

#[test]
fn check_applies_per_path_overrides_and_compares_expectations_before_settings() {
    let toml = format!("[[overrides]]\npaths = [\"legacy/**\"]\nignore = [\"{REQUIRED}\"]\n");
    let dir = project(
        "settings-check",
        "legacy/ex.json",
        &[("mcp-verdict.toml", &toml)],
    );
    std::fs::copy(dir.join("legacy/ex.json"), dir.join("new.json")).unwrap();
    // The fixture itself expects the finding: it still passes with the rule ignored.
    std::fs::copy(root().join(LEGACY), dir.join("legacy/expects.json")).unwrap();
    let r = in_dir(&dir, &["check", ".", "--format", "json"]);
    assert_eq!(r.code, 1, "new.json is outside the override: {}", r.stdout);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    let status = |file: &str| {
        let f = doc["files"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["file"] == file)
            .unwrap_or_else(|| panic!("{file} in {doc}"));
        f["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["status"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(status("new.json"), ["findings"]);
    assert_eq!(status("legacy/ex.json"), ["ok"]);
    assert!(status("legacy/expects.json").iter().all(|s| s == "pass"));
    let legacy = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["file"] == "legacy/ex.json")
        .unwrap();
    assert_eq!(
        legacy["results"][0]["settings"][0]["by"],
        "mcp-verdict.toml [[overrides]] #1"
    );
    // The same file judged from its own directory: the override's globs stay relative to
    // the settings file.
    let r = in_dir(&dir.join("legacy"), &["check", "ex.json"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
}

#[test]
fn check_reads_fail_on_and_reports_from_the_file() {
    let toml =
        "fail-on = \"never\"\n\n[[report]]\nformat = \"json\"\noutput = \"out/report.json\"\n";
    let dir = project("settings-reports", "ex.json", &[("mcp-verdict.toml", toml)]);
    std::fs::create_dir_all(dir.join("out")).unwrap();
    let r = in_dir(&dir, &["check", "ex.json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let report: Value =
        serde_json::from_slice(&std::fs::read(dir.join("out/report.json")).unwrap()).unwrap();
    assert_eq!(report["settings"]["fail_on"], "never");
    // A flag wins over the file.
    let r = in_dir(
        &dir,
        &["check", "ex.json", "--fail-on", "error", "--format", "text"],
    );
    assert_eq!(r.code, 1);
}

#[test]
fn show_settings_prints_a_file_that_reads_back_the_same() {
    let toml = format!(
        "protocol = \"all\"\nselect = [\"base\", \"tools\"]\n\n[severity]\n\"{REQUIRED}\" = \"warning\"\n\n[[overrides]]\npaths = [\"x/**\"]\nignore = [\"tools\"]\n"
    );
    let dir = project("settings-show", "ex.json", &[("mcp-verdict.toml", &toml)]);
    let shown = in_dir(
        &dir,
        &["classify", "--show-settings", "--fail-on", "warning"],
    );
    assert_eq!(shown.code, 0, "{}", shown.stderr);
    assert!(
        shown.stdout.contains("fail-on = \"warning\"  # --fail-on"),
        "{}",
        shown.stdout
    );
    assert!(
        shown
            .stdout
            .contains("protocol = \"all\"  # mcp-verdict.toml")
    );
    let again = temp_dir("settings-show-again");
    std::fs::write(again.join("mcp-verdict.toml"), &shown.stdout).unwrap();
    let reread = in_dir(&again, &["check", "--show-settings"]);
    assert_eq!(reread.code, 0, "{}", reread.stderr);
    let body = |s: &str| {
        s.lines()
            .skip(1)
            .map(|l| l.split("  #").next().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    assert_eq!(body(&shown.stdout), body(&reread.stdout));
}

/// Each mistake, with its one position and the fix.
#[test]
fn settings_errors_name_the_place_and_the_fix() {
    let cases: &[(&str, &[&str], &str)] = &[
        (
            "protocl = \"all\"\n",
            &[],
            "mcp-verdict.toml:1:1: unknown setting `protocl` (did you mean `protocol`?)",
        ),
        (
            "ignore = [\"transport.see\"]\n",
            &[],
            "mcp-verdict.toml:1:11: no rule id or id prefix `transport.see` (did you mean `transport.sse`?)",
        ),
        (
            "[severity]\n\"transport.sse\" = \"eror\"\n",
            &[],
            "mcp-verdict.toml:2:19: unknown severity `eror` (did you mean `error`?); use error, warning or info",
        ),
        (
            "fail-on = \"warnings\"\n",
            &[],
            "mcp-verdict.toml:1:11: unknown fail-on `warnings` (did you mean `warning`?)",
        ),
        (
            "[[overrides]]\npaths = [\"a/[\"]\n",
            &[],
            "mcp-verdict.toml:2:10: `a/[` is not a glob pattern",
        ),
        (
            "[[report]]\nformat = \"sarf\"\n",
            &[],
            "mcp-verdict.toml:2:10: unknown report format `sarf` (did you mean `sarif`?)",
        ),
        (
            "select = [\n",
            &[],
            "mcp-verdict.toml:1:11: unclosed array, expected `]`",
        ),
        (
            "",
            &["--severity", "transport.sse"],
            "--severity: `transport.sse` is not RULE=LEVEL",
        ),
        (
            "",
            &["--fail-on-outcome", "DELIVERY_UNKNWON"],
            "--fail-on-outcome: unknown outcome `DELIVERY_UNKNWON` (did you mean `DELIVERY_UNKNOWN`?)",
        ),
        (
            "",
            &["--config", "missing.toml"],
            "missing.toml: cannot read the settings file:",
        ),
    ];
    for (file, flags, expected) in cases {
        let dir = project("settings-errors", "ex.json", &[("mcp-verdict.toml", file)]);
        let mut args = vec!["classify", "ex.json"];
        args.extend_from_slice(flags);
        let r = in_dir(&dir, &args);
        assert_eq!(r.code, 2, "{file} {flags:?}: {}", r.stderr);
        assert!(
            r.stderr.starts_with(&format!("mcp-verdict: {expected}")),
            "{file:?} {flags:?}:\n  got  {}\n  want {expected}",
            r.stderr.trim_end()
        );
        assert_eq!(
            r.stderr.matches(":1:").count() + r.stderr.matches(":2:").count(),
            usize::from(expected.starts_with("mcp-verdict.toml")),
            "one position per message: {}",
            r.stderr
        );
    }
    let dir = project(
        "settings-errors-py",
        "ex.json",
        &[("pyproject.toml", "[project]\n")],
    );
    let r = in_dir(&dir, &["classify", "ex.json", "--config", "pyproject.toml"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("pyproject.toml: has no [tool.mcp-verdict] table"),
        "{}",
        r.stderr
    );
}

/// Settings never change an outcome, a citation or a deciding rule, over the whole fixture
/// corpus; every finding they drop is counted.
#[test]
fn outcomes_never_change_by_configuration() {
    let engine = Engine::builtin();
    let flags = Flags {
        isolated: true,
        ignore: vec!["all".into()],
        ..Flags::default()
    };
    let settings = config::resolve(&flags, root(), engine.table(), &[]).unwrap();
    let mut judged = 0;
    for path in crate::support::corpus::fixture_files() {
        let Ok(file) = ExchangeFile::from_slice(&std::fs::read(&path).unwrap()) else {
            continue;
        };
        let Ok(ex) = file.into_exchange() else {
            continue;
        };
        let all: Vec<Protocol> = Protocol::all().collect();
        let options = Options {
            protocols: Some(&all),
            ..Options::default()
        };
        let judgement = judge(&ex, &options).unwrap();
        for v in &judgement.verdicts {
            let mut c = v.clone();
            settings.apply(&mut c, Some(&path));
            assert_eq!(c.outcome, v.outcome, "{}", path.display());
            assert_eq!(
                c.cited_ids().collect::<Vec<_>>(),
                v.cited_ids().collect::<Vec<_>>()
            );
            assert!(c.findings.is_empty() && c.omitted.is_empty());
            let dropped: usize = c.adjustments.iter().map(|a| a.count).sum();
            assert_eq!(dropped, v.findings.len(), "{}", path.display());
            judged += 1;
        }
    }
    assert!(judged > 300, "{judged}");
}
