//! stdio binding checks on what a server wrote on its stdout (and stderr): lines that are not
//! MCP messages, messages split over lines, server requests, messages after a cancellation, an
//! output that ended before the response, a response that is not one message, and stderr. What
//! the messages say is judged by the checks shared with SSE streams (`stream_messages`).

use crate::check_api::{Cx, Eval, Hit, Params};
use crate::wire::analysis::{MessageKind, StreamMessage, ids_equal};
use crate::wire::excerpt;
use crate::wire::stdio::read::{LineRole, PartialKind, StdioRead};
use crate::wire::stdio::{Stdio, StdioEnd};

crate::check_api::declare_checks! {
    "stdio_non_mcp_output" => stdio_non_mcp_output, [], [], STDIO,
        "a line of a stdio server's stdout is not a JSON-RPC message (text such as a log line or banner, a blank line, JSON that is no JSON-RPC message, bytes that are not UTF-8); the response's line and the lines of a pretty-printed message are judged by their own rules";
    "stdio_embedded_newline" => stdio_embedded_newline, [], [], STDIO,
        "a message a stdio server wrote is split over several lines (pretty-printed JSON)";
    "stdio_split_response" => stdio_split_response, [], [], STDIO,
        "the response a stdio server wrote is split over several lines, so a client reading one message per line cannot read it";
    "stdio_server_request" => stdio_server_request, [], [], STDIO,
        "a stdio server wrote a JSON-RPC request on stdout";
    "stdio_after_cancellation" => stdio_after_cancellation, ["names"], [], STDIO,
        "after the client cancelled the request, the server wrote its response, or a notification whose method is one of `names` with the request's progress token";
    "stdio_response_after_cancel" => stdio_response_after_cancel, [], [], STDIO,
        "the response to the request came after the client cancelled it, so the client ignores it";
    "stdio_ended_early" => stdio_ended_early, [], [], STDIO,
        "a stdio server's output ended (end of file, exit, the client's timeout) before the response to the request";
    "stdio_single_message" => stdio_single_message, [], [], STDIO,
        "the line in the response's place is a JSON array (a batch) or a primitive, not one JSON-RPC message";
    "stdio_stderr" => stdio_stderr, [], [], STDIO,
        "a stdio server wrote on stderr";
}

/// The exchange's stdio record and its reading, for a request that expects a response.
fn answer<'a>(cx: &'a Cx<'_>) -> Option<(&'a Stdio, &'a StdioRead)> {
    let s = cx.an.ex.stdio.as_deref()?;
    let r = cx.an.stdio()?;
    cx.an.req.expects_response().then_some((s, r))
}

/// `stdout line 4` or `stdout lines 4-9`, for messages (lines count from 1).
fn lines_at(first: usize, last: usize) -> String {
    if first == last {
        format!("stdout line {}", first + 1)
    } else {
        format!("stdout lines {}-{}", first + 1, last + 1)
    }
}

fn stdio_non_mcp_output(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some((s, r)) = answer(cx) else {
        return Eval::NotApplicable;
    };
    let mut hits = cx.hits();
    for l in &r.lines {
        let what = match l.role {
            LineRole::Blank => "is blank: a newline that delimits no message".to_string(),
            LineRole::Message(m) if Some(m) != r.final_index => match &r.messages[m].kind {
                MessageKind::BadJson(e) => format!(
                    "is not JSON ({}): {}",
                    e.message,
                    excerpt(l.line.bytes(&s.stdout), 80)
                ),
                MessageKind::NotUtf8 { offset } => format!(
                    "is not UTF-8 (byte {offset} of stdout starts an invalid sequence): {}",
                    excerpt(l.line.bytes(&s.stdout), 80)
                ),
                MessageKind::Other => format!(
                    "is JSON but no JSON-RPC message (no `method`, `result` or `error`): {}",
                    excerpt(l.line.bytes(&s.stdout), 80)
                ),
                _ => continue,
            },
            _ => continue,
        };
        let index = l.line.index;
        hits.push(|| {
            Hit::in_event(
                index,
                "",
                format!(
                    "{} {what}; the server must write nothing but MCP messages on stdout (logs belong on stderr)",
                    lines_at(index, index)
                ),
            )
        });
    }
    hits.into_eval()
}

/// The kind of a message, for people.
fn kind_name(m: &StreamMessage) -> &'static str {
    match m.kind {
        MessageKind::Response => "response",
        MessageKind::Request => "request",
        MessageKind::Notification => "notification",
        _ => "JSON value",
    }
}

fn stdio_embedded_newline(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some((_, r)) = answer(cx) else {
        return Eval::NotApplicable;
    };
    let mut hits = cx.hits();
    for j in &r.joined {
        let m = &r.messages[j.message];
        let whose = if Some(j.message) == r.final_index {
            " (the response to this request)"
        } else {
            ""
        };
        hits.push(|| {
            Hit::in_event(
                j.first,
                "",
                format!(
                    "{} are one JSON-RPC {}{whose} split over {} lines (pretty-printed): a message is one line, without embedded newlines",
                    lines_at(j.first, j.last),
                    kind_name(m),
                    j.last - j.first + 1
                ),
            )
        });
    }
    hits.into_eval()
}

fn stdio_split_response(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some((_, r)) = answer(cx) else {
        return Eval::NotApplicable;
    };
    let Some(fi) = r.final_index else {
        return Eval::NotApplicable;
    };
    let (first, last) = r.span_of(fi);
    if first == last {
        return Eval::Pass;
    }
    Eval::Trigger(vec![Hit::in_event(
        first,
        "",
        format!(
            "the response is split over {} ({} lines): a client reading one message per line reads no line of it as a message, so it never receives the response",
            lines_at(first, last),
            last - first + 1
        ),
    )])
}

fn stdio_server_request(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some((_, r)) = answer(cx) else {
        return Eval::NotApplicable;
    };
    let mut hits = cx.hits();
    for m in &r.messages {
        if !matches!(m.kind, MessageKind::Request) {
            continue;
        }
        hits.push(|| {
            let (first, last) = (m.event, m.event);
            Hit::in_event(
                m.event,
                "",
                format!(
                    "{} is a JSON-RPC request from the server (`{}`); server-to-client interactions travel in an InputRequiredResult instead",
                    lines_at(first, last),
                    m.method().unwrap_or("?")
                ),
            )
        });
    }
    hits.into_eval()
}

fn stdio_after_cancellation(cx: &Cx<'_>, p: &Params) -> Eval {
    let Some((s, r)) = answer(cx) else {
        return Eval::NotApplicable;
    };
    let Some(at) = s.cancelled_at else {
        return Eval::NotApplicable;
    };
    let token = cx.an.req.progress_token;
    let mut hits = cx.hits();
    for (i, m) in r.messages.iter().enumerate() {
        if r.lines[m.event].line.start < at {
            continue;
        }
        let what = match m.kind {
            // The response's own id was matched as it was read (its value is not kept).
            MessageKind::Response if Some(i) == r.final_index && r.final_matches => "its response",
            MessageKind::Response
                if m.value
                    .as_ref()
                    .and_then(|v| v.get("id"))
                    .zip(cx.an.req.id)
                    .is_some_and(|(got, want)| ids_equal(got, want)) =>
            {
                "a response with its id"
            }
            MessageKind::Notification
                if m.method().is_some_and(|n| p.names.iter().any(|x| x == n))
                    && token
                        .zip(m.progress_token())
                        .is_some_and(|(w, g)| ids_equal(w, g)) =>
            {
                "a notification for it"
            }
            _ => continue,
        };
        let (first, last) = r.span_of(i);
        hits.push(|| {
            Hit::in_event(
                m.event,
                "",
                format!(
                    "{} is {what} (`{}`), written after the client cancelled the request at byte {at} of stdout; a cancelled request gets no further messages (a client ignores them)",
                    lines_at(first, last),
                    m.method().unwrap_or(kind_name(m))
                ),
            )
        });
    }
    hits.into_eval()
}

fn stdio_response_after_cancel(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some((s, r)) = answer(cx) else {
        return Eval::NotApplicable;
    };
    let (Some(at), Some(fi)) = (s.cancelled_at, r.final_index) else {
        return Eval::NotApplicable;
    };
    let (first, last) = r.span_of(fi);
    if r.lines[first].line.start < at {
        return Eval::Pass;
    }
    Eval::Trigger(vec![Hit::in_event(
        first,
        "",
        format!(
            "the client cancelled the request at byte {at} of stdout and the response came after it ({}): a client that cancelled ignores it, so it has no result and whether the tool ran is unknown",
            lines_at(first, last)
        ),
    )])
}

fn stdio_ended_early(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some((s, r)) = answer(cx) else {
        return Eval::NotApplicable;
    };
    if r.final_index.is_some() {
        return Eval::Pass;
    }
    let exit = s.exit.map(|e| format!(" ({e})")).unwrap_or_default();
    let how = match s.end {
        StdioEnd::Response => {
            "the recording says it stopped after the response, but no line of stdout is the response to this request".to_string()
        }
        StdioEnd::Eof => format!("the server closed its stdout{exit}"),
        StdioEnd::Exit => format!("the server process exited{exit}"),
        StdioEnd::Timeout => "the client stopped waiting (timeout)".to_string(),
    };
    let whole = r.lines.len() - usize::from(r.partial.is_some());
    let carried = match (whole, r.partial.is_some()) {
        (0, false) => "before the server wrote anything on stdout".to_string(),
        (0, true) => "before the server wrote a whole line on stdout".to_string(),
        (n, _) => format!("after {n} line(s) of stdout"),
    };
    let partial = match r.partial {
        Some((l, PartialKind::Response)) => format!(
            "; its last {} bytes are the response without the newline that ends a message, so a client reading lines never received it",
            l.len()
        ),
        Some((l, _)) => format!(
            "; it ended in the middle of a line ({} bytes without a newline): {}",
            l.len(),
            excerpt(l.bytes(&s.stdout), 60)
        ),
        None => String::new(),
    };
    Eval::hit(
        "",
        format!("{how} {carried}{partial}; no response to this request arrived"),
    )
}

fn stdio_single_message(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some((_, r)) = answer(cx) else {
        return Eval::NotApplicable;
    };
    let (Some(fi), Some(body)) = (r.final_index, cx.an.json()) else {
        return Eval::NotApplicable;
    };
    let line = r.messages[fi].event;
    if body.is_object() {
        return Eval::Pass;
    }
    let what = if body.is_array() {
        format!("a JSON array of {} item(s) (a JSON-RPC batch)", body.len())
    } else {
        format!("a JSON {}", super::framing::kind(&body.to_value()))
    };
    Eval::Trigger(vec![Hit::in_event(
        line,
        "",
        format!(
            "{} ends the output with {what} where the response belongs; each line carries one JSON-RPC message",
            lines_at(line, line)
        ),
    )])
}

fn stdio_stderr(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(s) = cx.an.ex.stdio.as_deref() else {
        return Eval::NotApplicable;
    };
    match &s.stderr {
        Some(e) if !e.is_empty() => Eval::triggered(),
        _ => Eval::Pass,
    }
}
