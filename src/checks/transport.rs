//! HTTP-level checks: status, Content-Type branching, bodiless answers, notifications, the
//! header validation servers enforce, Origin validation and session ids.

use super::request::{standard_header_problems, version_header_problem};
use crate::check_api::{Cx, Eval, Hit, Needs, Params};
use crate::vocab::http::reason_phrase;
use crate::vocab::protocol::{INITIALIZE_ERA_VERSIONS, Protocol, header, meta};
use crate::wire::analysis::{Body, Media};
use crate::wire::excerpt;
use crate::wire::origin::WebOrigin;

crate::check_api::declare_checks! {
    "status_not_2xx" => status_not_2xx, [], [], HTTP,
        "the HTTP status is outside 200-299";
    "status_pairing" => status_pairing, ["code", "status"], ["code", "status"], HTTP | ERROR,
        "an error response with `code` arrived with an HTTP status other than `status`";
    "missing_meta_rejected" => missing_meta_rejected, ["code", "status"], ["code", "status"], HTTP | REQUEST,
        "the request lacked required `_meta` fields and the answer is not `status` with error `code`";
    "no_response_body" => no_response_body, [], [], HTTP,
        "a 2xx other than 200 with an empty body answered a request";
    "media_type_allowed" => media_type_allowed, [], [], HTTP,
        "a 2xx answer to a request is neither application/json nor text/event-stream, or is empty";
    "notification_accepted" => notification_accepted, [], [], HTTP | NOTIFICATION,
        "the request was a notification and the server answered 2xx";
    "notification_no_body" => notification_no_body, [], [], HTTP | NOTIFICATION,
        "a notification was accepted with a status other than 202 or with a body";
    "header_mismatch_rejected" => header_mismatch_rejected, ["code", "status"], ["code", "status"], HTTP | REQUEST,
        "a 2xx other than a JSON-RPC error answered a request whose MCP-Protocol-Version header differs from `_meta`, or (for a request of this revision) whose Mcp-Method or Mcp-Name is missing or differs from the body, or whose Mcp-Param-* headers (for a tools/call whose tool definition the exchange records) are missing, badly encoded or differ from the arguments";
    "version_header_required" => version_header_required, ["code", "status"], ["code", "status"], HTTP | REQUEST,
        "a 2xx other than a JSON-RPC error answered a request that carries `_meta` protocolVersion but no MCP-Protocol-Version header";
    "bad_version_header_rejected" => bad_version_header_rejected, ["status"], ["status"], HTTP | REQUEST,
        "a 2xx other than a JSON-RPC error answered a request whose MCP-Protocol-Version header names no MCP revision (not a YYYY-MM-DD date, or a date up to the newest known revision that is not a published one)";
    "origin_rejected" => origin_rejected, ["status"], ["status"], HTTP,
        "a 2xx answered a request whose Origin header names another host than `request.url` (loopback names count as one host; `status` is the rejection)";
    "session_id_sent" => session_id_sent, [], [], HTTP,
        "the response carries an MCP-Session-Id header (minted, or echoed from the request)";
    "session_ended" => session_ended, ["status"], ["status"], HTTP,
        "a request carrying MCP-Session-Id was answered with HTTP `status`";
}

fn status_not_2xx(cx: &Cx<'_>, _: &Params) -> Eval {
    let s = cx.an.status();
    if cx.an.is_2xx() {
        Eval::Pass
    } else {
        // Written piece by piece: the message of every non-2xx answer, built without the
        // formatting machinery.
        let reason = reason_phrase(s);
        let mut m = String::with_capacity(16 + reason.len());
        m.push_str("HTTP status ");
        m.push_str(itoa::Buffer::new().format(s));
        m.push(' ');
        m.push_str(reason);
        Eval::hit("", m)
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

/// Whether the server served a request (a 2xx to a recorded request that is not a
/// notification) rather than rejecting it with an error whose status the pairings judge.
/// Whether the server served the request: a 2xx answered it with anything but a JSON-RPC error.
/// An error response (any code, any status) rejected it; whether the code and status are the
/// ones the revision pairs is the status pairings' question.
fn served_request(cx: &Cx<'_>) -> bool {
    let req = &cx.an.req;
    req.body.is_some()
        && req.method.is_some()
        && !req.is_notification
        && cx.an.is_2xx()
        && !Needs::ERROR.met_by(cx.have())
}

fn header_mismatch_rejected(cx: &Cx<'_>, p: &Params) -> Eval {
    let (Some(code), Some(status)) = (p.code, p.status) else {
        return Eval::NotApplicable;
    };
    if !served_request(cx) {
        return Eval::NotApplicable;
    }
    // Without the version header `version_header_required` judges the request.
    let Some(version) = cx.an.req.header_version else {
        return Eval::NotApplicable;
    };
    let mut problems: Vec<String> = version_header_problem(cx).into_iter().collect();
    // The standard headers are required of requests of this revision only.
    if version == cx.protocol.as_str() {
        problems.extend_from_slice(cx.standard_header_problems(standard_header_problems));
        problems.extend(super::param_headers::param_header_problems(cx));
    }
    let s = cx.an.status();
    Eval::from_hits(
        problems
            .into_iter()
            .map(|problem| {
                Hit::new(
                    "",
                    format!(
                        "{problem}, yet the server answered HTTP {s} instead of rejecting it with HTTP {status} and error {code}"
                    ),
                )
            })
            .collect(),
    )
}

fn version_header_required(cx: &Cx<'_>, p: &Params) -> Eval {
    let (Some(code), Some(status)) = (p.code, p.status) else {
        return Eval::NotApplicable;
    };
    // A request without `_meta` protocolVersion is judged by the `_meta` rules.
    if !served_request(cx) || cx.an.req.meta_version.is_none() {
        return Eval::NotApplicable;
    }
    if cx.an.req.header_version.is_some() {
        return Eval::Pass;
    }
    Eval::hit(
        "",
        format!(
            "the request has no {} header, yet the server answered HTTP {}; unless it serves clients of revisions that predate the header (and read the request as one of theirs), it must reject it with HTTP {status} and error {code}",
            header::PROTOCOL_VERSION,
            cx.an.status()
        ),
    )
}

/// Whether a protocol version header value names no MCP revision: not a `YYYY-MM-DD` date, or
/// a date up to the newest revision this tool knows that is none of the revisions published
/// (a later date may name a revision published since, which this tool cannot tell).
fn no_revision(v: &str) -> bool {
    let b = v.as_bytes();
    let digits = |r: std::ops::Range<usize>| {
        b.get(r)
            .filter(|d| d.iter().all(u8::is_ascii_digit))
            .map(|d| d.iter().fold(0u32, |n, c| n * 10 + u32::from(c - b'0')))
    };
    let date = b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && digits(0..4).is_some()
        && digits(5..7).is_some_and(|m| (1..=12).contains(&m))
        && digits(8..10).is_some_and(|d| (1..=31).contains(&d));
    if !date {
        return true;
    }
    let mut known = INITIALIZE_ERA_VERSIONS
        .iter()
        .copied()
        .chain(Protocol::all().map(Protocol::as_str));
    let newest = Protocol::all()
        .map(Protocol::as_str)
        .max()
        .unwrap_or_default();
    v <= newest && !known.any(|k| k == v)
}

fn bad_version_header_rejected(cx: &Cx<'_>, p: &Params) -> Eval {
    let Some(status) = p.status else {
        return Eval::NotApplicable;
    };
    let req = &cx.an.req;
    let Some(v) = req.header_version else {
        return Eval::NotApplicable;
    };
    if req.body.is_none() || req.is_notification || req.method.is_none() || !no_revision(v) {
        return Eval::NotApplicable;
    }
    if cx.an.status() == status {
        return Eval::Pass;
    }
    // Only a served request is judged: another rejection may have had another cause.
    if !served_request(cx) {
        return Eval::NotApplicable;
    }
    Eval::hit(
        "",
        format!(
            "the request's {} header `{}` names no MCP revision, yet the server answered HTTP {}; it must answer HTTP {status}",
            header::PROTOCOL_VERSION,
            excerpt(v.as_bytes(), 40),
            cx.an.status()
        ),
    )
}

fn origin_rejected(cx: &Cx<'_>, p: &Params) -> Eval {
    let Some(status) = p.status else {
        return Eval::NotApplicable;
    };
    let request = &cx.an.ex.request;
    let Some(value) = request.headers.get(header::ORIGIN) else {
        return Eval::NotApplicable;
    };
    let Some(endpoint) = request.url.as_deref().and_then(WebOrigin::of_url) else {
        return Eval::NotApplicable;
    };
    let same_host = WebOrigin::of_header(value).is_some_and(|o| o.same_host(&endpoint));
    if same_host || cx.an.status() == status {
        return Eval::Pass;
    }
    if !cx.an.is_2xx() {
        return Eval::NotApplicable;
    }
    Eval::hit(
        "",
        format!(
            "the request's {} ({}) is on another host than the endpoint ({endpoint}), yet the server answered HTTP {}; a server that finds an Origin invalid must answer HTTP {status}",
            header::ORIGIN,
            value.trim(),
            cx.an.status()
        ),
    )
}

fn session_id_sent(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(sent) = cx.an.ex.response_headers.get(header::SESSION_ID) else {
        return Eval::Pass;
    };
    let sent = sent.trim();
    let how = match cx.an.ex.request.headers.get(header::SESSION_ID) {
        Some(asked) if asked.trim() == sent => "echoes the request's",
        _ => "mints",
    };
    Eval::hit(
        "",
        format!(
            "the response {how} {}: {}",
            header::SESSION_ID,
            excerpt(sent.as_bytes(), 80)
        ),
    )
}

fn session_ended(cx: &Cx<'_>, p: &Params) -> Eval {
    let Some(status) = p.status else {
        return Eval::NotApplicable;
    };
    let Some(session) = cx.an.ex.request.headers.get(header::SESSION_ID) else {
        return Eval::NotApplicable;
    };
    if cx.an.status() != status {
        return Eval::Pass;
    }
    Eval::hit(
        "",
        format!(
            "HTTP {status} {} to a request carrying {} {}: the session has ended; start a new one with initialize",
            reason_phrase(status),
            header::SESSION_ID,
            excerpt(session.trim().as_bytes(), 80)
        ),
    )
}
