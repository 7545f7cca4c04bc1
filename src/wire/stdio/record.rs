//! The stdio exchange in the exchange file format: what the client wrote for the request, what
//! the server wrote on stdout (and stderr) until the response or the end, and how it ended.

use base64::Engine as _;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What stopped the recording of the server's stdout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum StdioEnd {
    /// The client read the response to its request and stopped reading (the server kept
    /// running).
    #[default]
    Response,
    /// The server closed its stdout (end of file).
    Eof,
    /// The server process exited (its stdout closed with it); `exit` says how, when known.
    Exit,
    /// The client stopped waiting.
    Timeout,
}

impl StdioEnd {
    /// The wire name: `response`, `eof`, `exit` or `timeout`.
    pub fn as_str(self) -> &'static str {
        match self {
            StdioEnd::Response => "response",
            StdioEnd::Eof => "eof",
            StdioEnd::Exit => "exit",
            StdioEnd::Timeout => "timeout",
        }
    }
}

/// How the server process ended: an exit code, or the signal that ended it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ExitStatus {
    /// The exit code, when the process exited by itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i32>,
    /// The number of the signal that ended it (e.g. 9 for SIGKILL on POSIX systems).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
}

impl ExitStatus {
    /// A process that exited with `code`.
    pub fn code(code: i32) -> ExitStatus {
        ExitStatus {
            code: Some(code),
            signal: None,
        }
    }

    /// A process ended by signal `signal`.
    pub fn signal(signal: i32) -> ExitStatus {
        ExitStatus {
            code: None,
            signal: Some(signal),
        }
    }
}

impl std::fmt::Display for ExitStatus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.code, self.signal) {
            (Some(c), _) => write!(f, "exit code {c}"),
            (None, Some(s)) => write!(f, "signal {s}"),
            (None, None) => f.write_str("an unknown status"),
        }
    }
}

/// The stdio side of an exchange file (`"transport": "stdio"`). The server's stdout is given
/// once: as text (`stdout`), as bytes (`stdout_base64`), or as lines (`stdout_lines`).
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordedStdio {
    /// The line the client wrote to the server's stdin for this request, exactly, with its
    /// newline. When absent (and not given as `stdin_base64`), the client wrote
    /// `request.body` as compact JSON and a newline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin: Option<String>,
    /// The same line as bytes, base64-encoded (RFC 4648 standard alphabet), for a line that is
    /// not UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin_base64: Option<String>,
    /// What the server wrote on stdout from the request line until the response or the end,
    /// exactly as received (newlines included; a partial last line has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdout: Option<String>,
    /// The same bytes, base64-encoded, for output that is not UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdout_base64: Option<String>,
    /// Convenience: stdout as lines, each followed by a newline. A string is the line's text
    /// exactly; any other JSON value stands for its compact serialization.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdout_lines: Option<Vec<Value>>,
    /// What the server wrote on stderr meanwhile, if captured.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<String>,
    /// The same bytes, base64-encoded, for stderr that is not UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr_base64: Option<String>,
    /// What stopped the recording; `response` when absent.
    #[serde(default, skip_serializing_if = "is_response")]
    pub end: StdioEnd,
    /// How the server process ended, when it did and the recorder knows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit: Option<ExitStatus>,
    /// The byte offset in stdout at which the client wrote `notifications/cancelled` for this
    /// request (what the server wrote from there on came after the cancellation), if it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cancelled_at: Option<usize>,
}

fn is_response(end: &StdioEnd) -> bool {
    *end == StdioEnd::Response
}

/// A stdio exchange as the engine judges it: the bytes each side wrote, decoded.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stdio {
    /// The line the client wrote to stdin for the request, newline included.
    pub stdin: Vec<u8>,
    /// What the server wrote on stdout from the request line until the response or the end.
    pub stdout: Vec<u8>,
    /// What the server wrote on stderr meanwhile, if captured.
    pub stderr: Option<Vec<u8>>,
    /// What stopped the recording.
    pub end: StdioEnd,
    /// How the server process ended, when known.
    pub exit: Option<ExitStatus>,
    /// The byte offset in stdout at which the client cancelled the request, if it did.
    pub cancelled_at: Option<usize>,
}

impl Stdio {
    /// The file form of this record, with `stdin` left out when it is `request`'s compact
    /// text and a newline (the default).
    pub fn to_recorded(&self, request: Option<&Value>) -> RecordedStdio {
        let (stdin, stdin_base64) = match request {
            Some(r) if default_line(r) == self.stdin => (None, None),
            _ if self.stdin.is_empty() => (None, None),
            _ => text_or_base64(&self.stdin),
        };
        let (stdout, stdout_base64) = text_or_base64(&self.stdout);
        let (stderr, stderr_base64) = match &self.stderr {
            Some(e) => text_or_base64(e),
            None => (None, None),
        };
        RecordedStdio {
            stdin,
            stdin_base64,
            stdout: stdout.or_else(|| stdout_base64.is_none().then(String::new)),
            stdout_base64,
            stdout_lines: None,
            stderr: stderr
                .or_else(|| (self.stderr.is_some() && stderr_base64.is_none()).then(String::new)),
            stderr_base64,
            end: self.end,
            exit: self.exit,
            cancelled_at: self.cancelled_at,
        }
    }
}

/// The line a client writes for `request`: its compact JSON and a newline.
pub fn default_line(request: &Value) -> Vec<u8> {
    let mut line = serde_json::to_vec(request).expect("serializing a JSON value cannot fail");
    line.push(b'\n');
    line
}

fn text_or_base64(bytes: &[u8]) -> (Option<String>, Option<String>) {
    match std::str::from_utf8(bytes) {
        Ok(t) => (Some(t.to_string()), None),
        Err(_) => (
            None,
            Some(base64::engine::general_purpose::STANDARD.encode(bytes)),
        ),
    }
}

/// Why a stdio record cannot be decoded: what is wrong and how to fix it.
pub(crate) type DecodeError = String;

impl RecordedStdio {
    /// Decodes the record, given the request as `request.body` holds it (if it does).
    /// Returns the decoded record and the request, read from `stdin` when `request.body` is
    /// absent.
    pub(crate) fn decode(
        self,
        request: Option<Value>,
    ) -> Result<(Stdio, Option<Value>), DecodeError> {
        let stdin = one_of(
            "stdio",
            [
                ("stdin", self.stdin.map(String::into_bytes)),
                (
                    "stdin_base64",
                    decode64("stdio.stdin_base64", self.stdin_base64)?,
                ),
            ],
        )?;
        let lines = self.stdout_lines.map(|ls| {
            let mut out = Vec::new();
            for l in ls {
                match l {
                    Value::String(s) => out.extend_from_slice(s.as_bytes()),
                    v => out.extend(
                        serde_json::to_vec(&v).expect("serializing a JSON value cannot fail"),
                    ),
                }
                out.push(b'\n');
            }
            out
        });
        let stdout = one_of(
            "stdio",
            [
                ("stdout", self.stdout.map(String::into_bytes)),
                (
                    "stdout_base64",
                    decode64("stdio.stdout_base64", self.stdout_base64)?,
                ),
                ("stdout_lines", lines),
            ],
        )?
        .unwrap_or_default();
        let stderr = one_of(
            "stdio",
            [
                ("stderr", self.stderr.map(String::into_bytes)),
                (
                    "stderr_base64",
                    decode64("stdio.stderr_base64", self.stderr_base64)?,
                ),
            ],
        )?;
        if let Some(e) = self.exit
            && e.code.is_some() == e.signal.is_some()
        {
            return Err(
                "stdio.exit: give exactly one of `code` (the process exited) and `signal` (a signal ended it)"
                    .into(),
            );
        }
        if let Some(at) = self.cancelled_at
            && at > stdout.len()
        {
            return Err(format!(
                "stdio.cancelled_at is {at}, past the end of stdout ({} bytes); give the byte offset in stdout at which the client wrote notifications/cancelled",
                stdout.len()
            ));
        }
        let (stdin, request) = match (stdin, request) {
            (Some(line), None) => {
                let text = String::from_utf8_lossy(&line);
                let value = serde_json::from_str::<Value>(&text).map_err(|e| {
                    format!(
                        "stdio.stdin is not one JSON-RPC message ({e}); give the request line exactly as the client wrote it, or the request as `request.body`"
                    )
                })?;
                (line, Some(value))
            }
            (Some(line), Some(body)) => {
                let same = serde_json::from_slice::<Value>(&line).is_ok_and(|v| v == body);
                if !same {
                    return Err(
                        "stdio.stdin and request.body disagree: the line the client wrote must hold the request given in `request.body` (or give only one of them)"
                            .into(),
                    );
                }
                (line, Some(body))
            }
            (None, Some(body)) => (default_line(&body), Some(body)),
            (None, None) => (Vec::new(), None),
        };
        Ok((
            Stdio {
                stdin,
                stdout,
                stderr,
                end: self.end,
                exit: self.exit,
                cancelled_at: self.cancelled_at,
            },
            request,
        ))
    }
}

fn decode64(field: &str, b64: Option<String>) -> Result<Option<Vec<u8>>, DecodeError> {
    b64.map(|b| {
        base64::engine::general_purpose::STANDARD
            .decode(b.trim())
            .map_err(|e| {
                format!(
                    "{field} is not valid base64 ({e}); encode the raw bytes with the standard alphabet"
                )
            })
    })
    .transpose()
}

/// The one given value among `options`, by field name; an error names the fields when more
/// than one is given.
fn one_of<const N: usize>(
    within: &str,
    options: [(&str, Option<Vec<u8>>); N],
) -> Result<Option<Vec<u8>>, DecodeError> {
    let names: Vec<String> = options.iter().map(|(n, _)| format!("`{n}`")).collect();
    let mut given = options.into_iter().filter_map(|(_, v)| v);
    let first = given.next();
    if given.next().is_some() {
        return Err(format!("{within}: give only one of {}", names.join(", ")));
    }
    Ok(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn decode(v: Value, request: Option<Value>) -> Result<(Stdio, Option<Value>), String> {
        serde_json::from_value::<RecordedStdio>(v)
            .unwrap()
            .decode(request)
    }

    #[test]
    fn stdout_is_given_once_in_one_of_three_forms() {
        let (s, _) = decode(json!({"stdout_lines": ["hi", {"a": 1}]}), None).unwrap();
        assert_eq!(s.stdout, b"hi\n{\"a\":1}\n");
        let (s, _) = decode(json!({"stdout_base64": "/wo="}), None).unwrap();
        assert_eq!(s.stdout, b"\xff\n");
        let e = decode(json!({"stdout": "", "stdout_lines": []}), None).unwrap_err();
        assert!(e.contains("only one of `stdout`"), "{e}");
    }

    #[test]
    fn the_request_line_and_body_agree() {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
        let (s, r) = decode(json!({}), Some(body.clone())).unwrap();
        assert_eq!(
            s.stdin,
            [serde_json::to_vec(&body).unwrap(), b"\n".to_vec()].concat()
        );
        assert_eq!(r, Some(body.clone()));
        let line = "{ \"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"ping\" }\r\n";
        let (s, r) = decode(json!({ "stdin": line }), None).unwrap();
        assert_eq!(s.stdin, line.as_bytes());
        assert_eq!(r, Some(body.clone()));
        let e = decode(json!({"stdin": "{}\n"}), Some(body)).unwrap_err();
        assert!(e.contains("disagree"), "{e}");
        let e = decode(json!({"stdin": "ping\n"}), None).unwrap_err();
        assert!(e.contains("not one JSON-RPC message"), "{e}");
    }

    #[test]
    fn exit_status_and_cancellation_are_checked() {
        let e = decode(json!({"exit": {"code": 1, "signal": 9}}), None).unwrap_err();
        assert!(e.contains("exactly one"), "{e}");
        let e = decode(json!({"stdout": "ab", "cancelled_at": 3}), None).unwrap_err();
        assert!(e.contains("past the end"), "{e}");
    }

    #[test]
    fn a_record_round_trips_through_its_file_form() {
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "ping"});
        let s = Stdio {
            stdin: default_line(&body),
            stdout: b"\xffbanner\n{}\n".to_vec(),
            stderr: Some(b"log\n".to_vec()),
            end: StdioEnd::Exit,
            exit: Some(ExitStatus::signal(9)),
            cancelled_at: None,
        };
        let file = s.to_recorded(Some(&body));
        assert_eq!(file.stdin, None);
        assert!(file.stdout_base64.is_some());
        let (back, _) = file.decode(Some(body)).unwrap();
        assert_eq!(back, s);
    }
}
