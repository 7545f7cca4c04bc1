//! Executing a planned [`Reply`] on the socket: a `Content-Length` response, or an SSE stream
//! step by step (including waiting for the client's answer to a server request) ended the
//! way the plan says; the diagnostic record notes what went out.

use std::net::TcpStream;
use std::sync::atomic::Ordering;
use std::sync::{Arc, mpsc};
use std::thread;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::wire::{self as http, SseWriter};
use crate::serve::exchange::{is_response, note_message};
use crate::serve::reply::{Answer, Reply, SseEnd, SsePlan, SseStep};
use crate::serve::shared::Shared;
use crate::views::diag::{DiagRecord, StreamEnd};
use crate::vocab::http::EVENT_STREAM;
use crate::wire::exchange::BodyEnd;

/// What went out for one response, kept when the exchange is to be judged (a `tools/call`):
/// the status, the header fields that matter to a client (`Content-Type` and the reply's own;
/// not the framing), the body as the client reads it (SSE without chunk framing) and how it
/// ended.
#[derive(Default)]
pub(crate) struct Sent {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    pub end: BodyEnd,
    /// The body went past the copy's cap: the copy is not the whole body.
    pub cut: bool,
}

/// What the connection must do after a response.
#[derive(PartialEq, Eq)]
pub(crate) enum After {
    KeepOpen,
    Close,
    Reset,
}

/// Sends `reply` and says what the connection must do next; fills `sent` with what went out
/// when it is `Some`.
pub(crate) fn execute(
    shared: &Arc<Shared>,
    stream: &mut TcpStream,
    reply: Reply,
    chunked: bool,
    record: &mut DiagRecord,
    sent: &mut Option<Sent>,
) -> After {
    match reply {
        Reply::Full {
            status,
            content_type,
            headers,
            body,
            close,
            final_response,
            message,
        } => {
            record.http_statuses = vec![status];
            record.content_type = content_type.clone();
            if let Some(m) = &message {
                note_message(record, m);
            }
            let written = http::write_full(
                stream,
                status,
                content_type.as_deref(),
                &headers,
                &body,
                close,
            );
            if let Some(sent) = sent {
                sent.status = status;
                sent.headers = content_type
                    .iter()
                    .map(|ct| ("Content-Type".to_string(), ct.clone()))
                    .chain(headers)
                    .collect();
                sent.end = if written.is_ok() {
                    BodyEnd::Complete
                } else {
                    BodyEnd::Reset
                };
                sent.body = body;
            }
            match written {
                Ok(()) => {
                    record.final_response = final_response;
                    record.stream_end = StreamEnd::Complete;
                    if close { After::Close } else { After::KeepOpen }
                }
                Err(_) => {
                    record.stream_end = StreamEnd::Eof;
                    After::Close
                }
            }
        }
        Reply::Sse(plan) => run_sse(shared, stream, plan, chunked, record, sent),
    }
}

/// Writes one event and notes it in the record; false if the write failed.
fn send_event(
    w: &mut SseWriter<'_>,
    record: &mut DiagRecord,
    id: Option<&str>,
    data: &str,
    msg: Option<&Value>,
) -> bool {
    if w.event(id, data).is_err() {
        return false;
    }
    record.sse_event_count = Some(w.events);
    if let Some(m) = msg
        && is_response(m)
    {
        record.final_response = true;
        note_message(record, m);
    }
    true
}

fn run_sse(
    shared: &Arc<Shared>,
    stream: &mut TcpStream,
    plan: SsePlan,
    chunked: bool,
    record: &mut DiagRecord,
    sent: &mut Option<Sent>,
) -> After {
    record.http_statuses = vec![200];
    record.content_type = Some(EVENT_STREAM.into());
    record.sse_event_count = Some(0);
    if let Some(sent) = sent {
        sent.status = 200;
        sent.headers = http::sse_head_fields()
            .into_iter()
            .chain(plan.headers.iter().cloned())
            .collect();
        sent.end = BodyEnd::Reset;
    }
    // A close-delimited body (HTTP/1.0) always ends the connection.
    let close = !matches!(plan.end, SseEnd::Finish) || !chunked;
    let mut w = match SseWriter::start(stream, 200, &plan.headers, chunked, close) {
        Ok(w) => w,
        Err(_) => {
            record.stream_end = StreamEnd::Eof;
            return After::Close;
        }
    };
    if sent.is_some() {
        w.keep_copy();
    }
    let (after, end) = stream_events(shared, &mut w, plan, close, record);
    if let Some(sent) = sent {
        sent.body = w.take_copy().unwrap_or_default();
        sent.cut = w.copy_cut;
        sent.end = end;
    }
    after
}

/// Writes a planned stream's events and ends it as planned; says what the connection must
/// do next and how the body ended for the client.
fn stream_events(
    shared: &Arc<Shared>,
    w: &mut SseWriter<'_>,
    plan: SsePlan,
    close: bool,
    record: &mut DiagRecord,
) -> (After, BodyEnd) {
    let mut broken = false;
    if let Some(pid) = &plan.priming_id {
        broken = !send_event(w, record, Some(pid), "", None);
    }
    for step in plan.steps {
        if broken {
            // Release a pending server request the stream can no longer serve.
            if let SseStep::Await { session, key, .. } = step {
                shared.forget_pending(&session, &key);
            }
            continue;
        }
        match step {
            SseStep::Message(m) => broken = !send_event(w, record, None, &m.to_string(), Some(&m)),
            SseStep::RawData(d) => broken = !send_event(w, record, None, &d, None),
            SseStep::Pause(d) => {
                thread::sleep(d);
                broken = shared.shutdown.load(Ordering::SeqCst);
            }
            SseStep::Await {
                rx,
                session,
                key,
                limit,
                then,
            } => {
                let answer = await_answer(shared, w.stream(), &rx, limit);
                shared.forget_pending(&session, &key);
                match answer {
                    Some(a) => {
                        if matches!(a, Answer::Timeout) {
                            record.stream_end = StreamEnd::Timeout;
                        }
                        let m = then(a);
                        broken = !send_event(w, record, None, &m.to_string(), Some(&m));
                    }
                    None => broken = true,
                }
            }
        }
    }
    if broken {
        record.stream_end = StreamEnd::Eof;
        record.final_response = false;
        return (After::Close, BodyEnd::Reset);
    }
    match plan.end {
        SseEnd::Finish | SseEnd::FinishAndClose => {
            if w.finish().is_err() {
                record.stream_end = StreamEnd::Eof;
                return (After::Close, BodyEnd::Reset);
            }
            if record.stream_end != StreamEnd::Timeout {
                record.stream_end = if record.final_response {
                    StreamEnd::Complete
                } else {
                    StreamEnd::Eof
                };
            }
            let after = if close { After::Close } else { After::KeepOpen };
            (after, BodyEnd::Complete)
        }
        SseEnd::ResetMidEvent(data) => {
            let _ = w.partial_event(&data);
            // Give the peer a moment to read the partial bytes before the RST.
            thread::sleep(Duration::from_millis(20));
            record.stream_end = StreamEnd::Reset;
            record.final_response = false;
            (After::Reset, BodyEnd::Reset)
        }
        SseEnd::Stall(limit) => {
            http::wait_for_peer_close(w.stream(), limit, &shared.shutdown);
            record.stream_end = StreamEnd::Stall;
            record.final_response = false;
            (After::Close, BodyEnd::Timeout)
        }
    }
}

/// Waits for the client's answer to a server request. None: the client went
/// away or the server is stopping.
fn await_answer(
    shared: &Shared,
    stream: &mut TcpStream,
    rx: &mpsc::Receiver<Value>,
    limit: Duration,
) -> Option<Answer> {
    let deadline = Instant::now() + limit;
    loop {
        match rx.recv_timeout(http::POLL) {
            Ok(v) => return Some(Answer::Response(v)),
            Err(mpsc::RecvTimeoutError::Disconnected) => return Some(Answer::Timeout),
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        if shared.shutdown.load(Ordering::SeqCst) || peer_closed(stream) {
            return None;
        }
        if Instant::now() >= deadline {
            return Some(Answer::Timeout);
        }
    }
}

/// Non-blocking check whether the peer has closed the connection.
fn peer_closed(stream: &TcpStream) -> bool {
    let mut b = [0u8; 1];
    if stream.set_nonblocking(true).is_err() {
        return false;
    }
    let closed = match stream.peek(&mut b) {
        Ok(0) => true,
        Ok(_) => false,
        Err(e) => !http::is_timeout(&e),
    };
    let _ = stream.set_nonblocking(false);
    closed
}
