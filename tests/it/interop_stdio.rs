//! Interoperability over stdio: `probe -- COMMAND` against real MCP servers that speak stdio,
//! installed at pinned versions, under both revisions:
//!
//! - `@modelcontextprotocol/server-everything` 2026.8.31 in stdio mode (SDK 1.x, 2025-11-25);
//! - `@modelcontextprotocol/server-filesystem` 2026.8.31 on a temporary folder;
//! - `tests/peers/python_stdio_server.py`, written with the Python SDK (`mcp` 2.3.0, which
//!   speaks 2026-07-28 too), and the same server with a start-up banner on stdout, which the
//!   stdio rule must catch.
//!
//! Right outcomes and no false finding: every exchange and every discovery exchange is free of
//! error findings, a 2025-11-25-only server's run under 2026-07-28 ends as a legacy server
//! (its answer to server/discover), and each server exits once its stdin is closed.
//! Install with `bash tests/peers/install.sh` and `bash tests/clients/install.sh`; without them
//! the tests SKIP, unless `MCP_VERDICT_REQUIRE_PEERS` is set, as in CI.

use std::path::Path;
use std::time::Duration;

use mcp_verdict::Protocol;
use mcp_verdict::probe::{self, CallSpec, ProbeConfig, ProbeReport, RunStatus, StdioCommand};
use mcp_verdict::vocab::Severity;
use serde_json::{Value, json};

use crate::support::peers::{peer_available, peers_dir, python_mcp};
use crate::support::temp::temp_dir;

fn node(script: &Path, args: &[&str]) -> StdioCommand {
    let mut command = vec!["node".to_string(), script.display().to_string()];
    command.extend(args.iter().map(|a| a.to_string()));
    StdioCommand::new(command)
}

fn package_script(package: &str) -> std::path::PathBuf {
    peers_dir()
        .join("node_modules")
        .join(package)
        .join("dist/index.js")
}

fn probe_all(command: StdioCommand, calls: &[(&str, Value)]) -> ProbeReport {
    // What is asserted is that each server exits once its stdin closes, not how fast it does
    // on a loaded machine: an interpreter's teardown can outlast the 2 s the SDK clients wait.
    let command = StdioCommand {
        grace: Duration::from_secs(10),
        ..command
    };
    let mut c = ProbeConfig::stdio(command);
    c.calls = calls
        .iter()
        .map(|(n, a)| CallSpec {
            name: n.to_string(),
            arguments: Some(a.clone()),
        })
        .collect();
    c.timeouts.idle = Duration::from_secs(20);
    probe::run(&c).expect("the server starts")
}

/// No error finding anywhere: calls, discovery; every server exited once its stdin closed.
fn no_false_finding(report: &ProbeReport) {
    for x in report.exchanges() {
        assert!(
            !x.has_error_finding(),
            "{}: {:?}",
            x.label,
            x.verdict().findings
        );
        assert!(x.unanswered.is_none(), "{}: {:?}", x.label, x.unanswered);
    }
    for r in &report.runs {
        for d in &r.discovery {
            assert!(
                d.verdict()
                    .findings
                    .iter()
                    .all(|f| f.severity != Severity::Error),
                "{} {}: {:?}",
                r.protocol,
                d.label,
                d.verdict().findings
            );
        }
        let p = r.process.as_ref().unwrap();
        assert!(!p.needed_signal, "{}: {}", r.protocol, p.ending);
    }
}

fn outcome_of(report: &ProbeReport, p: Protocol, label: &str) -> String {
    report
        .exchanges()
        .find(|x| x.verdict().protocol == p && x.label == label)
        .unwrap_or_else(|| panic!("{p} {label} was called"))
        .verdict()
        .outcome
        .to_string()
}

/// A 2025-11-25-only server under 2026-07-28: its answer to server/discover shows a legacy
/// server.
fn legacy_only(report: &ProbeReport) {
    let modern = report
        .runs
        .iter()
        .find(|r| r.protocol == Protocol::V2026_07_28)
        .unwrap();
    match &modern.status {
        RunStatus::Unsupported(why) => assert!(why.contains("legacy server"), "{why}"),
        other => panic!("2026-07-28: {other:?}"),
    }
}

#[test]
fn server_everything_in_stdio_mode() {
    let package = "@modelcontextprotocol/server-everything";
    if !peer_available(package) {
        return;
    }
    let report = probe_all(
        node(&package_script(package), &["stdio"]),
        &[("echo", json!({"message": "hello over stdio"}))],
    );
    assert_eq!(
        outcome_of(&report, Protocol::V2025_11_25, "echo"),
        "TOOL_SUCCESS"
    );
    no_false_finding(&report);
    legacy_only(&report);
    assert_eq!(report.exit_code(), 0);
}

#[test]
fn server_filesystem_on_a_temporary_folder() {
    let package = "@modelcontextprotocol/server-filesystem";
    if !peer_available(package) {
        return;
    }
    let dir = temp_dir("interop-stdio-fs").canonicalize().unwrap();
    std::fs::write(dir.join("note.txt"), "written by the test\n").unwrap();
    let note = dir.join("note.txt").display().to_string();
    let root = dir.display().to_string();
    let report = probe_all(
        node(&package_script(package), &[&root]),
        &[
            ("read_text_file", json!({"path": note})),
            ("list_directory", json!({"path": root})),
        ],
    );
    for label in ["read_text_file", "list_directory"] {
        assert_eq!(
            outcome_of(&report, Protocol::V2025_11_25, label),
            "TOOL_SUCCESS",
            "{label}"
        );
    }
    let read = report
        .exchanges()
        .find(|x| x.label == "read_text_file")
        .unwrap();
    let stdout = &read.exchange.stdio.as_ref().unwrap().stdout;
    assert!(String::from_utf8_lossy(stdout).contains("written by the test"));
    no_false_finding(&report);
    legacy_only(&report);
}

#[test]
fn a_python_sdk_server_under_both_revisions() {
    let Some(python) = python_mcp() else {
        return;
    };
    let script = peers_dir().join("python_stdio_server.py");
    let command = StdioCommand::new(vec![
        python.display().to_string(),
        script.display().to_string(),
    ]);
    let report = probe_all(command, &[("add", json!({"a": 2, "b": 3}))]);
    for p in Protocol::all() {
        let run = report.runs.iter().find(|r| r.protocol == p).unwrap();
        assert_eq!(run.status, RunStatus::Probed, "{p}");
        assert_eq!(outcome_of(&report, p, "add"), "TOOL_SUCCESS", "{p}");
    }
    no_false_finding(&report);
    assert_eq!(report.exit_code(), 0);
}

#[test]
fn a_banner_on_stdout_is_caught_by_the_stdio_rule() {
    let Some(python) = python_mcp() else {
        return;
    };
    let script = peers_dir().join("python_stdio_server.py");
    let command = StdioCommand::new(vec![
        python.display().to_string(),
        script.display().to_string(),
        "--banner".into(),
    ]);
    let report = probe_all(command, &[("add", json!({"a": 2, "b": 3}))]);
    for r in &report.runs {
        let first = &r.discovery[0];
        let rules: Vec<&str> = first
            .verdict()
            .findings
            .iter()
            .map(|f| f.rule.id.as_str())
            .collect();
        assert_eq!(rules, ["transport.stdio.non-mcp-output"], "{}", r.protocol);
        // The call itself is sound.
        assert_eq!(outcome_of(&report, r.protocol, "add"), "TOOL_SUCCESS");
    }
    assert_eq!(report.exit_code(), 1);
}
