//! `probe` over stdio: the probe launches `mcp-verdict serve --stdio` (a server whose every
//! fault is known) or a small shell server, speaks each revision to it, judges what it read,
//! records the exchanges and the session transcript, stays bounded, and shuts the server down
//! as the stdio transport's Shutdown section says.

use std::time::{Duration, Instant};

use mcp_verdict::probe::{self, CallSpec, ProbeConfig, ProbeReport, StdioCommand};
use mcp_verdict::vocab::Protocol;
use serde_json::{Value, json};

use crate::support::cli::{bin, run};
use crate::support::temp::temp_dir;

const SERVE: &str = env!("CARGO_BIN_EXE_mcp-verdict");

fn serve(scenario: &str) -> StdioCommand {
    StdioCommand::new(
        [SERVE, "serve", "--stdio", "--quiet", "--scenario", scenario]
            .map(String::from)
            .to_vec(),
    )
}

/// A server that is a shell script.
fn shell(script: &str) -> StdioCommand {
    StdioCommand {
        shell: true,
        ..StdioCommand::new(vec![script.into()])
    }
}

fn config(command: StdioCommand, protocols: &[Protocol]) -> ProbeConfig {
    let mut c = ProbeConfig::stdio(command);
    c.protocols = protocols.to_vec();
    c.auto_calls = false;
    c.calls.push(CallSpec {
        name: "echo".into(),
        arguments: Some(json!({"text": "hi"})),
    });
    c.timeouts.idle = Duration::from_secs(5);
    c
}

fn outcomes(report: &ProbeReport) -> Vec<(Protocol, String)> {
    report
        .exchanges()
        .map(|x| (x.verdict().protocol, x.verdict().outcome.to_string()))
        .collect()
}

/// The stdio rules the verdicts name: deciding rule, then findings.
fn stdio_rules(report: &ProbeReport) -> Vec<String> {
    report
        .exchanges()
        .flat_map(|x| {
            let v = x.verdict();
            v.deciding_rule()
                .map(|r| r.id.clone())
                .into_iter()
                .chain(v.findings.iter().map(|f| f.rule.id.clone()))
        })
        .filter(|r| r.starts_with("transport.stdio."))
        .collect()
}

#[test]
fn a_sound_server_under_both_revisions() {
    let report = probe::run(&config(
        serve("baseline"),
        &[Protocol::V2025_11_25, Protocol::V2026_07_28],
    ))
    .unwrap();
    assert_eq!(
        outcomes(&report),
        [
            (Protocol::V2025_11_25, "TOOL_SUCCESS".to_string()),
            (Protocol::V2026_07_28, "TOOL_SUCCESS".to_string())
        ]
    );
    assert_eq!(report.exit_code(), 0);
    for r in &report.runs {
        // 2025-11-25: initialize, notifications/initialized, tools/list, tools/call;
        // 2026-07-28: server/discover, tools/list, tools/call; one line each.
        let lines: Vec<&str> = r.steps.iter().map(|s| s.http_method.as_str()).collect();
        assert!(lines.iter().all(|m| *m == probe::STDIN), "{lines:?}");
        assert!(r.discovery.iter().all(|x| x.verdict().findings.is_empty()));
        let p = r.process.as_ref().expect("a process report");
        assert!(!p.needed_signal, "{}", p.ending);
        assert!(
            p.ending.contains("exited once its stdin was closed"),
            "{}",
            p.ending
        );
        assert!(p.stderr.is_empty());
        // The exchange is a stdio exchange.
        assert!(r.exchanges[0].exchange.stdio.is_some());
    }
}

#[test]
fn each_stdio_fault_is_named_in_the_verdict() {
    let p = [Protocol::V2026_07_28];
    let crash = probe::run(&config(serve("stdio_crash"), &p)).unwrap();
    assert_eq!(outcomes(&crash)[0].1, "DELIVERY_UNKNOWN");
    assert_eq!(stdio_rules(&crash), ["transport.stdio.ended-early"]);
    let x = crash.exchanges().next().unwrap();
    assert!(
        x.unanswered.as_deref().unwrap().contains("exited"),
        "{:?}",
        x.unanswered
    );
    assert_eq!(crash.exit_code(), 1);
    let ending = &crash.runs[0].process.as_ref().unwrap().ending;
    assert!(ending.contains("had exited by itself"), "{ending}");

    let log = probe::run(&config(serve("stdio_log_line"), &p)).unwrap();
    assert_eq!(outcomes(&log)[0].1, "TOOL_SUCCESS");
    assert_eq!(stdio_rules(&log), ["transport.stdio.non-mcp-output"]);
    assert_eq!(log.exit_code(), 1);

    let chatter = probe::run(&config(serve("stdio_stderr_chatter"), &p)).unwrap();
    assert_eq!(outcomes(&chatter)[0].1, "TOOL_SUCCESS");
    assert!(stdio_rules(&chatter).is_empty());
    assert_eq!(chatter.exit_code(), 0, "stderr is never a finding");
    assert!(
        chatter.runs[0]
            .process
            .as_ref()
            .unwrap()
            .stderr
            .contains("ERROR")
    );

    // 2025-11-25: the server's ping is answered with a line on stdin.
    let req = probe::run(&config(
        serve("server_request_on_stream"),
        &[Protocol::V2025_11_25],
    ))
    .unwrap();
    let x = req.exchanges().next().unwrap();
    assert_eq!(x.server_requests.len(), 1);
    assert!(
        x.server_requests[0].contains("a line on stdin"),
        "{:?}",
        x.server_requests
    );
    // 2026-07-28: left unanswered, and a finding.
    let req = probe::run(&config(serve("server_request_on_stream"), &p)).unwrap();
    assert_eq!(stdio_rules(&req), ["transport.stdio.no-server-requests"]);
}

#[test]
fn the_banner_is_caught_at_setup() {
    for p in Protocol::all() {
        let report = probe::run(&config(serve("stdio_banner"), &[p])).unwrap();
        let first = &report.runs[0].discovery[0];
        let rules: Vec<&str> = first
            .verdict()
            .findings
            .iter()
            .map(|f| f.rule.id.as_str())
            .collect();
        assert_eq!(rules, ["transport.stdio.non-mcp-output"], "{p}");
        assert_eq!(report.exit_code(), 1);
        assert_eq!(outcomes(&report)[0].1, "TOOL_SUCCESS");
    }
}

#[test]
fn a_legacy_server_is_told_by_its_answer_to_server_discover() {
    // A server that answers nothing: over stdio, no answer to server/discover within the
    // probe's patience means a legacy server, and the probe falls back to initialize.
    let mut c = config(shell("cat >/dev/null"), &[Protocol::V2026_07_28]);
    c.timeouts.idle = Duration::from_millis(500);
    let report = probe::run(&c).unwrap();
    let statuses: Vec<String> = report
        .runs
        .iter()
        .map(|r| format!("{} {:?}", r.protocol, r.status))
        .collect();
    assert!(statuses[0].contains("legacy server"), "{statuses:?}");
    // The fallback run under 2025-11-25 (not asked for) follows.
    assert_eq!(report.runs.len(), 2, "{statuses:?}");
    assert_eq!(report.runs[1].protocol, Protocol::V2025_11_25);
}

#[test]
fn shutdown_escalates_and_is_reported() {
    let quick = |script: &str| {
        let mut c = config(shell(script), &[Protocol::V2025_11_25]);
        c.timeouts.idle = Duration::from_millis(300);
        let started = Instant::now();
        let report = probe::run(&c).unwrap();
        let p = report.runs[0].process.clone().unwrap();
        (p, started.elapsed())
    };
    let (p, _) = quick("cat >/dev/null");
    assert!(
        !p.needed_signal && p.ending.contains("stdin was closed"),
        "{}",
        p.ending
    );
    let (p, _) = quick("cat >/dev/null; sleep 30");
    assert!(
        p.needed_signal && p.ending.contains("SIGTERM ended it"),
        "{}",
        p.ending
    );
    let (p, took) = quick("trap '' TERM; cat >/dev/null; sleep 30");
    assert!(
        p.needed_signal && p.ending.contains("SIGKILL ended it"),
        "{}",
        p.ending
    );
    assert!(took < Duration::from_secs(15), "{took:?}");
}

#[test]
fn bounds_hold_against_a_server_that_never_answers_or_never_stops() {
    // No answer: the idle timeout; a line without end: the size cap; the deadline over all.
    let mut c = config(shell("cat >/dev/null"), &[Protocol::V2025_11_25]);
    c.timeouts.idle = Duration::from_millis(300);
    let r = probe::run(&c).unwrap();
    let step = &r.runs[0].steps[0];
    assert_eq!(step.stopped, Some(probe::ReadStop::Stalled), "{step:?}");

    let mut c = config(shell("yes x | tr -d '\\n'"), &[Protocol::V2025_11_25]);
    c.limits.body_bytes = 64 * 1024;
    let r = probe::run(&c).unwrap();
    let step = &r.runs[0].steps[0];
    assert_eq!(step.stopped, Some(probe::ReadStop::SizeCap), "{step:?}");

    let mut c = config(serve("stdio_slow:10000"), &[Protocol::V2025_11_25]);
    c.limits.deadline = Duration::from_secs(2);
    let started = Instant::now();
    let r = probe::run(&c).unwrap();
    assert!(started.elapsed() < Duration::from_secs(10));
    let x = r.exchanges().next().unwrap();
    assert!(
        x.unanswered.as_deref().unwrap().contains("deadline"),
        "{:?}",
        x.unanswered
    );
}

#[test]
fn the_cli_records_exchanges_and_the_transcript_and_shows_stderr_on_request() {
    let dir = temp_dir("probe-stdio-record");
    let out = run(
        bin()
            .args(["probe", "--no-auto-calls", "--tool", "echo", "--args", r#"{"text":"hi"}"#])
            .arg("--record")
            .arg(&dir)
            .args(["--env", "GREETING=hello-from-env", "--shell", "--"])
            .arg(format!(
                "echo \"$GREETING in $(pwd)\" >&2; exec {SERVE} serve --stdio --quiet --scenario stdio_log_line"
            )),
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("stderr: 1 line(s)"), "{text}");
    assert!(!text.contains("hello-from-env"));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for rev in ["2025-11-25", "2026-07-28"] {
        assert!(
            names.contains(&format!("transcript-{rev}.jsonl")),
            "{names:?}"
        );
    }
    // The recorded exchanges re-judge to the same verdicts.
    let re = run(
        bin().args(["classify", "--format", "json"]).arg(
            dir.join(
                names
                    .iter()
                    .find(|n| n.contains("2026-07-28-echo"))
                    .unwrap(),
            ),
        ),
        None,
    );
    let v: Value = serde_json::from_slice(&re.stdout).unwrap();
    assert_eq!(v["verdicts"][0]["outcome"], "TOOL_SUCCESS");
    let found: Vec<&str> = v["verdicts"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["rule"].as_str())
        .collect();
    assert!(
        found.contains(&"transport.stdio.non-mcp-output"),
        "{found:?}"
    );
    // The transcript holds every line either side wrote, and how the server ended.
    let bytes = std::fs::read(dir.join("transcript-2026-07-28.jsonl")).unwrap();
    let entries = mcp_verdict::wire::stdio::transcript::read(&bytes).expect("a transcript");
    use mcp_verdict::wire::stdio::transcript::Direction;
    let has = |dir: Direction, needle: &str| {
        entries
            .iter()
            .any(|e| e.dir == dir && String::from_utf8_lossy(&e.bytes).contains(needle))
    };
    assert!(has(Direction::Stdin, "\"tools/call\""));
    assert!(has(Direction::Stdout, "[info] tools/call"));
    assert!(has(Direction::Stderr, "hello-from-env"));
    assert_eq!(entries.last().unwrap().dir, Direction::Exit);

    let out = run(
        bin()
            .args([
                "probe",
                "--protocol",
                "2026-07-28",
                "--no-auto-calls",
                "--show-stderr",
            ])
            .args([
                "--env",
                "GREETING=hello-from-env",
                "--cwd",
                "/",
                "--shell",
                "--",
            ])
            .arg(format!(
                "echo \"$GREETING in $(pwd)\" >&2; exec {SERVE} serve --stdio --quiet"
            )),
        None,
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("hello-from-env in /"), "{text}");
    assert_eq!(out.status.code(), Some(0), "{text}");

    // A command that cannot start is unreachable (exit 3), without a shell unless asked.
    let out = run(bin().args(["probe", "--", "/no/such/server"]), None);
    assert_eq!(
        out.status.code(),
        Some(3),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stderr).contains("without a shell"));
}
