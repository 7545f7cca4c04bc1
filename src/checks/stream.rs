//! Streamable HTTP checks on SSE response streams: malformed events, a stream that ends
//! before its response, what may precede the response, and what must not follow it.

use serde_json::Value;

use crate::check_api::{Cx, Eval, Hit, Params};
use crate::wire::analysis::{Body, MessageKind, Stream, StreamMessage, ids_equal};
use crate::wire::excerpt;
use crate::wire::exchange::BodyEnd;

crate::check_api::declare_checks! {
    "sse_event_json" => sse_event_json, [], [], STREAM,
        "an SSE event before the final response carries data that is not JSON";
    "sse_message_shape" => sse_message_shape, [], [], STREAM,
        "an SSE event carries JSON that is not a JSON-RPC message";
    "sse_final_response" => sse_final_response, ["resumable"], ["resumable"], STREAM,
        "the SSE stream ended before a response with the request's id";
    "body_cut_off" => body_cut_off, [], [], NONE,
        "a JSON body ended early (reset or timeout) and does not parse";
    "sse_server_request" => sse_server_request, [], [], STREAM,
        "the SSE stream carries a server-to-client JSON-RPC request";
    "sse_unmatched_response" => sse_unmatched_response, [], [], STREAM,
        "the SSE stream carries a response other than the final one (another id, or a repeat)";
    "sse_after_final" => sse_after_final, [], [], STREAM,
        "events follow the final response on the SSE stream";
    "sse_progress" => sse_progress, [], [], STREAM,
        "a progress notification with another token, without a requested token, not increasing, or after the response";
    "sse_log_without_level" => sse_log_without_level, [], [], STREAM,
        "a log message notification on a request that set no log level";
    "sse_notification_method" => sse_notification_method, ["names"], ["names"], STREAM,
        "a notification whose method is one of `names` is on the stream";
    "sse_unrelated_notification" => sse_unrelated_notification, ["names"], ["names"], STREAM,
        "a notification whose method is not one of `names` (the request-related ones) is on the stream";
    "sse_accel_buffering" => sse_accel_buffering, [], [], STREAM,
        "an SSE response lacks `X-Accel-Buffering: no`";
    "sse_priming_event" => sse_priming_event, [], [], STREAM,
        "an SSE stream does not start with a priming event (event id, empty data)";
    "era_detection" => era_detection, ["codes"], ["codes"], NONE,
        "a 400/404/405 whose body is not a recognised modern JSON-RPC error (one of `codes`)";
}

fn stream<'a>(cx: &'a Cx<'_>) -> Option<&'a Stream> {
    if !cx.an.is_2xx() || !cx.an.req.expects_response() {
        return None;
    }
    cx.an.stream()
}

fn sse_event_json(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(s) = stream(cx) else {
        return Eval::NotApplicable;
    };
    let hits: Vec<Hit> = s
        .before_final()
        .iter()
        .filter_map(|m| match &m.kind {
            MessageKind::BadJson(e) => Some(Hit::in_event(
                m.event,
                "",
                format!(
                    "event {} carries data that is not JSON (at byte {} of the body; data line {}, column {}): {}",
                    m.event, e.offset, e.line, e.column, e.message
                ),
            )),
            _ => None,
        })
        .collect();
    Eval::from_hits(hits)
}

fn sse_message_shape(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(s) = stream(cx) else {
        return Eval::NotApplicable;
    };
    let hits: Vec<Hit> = s
        .messages
        .iter()
        .filter(|m| matches!(m.kind, MessageKind::Other))
        .map(|m| {
            let what = m.value.as_ref().map_or("value", |v| match v {
                Value::Object(_) => "object without `method`, `result` or `error`",
                Value::Array(_) => "array (a batch)",
                _ => "primitive",
            });
            Hit::in_event(
                m.event,
                "",
                format!(
                    "event {} carries a JSON {what}, not a JSON-RPC message",
                    m.event
                ),
            )
        })
        .collect();
    Eval::from_hits(hits)
}

fn ended(cx: &Cx<'_>, s: &Stream) -> String {
    let how = match cx.an.ex.end {
        BodyEnd::Complete => "the server closed the stream",
        BodyEnd::Reset => "the connection was reset",
        BodyEnd::Timeout => "the client stopped waiting (timeout)",
    };
    match &s.parsed.tail {
        Some(t) => format!(
            "{how} in the middle of an event ({} undispatched bytes from byte {})",
            s.parsed.len.saturating_sub(t.start),
            t.start
        ),
        None => how.to_string(),
    }
}

fn sse_final_response(cx: &Cx<'_>, p: &Params) -> Eval {
    let Some(s) = stream(cx) else {
        return Eval::NotApplicable;
    };
    if s.final_index.is_some() {
        return Eval::Pass;
    }
    let events = s.messages.len();
    let mut msg = format!(
        "{} after {events} event(s) and before the response to this request arrived",
        ended(cx, s)
    );
    if events == 0 && s.parsed.skipped_empty.is_empty() {
        msg.push_str(&format!(
            "; the body carried no SSE events at all and starts: {}",
            excerpt(&cx.an.ex.body, 100)
        ));
    }
    if p.resumable == Some(true) {
        if s.parsed.last_event_id.is_empty() {
            msg.push_str(
                "; the server sent no event id, so the stream cannot be resumed: the request is lost",
            );
        } else {
            msg.push_str(&format!(
                "; the stream can be resumed with GET and Last-Event-ID: {} (the response should eventually arrive there)",
                s.parsed.last_event_id
            ));
        }
    } else {
        msg.push_str(
            "; streams are not resumable under this revision: the request is lost and must be re-issued as a new request with a new id, if replaying it is safe",
        );
    }
    Eval::hit("", msg)
}

fn body_cut_off(cx: &Cx<'_>, _: &Params) -> Eval {
    if !cx.an.is_2xx() || !cx.an.req.expects_response() || !cx.an.json_branch() {
        return Eval::NotApplicable;
    }
    if cx.an.ex.end == BodyEnd::Complete {
        return Eval::Pass;
    }
    match &cx.an.body {
        Body::BadJson(e) => Eval::hit(
            "",
            format!(
                "the body ended early ({}) after {} bytes, so it is incomplete JSON ({}): whether the tool ran is unknown",
                cx.an.ex.end.as_str(),
                cx.an.ex.body.len(),
                e.message
            ),
        ),
        _ => Eval::Pass,
    }
}

fn sse_server_request(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(s) = stream(cx) else {
        return Eval::NotApplicable;
    };
    let hits: Vec<Hit> = s
        .messages
        .iter()
        .filter(|m| matches!(m.kind, MessageKind::Request))
        .map(|m| {
            Hit::in_event(
                m.event,
                "",
                format!(
                    "event {} is a server-to-client request (`{}`); server requests must be embedded in an InputRequiredResult instead",
                    m.event,
                    m.method().unwrap_or("?")
                ),
            )
        })
        .collect();
    Eval::from_hits(hits)
}

fn sse_unmatched_response(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(s) = stream(cx) else {
        return Eval::NotApplicable;
    };
    let want = cx.an.req.id;
    let hits: Vec<Hit> = s
        .messages
        .iter()
        .enumerate()
        .filter(|(i, m)| matches!(m.kind, MessageKind::Response) && Some(*i) != s.final_index)
        .map(|(_, m)| {
            let got = m.value.as_ref().and_then(|v| v.get("id"));
            let detail = match (got, want) {
                (Some(g), Some(w)) if ids_equal(g, w) => {
                    "repeats the response to this request".to_string()
                }
                (Some(g), Some(w)) => format!("has id {g}, not the request's id {w}"),
                (None, _) => "has no id".to_string(),
                (Some(g), None) => format!("has id {g}"),
            };
            Hit::in_event(
                m.event,
                "/id",
                format!(
                    "event {} is a response that {detail}; the client keeps reading for its own",
                    m.event
                ),
            )
        })
        .collect();
    Eval::from_hits(hits)
}

fn sse_after_final(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(s) = stream(cx) else {
        return Eval::NotApplicable;
    };
    let Some(fi) = s.final_index else {
        return Eval::NotApplicable;
    };
    let after = s.after_final();
    if after.is_empty() {
        return Eval::Pass;
    }
    let final_event = s.messages[fi].event;
    Eval::Trigger(vec![Hit::in_event(
        after[0].event,
        "",
        format!(
            "{} event(s) followed the final response (event {final_event}); the response should end the stream",
            after.len()
        ),
    )])
}

fn notifications<'a>(
    s: &'a Stream,
    method: &'a str,
) -> impl Iterator<Item = (bool, &'a StreamMessage)> + 'a {
    let fi = s.final_index;
    s.messages
        .iter()
        .enumerate()
        .filter(move |(_, m)| {
            matches!(m.kind, MessageKind::Notification) && m.method() == Some(method)
        })
        .map(move |(i, m)| (fi.is_some_and(|f| i > f), m))
}

fn sse_progress(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(s) = stream(cx) else {
        return Eval::NotApplicable;
    };
    let token = cx.an.req.progress_token;
    let mut last: Option<f64> = None;
    let mut hits = Vec::new();
    let mut any = false;
    for (after, m) in notifications(s, "notifications/progress") {
        any = true;
        let params = m.value.as_ref().and_then(|v| v.get("params"));
        let got_token = params.and_then(|p| p.get("progressToken"));
        let progress = params
            .and_then(|p| p.get("progress"))
            .and_then(Value::as_f64);
        match (token, got_token) {
            (None, _) => hits.push(Hit::in_event(
                m.event,
                "/params/progressToken",
                format!(
                    "event {}: progress notification although the request set no progressToken",
                    m.event
                ),
            )),
            (Some(want), Some(got)) if ids_equal(want, got) => {}
            (Some(want), got) => hits.push(Hit::in_event(
                m.event,
                "/params/progressToken",
                format!(
                    "event {}: progress token {} is not the request's token {want}",
                    m.event,
                    got.map_or_else(|| "(missing)".to_string(), Value::to_string)
                ),
            )),
        }
        if let Some(p) = progress {
            if let Some(prev) = last
                && p <= prev
            {
                hits.push(Hit::in_event(
                    m.event,
                    "/params/progress",
                    format!(
                        "event {}: progress {p} does not increase (previous {prev})",
                        m.event
                    ),
                ));
            }
            last = Some(p);
        }
        if after {
            hits.push(Hit::in_event(
                m.event,
                "",
                format!(
                    "event {}: progress notification after the final response",
                    m.event
                ),
            ));
        }
    }
    if !any {
        return Eval::NotApplicable;
    }
    Eval::from_hits(hits)
}

fn sse_log_without_level(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(s) = stream(cx) else {
        return Eval::NotApplicable;
    };
    if cx.an.req.log_level.is_some() {
        return Eval::Pass;
    }
    let hits: Vec<Hit> = notifications(s, "notifications/message")
        .map(|(_, m)| {
            Hit::in_event(
                m.event,
                "",
                format!(
                    "event {}: log message notification although the request's _meta set no io.modelcontextprotocol/logLevel",
                    m.event
                ),
            )
        })
        .collect();
    Eval::from_hits(hits)
}

/// Hits for the notifications on the stream whose method is (`listed`) or is not (`!listed`)
/// one of `names`.
fn notifications_by_name(cx: &Cx<'_>, names: &[String], listed: bool, what: &str) -> Eval {
    let Some(s) = stream(cx) else {
        return Eval::NotApplicable;
    };
    let hits: Vec<Hit> = s
        .messages
        .iter()
        .filter(|m| matches!(m.kind, MessageKind::Notification))
        .filter_map(|m| {
            let method = m.method()?;
            (names.iter().any(|n| n == method) == listed).then(|| {
                Hit::in_event(
                    m.event,
                    "/method",
                    format!("event {}: `{method}` {what}", m.event),
                )
            })
        })
        .collect();
    Eval::from_hits(hits)
}

fn sse_notification_method(cx: &Cx<'_>, p: &Params) -> Eval {
    notifications_by_name(cx, &p.names, true, "on the response stream")
}

fn sse_unrelated_notification(cx: &Cx<'_>, p: &Params) -> Eval {
    notifications_by_name(cx, &p.names, false, "does not relate to this request")
}

fn sse_accel_buffering(cx: &Cx<'_>, _: &Params) -> Eval {
    if stream(cx).is_none() {
        return Eval::NotApplicable;
    }
    match cx.an.ex.response_headers.get("X-Accel-Buffering") {
        Some(v) if v.trim().eq_ignore_ascii_case("no") => Eval::Pass,
        Some(v) => Eval::hit("", format!("X-Accel-Buffering is `{v}`, not `no`")),
        None => Eval::hit("", "the SSE response has no `X-Accel-Buffering: no` header"),
    }
}

fn sse_priming_event(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(s) = stream(cx) else {
        return Eval::NotApplicable;
    };
    let first_event = s.parsed.events.first().map(|e| e.start);
    let primed = s
        .parsed
        .skipped_empty
        .iter()
        .any(|k| k.is_priming() && first_event.is_none_or(|f| k.start < f));
    if primed {
        Eval::Pass
    } else {
        Eval::hit(
            "",
            "the stream did not start with a priming event (an event id with empty data) to let the client resume",
        )
    }
}

fn era_detection(cx: &Cx<'_>, p: &Params) -> Eval {
    let status = cx.an.status();
    if !matches!(status, 400 | 404 | 405) || !cx.an.req.expects_response() {
        return Eval::NotApplicable;
    }
    if cx.error_code().is_some_and(|c| p.codes.contains(&c)) {
        return Eval::Pass;
    }
    Eval::hit(
        "",
        format!(
            "HTTP {status} without a recognised modern JSON-RPC error in the body: the endpoint is likely a legacy (2025-11-25 or older) or non-MCP endpoint; a client should fall back to `initialize` (or to the HTTP+SSE transport) rather than retry this request as is"
        ),
    )
}
