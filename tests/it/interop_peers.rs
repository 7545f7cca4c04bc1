//! Interoperability: probe real MCP servers from the npm registry, started on loopback by the
//! test and stopped after (the whole process group is killed).
//!
//! - `tests/peers/ts-v2-server.mjs`: the official TypeScript SDK v2
//!   (`@modelcontextprotocol/server` 2.4.0 + `@modelcontextprotocol/node` 2.1.2) with
//!   `legacy: 'stateless'`, which serves 2026-07-28 and 2025-era requests on one endpoint.
//! - `@modelcontextprotocol/server-everything` 2026.8.31 (SDK 1.x, 2025-11-25 only).
//!
//! Install them with `bash tests/peers/install.sh`. Without them the tests SKIP (and say so),
//! unless `MCP_VERDICT_REQUIRE_PEERS` is set, as in CI, where a missing peer fails.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use mcp_verdict::Protocol;
use mcp_verdict::probe::{
    self, ActiveResult, CallExchange, CallSpec, ProbeConfig, ProbeReport, RunStatus, Timeouts,
};
use mcp_verdict::vocab::Severity;
use serde_json::{Value, json};

use crate::support::peers::{peer_available, peers_dir};

const L: Protocol = Protocol::V2025_11_25;
const M: Protocol = Protocol::V2026_07_28;

/// A peer process in its own process group; dropping it kills the group.
struct Peer {
    child: Child,
    url: String,
}

impl Peer {
    /// Starts `node ARGS...` in tests/peers and waits for a stdout/stderr line containing
    /// `ready`; `url_of` turns that line into the endpoint URL.
    fn start(
        args: &[&str],
        env: &[(&str, String)],
        ready: &str,
        url_of: impl Fn(&str) -> String,
    ) -> Peer {
        let mut cmd = Command::new("node");
        cmd.args(args)
            .current_dir(peers_dir())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .process_group(0);
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("node starts");
        let (tx, rx) = mpsc::channel::<String>();
        for stream in [
            Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
            Box::new(child.stderr.take().unwrap()),
        ] {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    let _ = tx.send(line);
                }
            });
        }
        let mut seen = Vec::new();
        let mut peer = Peer {
            child,
            url: String::new(),
        };
        loop {
            match rx.recv_timeout(Duration::from_secs(30)) {
                Ok(line) if line.contains(ready) => {
                    peer.url = url_of(&line);
                    return peer;
                }
                Ok(line) => seen.push(line),
                Err(_) => panic!(
                    "peer `node {}` did not print `{ready}` within 30 s; output: {seen:?}",
                    args.join(" ")
                ),
            }
        }
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        // Kill the whole process group, then reap the child: no node process outlives the test.
        let pgid = self.child.id();
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{pgid}")])
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn config(url: &str, calls: Vec<CallSpec>) -> ProbeConfig {
    let mut c = ProbeConfig::new(url);
    c.calls = calls;
    c.timeouts = Timeouts {
        connect: Duration::from_secs(5),
        idle: Duration::from_secs(10),
        total: Duration::from_secs(30),
    };
    c
}

fn call(name: &str, args: Value) -> CallSpec {
    CallSpec {
        name: name.into(),
        arguments: Some(args),
    }
}

fn findings(x: &CallExchange, severity: Severity) -> BTreeSet<String> {
    x.verdict()
        .findings
        .iter()
        .filter(|f| f.severity == severity)
        .map(|f| f.rule.id.clone())
        .collect()
}

/// (label, outcome) of each exchange of a run, with the full verdicts on failure.
fn outcomes(xs: &[CallExchange]) -> Vec<(String, String)> {
    xs.iter()
        .map(|x| (x.label.clone(), x.verdict().outcome.to_string()))
        .collect()
}

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

/// (check, result, rules of the findings) of each active check of a run.
fn active(report: &ProbeReport, p: Protocol) -> Vec<(String, ActiveResult, Vec<String>)> {
    report
        .run(p)
        .unwrap()
        .active
        .iter()
        .map(|c| {
            (
                c.check.to_string(),
                c.result.clone(),
                c.findings.iter().map(|f| f.rule.clone()).collect(),
            )
        })
        .collect()
}

fn passed(check: &str) -> (String, ActiveResult, Vec<String>) {
    (check.to_string(), ActiveResult::Passed, Vec::new())
}

fn with(check: &str, rules: &[&str]) -> (String, ActiveResult, Vec<String>) {
    (
        check.to_string(),
        ActiveResult::Findings,
        rules.iter().map(|r| r.to_string()).collect(),
    )
}

fn skipped(report: &ProbeReport, p: Protocol, check: &str) -> bool {
    report
        .run(p)
        .unwrap()
        .active
        .iter()
        .any(|c| c.check == check && matches!(c.result, ActiveResult::Skipped(_)))
}

fn body_text(x: &CallExchange) -> String {
    String::from_utf8_lossy(&x.exchange.body).into_owned()
}

#[test]
fn typescript_sdk_v2_under_both_revisions() {
    if !peer_available("@modelcontextprotocol/server") {
        return;
    }
    let peer = Peer::start(&["ts-v2-server.mjs", "0"], &[], "listening ", |line| {
        line.trim_start_matches("listening ").trim().to_string()
    });
    let calls = vec![
        call("add", json!({"a": 2, "b": 3})),
        call("fail", json!({})),
        call("confirm", json!({"action": "deploy"})),
    ];
    let mut c = config(&peer.url, calls);
    c.answers = serde_json::from_value(json!({
        "confirm": {"action": "accept", "content": {"confirm": true}}
    }))
    .unwrap();
    let report = probe::run(&c).expect("peer reachable");
    eprintln!(
        "{}",
        mcp_verdict::outputs::probe::render_text(&report, Default::default())
    );

    // 2026-07-28: discover, list, calls; MRTR round trip for `confirm`.
    let run = report.run(M).unwrap();
    assert_eq!(run.status, RunStatus::Probed);
    let server = run.server.as_ref().unwrap();
    assert_eq!(server["serverInfo"]["name"], "ts-v2-peer");
    assert!(
        server["supportedVersions"]
            .as_array()
            .unwrap()
            .contains(&json!("2026-07-28"))
    );
    assert_eq!(
        outcomes(&run.exchanges),
        pairs(&[
            ("add", "TOOL_SUCCESS"),
            ("fail", "TOOL_ERROR"),
            ("confirm", "INPUT_REQUIRED"),
            ("confirm", "TOOL_SUCCESS"),
            ("unknown-tool", "JSONRPC_ERROR"),
            ("add:invalid-args", "TOOL_ERROR"),
            ("echo:invalid-args", "TOOL_ERROR"),
        ])
    );
    for x in &run.exchanges {
        assert!(
            findings(x, Severity::Error).is_empty(),
            "{}: {:?}",
            x.label,
            findings(x, Severity::Error)
        );
        assert!(
            findings(x, Severity::Warning).is_empty(),
            "{}: {:?}",
            x.label,
            findings(x, Severity::Warning)
        );
        assert_eq!(x.exchange.status, 200, "{}", x.label);
    }
    let add = &run.exchanges[0];
    assert!(
        body_text(add).contains(r#""text":"5""#),
        "{}",
        body_text(add)
    );
    assert_eq!(add.verdict().facts.result_type, Some(json!("complete")));
    let (first, retry) = (&run.exchanges[2], &run.exchanges[3]);
    assert_eq!(retry.round, 2);
    let (a, b) = (
        first.exchange.request.body.as_ref().unwrap(),
        retry.exchange.request.body.as_ref().unwrap(),
    );
    assert_ne!(a["id"], b["id"]);
    assert_eq!(b["params"]["inputResponses"]["confirm"]["action"], "accept");
    assert!(body_text(retry).contains("confirmed: deploy"));
    let unknown = &run.exchanges[4];
    assert_eq!(
        unknown.verdict().facts.error.as_ref().and_then(|e| e.code),
        Some(-32602)
    );

    // 2025-11-25 (served statelessly by the v2 SDK): SSE answers without a priming event,
    // no session, and no server-to-client requests, so `confirm` is a tool error.
    let run = report.run(L).unwrap();
    assert_eq!(run.status, RunStatus::Probed);
    assert_eq!(
        run.server.as_ref().unwrap()["protocolVersion"],
        "2025-11-25"
    );
    assert_eq!(
        outcomes(&run.exchanges),
        pairs(&[
            ("add", "TOOL_SUCCESS"),
            ("fail", "TOOL_ERROR"),
            ("confirm", "TOOL_ERROR"),
            ("unknown-tool", "JSONRPC_ERROR"),
            ("add:invalid-args", "TOOL_ERROR"),
            ("echo:invalid-args", "TOOL_ERROR"),
        ])
    );
    for x in &run.exchanges {
        assert!(
            findings(x, Severity::Error).is_empty(),
            "{}: {:?}",
            x.label,
            findings(x, Severity::Error)
        );
        assert_eq!(
            findings(x, Severity::Warning),
            BTreeSet::from(["transport.sse.priming-event".to_string()]),
            "{}",
            x.label
        );
        assert_eq!(x.verdict().facts.media_type, "text/event-stream");
    }
    assert_eq!(
        run.exchanges[3]
            .verdict()
            .facts
            .error
            .as_ref()
            .and_then(|e| e.code),
        Some(-32602)
    );
    assert!(
        run.steps.iter().all(|s| s.http_method != "DELETE"),
        "no session was assigned, so nothing to DELETE: {:?}",
        run.steps
    );
    // The stateless server offers no standalone GET stream: one GET, answered 405.
    let gets: Vec<_> = run
        .steps
        .iter()
        .filter(|s| s.http_method == "GET")
        .collect();
    assert_eq!(gets.len(), 1, "{:?}", run.steps);
    assert_eq!(gets[0].status, Some(405));
    assert_eq!(report.exit_code(), 0);

    // Without answers the probe declares no elicitation capability: 2026-07-28 answers
    // HTTP 400 with MissingRequiredClientCapability (-32021), as the spec requires.
    let mut c = config(&peer.url, vec![call("confirm", json!({"action": "x"}))]);
    c.protocols = vec![M];
    c.auto_calls = false;
    let report = probe::run(&c).unwrap();
    let x = report.exchanges().next().unwrap();
    assert_eq!(x.verdict().outcome.as_str(), "HTTP_ERROR");
    assert_eq!(x.exchange.status, 400);
    assert_eq!(
        x.verdict().facts.error.as_ref().and_then(|e| e.code),
        Some(-32021)
    );
    assert!(findings(x, Severity::Error).is_empty());

    // --active: under 2026-07-28 the SDK rejects every malformed request as the rules say.
    // Under 2025-11-25 it rejects an unknown MCP-Protocol-Version with 400, but its error
    // response carries `id: null` although the request's id was readable: a true deviation
    // (2025-11-25 basic, Error Responses: "Error responses MUST include the same ID as the
    // request they correspond to"). It issues no session, so the session checks are skipped;
    // `confirm` (the only tool answering input_required) has no annotations, so it may be
    // destructive and the MRTR checks are skipped too.
    let mut c = config(
        &peer.url,
        vec![call("confirm", json!({"action": "deploy"}))],
    );
    c.active = true;
    c.allow_side_effects = true;
    c.answers = serde_json::from_value(json!({
        "confirm": {"action": "accept", "content": {"confirm": true}}
    }))
    .unwrap();
    let report = probe::run(&c).unwrap();
    eprintln!(
        "{}",
        mcp_verdict::outputs::probe::render_text(&report, Default::default())
    );
    let got = active(&report, M);
    for check in [
        "unsupported-version",
        "version-header-mismatch",
        "missing-meta",
        "initialize",
        "method-header",
        "name-header",
    ] {
        assert!(got.contains(&passed(check)), "{check}: {got:?}");
    }
    for check in [
        "param-header",
        "tampered-state",
        "unmatched-input-responses",
    ] {
        assert!(skipped(&report, M, check), "{check}: {got:?}");
    }
    let got = active(&report, L);
    assert!(
        got.contains(&with("unsupported-version", &["jsonrpc.error.id-present"])),
        "{got:?}"
    );
    assert!(report.run(L).unwrap().active[0].as_expected);
    for check in ["missing-session", "ended-session"] {
        assert!(skipped(&report, L, check), "{check}: {got:?}");
    }
    drop(peer);
}

#[test]
fn server_everything_under_2025_11_25() {
    if !peer_available("@modelcontextprotocol/server-everything") {
        return;
    }
    let port = free_port();
    let peer = Peer::start(
        &[
            "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
            "streamableHttp",
        ],
        &[("PORT", port.to_string())],
        "listening on port",
        |_| format!("http://127.0.0.1:{port}/mcp"),
    );
    let calls = vec![
        call("echo", json!({"message": "hi"})),
        call("get-sum", json!({"a": 1, "b": 2})),
    ];
    let report = probe::run(&config(&peer.url, calls)).expect("peer reachable");
    eprintln!(
        "{}",
        mcp_verdict::outputs::probe::render_text(&report, Default::default())
    );

    let run = report.run(L).unwrap();
    assert_eq!(run.status, RunStatus::Probed);
    let got = outcomes(&run.exchanges);
    assert_eq!(got[0], ("echo".to_string(), "TOOL_SUCCESS".to_string()));
    assert_eq!(got[1], ("get-sum".to_string(), "TOOL_SUCCESS".to_string()));
    // SDK 1.x reports an unknown tool as a tool execution error (isError: true, text
    // "MCP error -32602: Tool … not found"), not as a JSON-RPC error.
    assert_eq!(
        got[2],
        ("unknown-tool".to_string(), "TOOL_ERROR".to_string())
    );
    assert!(body_text(&run.exchanges[2]).contains("-32602"));
    assert!(got.len() > 3);
    for (label, outcome) in &got[3..] {
        assert!(label.ends_with(":invalid-args"), "{label}");
        assert_eq!(outcome, "TOOL_ERROR", "{label}");
    }
    for x in &run.exchanges {
        assert!(
            findings(x, Severity::Error).is_empty(),
            "{}: {:?}",
            x.label,
            findings(x, Severity::Error)
        );
        assert!(
            findings(x, Severity::Warning).is_empty(),
            "{}: {:?}",
            x.label,
            findings(x, Severity::Warning)
        );
    }
    assert!(body_text(&run.exchanges[1]).contains("3"));
    // A session was assigned and is terminated at the end.
    let last = run.steps.last().unwrap();
    assert_eq!(last.http_method, "DELETE");
    assert_eq!(last.status, Some(200));

    // 2026-07-28: the server does not speak it; its own answer says so.
    let run = report.run(M).unwrap();
    match &run.status {
        RunStatus::Unsupported(why) => assert!(why.contains("HTTP 400"), "{why}"),
        other => panic!("expected unsupported, got {other:?}"),
    }
    assert_eq!(run.post_count(), 1);
    assert_eq!(report.exit_code(), 0);

    // --active (2025-11-25 only: the server does not speak 2026-07-28). SDK 1.x rejects an
    // unknown MCP-Protocol-Version and a missing session id with 400, as the spec asks, but
    // with `id: null` in the error response although the request's id was readable; and after
    // answering the DELETE with 200 it answers a request in the ended session with 400 (and
    // no id) instead of 404. True deviations: 2025-11-25 basic, Error Responses: "Error
    // responses MUST include the same ID as the request they correspond to"; basic/transports,
    // Session Management: "The server MAY terminate the session at any time, after which it
    // MUST respond to requests containing that session ID with HTTP 404 Not Found."
    let mut c = config(&peer.url, Vec::new());
    c.active = true;
    c.protocols = vec![L];
    let report = probe::run(&c).unwrap();
    eprintln!(
        "{}",
        mcp_verdict::outputs::probe::render_text(&report, Default::default())
    );
    // One defect, one finding: `id: null` for a readable id is `id-present`'s alone.
    let null_id = ["jsonrpc.error.id-present"];
    assert_eq!(
        active(&report, L),
        vec![
            with("unsupported-version", &null_id),
            with("missing-session", &null_id),
            with(
                "ended-session",
                &[
                    "transport.http.404-ended-session",
                    "jsonrpc.error.id-present"
                ]
            ),
        ]
    );
    let run = report.run(L).unwrap();
    assert!(run.active[0].as_expected && run.active[1].as_expected);
    assert!(!run.active[2].as_expected);
    assert_eq!(report.exit_code(), 1);
    drop(peer);
}
