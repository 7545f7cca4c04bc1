//! No secret reaches any output. Secrets, each carrying a distinct marker, are seeded into
//! every input path (exchange files: request and response headers, the error message, the
//! error data, a body that is not JSON, a value a finding quotes; a HAR capture: URL query
//! parameters, headers, the error; JSON Lines; a live server seen by `probe`: its error
//! message and data, a cookie, an echoed `--header` value, the URL; a client seen by `serve`:
//! its name, a tool name, a method) and every command runs in every output format, with its
//! records and logs. No marker may appear in stdout, stderr or any file written; with
//! `--no-redact` the markers that an output shows do appear, so the check is not vacuous.

use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::support::cli::{bin, run};
use crate::support::http::{Options, Scripted, respond, serve_with};
use crate::support::temp::temp_dir;

/// Every marker seeded below starts with this.
const MARK: &str = "SECRETMARK";

/// The markers found in `text`.
fn marks(text: &str) -> Vec<String> {
    let mut out: Vec<String> = text
        .match_indices(MARK)
        .map(|(i, _)| {
            text[i..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect()
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

fn assert_no_marks(what: &str, text: &str) {
    let found = marks(text);
    assert!(
        found.is_empty(),
        "{what}: secrets reach the output: {found:?}\n{text}"
    );
}

fn assert_marks(what: &str, text: &str, expected: &[&str]) {
    let found = marks(text);
    for m in expected {
        assert!(
            found.iter().any(|f| f.starts_with(m)),
            "{what} with --no-redact does not show {m} (found {found:?}); the test would be \
             vacuous\n{text}"
        );
    }
}

/// Runs the binary with `args` (and `--no-redact` when `raw`), returning stdout + stderr.
fn cmd(args: &[&str], stdin: Option<&[u8]>, raw: bool) -> String {
    let mut c = bin();
    c.args(args).env_remove("CLICOLOR_FORCE");
    if raw {
        c.arg("--no-redact");
    }
    let o = run(&mut c, stdin);
    assert!(
        o.status.code().is_some_and(|c| c <= 3),
        "{args:?} ended with {:?}: {}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr)
}

/// Everything written under `dir`, concatenated.
fn files_text(dir: &Path) -> String {
    let mut out = String::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.push_str(&files_text(&p));
        } else {
            out.push_str(&String::from_utf8_lossy(&std::fs::read(&p).unwrap()));
            out.push('\n');
        }
    }
    out
}

/// An exchange file: a tools/call with secret request headers, answered with `response`.
fn exchange(response: Value) -> Value {
    json!({
        "protocol": "2026-07-28",
        "request": {
            "method": "POST",
            "url": "http://127.0.0.1:8931/mcp?access_token=SECRETMARKQ1",
            "headers": {
                "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo",
                "Authorization": "Bearer SECRETMARKR1abcdef",
                "Cookie": "sid=SECRETMARKR2"
            },
            "body": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": "echo", "arguments": {"password": "SECRETMARKR3"}}}
        },
        "response": response
    })
}

/// A JSON-RPC error whose message and data carry secrets, with a `Set-Cookie`.
fn error_exchange() -> Value {
    exchange(json!({
        "status": 200,
        "headers": {"Content-Type": "application/json", "Set-Cookie": "sid=SECRETMARKR4"},
        "body_json": {"jsonrpc": "2.0", "id": 1, "error": {
            "code": -32000,
            "message": "upstream refused Authorization: Bearer SECRETMARKE1abcdef\nsee \
                        https://auth.example/cb?code=SECRETMARKE2&state=1",
            "data": {
                "token": "SECRETMARKD1",
                "detail": "retry with sk-SECRETMARKD2abcdefghij",
                "request": {"headers": {"Cookie": "sid=SECRETMARKD3"}},
                "trace": ["client_secret=SECRETMARKD4", 1, null]
            }
        }}
    }))
}

/// A body that is not JSON (an error page) quoting a credential.
fn html_exchange() -> Value {
    exchange(json!({
        "status": 200,
        "headers": {"Content-Type": "application/json"},
        "body": "<html>Authorization: Bearer SECRETMARKX1abcdef rejected</html>"
    }))
}

/// A result whose `resultType` (quoted by a finding and its excerpt) is a credential.
fn finding_exchange() -> Value {
    exchange(json!({
        "status": 200,
        "headers": {"Content-Type": "application/json"},
        "body_json": {"jsonrpc": "2.0", "id": 1, "result": {
            "resultType": "Bearer SECRETMARKF1abcdef",
            "content": [{"type": "text", "text": "x"}]
        }}
    }))
}

/// Markers an output shows with `--no-redact` (what a format prints of the server's text).
const ERROR_MARKS: [&str; 6] = [
    "SECRETMARKE1",
    "SECRETMARKE2",
    "SECRETMARKD1",
    "SECRETMARKD2",
    "SECRETMARKD3",
    "SECRETMARKD4",
];

#[test]
fn exchange_files_in_every_format() {
    let dir = temp_dir("secrets-exchanges");
    let write = |name: &str, v: &Value| {
        let p = dir.join(name);
        std::fs::write(&p, v.to_string()).unwrap();
        p.to_str().unwrap().to_string()
    };
    let error = write("error.json", &error_exchange());
    let html = write("html.json", &html_exchange());
    let finding = write("finding.json", &finding_exchange());
    for raw in [false, true] {
        // classify: text and JSON of each file.
        for (file, shown_json) in [
            (&error, &ERROR_MARKS[..]),
            (&html, &["SECRETMARKX1"][..]),
            (&finding, &["SECRETMARKF1"][..]),
        ] {
            for format in ["text", "json"] {
                let what = format!("classify {file} --format {format}");
                let out = cmd(&["classify", file, "--format", format], None, raw);
                if !raw {
                    assert_no_marks(&what, &out);
                } else if format == "json" {
                    assert_marks(&what, &out, shown_json);
                }
            }
        }
        // check: every report format, findings and excerpts included.
        let d = dir.to_str().unwrap();
        for format in [
            "text", "json", "ndjson", "markdown", "junit", "sarif", "html", "github", "gitlab",
        ] {
            let what = format!("check --format {format}");
            let out = cmd(
                &["check", d, "--format", format, "-v", "--color", "never"],
                None,
                raw,
            );
            if raw {
                assert_marks(&what, &out, &["SECRETMARKF1"]);
            } else {
                assert_no_marks(&what, &out);
            }
        }
        // check --output: the same reports written to files.
        let reports = temp_dir("secrets-reports");
        let mut args = vec!["check".to_string(), d.to_string(), "-v".into()];
        for format in ["json", "sarif", "html", "junit", "markdown"] {
            args.extend([
                "--format".into(),
                format.into(),
                "--output".into(),
                reports.join(format).to_str().unwrap().into(),
            ]);
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = cmd(&args, None, raw) + &files_text(&reports);
        if raw {
            assert_marks("check --output", &out, &["SECRETMARKF1"]);
        } else {
            assert_no_marks("check --output", &out);
        }
        // classify --jsonl: the three exchanges and a line that cannot be read.
        let lines = [error_exchange(), html_exchange(), finding_exchange()]
            .iter()
            .map(Value::to_string)
            .chain([r#"{"response": {"status": "Bearer SECRETMARKL1abcdef"}}"#.to_string()])
            .collect::<Vec<_>>()
            .join("\n");
        let out = cmd(&["classify", "--jsonl", "-"], Some(lines.as_bytes()), raw);
        if raw {
            let mut all = ERROR_MARKS.to_vec();
            all.extend(["SECRETMARKX1", "SECRETMARKF1", "SECRETMARKL1"]);
            assert_marks("classify --jsonl", &out, &all);
        } else {
            assert_no_marks("classify --jsonl", &out);
        }
    }
}

fn har() -> Value {
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "echo", "arguments": {}}});
    let response = json!({"jsonrpc": "2.0", "id": 1, "error": {
        "code": -32000,
        "message": "denied: Bearer SECRETMARKH1abcdef",
        "data": {"apiKey": "SECRETMARKH2"}
    }});
    let entry = |url: &str| {
        json!({
            "startedDateTime": "2026-05-12T09:14:03.101Z",
            "time": 1.0,
            "request": {
                "method": "POST", "url": url, "httpVersion": "HTTP/1.1",
                "headers": [{"name": "Content-Type", "value": "application/json"},
                            {"name": "Authorization", "value": "Bearer SECRETMARKH3abcdef"},
                            {"name": "MCP-Protocol-Version", "value": "2026-07-28"},
                            {"name": "Mcp-Method", "value": "tools/call"},
                            {"name": "Mcp-Name", "value": "echo"}],
                "queryString": [], "cookies": [], "headersSize": -1, "bodySize": -1,
                "postData": {"mimeType": "application/json", "text": body.to_string()}
            },
            "response": {
                "status": 200, "statusText": "OK", "httpVersion": "HTTP/1.1",
                "headers": [{"name": "Content-Type", "value": "application/json"},
                            {"name": "Set-Cookie", "value": "sid=SECRETMARKH4"}],
                "cookies": [],
                "content": {"size": -1, "mimeType": "application/json", "text": response.to_string()},
                "redirectURL": "", "headersSize": -1, "bodySize": -1
            },
            "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}
        })
    };
    json!({"log": {
        "version": "1.2",
        "creator": {"name": "test", "version": "1"},
        "entries": [
            entry("http://127.0.0.1:3001/mcp?access_token=SECRETMARKU1&page=2&sig=SECRETMARKU2"),
            entry("http://bob:SECRETMARKU3@127.0.0.1:3001/mcp#id_token=SECRETMARKU4")
        ]
    }})
}

#[test]
fn har_capture_in_text_and_json() {
    let f = temp_dir("secrets-har").join("capture.har");
    std::fs::write(&f, har().to_string()).unwrap();
    let f = f.to_str().unwrap();
    for raw in [false, true] {
        for format in ["text", "json"] {
            let what = format!("classify --har --format {format}");
            let out = cmd(&["classify", "--har", f, "--format", format], None, raw);
            if !raw {
                assert_no_marks(&what, &out);
                // The names stay: what was redacted can be told.
                assert!(
                    out.contains("access_token=[REDACTED]&page=2"),
                    "{what}\n{out}"
                );
                continue;
            }
            let mut shown = vec![
                "SECRETMARKU1",
                "SECRETMARKU2",
                "SECRETMARKU3",
                "SECRETMARKU4",
            ];
            if format == "json" {
                shown.extend(["SECRETMARKH1", "SECRETMARKH2"]);
            }
            assert_marks(&what, &out, &shown);
        }
    }
}

/// The secret `probe --header` sends; the server echoes it in its error message.
const CUSTOM: &str = "SECRETMARKP1custom";

/// A loopback MCP server (2025-11-25) whose tools/call answers are JSON-RPC errors carrying
/// secrets, with a cookie; it echoes the `X-Custom-Auth` header it received. Stops when dropped.
fn leaky_server() -> Scripted {
    let options = Options {
        read_timeout: Some(Duration::from_secs(5)),
        ..Options::default()
    };
    serve_with(options, |request, stream, _| {
        let custom = request.header("x-custom-auth").unwrap_or("");
        let req = &request.body;
        let id = req.get("id").cloned();
        let answer = match req["method"].as_str() {
            Some("initialize") => json!({"result": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "leaky token=SECRETMARKP3", "version": "1"}
            }}),
            Some("tools/list") => json!({"result": {"tools": [
                {"name": "echo", "inputSchema": {"type": "object"}}
            ]}}),
            Some("tools/call") => json!({"error": {
                "code": -32000,
                "message": format!(
                    "you sent X-Custom-Auth {custom}; upstream wants Bearer SECRETMARKP4abcdef"
                ),
                "data": {"session_token": "SECRETMARKP5", "hint": "password=SECRETMARKP6"}
            }}),
            _ => json!({"error": {"code": -32601, "message": "no"}}),
        };
        let (status, text) = match id {
            Some(id) => {
                let mut msg = json!({"jsonrpc": "2.0", "id": id});
                msg.as_object_mut()
                    .unwrap()
                    .extend(answer.as_object().unwrap().clone());
                ("200 OK", msg.to_string())
            }
            None => ("202 Accepted", String::new()),
        };
        respond(
            stream,
            status,
            "Content-Type: application/json\r\nMcp-Session-Id: s1\r\nSet-Cookie: sid=SECRETMARKP7\r\n",
            &text,
        )
    })
}

#[test]
fn probe_output_records_and_log() {
    let server = leaky_server();
    let url = format!("http://{}/mcp?api_key=SECRETMARKP2&page=1", server.addr());
    for raw in [false, true] {
        for format in ["text", "json"] {
            let dir = temp_dir("secrets-probe");
            let records = dir.join("records");
            let log = dir.join("probe.jsonl");
            let what = format!("probe --format {format} (records, log)");
            let out = cmd(
                &[
                    "probe",
                    &url,
                    "--protocol",
                    "2025-11-25",
                    "--tool",
                    "echo",
                    "--no-auto-calls",
                    "--header",
                    &format!("X-Custom-Auth: {CUSTOM}"),
                    "--header",
                    "Authorization: Bearer SECRETMARKP8abcdef",
                    "--record",
                    records.to_str().unwrap(),
                    "--log",
                    log.to_str().unwrap(),
                    "--format",
                    format,
                    "--color",
                    "never",
                ],
                None,
                raw,
            );
            let written = files_text(&dir);
            assert!(written.contains("tools/call"), "{what}: nothing recorded");
            // The records re-judge; what classify shows of them is clean too.
            let rejudged = std::fs::read_dir(&records)
                .unwrap()
                .map(|e| {
                    let p = e.unwrap().path();
                    cmd(
                        &["classify", p.to_str().unwrap(), "--format", "json"],
                        None,
                        raw,
                    )
                })
                .collect::<String>();
            let all = format!("{out}\n{written}\n{rejudged}");
            if !raw {
                assert_no_marks(&what, &all);
                assert!(
                    written.contains("X-Custom-Auth"),
                    "{what}: header name lost"
                );
                continue;
            }
            // Recorded as sent and received: the header, the cookie, the error.
            assert_marks(
                &what,
                &written,
                &[
                    "SECRETMARKP1",
                    "SECRETMARKP2",
                    "SECRETMARKP4",
                    "SECRETMARKP5",
                    "SECRETMARKP7",
                    "SECRETMARKP8",
                ],
            );
            if format == "json" {
                assert_marks(
                    &what,
                    &out,
                    &[
                        "SECRETMARKP1",
                        "SECRETMARKP3",
                        "SECRETMARKP4",
                        "SECRETMARKP6",
                    ],
                );
            }
        }
    }
}

/// `serve` writes what the client sent to its log and its stderr lines: a client name, a tool
/// name (quoted by the error it answers) and a method carrying secrets.
#[test]
fn serve_log_and_stderr() {
    use crate::support::serve::{modern_headers, post};
    for raw in [false, true] {
        let dir = temp_dir("secrets-serve");
        let log = dir.join("serve.jsonl");
        let mut c = bin();
        c.args(["serve", "--port", "0", "--log"])
            .arg(&log)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        if raw {
            c.arg("--no-redact");
        }
        let mut child = c.spawn().unwrap();
        let mut first = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut first)
            .unwrap();
        let addr: std::net::SocketAddr = first
            .trim_end()
            .trim_start_matches("listening on http://")
            .trim_end_matches("/mcp")
            .parse()
            .unwrap_or_else(|e| panic!("{first:?}: {e}"));
        let meta = json!({
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
            "io.modelcontextprotocol/clientInfo": {
                "name": "agent Bearer SECRETMARKS1abcdef", "version": "token=SECRETMARKS2"
            }
        });
        let tool = "sk-SECRETMARKS3abcdefghij";
        let mut headers = modern_headers("tools/call", Some(tool));
        headers.push(("Authorization", "Bearer SECRETMARKS4abcdef".into()));
        let call = json!({"jsonrpc": "2.0", "id": "token=SECRETMARKS5", "method": "tools/call",
                          "params": {"name": tool, "arguments": {}, "_meta": meta}});
        post(addr, &headers, &call);
        let method = "x/Bearer SECRETMARKS6abcdef";
        let odd = json!({"jsonrpc": "2.0", "id": 2, "method": method,
                         "params": {"_meta": meta}});
        post(addr, &modern_headers(method, None), &odd);
        let deadline = Instant::now() + Duration::from_secs(5);
        while std::fs::read_to_string(&log).map_or(0, |t| t.lines().count()) < 2 {
            assert!(Instant::now() < deadline, "no log lines");
            std::thread::sleep(Duration::from_millis(20));
        }
        child.kill().unwrap();
        let _ = child.wait();
        let mut err = String::new();
        child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut err)
            .unwrap();
        let logged = std::fs::read_to_string(&log).unwrap();
        if raw {
            assert_marks(
                "serve --log",
                &logged,
                &[
                    "SECRETMARKS1",
                    "SECRETMARKS2",
                    "SECRETMARKS5",
                    "SECRETMARKS6",
                ],
            );
            assert_marks("serve stderr", &err, &["SECRETMARKS6"]);
        } else {
            assert_no_marks("serve --log", &logged);
            assert_no_marks("serve stderr", &err);
            assert!(logged.contains("[REDACTED]"), "{logged}");
        }
    }
}
