//! What the probe answers when a server asks the client something (the transport delivers
//! it: a POSTed response, a line on the server's stdin), and the client capabilities the
//! answers file can back.

use serde_json::{Map, Value, json};

use super::transport::{Reply, Responder};
use crate::views::diag::sanitize;
use crate::vocab::Protocol;
use crate::vocab::protocol::code::{INVALID_PARAMS, METHOD_NOT_FOUND};

/// The run's answers to server requests: under 2025-11-25 a `ping` gets an empty result and
/// others an answer from the answers file, or an error response when there is none; under
/// 2026-07-28, which has no server requests on a response stream, none is answered.
pub(super) struct Answers {
    pub(super) p: Protocol,
    pub(super) answers: Map<String, Value>,
}

impl Responder for Answers {
    fn reply(&self, msg: &Value) -> Option<Reply> {
        let (Some(id), Some(method)) = (msg.get("id"), msg.get("method").and_then(Value::as_str))
        else {
            return None;
        };
        Some(match self.p {
            Protocol::V2025_11_25 => {
                let (response, how) = reply_to(&self.answers, id, method, msg);
                Reply::Answer { response, how }
            }
            Protocol::V2026_07_28 => Reply::Decline(format!(
                "{} (id {id}) not answered: {} has no server requests on a response stream",
                sanitize(method),
                Protocol::V2026_07_28
            )),
        })
    }
}

/// The JSON-RPC response to a server request and how it was answered: a `ping` with an empty
/// result; an `elicitation/create` in a mode the client did not declare with -32602, as the
/// 2025-11-25 elicitation page requires ("Server sends an `elicitation/create` request with a
/// mode not declared in client capabilities: `-32602` (Invalid params)"); others from the
/// answers file, or -32601 when it has none.
fn reply_to(
    answers: &Map<String, Value>,
    id: &Value,
    method: &str,
    msg: &Value,
) -> (Value, String) {
    let key = match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if method == "ping" {
        return (
            json!({"jsonrpc": "2.0", "id": id, "result": {}}),
            "empty result".to_string(),
        );
    }
    if method == "elicitation/create" {
        // A request without `mode` is a form request (2025-11-25 schema, ElicitRequestFormParams).
        let mode = msg
            .pointer("/params/mode")
            .and_then(Value::as_str)
            .unwrap_or("form");
        let declared = capabilities_for(answers)
            .get("elicitation")
            .is_some_and(|e| e.get(mode).is_some());
        if !declared {
            return (
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": INVALID_PARAMS, "message": format!("elicitation mode {mode:?} is not declared in the client capabilities")}}),
                format!("error response {INVALID_PARAMS} (elicitation mode {mode:?} not declared)"),
            );
        }
    }
    match answer_for(answers, &key, Some(method)) {
        Some(a) => (
            json!({"jsonrpc": "2.0", "id": id, "result": with_defaults(a, Some(method), msg.get("params"))}),
            "answer from the answers file".to_string(),
        ),
        None => (
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": METHOD_NOT_FOUND, "message": format!("mcp-verdict probe has no answer for {method} (pass --answers)")}}),
            format!("error response {METHOD_NOT_FOUND} (no answer in --answers)"),
        ),
    }
}

/// An answer with the requested schema's defaults filled in: for an accepted form-mode
/// `elicitation/create`, each property of `requestedSchema` that has a `default` and is
/// missing from the answer's `content` gets that default. Other answers are returned as they
/// are.
///
/// 2025-11-25 client/elicitation, Requested Schema: "All primitive types support optional
/// default values to provide sensible starting points. Clients that support defaults
/// **SHOULD** pre-populate form fields with these values." The probe has no form: the
/// answers file is what the user filled in, and a field it leaves out keeps its default.
pub(super) fn with_defaults(answer: &Value, method: Option<&str>, params: Option<&Value>) -> Value {
    let mut out = answer.clone();
    if method != Some("elicitation/create")
        || answer.get("action").and_then(Value::as_str) != Some("accept")
    {
        return out;
    }
    let Some(params) = params else { return out };
    if params.get("mode").and_then(Value::as_str).unwrap_or("form") != "form" {
        return out;
    }
    let Some(props) = params
        .pointer("/requestedSchema/properties")
        .and_then(Value::as_object)
    else {
        return out;
    };
    let Some(obj) = out.as_object_mut() else {
        return out;
    };
    let content = obj
        .entry("content")
        .or_insert_with(|| Value::Object(Map::new()));
    let Some(content) = content.as_object_mut() else {
        return out;
    };
    for (name, prop) in props {
        if let Some(d) = prop.get("default")
            && !content.contains_key(name)
        {
            content.insert(name.clone(), d.clone());
        }
    }
    out
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

    #[test]
    fn accepted_forms_keep_their_defaults() {
        let params = json!({"message": "m", "requestedSchema": {"type": "object", "properties": {
            "name": {"type": "string", "default": "John Doe"},
            "age": {"type": "integer", "default": 30},
            "color": {"type": "string"}
        }}});
        let accept = json!({"action": "accept", "content": {"age": 41}});
        assert_eq!(
            with_defaults(&accept, Some("elicitation/create"), Some(&params)),
            json!({"action": "accept", "content": {"age": 41, "name": "John Doe"}})
        );
        let bare = json!({"action": "accept"});
        assert_eq!(
            with_defaults(&bare, Some("elicitation/create"), Some(&params))["content"],
            json!({"age": 30, "name": "John Doe"})
        );
        let decline = json!({"action": "decline"});
        assert_eq!(
            with_defaults(&decline, Some("elicitation/create"), Some(&params)),
            decline
        );
        let odd = json!({"action": "accept", "content": "text"});
        assert_eq!(
            with_defaults(&odd, Some("elicitation/create"), Some(&params)),
            odd
        );
        assert_eq!(
            with_defaults(&accept, Some("roots/list"), Some(&params)),
            accept
        );
        let url = json!({"mode": "url", "requestedSchema": params["requestedSchema"].clone()});
        assert_eq!(
            with_defaults(&accept, Some("elicitation/create"), Some(&url)),
            accept
        );
    }

    #[test]
    fn server_requests_get_the_codes_the_spec_gives() {
        let code = |answers: Value, method: &str, params: Value| {
            let answers: Map<String, Value> = serde_json::from_value(answers).unwrap();
            let msg = json!({"jsonrpc": "2.0", "id": 9, "method": method, "params": params});
            let (reply, _) = reply_to(&answers, &json!(9), method, &msg);
            assert_eq!(reply["id"], 9);
            reply.pointer("/error/code").and_then(Value::as_i64)
        };
        let form = json!({"message": "m", "requestedSchema": {"type": "object", "properties": {}}});
        let url = json!({"mode": "url", "message": "m", "url": "https://example.com", "elicitationId": "e"});
        let accept = json!({"elicitation/create": {"action": "accept", "content": {}}});
        // No elicitation declared: either mode is invalid params.
        assert_eq!(
            code(json!({}), "elicitation/create", form.clone()),
            Some(INVALID_PARAMS)
        );
        assert_eq!(
            code(json!({}), "elicitation/create", url.clone()),
            Some(INVALID_PARAMS)
        );
        // Form declared (an answer backs it): a form request is answered, a URL request is not
        // a declared mode.
        assert_eq!(code(accept.clone(), "elicitation/create", form), None);
        assert_eq!(
            code(accept, "elicitation/create", url),
            Some(INVALID_PARAMS)
        );
        // An unknown method, and a method the answers file does not cover.
        assert_eq!(
            code(json!({}), "roots/list", json!({})),
            Some(METHOD_NOT_FOUND)
        );
        assert_eq!(
            code(json!({}), "x/unknown", json!({})),
            Some(METHOD_NOT_FOUND)
        );
        assert_eq!(code(json!({}), "ping", json!({})), None);
    }
}
