//! Body framing checks: UTF-8, JSON well-formedness, one object per body.

use serde_json::Value;

use crate::check_api::{Cx, Eval, Hit, Params};
use crate::wire::analysis::Body;
use crate::wire::excerpt;

crate::check_api::declare_checks! {
    "body_utf8" => body_utf8, [], [], NONE,
        "the JSON body is not valid UTF-8";
    "json_well_formed" => json_well_formed, [], [], NONE,
        "the JSON body does not parse";
    "json_single_object" => json_single_object, [], [], HTTP,
        "the JSON body is not a single JSON object (e.g. a batch array)";
    "json_depth_within_limit" => json_depth_within_limit, [], [], NONE,
        "the JSON body (or the SSE event that may carry the response) nests deeper than the judge reads";
    "json_lone_surrogate" => json_lone_surrogate, [], [], NONE,
        "the JSON body (or an SSE event's data) escapes a UTF-16 surrogate without its other half";
}

fn applies(cx: &Cx<'_>) -> bool {
    cx.an.delivered() && cx.an.req.expects_response()
}

fn body_utf8(cx: &Cx<'_>, _: &Params) -> Eval {
    if !applies(cx) {
        return Eval::NotApplicable;
    }
    if let Some(s) = cx.an.stream() {
        return match s.parsed.invalid_utf8_at {
            Some(offset) => Eval::hit(
                "",
                format!("byte {offset} of the event stream starts an invalid UTF-8 sequence"),
            ),
            None => Eval::Pass,
        };
    }
    if !cx.an.json_branch() {
        return Eval::NotApplicable;
    }
    match &cx.an.body {
        Body::NotUtf8 { offset } => Eval::hit(
            "",
            format!("byte {offset} of the body starts an invalid UTF-8 sequence"),
        ),
        _ => Eval::Pass,
    }
}

fn json_well_formed(cx: &Cx<'_>, _: &Params) -> Eval {
    // A body cut off by a reset or timeout is judged by `body_cut_off`, not as malformed.
    if !applies(cx) || cx.an.ex.end != crate::wire::exchange::BodyEnd::Complete {
        return Eval::NotApplicable;
    }
    match &cx.an.body {
        Body::BadJson(e) => {
            let from = e.offset.saturating_sub(20);
            Eval::hit(
                "",
                format!(
                    "the body is not well-formed JSON at line {}, column {} (byte {}): {}; near: {}",
                    e.line,
                    e.column,
                    e.offset,
                    e.message,
                    excerpt(&cx.an.body_bytes()[from..], 60)
                ),
            )
        }
        Body::Json => Eval::Pass,
        _ => Eval::NotApplicable,
    }
}

fn json_single_object(cx: &Cx<'_>, _: &Params) -> Eval {
    if !applies(cx) {
        return Eval::NotApplicable;
    }
    let Some(body) = cx.an.json() else {
        return Eval::NotApplicable;
    };
    if body.is_object() {
        Eval::Pass
    } else if body.is_array() {
        Eval::hit(
            "",
            format!(
                "the body is a JSON array of {} item(s) (a JSON-RPC batch); a response to one request is a single JSON object",
                body.len()
            ),
        )
    } else {
        Eval::hit(
            "",
            format!(
                "the body is a JSON {}, not a JSON-RPC response object",
                kind(&body.to_value())
            ),
        )
    }
}

fn json_depth_within_limit(cx: &Cx<'_>, _: &Params) -> Eval {
    use crate::wire::analysis::MessageKind;
    use crate::wire::deep::MAX_DEPTH;
    if !applies(cx) {
        return Eval::NotApplicable;
    }
    let too_deep = |what: &str, offset: usize| {
        format!(
            "{what} nests arrays and objects more than {MAX_DEPTH} levels deep (level {} opens at byte {offset} of the body); this judge reads no deeper, so the response is not judged",
            MAX_DEPTH + 1
        )
    };
    if let Some(s) = cx.an.stream() {
        // A deep event matters when it may be the response: no other event was.
        if s.final_index.is_some() {
            return Eval::Pass;
        }
        let mut hits = cx.hits();
        for m in &s.messages {
            if let MessageKind::TooDeep { offset } = m.kind {
                hits.push(|| {
                    Hit::in_event(m.event, "", too_deep(&format!("event {}", m.event), offset))
                });
            }
        }
        return hits.into_eval();
    }
    match &cx.an.body {
        Body::TooDeep { offset } => Eval::hit("", too_deep("the body", *offset)),
        Body::Json => Eval::Pass,
        _ => Eval::NotApplicable,
    }
}

/// The JSON type of a value, for messages.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if crate::wire::number::is_integer(n) => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

fn json_lone_surrogate(cx: &Cx<'_>, _: &Params) -> Eval {
    if let Some((lone, event)) = cx.an.lone_surrogate() {
        let more = match lone.count {
            1 => String::new(),
            n => format!(" (and {} more)", n - 1),
        };
        let message = format!(
            "byte {} of the body escapes a lone UTF-16 surrogate{more}: the text is JSON, read here with U+FFFD in its place; receivers differ in what they make of it (some refuse the whole message)",
            lone.offset
        );
        return Eval::Trigger(vec![match event {
            Some(e) => Hit::in_event(e, "", message),
            None => Hit::new("", message),
        }]);
    }
    match cx.an.body {
        Body::Json | Body::Stream(_) => Eval::Pass,
        _ => Eval::NotApplicable,
    }
}
