//! `proxy -- COMMAND`: the stdio form, run as a client runs it (a process whose stdin and
//! stdout are the client's pipes). What the client and the server see through it is what they
//! would see without it, byte for byte; each `tools/call` gets the verdict `serve --stdio`
//! gave what it sent, and `classify --transcript` on the proxy's transcript, and `classify` on
//! its exchange files, give the verdicts of its log.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use mcp_verdict::serve::{SCENARIOS, Transport};
use mcp_verdict::vocab::Protocol;
use serde_json::{Value, json};

use crate::support::cli::{bin, run};
use crate::support::stdio::params_for;
use crate::support::temp::temp_dir;

const WAIT: Duration = Duration::from_secs(10);

/// The proxy launched as a client launches its server command.
struct Proxied {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Vec<u8>>,
    stdout: Arc<Mutex<Vec<u8>>>,
    stderr: Arc<Mutex<Vec<u8>>>,
}

struct Ended {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    code: Option<i32>,
}

impl Proxied {
    fn start(proxy_args: &[&str], server: &[&str]) -> Proxied {
        let mut cmd = bin();
        cmd.arg("proxy").args(proxy_args).arg("--").args(server);
        Proxied::spawn(cmd)
    }

    /// Launches `cmd` (the proxy) with piped standard streams.
    fn spawn(mut cmd: Command) -> Proxied {
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("the proxy starts");
        let stdin = child.stdin.take();
        let mut out = BufReader::new(child.stdout.take().unwrap());
        let mut err = child.stderr.take().unwrap();
        let stdout: Arc<Mutex<Vec<u8>>> = Arc::default();
        let stderr: Arc<Mutex<Vec<u8>>> = Arc::default();
        let (tx, lines) = mpsc::channel();
        {
            let stdout = stdout.clone();
            std::thread::spawn(move || {
                loop {
                    let mut line = Vec::new();
                    match out.read_until(b'\n', &mut line) {
                        Ok(0) | Err(_) => return,
                        Ok(_) => {
                            stdout.lock().unwrap().extend_from_slice(&line);
                            let _ = tx.send(line);
                        }
                    }
                }
            });
        }
        {
            let stderr = stderr.clone();
            std::thread::spawn(move || {
                let mut buf = [0u8; 4096];
                while let Ok(n) = err.read(&mut buf) {
                    if n == 0 {
                        return;
                    }
                    stderr.lock().unwrap().extend_from_slice(&buf[..n]);
                }
            });
        }
        Proxied {
            child,
            stdin,
            lines,
            stdout,
            stderr,
        }
    }

    fn send_raw(&mut self, bytes: &[u8]) {
        let s = self.stdin.as_mut().expect("open");
        let _ = s.write_all(bytes).and_then(|()| s.flush());
    }

    fn send(&mut self, msg: &Value) {
        let mut line = msg.to_string().into_bytes();
        line.push(b'\n');
        self.send_raw(&line);
    }

    /// The response with `id`, within [`WAIT`].
    fn response(&mut self, id: &Value) -> Option<Value> {
        let until = Instant::now() + WAIT;
        while let Ok(l) = self
            .lines
            .recv_timeout(until.saturating_duration_since(Instant::now()))
        {
            if let Ok(v) = serde_json::from_slice::<Value>(&l)
                && v.get("method").is_none()
                && v.get("id") == Some(id)
            {
                return Some(v);
            }
        }
        None
    }

    /// Whether the proxy (and so its server) has ended.
    fn exited(&mut self) -> bool {
        self.child.try_wait().ok().flatten().is_some()
    }

    /// Closes stdin and waits for the proxy to end (it ends with the server); killed and
    /// reaped after 20 s.
    fn finish(mut self) -> Ended {
        self.stdin = None;
        let until = Instant::now() + Duration::from_secs(20);
        let status = loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                break Some(s);
            }
            if Instant::now() > until {
                let _ = self.child.kill();
                let _ = self.child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(10));
        };
        // The reading threads see the pipes close.
        std::thread::sleep(Duration::from_millis(50));
        let status = status.expect("the proxy ended after its stdin closed");
        Ended {
            stdout: self.stdout.lock().unwrap().clone(),
            stderr: self.stderr.lock().unwrap().clone(),
            code: status.code(),
        }
    }
}

fn jsonl(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Whether a log record is a judged `tools/call` (not a setup answer).
fn is_call(r: &Value) -> bool {
    r["exchange"]
        .as_str()
        .is_some_and(|e| e.contains("tools/call"))
}

/// The rules of a log record's error findings.
fn error_rules(r: &Value) -> Vec<String> {
    r["verdicts"][0]["findings"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|f| f["severity"] == "error")
        .filter_map(|f| f["rule"].as_str().map(str::to_string))
        .collect()
}

fn exe() -> String {
    bin().get_program().to_string_lossy().into_owned()
}

/// `classify FILE --format json` of each exchange file the proxy recorded, by its number.
fn classified(dir: &Path) -> Vec<(usize, Value)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|f| {
            let n: usize = f.file_name().unwrap().to_str().unwrap()[..4]
                .parse()
                .unwrap();
            let out = run(
                bin().arg("classify").arg(&f).args(["--format", "json"]),
                None,
            );
            let v: Value = serde_json::from_slice(&out.stdout)
                .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
            (n, v)
        })
        .collect()
}

/// Scenarios whose one `echo` call does not show what they do (each is tested by
/// `serve_stdio` on its own).
const INTERACTIVE: &[&str] = &[
    "input_required",
    "server_request_on_stream",
    "stdio_banner",
    "stdio_after_cancel",
];

#[test]
fn the_stdio_proxy_judges_as_serve_did_and_as_classify_does_on_its_recordings() {
    let mut checked = 0;
    for info in SCENARIOS
        .iter()
        .filter(|s| s.transports.contains(&Transport::Stdio) && !INTERACTIVE.contains(&s.name))
    {
        for rev in info.revisions.iter().copied() {
            let what = format!("{} {rev}", info.example);
            let dir = temp_dir("proxy-stdio");
            let (log, rec, served) = (
                dir.join("log.jsonl"),
                dir.join("rec"),
                dir.join("served.jsonl"),
            );
            let mut p = Proxied::start(
                &[
                    "--log",
                    log.to_str().unwrap(),
                    "--record",
                    rec.to_str().unwrap(),
                ],
                &[
                    &exe(),
                    "serve",
                    "--stdio",
                    "--scenario",
                    info.example,
                    "--log",
                    served.to_str().unwrap(),
                ],
            );
            if rev == Protocol::V2025_11_25 {
                p.send(
                    &json!({"jsonrpc": "2.0", "id": "init", "method": "initialize",
                    "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                               "clientInfo": {"name": "proxy-test", "version": "1"}}}),
                );
                assert!(p.response(&json!("init")).is_some(), "{what}: initialize");
                p.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
            }
            p.send(
                &json!({"jsonrpc": "2.0", "id": "list", "method": "tools/list",
                           "params": params_for(rev, json!({}))}),
            );
            assert!(p.response(&json!("list")).is_some(), "{what}: tools/list");
            p.send(&json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
                "params": params_for(rev, json!({"name": "echo", "arguments": {"text": "hi"}}))}));
            let _ = p.response(&json!(7));
            // serve records a call once it has judged what it sent, and gives the calls under
            // way a bounded moment once its stdin ends, which a busy machine can outlast: its
            // stdin is closed once the call is recorded (or the server has exited).
            let until = Instant::now() + WAIT;
            while !jsonl(&served).iter().any(|r| r["method"] == "tools/call")
                && !p.exited()
                && Instant::now() < until
            {
                std::thread::sleep(Duration::from_millis(20));
            }
            let ended = p.finish();
            let stderr = String::from_utf8_lossy(&ended.stderr);
            assert!(
                stderr.contains("mcp-verdict proxy: 1 tools/call judged"),
                "{what}: {stderr}"
            );
            // serve's own verdict on what it sent (its log written, at the latest, as it
            // exits).
            let until = Instant::now() + WAIT;
            let served = loop {
                let records = jsonl(&served);
                if records.iter().any(|r| r["method"] == "tools/call") || Instant::now() > until {
                    break records;
                }
                std::thread::sleep(Duration::from_millis(50));
            };
            let served = served
                .iter()
                .rev()
                .find(|r| r["method"] == "tools/call")
                .unwrap_or_else(|| panic!("{what}: serve recorded no call ({:?})", ended.code));
            let all = jsonl(&log);
            let (logged, setup): (Vec<Value>, Vec<Value>) = all.iter().cloned().partition(is_call);
            assert_eq!(logged.len(), 1, "{what}: {all:?}");
            // The setup answers are judged too: initialize (2025-11-25) and tools/list.
            let want_setup = match rev {
                Protocol::V2025_11_25 => 2,
                Protocol::V2026_07_28 => 1,
            };
            assert_eq!(setup.len(), want_setup, "{what}: {all:?}");
            let v = &logged[0]["verdicts"][0];
            assert_eq!(v["protocol"], rev.as_str(), "{what}");
            assert_eq!(
                v["outcome"], served["outcome"],
                "{what}: proxy and serve disagree"
            );
            assert_eq!(
                v["cites"][0]["id"], served["rule"],
                "{what}: the deciding rule"
            );
            // classify --transcript on the proxy's transcript.
            let out = run(
                bin()
                    .args(["classify", "--transcript"])
                    .arg(rec.join("transcript.jsonl"))
                    .args(["--format", "json"]),
                None,
            );
            let t: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
                panic!("{what}: {e}: {}", String::from_utf8_lossy(&out.stderr))
            });
            assert_eq!(t["calls"].as_array().map(Vec::len), Some(1), "{what}: {t}");
            assert_eq!(
                t["calls"][0]["judgement"]["verdicts"], logged[0]["verdicts"],
                "{what}: classify --transcript disagrees with the log"
            );
            // classify on the exchange files, the setup answers' included.
            let again = classified(&rec);
            assert_eq!(again.len(), all.len(), "{what}");
            for (n, doc) in again {
                let r = all
                    .iter()
                    .find(|r| r["line"] == n)
                    .unwrap_or_else(|| panic!("{what}: no log record {n}"));
                assert_eq!(
                    doc["verdicts"], r["verdicts"],
                    "{what}: classify on exchange file {n} disagrees with the log"
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 20, "{checked} sessions");
}

/// The setup answers are judged over stdio as over HTTP: `serve --stdio`'s `stdio_banner`
/// writes a plain-text line on stdout before its first answer (to `initialize`, or to
/// `server/discover`), and that answer's record carries the error finding, a line on stderr
/// says so, and `classify` on its exchange file agrees; under `baseline` every setup answer is
/// clean.
#[test]
fn the_stdio_proxy_judges_the_setup_answers() {
    for scenario in ["stdio_banner", "baseline"] {
        for rev in Protocol::all() {
            let what = format!("{scenario} {rev}");
            let dir = temp_dir("proxy-stdio-setup");
            let (log, rec) = (dir.join("log.jsonl"), dir.join("rec"));
            let mut p = Proxied::start(
                &[
                    "--log",
                    log.to_str().unwrap(),
                    "--record",
                    rec.to_str().unwrap(),
                ],
                &[&exe(), "serve", "--stdio", "--scenario", scenario],
            );
            let first = match rev {
                Protocol::V2025_11_25 => {
                    p.send(
                        &json!({"jsonrpc": "2.0", "id": "init", "method": "initialize",
                        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                                   "clientInfo": {"name": "proxy-test", "version": "1"}}}),
                    );
                    assert!(p.response(&json!("init")).is_some(), "{what}: initialize");
                    p.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
                    "initialize"
                }
                Protocol::V2026_07_28 => {
                    p.send(
                        &json!({"jsonrpc": "2.0", "id": "disc", "method": "server/discover",
                        "params": params_for(rev, json!({}))}),
                    );
                    assert!(p.response(&json!("disc")).is_some(), "{what}: discover");
                    "server/discover"
                }
            };
            p.send(
                &json!({"jsonrpc": "2.0", "id": "list", "method": "tools/list",
                "params": params_for(rev, json!({}))}),
            );
            assert!(p.response(&json!("list")).is_some(), "{what}: tools/list");
            let ended = p.finish();
            let stderr = String::from_utf8_lossy(&ended.stderr);
            let records = jsonl(&log);
            let names: Vec<&str> = records
                .iter()
                .filter_map(|r| r["exchange"].as_str())
                .collect();
            assert_eq!(
                names,
                [
                    format!("proxy 0001 {first}"),
                    "proxy 0002 tools/list".to_string()
                ],
                "{what}"
            );
            for r in &records {
                assert_eq!(r["verdicts"][0]["protocol"], rev.as_str(), "{what}: {r}");
            }
            let banner = scenario == "stdio_banner";
            assert_eq!(
                error_rules(&records[0]),
                if banner {
                    vec!["transport.stdio.non-mcp-output".to_string()]
                } else {
                    vec![]
                },
                "{what}: {}",
                records[0]
            );
            assert_eq!(error_rules(&records[1]), Vec::<String>::new(), "{what}");
            // One line per setup answer on stderr, as over HTTP; the summary counts them.
            let line = stderr
                .lines()
                .find(|l| l.contains(&format!("[0001] {first}")))
                .unwrap_or_else(|| panic!("{what}: no line for {first}: {stderr}"));
            assert_eq!(
                line.contains("transport.stdio.non-mcp-output"),
                banner,
                "{what}: {line}"
            );
            assert!(stderr.contains("[0002] tools/list"), "{what}: {stderr}");
            assert!(
                stderr.contains("0 tools/call judged, 2 setup answers judged"),
                "{what}: {stderr}"
            );
            // classify on the recorded exchange files gives the logged verdicts.
            let again = classified(&rec);
            assert_eq!(again.len(), 2, "{what}");
            for (n, doc) in again {
                assert_eq!(
                    doc["verdicts"],
                    records[n - 1]["verdicts"],
                    "{what}: exchange file {n}"
                );
            }
        }
    }
}

/// The bytes a client writes reach the server, and the bytes the server writes reach the
/// client, exactly: lines split across reads, a line of a megabyte, bytes that are not
/// UTF-8, `\r\n`, a last line without its newline; the server's stderr comes through with the
/// proxy's lines only between its lines.
#[test]
fn the_stdio_proxy_relays_every_byte() {
    let dir = temp_dir("proxy-stdio-bytes");
    let big = "x".repeat(1 << 20);
    let mut to_server = Vec::new();
    to_server.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"echo\",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}\r\n");
    to_server.extend_from_slice(format!("{{\"big\":\"{big}\"}}\n").as_bytes());
    to_server.extend_from_slice(b"\xff\xfe not utf-8\n\nno newline at the end");
    let mut from_server = Vec::new();
    from_server.extend_from_slice(b"starting\n");
    from_server.extend_from_slice(format!("{{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{{\"content\":[{{\"type\":\"text\",\"text\":\"{big}\"}}],\"resultType\":\"complete\"}}}}\r\n").as_bytes());
    from_server.extend_from_slice(b"\x80 binary \x00 line\npartial");
    let server_err = b"warming up\nhalf a line, then the rest of it\nlast words".to_vec();
    let out_file = dir.join("out");
    let err_file = dir.join("err");
    let in_file = dir.join("in");
    std::fs::write(&out_file, &from_server).unwrap();
    std::fs::write(&err_file, &server_err).unwrap();
    // The server: keeps what it reads, writes its script once it has read everything.
    let script = format!(
        "cat > '{}'; head -c 40 '{}' >&2; cat '{}'; tail -c +41 '{}' >&2",
        in_file.display(),
        err_file.display(),
        out_file.display(),
        err_file.display()
    );
    let log = dir.join("log.jsonl");
    let mut p = Proxied::start(&["--log", log.to_str().unwrap()], &["sh", "-c", &script]);
    // Written in pieces that split lines anywhere.
    for piece in to_server.chunks(7777) {
        p.send_raw(piece);
    }
    let ended = p.finish();
    assert_eq!(ended.code, Some(0));
    assert_eq!(
        std::fs::read(&in_file).unwrap(),
        to_server,
        "what the server read"
    );
    assert_eq!(ended.stdout, from_server, "what the client read");
    // stderr: the server's bytes, the proxy's lines only between its lines.
    let mut theirs = Vec::new();
    for line in ended.stderr.split_inclusive(|b| *b == b'\n') {
        if !line.starts_with(b"mcp-verdict proxy: ") && !line.starts_with(b"  ") {
            theirs.extend_from_slice(line);
        }
    }
    let mut want = server_err.clone();
    want.push(b'\n');
    assert_eq!(
        String::from_utf8_lossy(&theirs),
        String::from_utf8_lossy(&want),
        "the server's stderr"
    );
    // And the call was judged: the response came after the request, with a banner line.
    let logged = jsonl(&log);
    assert_eq!(logged.len(), 1, "{logged:?}");
    assert_eq!(logged[0]["verdicts"][0]["outcome"], "TOOL_SUCCESS");
}

/// The proxy ends with the server's status and passes a SIGTERM on to it.
#[test]
fn the_stdio_proxy_exits_as_its_server_did() {
    let p = Proxied::start(&["--quiet"], &["sh", "-c", "exit 7"]);
    assert_eq!(p.finish().code, Some(7));
    let p = Proxied::start(&["--quiet"], &["sleep", "30"]);
    let pid = p.child.id();
    std::thread::sleep(Duration::from_millis(300));
    let t = Instant::now();
    let _ = std::process::Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status();
    let ended = p.finish();
    // sleep, ended by SIGTERM (15): 128 + 15.
    assert_eq!(
        ended.code,
        Some(143),
        "{}",
        String::from_utf8_lossy(&ended.stderr)
    );
    assert!(t.elapsed() < Duration::from_secs(4));
}

/// The `mcpServers` entry the README shows, as a desktop client reads it: the command and its
/// arguments.
fn desktop_entry() -> (String, Vec<String>) {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let block = crate::support::markdown::json_blocks(&readme)
        .into_iter()
        .find(|b| b.contains("mcpServers"))
        .expect("the README shows an mcpServers entry");
    let v: Value = serde_json::from_str(&block).unwrap();
    let (_, entry) = v["mcpServers"]
        .as_object()
        .and_then(|m| m.iter().next())
        .expect("one server");
    let command = entry["command"].as_str().unwrap().to_string();
    let args = entry["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap().to_string())
        .collect();
    (command, args)
}

/// The proxy launched exactly as a desktop client launches the README's `mcpServers` entry:
/// `command` looked up on the client's `PATH`, the entry's `args` as they are (but for the log
/// path), the client's environment passed through, a working directory of the client's
/// choosing, and stdin closed when the client is done. `npx` on that `PATH` is a stand-in for
/// the package download (the tests use no network): it notes what it was given and runs the
/// installed `server-everything` (or, without the peers, `serve --stdio`). The client sets up
/// a session, lists the tools and calls `echo`; the proxy relays it all, logs the setup
/// answers and the call, and ends with the server once stdin is closed.
#[test]
fn the_proxy_runs_as_the_readme_desktop_entry_says() {
    use std::os::unix::fs::PermissionsExt;
    let (command, args) = desktop_entry();
    assert_eq!(command, "mcp-verdict", "{args:?}");
    let dir = temp_dir("proxy-desktop");
    let (bin_dir, cwd, log, noted) = (
        dir.join("bin"),
        dir.join("cwd"),
        dir.join("calls.jsonl"),
        dir.join("npx-saw"),
    );
    std::fs::create_dir_all(&bin_dir).unwrap();
    std::fs::create_dir_all(&cwd).unwrap();
    std::os::unix::fs::symlink(exe(), bin_dir.join(&command)).unwrap();
    let everything = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/peers/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let quote = |s: &str| format!("'{}'", s.replace('\'', r"'\''"));
    let server = if everything.is_file() {
        format!("node {} stdio", quote(everything.to_str().unwrap()))
    } else {
        format!("{} serve --stdio", quote(&exe()))
    };
    let npx = bin_dir.join("npx");
    std::fs::write(
        &npx,
        format!(
            "#!/bin/sh\nprintf '%s\\n' \"$*\" \"$DESKTOP_CLIENT_SETTING\" \"$(pwd -P)\" > {}\nexec {server}\n",
            quote(noted.to_str().unwrap())
        ),
    )
    .unwrap();
    std::fs::set_permissions(&npx, std::fs::Permissions::from_mode(0o755)).unwrap();
    // The entry's arguments, the log's path made this test's own.
    let at = args.iter().position(|a| a == "--log").expect("--log") + 1;
    let mut args = args;
    args[at] = log.to_str().unwrap().to_string();
    let after = args.iter().position(|a| a == "--").expect("--");
    let server_args = args[after + 1..].to_vec();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new(&command);
    cmd.args(&args)
        .env("PATH", path)
        .env("DESKTOP_CLIENT_SETTING", "from the client's env")
        .current_dir(&cwd);
    let mut p = Proxied::spawn(cmd);
    p.send(&json!({"jsonrpc": "2.0", "id": 1, "method": "initialize",
        "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                   "clientInfo": {"name": "desktop", "version": "1"}}}));
    let init = p.response(&json!(1)).expect("initialize answered");
    assert!(init.get("result").is_some(), "{init}");
    p.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    p.send(&json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}));
    let list = p.response(&json!(2)).expect("tools/list answered");
    let echo = list["result"]["tools"]
        .as_array()
        .and_then(|t| t.iter().find(|t| t["name"] == "echo"))
        .unwrap_or_else(|| panic!("an echo tool: {list}"))
        .clone();
    // server-everything's echo takes `message`, serve's `text`.
    let field = echo["inputSchema"]["properties"]
        .as_object()
        .and_then(|p| p.keys().next().cloned())
        .unwrap_or_else(|| "text".into());
    p.send(&json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
        "params": {"name": "echo", "arguments": {field: "hi"}}}));
    let call = p.response(&json!(3)).expect("tools/call answered");
    assert!(call.get("result").is_some(), "{call}");
    let ended = p.finish();
    let stderr = String::from_utf8_lossy(&ended.stderr);
    // npx got the entry's arguments, the client's environment and working directory.
    let saw = std::fs::read_to_string(&noted).unwrap();
    let saw: Vec<&str> = saw.lines().collect();
    assert_eq!(server_args[0], "npx", "{server_args:?}");
    assert_eq!(
        saw,
        [
            server_args[1..].join(" ").as_str(),
            "from the client's env",
            cwd.canonicalize().unwrap().to_str().unwrap()
        ],
        "{stderr}"
    );
    // One verdict for the call, and the setup answers judged, in the log the entry names.
    let records = jsonl(&log);
    let names: Vec<&str> = records
        .iter()
        .filter_map(|r| r["exchange"].as_str())
        .collect();
    assert_eq!(
        names,
        [
            "proxy 0001 initialize",
            "proxy 0002 tools/list",
            "proxy 0003 tools/call echo"
        ],
        "{stderr}"
    );
    assert!(
        stderr.contains("mcp-verdict proxy: 1 tools/call judged, 2 setup answers judged"),
        "{stderr}"
    );
    assert_eq!(records[2]["verdicts"][0]["protocol"], "2025-11-25");
    eprintln!(
        "desktop entry through the proxy: {}",
        records
            .iter()
            .map(|r| format!(
                "{} {} {:?}",
                r["exchange"].as_str().unwrap_or_default(),
                r["verdicts"][0]["outcome"],
                error_rules(r)
            ))
            .collect::<Vec<_>>()
            .join("; ")
    );
}
