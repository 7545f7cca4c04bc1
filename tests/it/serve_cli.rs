//! `mcp-verdict serve` as a process: `--list`, the first stdout line, `--log`.

use std::io::{BufRead, BufReader};
use std::process::Stdio;
use std::time::Duration;

use mcp_verdict::Protocol;
use mcp_verdict::serve::SCENARIOS;
use serde_json::{Value, json};

use crate::support::cli::bin;
use crate::support::serve::*;
use crate::support::temp::temp_dir;

#[test]
fn list_renders_the_table() {
    let out = bin().args(["serve", "--list"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    for s in SCENARIOS {
        assert!(
            text.contains(&format!("\n{}", s.name)),
            "{} missing",
            s.name
        );
    }
    for needle in [
        "verdict 2025-11-25",
        "verdict 2026-07-28",
        "layer",
        "injects",
        "example",
    ] {
        assert!(text.contains(needle), "{needle} missing");
    }
}

#[test]
fn bad_scenario_is_a_usage_error() {
    let out = bin()
        .args(["serve", "--scenario", "no_such_thing"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("unknown scenario"), "{err}");
    let out = bin()
        .args(["serve", "--scenario", "rate_limited:x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn serves_and_logs() {
    let dir = temp_dir("serve-cli");
    let log = dir.join("x.jsonl");
    let _ = std::fs::remove_file(&log);
    let mut child = bin()
        .args([
            "serve",
            "--port",
            "0",
            "--scenario",
            "tool_error",
            "--quiet",
            "--log",
        ])
        .arg(&log)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let url = first
        .trim_end()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("first line: {first:?}"))
        .to_string();
    assert!(
        url.starts_with("http://127.0.0.1:") && url.ends_with("/mcp"),
        "{url}"
    );
    let addr: std::net::SocketAddr = url
        .trim_start_matches("http://")
        .trim_end_matches("/mcp")
        .parse()
        .unwrap();
    let r = echo_call(addr, Protocol::V2026_07_28, None);
    assert_eq!(r.json()["result"]["isError"], true);
    // The record is written once the exchange is done.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    let line = loop {
        if let Some(l) = std::fs::read_to_string(&log)
            .ok()
            .and_then(|t| t.lines().next().map(str::to_string))
        {
            break l;
        }
        assert!(std::time::Instant::now() < deadline, "no log line");
        std::thread::sleep(Duration::from_millis(20));
    };
    child.kill().unwrap();
    let _ = child.wait();
    let v: Value = serde_json::from_str(&line).unwrap();
    assert_eq!(v["scenario"], "tool_error");
    assert_eq!(v["method"], "tools/call");
    assert_eq!(v["httpStatuses"], json!([200]));
    assert_eq!(v["client"], "raw-test@0.0.1");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn list_short_is_one_line_per_scenario() {
    let out = bin().args(["serve", "--list", "--short"]).output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("SCENARIO"), "{}", lines[0]);
    assert_eq!(lines.len(), SCENARIOS.len() + 1, "{text}");
    let out = bin().args(["serve", "--short"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "--short needs --list");
}

/// `serve` and `probe` as processes: serve's stderr has one readable line per request (the
/// HTTP method as sent, the verdict on each tools/call answer), probe's text one line per
/// request it made, none repeated.
#[test]
fn serve_logs_and_probe_text_have_one_line_per_request() {
    let dir = temp_dir("serve-probe-lines");
    let err_path = dir.join("serve.err");
    let mut child = bin()
        .args(["serve", "--port", "0"])
        .stdout(Stdio::piped())
        .stderr(std::fs::File::create(&err_path).unwrap())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut first)
        .unwrap();
    let url = first
        .trim_end()
        .strip_prefix("listening on ")
        .unwrap()
        .to_string();
    let probe = crate::support::cli::run(bin().args(["probe", &url, "--color", "never"]), None);
    let text = String::from_utf8(probe.stdout).unwrap();
    // serve writes a tools/call's line once it has judged what it sent, which may come after
    // the probe's last answer: wait (bounded) for as many as the probe made.
    let made = text.matches(" POST tools/call ").count();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while std::time::Instant::now() < deadline
        && std::fs::read_to_string(&err_path)
            .unwrap_or_default()
            .matches(" POST tools/call ")
            .count()
            < made
    {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    child.kill().unwrap();
    let _ = child.wait();
    assert!(!text.contains("so far"), "{text}");
    // Per revision, the POSTs are numbered 1, 2, ... each on one line.
    for block in text.split("\n== ").skip(1) {
        let posts: Vec<u32> = block
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix('#'))
            .filter(|l| l.contains(" POST "))
            .map(|l| l.split(' ').next().unwrap().parse().unwrap())
            .collect();
        assert!(posts.len() >= 4, "{block}");
        assert_eq!(
            posts,
            (1..=posts.len() as u32).collect::<Vec<_>>(),
            "{block}"
        );
    }
    let log = std::fs::read_to_string(&err_path).unwrap();
    assert!(!log.contains("end="), "{log}");
    assert!(!log.contains("POST#"), "{log}");
    assert!(
        log.lines()
            .any(|l| l.starts_with("GET ") && l.contains("-> 405")),
        "{log}"
    );
    assert!(log.lines().any(|l| l.starts_with("DELETE ")), "{log}");
    let calls: Vec<&str> = log
        .lines()
        .filter(|l| l.contains(" POST tools/call "))
        .collect();
    assert!(!calls.is_empty(), "{log}");
    for l in calls {
        assert!(l.contains("; verdict "), "{l}");
    }
}
