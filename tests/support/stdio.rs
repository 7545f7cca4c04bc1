//! Driving `serve --stdio` in-process: the server reads a pipe the test writes and writes a
//! pipe a thread of the test reads line by line, so that every read is bounded by a timeout.

use std::io::{self, BufRead, BufReader, PipeWriter, Write};
use std::sync::mpsc::{self, Receiver};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use mcp_verdict::serve::{ServeConfig, StdioServed, serve_stdio};
use mcp_verdict::vocab::Protocol;
use serde_json::{Value, json};

/// stderr of the server, kept.
#[derive(Clone, Default)]
pub struct Kept(pub Arc<Mutex<Vec<u8>>>);

impl Write for Kept {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// One client of an in-process stdio server.
pub struct StdioSession {
    stdin: Option<PipeWriter>,
    lines: Receiver<Vec<u8>>,
    server: Option<JoinHandle<io::Result<StdioServed>>>,
    /// What the server wrote on stderr.
    pub stderr: Kept,
}

impl StdioSession {
    /// A server with `scenario`, other settings as `tweak` leaves them.
    pub fn start_with(scenario: &str, tweak: impl FnOnce(&mut ServeConfig)) -> StdioSession {
        let mut config = ServeConfig {
            scenario: scenario.parse().expect("scenario parses"),
            ..ServeConfig::default()
        };
        tweak(&mut config);
        let (in_r, in_w) = io::pipe().expect("pipe");
        let (out_r, out_w) = io::pipe().expect("pipe");
        let stderr = Kept::default();
        let err = stderr.clone();
        let server = thread::spawn(move || serve_stdio(config, in_r, out_w, err));
        let (tx, lines) = mpsc::channel();
        thread::spawn(move || {
            let mut r = BufReader::new(out_r);
            loop {
                let mut line = Vec::new();
                match r.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        if tx.send(line).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        StdioSession {
            stdin: Some(in_w),
            lines,
            server: Some(server),
            stderr,
        }
    }

    pub fn start(scenario: &str) -> StdioSession {
        Self::start_with(scenario, |_| {})
    }

    /// Writes one message as a line.
    pub fn send(&mut self, msg: &Value) {
        let mut line = msg.to_string().into_bytes();
        line.push(b'\n');
        // A server that has exited has closed the pipe: the write fails, as for a client.
        let _ = self.stdin.as_mut().expect("open").write_all(&line);
    }

    /// Writes raw bytes.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        let _ = self.stdin.as_mut().expect("open").write_all(bytes);
    }

    /// The next line the server wrote (newline included; a partial last line has none),
    /// within `wait`.
    pub fn line(&mut self, wait: Duration) -> Option<Vec<u8>> {
        self.lines.recv_timeout(wait).ok()
    }

    /// Lines up to the response with `id` (included), within `wait`; the response, if it
    /// came.
    pub fn until_response(&mut self, id: &Value, wait: Duration) -> (Vec<Vec<u8>>, Option<Value>) {
        let until = Instant::now() + wait;
        let mut seen = Vec::new();
        while let Some(l) = self.line(until.saturating_duration_since(Instant::now())) {
            seen.push(l.clone());
            if let Ok(v) = serde_json::from_slice::<Value>(&l)
                && v.get("method").is_none()
                && v.get("id") == Some(id)
            {
                return (seen, Some(v));
            }
        }
        (seen, None)
    }

    /// Sets up a session under `rev` (initialize + initialized, or nothing for 2026-07-28).
    pub fn setup(&mut self, rev: Protocol) {
        if rev == Protocol::V2025_11_25 {
            self.send(
                &json!({"jsonrpc": "2.0", "id": "init", "method": "initialize",
                "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                           "clientInfo": {"name": "stdio-test", "version": "1"}}}),
            );
            let (_, r) = self.until_response(&json!("init"), Duration::from_secs(5));
            assert!(r.is_some(), "initialize answered");
            self.send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        }
    }

    /// Closes stdin and waits for the server to return.
    pub fn finish(mut self) -> StdioServed {
        self.stdin = None;
        let h = self.server.take().expect("running");
        let until = Instant::now() + Duration::from_secs(20);
        while !h.is_finished() {
            assert!(
                Instant::now() < until,
                "serve --stdio did not return after stdin closed"
            );
            thread::sleep(Duration::from_millis(10));
        }
        h.join().expect("no panic").expect("served")
    }
}

/// `params` with the 2026-07-28 `_meta` a request carries, for `rev`.
pub fn params_for(rev: Protocol, mut params: Value) -> Value {
    if rev == Protocol::V2026_07_28 {
        params["_meta"] = crate::support::serve::modern_meta(json!({}));
    }
    params
}
