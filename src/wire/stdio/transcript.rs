//! The stdio session transcript: a JSON Lines file with one entry per line either side wrote,
//! in the order the recorder saw them.
//!
//! ```text
//! {"dir":"stdin","line":"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",...}","t":0.002}
//! {"dir":"stderr","line":"listening on stdio","t":0.004}
//! {"dir":"stdout","line":"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{...}}","t":0.010}
//! {"dir":"exit","code":0,"t":0.120}
//! ```
//!
//! `dir` is `stdin` (the client wrote it to the server), `stdout` or `stderr` (the server wrote
//! it); `line` is the line's text exactly, without its newline (a `\r` before the newline is
//! kept), or `line_base64` its bytes when they are not UTF-8; `partial: true` marks a last line
//! the stream ended before the newline of; `t` is the time in seconds since the session began.
//! An `exit` entry says the server process ended, with its `code` or `signal`.

use std::io::Write;

use base64::Engine as _;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::ExitStatus;

/// Who wrote a line, or that the process ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    /// The client wrote it to the server's stdin.
    Stdin,
    /// The server wrote it to its stdout.
    Stdout,
    /// The server wrote it to its stderr.
    Stderr,
    /// Not a line: the server process ended.
    Exit,
}

/// One transcript line as written in the file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "mcp-verdict stdio transcript entry",
    description = "One line of a JSON Lines stdio session transcript: a line the client or the server wrote, or the server process's end."
)]
pub struct TranscriptEntry {
    /// Who wrote the line (`stdin`: the client; `stdout`, `stderr`: the server), or `exit`.
    pub dir: Direction,
    /// The line's text exactly, without its newline.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
    /// The line's bytes, base64-encoded (RFC 4648 standard alphabet), when not UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub line_base64: Option<String>,
    /// Whether the stream ended before this line's newline.
    #[serde(default, skip_serializing_if = "is_false")]
    pub partial: bool,
    /// Seconds since the session began.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub t: Option<f64>,
    /// With `exit`: the process's exit code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<i32>,
    /// With `exit`: the signal that ended the process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// One transcript entry, decoded.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Who wrote it, or `Exit`.
    pub dir: Direction,
    /// The line's bytes without the newline (empty for `Exit`).
    pub bytes: Vec<u8>,
    /// Whether the stream ended before the line's newline.
    pub partial: bool,
    /// Seconds since the session began.
    pub t: Option<f64>,
    /// With `Exit`: how the process ended.
    pub exit: Option<ExitStatus>,
    /// 1-based line of the transcript file.
    pub at: usize,
}

impl Entry {
    /// The line exactly as written to its stream: its bytes and, unless partial, a newline.
    pub fn written(&self) -> Vec<u8> {
        let mut out = self.bytes.clone();
        if !self.partial && self.dir != Direction::Exit {
            out.push(b'\n');
        }
        out
    }
}

/// Why a transcript cannot be read: the line of the file, and what is wrong and how to fix it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct TranscriptError {
    /// 1-based line of the transcript file.
    pub line: usize,
    /// What is wrong and how to fix it.
    pub message: String,
}

/// Reads one transcript line (1-based `at` in the file).
pub fn read_entry(text: &[u8], at: usize) -> Result<Entry, TranscriptError> {
    let err = |message: String| TranscriptError { line: at, message };
    let e: TranscriptEntry = serde_json::from_slice(text).map_err(|e| {
        err(format!(
            "not a transcript entry ({e}); each line is an object such as {{\"dir\":\"stdout\",\"line\":\"...\"}}"
        ))
    })?;
    let bytes = match (e.line, e.line_base64) {
        (Some(_), Some(_)) => return Err(err("give only one of `line` and `line_base64`".into())),
        (Some(l), None) => l.into_bytes(),
        (None, Some(b)) => base64::engine::general_purpose::STANDARD
            .decode(b.trim())
            .map_err(|x| {
                err(format!(
                    "`line_base64` is not valid base64 ({x}); encode the raw bytes with the standard alphabet"
                ))
            })?,
        (None, None) if e.dir == Direction::Exit => Vec::new(),
        (None, None) => {
            return Err(err(
                "a line entry needs `line` (its text) or `line_base64` (its bytes)".into(),
            ));
        }
    };
    if bytes.contains(&b'\n') {
        return Err(err(
            "the line holds a newline; a transcript entry is one line, without its newline (give each line as an entry of its own)"
                .into(),
        ));
    }
    let exit = match e.dir {
        Direction::Exit => {
            if !bytes.is_empty() || e.partial {
                return Err(err(
                    "an `exit` entry carries no line; give `code` or `signal`".into(),
                ));
            }
            if e.code.is_some() && e.signal.is_some() {
                return Err(err("give only one of `code` and `signal`".into()));
            }
            Some(ExitStatus {
                code: e.code,
                signal: e.signal,
            })
        }
        _ if e.code.is_some() || e.signal.is_some() => {
            return Err(err(
                "`code` and `signal` belong to an `exit` entry only".into()
            ));
        }
        _ => None,
    };
    if e.t.is_some_and(|t| !t.is_finite() || t < 0.0) {
        return Err(err(
            "`t` must be a number of seconds since the session began, 0 or more".into(),
        ));
    }
    Ok(Entry {
        dir: e.dir,
        bytes,
        partial: e.partial,
        t: e.t,
        exit,
        at,
    })
}

/// Reads a whole transcript (blank lines are skipped; a leading byte order mark too).
pub fn read(text: &[u8]) -> Result<Vec<Entry>, TranscriptError> {
    let text = crate::wire::utf8::strip_bom(text);
    super::lines(text)
        .filter(|l| !super::is_blank(l.bytes(text)))
        .map(|l| read_entry(l.bytes(text), l.index + 1))
        .collect()
}

/// Writes a transcript as the session goes.
#[derive(Debug)]
pub struct TranscriptWriter<W: Write> {
    out: W,
}

impl<W: Write> TranscriptWriter<W> {
    /// A writer onto `out` (a file, a buffer).
    pub fn new(out: W) -> Self {
        TranscriptWriter { out }
    }

    /// Writes one line `dir`'s side wrote (`bytes` without its newline; `partial` when the
    /// stream ended before the newline), at `t` seconds since the session began.
    pub fn line(
        &mut self,
        dir: Direction,
        bytes: &[u8],
        partial: bool,
        t: Option<f64>,
    ) -> std::io::Result<()> {
        let (line, line_base64) = match std::str::from_utf8(bytes) {
            Ok(s) => (Some(s.to_string()), None),
            Err(_) => (
                None,
                Some(base64::engine::general_purpose::STANDARD.encode(bytes)),
            ),
        };
        self.entry(&TranscriptEntry {
            dir,
            line,
            line_base64,
            partial,
            t,
            code: None,
            signal: None,
        })
    }

    /// Writes that the server process ended.
    pub fn exit(&mut self, status: ExitStatus, t: Option<f64>) -> std::io::Result<()> {
        self.entry(&TranscriptEntry {
            dir: Direction::Exit,
            line: None,
            line_base64: None,
            partial: false,
            t,
            code: status.code,
            signal: status.signal,
        })
    }

    fn entry(&mut self, e: &TranscriptEntry) -> std::io::Result<()> {
        serde_json::to_writer(&mut self.out, e)?;
        self.out.write_all(b"\n")
    }

    /// Flushes and hands back the output.
    pub fn into_inner(mut self) -> std::io::Result<W> {
        self.out.flush()?;
        Ok(self.out)
    }
}

/// The JSON Schema of one transcript entry, as published in
/// `schemas/stdio-transcript-entry.schema.json`.
pub fn entry_json_schema() -> serde_json::Value {
    serde_json::to_value(schemars::schema_for!(TranscriptEntry)).expect("schema serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_written_reads_back() {
        let mut w = TranscriptWriter::new(Vec::new());
        w.line(Direction::Stdin, b"{\"id\":1}", false, Some(0.5))
            .unwrap();
        w.line(Direction::Stdout, b"banner\r", false, None).unwrap();
        w.line(Direction::Stdout, b"\xff{", true, None).unwrap();
        w.exit(ExitStatus::signal(9), Some(1.0)).unwrap();
        let text = w.into_inner().unwrap();
        let entries = read(&text).unwrap();
        assert_eq!(entries.len(), 4);
        assert_eq!(entries[1].written(), b"banner\r\n");
        assert_eq!(entries[2].written(), b"\xff{");
        assert!(entries[2].partial);
        assert_eq!(entries[3].exit, Some(ExitStatus::signal(9)));
        assert_eq!(entries[3].at, 4);
    }

    #[test]
    fn bad_entries_name_their_line_and_the_fix() {
        let e = read(b"{\"dir\":\"stdout\",\"line\":\"a\"}\n\n{\"dir\":\"up\"}\n").unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("not a transcript entry"), "{e}");
        let e = read(b"{\"dir\":\"stdout\"}").unwrap_err();
        assert!(e.message.contains("needs `line`"), "{e}");
        let e = read(b"{\"dir\":\"stdout\",\"line\":\"a\\nb\"}").unwrap_err();
        assert!(e.message.contains("holds a newline"), "{e}");
        let e = read(b"{\"dir\":\"stderr\",\"line\":\"a\",\"code\":1}").unwrap_err();
        assert!(e.message.contains("`exit` entry only"), "{e}");
    }
}
