//! JSON-RPC envelope checks: version, result/error exclusivity, id matching, error codes.

use serde_json::Value;

use super::framing::kind;
use crate::check_api::{Cx, Eval, Params};
use crate::wire::analysis::ids_equal;
use crate::wire::jsonref::JsonRef;

crate::check_api::declare_checks! {
    "jsonrpc_version" => jsonrpc_version, [], [], MESSAGE,
        "`jsonrpc` is missing or not \"2.0\"";
    "result_xor_error" => result_xor_error, [], [], MESSAGE,
        "the message has both or neither of `result` and `error`";
    "response_id_matches" => response_id_matches, [], [], MESSAGE,
        "the response `id` differs from the request `id` (type and value)";
    "error_id_present" => error_id_present, ["status"], [], ERROR,
        "an error response answering a request whose id (a string or an integer) was readable has no `id` or `id: null` (an answer with HTTP `status` may have no `id`)";
    "error_id_type" => error_id_type, [], [], ERROR,
        "an error response's `id` is present and neither a string nor an integer (`id: null` answering a request whose id was readable is `error_id_present`'s)";
    "is_error_response" => is_error_response, [], [], MESSAGE,
        "the response carries `error`";
    "error_code_range" => error_code_range, ["min", "max", "codes"], ["min", "max"], ERROR,
        "the error code lies in [min, max] and is not one of `codes`";
    "error_code_in" => error_code_in, ["codes"], ["codes"], ERROR,
        "the error code is one of `codes`";
    "error_code_is" => error_code_is, ["code"], ["code"], ERROR,
        "the error code equals `code`";
}

fn response<'a>(cx: &Cx<'a>) -> Option<JsonRef<'a>> {
    if !cx.an.req.expects_response() {
        return None;
    }
    cx.message()
}

fn jsonrpc_version(cx: &Cx<'_>, _: &Params) -> Eval {
    if response(cx).is_none() {
        return Eval::NotApplicable;
    }
    match cx.members().jsonrpc {
        Some(v) if v.as_str() == Some("2.0") => Eval::Pass,
        Some(other) => Eval::hit("/jsonrpc", format!("`jsonrpc` is {other}, not \"2.0\"")),
        None => Eval::hit(
            "/jsonrpc",
            "`jsonrpc` is missing; it must be exactly \"2.0\"",
        ),
    }
}

fn result_xor_error(cx: &Cx<'_>, _: &Params) -> Eval {
    if response(cx).is_none() {
        return Eval::NotApplicable;
    }
    let mm = cx.members();
    match (mm.result.is_some(), mm.error.is_some()) {
        (true, false) | (false, true) => Eval::Pass,
        (true, true) => Eval::hit(
            "",
            "the message has both `result` and `error`; a response has exactly one",
        ),
        (false, false) => {
            let what = match (mm.method, mm.id) {
                (Some(_), Some(_)) => {
                    "a JSON-RPC request (it has `method` and `id`), not a response"
                }
                (Some(_), None) => "a JSON-RPC notification (it has `method`), not a response",
                _ => "neither `result` nor `error`",
            };
            Eval::hit("", format!("the message has {what}"))
        }
    }
}

fn show_id(v: &Value) -> String {
    format!("{v} ({})", kind(v))
}

/// Whether a response's id is the request's, as [`ids_equal`] compares them.
fn id_is(got: JsonRef<'_>, want: &Value) -> bool {
    match (got.as_str(), want) {
        (Some(a), Value::String(b)) => a == b,
        (Some(_), _) | (None, Value::String(_)) => false,
        // The same digits are the same number (ids are mostly written alike).
        (None, Value::Number(n)) if got.number_text() == Some(n.as_str()) => true,
        _ => ids_equal(&got.to_value(), want),
    }
}

fn response_id_matches(cx: &Cx<'_>, _: &Params) -> Eval {
    if response(cx).is_none() {
        return Eval::NotApplicable;
    }
    let Some(want) = cx.an.req.id else {
        return Eval::NotApplicable;
    };
    let mm = cx.members();
    let is_error = mm.error.is_some() && mm.result.is_none();
    if mm.result.is_none() && !is_error {
        return Eval::NotApplicable;
    }
    match mm.id {
        // An error response may omit the id (or send null) when the request's id could not
        // be read; `error_id_present` judges that case.
        None if is_error => Eval::NotApplicable,
        Some(id) if is_error && id.is_null() => Eval::NotApplicable,
        None => Eval::hit(
            "/id",
            format!(
                "the response has no `id`; the request's id was {}",
                show_id(want)
            ),
        ),
        Some(got) if id_is(got, want) => Eval::Pass,
        Some(got) => Eval::hit(
            "/id",
            format!(
                "response id {} does not match request id {}",
                show_id(&got.to_value()),
                show_id(want)
            ),
        ),
    }
}

/// Whether a value is a JSON-RPC id as MCP's `RequestId` defines it: a string or an integer.
fn is_request_id(v: &Value) -> bool {
    v.is_string() || crate::wire::number::is_integer_value(v)
}

/// The same, for a value as read.
fn is_request_id_ref(v: JsonRef<'_>) -> bool {
    v.is_string() || v.is_number() && is_request_id(&v.to_value())
}

fn error_id_present(cx: &Cx<'_>, p: &Params) -> Eval {
    if response(cx).is_none() {
        return Eval::NotApplicable;
    }
    let mm = cx.members();
    if mm.error.is_none() || mm.result.is_some() {
        return Eval::NotApplicable;
    }
    // An unreadable (or absent) request id may not be echoed.
    let Some(want) = cx.an.req.id.filter(|v| is_request_id(v)) else {
        return Eval::NotApplicable;
    };
    match mm.id {
        // A refusal before the request is read (an invalid Origin) may have no id.
        None if p.status == Some(cx.an.status()) => Eval::NotApplicable,
        None => Eval::hit(
            "/id",
            format!(
                "the error response has no `id`, although the request's id {} was readable",
                show_id(want)
            ),
        ),
        Some(id) if id.is_null() => Eval::hit(
            "/id",
            format!(
                "the error response has `id: null`, although the request's id {} was readable; MCP omits the id only when it could not be read, and null is no id (a RequestId is a string or an integer)",
                show_id(want)
            ),
        ),
        // Another value is judged by `response_id_matches` (and its type by `error_id_type`).
        Some(_) => Eval::Pass,
    }
}

fn error_id_type(cx: &Cx<'_>, _: &Params) -> Eval {
    if response(cx).is_none() {
        return Eval::NotApplicable;
    }
    let mm = cx.members();
    if mm.error.is_none() || mm.result.is_some() {
        return Eval::NotApplicable;
    }
    match mm.id {
        None => Eval::NotApplicable,
        Some(id) if is_request_id_ref(id) => Eval::Pass,
        // `id: null` answering a request whose id was readable is one defect, the id not
        // echoed: `error_id_present` reports it (with why null is no id).
        Some(id) if id.is_null() && cx.an.req.id.is_some_and(is_request_id) => Eval::Pass,
        Some(id) => Eval::hit(
            "/id",
            format!(
                "the error response's `id` is {}; a RequestId is a string or an integer, and an error response without a readable request id omits it",
                show_id(&id.to_value())
            ),
        ),
    }
}

fn is_error_response(cx: &Cx<'_>, _: &Params) -> Eval {
    match cx.message() {
        Some(_) if cx.members().error.is_some() => Eval::triggered(),
        Some(_) => Eval::Pass,
        None => Eval::NotApplicable,
    }
}

fn error_code_range(cx: &Cx<'_>, p: &Params) -> Eval {
    let (Some(lo), Some(hi)) = (p.min, p.max) else {
        return Eval::NotApplicable;
    };
    let Some(code) = cx.error_code() else {
        return Eval::NotApplicable;
    };
    if (lo..=hi).contains(&code) && !p.codes.contains(&code) {
        Eval::hit(
            "/error/code",
            format!(
                "error code {code} lies in {lo}..{hi} and is not one this revision defines there"
            ),
        )
    } else {
        Eval::Pass
    }
}

fn error_code_in(cx: &Cx<'_>, p: &Params) -> Eval {
    let Some(code) = cx.error_code() else {
        return Eval::NotApplicable;
    };
    if p.codes.contains(&code) {
        Eval::hit(
            "/error/code",
            format!("error code {code} must not be used under this revision"),
        )
    } else {
        Eval::Pass
    }
}

fn error_code_is(cx: &Cx<'_>, p: &Params) -> Eval {
    let (Some(want), Some(code)) = (p.code, cx.error_code()) else {
        return Eval::NotApplicable;
    };
    if code == want {
        Eval::triggered()
    } else {
        Eval::Pass
    }
}
