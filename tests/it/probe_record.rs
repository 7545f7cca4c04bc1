//! `probe --record` output re-judges offline to the same verdicts, and no secret reaches a
//! recorded file, the diagnostic log or the output.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use mcp_verdict::judge::{Options, judge};
use mcp_verdict::probe::{self, CallSpec, ProbeConfig, ProbeReport, Timeouts};
use mcp_verdict::serve::{self, ServeConfig, ServerHandle};
use mcp_verdict::views::diag::{DiagRecord, RetryOrigin, Side};
use mcp_verdict::wire::exchange::ExchangeFile;
use serde_json::{Value, json};

use crate::support::temp::temp_dir;

const SECRET: &str = "s3cr3t-probe-token-1234567890";

fn start(scenario: &str) -> ServerHandle {
    serve::start(ServeConfig {
        scenario: scenario.parse().unwrap(),
        stall_cap: Duration::from_secs(3),
        ..ServeConfig::default()
    })
    .unwrap()
}

fn probe_config(url: &str) -> ProbeConfig {
    let mut c = ProbeConfig::new(url);
    c.calls = vec![
        CallSpec {
            name: "echo".into(),
            arguments: Some(json!({"text": "hi"})),
        },
        CallSpec {
            name: "confirm_action".into(),
            arguments: Some(json!({"action": "ship"})),
        },
    ];
    c.answers = serde_json::from_value(json!({
        "elicitation/create": {"action": "accept", "content": {"confirm": true}}
    }))
    .unwrap();
    c.headers = vec![
        ("Authorization".into(), format!("Bearer {SECRET}")),
        ("X-Api-Key".into(), SECRET.into()),
    ];
    c.timeouts = Timeouts {
        connect: Duration::from_secs(2),
        idle: Duration::from_millis(500),
        total: Duration::from_secs(10),
    };
    c
}

/// Every recorded file re-judges (revision from the file) to the probe's verdict.
fn assert_rejudges(report: &ProbeReport, dir: &std::path::Path) -> Vec<PathBuf> {
    let paths = report.write_records(dir).unwrap();
    // The tool calls, then each run's discovery exchanges.
    let judgements: Vec<_> = report
        .exchanges()
        .map(|x| &x.judgement)
        .chain(
            report
                .runs
                .iter()
                .flat_map(|r| r.discovery.iter().map(|x| &x.judgement)),
        )
        .collect();
    assert_eq!(paths.len(), judgements.len());
    assert!(
        paths.len() > report.exchanges().count(),
        "no discovery recorded"
    );
    for (path, judgement) in paths.iter().zip(judgements) {
        let text = std::fs::read_to_string(path).unwrap();
        assert!(
            !text.contains(SECRET),
            "{} leaks the secret",
            path.display()
        );
        let file = ExchangeFile::from_slice(text.as_bytes()).unwrap();
        assert!(file.expect.is_empty());
        assert!(file.protocol.is_some());
        let ex = file.to_exchange().unwrap();
        let again = judge(&ex, &Options::default()).unwrap();
        let before = mcp_verdict::views::JudgementOut::of(judgement, None);
        let after = mcp_verdict::views::JudgementOut::of(&again, None);
        assert_eq!(
            serde_json::to_value(&after.verdicts).unwrap(),
            serde_json::to_value(&before.verdicts).unwrap(),
            "{} re-judges differently",
            path.display()
        );
    }
    paths
}

#[test]
fn recorded_exchanges_rejudge_to_the_same_verdicts() {
    for scenario in [
        "baseline",
        "sse_progress",
        "sse_reset",
        "sse_stall",
        "malformed_json",
        "server_request_on_stream",
        "html_error_page",
    ] {
        let server = start(scenario);
        let report = probe::run(&probe_config(&server.url())).unwrap();
        assert!(report.exchanges().count() >= 4, "{scenario}");
        let dir = temp_dir("record");
        assert_rejudges(&report, &dir);
        let _ = std::fs::remove_dir_all(&dir);
        server.shutdown();
    }
}

#[test]
fn cli_records_log_and_json_keep_secrets_out() {
    let server = start("baseline");
    let dir = temp_dir("cli");
    let rec = dir.join("rec");
    let log = dir.join("probe.jsonl");
    let out = Command::new(env!("CARGO_BIN_EXE_mcp-verdict"))
        .args([
            "probe",
            &server.url(),
            "--format",
            "json",
            "--idle-timeout",
            "2",
        ])
        .args(["--tool", "echo", "--args", r#"{"text":"hi"}"#])
        .args(["--header", &format!("Authorization: Bearer {SECRET}")])
        .args(["-H", &format!("X-Session-Token: {SECRET}")])
        .arg("--record")
        .arg(&rec)
        .arg("--log")
        .arg(&log)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stdout}\n{stderr}");
    assert!(!stdout.contains(SECRET) && !stderr.contains(SECRET));
    let doc: Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(doc["exitCode"], 0);
    let runs = doc["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    for run in runs {
        assert_eq!(run["status"], "probed");
        let xs = run["exchanges"].as_array().unwrap();
        assert_eq!(xs[0]["tool"], "echo");
        assert_eq!(xs[0]["method"], "tools/call");
        assert_eq!(xs[0]["judgement"]["verdicts"][0]["outcome"], "TOOL_SUCCESS");
        assert!(xs[0]["posts"].as_u64().unwrap() >= 3);
        assert_eq!(xs[0]["statuses"], json!([200]));
        assert!(run["tools"].as_array().unwrap().len() == 5);
        assert!(run["server"]["serverInfo"]["name"].is_string());
    }

    // Each recorded file, through the CLI, gives the probe's verdict.
    let mut files: Vec<PathBuf> = std::fs::read_dir(&rec)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    // The calls (`001-...`), then the discovery exchanges (`setup-<revision>-...`), in the
    // runs' order.
    let outcomes: Vec<String> = runs
        .iter()
        .flat_map(|r| r["exchanges"].as_array().unwrap().iter())
        .chain(
            runs.iter()
                .flat_map(|r| r["discovery"].as_array().unwrap().iter()),
        )
        .map(|x| {
            x["judgement"]["verdicts"][0]["outcome"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(files.len(), outcomes.len());
    for (f, want) in files.iter().zip(&outcomes) {
        let text = std::fs::read_to_string(f).unwrap();
        assert!(!text.contains(SECRET), "{}", f.display());
        assert!(text.contains("[REDACTED]"), "{}", f.display());
        let c = Command::new(env!("CARGO_BIN_EXE_mcp-verdict"))
            .args(["classify", "--format", "json"])
            .arg(f)
            .output()
            .unwrap();
        let v: Value = serde_json::from_slice(&c.stdout).unwrap();
        assert_eq!(
            v["verdicts"][0]["outcome"].as_str().unwrap(),
            want,
            "{}",
            f.display()
        );
    }

    // `check` judges the whole recorded directory the same way (no error findings here).
    let c = Command::new(env!("CARGO_BIN_EXE_mcp-verdict"))
        .arg("check")
        .arg(&rec)
        .output()
        .unwrap();
    assert_eq!(
        c.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&c.stdout)
    );

    // One diagnostic record per exchange.
    let lines = std::fs::read_to_string(&log).unwrap();
    assert!(!lines.contains(SECRET));
    let records: Vec<DiagRecord> = lines
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let calls: usize = runs
        .iter()
        .map(|r| r["exchanges"].as_array().unwrap().len())
        .sum();
    assert_eq!(records.len(), calls);
    for (r, want) in records.iter().zip(&outcomes[..calls]) {
        assert_eq!(r.side, Side::Probe);
        assert_eq!(r.method.as_deref(), Some("tools/call"));
        assert_eq!(r.outcome.as_deref(), Some(want.as_str()));
        assert_eq!(r.retry_origin, RetryOrigin::None);
        let advice = r.retry_advice.as_ref().expect("retry advice filled");
        assert!(advice["action"].is_string(), "{advice}");
        assert!(advice["cites"].is_array(), "{advice}");
        assert!(r.post_count >= 1);
        assert_eq!(r.http_statuses.len() as u64, r.post_count);
        assert!(
            r.client
                .as_deref()
                .unwrap()
                .starts_with("mcp-verdict-probe@")
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    server.shutdown();
}

#[test]
fn cli_exit_codes() {
    let bin = env!("CARGO_BIN_EXE_mcp-verdict");
    // Nothing listens on the port of a listener that was just dropped.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let out = Command::new(bin).args(["probe", &url]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains(&url) && stderr.contains("refused"),
        "{stderr}"
    );

    let out = Command::new(bin)
        .args(["probe", "ftp://127.0.0.1/mcp"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = Command::new(bin)
        .args(["probe", "http://127.0.0.1:1/mcp", "--args", "{}"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("before any --tool"));

    // Error findings: exit 1.
    let server = start("wrong_id");
    let out = Command::new(bin)
        .args(["probe", &server.url(), "--no-auto-calls", "--tool", "echo"])
        .args(["--args", r#"{"text":"x"}"#, "--protocol", "2026-07-28"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert!(stdout.contains("INVALID_ENVELOPE"), "{stdout}");
    assert!(stdout.contains("#3 POST tools/call echo → 200"), "{stdout}");
    server.shutdown();
}
