//! The stdio binding (`serve --stdio`): the server reads JSON-RPC messages from its stdin, one
//! per line, and writes its own on stdout, one per line; stderr carries its logs. What to
//! answer is the dialogue's, as over HTTP; this module decides how it is written.
//!
//! - **One connection, one session.** The stdin of the process is the only client. Under
//!   2025-11-25 its `initialize` opens the session every later message belongs to (there is
//!   no `MCP-Session-Id`); under 2026-07-28 the metadata travels in `_meta`, with no header
//!   layer to check it against.
//! - **Requests run side by side.** Each message is dispatched in the order it arrived; the
//!   planned reply is then written by a thread of its own, so that a slow call, or one waiting
//!   for the client's answer to a server request, does not hold up the messages after it (the
//!   answer itself, a cancellation). Lines are written whole, one at a time.
//! - **Cancellation.** After a `notifications/cancelled` naming a request in flight, nothing
//!   more is written for it (2026-07-28 basic/transports/stdio, Cancellation: servers "MUST
//!   NOT send any further messages for it"), unless the scenario in force does so on purpose.
//! - **Shutdown.** At the end of stdin the server stops: what a reply waits for (a slow
//!   answer's delay, a cancellation) is waited for no more, replies still being written get a
//!   moment to finish ([`DRAIN`]) and are recorded, then it returns (2026-07-28
//!   basic/transports/stdio, Shutdown: "Servers SHOULD exit promptly when their standard input
//!   is closed").
//! - **Recording.** Each request's exchange is rebuilt as the client saw it (the request
//!   line, what stdout carried from then until its response, stderr meanwhile, how it ended)
//!   and judged, for the diagnostic record, as over HTTP.
//!
//! Lines are framed by [`crate::wire::stdio::Framer`]; a line longer than
//! [`MAX_LINE`] ends the session (the server answers nothing it cannot read whole).

mod exec;
mod out;

use std::io::{self, Read, Write};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::config::ServeConfig;
use super::incoming::Incoming;
use super::scenario_table::Transport;
use super::shared::Shared;
use super::{dispatch, judged};
use crate::views::diag::{DiagRecord, Side, StreamEnd, sanitize};
use crate::vocab::protocol::meta;
use crate::wire::exchange::Exchange;
use crate::wire::stdio::{ExitStatus, Framer, Limits, StdioEnd};
use exec::{Call, Ended};
use out::Out;

/// Longest line read from stdin (4 MiB, the largest request body the HTTP binding reads).
pub const MAX_LINE: usize = 4 * 1024 * 1024;

/// How long replies still being written may take once stdin has ended.
pub const DRAIN: Duration = Duration::from_secs(2);

/// How a stdio session ended.
#[derive(Debug)]
pub struct StdioServed {
    /// The diagnostic records kept (the last [`ServeConfig::keep_records`]).
    pub records: Vec<DiagRecord>,
    /// The exit code a fault asked for (`stdio_crash`, `stdio_partial_exit`); `None` when the
    /// session ended with stdin.
    pub exit_code: Option<i32>,
    /// Why reading stdin stopped early, when it did (a line past [`MAX_LINE`], a read error).
    pub stopped: Option<String>,
}

/// Serves one client over `stdin`/`stdout` (and `stderr` for logs) until `stdin` ends or a
/// fault ends the server. The process's own streams are what `serve --stdio` passes; a test
/// passes pipes.
pub fn serve_stdio(
    config: ServeConfig,
    stdin: impl Read + Send + 'static,
    stdout: impl Write + Send + 'static,
    stderr: impl Write + Send + 'static,
) -> io::Result<StdioServed> {
    if !config.scenario.offered_over(Transport::Stdio) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!(
                "scenario {} is offered over HTTP only (serve --list says which scenarios each transport offers)",
                config.scenario
            ),
        ));
    }
    let shared = Arc::new(Shared::new(config)?);
    let out = Arc::new(Out::new(Box::new(stdout), Box::new(stderr)));
    let (lines, rx) = mpsc::sync_channel::<Result<Vec<u8>, String>>(64);
    // Reading blocks; it has a thread of its own so that a fault can end the session while a
    // read waits.
    thread::Builder::new()
        .name("mcp-serve-stdin".into())
        .spawn(move || read_lines(stdin, &lines))?;
    let mut conn = Connection {
        shared: Arc::clone(&shared),
        out: Arc::clone(&out),
        session: None,
        messages: 0,
        workers: Vec::new(),
    };
    let mut stopped = None;
    loop {
        if out.exited().is_some() {
            break;
        }
        match rx.recv_timeout(Duration::from_millis(50)) {
            Ok(Ok(line)) => conn.message(line),
            Ok(Err(why)) => {
                stopped = Some(why);
                break;
            }
            Err(RecvTimeoutError::Timeout) => conn.reap(),
            Err(RecvTimeoutError::Disconnected) => break,
        }
    }
    shared.shutdown.store(true, Ordering::SeqCst);
    out.input_ended();
    // Replies still being written get a moment; once the server has exited they write
    // nothing more and only record what they sent.
    let until = Instant::now() + DRAIN;
    while conn.workers.iter().any(|h| !h.is_finished()) && Instant::now() < until {
        thread::sleep(Duration::from_millis(10));
    }
    let exit_code = out.exited();
    conn.reap();
    let _ = out.flush();
    Ok(StdioServed {
        records: shared.records(),
        exit_code,
        stopped,
    })
}

/// Reads stdin line by line into `lines` until it ends; an error ends it too.
fn read_lines(mut stdin: impl Read, lines: &mpsc::SyncSender<Result<Vec<u8>, String>>) {
    let mut framer = Framer::new(Limits {
        max_line: MAX_LINE,
        max_total: usize::MAX,
    });
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match stdin.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                let _ = lines.send(Err(format!("reading stdin failed: {e}")));
                return;
            }
        };
        let mut gone = false;
        let pushed = framer.push(&buf[..n], |frame| {
            gone |= lines.send(Ok(frame.bytes)).is_err();
        });
        if gone {
            return;
        }
        if let Err(over) = pushed {
            let _ = lines.send(Err(format!("stopped reading stdin: {over}")));
            return;
        }
    }
    // A last line without its newline is still a message the client wrote.
    if let Some(frame) = framer.finish() {
        let _ = lines.send(Ok(frame.bytes));
    }
}

/// The one client of a stdio server.
struct Connection {
    shared: Arc<Shared>,
    out: Arc<Out>,
    /// The 2025-11-25 session the client's `initialize` opened.
    session: Option<String>,
    /// Messages read so far.
    messages: u64,
    workers: Vec<JoinHandle<()>>,
}

impl Connection {
    /// Dispatches one line, then writes its reply on a thread of its own.
    fn message(&mut self, line: Vec<u8>) {
        if crate::wire::stdio::is_blank(&line) {
            return;
        }
        self.messages += 1;
        let parsed: Option<Value> = serde_json::from_slice(&line).ok();
        let method = parsed
            .as_ref()
            .and_then(|m| m.get("method"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let id = parsed.as_ref().and_then(|m| m.get("id")).cloned();
        let is_request = method.is_some() && id.is_some();
        if method.as_deref() == Some("notifications/cancelled")
            && let Some(target) = parsed.as_ref().and_then(|m| m.pointer("/params/requestId"))
        {
            self.out.cancel(&target.to_string());
        }
        let key = is_request
            .then(|| id.as_ref().map(Value::to_string))
            .flatten();
        if let Some(k) = &key {
            self.out.open(k);
        }
        let incoming = Incoming {
            body: &line,
            fields: None,
            session: self.session.as_deref(),
        };
        let (reply, exchange) = dispatch::handle_post(&self.shared, &incoming, self.messages);
        if let Some(sid) = &exchange.opened_session {
            self.session = Some(sid.clone());
        }
        let mut record = DiagRecord::new(Side::Serve);
        record.client = exchange.client;
        record.protocol_version = exchange.protocol_version.as_deref().map(sanitize);
        record.scenario = Some(self.shared.config.scenario.to_string());
        record.method = exchange.method.as_deref().map(sanitize);
        record.post_count = self.messages;
        record.jsonrpc.id = exchange.id.map(|id| match id {
            Value::String(_) => crate::views::redact::value(&id),
            other => other,
        });
        let progress_token = parsed
            .as_ref()
            .and_then(|m| m.pointer("/params/_meta"))
            .and_then(|m| m.get(meta::PROGRESS_TOKEN))
            .cloned();
        if method.is_some() && id.is_none() {
            // A notification gets no answer, whatever the dialogue thinks of it.
            drop(reply);
            record.ts = crate::views::diag::now_rfc3339();
            self.shared.push_record(record, "stdio");
            return;
        }
        let (shared, out) = (Arc::clone(&self.shared), Arc::clone(&self.out));
        let work = move || {
            let call = Call {
                key: key.as_deref(),
                method: method.as_deref().unwrap_or(""),
                progress_token,
            };
            let ended = exec::execute(&shared, &out, &call, reply, &mut record);
            if let Some(k) = call.key {
                let tap = out.close(k);
                record.stream_end = match ended {
                    Ended::Written if record.final_response => StreamEnd::Complete,
                    Ended::Written | Ended::Cancelled => StreamEnd::Eof,
                    Ended::Gone => StreamEnd::Reset,
                };
                let exit = out.exited();
                if !tap.cut
                    && let Some(protocol) = judged::protocol_of(&record)
                {
                    let end = match (exit, record.final_response) {
                        (Some(_), false) => StdioEnd::Exit,
                        (None, false) => StdioEnd::Eof,
                        (_, true) => StdioEnd::Response,
                    };
                    let request = serde_json::from_slice::<Value>(&line).ok();
                    let mut builder = Exchange::stdio(tap.stdout)
                        .stdin(line.iter().copied().chain([b'\n']).collect::<Vec<u8>>())
                        .stdio_end(end)
                        .stderr(tap.stderr);
                    if let Some(code) = exit.filter(|_| end == StdioEnd::Exit) {
                        builder = builder.exit(ExitStatus::code(code));
                    }
                    if let Some(at) = tap.cancelled_at {
                        builder = builder.cancelled_at(at);
                    }
                    if let Some(tool) = judged::tool_of(&shared, request.as_ref()) {
                        builder = builder.tool(tool);
                    }
                    if let Some(r) = request {
                        builder = builder.request(r);
                    }
                    judged::note_verdict(protocol, builder.build(), &mut record);
                }
            }
            record.ts = crate::views::diag::now_rfc3339();
            shared.push_record(record, "stdio");
        };
        match thread::Builder::new()
            .name("mcp-serve-stdio-reply".into())
            .spawn(work)
        {
            Ok(h) => self.workers.push(h),
            Err(e) => self.out.stderr(&format!(
                "mcp-verdict serve: cannot start a reply thread: {e}"
            )),
        }
        self.reap();
    }

    /// Joins the reply threads that have finished.
    fn reap(&mut self) {
        let (done, live): (Vec<_>, Vec<_>) =
            self.workers.drain(..).partition(JoinHandle::is_finished);
        for h in done {
            let _ = h.join();
        }
        self.workers = live;
    }
}
