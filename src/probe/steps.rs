//! What the probe's HTTP steps record, and when a broken response stream is resumed: shared
//! by the runner (POSTs and their resumptions) and the standalone GET stream's listener.

use super::http::{self, ReadStop, Received};
use super::report::HttpStep;

/// At most this many GETs resume one response stream.
pub(super) const MAX_RESUMES: u32 = 20;

/// How long the probe waits before resuming a stream that set no `retry` field (the SSE
/// standard leaves the default reconnection time to the client).
pub(super) const DEFAULT_RECONNECT: std::time::Duration = std::time::Duration::from_secs(1);

/// Whether a 2025-11-25 response can be resumed: an event stream with a 2xx status that the
/// server ended (or whose connection closed) before the response, after giving an event id.
pub(super) fn resumable(r: &Received) -> bool {
    let sse = crate::wire::analysis::Media::parse(r.headers.get("content-type"))
        == crate::wire::analysis::Media::EventStream;
    (200..300).contains(&r.status)
        && sse
        && r.final_message.is_none()
        && r.last_event_id.is_some()
        && matches!(r.stop, None | Some(ReadStop::Closed))
}

/// The step of a POST and what came of it.
pub(super) fn post_step(
    res: &Result<Received, http::SendError>,
    rpc_method: Option<String>,
    tool: Option<&str>,
) -> HttpStep {
    HttpStep {
        post: None,
        http_method: "POST".into(),
        rpc_method,
        tool: tool.map(str::to_string),
        status: res.as_ref().ok().map(|r| r.status),
        end: res.as_ref().ok().map(|r| r.end),
        stopped: res.as_ref().ok().and_then(|r| r.stop),
        redirect: res.as_ref().ok().and_then(Received::redirect),
        note: match res {
            Ok(r) => match (r.redirect(), &r.end_note) {
                (Some(to), None) => Some(format!(
                    "redirected to {to}; the probe does not follow redirects"
                )),
                (_, n) => n.clone(),
            },
            Err(e) => Some(e.to_string()),
        },
    }
}

/// The step of a GET (a resumption or the standalone stream) and what came of it.
pub(super) fn get_step(res: &Result<Received, http::SendError>) -> HttpStep {
    HttpStep {
        http_method: "GET".into(),
        ..post_step(res, None, None)
    }
}
