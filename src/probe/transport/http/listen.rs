//! The standalone GET stream of a 2025-11-25 session: opened after `initialize`, read on a
//! thread of its own while the probe makes its calls, with every server request that arrives
//! on it answered like those on a response stream, every other message reported, and the
//! stream resumed with `Last-Event-ID` when the server closes it after an event id. Closed by
//! the probe at the end of the session.
//!
//! 2025-11-25 basic/transports, Listening for Messages from the Server: "The client **MAY**
//! issue an HTTP GET to the MCP endpoint. This can be used to open an SSE stream, allowing the
//! server to communicate to the client, without the client first sending data via HTTP POST."
//! "The client **MUST** include an `Accept` header, listing `text/event-stream` as a supported
//! content type." "The server **MUST** either return `Content-Type: text/event-stream` in
//! response to this HTTP GET, or else return HTTP 405 Method Not Allowed, indicating that the
//! server does not offer an SSE stream at this endpoint." "The server **MUST NOT** send a
//! JSON-RPC _response_ on the stream **unless** resuming a stream associated with a previous
//! client request." "If the server closes the _connection_ without terminating the _stream_,
//! it **SHOULD** follow the same polling behavior as described for POST requests: sending a
//! `retry` field and allowing the client to reconnect."

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::answer::post_answer;
use super::client::{Client, Outgoing};
use super::resume::{DEFAULT_RECONNECT, MAX_RESUMES};
use super::steps::get_step;
use crate::probe::transport::{Heard, ReadStop, Reply, SharedResponder};
use crate::views::diag::sanitize;
use crate::wire::analysis::Media;

/// How long closing the listener waits for its thread to notice.
const CLOSE_WAIT: Duration = Duration::from_millis(500);

/// Longest the probe waits for the response head of the standalone GET before it goes on
/// with its requests (so that the stream is open before the server has anything to send).
const OPEN_WAIT: Duration = Duration::from_secs(2);

/// A standalone GET stream being read.
pub(super) struct Listener {
    stop: Arc<AtomicBool>,
    heard: Arc<Mutex<Heard>>,
    done: mpsc::Receiver<()>,
}

impl Listener {
    /// Opens the stream: `headers` go on the GET, `answer_headers` on answers POSTed.
    pub(super) fn open(
        t: &Client,
        headers: Vec<(String, String)>,
        answer_headers: Vec<(String, String)>,
        responder: SharedResponder,
    ) -> Listener {
        let stop = Arc::new(AtomicBool::new(false));
        let heard = Arc::new(Mutex::new(Heard::default()));
        let (tx, done) = mpsc::channel();
        let (head_tx, head_rx) = mpsc::channel::<()>();
        let (tc, s, h) = (t.clone(), stop.clone(), heard.clone());
        let spawned = thread::Builder::new()
            .name("mcp-probe-get-stream".into())
            .spawn(move || {
                let opened = move |_: u16| {
                    let _ = head_tx.send(());
                };
                listen(&tc, &headers, &answer_headers, &responder, &s, &h, &opened);
                let _ = tx.send(());
            });
        match spawned {
            // Wait (briefly, within the deadline) for the head: the stream is open, or
            // refused, before the probe's next request. A failed GET ends the wait at once.
            Ok(_) => {
                let _ = head_rx.recv_timeout(OPEN_WAIT.min(t.remaining()));
            }
            Err(e) => lock(&heard)
                .lines
                .push(format!("the standalone GET stream was not opened: {e}")),
        }
        Listener { stop, heard, done }
    }

    /// What arrived since the last call.
    pub(super) fn drain(&self) -> Heard {
        std::mem::take(&mut *lock(&self.heard))
    }

    /// Closes the stream and returns what arrived since the last [`Listener::drain`].
    pub(super) fn close(self) -> Heard {
        self.stop.store(true, Ordering::SeqCst);
        let finished = !matches!(
            self.done.recv_timeout(CLOSE_WAIT),
            Err(mpsc::RecvTimeoutError::Timeout)
        );
        let mut heard = self.drain();
        if !finished {
            heard.lines.push(
                "the standalone GET stream was still waiting for the server when the session ended; the probe stopped following it"
                    .into(),
            );
        }
        heard
    }
}

fn lock(h: &Mutex<Heard>) -> std::sync::MutexGuard<'_, Heard> {
    h.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// Sleeps `d`, waking early when `stop` is set; false when it was.
fn pause(d: Duration, stop: &AtomicBool) -> bool {
    let until = Instant::now() + d;
    while Instant::now() < until {
        if stop.load(Ordering::SeqCst) {
            return false;
        }
        thread::sleep((until - Instant::now()).min(Duration::from_millis(20)));
    }
    !stop.load(Ordering::SeqCst)
}

fn listen(
    t: &Client,
    headers: &[(String, String)],
    answer_headers: &[(String, String)],
    responder: &SharedResponder,
    stop: &AtomicBool,
    heard: &Mutex<Heard>,
    opened: &dyn Fn(u16),
) {
    let mut last_id: Option<String> = None;
    let mut retry: Option<Duration> = None;
    for attempt in 0..=MAX_RESUMES {
        if attempt > 0 {
            let wait = retry.unwrap_or(DEFAULT_RECONNECT);
            if wait >= t.remaining() || !pause(wait, stop) {
                return;
            }
        }
        let mut h = headers.to_vec();
        if let Some(id) = &last_id {
            h.push(("Last-Event-ID".into(), id.clone()));
        }
        let out = Outgoing {
            method: "GET",
            headers: &h,
            body: None,
            rpc_id: None,
            cancel: Some(stop),
            on_head: Some(opened),
        };
        let mut on_message = |msg: &Value| {
            let line = match (msg.get("id"), msg.get("method").and_then(Value::as_str)) {
                (Some(_), Some(_)) => match responder.reply(msg) {
                    Some(Reply::Answer { response, how }) => {
                        let (line, step) = post_answer(t, answer_headers, msg, &response, &how);
                        lock(heard).steps.push(step);
                        format!("GET stream: {line}")
                    }
                    Some(Reply::Decline(line)) => format!("GET stream: {line}"),
                    None => return,
                },
                (None, Some(m)) => format!("GET stream: notification {}", sanitize(m)),
                (Some(id), None) => format!(
                    "GET stream: a JSON-RPC response (id {}) arrived on the standalone stream, which carries none unless it resumes a request's stream",
                    sanitize(&id.to_string())
                ),
                (None, None) => {
                    "GET stream: a message that is neither a request, a notification nor a response"
                        .into()
                }
            };
            lock(heard).lines.push(line);
        };
        let res = t.send(&out, &mut on_message);
        let mut step = get_step(&res);
        let what = if attempt == 0 {
            "standalone GET stream".to_string()
        } else {
            format!(
                "standalone GET stream, resumption {attempt} (Last-Event-ID: {})",
                sanitize(last_id.as_deref().unwrap_or(""))
            )
        };
        let (note, again) = match &res {
            Err(e) => (format!("{what}: {e}"), None),
            Ok(r) if r.status == 405 => (
                format!(
                    "{what}: 405 Method Not Allowed — the server offers no standalone stream, as the transport allows"
                ),
                None,
            ),
            Ok(r)
                if !(200..300).contains(&r.status)
                    || Media::parse(r.headers.get("content-type")) != Media::EventStream =>
            {
                (
                    format!(
                        "{what}: HTTP {} ({}); a server answers this GET with text/event-stream or 405 Method Not Allowed",
                        r.status,
                        sanitize(r.headers.get("content-type").unwrap_or("no Content-Type"))
                    ),
                    None,
                )
            }
            Ok(r) => match r.stop {
                Some(ReadStop::ClosedByClient) => (
                    format!("{what}: closed by the probe at the end of the session"),
                    None,
                ),
                None | Some(ReadStop::Closed) => match &r.last_event_id {
                    Some(id) => {
                        let wait = r.retry.or(retry).unwrap_or(DEFAULT_RECONNECT);
                        (
                            format!(
                                "{what}: the server closed the stream after event id {}; reconnecting with Last-Event-ID after {} ms",
                                sanitize(id),
                                wait.as_millis()
                            ),
                            Some((id.clone(), r.retry)),
                        )
                    }
                    None => (
                        format!(
                            "{what}: the server ended the stream without an event id to resume from"
                        ),
                        None,
                    ),
                },
                Some(s) => (format!("{what}: {}", s.label()), None),
            },
        };
        step.note = Some(match step.note.take() {
            Some(n) if !matches!(res, Ok(ref r) if r.stop == Some(ReadStop::ClosedByClient)) => {
                format!("{note}; {n}")
            }
            _ => note,
        });
        lock(heard).steps.push(step);
        match again {
            Some((id, r)) => {
                last_id = Some(id);
                retry = r.or(retry);
            }
            None => return,
        }
    }
}
