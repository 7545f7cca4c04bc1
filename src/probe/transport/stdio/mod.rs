//! The stdio transport: the probe launches the server command (one process per revision's
//! run: a stdio server is one session) and speaks to it over its standard streams, one
//! JSON-RPC message per line.
//!
//! - **Sending.** A message is its compact JSON and a newline on the server's stdin; there is
//!   no header layer (2026-07-28 basic/transports/stdio, Request Metadata: "There is no header
//!   layer"), so checks that alter header fields do not apply.
//! - **Reading.** stdout is framed into lines ([`crate::wire::stdio::Framer`], bounded by the
//!   longest line and the total of [`Limits::body_bytes`]); a request's answer is every line
//!   read after its request line up to the response with its id, or the end: stdout closed,
//!   the process exited (with its status), or the idle, total or overall deadline passed. A
//!   line the server wrote before the request (a start-up banner) is read after it and so
//!   belongs to that request's exchange, where the stdio rules judge it. stderr is read
//!   alongside, kept with the exchange and the run, never taken for an error.
//! - **Server requests.** A request met on stdout is answered (2025-11-25) with a line on
//!   stdin, as the run's answers say; under 2026-07-28 it is left unanswered and reported.
//! - **Recording.** Each exchange is a stdio exchange ([`Exchange::stdio`]); every line either
//!   side wrote goes to the run's transcript (JSON Lines, `--record`).
//! - **Ending.** At the end of the run the server's stdin is closed, then it gets
//!   [`process::GRACE`] to exit, then SIGTERM, then SIGKILL (2026-07-28 basic/transports/stdio,
//!   Shutdown); which step ended it is reported.

mod process;

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use serde_json::Value;

pub use process::StdioCommand;

use super::{
    Heard, HttpStep, Inbound, Limits, Outbound, ReadStop, Reply, SendError, Sent, SessionEnd,
    SharedResponder, Timeouts, secs,
};
use crate::views::diag::sanitize;
use crate::vocab::Protocol;
use crate::wire::analysis::ids_equal;
use crate::wire::exchange::{BodyEnd, Exchange};
use crate::wire::stdio::transcript::{Direction, TranscriptWriter};
use crate::wire::stdio::{self, Framer, StdioEnd};
use process::{Ending, Event, Server};

/// Most stderr bytes kept for the run (the exchanges keep their own, as long).
const STDERR_CAP: usize = 1 << 20;

/// What the server process did over the run, for the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerProcess {
    /// The command, as shown.
    pub command: String,
    /// What the server wrote on stderr (its first MiB), lossily decoded.
    pub stderr: String,
    /// How the run ended it, in words.
    pub ending: String,
    /// Whether it needed a signal to stop once its stdin was closed.
    pub needed_signal: bool,
    /// The run's transcript: every line either side wrote, as JSON Lines.
    pub transcript: Vec<u8>,
}

/// The stdio transport of one revision's run.
pub(crate) struct StdioTransport {
    command: StdioCommand,
    server: Result<Server, String>,
    p: Protocol,
    responder: SharedResponder,
    timeouts: Timeouts,
    limits: Limits,
    deadline: Instant,
    framer: Option<Framer>,
    /// Lines read and not yet taken by a request (what came after a response in its chunk).
    lines: VecDeque<(Vec<u8>, bool)>,
    stdout_ended: bool,
    stderr: Vec<u8>,
    stderr_lines: Option<Framer>,
    transcript: TranscriptWriter<Vec<u8>>,
    /// Lines written to stdin so far.
    written: u32,
}

/// How reading one answer ended.
struct Read {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    response: Option<Value>,
    end: StdioEnd,
    stop: Option<ReadStop>,
    note: Option<String>,
    exit: Option<std::process::ExitStatus>,
    lines: u32,
}

impl StdioTransport {
    /// Launches `command` for a run under `p`; a command that cannot start makes every
    /// message fail as unreachable.
    pub(crate) fn new(
        command: &StdioCommand,
        p: Protocol,
        responder: SharedResponder,
        timeouts: Timeouts,
        limits: Limits,
        deadline: Instant,
    ) -> StdioTransport {
        let framer = |max_line, max_total| {
            Framer::new(stdio::Limits {
                max_line,
                max_total,
            })
        };
        StdioTransport {
            command: command.clone(),
            server: Server::spawn(command),
            p,
            responder,
            timeouts,
            limits,
            deadline,
            framer: Some(framer(
                limits.body_bytes,
                limits.body_bytes.saturating_mul(8),
            )),
            lines: VecDeque::new(),
            stdout_ended: false,
            stderr: Vec::new(),
            stderr_lines: Some(framer(usize::MAX, usize::MAX)),
            transcript: TranscriptWriter::new(Vec::new()),
            written: 0,
        }
    }

    fn t(&self) -> Option<f64> {
        self.server
            .as_ref()
            .ok()
            .map(|s| s.started.elapsed().as_secs_f64())
    }

    fn note_line(&mut self, dir: Direction, bytes: &[u8], partial: bool) {
        let t = self.t();
        let _ = self.transcript.line(dir, bytes, partial, t);
    }

    /// Writes one message as a line on stdin.
    fn write_line(&mut self, msg: &Value) -> Result<Vec<u8>, SendError> {
        let mut line = serde_json::to_vec(msg).expect("JSON serializes");
        self.note_line(Direction::Stdin, &line.clone(), false);
        line.push(b'\n');
        let server = self
            .server
            .as_mut()
            .map_err(|e| SendError::Unreachable(e.clone()))?;
        server.write(&line).map_err(|e| {
            SendError::NoResponse(format!(
                "cannot write to the server's stdin ({e}): the server has closed it or exited"
            ))
        })?;
        self.written += 1;
        Ok(line)
    }

    /// Takes what the server's streams brought, waiting up to `wait` for the first of it.
    fn pump(&mut self, wait: Duration) -> Result<bool, stdio::Overflow> {
        let Ok(server) = &self.server else {
            return Ok(false);
        };
        let Some(first) = server.next(wait) else {
            return Ok(false);
        };
        let mut events = vec![first];
        events.extend(server.pending());
        for e in events {
            match e {
                Event::Stdout(chunk) => {
                    let mut got = Vec::new();
                    let pushed = match &mut self.framer {
                        Some(f) => f.push(&chunk, |frame| got.push(frame.bytes)),
                        None => Ok(()),
                    };
                    for l in got {
                        self.note_line(Direction::Stdout, &l, false);
                        self.lines.push_back((l, true));
                    }
                    pushed?;
                }
                Event::Stderr(chunk) => {
                    let room = STDERR_CAP.saturating_sub(self.stderr.len());
                    self.stderr
                        .extend_from_slice(&chunk[..chunk.len().min(room)]);
                    let mut got = Vec::new();
                    if let Some(f) = &mut self.stderr_lines {
                        let _ = f.push(&chunk, |frame| got.push(frame.bytes));
                    }
                    for l in got {
                        self.note_line(Direction::Stderr, &l, false);
                    }
                }
                Event::StdoutEnd => {
                    self.stdout_ended = true;
                    if let Some(last) = self.framer.take().and_then(Framer::finish) {
                        self.note_line(Direction::Stdout, &last.bytes, true);
                        self.lines.push_back((last.bytes, false));
                    }
                }
            }
        }
        Ok(true)
    }

    /// Reads the answer to the request with `id` (`None`: a notification, nothing awaited),
    /// answering server requests met on the way.
    fn read_answer(&mut self, id: Option<&Value>, answered: &mut Vec<String>) -> Read {
        let started = Instant::now();
        let own = started + self.timeouts.total;
        let mut r = Read {
            stdout: Vec::new(),
            stderr: Vec::new(),
            response: None,
            end: StdioEnd::Response,
            stop: None,
            note: None,
            exit: None,
            lines: 0,
        };
        let stderr_from = self.stderr.len();
        let Some(id) = id else {
            return r;
        };
        loop {
            while let Some((line, terminated)) = self.lines.pop_front() {
                r.stdout.extend_from_slice(&line);
                if terminated {
                    r.stdout.push(b'\n');
                }
                r.lines += 1;
                let Ok(msg) = serde_json::from_slice::<Value>(&line) else {
                    continue;
                };
                if is_response_to(&msg, id) {
                    r.response = Some(msg);
                    r.stderr = self.stderr[stderr_from..].to_vec();
                    return r;
                }
                self.server_request(&msg, answered);
            }
            if self.stdout_ended {
                r.exit = self
                    .server
                    .as_mut()
                    .ok()
                    .and_then(|s| s.exit_status(Duration::from_millis(200)));
                r.end = if r.exit.is_some() {
                    StdioEnd::Exit
                } else {
                    StdioEnd::Eof
                };
                r.stop = Some(ReadStop::Closed);
                r.note = Some(match r.exit {
                    Some(s) => format!("the server exited ({s}) before the response"),
                    None => "the server closed its stdout before the response".into(),
                });
                break;
            }
            let now = Instant::now();
            let (limit, stop, why) = if self.deadline <= own.min(now + self.timeouts.idle) {
                (
                    self.deadline,
                    ReadStop::Deadline,
                    format!(
                        "the probe's deadline ({} s, --deadline) passed before the response",
                        secs(self.limits.deadline)
                    ),
                )
            } else if own <= now + self.timeouts.idle {
                (
                    own,
                    ReadStop::TimedOut,
                    format!(
                        "the request's total time limit ({} s) passed before the response",
                        secs(self.timeouts.total)
                    ),
                )
            } else {
                (
                    now + self.timeouts.idle,
                    ReadStop::Stalled,
                    format!(
                        "nothing arrived on stdout for {} s (idle timeout) before the response",
                        secs(self.timeouts.idle)
                    ),
                )
            };
            match self.pump(limit.saturating_duration_since(now)) {
                Ok(true) => {}
                Ok(false) if Instant::now() >= limit => {
                    r.end = StdioEnd::Timeout;
                    r.stop = Some(stop);
                    r.note = Some(why);
                    break;
                }
                Ok(false) => {}
                Err(over) => {
                    r.end = StdioEnd::Timeout;
                    r.stop = Some(ReadStop::SizeCap);
                    r.note = Some(format!("{over} (--max-body); the probe stopped reading"));
                    // The rest of the output cannot be framed any more.
                    self.stdout_ended = true;
                    self.framer = None;
                    break;
                }
            }
        }
        r.stderr = self.stderr[stderr_from..].to_vec();
        r
    }

    /// Answers a request the server wrote on stdout as the run's answers say.
    fn server_request(&mut self, msg: &Value, answered: &mut Vec<String>) {
        match self.responder.reply(msg) {
            Some(Reply::Answer { response, how }) => {
                let method = msg.get("method").and_then(Value::as_str).unwrap_or("?");
                let id = msg.get("id").cloned().unwrap_or(Value::Null);
                let line = match self.write_line(&response) {
                    Ok(_) => format!(
                        "{} (id {id}) answered with {how}: a line on stdin",
                        sanitize(method)
                    ),
                    Err(e) => format!("{} (id {id}) not answered: {e}", sanitize(method)),
                };
                answered.push(line);
            }
            Some(Reply::Decline(why)) => answered.push(why),
            None => {}
        }
    }

    fn step(&self, out: &Outbound<'_>, read: Option<&Read>, note: Option<String>) -> HttpStep {
        let rpc_method = out.body.get("method").and_then(Value::as_str);
        HttpStep {
            post: None,
            http_method: crate::probe::transport::STDIN.into(),
            rpc_method: rpc_method.map(str::to_string),
            tool: (rpc_method == Some("tools/call"))
                .then(|| out.body.pointer("/params/name").and_then(Value::as_str))
                .flatten()
                .map(str::to_string),
            status: None,
            end: read.map(|r| body_end(r.end)),
            stopped: read.and_then(|r| r.stop),
            redirect: None,
            note: note.or_else(|| read.and_then(|r| r.note.clone())),
            lines: read.map(|r| r.lines),
        }
    }

    fn inbound(&self, out: &Outbound<'_>, line: Vec<u8>, r: Read) -> Inbound {
        let mut builder = Exchange::stdio(r.stdout.clone())
            .request(out.body.clone())
            .stdin(line)
            .stdio_end(r.end)
            .stderr(r.stderr.clone())
            .protocols(vec![self.p]);
        if let Some(s) = r.exit {
            builder = builder.exit(process::recorded_exit(s));
        }
        let exchange = builder.build();
        let failure = match &r.response {
            Some(_) => "a JSON-RPC response".to_string(),
            None => {
                let mut s = "no JSON-RPC response".to_string();
                if !r.stdout.is_empty() {
                    s.push_str(&format!(
                        ": {}",
                        sanitize(&crate::wire::excerpt(&r.stdout, 120))
                    ));
                }
                if let Some(n) = &r.note {
                    s.push_str(&format!("; {n}"));
                }
                s
            }
        };
        Inbound {
            message: r.response.clone(),
            unanswered: r.response.is_none().then(|| {
                r.note
                    .clone()
                    .unwrap_or_else(|| "no response arrived".to_string())
            }),
            response: r.response,
            status: None,
            end: body_end(r.end),
            end_note: r.note,
            failure,
            exchange,
        }
    }
}

/// The stdio end in the terms the client logic reads (an HTTP body's).
fn body_end(end: StdioEnd) -> BodyEnd {
    match end {
        StdioEnd::Response => BodyEnd::Complete,
        StdioEnd::Eof | StdioEnd::Exit => BodyEnd::Reset,
        StdioEnd::Timeout => BodyEnd::Timeout,
    }
}

/// Whether `msg` is a JSON-RPC response carrying `id`.
fn is_response_to(msg: &Value, id: &Value) -> bool {
    msg.get("method").is_none()
        && (msg.get("result").is_some() || msg.get("error").is_some())
        && msg.get("id").is_some_and(|got| ids_equal(got, id))
}

impl super::Transport for StdioTransport {
    fn send(&mut self, out: &Outbound<'_>) -> Sent {
        let mut answered = Vec::new();
        if let Err(why) = &self.server {
            let e = SendError::Unreachable(why.clone());
            return Sent {
                steps: vec![self.step(out, None, Some(e.to_string()))],
                result: Err(e),
                answered,
            };
        }
        if Instant::now() >= self.deadline {
            let e = SendError::Deadline(self.limits.deadline);
            return Sent {
                steps: vec![self.step(out, None, Some(e.to_string()))],
                result: Err(e),
                answered,
            };
        }
        let line = match self.write_line(out.body) {
            Ok(l) => l,
            Err(e) => {
                return Sent {
                    steps: vec![self.step(out, None, Some(e.to_string()))],
                    result: Err(e),
                    answered,
                };
            }
        };
        let read = self.read_answer(out.body.get("id"), &mut answered);
        // A notification awaits nothing: its step says only that it was written.
        let awaited = out.body.get("id").is_some().then_some(&read);
        let step = self.step(out, awaited, None);
        Sent {
            steps: vec![step],
            result: Ok(self.inbound(out, line, read)),
            answered,
        }
    }

    fn initialized(&mut self) {}

    fn drain(&mut self) -> Heard {
        // What the server wrote between requests is read after the next request line and
        // judged with it (a banner before `initialize` included).
        Heard::default()
    }

    fn end(&mut self) -> SessionEnd {
        let command = self.command.display();
        let (ending, needed_signal) = match &mut self.server {
            Err(why) => (format!("never started: {why}"), false),
            Ok(server) => {
                let ending = server.end();
                // What the server wrote while it went.
                while self.pump(Duration::from_millis(50)).unwrap_or(false) {}
                let (words, signal, status) = match ending {
                    Ending::Exited(s) => ("had exited by itself", false, s),
                    Ending::ClosedStdin(s) => ("exited once its stdin was closed", false, s),
                    Ending::Terminated(s) => (
                        "did not exit within 2 s of its stdin closing; SIGTERM ended it",
                        true,
                        s,
                    ),
                    Ending::Killed(s) => (
                        "did not exit within 2 s of its stdin closing, nor of SIGTERM; SIGKILL ended it",
                        true,
                        s,
                    ),
                };
                if let Some(s) = status {
                    let t = self.t();
                    let _ = self.transcript.exit(process::recorded_exit(s), t);
                }
                let how = status.map_or_else(String::new, |s| format!(" ({s})"));
                (format!("the server {words}{how}"), signal)
            }
        };
        let transcript = std::mem::replace(&mut self.transcript, TranscriptWriter::new(Vec::new()))
            .into_inner()
            .unwrap_or_default();
        SessionEnd {
            heard: Heard::default(),
            step: None,
            process: Some(ServerProcess {
                command,
                stderr: String::from_utf8_lossy(&self.stderr).into_owned(),
                ending,
                needed_signal,
                transcript,
            }),
        }
    }

    fn remaining(&self) -> Duration {
        self.deadline.saturating_duration_since(Instant::now())
    }

    fn session_id(&self) -> Option<&str> {
        None
    }

    fn has_metadata_layer(&self) -> bool {
        false
    }

    fn tool_problem(&self, _tool: &Value) -> Option<String> {
        None
    }
}
