//! Real MCP clients through the proxy: the TypeScript SDK clients (v2 and v1), the Python SDK
//! client and the Inspector CLI (`tests/clients`, installed by `bash tests/clients/install.sh`)
//! call `echo` through a proxy in front of `serve`'s fault scenarios, and in front of the
//! real SDK servers of `tests/peers` (HTTP). Each run checks that the client concluded what it
//! concludes without the proxy's help (its line is the one the driver prints), that the proxy
//! judged one verdict per call the server answered, with `serve`'s own outcome and deciding
//! rule, and that `classify` on each recording the proxy wrote gives the verdicts it logged.
//!
//! Without the clients (or the peers) the tests SKIP, unless `MCP_VERDICT_REQUIRE_CLIENTS`
//! (`MCP_VERDICT_REQUIRE_PEERS`) is set, as in CI.

use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_verdict::Protocol;
use mcp_verdict::clients::{CellRun, Manifest, run_driver};
use mcp_verdict::proxy::{self, ProxyConfig, Summary};
use mcp_verdict::serve::{self, ServeConfig};
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
    let run = CellRun {
        manifest: m,
        driver: d,
        scenario: "-",
        revision: rev,
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

fn call_verdicts(t: &Through) -> Vec<(String, Option<String>)> {
    t.log
        .iter()
        .filter(|r| {
            r["exchange"]
                .as_str()
                .is_some_and(|e| e.contains("tools/call"))
        })
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
