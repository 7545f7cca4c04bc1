//! What the probe answers when a server asks the client something: a server request on a
//! 2025-11-25 stream answered with a POSTed response, and the client capabilities the answers
//! file can back.

use serde_json::{Map, Value, json};

use super::http::{Outgoing, Transport};
use super::report::HttpStep;
use crate::vocab::protocol::code::METHOD_NOT_FOUND;

/// Answers a server request that arrived on a 2025-11-25 response stream with a POSTed
/// JSON-RPC response: a `ping` with an empty result, others from the answers file, or an
/// error response when there is none. Returns how it was answered, for the report, and the
/// HTTP step of the answer; `None` when `msg` is not a request.
pub(super) fn answer_server_request(
    t: &Transport,
    headers: &[(String, String)],
    answers: &Map<String, Value>,
    msg: &Value,
) -> Option<(String, HttpStep)> {
    let (Some(id), Some(method)) = (msg.get("id"), msg.get("method").and_then(Value::as_str))
    else {
        return None;
    };
    let key = match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let (reply, how) = if method == "ping" {
        (
            json!({"jsonrpc": "2.0", "id": id, "result": {}}),
            "empty result".to_string(),
        )
    } else if let Some(a) = answer_for(answers, &key, Some(method)) {
        (
            json!({"jsonrpc": "2.0", "id": id, "result": a}),
            "answer from the answers file".to_string(),
        )
    } else {
        (
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": METHOD_NOT_FOUND, "message": format!("mcp-verdict probe has no answer for {method} (pass --answers)")}}),
            format!("error response {METHOD_NOT_FOUND} (no answer in --answers)"),
        )
    };
    let rb = serde_json::to_vec(&reply).expect("JSON serializes");
    let out = Outgoing {
        method: "POST",
        headers,
        body: Some(&rb),
        rpc_id: None,
    };
    let res = t.send(&out, &mut |_| {});
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
        redirect: res.as_ref().ok().and_then(super::http::Received::redirect),
        note,
    };
    Some((line, step))
}

/// Client capabilities the answers file can satisfy: a method key names the capability
/// directly; an input-request key is recognised by the shape of its answer (`action` →
/// elicitation, `roots` → roots, `role` + `content` → sampling).
pub(super) fn capabilities_for(answers: &Map<String, Value>) -> Value {
    let mut caps = Map::new();
    for (key, answer) in answers {
        let cap = match key.as_str() {
            "elicitation/create" => Some("elicitation"),
            "sampling/createMessage" => Some("sampling"),
            "roots/list" => Some("roots"),
            _ => {
                if answer.get("action").is_some() {
                    Some("elicitation")
                } else if answer.get("roots").is_some() {
                    Some("roots")
                } else if answer.get("role").is_some() && answer.get("content").is_some() {
                    Some("sampling")
                } else {
                    None
                }
            }
        };
        match cap {
            Some("elicitation") => {
                caps.insert("elicitation".into(), json!({"form": {}}));
            }
            Some(c) => {
                caps.insert(c.into(), json!({}));
            }
            None => {}
        }
    }
    Value::Object(caps)
}

/// The answer for an input request: by its key first, then by its method.
pub(super) fn answer_for<'a>(
    answers: &'a Map<String, Value>,
    key: &str,
    method: Option<&str>,
) -> Option<&'a Value> {
    answers
        .get(key)
        .or_else(|| method.and_then(|m| answers.get(m)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capabilities_come_from_answers() {
        let answers: Map<String, Value> = serde_json::from_value(json!({
            "confirm": {"action": "accept", "content": {"confirm": true}},
            "roots/list": {"roots": []}
        }))
        .unwrap();
        assert_eq!(
            capabilities_for(&answers),
            json!({"elicitation": {"form": {}}, "roots": {}})
        );
        assert_eq!(
            answer_for(&answers, "x", Some("roots/list")),
            Some(&json!({"roots": []}))
        );
        assert_eq!(answer_for(&answers, "x", Some("ping")), None);
    }
}
