//! Asking the user before a tool runs (`confirm_action`, and every tool under the
//! `input_required` scenario): 2026-07-28 answers with an `input_required` result carrying a
//! form elicitation and a sealed `requestState`, and checks the retry that echoes it;
//! 2025-11-25 sends `elicitation/create` on the `tools/call` stream and finishes the stream
//! once the client has POSTed its answer.

use std::sync::{Arc, mpsc};

use serde_json::{Map, Value, json};

use super::call::{CallCtx, Outcome, protocol_error};
use super::reply::{AfterAnswer, Answer, Reply, SseEnd, SsePlan, SseStep, priming, result_msg};
use super::scenario::{Lenient, Scenario};
use super::shared::Shared;
use super::tools::{self, Tool};
use crate::vocab::Protocol;
use crate::vocab::protocol::code;

/// The confirmation gate. None: confirmed, run the tool.
pub(crate) fn gate(
    shared: &Shared,
    ctx: &CallCtx,
    tool: &Tool,
    args: &Value,
    params: &Map<String, Value>,
) -> Option<Outcome> {
    match ctx.rev {
        Protocol::V2026_07_28 => mrtr_gate(shared, ctx, tool, args, params),
        Protocol::V2025_11_25 => Some(if supports_form_elicitation(&ctx.caps) {
            Outcome::LegacyElicit
        } else {
            Outcome::Result(tools::text_result(
                format!(
                    "{} needs the user's confirmation, but the client did not declare the \
                     elicitation capability (form mode) in initialize",
                    tool.name
                ),
                true,
            ))
        }),
    }
}

/// Whether client capabilities allow a form-mode elicitation request.
fn supports_form_elicitation(caps: &Value) -> bool {
    match caps.get("elicitation") {
        Some(Value::Object(e)) => e.is_empty() || e.contains_key("form"),
        _ => false,
    }
}

/// The key of the confirmation in `inputRequests` / `inputResponses`.
const CONFIRM_KEY: &str = "confirm";

/// The `elicitation/create` params asking to confirm this call.
fn confirm_request(tool: &str, args: &Value) -> Value {
    let what = match tool {
        "confirm_action" => format!(
            "Confirm action: {}",
            args["action"].as_str().unwrap_or_default()
        ),
        other => format!("Allow the call to tool {other} with arguments {args}?"),
    };
    json!({
        "mode": "form",
        "message": what,
        "requestedSchema": {
            "type": "object",
            "properties": {
                "confirm": {"type": "boolean", "title": "Confirm", "description": "Set to true to go ahead"}
            },
            "required": ["confirm"]
        }
    })
}

/// Reads an ElicitResult: Some(true) confirmed, Some(false) declined, None malformed.
fn read_confirmation(answer: &Value) -> Option<bool> {
    match answer.get("action").and_then(Value::as_str)? {
        "accept" => {
            Some(answer.get("content").and_then(|c| c.get("confirm")) == Some(&json!(true)))
        }
        "decline" | "cancel" => Some(false),
        _ => None,
    }
}

/// The tool result when the user declined.
fn declined(tool: &str) -> Map<String, Value> {
    tools::text_result(
        format!("{tool} was not confirmed by the user; nothing was done"),
        true,
    )
}

/// 2026-07-28 MRTR gate. None: confirmed, run the tool.
fn mrtr_gate(
    shared: &Shared,
    ctx: &CallCtx,
    tool: &Tool,
    args: &Value,
    params: &Map<String, Value>,
) -> Option<Outcome> {
    let ask = || -> Outcome {
        if !supports_form_elicitation(&ctx.caps) {
            return Outcome::Error {
                code: code::MISSING_REQUIRED_CLIENT_CAPABILITY,
                message: format!(
                    "Missing required client capability: {} needs elicitation (form mode) to ask for confirmation",
                    tool.name
                ),
                data: Some(json!({"requiredCapabilities": {"elicitation": {"form": {}}}})),
                status: 400,
            };
        }
        let state = shared.keys.seal_state(tool.name, args, &ctx.id);
        let m = Map::from_iter([
            (
                "inputRequests".to_string(),
                json!({ CONFIRM_KEY: {"method": "elicitation/create", "params": confirm_request(tool.name, args)} }),
            ),
            ("requestState".into(), json!(state)),
        ]);
        Outcome::InputRequired(m)
    };
    let state = params.get("requestState");
    let responses = params.get("inputResponses");
    let Some(state) = state else {
        if responses.is_some() {
            return Some(protocol_error(
                code::INVALID_PARAMS,
                "Invalid params: inputResponses without requestState (echo the requestState of the input_required result)",
                200,
            ));
        }
        return Some(ask());
    };
    let Some(state) = state.as_str() else {
        return Some(protocol_error(
            code::INVALID_PARAMS,
            "Invalid params: requestState must be a string",
            200,
        ));
    };
    let lenient = |l: Lenient| shared.config.scenario == Scenario::Lenient(l);
    match shared.keys.open_state(state, tool.name, args) {
        // lenient:request_state takes an altered state.
        Err(_) if lenient(Lenient::RequestState) => {}
        Err(why) => {
            return Some(protocol_error(
                code::INVALID_PARAMS,
                format!("Invalid params: requestState rejected: {why}"),
                200,
            ));
        }
        Ok(rid) if rid == ctx.id => {
            return Some(protocol_error(
                code::INVALID_REQUEST,
                "Invalid Request: the retry reuses the JSON-RPC id of the request that received the input_required result; use a new id",
                200,
            ));
        }
        Ok(_) => {}
    }
    let answer = match responses {
        None => return Some(ask()),
        Some(Value::Object(r)) => r.get(CONFIRM_KEY),
        Some(_) => {
            return Some(protocol_error(
                code::INVALID_PARAMS,
                "Invalid params: inputResponses must be an object",
                200,
            ));
        }
    };
    let Some(answer) = answer else {
        if lenient(Lenient::InputResponses) {
            return Some(protocol_error(
                code::INVALID_PARAMS,
                "Invalid params: inputResponses lacks the requested input `confirm`",
                200,
            ));
        }
        // The requested input is missing: ask again rather than fail.
        return Some(ask());
    };
    match read_confirmation(answer) {
        Some(true) => None,
        Some(false) => Some(Outcome::Result(declined(tool.name))),
        None => Some(protocol_error(
            code::INVALID_PARAMS,
            "Invalid params: inputResponses.confirm is not an ElicitResult (action accept|decline|cancel)",
            200,
        )),
    }
}

/// 2025-11-25: SSE stream with an elicitation/create request; the result
/// follows once the client POSTs its answer.
pub(crate) fn elicit_on_stream(
    shared: &Arc<Shared>,
    ctx: &CallCtx,
    tool: &Tool,
    args: &Value,
) -> Reply {
    let sid = ctx.session.clone().expect("legacy calls have a session");
    let req_id = json!(format!("mcp-verdict-elicit-{}", shared.next_serial()));
    let key = req_id.to_string();
    let (tx, rx) = mpsc::channel();
    if let Some(s) = shared.sessions.lock().expect("sessions lock").get(&sid) {
        s.pending.insert(key.clone(), tx);
    }
    let request = json!({
        "jsonrpc": "2.0",
        "id": req_id,
        "method": "elicitation/create",
        "params": confirm_request(tool.name, args),
    });
    let shared2 = Arc::clone(shared);
    let tool_name = tool.name;
    let args2 = args.clone();
    let id = ctx.id.clone();
    let limit = shared.config.stall_cap;
    let then: AfterAnswer = Box::new(move |answer: Answer| {
        let m = match answer {
            Answer::Timeout => tools::text_result(
                format!(
                    "{tool_name} got no answer to its elicitation/create request within {} s",
                    limit.as_secs_f64()
                ),
                true,
            ),
            Answer::Response(resp) => match resp.get("result").map(read_confirmation) {
                Some(Some(true)) => tools::execute(tool_name, &args2, &shared2.orders),
                Some(Some(false)) => declined(tool_name),
                _ => tools::text_result(
                    format!(
                        "{tool_name}: the client answered elicitation/create with an error or an invalid ElicitResult"
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elicitation_capability() {
        assert!(supports_form_elicitation(&json!({"elicitation": {}})));
        assert!(supports_form_elicitation(
            &json!({"elicitation": {"form": {}}})
        ));
        assert!(!supports_form_elicitation(
            &json!({"elicitation": {"url": {}}})
        ));
        assert!(!supports_form_elicitation(&json!({})));
    }

    #[test]
    fn confirmation_reading() {
        assert_eq!(
            read_confirmation(&json!({"action": "accept", "content": {"confirm": true}})),
            Some(true)
        );
        assert_eq!(
            read_confirmation(&json!({"action": "accept", "content": {"confirm": false}})),
            Some(false)
        );
        assert_eq!(
            read_confirmation(&json!({"action": "decline"})),
            Some(false)
        );
        assert_eq!(read_confirmation(&json!({"nope": 1})), None);
    }
}
