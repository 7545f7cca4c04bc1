//! Reading a stdio session transcript (`crate::wire::stdio::transcript`) into the `tools/call`
//! exchanges it holds; the judging and the report are `crate::run::transcript`.
//!
//! The session is replayed line by line. Every `tools/call` request the client wrote opens a
//! call, which takes in everything the server wrote on stdout and stderr from then on, until a
//! response with the call's id (the call's end is then `response`), the process's `exit` entry
//! (`exit`, with its status), or the end of the transcript (`timeout`: the recording stopped
//! before the answer). Calls in flight together each take in the same lines; the judgement of a
//! call leaves aside what names another request (its response, its progress token).
//!
//! A call carries what the session told about it: the revision `initialize` negotiated
//! (2025-11-25) when the request names none in its `_meta`, what `initialize` negotiated, the
//! tool's definition from the last `tools/list` answer, and where the client cancelled it
//! (`notifications/cancelled` with its id). Every other message the client wrote is counted by
//! method; nothing is dropped unsaid.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use crate::vocab::Protocol;
use crate::wire::exchange::{Exchange, Negotiated};
use crate::wire::stdio::transcript::{Direction, Entry, TranscriptError, read};
use crate::wire::stdio::{ExitStatus, StdioEnd};

/// One `tools/call` of the session.
#[derive(Debug)]
pub struct Call {
    /// The transcript line (1-based) of the request.
    pub line: usize,
    /// The request's id.
    pub id: Value,
    /// The tool called.
    pub tool: Option<String>,
    /// The exchange to judge.
    pub exchange: Box<Exchange>,
}

/// A transcript, read.
#[derive(Debug, Default)]
pub struct Session {
    /// Entries in the transcript.
    pub entries: usize,
    /// Every `tools/call` in request order.
    pub calls: Vec<Call>,
    /// The other messages the client wrote, by method (`(not JSON-RPC)` for a line that is
    /// none), which are not judged.
    pub other: BTreeMap<String, usize>,
}

/// A call in flight.
struct Open {
    call: Call,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    cancelled_at: Option<usize>,
}

/// The session replayed entry by entry, as a recorder reading it live would: [`Replay::push`]
/// gives back the calls each entry ended, [`Replay::finish`] the ones still open (ended
/// `timeout`). [`read_session`] is a replay of a whole transcript; a live recorder (the stdio
/// proxy) replays what it relays, so that it judges the calls `classify --transcript` judges
/// in its transcript, the same way.
#[derive(Default)]
pub struct Replay {
    /// The id and params of the client's `initialize`, until its answer.
    initialize: Option<(Value, Map<String, Value>)>,
    negotiated: Option<Negotiated>,
    /// The ids of `tools/list` requests awaiting their answer.
    listing: Vec<Value>,
    tools: BTreeMap<String, Value>,
    open: Vec<Open>,
    other: BTreeMap<String, usize>,
}

/// Whether bytes look like a transcript rather than an exchange file: the first line that is
/// not blank is a transcript entry on its own.
pub fn looks_like(bytes: &[u8]) -> bool {
    let bytes = crate::wire::utf8::strip_bom(bytes);
    crate::wire::stdio::lines(bytes)
        .map(|l| l.bytes(bytes))
        .find(|l| !crate::wire::stdio::is_blank(l))
        .is_some_and(|l| crate::wire::stdio::transcript::read_entry(l, 1).is_ok())
}

/// Reads a transcript into its calls.
pub fn read_session(bytes: &[u8]) -> Result<Session, TranscriptError> {
    let entries = read(bytes)?;
    let mut r = Replay::default();
    let mut calls = Vec::new();
    for e in &entries {
        calls.extend(r.push(e));
    }
    calls.extend(r.finish());
    calls.sort_by_key(|c| c.line);
    Ok(Session {
        entries: entries.len(),
        calls,
        other: r.other,
    })
}

impl Replay {
    /// Takes in one entry; returns the calls it ended (their answer, or the process's exit).
    pub fn push(&mut self, e: &Entry) -> Vec<Call> {
        match e.dir {
            Direction::Stdin => {
                self.client_wrote(e);
                Vec::new()
            }
            Direction::Stdout => self.server_wrote(e),
            Direction::Stderr => {
                for o in &mut self.open {
                    o.stderr.extend(e.written());
                }
                Vec::new()
            }
            Direction::Exit => std::mem::take(&mut self.open)
                .into_iter()
                .map(|o| close(o, StdioEnd::Exit, e.exit))
                .collect(),
        }
    }

    /// The calls still open when the transcript ends: the recording stopped before their
    /// answer (`timeout`).
    pub fn finish(&mut self) -> Vec<Call> {
        std::mem::take(&mut self.open)
            .into_iter()
            .map(|o| close(o, StdioEnd::Timeout, None))
            .collect()
    }

    /// The other messages the client wrote so far, by method (`(not JSON-RPC)` for a line that
    /// is none), which are not judged.
    pub fn other(&self) -> &BTreeMap<String, usize> {
        &self.other
    }

    /// The calls under way.
    pub fn open(&self) -> usize {
        self.open.len()
    }

    fn client_wrote(&mut self, e: &Entry) {
        let Ok(msg) = serde_json::from_slice::<Value>(&e.bytes) else {
            *self.other.entry("(not JSON-RPC)".into()).or_default() += 1;
            return;
        };
        let method = msg.get("method").and_then(Value::as_str).unwrap_or("");
        let id = msg.get("id").cloned();
        let params = msg.get("params").and_then(Value::as_object);
        match (method, id) {
            ("tools/call", Some(id)) => {
                let tool = params
                    .and_then(|p| p.get("name"))
                    .and_then(Value::as_str)
                    .map(str::to_string);
                let mut b = Exchange::stdio(Vec::new())
                    .stdin(e.written())
                    .request(msg.clone());
                if let Some(def) = tool.as_ref().and_then(|t| self.tools.get(t)) {
                    b = b.tool(def.clone());
                }
                if let Some(n) = &self.negotiated {
                    b = b.initialize(n.clone());
                    let named = params
                        .and_then(|p| p.get("_meta"))
                        .and_then(|m| m.get(crate::vocab::protocol::meta::PROTOCOL_VERSION))
                        .is_some();
                    if let (false, Some(p)) = (
                        named,
                        n.protocol_version.as_deref().and_then(Protocol::parse),
                    ) {
                        b = b.protocols(vec![p]);
                    }
                }
                self.open.push(Open {
                    call: Call {
                        line: e.at,
                        id,
                        tool,
                        exchange: Box::new(b.build()),
                    },
                    stdout: Vec::new(),
                    stderr: Vec::new(),
                    cancelled_at: None,
                });
                return;
            }
            ("initialize", Some(id)) => {
                self.initialize = Some((id, params.cloned().unwrap_or_default()));
            }
            ("tools/list", Some(id)) => self.listing.push(id),
            ("notifications/cancelled", None) => {
                let target = params.and_then(|p| p.get("requestId"));
                for o in &mut self.open {
                    if target == Some(&o.call.id) {
                        o.cancelled_at.get_or_insert(o.stdout.len());
                    }
                }
            }
            _ => {}
        }
        let what = if method.is_empty() {
            "(not JSON-RPC)"
        } else {
            method
        };
        *self.other.entry(what.to_string()).or_default() += 1;
    }

    fn server_wrote(&mut self, e: &Entry) -> Vec<Call> {
        for o in &mut self.open {
            o.stdout.extend(e.written());
        }
        if e.partial {
            return Vec::new();
        }
        let Ok(msg) = serde_json::from_slice::<Value>(&e.bytes) else {
            return Vec::new();
        };
        let Some(id) = msg.get("id").filter(|_| msg.get("method").is_none()) else {
            return Vec::new();
        };
        let result = msg.get("result").and_then(Value::as_object);
        if let Some((init_id, params)) = &self.initialize
            && init_id == id
        {
            let get = |k: &str| result.and_then(|r| r.get(k)).cloned();
            self.negotiated = Some(Negotiated {
                client_capabilities: params
                    .get("capabilities")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default(),
                protocol_version: get("protocolVersion")
                    .and_then(|v| v.as_str().map(str::to_string)),
                client_info: params.get("clientInfo").cloned(),
                server_capabilities: get("capabilities"),
                server_info: get("serverInfo"),
            });
            self.initialize = None;
        }
        if let Some(i) = self.listing.iter().position(|l| l == id) {
            self.listing.remove(i);
            for t in result
                .and_then(|r| r.get("tools"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                if let Some(name) = t.get("name").and_then(Value::as_str) {
                    self.tools.insert(name.to_string(), t.clone());
                }
            }
        }
        match self
            .open
            .iter()
            .position(|o| crate::wire::number::ids_equal(&o.call.id, id))
        {
            Some(i) => vec![close(self.open.remove(i), StdioEnd::Response, None)],
            None => Vec::new(),
        }
    }
}

/// Ends a call: its exchange gets what the server wrote meanwhile and how it ended.
fn close(o: Open, end: StdioEnd, exit: Option<ExitStatus>) -> Call {
    let mut call = o.call;
    if let Some(stdio) = call.exchange.stdio.as_deref_mut() {
        stdio.stdout = o.stdout;
        stdio.stderr = Some(o.stderr).filter(|e| !e.is_empty());
        stdio.end = end;
        stdio.exit = exit;
        stdio.cancelled_at = o.cancelled_at;
    }
    call
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(entries: &[(&str, &str)]) -> Vec<u8> {
        let mut out = Vec::new();
        for (dir, line) in entries {
            let e = serde_json::json!({"dir": dir, "line": line});
            out.extend(serde_json::to_vec(&e).unwrap());
            out.push(b'\n');
        }
        out
    }

    #[test]
    fn calls_are_paired_with_their_answers_and_the_session_context() {
        let t = lines(&[
            (
                "stdin",
                r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#,
            ),
            (
                "stdout",
                r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}"#,
            ),
            (
                "stdin",
                r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            ),
            ("stdin", r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#),
            (
                "stdout",
                r#"{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"echo","inputSchema":{"type":"object"}}]}}"#,
            ),
            (
                "stdin",
                r#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo"}}"#,
            ),
            (
                "stdin",
                r#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"echo"}}"#,
            ),
            ("stderr", "working"),
            (
                "stdout",
                r#"{"jsonrpc":"2.0","id":3,"result":{"content":[]}}"#,
            ),
            (
                "stdin",
                r#"{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}"#,
            ),
            ("stdout", "bye"),
        ]);
        let s = read_session(&t).unwrap();
        assert_eq!(s.calls.len(), 2);
        let (a, b) = (&s.calls[0], &s.calls[1]);
        assert_eq!((a.line, b.line), (6, 7));
        let sa = a.exchange.stdio.as_deref().unwrap();
        let sb = b.exchange.stdio.as_deref().unwrap();
        assert_eq!(sb.end, StdioEnd::Response);
        assert_eq!(sb.stderr.as_deref(), Some(&b"working\n"[..]));
        assert_eq!(sa.end, StdioEnd::Timeout);
        assert!(sa.stdout.ends_with(b"bye\n"));
        assert_eq!(sa.cancelled_at, Some(sb.stdout.len()));
        assert_eq!(a.exchange.protocol, Some(vec![Protocol::V2025_11_25]));
        assert!(a.exchange.tool.is_some() && a.exchange.initialize.is_some());
        assert_eq!(s.other.get("initialize"), Some(&1));
        assert_eq!(s.other.get("notifications/cancelled"), Some(&1));
    }
}
