//! The rounds of a fixture that asks the client: under 2026-07-28 an `input_required` result
//! per round, tied together by a sealed `requestState`; under 2025-11-25 the server request
//! sent on the `tools/call` SSE stream, finished once the client has POSTed its answer.

use std::sync::{Arc, mpsc};

use serde_json::{Map, Value, json};

use super::asking::{
    Ask, Next, advance, asks, capability_of, check_answer, client_allows, is_stateful,
};
use super::content::complete;
use crate::serve::call::CallCtx;
use crate::serve::reply::{
    AfterAnswer, Answer, Reply, SseEnd, SsePlan, SseStep, decorate_modern, deliver, error_msg,
    json_reply, priming, result_msg,
};
use crate::serve::shared::Shared;
use crate::serve::tools;
use crate::vocab::Protocol;
use crate::vocab::protocol::code;

pub(super) fn invalid_params(id: &Value, message: String) -> Reply {
    json_reply(
        200,
        error_msg(Some(id), code::INVALID_PARAMS, &message, None),
        Vec::new(),
    )
}

/// 2026-07-28: one round of a request that needs input from the client (SEP-2322
/// `input_required`). `name` is the tool, or `prompt:NAME` for a prompt.
pub(super) fn mrtr(
    shared: &Shared,
    rev: Protocol,
    id: &Value,
    name: &str,
    args: &Value,
    params: &Map<String, Value>,
    caps: &Value,
) -> Reply {
    let responses = match params.get("inputResponses") {
        None => None,
        Some(Value::Object(r)) => Some(r),
        Some(_) => {
            return invalid_params(
                id,
                "Invalid params: inputResponses must be an object keyed like inputRequests".into(),
            );
        }
    };
    let state = match params.get("requestState") {
        None => None,
        Some(Value::String(s)) => Some(s.as_str()),
        Some(_) => {
            return invalid_params(id, "Invalid params: requestState must be a string".into());
        }
    };
    let data = if is_stateful(name) {
        match state {
            None => json!({"stage": 1}),
            Some(s) => match shared.keys.open_rounds(s, name, args) {
                Ok(d) => d,
                Err(why) => {
                    return invalid_params(
                        id,
                        format!("Invalid params: requestState rejected: {why}"),
                    );
                }
            },
        }
    } else {
        // This request keeps no state between rounds; a requestState it did not issue means
        // nothing to it.
        Value::Null
    };
    let wanted = asks(name, args, &data, caps);
    if let Some(missing) = wanted.iter().find(|a| !client_allows(caps, a.method)) {
        let cap = capability_of(missing.method);
        let m = error_msg(
            Some(id),
            code::MISSING_REQUIRED_CLIENT_CAPABILITY,
            &format!(
                "Missing required client capability: {name} needs {cap} ({})",
                missing.method
            ),
            Some(json!({"requiredCapabilities": {cap: {}}})),
        );
        return json_reply(400, m, Vec::new());
    }
    let ask_again = |data: &Value, asks: &[Ask]| -> Reply {
        let requests: Map<String, Value> = asks
            .iter()
            .map(|a| {
                (
                    a.key.to_string(),
                    json!({"method": a.method, "params": a.params}),
                )
            })
            .collect();
        let mut m = Map::from_iter([("inputRequests".to_string(), Value::Object(requests))]);
        if is_stateful(name) {
            m.insert(
                "requestState".into(),
                json!(shared.keys.seal_rounds(name, args, data)),
            );
        }
        deliver(
            shared,
            rev,
            200,
            result_msg(id, decorate_modern(m, "input_required")),
            Vec::new(),
        )
    };
    if wanted.is_empty() {
        return finish(
            shared,
            rev,
            id,
            name,
            args,
            caps,
            &data,
            &Map::new(),
            &ask_again,
        );
    }
    let Some(responses) = responses else {
        return ask_again(&data, &wanted);
    };
    // Answers to what this round asked; other keys are ignored (SEP-2322: servers SHOULD
    // ignore information they do not recognise).
    let mut answers = Map::new();
    for a in &wanted {
        match responses.get(a.key) {
            // A missing answer is asked for again rather than failed.
            None => return ask_again(&data, &wanted),
            Some(v) => {
                if let Err(what) = check_answer(a.method, v) {
                    return invalid_params(
                        id,
                        format!("Invalid params: inputResponses.{} is not {what}", a.key),
                    );
                }
                answers.insert(a.key.to_string(), v.clone());
            }
        }
    }
    finish(
        shared, rev, id, name, args, caps, &data, &answers, &ask_again,
    )
}

#[allow(clippy::too_many_arguments)]
fn finish(
    shared: &Shared,
    rev: Protocol,
    id: &Value,
    name: &str,
    args: &Value,
    caps: &Value,
    data: &Value,
    answers: &Map<String, Value>,
    ask_again: &dyn Fn(&Value, &[Ask]) -> Reply,
) -> Reply {
    match advance(name, data, answers) {
        Next::Done(m) => complete(shared, rev, id, m),
        Next::Round(next) => {
            let wanted = asks(name, args, &next, caps);
            ask_again(&next, &wanted)
        }
    }
}

/// 2025-11-25: sends the fixture's one server request on the `tools/call` SSE stream and
/// finishes the stream once the client has POSTed its answer.
pub(super) fn ask_on_stream(
    shared: &Arc<Shared>,
    ctx: &CallCtx,
    name: &'static str,
    args: &Value,
) -> Reply {
    let mut wanted = asks(name, args, &Value::Null, &ctx.caps);
    let (Some(ask), true) = (wanted.pop(), wanted.is_empty()) else {
        let m = tools::text_result(format!("{name} is not offered under 2025-11-25"), true);
        return complete(shared, ctx.rev, &ctx.id, m);
    };
    if !client_allows(&ctx.caps, ask.method) {
        let m = tools::text_result(
            format!(
                "{name} needs the client's {} capability ({}), which it did not declare in \
                 initialize",
                capability_of(ask.method),
                ask.method
            ),
            true,
        );
        return complete(shared, ctx.rev, &ctx.id, m);
    }
    let Some(sid) = ctx.session.clone() else {
        let m = tools::text_result(format!("{name} needs a session"), true);
        return complete(shared, ctx.rev, &ctx.id, m);
    };
    let req_id = json!(format!("mcp-verdict-fixture-{}", shared.next_serial()));
    let key = req_id.to_string();
    let (tx, rx) = mpsc::channel();
    if let Some(s) = shared.sessions.lock().expect("sessions lock").get(&sid) {
        s.pending.insert(key.clone(), tx);
    }
    let request = json!({
        "jsonrpc": "2.0",
        "id": req_id,
        "method": ask.method,
        "params": ask.params,
    });
    let id = ctx.id.clone();
    let limit = shared.config.stall_cap;
    let (ask_key, ask_method) = (ask.key, ask.method);
    let then: AfterAnswer = Box::new(move |answer: Answer| {
        let m = match answer {
            Answer::Timeout => tools::text_result(
                format!(
                    "{name} got no answer to its {ask_method} request within {} s",
                    limit.as_secs_f64()
                ),
                true,
            ),
            Answer::Response(resp) => match resp.get("result") {
                Some(r) if check_answer(ask_method, r).is_ok() => {
                    let answers = Map::from_iter([(ask_key.to_string(), r.clone())]);
                    match advance(name, &Value::Null, &answers) {
                        Next::Done(m) => m,
                        Next::Round(_) => {
                            tools::text_result(format!("{name}: no more rounds"), true)
                        }
                    }
                }
                _ => tools::text_result(
                    format!(
                        "{name}: the client answered {ask_method} with an error or an invalid result"
                    ),
                    true,
                ),
            },
        };
        result_msg(&id, m)
    });
    Reply::Sse(SsePlan {
        headers: Vec::new(),
        priming_id: priming(shared, Protocol::V2025_11_25),
        steps: vec![
            SseStep::Message(request),
            SseStep::Await {
                rx,
                session: sid,
                key,
                limit,
                then,
            },
        ],
        end: SseEnd::Finish,
    })
}
