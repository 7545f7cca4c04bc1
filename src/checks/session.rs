//! Session checks (2025-11-25): what the server may send within what `initialize` negotiated,
//! and how it answers a request without its session id or in a session that ended, when the
//! exchange file records the session (`initialize`, `session`).

use super::mrtr::missing_capability;
use super::sequence::sequence;
use crate::check_api::ResultKind;
use crate::check_api::{Cx, Eval, Hit, Params};
use crate::vocab::http::reason_phrase;
use crate::vocab::protocol::header;
use crate::wire::analysis::MessageKind;
use crate::wire::excerpt;
use crate::wire::exchange::BodyEnd;
use crate::wire::jsonref::JsonRef;

crate::check_api::declare_checks! {
    "server_request_negotiated" => server_request_negotiated, ["methods"], ["methods"], NONE,
        "a server request on the response stream (or on a stdio server's stdout) needs a client capability the client did not declare in `initialize` (as recorded in the exchange's `initialize`)";
    "session_id_left_out" => session_id_left_out, ["status"], ["status"], HTTP,
        "a request other than `initialize` left out the MCP-Session-Id the server issued (the exchange's `session`) and was rejected with a status other than `status`; a 2xx without a JSON-RPC error (served) and a transient 408, 429, 502, 503 or 504 are not judged";
    "ended_session_served" => ended_session_served, ["status"], ["status"], HTTP,
        "a request carried the MCP-Session-Id of a session that had ended (the exchange's `session.ended`) and got a status other than `status`; a transient 408, 429, 502, 503 or 504 is not judged";
    "session_id_visible_ascii" => session_id_visible_ascii, [], [], HTTP,
        "a session id the server issued (the response's MCP-Session-Id, or the exchange's `session.id`) has a character outside visible ASCII (0x21 to 0x7E)";
    "server_capability_used" => server_capability_used, ["value"], ["value"], NONE,
        "the server did what needs the capability `value` names (`tools`: answered a tools/call with a result; `logging`: sent notifications/message; `tasks`: answered a task-augmented tools/call with a task) without declaring it in the capabilities its `initialize` answer gave (the exchange's `initialize.serverCapabilities`)";
    "tool_task_support" => tool_task_support, ["value"], ["value"], RESULT,
        "a server that declared `tasks.requests.tools.call` (the exchange's `initialize.serverCapabilities`) answered with a result a tools/call that breaks the tool's `execution.taskSupport` (the exchange's `tool`): `forbidden` (also when absent) for a task-augmented call, `required` for a plain one";
}

/// The capabilities the server declared in its `initialize` answer, when the exchange records
/// them.
fn server_capabilities<'a>(cx: &Cx<'a>) -> Option<&'a serde_json::Map<String, serde_json::Value>> {
    cx.an
        .ex
        .initialize
        .as_ref()?
        .server_capabilities
        .as_ref()?
        .as_object()
}

/// Whether the server declared task support for tools/call (`tasks.requests.tools.call`).
fn declares_tool_tasks(caps: &serde_json::Map<String, serde_json::Value>) -> bool {
    caps.get("tasks")
        .and_then(|t| t.pointer("/requests/tools/call"))
        .is_some_and(serde_json::Value::is_object)
}

fn server_capability_used(cx: &Cx<'_>, p: &Params) -> Eval {
    let Some(caps) = server_capabilities(cx) else {
        return Eval::NotApplicable;
    };
    let declared = |name: &str| caps.get(name).is_some_and(serde_json::Value::is_object);
    let req = &cx.an.req;
    match p.value.as_deref() {
        Some("tools") => {
            if req.method != Some("tools/call") || cx.members().result.is_none() {
                return Eval::NotApplicable;
            }
            if declared("tools") {
                return Eval::Pass;
            }
            Eval::hit(
                "/result",
                "the server answered a tools/call with a result, but the capabilities of its initialize answer declare no `tools`",
            )
        }
        Some("logging") => {
            let Some(seq) = sequence(cx) else {
                return Eval::NotApplicable;
            };
            if declared("logging") {
                return Eval::Pass;
            }
            let mut hits = cx.hits();
            for m in seq.messages {
                if matches!(m.kind, MessageKind::Notification)
                    && m.method() == Some("notifications/message")
                {
                    hits.push(|| {
                        Hit::in_event(
                            m.event,
                            "",
                            format!(
                                "{} is a log message notification, but the capabilities of the server's initialize answer declare no `logging`",
                                seq.at(m)
                            ),
                        )
                    });
                }
            }
            hits.into_eval()
        }
        Some("tasks") => {
            if req.task.is_none() || cx.result_if(&ResultKind::Task).is_none() {
                return Eval::NotApplicable;
            }
            if declares_tool_tasks(caps) {
                return Eval::Pass;
            }
            Eval::hit(
                "/result/task",
                "the server answered a task-augmented tools/call with a task, but the capabilities of its initialize answer declare no `tasks.requests.tools.call`; it must process the call normally and ignore `params.task`",
            )
        }
        _ => Eval::NotApplicable,
    }
}

fn tool_task_support(cx: &Cx<'_>, p: &Params) -> Eval {
    let req = &cx.an.req;
    let (Some(caps), Some(tool)) = (server_capabilities(cx), cx.an.ex.tool.as_ref()) else {
        return Eval::NotApplicable;
    };
    if req.method != Some("tools/call")
        || tool.get("name").and_then(serde_json::Value::as_str) != req.tool_name
        || !declares_tool_tasks(caps)
        || cx.members().result.is_none()
    {
        return Eval::NotApplicable;
    }
    let support = tool
        .pointer("/execution/taskSupport")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("forbidden");
    let asked = req.task.is_some();
    let name = excerpt(req.tool_name.unwrap_or_default().as_bytes(), 60);
    match p.value.as_deref() {
        Some("forbidden") if asked && support == "forbidden" => Eval::hit(
            "",
            format!(
                "the tools/call asked to run {name} as a task, though the tool's execution.taskSupport is \"forbidden\" (or absent), yet the server answered with a result; it should answer error -32601 (Method not found)"
            ),
        ),
        Some("required") if !asked && support == "required" => Eval::hit(
            "",
            format!(
                "the tools/call ran {name} without a task, though the tool's execution.taskSupport is \"required\", yet the server answered with a result; it must answer error -32601 (Method not found)"
            ),
        ),
        Some("forbidden" | "required") => Eval::Pass,
        _ => Eval::NotApplicable,
    }
}

/// An answer that says nothing about the request (the server is overloaded or a gateway
/// failed), or a body cut off before any message: the session rules leave it unjudged.
fn transient(cx: &Cx<'_>) -> bool {
    matches!(cx.an.status(), 408 | 429 | 502 | 503 | 504)
        || cx.message().is_none() && cx.an.ex.end != BodyEnd::Complete
}

/// What the server answered, for a hit's message.
fn answered(cx: &Cx<'_>) -> String {
    let s = cx.an.status();
    match cx.error_code() {
        Some(c) => format!("HTTP {s} {} with error {c}", reason_phrase(s)),
        None => format!("HTTP {s} {}", reason_phrase(s)),
    }
}

/// 2025-11-25 basic/transports, Session Management: "Servers that require a session ID SHOULD
/// respond to requests without an MCP-Session-Id header (other than initialization) with HTTP
/// 400 Bad Request." A server that serves the request does not require the id, which is
/// allowed; one that rejects it otherwise leaves the client unable to tell a lost id from an
/// ended session.
fn session_id_left_out(cx: &Cx<'_>, p: &Params) -> Eval {
    let (Some(status), Some(session)) = (p.status, cx.an.ex.session.as_ref()) else {
        return Eval::NotApplicable;
    };
    if cx.an.ex.request.headers.get(header::SESSION_ID).is_some()
        || cx.an.req.method == Some("initialize")
        || transient(cx)
    {
        return Eval::NotApplicable;
    }
    if cx.an.status() == status {
        return Eval::Pass;
    }
    if cx.an.is_2xx() && cx.error_code().is_none() {
        // Served: the server does not require the session id.
        return Eval::NotApplicable;
    }
    Eval::hit(
        "",
        format!(
            "the request left out the {} the server issued ({}) and was rejected with {}; a server that requires the session id should answer HTTP {status} {}",
            header::SESSION_ID,
            excerpt(session.id.trim().as_bytes(), 80),
            answered(cx),
            reason_phrase(status)
        ),
    )
}

/// 2025-11-25 basic/transports, Session Management: "The server MAY terminate the session at
/// any time, after which it MUST respond to requests containing that session ID with HTTP 404
/// Not Found." A 2xx DELETE is the server ending it.
fn ended_session_served(cx: &Cx<'_>, p: &Params) -> Eval {
    let (Some(status), Some(session)) = (p.status, cx.an.ex.session.as_ref()) else {
        return Eval::NotApplicable;
    };
    let carried = cx.an.ex.request.headers.get(header::SESSION_ID);
    if !session.ended || carried.map(str::trim) != Some(session.id.trim()) || transient(cx) {
        return Eval::NotApplicable;
    }
    if cx.an.status() == status {
        return Eval::Pass;
    }
    Eval::hit(
        "",
        format!(
            "the request carried the {} of a session that had ended ({}) and got {}; the server must answer HTTP {status} {} so that the client starts a new session",
            header::SESSION_ID,
            excerpt(session.id.trim().as_bytes(), 80),
            answered(cx),
            reason_phrase(status)
        ),
    )
}

fn server_request_negotiated(cx: &Cx<'_>, p: &Params) -> Eval {
    let (Some(negotiated), Some(seq)) = (cx.an.ex.initialize.as_ref(), sequence(cx)) else {
        return Eval::NotApplicable;
    };
    let caps = &negotiated.client_capabilities;
    let mut hits = cx.hits();
    for m in seq.messages {
        if !matches!(m.kind, MessageKind::Request) {
            continue;
        }
        let Some(method) = m.method() else {
            continue;
        };
        let params = m
            .value
            .as_ref()
            .and_then(|v| v.get("params"))
            .map(JsonRef::from);
        let Some(needed) = missing_capability(caps, &p.methods, method, params) else {
            continue;
        };
        hits.push(|| {
            let declared = if caps.is_empty() {
                "none".to_string()
            } else {
                caps.keys()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            Hit::in_event(
                m.event,
                "",
                format!(
                    "{} is a server request `{method}` that needs the client capability `{needed}`, which the client did not declare in `initialize` (declared: {declared})",
                    seq.at(m)
                ),
            )
        });
    }
    hits.into_eval()
}

/// Where a session id first leaves visible ASCII (0x21 to 0x7E): the character and its index.
fn outside_visible_ascii(id: &str) -> Option<(usize, char)> {
    id.char_indices()
        .find(|&(_, c)| !('\u{21}'..='\u{7e}').contains(&c))
}

fn session_id_visible_ascii(cx: &Cx<'_>, _: &Params) -> Eval {
    // The ids the server issued: the one it answers with, and the one the recording kept from
    // its answer to `initialize`. Header values are read as recorded, without trimming: a
    // recorder keeps what came after the field's whitespace.
    let sent = cx.an.ex.response_headers.get(header::SESSION_ID);
    let kept = cx.an.ex.session.as_ref().map(|s| s.id.as_str());
    if sent.is_none() && kept.is_none() {
        return Eval::NotApplicable;
    }
    let mut hits = Vec::new();
    for (id, whose) in [
        (sent, "the response's"),
        (kept, "the session's (from initialize)"),
    ] {
        let Some(id) = id else { continue };
        let id = id.trim_matches([' ', '\t']);
        let problem = outside_visible_ascii(id)
            .map(|(at, c)| format!("has {c:?} (U+{:04X}) at character {at}", u32::from(c)));
        if let Some(problem) = problem {
            hits.push(Hit::new(
                "",
                format!(
                    "{whose} {} {} {problem}: a session id may hold only visible ASCII characters (0x21 to 0x7E)",
                    header::SESSION_ID,
                    excerpt(id.as_bytes(), 80)
                ),
            ));
        }
    }
    Eval::from_hits(hits)
}
