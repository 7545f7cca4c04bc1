//! Streamable HTTP checks on SSE response streams: malformed events, a stream that ends
//! before its response, what stands in the response's place, event ids and reconnection, what
//! may precede the response, and what must not follow it. What the messages themselves say is
//! judged in `stream_messages`.

use serde_json::Value;

use crate::check_api::{Cx, Eval, Hit, Params};
use crate::wire::analysis::{Body, MessageKind, Stream, ids_equal};
use crate::wire::excerpt;
use crate::wire::exchange::BodyEnd;

crate::check_api::declare_checks! {
    "sse_event_json" => sse_event_json, [], [], STREAM,
        "an SSE event before the final response carries data that is not JSON";
    "sse_message_shape" => sse_message_shape, [], [], STREAM,
        "an SSE event carries JSON that is not a JSON-RPC message";
    "sse_final_response" => sse_final_response, ["resumable"], ["resumable"], STREAM,
        "the SSE stream ended before a response with the request's id (or a message in its place)";
    "sse_response_object" => sse_response_object, [], [], STREAM,
        "the message that ends the stream in the response's place is a JSON array (a batch) or a primitive";
    "sse_event_ids_unique" => sse_event_ids_unique, [], [], STREAM,
        "two events (or priming blocks) of the SSE stream carry the same event id";
    "sse_retry_before_close" => sse_retry_before_close, [], [], STREAM,
        "the server closed a stream it left resumable (an event id, no response) without a `retry` field";
    "body_cut_off" => body_cut_off, [], [], HTTP,
        "a JSON body ended early (reset or timeout) and does not parse";
    "sse_server_request" => sse_server_request, [], [], STREAM,
        "the SSE stream carries a server-to-client JSON-RPC request";
    "sse_unmatched_response" => sse_unmatched_response, [], [], STREAM,
        "the SSE stream carries a response other than the final one (another id, or a repeat)";
    "sse_after_final" => sse_after_final, [], [], STREAM,
        "events follow the final response on the SSE stream";
    "sse_accel_buffering" => sse_accel_buffering, [], [], STREAM,
        "an SSE response lacks `X-Accel-Buffering: no`";
    "sse_priming_event" => sse_priming_event, [], [], STREAM,
        "an SSE stream does not start with a priming event (event id, empty data)";
    "era_detection" => era_detection, ["codes"], ["codes"], HTTP,
        "a 400/404/405 whose body is not a recognised modern JSON-RPC error (one of `codes`)";
}

/// The stream of a 2xx answer to a request, when the body is one.
pub(super) fn stream<'a>(cx: &'a Cx<'_>) -> Option<&'a Stream> {
    if !cx.an.is_2xx() || !cx.an.req.expects_response() {
        return None;
    }
    cx.an.stream()
}

fn sse_event_json(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(s) = stream(cx) else {
        return Eval::NotApplicable;
    };
    let mut hits = cx.hits();
    for m in s.before_final() {
        if let MessageKind::BadJson(e) = &m.kind {
            hits.push(|| {
                Hit::in_event(
                    m.event,
                    "",
                    format!(
                        "event {} carries data that is not JSON (at byte {} of the body; data line {}, column {}): {}",
                        m.event, e.offset, e.line, e.column, e.message
                    ),
                )
            });
        }
    }
    hits.into_eval()
}

fn sse_message_shape(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(s) = stream(cx) else {
        return Eval::NotApplicable;
    };
    // The message in the response's place is judged as the response (`sse_response_object`
    // and the envelope rules), as the same bytes in a JSON body would be.
    let mut hits = cx.hits();
    for (i, m) in s.messages.iter().enumerate() {
        if !matches!(m.kind, MessageKind::Other) || Some(i) == s.final_index {
            continue;
        }
        hits.push(|| {
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
        });
    }
    hits.into_eval()
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
    let mut msg = if s.parsed.len == 0 {
        format!(
            "{} before the server sent anything on the stream (0 bytes), so no response arrived",
            ended(cx, s)
        )
    } else {
        format!(
            "{} {} and before the response to this request arrived",
            ended(cx, s),
            carried(s)
        )
    };
    if s.messages.is_empty()
        && s.parsed.skipped_empty.is_empty()
        && s.parsed.comments == 0
        && !cx.an.ex.body.is_empty()
    {
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

/// What a stream carried, for messages: `after 2 event(s) (1 block without data (e.g. a
/// priming event); 3 comment line(s); last event id "7")`.
fn carried(s: &Stream) -> String {
    let mut also = Vec::new();
    match s.parsed.skipped_empty.len() {
        0 => {}
        1 => also.push("1 block without data (e.g. a priming event)".to_string()),
        n => also.push(format!("{n} blocks without data (e.g. priming events)")),
    }
    if s.parsed.comments > 0 {
        also.push(format!("{} comment line(s)", s.parsed.comments));
    }
    if !s.parsed.last_event_id.is_empty() {
        also.push(format!("last event id {:?}", s.parsed.last_event_id));
    }
    let mut out = format!("after {} event(s)", s.messages.len());
    if !also.is_empty() {
        out.push_str(&format!(" ({})", also.join("; ")));
    }
    out
}

fn sse_response_object(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(s) = stream(cx) else {
        return Eval::NotApplicable;
    };
    let Some(m) = s.final_message() else {
        return Eval::NotApplicable;
    };
    match &m.value {
        Some(Value::Array(items)) => Eval::Trigger(vec![Hit::in_event(
            m.event,
            "",
            format!(
                "event {} ends the stream with a JSON array of {} item(s) (a JSON-RPC batch) where the response belongs; a response to one request is a single JSON object",
                m.event,
                items.len()
            ),
        )]),
        Some(v @ (Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_))) => {
            Eval::Trigger(vec![Hit::in_event(
                m.event,
                "",
                format!(
                    "event {} ends the stream with a JSON {} where the response belongs, not a JSON-RPC response object",
                    m.event,
                    super::framing::kind(v)
                ),
            )])
        }
        _ => Eval::Pass,
    }
}

fn sse_event_ids_unique(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(s) = stream(cx) else {
        return Eval::NotApplicable;
    };
    // Every block that set an id, in stream order: dispatched events and data-less blocks
    // (priming events) alike. An empty id only clears the client's last event id.
    let mut ids: Vec<(usize, Option<usize>, &str)> = s
        .event_ids
        .iter()
        .map(|(start, index, id)| (*start, Some(*index), id.as_str()))
        .chain(
            s.parsed
                .skipped_empty
                .iter()
                .filter(|k| k.id_field && !k.last_event_id.is_empty())
                .map(|k| (k.start, None, k.last_event_id.as_str())),
        )
        .collect();
    if ids.is_empty() {
        return Eval::NotApplicable;
    }
    ids.sort_by_key(|(start, _, _)| *start);
    let name = |start: usize, event: Option<usize>| match event {
        Some(i) => format!("event {i}"),
        None => format!("the block without data at byte {start}"),
    };
    let mut first: std::collections::HashMap<&str, (usize, Option<usize>)> =
        std::collections::HashMap::new();
    let mut hits = Vec::new();
    for (start, event, id) in ids {
        match first.get(id) {
            Some(&(s0, e0)) => {
                let msg = format!(
                    "{} repeats event id {id:?}, already used by {}; a client resuming with Last-Event-ID: {id} cannot tell which it means",
                    name(start, event),
                    name(s0, e0)
                );
                hits.push(match event {
                    Some(i) => Hit::in_event(i, "", msg),
                    None => Hit::new("", msg),
                });
            }
            None => {
                first.insert(id, (start, event));
            }
        }
    }
    Eval::from_hits(hits)
}

fn sse_retry_before_close(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(s) = stream(cx) else {
        return Eval::NotApplicable;
    };
    // Only a server that closed (not a reset or a client's timeout) a stream without its
    // response, after giving an event id to resume from, meant the client to reconnect.
    if cx.an.ex.end != BodyEnd::Complete
        || s.final_index.is_some()
        || s.parsed.last_event_id.is_empty()
    {
        return Eval::NotApplicable;
    }
    match s.parsed.retry {
        Some(_) => Eval::Pass,
        None => Eval::hit(
            "",
            format!(
                "the server closed the stream before the response, leaving it to be resumed from event id {:?}, without a `retry` field telling the client how long to wait before reconnecting",
                s.parsed.last_event_id
            ),
        ),
    }
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
    let mut hits = cx.hits();
    for m in &s.messages {
        if !matches!(m.kind, MessageKind::Request) {
            continue;
        }
        hits.push(|| {
            Hit::in_event(
                m.event,
                "",
                format!(
                    "event {} is a server-to-client request (`{}`); server requests must be embedded in an InputRequiredResult instead",
                    m.event,
                    m.method().unwrap_or("?")
                ),
            )
        });
    }
    hits.into_eval()
}

fn sse_unmatched_response(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(s) = stream(cx) else {
        return Eval::NotApplicable;
    };
    let want = cx.an.req.id;
    let mut hits = cx.hits();
    for (i, m) in s.messages.iter().enumerate() {
        if !matches!(m.kind, MessageKind::Response) || Some(i) == s.final_index {
            continue;
        }
        hits.push(|| {
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
        });
    }
    hits.into_eval()
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
    let first_event = s.first_event_start;
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
