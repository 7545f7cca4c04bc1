//! The setup answers of a stdio session (`initialize`, `server/discover`, `tools/list`), as the
//! stdio proxy relays them: each request the client wrote opens an exchange that takes in
//! every line the server wrote on stdout and stderr from then on, until the response with its
//! id (`response`), the process's exit (`exit`) or the end of the relay (`timeout`), the way
//! `probe` records a request over stdio. What the server wrote on stdout before the client's
//! first line (a start-up banner) belongs to the first exchange, as it does for `probe`, which
//! reads it after its first request.
//!
//! The calls are the transcript replay's ([`crate::inputs::transcript::Replay`]); this is the
//! rest of what the HTTP form judges.

use std::time::Instant;

use serde_json::Value;

use super::sessions::Sessions;
use crate::vocab::Protocol;
use crate::wire::exchange::Exchange;
use crate::wire::number::ids_equal;
use crate::wire::stdio::transcript::{Direction, Entry};
use crate::wire::stdio::{ExitStatus, StdioEnd};

/// Most setup requests awaiting their answer at once (a client that never reads its answers
/// does not grow the proxy: the oldest is closed as `timeout`).
const MAX_OPEN: usize = 64;

/// A setup request awaiting its answer.
struct Open {
    line: usize,
    at: Instant,
    method: String,
    body: Value,
    stdin: Vec<u8>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// A setup answer that ended, ready to judge.
pub(crate) struct Answered {
    /// The transcript line of the request.
    pub line: usize,
    /// When the request line was read.
    pub at: Instant,
    /// `initialize`, `server/discover` or `tools/list`.
    pub method: String,
    /// The exchange, its revision set (the one `initialize` negotiated, unless the request
    /// names one in `_meta`; `None` when nothing says which).
    pub exchange: Box<Exchange>,
}

/// The setup requests under way, and what the session's `initialize` negotiated.
#[derive(Default)]
pub(crate) struct Setup {
    open: Vec<Open>,
    /// stdout before the client's first line; `None` once the client wrote.
    preface: Option<Vec<u8>>,
    client_wrote: bool,
    sessions: Sessions,
}

/// The setup method a client line requests, with the message.
fn setup_request(bytes: &[u8]) -> Option<(String, Value)> {
    let msg = serde_json::from_slice::<Value>(bytes).ok()?;
    msg.get("id")?;
    let method = msg.get("method")?.as_str()?;
    matches!(method, "initialize" | "server/discover" | "tools/list")
        .then(|| (method.to_string(), msg.clone()))
}

impl Setup {
    /// Takes in one entry (read at `at`); returns the setup answers it ended.
    pub(crate) fn push(&mut self, e: &Entry, at: Instant) -> Vec<Answered> {
        match e.dir {
            Direction::Stdin => {
                let preface = if self.client_wrote {
                    None
                } else {
                    self.client_wrote = true;
                    self.preface.take()
                };
                if let Some((method, body)) = setup_request(&e.bytes).filter(|_| !e.partial) {
                    let mut ended = Vec::new();
                    if self.open.len() >= MAX_OPEN {
                        let o = self.open.remove(0);
                        ended.push(self.close(o, StdioEnd::Timeout, None));
                    }
                    self.open.push(Open {
                        line: e.at,
                        at,
                        method,
                        body,
                        stdin: e.written(),
                        stdout: preface.unwrap_or_default(),
                        stderr: Vec::new(),
                    });
                    return ended;
                }
                Vec::new()
            }
            Direction::Stdout => {
                if !self.client_wrote {
                    self.preface
                        .get_or_insert_with(Vec::new)
                        .extend(e.written());
                }
                for o in &mut self.open {
                    o.stdout.extend(e.written());
                }
                if e.partial {
                    return Vec::new();
                }
                let Ok(msg) = serde_json::from_slice::<Value>(&e.bytes) else {
                    return Vec::new();
                };
                if msg.get("method").is_some()
                    || (msg.get("result").is_none() && msg.get("error").is_none())
                {
                    return Vec::new();
                }
                let Some(id) = msg.get("id") else {
                    return Vec::new();
                };
                match self.open.iter().position(|o| ids_equal(&o.body["id"], id)) {
                    Some(i) => {
                        let o = self.open.remove(i);
                        if o.method == "initialize"
                            && let Some(r) = msg.get("result")
                        {
                            let params = o.body.get("params").cloned().unwrap_or(Value::Null);
                            self.sessions.initialized(None, &params, r);
                        }
                        vec![self.close(o, StdioEnd::Response, None)]
                    }
                    None => Vec::new(),
                }
            }
            Direction::Stderr => {
                for o in &mut self.open {
                    o.stderr.extend(e.written());
                }
                Vec::new()
            }
            Direction::Exit => std::mem::take(&mut self.open)
                .into_iter()
                .map(|o| self.close(o, StdioEnd::Exit, e.exit))
                .collect(),
        }
    }

    /// The setup requests still unanswered when the relay ends (`timeout`).
    pub(crate) fn finish(&mut self) -> Vec<Answered> {
        std::mem::take(&mut self.open)
            .into_iter()
            .map(|o| self.close(o, StdioEnd::Timeout, None))
            .collect()
    }

    fn close(&self, o: Open, end: StdioEnd, exit: Option<ExitStatus>) -> Answered {
        let mut b = Exchange::stdio(o.stdout)
            .request(o.body.clone())
            .stdin(o.stdin)
            .stdio_end(end);
        if !o.stderr.is_empty() {
            b = b.stderr(o.stderr);
        }
        if let Some(s) = exit {
            b = b.exit(s);
        }
        let negotiated = self.sessions.negotiated(None);
        if o.method != "initialize"
            && let Some(n) = negotiated
        {
            b = b.initialize(n.clone());
        }
        // The revision: what `initialize` negotiated (for its own answer too), unless the
        // request names one in its `_meta`.
        let named = o
            .body
            .pointer("/params/_meta")
            .and_then(|m| m.get(crate::vocab::protocol::meta::PROTOCOL_VERSION))
            .is_some();
        if !named
            && let Some(p) = negotiated
                .and_then(|n| n.protocol_version.as_deref())
                .and_then(Protocol::parse)
        {
            b = b.protocols(vec![p]);
        }
        Answered {
            line: o.line,
            at: o.at,
            method: o.method,
            exchange: Box::new(b.build()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(dir: Direction, line: &str, at: usize) -> Entry {
        Entry {
            dir,
            bytes: line.as_bytes().to_vec(),
            partial: false,
            t: None,
            exit: None,
            at,
        }
    }

    #[test]
    fn a_setup_answer_takes_in_what_came_before_it_and_learns_the_revision() {
        let mut s = Setup::default();
        let now = Instant::now();
        assert!(
            s.push(&entry(Direction::Stdout, "server ready", 1), now)
                .is_empty()
        );
        let init = r#"{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
        assert!(s.push(&entry(Direction::Stdin, init, 2), now).is_empty());
        assert!(
            s.push(&entry(Direction::Stderr, "starting", 3), now)
                .is_empty()
        );
        let done = s.push(
            &entry(
                Direction::Stdout,
                r#"{"jsonrpc":"2.0","id":0,"result":{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"s","version":"1"}}}"#,
                4,
            ),
            now,
        );
        assert_eq!(done.len(), 1);
        let a = &done[0];
        assert_eq!((a.line, a.method.as_str()), (2, "initialize"));
        let io = a.exchange.stdio.as_deref().unwrap();
        assert!(io.stdout.starts_with(b"server ready\n"), "the banner is in");
        assert_eq!(io.stderr.as_deref(), Some(&b"starting\n"[..]));
        assert_eq!(io.end, StdioEnd::Response);
        assert_eq!(a.exchange.protocol, Some(vec![Protocol::V2025_11_25]));
        // tools/list: the negotiated revision and session; an unanswered one ends at exit.
        let list = r#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#;
        assert!(s.push(&entry(Direction::Stdin, list, 5), now).is_empty());
        let mut exit = entry(Direction::Exit, "", 6);
        exit.exit = Some(ExitStatus::code(1));
        let done = s.push(&exit, now);
        assert_eq!(done.len(), 1);
        let ex = &done[0].exchange;
        assert_eq!(ex.protocol, Some(vec![Protocol::V2025_11_25]));
        assert!(ex.initialize.is_some());
        assert_eq!(ex.stdio.as_deref().unwrap().end, StdioEnd::Exit);
        assert!(s.finish().is_empty());
    }

    #[test]
    fn other_lines_open_nothing() {
        let mut s = Setup::default();
        let now = Instant::now();
        for (i, l) in [
            r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}"#,
            "not json",
        ]
        .iter()
        .enumerate()
        {
            assert!(s.push(&entry(Direction::Stdin, l, i + 1), now).is_empty());
        }
        assert!(
            s.push(
                &entry(
                    Direction::Stdout,
                    r#"{"jsonrpc":"2.0","id":1,"result":{}}"#,
                    4
                ),
                now
            )
            .is_empty()
        );
        assert!(s.finish().is_empty());
    }
}
