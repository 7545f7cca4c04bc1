//! Fault injection: the scenarios that act on every POST (`http_status_sequence`,
//! `rate_limited`) and the ones that replace the response to a `tools/call` the server would
//! otherwise answer with a result. Which scenario is in force is configuration
//! ([`Scenario`]); this module turns it into bytes to send.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};

use super::call::CallCtx;
use super::reply::{
    Reply, SseEnd, SsePlan, SseStep, accepted, decorate, deliver, error_msg, json_reply, priming,
    progress_msg, result_msg, text_reply,
};
use super::scenario::Scenario;
use super::shared::Shared;
use super::tools;
use crate::vocab::Protocol;
use crate::vocab::http::{JSON, TEXT_PLAIN, reason_phrase};

/// The refusal a per-POST scenario sends instead of serving the `post_no`-th POST, if any.
pub(crate) fn per_post(scenario: &Scenario, post_no: u64) -> Option<Reply> {
    match scenario {
        Scenario::HttpStatusSequence(seq) => {
            if let Some(&status) = seq.get((post_no - 1) as usize)
                && !(200..300).contains(&status)
            {
                let text = format!(
                    "HTTP {status} {} injected by mcp-verdict scenario http_status_sequence (POST #{post_no})\n",
                    reason_phrase(status)
                );
                return Some(text_reply(status, text, Vec::new(), false));
            }
            None
        }
        Scenario::RateLimited { n, retry_after } if post_no <= *n => {
            let text = format!(
                "429 Too Many Requests injected by mcp-verdict scenario rate_limited (POST #{post_no} of the first {n}); retry after {retry_after} s\n"
            );
            let headers = vec![("Retry-After".into(), retry_after.to_string())];
            Some(text_reply(429, text, headers, false))
        }
        _ => None,
    }
}

/// Whether the scenario replaces the response to a `tools/call` that would carry a result.
pub(crate) fn replaces_response(scenario: &Scenario) -> bool {
    !matches!(
        scenario,
        Scenario::Baseline
            | Scenario::BaselineConformance
            | Scenario::HttpStatusSequence(_)
            | Scenario::RateLimited { .. }
            | Scenario::InputRequired
            | Scenario::Lenient(_)
            // What the stdio binding writes is its own to spoil (`stdio`).
            | Scenario::Stdio(_)
            | Scenario::Auth(_)
    )
}

/// Applies a response-replacing fault to `final_msg` (the response the server
/// would have sent).
pub(crate) fn inject(
    shared: &Arc<Shared>,
    ctx: &CallCtx,
    scenario: &Scenario,
    mut final_msg: Value,
    progress_token: Option<Value>,
) -> Reply {
    let id = &ctx.id;
    let rev = ctx.rev;
    // The stream faults report progress only on a token the client gave (a made-up token
    // would be a second fault, `transport.sse.progress`); `sse_progress` makes one up, as its
    // row says.
    let progress = |n: u64| -> Vec<SseStep> {
        progress_token
            .as_ref()
            .map(|t| {
                (1..=n)
                    .map(|i| SseStep::Message(progress_msg(t, i, 3)))
                    .collect()
            })
            .unwrap_or_default()
    };
    let token = progress_token.clone().unwrap_or_else(|| {
        let id_text = match id {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        json!(format!("mcp-verdict-progress-{id_text}"))
    });
    let sse = |priming_id: Option<String>, steps: Vec<SseStep>, end: SseEnd| {
        Reply::Sse(SsePlan {
            headers: Vec::new(),
            priming_id,
            steps,
            end,
        })
    };
    match scenario {
        Scenario::JsonRpcError(code) => {
            let m = error_msg(
                Some(id),
                *code,
                "Injected JSON-RPC error (mcp-verdict scenario jsonrpc_error)",
                None,
            );
            deliver(shared, rev, 200, m, Vec::new())
        }
        Scenario::ToolError => {
            let m = tools::text_result(
                "Injected tool execution error (mcp-verdict scenario tool_error): the tool failed",
                true,
            );
            deliver(
                shared,
                rev,
                200,
                result_msg(id, decorate(rev, m)),
                Vec::new(),
            )
        }
        Scenario::LegacyResult => {
            if let Some(r) = final_msg.get_mut("result").and_then(Value::as_object_mut) {
                r.remove("resultType");
            }
            deliver(shared, rev, 200, final_msg, Vec::new())
        }
        Scenario::InvalidResult => {
            if let Some(r) = final_msg.get_mut("result").and_then(Value::as_object_mut) {
                r.insert("content".into(), json!("not-an-array"));
            }
            deliver(shared, rev, 200, final_msg, Vec::new())
        }
        Scenario::WrongId => {
            let wrong = if *id == json!(99999) { 99998 } else { 99999 };
            final_msg["id"] = json!(wrong);
            deliver(shared, rev, 200, final_msg, Vec::new())
        }
        Scenario::MalformedJson => Reply::Full {
            status: 200,
            content_type: Some(JSON.into()),
            headers: Vec::new(),
            body: b"{unclosed".to_vec(),
            close: false,
            final_response: false,
            message: None,
        },
        Scenario::Non2xxValidBody(status) => json_reply(*status, final_msg, Vec::new()),
        Scenario::HtmlErrorPage(status) => {
            let title = format!("{status} {}", reason_phrase(*status));
            let page = format!(
                "<!DOCTYPE html>\n<html><head><title>{title}</title></head>\n<body><h1>{title}</h1>\n\
                 <p>The upstream MCP server did not answer. (Injected by mcp-verdict scenario html_error_page.)</p>\n\
                 <hr><address>gateway/1.0</address></body></html>\n"
            );
            Reply::Full {
                status: *status,
                content_type: Some("text/html; charset=utf-8".into()),
                headers: Vec::new(),
                body: page.into_bytes(),
                close: false,
                final_response: false,
                message: None,
            }
        }
        Scenario::WrongContentType => Reply::Full {
            status: 200,
            content_type: Some(TEXT_PLAIN.into()),
            headers: Vec::new(),
            body: final_msg.to_string().into_bytes(),
            close: false,
            final_response: true,
            message: Some(final_msg),
        },
        Scenario::AcceptedNoBody => accepted(),
        Scenario::SseProgress => {
            let mut steps: Vec<SseStep> = (1..=3)
                .map(|i| SseStep::Message(progress_msg(&token, i, 3)))
                .collect();
            steps.push(SseStep::Message(final_msg));
            sse(priming(shared, rev), steps, SseEnd::Finish)
        }
        Scenario::SseCloseEarly => sse(None, progress(3), SseEnd::FinishAndClose),
        Scenario::SseReset => sse(
            None,
            progress(1),
            SseEnd::ResetMidEvent(final_msg.to_string()),
        ),
        Scenario::SseStall(secs) => {
            let limit = secs
                .map(Duration::from_secs)
                .unwrap_or(shared.config.stall_cap);
            sse(None, progress(1), SseEnd::Stall(limit))
        }
        Scenario::SseMalformedEvent => sse(
            None,
            vec![SseStep::RawData("{unclosed".into())],
            SseEnd::FinishAndClose,
        ),
        Scenario::ServerRequestOnStream => {
            let declared_roots = ctx.caps.get("roots").is_some_and(Value::is_object);
            let method = match rev {
                Protocol::V2025_11_25 if !declared_roots => "ping",
                _ => "roots/list",
            };
            let request = json!({
                "jsonrpc": "2.0",
                "id": format!("mcp-verdict-srv-{}", shared.next_serial()),
                "method": method,
            });
            sse(
                priming(shared, rev),
                vec![SseStep::Message(request), SseStep::Message(final_msg)],
                SseEnd::Finish,
            )
        }
        Scenario::Baseline
        | Scenario::BaselineConformance
        | Scenario::HttpStatusSequence(_)
        | Scenario::RateLimited { .. }
        | Scenario::InputRequired
        | Scenario::Lenient(_)
        | Scenario::Stdio(_)
        | Scenario::Auth(_) => deliver(shared, rev, 200, final_msg, Vec::new()),
    }
}
