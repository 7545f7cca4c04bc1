//! Checks on what the messages around the response say (the events of an SSE response stream,
//! or the lines a stdio server wrote): each message against the revision's schema for its
//! method, methods the revision does not define, notifications that do not belong on the
//! stream, progress, and log messages against the request's log level.

use serde_json::Value;

use super::sequence::{Sequence, sequence};
use crate::check_api::{Cx, Eval, Hit, Params, ResultKind};
use crate::schema::shape_errors;
use crate::vocab::pointer::json_path;
use crate::wire::analysis::{MessageKind, StreamMessage, ids_equal};

crate::check_api::declare_checks! {
    "sse_message_schema" => sse_message_schema, [], [], STREAM,
        "a notification or request on the SSE stream does not validate against the revision's schema definition for its method";
    "sse_undefined_method" => sse_undefined_method, [], [], STREAM,
        "a notification (or, where the revision has server requests, a request) on the SSE stream has a method the revision's schema does not define";
    "sse_progress" => sse_progress, ["task_progress"], [], STREAM,
        "a progress notification with another token, without a requested token, not increasing, or after the response (unless `task_progress` and the response is a task handle)";
    "sse_log_without_level" => sse_log_without_level, [], [], STREAM,
        "a log message notification on a request that set no log level";
    "sse_log_below_level" => sse_log_below_level, ["names"], ["names"], STREAM,
        "a log message notification below the level the request set (`names`: the levels, lowest first)";
    "sse_notification_method" => sse_notification_method, ["names"], ["names"], STREAM,
        "a notification whose method is one of `names` is on the stream";
    "sse_unrelated_notification" => sse_unrelated_notification, ["names"], ["names"], STREAM,
        "a notification the revision defines, whose method is not one of `names` (the request-related ones), is on the stream";
    "stdio_message_schema" => sse_message_schema, [], [], STDIO,
        "a notification or request a stdio server wrote on stdout does not validate against the revision's schema definition for its method";
    "stdio_progress" => sse_progress, ["task_progress"], [], STDIO,
        "a progress notification with the request's token on a stdio server's stdout does not increase, or follows the response (unless `task_progress` and the response is a task handle); progress naming another token may be another request's and is not judged";
    "sse_request_ids_unique" => sse_request_ids_unique, [], [], STREAM,
        "a server request on the stream reuses the id of an earlier server request on it";
}

fn sse_request_ids_unique(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(s) = sequence(cx) else {
        return Eval::NotApplicable;
    };
    let mut seen: Vec<(&Value, usize)> = Vec::new();
    let mut hits = cx.hits();
    for m in s
        .messages
        .iter()
        .filter(|m| matches!(m.kind, MessageKind::Request))
    {
        let Some(id) = m.value.as_ref().and_then(|v| v.get("id")) else {
            continue;
        };
        match seen.iter().find(|(earlier, _)| ids_equal(earlier, id)) {
            Some((_, first)) => hits.push(|| {
                Hit::in_event(
                    m.event,
                    "/id",
                    format!(
                        "the server request reuses id {id}, which its request in event {first} already had; a client that answered that one may take this answer for it"
                    ),
                )
            }),
            None => seen.push((id, m.event)),
        }
    }
    hits.into_eval()
}

fn sse_message_schema(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(s) = sequence(cx) else {
        return Eval::NotApplicable;
    };
    let schemas = crate::schema::for_revision(cx.protocol);
    let mut hits = cx.hits();
    for m in s.messages {
        if !matches!(m.kind, MessageKind::Notification | MessageKind::Request) {
            continue;
        }
        // A message without its value was accepted, as it was read, by the schemas of every
        // revision it is judged under (`Analysis::judged`).
        let (Some(method), Some(value)) = (m.method(), m.value.as_ref()) else {
            continue;
        };
        // An undefined method is `sse_undefined_method`'s to judge.
        if schemas.accepts(method, value) {
            continue;
        }
        let Some(def) = schemas.message(method) else {
            continue;
        };
        let Some(validator) = schemas.def(&def.def) else {
            continue;
        };
        for e in shape_errors(validator, value) {
            hits.push(|| {
                let path = json_path(&e.pointer);
                Hit::in_event(
                    m.event,
                    e.pointer,
                    format!(
                        "{}: {method} {path}: {} (schema definition {})",
                        s.at(m),
                        e.message,
                        def.def
                    ),
                )
            });
        }
    }
    hits.into_eval()
}

fn sse_undefined_method(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(s) = sequence(cx) else {
        return Eval::NotApplicable;
    };
    let schemas = crate::schema::for_revision(cx.protocol);
    let mut hits = cx.hits();
    for m in s.messages {
        let what = match m.kind {
            MessageKind::Notification => "notification",
            // Under a revision without server requests every request is wrong on its own
            // account (`sse_server_request`).
            MessageKind::Request if schemas.defines_server_requests() => "request",
            _ => continue,
        };
        let Some(method) = m.method() else {
            continue;
        };
        if schemas.message(method).is_none() {
            hits.push(|| {
                Hit::in_event(
                    m.event,
                    "/method",
                    format!(
                        "{}: `{method}` is not a {what} this revision defines for a server to send; whether it relates to this request cannot be told from the bytes",
                        s.at(m)
                    ),
                )
            });
        }
    }
    hits.into_eval()
}

/// The notifications with `method` on the stream, each with whether it follows the final
/// response.
fn notifications<'a>(
    s: &'a Sequence<'a>,
    method: &'a str,
) -> impl Iterator<Item = (bool, &'a StreamMessage)> + 'a {
    s.iter().filter(move |(_, m)| {
        matches!(m.kind, MessageKind::Notification) && m.method() == Some(method)
    })
}

fn sse_progress(cx: &Cx<'_>, p: &Params) -> Eval {
    let Some(s) = sequence(cx) else {
        return Eval::NotApplicable;
    };
    let token = cx.an.req.progress_token;
    // A task keeps the request's token for its lifetime: progress may follow its handle.
    let task_goes_on = p.task_progress == Some(true) && *cx.kind() == ResultKind::Task;
    let mut last: Option<f64> = None;
    let mut hits = cx.hits();
    let mut any = false;
    for (after, m) in notifications(&s, "notifications/progress") {
        let got_token = m.progress_token();
        // On a channel every request shares, progress naming another token (or sent when
        // this request set none) may be another request's: only this request's is judged.
        if s.shared && !token.zip(got_token).is_some_and(|(w, g)| ids_equal(w, g)) {
            continue;
        }
        any = true;
        let progress = m.progress();
        let mut own_token = false;
        match (token, got_token) {
            (None, _) => hits.push(|| {
                Hit::in_event(
                    m.event,
                    "/params/progressToken",
                    format!(
                        "{}: progress notification although the request set no progressToken",
                        s.at(m)
                    ),
                )
            }),
            (Some(want), Some(got)) if ids_equal(want, got) => own_token = true,
            (Some(want), got) => hits.push(|| {
                Hit::in_event(
                    m.event,
                    "/params/progressToken",
                    format!(
                        "{}: progress token {} is not the request's token {want}",
                        s.at(m),
                        got.map_or_else(|| "(missing)".to_string(), Value::to_string)
                    ),
                )
            }),
        }
        if let Some(p) = progress {
            if let Some(prev) = last
                && p <= prev
            {
                hits.push(|| {
                    Hit::in_event(
                        m.event,
                        "/params/progress",
                        format!(
                            "{}: progress {p} does not increase (previous {prev})",
                            s.at(m)
                        ),
                    )
                });
            }
            last = Some(p);
        }
        if after && !(task_goes_on && own_token) {
            hits.push(|| {
                Hit::in_event(
                    m.event,
                    "",
                    format!(
                        "{}: progress notification after the final response",
                        s.at(m)
                    ),
                )
            });
        }
    }
    if !any {
        return Eval::NotApplicable;
    }
    hits.into_eval()
}

fn sse_log_without_level(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(s) = sequence(cx) else {
        return Eval::NotApplicable;
    };
    if cx.an.req.log_level.is_some() {
        return Eval::Pass;
    }
    let mut hits = cx.hits();
    for (_, m) in notifications(&s, "notifications/message") {
        hits.push(|| {
            Hit::in_event(
                m.event,
                "",
                format!(
                    "{}: log message notification although the request's _meta set no io.modelcontextprotocol/logLevel",
                    s.at(m)
                ),
            )
        });
    }
    hits.into_eval()
}

fn sse_log_below_level(cx: &Cx<'_>, p: &Params) -> Eval {
    let Some(s) = sequence(cx) else {
        return Eval::NotApplicable;
    };
    let rank = |level: &str| p.names.iter().position(|n| n == level);
    // An unrecognised requested level is the request's problem, not the stream's.
    let Some((wanted, floor)) = cx.an.req.log_level.and_then(|l| rank(l).map(|r| (l, r))) else {
        return Eval::NotApplicable;
    };
    let mut any = false;
    let mut hits = cx.hits();
    for (_, m) in notifications(&s, "notifications/message") {
        any = true;
        let level = m.level();
        // A level that is not a level at all is a schema error (`sse_message_schema`).
        let Some((level, r)) = level.and_then(|l| rank(l).map(|r| (l, r))) else {
            continue;
        };
        if r < floor {
            hits.push(|| Hit::in_event(
                m.event,
                "/params/level",
                format!(
                    "{}: a `{level}` log message, below the level `{wanted}` the request asked for",
                    s.at(m)
                ),
            ));
        }
    }
    if !any {
        return Eval::NotApplicable;
    }
    hits.into_eval()
}

/// Hits for the notifications on the stream whose method is (`listed`) or is not (`!listed`)
/// one of `names`; with `!listed`, only methods the revision defines (the others are judged
/// by `sse_undefined_method`).
fn notifications_by_name(cx: &Cx<'_>, names: &[String], listed: bool, what: &str) -> Eval {
    let Some(s) = sequence(cx) else {
        return Eval::NotApplicable;
    };
    let schemas = crate::schema::for_revision(cx.protocol);
    let mut hits = cx.hits();
    for m in s.messages {
        if !matches!(m.kind, MessageKind::Notification) {
            continue;
        }
        let Some(method) = m.method() else {
            continue;
        };
        let flagged = if listed {
            names.iter().any(|n| n == method)
        } else {
            !names.iter().any(|n| n == method) && schemas.message(method).is_some()
        };
        if flagged {
            hits.push(|| {
                Hit::in_event(
                    m.event,
                    "/method",
                    format!("{}: `{method}` {what}", s.at(m)),
                )
            });
        }
    }
    hits.into_eval()
}

fn sse_notification_method(cx: &Cx<'_>, p: &Params) -> Eval {
    notifications_by_name(cx, &p.names, true, "on the response stream")
}

fn sse_unrelated_notification(cx: &Cx<'_>, p: &Params) -> Eval {
    notifications_by_name(cx, &p.names, false, "does not relate to this request")
}
