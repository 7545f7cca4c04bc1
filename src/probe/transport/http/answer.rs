//! Answers to server requests, POSTed: the client logic decides what to answer (see
//! `Responder`); over HTTP the answer is a JSON-RPC response POSTed to the endpoint, which
//! the server acknowledges with `202 Accepted`.

use serde_json::Value;

use super::client::{Client, Outgoing, Received};
use crate::probe::transport::HttpStep;

/// POSTs the client's answer to a server request that arrived on a stream. Returns how it
/// was answered, for the report, and the HTTP step of the answer.
pub(super) fn post_answer(
    client: &Client,
    headers: &[(String, String)],
    msg: &Value,
    response: &Value,
    how: &str,
) -> (String, HttpStep) {
    let id = msg.get("id").cloned().unwrap_or(Value::Null);
    let method = msg.get("method").and_then(Value::as_str).unwrap_or("?");
    let rb = serde_json::to_vec(response).expect("JSON serializes");
    let out = Outgoing {
        method: "POST",
        headers,
        body: Some(&rb),
        rpc_id: None,
        cancel: None,
        on_head: None,
    };
    let res = client.send(&out, &mut |_| {});
    let (status, end, note) = match &res {
        Ok(r) => (
            Some(r.status),
            Some(r.end),
            (r.status != 202).then(|| {
                format!(
                    "expected 202 Accepted for a JSON-RPC response, got {}",
                    r.status
                )
            }),
        ),
        Err(e) => (None, None, Some(e.to_string())),
    };
    let line = format!(
        "{method} (id {id}) answered with {how}: {}",
        status.map_or_else(|| "no response".to_string(), |s| format!("HTTP {s}"))
    );
    let step = HttpStep {
        post: None,
        http_method: "POST".into(),
        rpc_method: Some(format!("response to {method}")),
        tool: None,
        status,
        end,
        stopped: res.as_ref().ok().and_then(|r| r.stop),
        redirect: res.as_ref().ok().and_then(Received::redirect),
        note,
        lines: None,
    };
    (line, step)
}
