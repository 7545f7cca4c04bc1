//! `tools/call` under both revisions: the request's checks (name, known tool, arguments), the
//! tool's own outcome (argument validation, the confirmation gate, a progress stream for
//! `count`), then either the plain reply or, under a response-replacing fault, the injected
//! one.

use std::sync::Arc;

use serde_json::{Map, Value, json};

use super::call::{CallCtx, Outcome};
use super::reply::{
    Reply, SseEnd, SsePlan, SseStep, decorate, decorate_modern, deliver, error_msg, json_reply,
    priming, progress_msg, result_msg,
};
use super::scenario::Scenario;
use super::shared::Shared;
use super::tools::{self, Tool};
use super::{conformance, faults, input_required};
use crate::vocab::protocol::{code, meta};

/// Answers a `tools/call` request.
pub(crate) fn tools_call(
    shared: &Arc<Shared>,
    ctx: &CallCtx,
    params: &Map<String, Value>,
) -> Reply {
    let id = &ctx.id;
    let Some(name) = params.get("name").and_then(Value::as_str) else {
        let m = error_msg(
            Some(id),
            code::INVALID_PARAMS,
            "Invalid params: tools/call needs a string name",
            None,
        );
        return json_reply(200, m, Vec::new());
    };
    let Some(tool) = shared.tools.iter().find(|t| t.name == name) else {
        if shared.fixtures.is_some() {
            let args = match params.get("arguments") {
                None | Some(Value::Null) => Some(json!({})),
                Some(a @ Value::Object(_)) => Some(a.clone()),
                Some(_) => None,
            };
            match args {
                Some(args) => {
                    if let Some(reply) = conformance::call_tool(shared, ctx, name, &args, params) {
                        return reply;
                    }
                }
                None => {
                    let m = error_msg(
                        Some(id),
                        code::INVALID_PARAMS,
                        "Invalid params: arguments must be an object",
                        None,
                    );
                    return json_reply(200, m, Vec::new());
                }
            }
        }
        let m = error_msg(
            Some(id),
            code::INVALID_PARAMS,
            &format!("Unknown tool: {name}"),
            None,
        );
        return json_reply(200, m, Vec::new());
    };
    let args = match params.get("arguments") {
        None | Some(Value::Null) => json!({}),
        Some(a @ Value::Object(_)) => a.clone(),
        Some(_) => {
            let m = error_msg(
                Some(id),
                code::INVALID_PARAMS,
                "Invalid params: arguments must be an object",
                None,
            );
            return json_reply(200, m, Vec::new());
        }
    };
    let progress_token = params
        .get("_meta")
        .and_then(|m| m.get(meta::PROGRESS_TOKEN))
        .filter(|t| t.is_string() || t.is_number())
        .cloned();

    let scenario = &shared.config.scenario;
    let gate_all = matches!(scenario, Scenario::InputRequired);
    let outcome = own_outcome(
        shared,
        ctx,
        tool,
        &args,
        params,
        progress_token.is_some(),
        gate_all,
    );

    if !faults::replaces_response(scenario) {
        return render(shared, ctx, tool, &args, outcome);
    }
    // A fault replaces a response that would carry a result; protocol errors
    // (bad state, missing capability) go out unchanged.
    let final_msg = match outcome {
        Outcome::Error { .. } => return render(shared, ctx, tool, &args, outcome),
        Outcome::Result(m) => result_msg(id, decorate(ctx.rev, m)),
        Outcome::CountStream(_, _) => {
            let m = tools::execute(tool.name, &args, &shared.orders);
            result_msg(id, decorate(ctx.rev, m))
        }
        Outcome::InputRequired(m) => result_msg(id, decorate_modern(m, "input_required")),
        Outcome::LegacyElicit => {
            let m = tools::text_result(
                format!(
                    "{} needs a confirmation, which this server cannot request while scenario {} \
                     replaces the response",
                    tool.name,
                    scenario.name()
                ),
                true,
            );
            result_msg(id, m)
        }
    };
    faults::inject(shared, ctx, scenario, final_msg, progress_token)
}

/// The tool's own outcome. With `gate_all`, every tool needs a confirmation.
fn own_outcome(
    shared: &Shared,
    ctx: &CallCtx,
    tool: &Tool,
    args: &Value,
    params: &Map<String, Value>,
    has_progress: bool,
    gate_all: bool,
) -> Outcome {
    let problems = tool.validate(args);
    if !problems.is_empty() {
        return Outcome::Result(tools::text_result(
            format!(
                "Invalid arguments for tool {}: {}",
                tool.name,
                problems.join("; ")
            ),
            true,
        ));
    }
    if (tool.needs_confirmation() || gate_all)
        && let Some(stop) = input_required::gate(shared, ctx, tool, args, params)
    {
        return stop;
    }
    if tool.name == "count" && has_progress {
        let token = params["_meta"][meta::PROGRESS_TOKEN].clone();
        return Outcome::CountStream(tools::count_steps(args), token);
    }
    Outcome::Result(tools::execute(tool.name, args, &shared.orders))
}

/// Renders an outcome without faults.
fn render(
    shared: &Arc<Shared>,
    ctx: &CallCtx,
    tool: &Tool,
    args: &Value,
    outcome: Outcome,
) -> Reply {
    let id = &ctx.id;
    match outcome {
        Outcome::Result(m) => deliver(
            shared,
            ctx.rev,
            200,
            result_msg(id, decorate(ctx.rev, m)),
            Vec::new(),
        ),
        Outcome::InputRequired(m) => deliver(
            shared,
            ctx.rev,
            200,
            result_msg(id, decorate_modern(m, "input_required")),
            Vec::new(),
        ),
        Outcome::Error {
            code,
            message,
            data,
            status,
        } => deliver(
            shared,
            ctx.rev,
            status,
            error_msg(Some(id), code, &message, data),
            Vec::new(),
        ),
        Outcome::CountStream(n, token) => {
            let mut steps: Vec<SseStep> = (1..=n)
                .map(|i| SseStep::Message(progress_msg(&token, i, n)))
                .collect();
            let m = tools::execute(tool.name, args, &shared.orders);
            steps.push(SseStep::Message(result_msg(id, decorate(ctx.rev, m))));
            Reply::Sse(SsePlan {
                headers: Vec::new(),
                priming_id: priming(shared, ctx.rev),
                steps,
                end: SseEnd::Finish,
            })
        }
        Outcome::LegacyElicit => input_required::elicit_on_stream(shared, ctx, tool, args),
    }
}
