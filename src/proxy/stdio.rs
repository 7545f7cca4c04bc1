//! `proxy -- COMMAND ARGS...`: the stdio form. A client launches the proxy as its server
//! command; the proxy launches the real server and relays, byte for byte and as each read
//! returns, the client's stdin to the server's stdin, the server's stdout to the client, and
//! the server's stderr to its own stderr. Nothing is added to stdout, which carries the
//! protocol; the proxy's own lines go to stderr between the server's lines, never inside one.
//!
//! Every line either side wrote is told to the judging thread (`stdio_live`), which replays the session as
//! `classify --transcript` reads a transcript ([`crate::inputs::transcript::Replay`]): each
//! `tools/call` is judged when its response line arrives (or the server exits, or the proxy
//! stops), under the revision `initialize` negotiated or the request names, with the tool's
//! definition from the last `tools/list` answer; each setup answer (`initialize`,
//! `server/discover`, `tools/list`) is judged too, as `probe` records it over stdio
//! (`stdio_setup`). `--record DIR` writes the session's transcript (`transcript.jsonl`, which
//! `classify --transcript` judges again to the same verdicts) and an exchange file per judged
//! exchange.
//!
//! Every line is told to the judging thread before it is written on: a request before the
//! server can have answered it, an answer before the client can have acted on it (a
//! `tools/call` sent once the `tools/list` answer was read is known to come after it). Telling
//! is a copy of the line onto a channel, which never waits for the judge. The proxy ends when the server does, and
//! exits with the server's status (128 + the signal's number for a server ended by a signal).
//! A SIGTERM or SIGINT to the proxy is passed on to the server; if it has not exited
//! [`KILL_AFTER`] later, it is killed. When the client closes the proxy's stdin, the server's
//! is closed; a server still running [`EXIT_AFTER_EOF`] later gets the SIGTERM a client
//! that shuts down as the stdio transport asks would send (2025-11-25 basic/lifecycle,
//! Shutdown: "Waiting for the server to exit, or sending `SIGTERM` if the server does not
//! exit within a reasonable time"), so that a client gone without it leaves no server behind.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::shared_stderr::SharedStderr;
use super::sinks::{self, Sink};
use super::stdio_live::{StdioLive, Told, TranscriptFile};
use super::stdio_setup::Setup;
use super::summary::{Summary, Tally};
use super::{ProxyError, lock, ui};
use crate::inputs::transcript::Replay;
use crate::judge::Engine;
use crate::outputs::Style;
use crate::wire::stdio::ExitStatus;
use crate::wire::stdio::transcript::Direction;

/// How long the server gets to exit after the proxy passed it a SIGTERM or SIGINT.
pub const KILL_AFTER: Duration = Duration::from_secs(5);

/// How long the server gets to exit once the client closed the proxy's stdin (and so the
/// proxy the server's) before it gets a SIGTERM: the shutdown the stdio transport asks of a
/// client, done for one that has gone away without it.
pub const EXIT_AFTER_EOF: Duration = Duration::from_secs(5);

/// Bytes read at once from any stream.
const READ_BUF: usize = 64 * 1024;

/// How to run the stdio form.
#[derive(Debug, Clone)]
pub struct StdioConfig {
    /// The server command: the program and its arguments.
    pub command: Vec<String>,
    /// The most bytes of one line copied for judging; a longer line is relayed in full and
    /// the call it belongs to is said not to be judged in full.
    pub max_copy: usize,
    /// Write the `classify --jsonl` record of each judged call to this file.
    pub log: Option<PathBuf>,
    /// Write the session's transcript and an exchange file per judged call into this folder.
    pub record: Option<PathBuf>,
    /// Print a line per judged call on stderr.
    pub echo_stderr: bool,
    /// How those lines are styled.
    pub style: Style,
    /// Serve the live page on this address.
    pub ui: Option<SocketAddr>,
}

impl StdioConfig {
    /// The stdio form for `command`, judging quietly.
    pub fn new(command: Vec<String>) -> StdioConfig {
        StdioConfig {
            command,
            max_copy: super::DEFAULT_MAX_COPY,
            log: None,
            record: None,
            echo_stderr: false,
            style: Style::default(),
            ui: None,
        }
    }
}

/// How a stdio run ended.
#[derive(Debug)]
pub struct StdioRun {
    /// What was judged.
    pub summary: Summary,
    /// How the server ended.
    pub exit: Option<std::process::ExitStatus>,
}

impl StdioRun {
    /// The status the proxy exits with: the server's (128 + the signal for a signal).
    pub fn exit_code(&self) -> u8 {
        let Some(s) = self.exit else { return 1 };
        let e = exit_status(s);
        match (e.code, e.signal) {
            (Some(c), _) => c.clamp(0, 255) as u8,
            (None, Some(sig)) => (128 + sig).clamp(0, 255) as u8,
            _ => 1,
        }
    }
}

/// Splits a stream into lines for the judging thread, copying at most `bound` bytes of each.
struct Lines {
    dir: Direction,
    pending: Vec<u8>,
    over: bool,
    bound: usize,
}

impl Lines {
    fn new(dir: Direction, bound: usize) -> Lines {
        Lines {
            dir,
            pending: Vec::new(),
            over: false,
            bound,
        }
    }

    fn feed(&mut self, mut data: &[u8], tell: &Sender<Told>) {
        while !data.is_empty() {
            let (piece, complete) = match memchr::memchr(b'\n', data) {
                Some(i) => (&data[..i], true),
                None => (data, false),
            };
            let room = self.bound.saturating_sub(self.pending.len());
            if piece.len() > room {
                self.over = true;
            }
            self.pending
                .extend_from_slice(&piece[..piece.len().min(room)]);
            if !complete {
                return;
            }
            data = &data[piece.len() + 1..];
            self.send(false, tell);
        }
    }

    fn send(&mut self, partial: bool, tell: &Sender<Told>) {
        let _ = tell.send(Told::Line {
            dir: self.dir,
            bytes: std::mem::take(&mut self.pending),
            partial,
            over: std::mem::take(&mut self.over),
            at: Instant::now(),
        });
    }

    /// The stream ended: a last line without its newline is told as partial.
    fn end(&mut self, tell: &Sender<Told>) {
        if !self.pending.is_empty() || self.over {
            self.send(true, tell);
        }
    }
}

/// Runs the stdio form on this process's standard streams until the server ends (or `stop`
/// is set by a signal, which is passed on to the server).
pub fn run(config: StdioConfig, stop: Arc<AtomicBool>) -> Result<StdioRun, ProxyError> {
    let shown = config.command.join(" ");
    let (program, args) = config.command.split_first().ok_or_else(|| {
        ProxyError::Config("no server command given (proxy -- COMMAND ARGS...)".into())
    })?;
    let err = SharedStderr::new();
    let tally = Tally::default();
    let mut sinks: Vec<Box<dyn Sink>> = vec![Box::new(tally.clone())];
    if config.echo_stderr {
        sinks.push(Box::new(sinks::StderrLines {
            style: config.style,
            shared: Some(err.clone()),
        }));
    }
    if let Some(p) = &config.log {
        sinks.push(Box::new(sinks::Log::create(p).map_err(|source| {
            ProxyError::Output {
                what: format!("cannot create the log {}", p.display()),
                source,
            }
        })?));
    }
    let mut transcript = None;
    if let Some(d) = &config.record {
        sinks.push(Box::new(sinks::Records::create(d, &shown).map_err(
            |source| ProxyError::Output {
                what: format!("cannot create the record folder {}", d.display()),
                source,
            },
        )?));
        transcript = Some(TranscriptFile::create(&d.join("transcript.jsonl")).map_err(
            |source| ProxyError::Output {
                what: format!("cannot create the transcript in {}", d.display()),
                source,
            },
        )?);
    }
    if let Some(addr) = config.ui {
        let feed = Arc::new(ui::Feed::default());
        sinks.push(Box::new(ui::FeedSink(feed.clone())));
        let bound = ui::start(addr, feed, shown.clone()).map_err(|source| ProxyError::Listen {
            what: format!("cannot serve the live page on {addr}"),
            source,
        })?;
        err.line(&format!("mcp-verdict proxy: live page on http://{bound}/"));
    }
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| ProxyError::Config(format!("cannot start `{shown}`: {e}")))?;
    let started = Instant::now();
    let (tell, told) = mpsc::channel();
    let judge = {
        let live = StdioLive {
            engine: Engine::builtin(),
            replay: Replay::default(),
            setup: Setup::default(),
            sinks,
            transcript,
            started,
            requested: HashMap::new(),
            entries: 0,
            over_at: Vec::new(),
            seq: 0,
            err: err.clone(),
        };
        std::thread::Builder::new()
            .name("proxy-judge".into())
            .spawn(move || live.run(told))
            .map_err(|source| ProxyError::Listen {
                what: "cannot start the judging thread".into(),
                source,
            })?
    };
    let bound = config.max_copy.max(1);
    // Client to server: told, then written.
    let client_gone: Arc<Mutex<Option<Instant>>> = Arc::default();
    if let Some(mut to_server) = child.stdin.take() {
        let tell = tell.clone();
        let client_gone = client_gone.clone();
        let _ = std::thread::Builder::new()
            .name("proxy-stdin".into())
            .spawn(move || {
                let mut lines = Lines::new(Direction::Stdin, bound);
                let mut stdin = std::io::stdin().lock();
                let mut buf = vec![0u8; READ_BUF];
                loop {
                    match stdin.read(&mut buf) {
                        Ok(0) => break,
                        Ok(n) => {
                            lines.feed(&buf[..n], &tell);
                            if to_server
                                .write_all(&buf[..n])
                                .and_then(|()| to_server.flush())
                                .is_err()
                            {
                                break;
                            }
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(_) => break,
                    }
                }
                lines.end(&tell);
                // The client is done: so is the server's stdin.
                drop(to_server);
                *lock(&client_gone) = Some(Instant::now());
            });
    }
    // Server to client: told, then written (a line the client has read is known before
    // whatever the client writes once it has read it).
    let out = child.stdout.take().map(|mut from| {
        let tell = tell.clone();
        std::thread::Builder::new()
            .name("proxy-stdout".into())
            .spawn(move || {
                let mut lines = Lines::new(Direction::Stdout, bound);
                let mut stdout = std::io::stdout().lock();
                let mut buf = vec![0u8; READ_BUF];
                loop {
                    match from.read(&mut buf) {
                        Ok(0) => break,
                        Ok(n) => {
                            lines.feed(&buf[..n], &tell);
                            let _ = stdout.write_all(&buf[..n]).and_then(|()| stdout.flush());
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(_) => break,
                    }
                }
                lines.end(&tell);
            })
    });
    let errs = child.stderr.take().map(|mut from| {
        let tell = tell.clone();
        let err = err.clone();
        std::thread::Builder::new()
            .name("proxy-stderr".into())
            .spawn(move || {
                let mut lines = Lines::new(Direction::Stderr, bound);
                let mut buf = vec![0u8; READ_BUF];
                loop {
                    match from.read(&mut buf) {
                        Ok(0) => break,
                        Ok(n) => {
                            lines.feed(&buf[..n], &tell);
                            err.server(&buf[..n]);
                        }
                        Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                        Err(_) => break,
                    }
                }
                lines.end(&tell);
                err.server_ended();
            })
    });
    let status = wait(&mut child, &stop, &client_gone);
    // What the server wrote before it ended is told before its end (its pipes close with
    // it, unless a process it started holds them: then the proxy waits no more than a
    // moment).
    for h in [out, errs].into_iter().flatten().flatten() {
        let until = Instant::now() + Duration::from_secs(2);
        while !h.is_finished() && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(5));
        }
        if h.is_finished() {
            let _ = h.join();
        }
    }
    if let Some(s) = status {
        let _ = tell.send(Told::Exit {
            status: exit_status(s),
            at: Instant::now(),
        });
    }
    let _ = tell.send(Told::Stop);
    let _ = judge.join();
    err.server_ended();
    let summary = tally.get();
    err.text(&summary.render());
    Ok(StdioRun {
        summary,
        exit: status,
    })
}

/// Waits for the server to exit; a stop (a signal to the proxy), or a server still running
/// [`EXIT_AFTER_EOF`] after the client closed its stdin, gets a SIGTERM, and a server still
/// running [`KILL_AFTER`] later is killed. Always reaps it.
fn wait(
    child: &mut Child,
    stop: &AtomicBool,
    client_gone: &Mutex<Option<Instant>>,
) -> Option<std::process::ExitStatus> {
    let mut kill_at = None;
    loop {
        match child.try_wait() {
            Ok(Some(s)) => return Some(s),
            Ok(None) => {}
            Err(_) => return child.wait().ok(),
        }
        let gone = lock(client_gone).is_some_and(|t| t.elapsed() >= EXIT_AFTER_EOF);
        if kill_at.is_none() && (gone || stop.load(Ordering::SeqCst)) {
            terminate(child);
            kill_at = Some(Instant::now() + KILL_AFTER);
        }
        if kill_at.is_some_and(|k| Instant::now() >= k) {
            let _ = child.kill();
            return child.wait().ok();
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn terminate(child: &mut Child) {
    #[cfg(unix)]
    {
        let pid = rustix::process::Pid::from_child(child);
        let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
    }
    #[cfg(not(unix))]
    let _ = child.kill();
}

/// An exit status in the transcript's terms.
fn exit_status(s: std::process::ExitStatus) -> ExitStatus {
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = s.signal() {
            return ExitStatus::signal(sig);
        }
    }
    ExitStatus::code(s.code().unwrap_or(-1))
}
