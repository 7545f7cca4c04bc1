//! HTTP-level checks: status, Content-Type branching, bodiless answers, notifications.

use crate::check_api::{Cx, Eval, Params};
use crate::vocab::http::reason_phrase;
use crate::vocab::protocol::meta;
use crate::wire::analysis::{Body, Media};
use crate::wire::excerpt;

crate::check_api::declare_checks! {
    "status_not_2xx" => status_not_2xx, [], [], NONE,
        "the HTTP status is outside 200-299";
    "status_pairing" => status_pairing, ["code", "status"], ["code", "status"], ERROR,
        "an error response with `code` arrived with an HTTP status other than `status`";
    "missing_meta_rejected" => missing_meta_rejected, ["code", "status"], ["code", "status"], REQUEST,
        "the request lacked required `_meta` fields and the answer is not `status` with error `code`";
    "no_response_body" => no_response_body, [], [], NONE,
        "a 2xx other than 200 with an empty body answered a request";
    "media_type_allowed" => media_type_allowed, [], [], NONE,
        "a 2xx answer to a request is neither application/json nor text/event-stream, or is empty";
    "notification_accepted" => notification_accepted, [], [], NOTIFICATION,
        "the request was a notification and the server answered 2xx";
    "notification_no_body" => notification_no_body, [], [], NOTIFICATION,
        "a notification was accepted with a status other than 202 or with a body";
}

fn status_not_2xx(cx: &Cx<'_>, _: &Params) -> Eval {
    let s = cx.an.status();
    if cx.an.is_2xx() {
        Eval::Pass
    } else {
        Eval::hit("", format!("HTTP status {s} {}", reason_phrase(s)))
    }
}

fn status_pairing(cx: &Cx<'_>, p: &Params) -> Eval {
    let (Some(code), Some(status)) = (p.code, p.status) else {
        return Eval::NotApplicable;
    };
    // The pairings are for answers to requests; a rejected notification may carry any error.
    if !cx.an.req.expects_response() {
        return Eval::NotApplicable;
    }
    if cx.error_code() != Some(code) {
        return Eval::NotApplicable;
    }
    let s = cx.an.status();
    if s == status {
        Eval::Pass
    } else {
        Eval::hit(
            "/error/code",
            format!("error {code} arrived with HTTP {s}; the revision pairs it with HTTP {status}"),
        )
    }
}

fn missing_meta_rejected(cx: &Cx<'_>, p: &Params) -> Eval {
    let (Some(code), Some(status)) = (p.code, p.status) else {
        return Eval::NotApplicable;
    };
    let req = &cx.an.req;
    if req.body.is_none() || req.is_notification || req.method.is_none() {
        return Eval::NotApplicable;
    }
    let mut missing = Vec::new();
    if req.meta_version.is_none() {
        missing.push(meta::PROTOCOL_VERSION);
    }
    if req.capabilities.is_none() {
        missing.push(meta::CLIENT_CAPABILITIES);
    }
    // Only a server that processed the request (2xx) or rejected it as malformed (400) is
    // judged here; a 503 or 429 says nothing about how it would treat the request.
    if missing.is_empty() || !(cx.an.is_2xx() || cx.an.status() == status) {
        return Eval::NotApplicable;
    }
    if cx.an.status() == status && cx.error_code() == Some(code) {
        return Eval::Pass;
    }
    let got = match cx.error_code() {
        Some(c) => format!("HTTP {} with error {c}", cx.an.status()),
        None => format!("HTTP {} without a {code} error", cx.an.status()),
    };
    Eval::hit(
        "",
        format!(
            "the request's _meta lacks {}; the server must reject it with HTTP {status} and {code}, but answered {got}",
            missing.join(" and ")
        ),
    )
}

fn no_response_body(cx: &Cx<'_>, _: &Params) -> Eval {
    if !cx.an.is_2xx() || !cx.an.req.expects_response() || cx.an.status() == 200 {
        return Eval::NotApplicable;
    }
    // No bytes at all, whatever the media type says: a 202 or 204 starts no stream.
    if cx.an.ex.body.is_empty() {
        Eval::hit(
            "",
            format!(
                "HTTP {} {} with an empty body answered a request: the request was accepted but no JSON-RPC response was delivered",
                cx.an.status(),
                reason_phrase(cx.an.status())
            ),
        )
    } else {
        Eval::Pass
    }
}

fn media_type_allowed(cx: &Cx<'_>, _: &Params) -> Eval {
    if !cx.an.is_2xx() || !cx.an.req.expects_response() {
        return Eval::NotApplicable;
    }
    // An empty event stream is a stream that stayed quiet (`sse_final_response`), not an
    // empty body.
    let empty = matches!(cx.an.body, Body::Empty);
    if cx.an.ex.body.is_empty() && cx.an.status() != 200 {
        return Eval::NotApplicable; // no_response_body decides that case
    }
    if empty {
        return Eval::hit(
            "",
            "HTTP 200 with an empty body: expected one JSON object (application/json) or an SSE stream (text/event-stream)",
        );
    }
    match &cx.an.media {
        Media::Json | Media::EventStream => Eval::Pass,
        other => Eval::hit(
            "",
            format!(
                "Content-Type is {}, expected application/json or text/event-stream; the body starts: {}",
                match other {
                    Media::Missing => "missing".to_string(),
                    m => format!("`{}`", m.as_str()),
                },
                excerpt(&cx.an.ex.body, 120)
            ),
        ),
    }
}

fn notification_accepted(cx: &Cx<'_>, _: &Params) -> Eval {
    if !cx.an.req.is_notification {
        return Eval::NotApplicable;
    }
    if cx.an.is_2xx() {
        Eval::triggered()
    } else {
        Eval::Pass
    }
}

fn notification_no_body(cx: &Cx<'_>, _: &Params) -> Eval {
    if !cx.an.req.is_notification || !cx.an.is_2xx() {
        return Eval::NotApplicable;
    }
    let mut problems = Vec::new();
    if cx.an.status() != 202 {
        problems.push(format!("status {} instead of 202", cx.an.status()));
    }
    if !cx.an.ex.body.is_empty() {
        problems.push(format!("a {}-byte body", cx.an.ex.body.len()));
    }
    if problems.is_empty() {
        Eval::Pass
    } else {
        Eval::hit(
            "",
            format!(
                "the notification was accepted with {}",
                problems.join(" and ")
            ),
        )
    }
}
