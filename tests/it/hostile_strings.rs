//! Strings from an exchange are shown, never obeyed: a server's `resultType`, member names, a
//! JSON-RPC error, tool and server names, HAR URLs and file names carrying terminal escapes
//! (OSC title, clear screen, 8-bit CSI), bidi overrides, line breaks that would forge a
//! workflow command, NUL and DEL go through every command and format; none survives raw.
//!
//! Text formats may hold line breaks of their own and, with `--color always`, SGR colour
//! sequences of their own (`ESC [ digits m`); nothing else unsafe. JSON formats stay valid
//! JSON that parses back to the exact strings.

use std::path::PathBuf;
use std::sync::LazyLock;
use std::time::Duration;

use mcp_verdict::outputs::safe::is_unsafe;
use serde_json::{Value, json};

use crate::support::cli::{bin, run};
use crate::support::http::{Options, Scripted, respond, serve_with};
use crate::support::temp::temp_dir;

/// Everything a terminal or a log reader might obey.
const H: &str = "\u{1b}]0;pwned\u{7}\u{1b}[2J\u{9b}31m\u{202e}evil\u{2066}\r\n::error::forged \u{0}\u{7f}\u{85}\u{2028}end";

/// What the hostile string looks like once escaped for text.
const H_SHOWN: &str =
    "\\u{1b}]0;pwned\\u{7}\\u{1b}[2J\\u{9b}31m\\u{202e}evil\\u{2066}\\r\\n::error::forged";

/// The first unsafe character of `out` that is not allowed, with its context.
fn offence(out: &str, newlines: bool, sgr: bool) -> Option<String> {
    let chars: Vec<char> = out.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\n' && newlines {
            i += 1;
            continue;
        }
        if c == '\u{1b}' && sgr && chars.get(i + 1) == Some(&'[') {
            let mut j = i + 2;
            while j < chars.len() && (chars[j].is_ascii_digit() || chars[j] == ';') {
                j += 1;
            }
            if chars.get(j) == Some(&'m') {
                i = j + 1;
                continue;
            }
        }
        if is_unsafe(c) {
            let from = i.saturating_sub(40);
            let to = (i + 20).min(chars.len());
            let context: String = chars[from..to].iter().collect();
            return Some(format!("U+{:04X} at char {i}: {context:?}", c as u32));
        }
        i += 1;
    }
    None
}

fn assert_safe(what: &str, out: &str, newlines: bool, sgr: bool) {
    assert!(!out.is_empty(), "{what}: no output");
    assert_clean(what, out, newlines, sgr);
}

/// Like [`assert_safe`], for a stream that may be empty (stderr).
fn assert_clean(what: &str, out: &str, newlines: bool, sgr: bool) {
    if let Some(o) = offence(out, newlines, sgr) {
        panic!("{what}: {o}");
    }
    for line in out.lines() {
        assert!(
            !line.starts_with("::error::forged"),
            "{what}: a line forged from the exchange: {line:?}"
        );
    }
}

/// Text output: safe, and the hostile string is shown (escaped), so the check is not vacuous.
fn assert_text(what: &str, out: &str, sgr: bool) {
    assert_safe(what, out, true, sgr);
    assert!(
        out.contains(H_SHOWN) || out.contains(&H_SHOWN.replace('\\', "\\\\")),
        "{what}: the hostile string is not shown:\n{out}"
    );
}

/// Every string value in a JSON document, recursively.
fn strings(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(a) => a.iter().for_each(|x| strings(x, out)),
        Value::Object(m) => m.iter().for_each(|(k, x)| {
            out.push(k.clone());
            strings(x, out)
        }),
        _ => {}
    }
}

/// JSON output: the bytes are safe (no raw newline inside a value either), the document
/// parses, and some value carries the hostile string exactly.
fn assert_json(what: &str, out: &str) {
    assert_safe(what, out, true, false);
    let docs: Vec<Value> = if out.trim_start().starts_with('[') || !out.contains("\n{") {
        vec![serde_json::from_str(out).unwrap_or_else(|e| panic!("{what}: {e}"))]
    } else {
        out.lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{what}: {e}: {l}")))
            .collect()
    };
    let mut all = Vec::new();
    docs.iter().for_each(|d| strings(d, &mut all));
    assert!(
        all.iter()
            .any(|s| s.contains(H) || s.contains(&*mcp_verdict::outputs::safe::text(H))),
        "{what}: the hostile string is not in the document"
    );
}

fn exchange(result_type: &str) -> Value {
    json!({
        "name": format!("named {H}"),
        "protocol": "2026-07-28",
        "request": {
            "method": "POST",
            "url": "http://127.0.0.1:8931/mcp",
            "headers": {"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "echo"},
            "body": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                     "params": {"name": "echo", "arguments": {}}}
        },
        "response": {
            "status": 200,
            "headers": {"Content-Type": "application/json"},
            "body_json": {"jsonrpc": "2.0", "id": 1, "result": {
                "resultType": result_type,
                "content": [{"type": "text", "text": H, H: 1}],
                H: {"x": 1}
            }}
        }
    })
}

/// A directory of exchange files: a result whose `resultType` and member names are hostile, in
/// a file whose name is hostile too; a JSON-RPC error with a hostile message; a file that is
/// not a valid exchange file because of a hostile member name.
static CORPUS: LazyLock<PathBuf> = LazyLock::new(|| {
    let d = temp_dir("hostile");
    let write = |name: &str, v: &Value| std::fs::write(d.join(name), v.to_string()).unwrap();
    write("ansi\u{1b}[31m\nname.json", &exchange(H));
    let mut err = exchange("complete");
    err["response"]["body_json"] =
        json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32000, "message": H, "data": H}});
    write("error.json", &err);
    write(
        "invalid.json",
        &json!({"response": {"status": 200}, H: true}),
    );
    d
});

fn cmd(args: &[&str], stdin: Option<&[u8]>) -> (Option<i32>, String, String) {
    let mut c = bin();
    c.args(args)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE");
    let o = run(&mut c, stdin);
    (
        o.status.code(),
        String::from_utf8(o.stdout).expect("output is UTF-8"),
        String::from_utf8(o.stderr).expect("stderr is UTF-8"),
    )
}

fn hostile_file() -> PathBuf {
    CORPUS.join("ansi\u{1b}[31m\nname.json")
}

#[test]
fn classify_text_and_json() {
    let f = hostile_file();
    let f = f.to_str().unwrap();
    for color in ["never", "always"] {
        let (code, out, err) = cmd(&["classify", f, "--color", color], None);
        assert_eq!(code, Some(1), "{err}");
        assert_text(
            &format!("classify --color {color}"),
            &out,
            color == "always",
        );
        assert_clean("classify stderr", &err, true, false);
    }
    let (_, out, _) = cmd(&["classify", f, "--format", "json"], None);
    assert_json("classify --format json", &out);
    // A file that is not a valid exchange: the error names the hostile member, escaped.
    let bad = CORPUS.join("invalid.json");
    let (code, out, err) = cmd(&["classify", bad.to_str().unwrap()], None);
    assert_eq!(code, Some(3));
    assert!(out.is_empty());
    assert_text("classify of an invalid file (stderr)", &err, false);
}

#[test]
fn check_every_format() {
    let dir = CORPUS.to_str().unwrap();
    for format in [
        "text", "json", "ndjson", "markdown", "junit", "sarif", "html", "github", "gitlab",
    ] {
        for color in ["never", "always"] {
            let (code, out, err) = cmd(
                &["check", dir, "--format", format, "--color", color, "-v"],
                None,
            );
            assert_eq!(code, Some(3), "{format}: {err}");
            let what = format!("check --format {format} --color {color}");
            assert_clean(&format!("{what} (stderr)"), &err, true, false);
            match format {
                "json" | "ndjson" | "sarif" | "gitlab" => assert_json(&what, &out),
                "html" | "junit" | "markdown" | "github" => {
                    assert_safe(&what, &out, true, false);
                    // Shown escaped (Markdown escapes the brackets and backslashes too).
                    assert!(
                        out.contains("u{1b}") && out.contains("pwned"),
                        "{what}: not shown\n{out}"
                    );
                }
                _ => assert_text(&what, &out, color == "always"),
            }
        }
    }
}

#[test]
fn check_reads_a_hostile_exchange_from_stdin() {
    let bytes = exchange(H).to_string();
    let (code, out, _) = cmd(&["check", "-", "--format", "text"], Some(bytes.as_bytes()));
    assert_eq!(code, Some(1));
    assert_text("check - (text)", &out, false);
}

fn har() -> Value {
    let call = |url: &str, method: &str, body: Value, response: Value| {
        json!({
            "startedDateTime": "2026-05-12T09:14:03.101Z",
            "time": 1.0,
            "request": {
                "method": method, "url": url, "httpVersion": "HTTP/1.1",
                "headers": [{"name": "Content-Type", "value": "application/json"},
                            {"name": "MCP-Protocol-Version", "value": "2026-07-28"},
                            {"name": "Mcp-Method", "value": "tools/call"},
                            {"name": "Mcp-Name", "value": "echo"}],
                "queryString": [], "cookies": [], "headersSize": -1, "bodySize": -1,
                "postData": {"mimeType": "application/json", "text": body.to_string()}
            },
            "response": {
                "status": 200, "statusText": H, "httpVersion": "HTTP/1.1",
                "headers": [{"name": "Content-Type", "value": "application/json"}],
                "cookies": [],
                "content": {"size": -1, "mimeType": "application/json", "text": response.to_string()},
                "redirectURL": "", "headersSize": -1, "bodySize": -1
            },
            "cache": {}, "timings": {"send": 0, "wait": 1, "receive": 0}
        })
    };
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                      "params": {"name": "echo", "arguments": {}}});
    let result = json!({"jsonrpc": "2.0", "id": 1, "result": {
        "resultType": H, "content": [{"type": "text", "text": "x"}]}});
    json!({"log": {
        "version": "1.2",
        "creator": {"name": H, "version": H},
        "entries": [
            call(&format!("http://127.0.0.1:3001/mcp?{H}"), "POST", body.clone(), result),
            call("http://127.0.0.1:3001/mcp", H, json!({"jsonrpc": "2.0", "id": 2, "method": H}), json!({}))
        ]
    }})
}

#[test]
fn har_text_and_json() {
    let f = temp_dir("hostile-har").join("capture.har");
    std::fs::write(&f, har().to_string()).unwrap();
    let f = f.to_str().unwrap();
    for color in ["never", "always"] {
        let (code, out, err) = cmd(&["classify", "--har", f, "--color", color], None);
        assert_eq!(code, Some(1), "{err}\n{out}");
        assert_text(
            &format!("classify --har --color {color}"),
            &out,
            color == "always",
        );
    }
    let (_, out, _) = cmd(&["classify", "--har", f, "--format", "json"], None);
    assert_json("classify --har --format json", &out);
}

#[test]
fn jsonl_lines() {
    let line = exchange(H).to_string() + "\n" + &format!("{{\"{}\": 1}}\n", "\\u001b[2J");
    let (code, out, err) = cmd(&["classify", "--jsonl", "-"], Some(line.as_bytes()));
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(out.lines().count(), 2);
    assert_json("classify --jsonl", &out);
    assert_clean("classify --jsonl (stderr)", &err, true, false);
}

/// A server that answers every request with hostile strings: its name, a tool's name, a
/// result's `resultType`. Serves `connections` connections, one after the other, then stops.
fn hostile_server(connections: usize) -> Scripted {
    let options = Options {
        read_timeout: Some(Duration::from_secs(5)),
        one_at_a_time: true,
        connections: Some(connections),
    };
    serve_with(options, |request, stream, _| {
        let req = &request.body;
        let id = req.get("id").cloned();
        let result = match req["method"].as_str() {
            Some("initialize") => Some(json!({
                "protocolVersion": "2025-11-25",
                "capabilities": {"tools": {}},
                "serverInfo": {"name": H, "version": H}
            })),
            Some("tools/list") => Some(json!({"tools": [
                {"name": H, "description": H, "inputSchema": {"type": "object"}},
                {"name": "echo", "inputSchema": {"type": "object"}}
            ]})),
            Some("tools/call") => Some(json!({
                "resultType": H,
                "content": [{"type": "text", "text": H}]
            })),
            _ => None,
        };
        let (status, body) = match (id, result) {
            (Some(id), Some(r)) => (
                "200 OK",
                json!({"jsonrpc": "2.0", "id": id, "result": r}).to_string(),
            ),
            (Some(id), None) => (
                "200 OK",
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": H}})
                    .to_string(),
            ),
            (None, _) => ("202 Accepted", String::new()),
        };
        respond(
            stream,
            status,
            "Content-Type: application/json\r\nMcp-Session-Id: s1\r\n",
            &body,
        )
    })
}

#[test]
fn probe_text_and_json() {
    use mcp_verdict::outputs::Style;
    use mcp_verdict::outputs::probe::render_text;
    use mcp_verdict::probe::{CallSpec, ProbeConfig};
    let server = hostile_server(64);
    let mut config = ProbeConfig::new(server.url());
    config.protocols = vec![mcp_verdict::Protocol::V2025_11_25];
    config.calls = vec![CallSpec {
        name: "echo".into(),
        arguments: None,
    }];
    config.auto_calls = false;
    let report = mcp_verdict::probe::run(&config).expect("the server answers");
    for color in [false, true] {
        let out = render_text(&report, Style { color });
        assert_text(&format!("probe text (colour {color})"), &out, color);
    }
    let doc = mcp_verdict::outputs::safe::json(
        serde_json::to_string_pretty(&report.to_output()).unwrap(),
    );
    assert_json("probe --format json", &doc);
}

#[test]
fn the_offence_finder_finds() {
    // The checks above can fail: each kind of unsafe character is caught.
    for bad in ["a\u{1b}]0;t\u{7}", "\u{9b}2J", "x\u{202e}y", "a\r", "\u{0}"] {
        assert!(offence(bad, true, true).is_some(), "{bad:?}");
    }
    assert!(offence("\u{1b}[1;31mred\u{1b}[0m\n", true, true).is_none());
    assert!(offence("\u{1b}[1;31mred", true, false).is_some());
}
