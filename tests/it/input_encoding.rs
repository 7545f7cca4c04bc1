//! The exchange file's own encoding and shape: a leading UTF-8 byte order mark is skipped in every
//! input path (a file, stdin, `check`, as HAR and JSON Lines already did), and a `request.body`
//! given as a string is read as the JSON text it holds, or refused with a message naming it.

use std::io::Write as _;
use std::process::{Command, Stdio};

use mcp_verdict::ExchangeFile;
use serde_json::{Value, json};

fn exchange(request_body: Value) -> Value {
    json!({
        "request": {"body": request_body},
        "response": {"status": 200, "headers": {"Content-Type": "application/json"},
            "body_json": {"jsonrpc": "2.0", "id": 7, "result": {
                "content": [{"type": "text", "text": "ok"}], "isError": false}}}
    })
}

fn request() -> Value {
    json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "echo", "arguments": {}}})
}

fn with_bom(v: &Value) -> Vec<u8> {
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend(serde_json::to_vec_pretty(v).unwrap());
    bytes
}

fn classify(args: &[&str], stdin: &[u8]) -> (i32, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_mcp-verdict"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_byte_order_mark_is_skipped_by_the_library() {
    let bytes = with_bom(&exchange(request()));
    let file = ExchangeFile::from_slice(&bytes).expect("a BOM before the document is accepted");
    let plain = ExchangeFile::from_slice(&bytes[3..]).unwrap();
    assert_eq!(
        serde_json::to_value(&file).unwrap(),
        serde_json::to_value(&plain).unwrap()
    );
}

#[test]
fn a_byte_order_mark_is_skipped_on_stdin_and_in_files() {
    let bytes = with_bom(&exchange(request()));
    let (code, out, err) = classify(
        &[
            "classify",
            "-",
            "--protocol",
            "2025-11-25",
            "--format",
            "json",
        ],
        &bytes,
    );
    assert_eq!(code, 0, "stdout: {out}\nstderr: {err}");
    assert!(out.contains("TOOL_SUCCESS"), "{out}");

    let dir = std::env::temp_dir().join(format!("mcp-verdict-bom-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bom.json");
    std::fs::write(&path, &bytes).unwrap();
    let (code, out, err) = classify(
        &[
            "classify",
            path.to_str().unwrap(),
            "--protocol",
            "2025-11-25",
        ],
        b"",
    );
    assert_eq!(code, 0, "stdout: {out}\nstderr: {err}");
    let (code, out, err) = classify(
        &["check", dir.to_str().unwrap(), "--protocol", "2025-11-25"],
        b"",
    );
    assert_eq!(code, 0, "stdout: {out}\nstderr: {err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_request_body_string_is_read_as_its_json_text() {
    let as_text = exchange(Value::String(request().to_string()));
    let file: ExchangeFile = serde_json::from_value(as_text).unwrap();
    let ex = file
        .into_exchange()
        .expect("a string holding JSON text is read");
    assert_eq!(ex.request.body, Some(request()));
}

#[test]
fn a_request_body_string_that_is_not_json_is_refused_by_name() {
    let file: ExchangeFile =
        serde_json::from_value(exchange(Value::String("tools/call echo".into()))).unwrap();
    let err = file.into_exchange().expect_err("not JSON text");
    assert!(err.message.starts_with("request.body"), "{}", err.message);
    let (code, _, err) = classify(
        &["classify", "-", "--protocol", "2025-11-25"],
        &serde_json::to_vec(&exchange(Value::String("tools/call echo".into()))).unwrap(),
    );
    assert_eq!(code, 3, "{err}");
    assert!(err.contains("request.body"), "{err}");
}
