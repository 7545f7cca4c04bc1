//! The reports fed to what reads them: the SARIF against the official SARIF 2.1.0 schema and
//! through Microsoft's SARIF Multitool (`validate`, which also applies the SARIF spec's rules
//! beyond the schema), the JUnit XML through `xmllint --schema` with the Jenkins JUnit plugin's
//! `junit-10.xsd`. Each on the shipped corpus plus a directory of broken files (empty,
//! truncated, binary, a name that needs escaping), and on the small corpus with a baseline
//! (skipped and stale entries) and coverage.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::LazyLock;

use mcp_verdict::outputs::check::{junit, sarif};
use mcp_verdict::run::check::{self as report, Baseline, CheckOptions};
use serde_json::Value;

use crate::support::cli::{bin, run};
use crate::support::reference::{Reference, dir};
use crate::support::temp::temp_dir;
use crate::support::tools;

/// Files no judge can read: empty, cut off, binary, and a name with a space and a non-ASCII
/// letter.
static BROKEN: LazyLock<PathBuf> = LazyLock::new(|| {
    let d = temp_dir("broken-fixtures");
    std::fs::write(d.join("empty.json"), b"").unwrap();
    std::fs::write(d.join("truncated.json"), b"{\"response\": {\"status\": 2").unwrap();
    let binary: Vec<u8> = (0..=255u8).cycle().take(600).collect();
    std::fs::write(d.join("binary.json"), binary).unwrap();
    std::fs::write(d.join("newline only.json"), b"\n").unwrap();
    std::fs::write(d.join("d\u{e9}j\u{e0} vu.json"), b"[1, 2").unwrap();
    d
});

/// `check tests/fixtures BROKEN --protocol all --format FORMAT --output FILE` (exit 3: files not
/// judged), and the report written.
fn corpus_report(format: &str) -> (PathBuf, String) {
    let out = temp_dir("consumers").join(format!("report.{format}"));
    let o = run(
        bin().args([
            "check",
            "tests/fixtures",
            BROKEN.to_str().unwrap(),
            "--protocol",
            "all",
            "--format",
            format,
            "--output",
            out.to_str().unwrap(),
        ]),
        None,
    );
    assert_eq!(
        o.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let text = std::fs::read_to_string(&out).unwrap();
    (out, text)
}

/// The small corpus with a baseline (a skipped case, a stale entry) and coverage.
fn small_run() -> (report::CheckRun, report::Coverage) {
    let baseline = Baseline::parse(
        r#"[{"file": "tests/data/check/corpus/conformance/missing-result-type.json", "protocol": "2026-07-28", "rule": "base.result-type.required"},
            {"file": "tests/data/check/corpus/conformance/missing-result-type.json", "protocol": "2026-07-28", "rule": "transport.http.400-missing-meta"},
            {"file": "tests/data/check/corpus/ok/success-2025.json", "protocol": "2025-11-25", "outcome": "TOOL_ERROR"}]"#,
    )
    .unwrap();
    let options = CheckOptions {
        baseline: Some(baseline),
        ..CheckOptions::default()
    };
    let run = report::run_check(&["tests/data/check/corpus"], &options).unwrap();
    let cov = report::coverage(&run.files);
    assert!(
        run.results()
            .any(|(_, r)| r.status == report::Status::Baselined)
    );
    assert!(!run.stale.is_empty());
    (run, cov)
}

fn official_sarif_errors(schema: &Value, log: &str) -> Vec<String> {
    let validator = jsonschema::validator_for(schema).unwrap();
    let log: Value = serde_json::from_str(log).unwrap();
    validator
        .iter_errors(&log)
        .take(10)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect()
}

#[test]
fn sarif_validates_against_the_official_schema() {
    let Some(reference) = dir(Reference::Reports) else {
        return;
    };
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string(reference.join("sarif-schema-2.1.0.json")).unwrap(),
    )
    .unwrap();
    let (_, log) = corpus_report("sarif");
    let errors = official_sarif_errors(&schema, &log);
    assert!(errors.is_empty(), "{errors:#?}");
    let (run, _) = small_run();
    let errors = official_sarif_errors(&schema, &sarif::render(&run));
    assert!(errors.is_empty(), "{errors:#?}");
    // The schema does catch what the issue reported (a column of 0).
    let mut bad: Value = serde_json::from_str(&log).unwrap();
    bad["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"]["startColumn"] =
        0.into();
    assert!(!official_sarif_errors(&schema, &bad.to_string()).is_empty());
}

/// Runs the SARIF Multitool's `validate` on `sarif` and returns its results as
/// (rule id, level, message).
fn multitool(tool: &Path, sarif: &Path) -> Vec<(String, String, String)> {
    let out = sarif.with_extension("validation.sarif");
    let o = Command::new(tool)
        .arg("validate")
        .arg(sarif)
        .arg("-o")
        .arg(&out)
        .args(["--log", "ForceOverwrite", "--level", "Error;Warning;Note"])
        // The tool needs no ICU data for this; without the variable it looks for libicu.
        .env("DOTNET_SYSTEM_GLOBALIZATION_INVARIANT", "1")
        .env("DOTNET_CLI_TELEMETRY_OPTOUT", "1")
        .output()
        .expect("the SARIF Multitool runs");
    assert!(
        out.is_file(),
        "the SARIF Multitool wrote no log: {}\n{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    let log: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    log["runs"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|r| r["results"].as_array().cloned().unwrap_or_default())
        .map(|r| {
            (
                r["ruleId"].as_str().unwrap_or("?").to_string(),
                r["level"].as_str().unwrap_or("warning").to_string(),
                r["message"].to_string(),
            )
        })
        .collect()
}

#[test]
fn sarif_multitool_finds_no_error() {
    let Some(tool) = tools::sarif_multitool() else {
        return;
    };
    let (path, _) = corpus_report("sarif");
    let results = multitool(&tool, &path);
    let mut counts = std::collections::BTreeMap::new();
    for (rule, level, _) in &results {
        *counts.entry((level.as_str(), rule.as_str())).or_insert(0) += 1;
    }
    eprintln!("SARIF Multitool on the corpus and broken files: {counts:?}");
    let errors: Vec<_> = results.iter().filter(|r| r.1 == "error").collect();
    assert!(errors.is_empty(), "{errors:#?}");
    // Rule ids and names are what SARIF1001 wants; URIs what SARIF1004 wants.
    for rule in ["SARIF1001", "SARIF1004", "JSON1008"] {
        assert!(!results.iter().any(|r| r.0 == rule), "{rule}: {results:#?}");
    }
    // The small corpus, with skipped and stale entries, as well.
    let (run, _) = small_run();
    let small = temp_dir("consumers").join("small.sarif");
    std::fs::write(&small, sarif::render(&run)).unwrap();
    let errors: Vec<_> = multitool(&tool, &small)
        .into_iter()
        .filter(|r| r.1 == "error")
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
}

fn xmllint(tool: &Path, xsd: &Path, xml: &Path) -> (bool, String) {
    let o = Command::new(tool)
        .arg("--noout")
        .arg("--schema")
        .arg(xsd)
        .arg(xml)
        .output()
        .expect("xmllint runs");
    (
        o.status.success(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn junit_validates_against_the_jenkins_schema() {
    let Some(reference) = dir(Reference::Reports) else {
        return;
    };
    let Some(tool) = tools::xmllint() else {
        return;
    };
    let xsd = reference.join("jenkins-junit-10.xsd");
    let (path, xml) = corpus_report("junit");
    let (ok, msg) = xmllint(&tool, &xsd, &path);
    assert!(ok, "{msg}");
    assert!(xml.contains("<error type=\"invalid\""), "broken files");
    let (run, cov) = small_run();
    let small = temp_dir("consumers").join("small.xml");
    let xml = junit::render(&run, Some(&cov));
    assert!(xml.contains("<skipped ") && xml.contains("type=\"stale\""));
    std::fs::write(&small, &xml).unwrap();
    let (ok, msg) = xmllint(&tool, &xsd, &small);
    assert!(ok, "{msg}");
    // The schema does catch what the issue reported (`skipped` on <testsuites>).
    let bad = temp_dir("consumers").join("bad.xml");
    std::fs::write(
        &bad,
        xml.replacen("<testsuites ", "<testsuites skipped=\"1\" ", 1),
    )
    .unwrap();
    assert!(!xmllint(&tool, &xsd, &bad).0);
}
