//! Resuming a 2025-11-25 response stream the server closed before the response: when, how
//! long to wait, and how the segments join into the one stream they are.

use std::time::Duration;

use super::client::Received;
use super::steps::get_step;
use crate::probe::transport::{HttpStep, ReadStop, SendError};
use crate::views::diag::sanitize;
use crate::wire::analysis::Media;

/// At most this many GETs resume one response stream.
pub(super) const MAX_RESUMES: u32 = 20;

/// How long the probe waits before resuming a stream that set no `retry` field (the SSE
/// standard leaves the default reconnection time to the client).
pub(super) const DEFAULT_RECONNECT: std::time::Duration = std::time::Duration::from_secs(1);

/// Whether a 2025-11-25 response can be resumed: an event stream with a 2xx status that the
/// server ended (or whose connection closed) before the response, after giving an event id.
pub(super) fn resumable(r: &Received) -> bool {
    let sse = Media::parse(r.headers.get("content-type")) == Media::EventStream;
    (200..300).contains(&r.status)
        && sse
        && r.final_message.is_none()
        && r.last_event_id.is_some()
        && matches!(r.stop, None | Some(ReadStop::Closed))
}

/// What one GET of a resumption came to, with the steps of the server requests answered on
/// the way.
pub(super) type Segment = (Result<Received, SendError>, Vec<HttpStep>);

/// Adds `note` to the last step's note.
fn note_last_step(steps: &mut [HttpStep], note: String) {
    if let Some(s) = steps.last_mut() {
        s.note = Some(match s.note.take() {
            Some(n) => format!("{n}; {note}"),
            None => note,
        });
    }
}

/// Resumes a 2025-11-25 response stream the server closed before the response: waits for
/// the stream's `retry` (or [`DEFAULT_RECONNECT`]), then GETs the endpoint with
/// `Last-Event-ID`, up to [`MAX_RESUMES`] times, within the probe's deadline. The
/// result is the POST's response with the body of every segment in order (each cut to
/// its last complete event), so the exchange is judged as the one stream it is.
///
/// 2025-11-25 basic/transports, Sending Messages to the Server: the server "**MAY** close
/// the _connection_ (without terminating the _SSE stream_) at any time ... The client
/// **SHOULD** then \"poll\" the SSE stream by attempting to reconnect", and "The client
/// **MUST** respect the `retry` field, waiting the given number of milliseconds before
/// attempting to reconnect". Resumability and Redelivery: "If the client wishes to resume
/// after a disconnection (whether due to network failure or server-initiated closure), it
/// **SHOULD** issue an HTTP GET to the MCP endpoint, and include the `Last-Event-ID`
/// header to indicate the last event ID it received"; "Resumption is always via HTTP GET
/// with `Last-Event-ID`."
///
/// `get` sends the GET with the given `Last-Event-ID` and returns what came of it with
/// the steps of the server requests answered on the way; `remaining` is the time left
/// before the probe's deadline.
pub(super) fn resume(
    first: Received,
    rpc_method: Option<&str>,
    remaining: &dyn Fn() -> Duration,
    get: &mut dyn FnMut(&str) -> Segment,
    steps: &mut Vec<HttpStep>,
) -> Received {
    let mut merged = first;
    let what = rpc_method.unwrap_or("request");
    for attempt in 1..=MAX_RESUMES {
        if merged.final_message.is_some() || !resumable(&merged) {
            break;
        }
        let Some(last_id) = merged.last_event_id.clone() else {
            break;
        };
        let wait = merged.retry.unwrap_or(DEFAULT_RECONNECT);
        let why_wait = match merged.retry {
            Some(_) => "the stream's retry field",
            None => "no retry field; the probe's default",
        };
        if wait >= remaining() {
            note_last_step(
                steps,
                format!(
                    "not resumed: waiting {} ms ({why_wait}) would pass the probe's deadline",
                    wait.as_millis()
                ),
            );
            break;
        }
        std::thread::sleep(wait);
        let (res, mut extra_steps) = get(&last_id);
        let mut step = get_step(&res);
        let mut note = format!(
            "resumption {attempt} of the {} stream: Last-Event-ID: {}, after waiting {} ms ({why_wait})",
            sanitize(what),
            sanitize(&last_id),
            wait.as_millis()
        );
        if let Some(n) = &step.note {
            note.push_str("; ");
            note.push_str(n);
        }
        let g = match res {
            Ok(g) => g,
            Err(_) => {
                step.note = Some(note);
                steps.push(step);
                break;
            }
        };
        let sse = Media::parse(g.headers.get("content-type")) == Media::EventStream;
        if !(200..300).contains(&g.status) || !sse {
            note.push_str(&format!(
                "; the server did not resume the stream (HTTP {}{})",
                g.status,
                if g.status == 405 {
                    ", Method Not Allowed"
                } else {
                    ", not an event stream"
                }
            ));
            step.note = Some(note);
            steps.push(step);
            steps.append(&mut extra_steps);
            break;
        }
        step.note = Some(note);
        steps.push(step);
        steps.append(&mut extra_steps);
        merged.body.truncate(merged.complete_len);
        let offset = merged.body.len();
        merged.body.extend_from_slice(&g.body);
        merged.complete_len = offset + g.complete_len;
        merged.end = g.end;
        merged.stop = g.stop;
        merged.end_note = g.end_note;
        merged.final_message = g.final_message;
        merged.last_event_id = g.last_event_id.or(Some(last_id));
        merged.retry = g.retry.or(merged.retry);
    }
    merged
}
