//! The server's two output streams over stdio: every line goes to stdout whole (one writer,
//! one lock, a flush per line), and what is written while a request is in flight is also kept
//! for that request, so that its exchange can be judged as the client saw it (the bytes from
//! its request line on, stderr included). A cancelled request gets no further message, unless
//! the scenario in force writes one on purpose; a process that "exits" writes nothing more.

use std::collections::{HashMap, HashSet};
use std::io::{self, Write};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

/// Most bytes of stdout (and of stderr) kept for one request; past it the copy is cut and the
/// exchange is not judged (a part is not the whole exchange).
const TAP_CAP: usize = 1 << 20;

/// What was written while one request was in flight.
#[derive(Default)]
pub(super) struct Tap {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    /// The copy passed [`TAP_CAP`].
    pub cut: bool,
    /// Where in `stdout` the client's cancellation arrived.
    pub cancelled_at: Option<usize>,
}

impl Tap {
    fn keep(buf: &mut Vec<u8>, cut: &mut bool, bytes: &[u8]) {
        let room = TAP_CAP.saturating_sub(buf.len());
        if bytes.len() > room {
            *cut = true;
        }
        buf.extend_from_slice(&bytes[..bytes.len().min(room)]);
    }
}

struct Inner {
    stdout: Box<dyn Write + Send>,
    stderr: Box<dyn Write + Send>,
    taps: HashMap<String, Tap>,
    cancelled: HashSet<String>,
    /// Lines written to stdout so far.
    lines: u64,
    /// The exit code, once the server has "exited" (a fault ended it).
    exited: Option<i32>,
    /// stdin has ended: what waits (a slow answer, a wait for a cancellation) waits no more.
    input_ended: bool,
}

/// stdout and stderr of a stdio server.
pub(super) struct Out {
    inner: Mutex<Inner>,
    /// Signalled when a request is cancelled or the server exits.
    changed: Condvar,
}

/// Why nothing was written.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Unwritten {
    /// The request was cancelled: a server sends nothing more for it.
    Cancelled,
    /// The server has exited, or its stdout is gone.
    Gone,
}

impl Out {
    pub(super) fn new(stdout: Box<dyn Write + Send>, stderr: Box<dyn Write + Send>) -> Out {
        Out {
            inner: Mutex::new(Inner {
                stdout,
                stderr,
                taps: HashMap::new(),
                cancelled: HashSet::new(),
                lines: 0,
                exited: None,
                input_ended: false,
            }),
            changed: Condvar::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts keeping what is written for the request `key`.
    pub(super) fn open(&self, key: &str) {
        self.lock().taps.insert(key.to_string(), Tap::default());
    }

    /// Stops keeping it and returns what was written.
    pub(super) fn close(&self, key: &str) -> Tap {
        let mut g = self.lock();
        g.cancelled.remove(key);
        g.taps.remove(key).unwrap_or_default()
    }

    /// Notes that the client cancelled the request `key`.
    pub(super) fn cancel(&self, key: &str) {
        let mut g = self.lock();
        if let Some(t) = g.taps.get_mut(key) {
            t.cancelled_at.get_or_insert(t.stdout.len());
            g.cancelled.insert(key.to_string());
        }
        drop(g);
        self.changed.notify_all();
    }

    /// Waits until `d` passes, the request `key` is cancelled or the server exits; true when
    /// it was cancelled.
    pub(super) fn wait_cancel(&self, key: &str, d: Duration) -> bool {
        let until = Instant::now() + d;
        let mut g = self.lock();
        loop {
            if g.cancelled.contains(key) {
                return true;
            }
            let now = Instant::now();
            if g.exited.is_some() || g.input_ended || now >= until {
                return false;
            }
            g = self
                .changed
                .wait_timeout(g, until - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    /// Writes `bytes` (a line with its newline, or a part of one) on stdout for the request
    /// `key` (`None`: for no request). Nothing is written for a cancelled request unless
    /// `despite_cancel`, nor after the server has exited.
    pub(super) fn stdout(
        &self,
        key: Option<&str>,
        bytes: &[u8],
        despite_cancel: bool,
    ) -> Result<(), Unwritten> {
        let mut g = self.lock();
        if g.exited.is_some() {
            return Err(Unwritten::Gone);
        }
        if !despite_cancel && key.is_some_and(|k| g.cancelled.contains(k)) {
            return Err(Unwritten::Cancelled);
        }
        let ok = g.stdout.write_all(bytes).and_then(|()| g.stdout.flush());
        if ok.is_err() {
            return Err(Unwritten::Gone);
        }
        g.lines += bytes.iter().filter(|b| **b == b'\n').count() as u64;
        for t in g.taps.values_mut() {
            Tap::keep(&mut t.stdout, &mut t.cut, bytes);
        }
        Ok(())
    }

    /// Writes a line on stderr (kept with every request in flight).
    pub(super) fn stderr(&self, line: &str) {
        let mut g = self.lock();
        if g.exited.is_some() {
            return;
        }
        let bytes = format!("{line}\n");
        let _ = g
            .stderr
            .write_all(bytes.as_bytes())
            .and_then(|()| g.stderr.flush());
        for t in g.taps.values_mut() {
            Tap::keep(&mut t.stderr, &mut t.cut, bytes.as_bytes());
        }
    }

    /// Lines written to stdout so far.
    pub(super) fn lines(&self) -> u64 {
        self.lock().lines
    }

    /// The server exits with `code`: nothing more is written.
    pub(super) fn exit(&self, code: i32) {
        let mut g = self.lock();
        let _ = g.stdout.flush();
        g.exited.get_or_insert(code);
        drop(g);
        self.changed.notify_all();
    }

    /// stdin has ended: waits end now (the server is to exit promptly).
    pub(super) fn input_ended(&self) {
        self.lock().input_ended = true;
        self.changed.notify_all();
    }

    /// Whether the server is stopping: it has exited, or its stdin has ended.
    pub(super) fn stopping(&self) -> bool {
        let g = self.lock();
        g.exited.is_some() || g.input_ended
    }

    /// The exit code, once the server has exited.
    pub(super) fn exited(&self) -> Option<i32> {
        self.lock().exited
    }

    /// Flushes both streams.
    pub(super) fn flush(&self) -> io::Result<()> {
        let mut g = self.lock();
        g.stderr.flush()?;
        g.stdout.flush()
    }
}
