//! `tools/call` naming a fixture tool: the dispatch to the tool's answer, and the tools that
//! stream (progress notifications, log messages at the level the client asked for).

use std::sync::Arc;
use std::thread;

use serde_json::{Map, Value, json};

use super::content::{complete, plain_result};
use super::rounds::{ask_on_stream, mrtr};
use super::{LOG_LEVELS, STEP};
use crate::serve::call::CallCtx;
use crate::serve::reply::{Reply, SseEnd, SsePlan, SseStep, decorate, priming, result_msg};
use crate::serve::shared::Shared;
use crate::serve::tools;
use crate::vocab::Protocol;
use crate::vocab::protocol::meta;

/// Answers a `tools/call` naming a fixture tool of this revision; None when `name` is not one.
pub(crate) fn call_tool(
    shared: &Arc<Shared>,
    ctx: &CallCtx,
    name: &str,
    args: &Value,
    params: &Map<String, Value>,
) -> Option<Reply> {
    let tool = shared.fixtures.as_ref()?.tool(name, ctx.rev)?;
    let problems: Vec<String> = tool
        .validator
        .iter_errors(args)
        .map(|e| e.to_string())
        .collect();
    if !problems.is_empty() {
        let m = tools::text_result(
            format!("Invalid arguments for tool {name}: {}", problems.join("; ")),
            true,
        );
        return Some(complete(shared, ctx.rev, &ctx.id, m));
    }
    if let Some(m) = plain_result(tool.name, args) {
        return Some(complete(shared, ctx.rev, &ctx.id, m));
    }
    let req_meta = params.get("_meta").and_then(Value::as_object);
    Some(match tool.name {
        "test_tool_with_progress" => {
            let token = req_meta
                .and_then(|m| m.get(meta::PROGRESS_TOKEN))
                .filter(|t| t.is_string() || t.is_number())
                .cloned();
            progress_stream(shared, ctx, token)
        }
        "test_tool_with_logging" | "test_logging_tool" => {
            let level = log_threshold(shared, ctx, req_meta);
            logging_stream(shared, ctx, tool.name, level)
        }
        _ => match ctx.rev {
            Protocol::V2026_07_28 => {
                mrtr(shared, ctx.rev, &ctx.id, tool.name, args, params, &ctx.caps)
            }
            Protocol::V2025_11_25 => ask_on_stream(shared, ctx, tool.name, args),
        },
    })
}

fn progress_stream(shared: &Arc<Shared>, ctx: &CallCtx, token: Option<Value>) -> Reply {
    let result = tools::text_result("Progress test finished: 3 steps done", false);
    let Some(token) = token else {
        // No token, nothing to report: the work still takes its time.
        thread::sleep(STEP * 2);
        return complete(shared, ctx.rev, &ctx.id, result);
    };
    let progress = |p: u64| {
        SseStep::Message(json!({
            "jsonrpc": "2.0",
            "method": "notifications/progress",
            "params": {"progressToken": token, "progress": p, "total": 100, "message": format!("{p}% done")}
        }))
    };
    Reply::Sse(SsePlan {
        headers: Vec::new(),
        priming_id: priming(shared, ctx.rev),
        steps: vec![
            progress(0),
            SseStep::Pause(STEP),
            progress(50),
            SseStep::Pause(STEP),
            progress(100),
            SseStep::Message(result_msg(&ctx.id, decorate(ctx.rev, result))),
        ],
        end: SseEnd::Finish,
    })
}

/// The lowest level the client wants log messages at for this request, if any.
fn log_threshold(
    shared: &Shared,
    ctx: &CallCtx,
    req_meta: Option<&Map<String, Value>>,
) -> Option<usize> {
    let level = match ctx.rev {
        // The 2026-07-28 logging page: "The server MUST NOT emit notifications/message for a
        // request that does not include this field."
        Protocol::V2026_07_28 => req_meta
            .and_then(|m| m.get(meta::LOG_LEVEL))
            .and_then(Value::as_str)
            .map(str::to_string),
        // 2025-11-25: the session's logging/setLevel, info until the client sets one.
        Protocol::V2025_11_25 => Some(
            ctx.session
                .as_deref()
                .and_then(|sid| {
                    shared
                        .sessions
                        .lock()
                        .expect("sessions lock")
                        .get(sid)
                        .and_then(|s| s.log_level.clone())
                })
                .unwrap_or_else(|| "info".into()),
        ),
    }?;
    LOG_LEVELS.iter().position(|l| *l == level)
}

fn logging_stream(
    shared: &Arc<Shared>,
    ctx: &CallCtx,
    name: &'static str,
    threshold: Option<usize>,
) -> Reply {
    let result = tools::text_result("Logging test finished: 3 steps done", false);
    let info = 1;
    if threshold.is_none_or(|t| t > info) {
        thread::sleep(STEP * 2);
        return complete(shared, ctx.rev, &ctx.id, result);
    }
    let log = |text: &str| {
        SseStep::Message(json!({
            "jsonrpc": "2.0",
            "method": "notifications/message",
            "params": {"level": "info", "logger": name, "data": text}
        }))
    };
    Reply::Sse(SsePlan {
        headers: Vec::new(),
        priming_id: priming(shared, ctx.rev),
        steps: vec![
            log("Tool execution started"),
            SseStep::Pause(STEP),
            log("Tool processing data"),
            SseStep::Pause(STEP),
            log("Tool execution completed"),
            SseStep::Message(result_msg(&ctx.id, decorate(ctx.rev, result))),
        ],
        end: SseEnd::Finish,
    })
}
