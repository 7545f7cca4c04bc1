//! Multi round-trip request checks on `InputRequiredResult` (2026-07-28).

use serde_json::{Map, Value};

use crate::check_api::{Cx, Eval, Hit, Params, ResultKind};
use crate::wire::exchange::BodyEnd;
use crate::wire::jsonref::JsonRef;

crate::check_api::declare_checks! {
    "irr_has_inputs_or_state" => irr_has_inputs_or_state, [], [], INPUT_REQUIRED,
        "an InputRequiredResult has neither `inputRequests` nor `requestState`";
    "irr_capability_gate" => irr_capability_gate, ["methods"], ["methods"], INPUT_REQUIRED,
        "an input request needs a client capability the request did not declare";
    "irr_keys_unique" => irr_keys_unique, [], [], INPUT_REQUIRED,
        "`inputRequests` repeats a key in the raw JSON";
    "missing_input_asked_again" => missing_input_asked_again, [], [], REQUEST,
        "a retry whose `inputResponses` answer none of the `inputRequests` of the result it answers (as recorded in the exchange's `retry`, with the `requestState` unaltered) got a JSON-RPC error; a new `input_required` result passes, a final result shows the input was not necessary";
}

fn irr<'a>(cx: &Cx<'a>) -> Option<JsonRef<'a>> {
    cx.result_if(&ResultKind::InputRequired)
}

fn irr_has_inputs_or_state(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(r) = irr(cx) else {
        return Eval::NotApplicable;
    };
    if r.get("inputRequests").is_some() || r.get("requestState").is_some() {
        Eval::Pass
    } else {
        Eval::hit(
            "/result",
            "the InputRequiredResult has neither `inputRequests` nor `requestState`, so the client cannot know what to send",
        )
    }
}

fn cap<'a>(caps: &'a Map<String, Value>, path: &str) -> Option<&'a Value> {
    let mut parts = path.split('.');
    let mut cur = caps.get(parts.next()?)?;
    for p in parts {
        cur = cur.as_object()?.get(p)?;
    }
    Some(cur)
}

/// The client capability a server request (or input request) of `method` with `params` needs
/// that `caps` does not declare, as a dotted path; `None` when declared or when `methods` (method
/// to the capability it needs) does not name the method. Elicitation needs its mode (`{}`
/// declares form only), sampling with `tools` needs `sampling.tools`.
pub(crate) fn missing_capability(
    caps: &Map<String, Value>,
    methods: &std::collections::BTreeMap<String, String>,
    method: &str,
    params: Option<JsonRef<'_>>,
) -> Option<String> {
    let base = methods.get(method)?;
    let mut needed = base.clone();
    let mut ok = cap(caps, base).is_some();
    if ok && method == "elicitation/create" {
        let mode = params
            .and_then(|p| p.get("mode"))
            .and_then(JsonRef::as_str)
            .unwrap_or("form");
        let el = cap(caps, base).and_then(Value::as_object);
        let declared = |m: &str| el.is_some_and(|e| e.contains_key(m));
        // `elicitation: {}` declares form mode only.
        let empty = el.is_some_and(Map::is_empty);
        ok = match mode {
            "url" => declared("url"),
            _ => empty || declared("form"),
        };
        needed = format!("{base}.{mode}");
    }
    if ok && method == "sampling/createMessage" && params.and_then(|p| p.get("tools")).is_some() {
        ok = cap(caps, &format!("{base}.tools")).is_some();
        needed = format!("{base}.tools");
    }
    (!ok).then_some(needed)
}

fn irr_capability_gate(cx: &Cx<'_>, p: &Params) -> Eval {
    let Some(r) = irr(cx) else {
        return Eval::NotApplicable;
    };
    // A recorded request without clientCapabilities declared none.
    if cx.an.req.body.is_none() {
        return Eval::NotApplicable;
    }
    let none = Map::new();
    let caps = cx.an.req.capabilities.unwrap_or(&none);
    let Some(requests) = r.get("inputRequests").filter(|r| r.is_object()) else {
        return Eval::NotApplicable;
    };
    // In the order a parsed object keeps its keys (sorted), whatever the document's.
    let mut requests: Vec<_> = requests.members().collect();
    requests.sort_unstable_by_key(|(key, _)| *key);
    let mut hits = Vec::new();
    for (key, req) in requests {
        let Some(method) = req.get("method").and_then(JsonRef::as_str) else {
            continue;
        };
        if let Some(needed) = missing_capability(caps, &p.methods, method, req.get("params")) {
            hits.push(Hit::new(
                format!("/result/inputRequests/{}", crate::vocab::pointer::escape(key)),
                format!(
                    "input request `{key}` ({method}) needs the client capability `{needed}`, which the request's clientCapabilities did not declare"
                ),
            ));
        }
    }
    Eval::from_hits(hits)
}

fn irr_keys_unique(cx: &Cx<'_>, _: &Params) -> Eval {
    if irr(cx).is_none() {
        return Eval::NotApplicable;
    }
    let Some(text) = cx.an.message_text() else {
        return Eval::NotApplicable;
    };
    let hits: Vec<Hit> = crate::wire::jsondup::duplicate_keys_at(text, &["result", "inputRequests"])
        .into_iter()
        .map(|key| {
            Hit::new(
                format!("/result/inputRequests/{}", crate::vocab::pointer::escape(&key)),
                format!("`inputRequests` repeats the key \"{key}\"; most JSON parsers silently keep only the last one"),
            )
        })
        .collect();
    Eval::from_hits(hits)
}

/// 2026-07-28 basic/patterns/mrtr, Error Handling: "If the client fails to send all the
/// information requested in a previous InputRequests, and the missing information is necessary
/// for the server to process the request, the server SHOULD respond with a new
/// InputRequiredResult requesting the missing information again, rather than returning an
/// error." Judged only for a retry that answers none of the requests (so that the error cannot
/// be about an answer given) and sends back the state it received (so that it cannot be about
/// the state).
fn missing_input_asked_again(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(retry) = cx.an.ex.retry.as_ref() else {
        return Eval::NotApplicable;
    };
    let Some(requested) = retry.input_requests.as_ref().filter(|r| !r.is_empty()) else {
        return Eval::NotApplicable;
    };
    if retry.request_state_altered || cx.an.req.body.is_none() {
        return Eval::NotApplicable;
    }
    let responses = cx
        .an
        .req
        .params
        .and_then(|p| p.get("inputResponses"))
        .and_then(Value::as_object);
    if responses.is_some_and(|r| r.keys().any(|k| requested.contains_key(k))) {
        return Eval::NotApplicable;
    }
    // A transient answer (overload, a gateway) or a cut-off body says nothing.
    if matches!(cx.an.status(), 408 | 429 | 502 | 503 | 504)
        || cx.message().is_none() && cx.an.ex.end != BodyEnd::Complete
    {
        return Eval::NotApplicable;
    }
    if *cx.kind() == ResultKind::InputRequired {
        return Eval::Pass;
    }
    if cx.members().error.is_none() {
        // A final result: the input was not necessary after all.
        return Eval::NotApplicable;
    }
    let error = cx
        .error_code()
        .map_or_else(|| "an error".to_string(), |c| format!("error {c}"));
    let keys: Vec<String> = requested.keys().map(|k| format!("`{k}`")).collect();
    Eval::hit(
        "/error",
        format!(
            "the retry answered none of the input requests ({}) and got {error} ({}); the server should answer with a new input_required result asking for the missing input again",
            keys.join(", "),
            cx.an.how_answered()
        ),
    )
}
