//! Real MCP clients through the proxy: the TypeScript SDK clients (v2 and v1), the Python SDK
//! client and the Inspector CLI (`tests/clients`, installed by `bash tests/clients/install.sh`)
//! call `echo` through a proxy in front of `serve`'s fault scenarios, and in front of the
//! real SDK servers of `tests/peers` (HTTP). Each run checks that the client concluded what it
//! concludes without the proxy's help (its line is the one the driver prints), that the proxy
//! judged one verdict per call the server answered, with `serve`'s own outcome and deciding
//! rule, and that `classify` on each recording the proxy wrote gives the verdicts it logged.
//!
//! Through the stdio form, each client launches the proxy as its server command (a script
//! that runs `mcp-verdict proxy -- SERVER`, as a desktop configuration's command would), in
//! front of `serve --stdio`'s scenarios and of the `server-everything` peer over stdio; there
//! `classify --transcript` on the proxy's transcript gives its log's verdicts too.
//!
//! Without the clients (or the peers) the tests SKIP, unless `MCP_VERDICT_REQUIRE_CLIENTS`
//! (`MCP_VERDICT_REQUIRE_PEERS`) is set, as in CI.

use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_verdict::Protocol;
use mcp_verdict::clients::{CellRun, Manifest, run_driver};
use mcp_verdict::proxy::{self, ProxyConfig, Summary};
use mcp_verdict::serve::{self, ServeConfig, Transport};
use serde_json::Value;

use crate::support::cli::{bin, run};
use crate::support::temp::temp_dir;

fn clients_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients")
}

/// The shipped manifest, when the clients are installed; else SKIP (or fail when required).
fn manifest() -> Option<Manifest> {
    let dir = clients_dir();
    let installed = dir.join("node_modules/@modelcontextprotocol").is_dir()
        && dir.join(".venv/bin/python").exists();
    if installed {
        return Some(Manifest::load(&dir.join("drivers.toml")).unwrap());
    }
    if std::env::var_os("MCP_VERDICT_REQUIRE_CLIENTS").is_some() {
        panic!(
            "the real MCP clients are not installed; run `bash tests/clients/install.sh` (MCP_VERDICT_REQUIRE_CLIENTS is set)"
        );
    }
    use std::io::Write as _;
    let _ = writeln!(
        std::io::stderr(),
        "SKIP: proxy_clients: the real MCP clients are not installed (bash tests/clients/install.sh)"
    );
    None
}

/// What one client run through a proxy left: the driver's line, the proxy's log records,
/// its summary and the folder of its recordings.
struct Through {
    line: Value,
    log: Vec<Value>,
    summary: Summary,
    records: PathBuf,
}

fn through_proxy(m: &Manifest, driver: &str, rev: Protocol, upstream: &str) -> Through {
    let d = m.driver.iter().find(|d| d.name == driver).unwrap();
    let dir = temp_dir("proxy-clients");
    let mut config = ProxyConfig::new(upstream);
    config.log = Some(dir.join("log.jsonl"));
    config.record = Some(dir.join("rec"));
    let p = proxy::start(config).unwrap();
    let program = bin().get_program().to_owned();
    let run = CellRun {
        manifest: m,
        driver: d,
        scenario: "-",
        revision: rev,
        transport: Transport::Http,
        server_program: Path::new(&program),
        timeout: Duration::from_secs(10),
    };
    let line = run_driver(&run, &p.url());
    let summary = p.stop();
    let log = std::fs::read_to_string(dir.join("log.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    Through {
        line,
        log,
        summary,
        records: dir.join("rec"),
    }
}

/// Every recording judged again by `classify` gives the verdicts the proxy logged for it.
fn recordings_agree(t: &Through, what: &str) {
    let mut n = 0;
    for e in std::fs::read_dir(&t.records).unwrap() {
        let f = e.unwrap().path();
        if f.extension().is_none_or(|x| x != "json") {
            // The stdio form's transcript: see `transcript_agrees`.
            continue;
        }
        let seq: u64 = f.file_name().unwrap().to_str().unwrap()[..4]
            .parse()
            .unwrap();
        let out = run(
            bin().arg("classify").arg(&f).args(["--format", "json"]),
            None,
        );
        let doc: Value = serde_json::from_slice(&out.stdout).unwrap();
        let logged = t
            .log
            .iter()
            .find(|r| r["line"] == seq)
            .unwrap_or_else(|| panic!("{what}: no log record {seq}"));
        assert_eq!(
            doc["verdicts"], logged["verdicts"],
            "{what}: recording {seq}"
        );
        n += 1;
    }
    let judged = t.log.iter().filter(|r| r.get("verdicts").is_some()).count();
    assert_eq!(n, judged, "{what}: a recording per judged exchange");
}

/// Whether a log record is a judged `tools/call` (not a setup answer).
fn is_call(r: &Value) -> bool {
    r["exchange"]
        .as_str()
        .is_some_and(|e| e.contains("tools/call"))
}

fn call_verdicts(t: &Through) -> Vec<(String, Option<String>)> {
    t.log
        .iter()
        .filter(|r| is_call(r))
        .map(|r| {
            let v = &r["verdicts"][0];
            (
                v["outcome"].as_str().unwrap().to_string(),
                v["cites"][0]["id"].as_str().map(str::to_string),
            )
        })
        .collect()
}

/// The scenarios each client meets through the proxy.
const SCENARIOS: &[&str] = &[
    "baseline",
    "tool_error",
    "jsonrpc_error",
    "sse_progress",
    "sse_close_early",
];

#[test]
fn real_clients_through_the_proxy_in_front_of_serve() {
    let Some(m) = manifest() else { return };
    let mut runs = 0;
    for d in &m.driver {
        for rev in d.revisions.iter().filter_map(|r| Protocol::parse(r)) {
            for scenario in SCENARIOS {
                let what = format!("{} {rev} {scenario}", d.name);
                let server = serve::start(ServeConfig {
                    scenario: scenario.parse().unwrap(),
                    stall_cap: Duration::from_secs(2),
                    ..ServeConfig::default()
                })
                .unwrap();
                let t = through_proxy(&m, &d.name, rev, &server.url());
                let served: Vec<(String, Option<String>)> = server
                    .shutdown_with_records()
                    .into_iter()
                    .filter(|r| r.method.as_deref() == Some("tools/call"))
                    .map(|r| (r.outcome.unwrap_or_default(), r.rule))
                    .collect();
                assert!(
                    t.line.get("outcome").and_then(Value::as_str) != Some("driver-failed"),
                    "{what}: {}",
                    t.line
                );
                assert!(!served.is_empty(), "{what}: the client made no call");
                assert_eq!(
                    call_verdicts(&t),
                    served,
                    "{what}: the proxy's verdicts, one per call, are serve's own"
                );
                assert_eq!(t.summary.calls, served.len(), "{what}");
                recordings_agree(&t, &what);
                runs += 1;
            }
        }
    }
    assert!(runs >= 20, "{runs} runs");
}

/// The peer servers of `tests/peers`, when installed; else SKIP (or fail when required).
fn peers_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/peers");
    if dir
        .join("node_modules/@modelcontextprotocol/server")
        .is_dir()
    {
        return Some(dir);
    }
    if std::env::var_os("MCP_VERDICT_REQUIRE_PEERS").is_some() {
        panic!("the peer servers are not installed; run `bash tests/peers/install.sh`");
    }
    use std::io::Write as _;
    let _ = writeln!(
        std::io::stderr(),
        "SKIP: proxy_clients: the peer servers are not installed (bash tests/peers/install.sh)"
    );
    None
}

/// A peer server on loopback, its process group killed when dropped.
struct Peer(std::process::Child, String);

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = std::process::Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.0.id())])
            .status();
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn start_peer(
    dir: &Path,
    args: &[&str],
    env: &[(&str, String)],
    url: impl Fn(&str) -> Option<String>,
) -> Peer {
    use std::io::{BufRead, BufReader};
    use std::os::unix::process::CommandExt;
    let mut cmd = std::process::Command::new("node");
    cmd.args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .process_group(0);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("node starts");
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    for s in [
        Box::new(child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
        Box::new(child.stderr.take().unwrap()),
    ] {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for l in BufReader::new(s).lines().map_while(Result::ok) {
                let _ = tx.send(l);
            }
        });
    }
    let mut peer = Peer(child, String::new());
    loop {
        let l = rx
            .recv_timeout(Duration::from_secs(30))
            .expect("the peer says where it listens");
        if let Some(u) = url(&l) {
            peer.1 = u;
            return peer;
        }
    }
}

#[test]
fn real_clients_through_the_proxy_in_front_of_real_servers() {
    let Some(m) = manifest() else { return };
    let Some(peers) = peers_dir() else { return };
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let servers: Vec<(&str, Peer, Vec<Protocol>)> = vec![
        (
            "ts-v2-server",
            start_peer(&peers, &["ts-v2-server.mjs", "0"], &[], |l| {
                l.strip_prefix("listening ").map(|u| u.trim().to_string())
            }),
            Protocol::all().collect(),
        ),
        (
            "server-everything",
            start_peer(
                &peers,
                &[
                    "node_modules/@modelcontextprotocol/server-everything/dist/index.js",
                    "streamableHttp",
                ],
                &[("PORT", port.to_string())],
                |l| {
                    l.contains("listening on port")
                        .then(|| format!("http://127.0.0.1:{port}/mcp"))
                },
            ),
            vec![Protocol::V2025_11_25],
        ),
    ];
    let mut found = Vec::new();
    for (name, peer, revisions) in &servers {
        for d in &m.driver {
            for rev in d
                .revisions
                .iter()
                .filter_map(|r| Protocol::parse(r))
                .filter(|r| revisions.contains(r))
            {
                let what = format!("{} {rev} -> {name}", d.name);
                let t = through_proxy(&m, &d.name, rev, &peer.1);
                assert!(
                    t.line.get("outcome").and_then(Value::as_str) != Some("driver-failed"),
                    "{what}: {}",
                    t.line
                );
                let calls = call_verdicts(&t);
                assert_eq!(
                    calls.len(),
                    1,
                    "{what}: one verdict for the one call: {calls:?}"
                );
                assert_eq!(t.summary.unjudged, 0, "{what}: {:?}", t.summary);
                recordings_agree(&t, &what);
                found.push(format!(
                    "{what}: {} {:?}, error findings {:?}",
                    calls[0].0, calls[0].1, t.summary.error_rules
                ));
            }
        }
    }
    // What the proxy found on the real servers, for the record.
    for f in &found {
        eprintln!("proxy on a real server: {f}");
    }
    assert!(found.len() >= 4, "{found:?}");
}

/// A server argument that names a file of the launch's own folder (see
/// [`through_stdio_proxy`]).
const LAUNCH: &str = "@LAUNCH@/";

/// Runs `driver` with the stdio form of the proxy in front of `server` as its server command;
/// waits for the proxy to finish (its summary in its stderr). A client may launch its server
/// command more than once (the TypeScript v2 client first launches one to ask
/// `server/discover`, then the one it calls), so each launch logs and records into a folder of
/// its own, `launch-N`, and so does the server where an argument starts with [`LAUNCH`]; the
/// last launch is the one that is read.
fn through_stdio_proxy(m: &Manifest, driver: &str, rev: Protocol, server: &[String]) -> Through {
    use std::os::unix::fs::PermissionsExt;
    let d = m.driver.iter().find(|d| d.name == driver).unwrap();
    let dir = temp_dir("proxy-clients-stdio");
    let quote = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
    let mut line = vec![
        quote(bin().get_program().to_str().unwrap()),
        "proxy".into(),
        "--log".into(),
        r#""$L/log.jsonl""#.into(),
        "--record".into(),
        r#""$L/rec""#.into(),
        "--".into(),
    ];
    line.extend(server.iter().map(|a| match a.strip_prefix(LAUNCH) {
        Some(rest) => format!(r#""$L"/{}"#, quote(rest)),
        None => quote(a),
    }));
    let script = dir.join("server.sh");
    let base = quote(dir.join("launch-").to_str().unwrap());
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nn=0\nwhile ! mkdir {base}$n 2>/dev/null; do n=$((n+1)); done\nL={base}$n\nexec {} 2> \"$L/stderr\"\n",
            line.join(" "),
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let program = bin().get_program().to_owned();
    let run = CellRun {
        manifest: m,
        driver: d,
        scenario: "-",
        revision: rev,
        transport: Transport::Stdio,
        server_program: Path::new(&program),
        timeout: Duration::from_secs(10),
    };
    let target = serde_json::json!([script]).to_string();
    let line = run_driver(&run, &target);
    let launches = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            e.ok()?
                .file_name()
                .to_str()?
                .strip_prefix("launch-")?
                .parse::<u32>()
                .ok()
        })
        .max();
    let dir = dir.join(format!(
        "launch-{}",
        launches.unwrap_or_else(|| panic!("{driver} {rev}: the client never launched the proxy"))
    ));
    // The client has gone; the proxy ends with its server and prints its summary.
    let until = std::time::Instant::now() + Duration::from_secs(20);
    let stderr = loop {
        let e = std::fs::read_to_string(dir.join("stderr")).unwrap_or_default();
        if e.contains("tools/call judged") || std::time::Instant::now() > until {
            break e;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(
        stderr.contains("tools/call judged"),
        "{driver} {rev}: the proxy did not finish: {stderr}"
    );
    let log: Vec<Value> = std::fs::read_to_string(dir.join("log.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let summary = Summary {
        calls: log.iter().filter(|r| is_call(r)).count(),
        unjudged: log.iter().filter(|r| r.get("error").is_some()).count(),
        ..Summary::default()
    };
    Through {
        line,
        log,
        summary,
        records: dir.join("rec"),
    }
}

/// `classify --transcript` on the stdio form's transcript gives the verdicts the proxy logged,
/// call by call (the setup answers it judged too are not calls).
fn transcript_agrees(t: &Through, what: &str) {
    let out = run(
        bin()
            .args(["classify", "--transcript"])
            .arg(t.records.join("transcript.jsonl"))
            .args(["--format", "json"]),
        None,
    );
    let doc: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{what}: {e}: {}", String::from_utf8_lossy(&out.stderr)));
    let again: Vec<&Value> = doc["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| &c["judgement"]["verdicts"])
        .collect();
    let logged: Vec<&Value> = t
        .log
        .iter()
        .filter(|r| is_call(r))
        .map(|r| &r["verdicts"])
        .collect();
    assert_eq!(again, logged, "{what}: classify --transcript and the log");
}

/// The stdio scenarios each client meets through the proxy.
const STDIO_SCENARIOS: &[&str] = &["baseline", "tool_error", "stdio_log_line"];

#[test]
fn real_clients_through_the_stdio_proxy() {
    let Some(m) = manifest() else { return };
    let mut runs = 0;
    for d in &m.driver {
        for rev in d.revisions.iter().filter_map(|r| Protocol::parse(r)) {
            for scenario in STDIO_SCENARIOS {
                let what = format!("{} {rev} {scenario} (stdio)", d.name);
                let server = [
                    bin().get_program().to_str().unwrap().to_string(),
                    "serve".into(),
                    "--stdio".into(),
                    "--scenario".into(),
                    scenario.to_string(),
                    "--log".into(),
                    format!("{LAUNCH}served.jsonl"),
                ];
                let t = through_stdio_proxy(&m, &d.name, rev, &server);
                let served_log = t.records.parent().unwrap().join("served.jsonl");
                assert_eq!(
                    t.line.get("outcome").and_then(Value::as_str),
                    Some("returned"),
                    "{what}: {}",
                    t.line
                );
                let served: Vec<(String, Option<String>)> = std::fs::read_to_string(&served_log)
                    .unwrap()
                    .lines()
                    .map(|l| serde_json::from_str::<Value>(l).unwrap())
                    .filter(|r| r["method"] == "tools/call")
                    .map(|r| {
                        (
                            r["outcome"].as_str().unwrap_or_default().to_string(),
                            r["rule"].as_str().map(str::to_string),
                        )
                    })
                    .collect();
                assert!(!served.is_empty(), "{what}: the client made no call");
                assert_eq!(
                    call_verdicts(&t),
                    served,
                    "{what}: the proxy's verdicts, one per call, are serve's own"
                );
                recordings_agree(&t, &what);
                transcript_agrees(&t, &what);
                runs += 1;
            }
        }
    }
    assert!(runs >= 15, "{runs} runs");
    let Some(peers) = peers_dir() else { return };
    // A real stdio server: server-everything, launched as a desktop client launches it.
    let everything = peers
        .join("node_modules/@modelcontextprotocol/server-everything/dist/index.js")
        .to_str()
        .unwrap()
        .to_string();
    for d in &m.driver {
        let rev = Protocol::V2025_11_25;
        if !d.revisions.iter().any(|r| r == rev.as_str()) {
            continue;
        }
        let what = format!("{} {rev} -> server-everything (stdio)", d.name);
        let t = through_stdio_proxy(
            &m,
            &d.name,
            rev,
            &["node".into(), everything.clone(), "stdio".into()],
        );
        assert_eq!(
            t.line.get("outcome").and_then(Value::as_str),
            Some("returned"),
            "{what}: {}",
            t.line
        );
        let calls = call_verdicts(&t);
        let seen = || {
            let dir = t.records.parent().unwrap();
            format!(
                "{}\n{}",
                std::fs::read_to_string(dir.join("stderr")).unwrap_or_default(),
                std::fs::read_to_string(dir.join("rec/transcript.jsonl")).unwrap_or_default()
            )
        };
        assert_eq!(
            calls.len(),
            1,
            "{what}: one verdict for the one call: {}",
            seen()
        );
        assert_eq!(t.summary.unjudged, 0, "{what}: {}", seen());
        recordings_agree(&t, &what);
        transcript_agrees(&t, &what);
        // The setup answers were judged as well.
        let setup: Vec<&str> = t
            .log
            .iter()
            .filter(|r| !is_call(r))
            .filter_map(|r| r["exchange"].as_str())
            .collect();
        assert!(
            setup.iter().any(|e| e.ends_with("initialize")),
            "{what}: {setup:?}"
        );
        for r in &t.log {
            eprintln!(
                "proxy on a real stdio server: {what}: {} {}, error findings {:?}",
                r["exchange"].as_str().unwrap_or_default(),
                r["verdicts"][0]["outcome"],
                r["verdicts"][0]["findings"].as_array().map(|f| f
                    .iter()
                    .filter(|f| f["severity"] == "error")
                    .filter_map(|f| f["rule"].as_str())
                    .collect::<Vec<_>>())
            );
        }
    }
}
