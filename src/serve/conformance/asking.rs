//! What the fixtures that need the client ask for (sampling, elicitation, roots), stage by
//! stage, and how an answer is read and checked.

use serde_json::{Map, Value, json};

use crate::serve::tools;

/// One request for input: its key in `inputRequests`, method and params.
pub(super) struct Ask {
    pub(super) key: &'static str,
    pub(super) method: &'static str,
    pub(super) params: Value,
}

const ELICIT: &str = "elicitation/create";
const SAMPLE: &str = "sampling/createMessage";
const ROOTS: &str = "roots/list";

fn elicit(key: &'static str, message: &str, schema: Value) -> Ask {
    Ask {
        key,
        method: ELICIT,
        params: json!({"mode": "form", "message": message, "requestedSchema": schema}),
    }
}

pub(super) fn sample(key: &'static str, prompt: &str, max_tokens: u64) -> Ask {
    Ask {
        key,
        method: SAMPLE,
        params: json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
            "maxTokens": max_tokens
        }),
    }
}

pub(super) fn roots() -> Ask {
    Ask {
        key: "client_roots",
        method: ROOTS,
        params: json!({}),
    }
}

fn one_string_form(field: &str) -> Value {
    json!({"type": "object", "properties": {field: {"type": "string"}}, "required": [field]})
}

/// The capability a client must declare for a server request of this method.
pub(super) fn capability_of(method: &str) -> &'static str {
    match method {
        ELICIT => "elicitation",
        SAMPLE => "sampling",
        _ => "roots",
    }
}

/// Whether the client's capabilities allow a request of this method.
pub(super) fn client_allows(caps: &Value, method: &str) -> bool {
    match method {
        // Form mode: an empty elicitation object means form (2025-11-25 elicitation page).
        ELICIT => match caps.get("elicitation") {
            Some(Value::Object(e)) => e.is_empty() || e.contains_key("form"),
            _ => false,
        },
        other => caps.get(capability_of(other)).is_some_and(Value::is_object),
    }
}

/// Fixtures whose rounds are tied together by a sealed `requestState`.
pub(super) fn is_stateful(name: &str) -> bool {
    matches!(
        name,
        "test_input_required_result_request_state"
            | "test_input_required_result_tampered_state"
            | "test_input_required_result_multiple_inputs"
            | "test_input_required_result_multi_round"
    )
}

/// The stage of a multi-round request (1 when it starts).
pub(super) fn stage(data: &Value) -> u64 {
    data["stage"].as_u64().unwrap_or(1)
}

/// What the fixture asks for at this stage (`data`: what the sealed state carries).
pub(super) fn asks(name: &str, args: &Value, data: &Value, caps: &Value) -> Vec<Ask> {
    let confirm_form = json!({
        "type": "object",
        "properties": {"ok": {"type": "boolean"}},
        "required": ["ok"]
    });
    match name {
        "test_sampling" => vec![sample(
            "llm_answer",
            args["prompt"].as_str().unwrap_or_default(),
            100,
        )],
        "test_elicitation" => vec![elicit(
            "user_input",
            args["message"].as_str().unwrap_or_default(),
            json!({
                "type": "object",
                "properties": {
                    "username": {"type": "string", "description": "User's response"},
                    "email": {"type": "string", "description": "User's email address"}
                },
                "required": ["username", "email"]
            }),
        )],
        "test_elicitation_sep1034_defaults" => vec![elicit(
            "user_input",
            "Please review and update the form fields with defaults",
            json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "User name", "default": "John Doe"},
                    "age": {"type": "integer", "description": "User age", "default": 30},
                    "score": {"type": "number", "description": "User score", "default": 95.5},
                    "status": {
                        "type": "string",
                        "description": "User status",
                        "enum": ["active", "inactive", "pending"],
                        "default": "active"
                    },
                    "verified": {"type": "boolean", "description": "Verification status", "default": true}
                },
                "required": []
            }),
        )],
        "test_elicitation_sep1330_enums" => vec![elicit(
            "user_input",
            "Please pick from each kind of choice",
            json!({
                "type": "object",
                "properties": {
                    "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
                    "titledSingle": {"type": "string", "oneOf": [
                        {"const": "value1", "title": "First Option"},
                        {"const": "value2", "title": "Second Option"},
                        {"const": "value3", "title": "Third Option"}
                    ]},
                    "legacyEnum": {
                        "type": "string",
                        "enum": ["opt1", "opt2", "opt3"],
                        "enumNames": ["Option One", "Option Two", "Option Three"]
                    },
                    "untitledMulti": {
                        "type": "array",
                        "items": {"type": "string", "enum": ["option1", "option2", "option3"]}
                    },
                    "titledMulti": {
                        "type": "array",
                        "items": {"anyOf": [
                            {"const": "value1", "title": "First Choice"},
                            {"const": "value2", "title": "Second Choice"},
                            {"const": "value3", "title": "Third Choice"}
                        ]}
                    }
                },
                "required": []
            }),
        )],
        "test_missing_capability" => vec![sample("llm_answer", "Say hello in one word.", 20)],
        "test_streaming_elicitation" => vec![elicit(
            "user_name",
            "What is your name?",
            one_string_form("name"),
        )],
        "test_input_required_result_elicitation" => vec![elicit(
            "user_name",
            "What is your name?",
            one_string_form("name"),
        )],
        "test_input_required_result_sampling" => vec![sample(
            "capital_question",
            "What is the capital of France?",
            100,
        )],
        "test_input_required_result_list_roots" => vec![roots()],
        "test_input_required_result_request_state"
        | "test_input_required_result_tampered_state" => {
            vec![elicit("confirm", "Please confirm", confirm_form)]
        }
        "test_input_required_result_multiple_inputs" => vec![
            elicit("user_name", "What is your name?", one_string_form("name")),
            sample("greeting", "Generate a greeting", 50),
            roots(),
        ],
        "test_input_required_result_multi_round" => match stage(data) {
            1 => vec![elicit(
                "step1",
                "Step 1: What is your name?",
                one_string_form("name"),
            )],
            _ => vec![elicit(
                "step2",
                "Step 2: What is your favorite color?",
                one_string_form("color"),
            )],
        },
        "test_input_required_result_capabilities" => [
            elicit("user_name", "What is your name?", one_string_form("name")),
            sample("greeting", "Generate a greeting", 50),
            roots(),
        ]
        .into_iter()
        .filter(|a| client_allows(caps, a.method))
        .collect(),
        "prompt:test_input_required_result_prompt" => vec![elicit(
            "user_context",
            "What context should the prompt use?",
            one_string_form("context"),
        )],
        _ => Vec::new(),
    }
}

/// Checks that an answer has the shape of the result its request asks for.
pub(super) fn check_answer(method: &str, answer: &Value) -> Result<(), String> {
    let ok = match method {
        ELICIT => answer
            .get("action")
            .and_then(Value::as_str)
            .is_some_and(|a| matches!(a, "accept" | "decline" | "cancel")),
        SAMPLE => answer
            .get("content")
            .is_some_and(|c| c.is_object() || c.is_array()),
        _ => answer.get("roots").is_some_and(Value::is_array),
    };
    if ok {
        Ok(())
    } else {
        Err(match method {
            ELICIT => "an ElicitResult (action accept, decline or cancel)",
            SAMPLE => "a CreateMessageResult (with content)",
            _ => "a ListRootsResult (with a roots array)",
        }
        .to_string())
    }
}

/// The text of a CreateMessageResult (content block or array of blocks).
fn sampled_text(answer: &Value) -> String {
    let content = &answer["content"];
    let blocks: Vec<&Value> = match content {
        Value::Array(a) => a.iter().collect(),
        other => vec![other],
    };
    blocks
        .iter()
        .filter_map(|b| b.get("text").and_then(Value::as_str))
        .collect::<Vec<_>>()
        .join(" ")
}

fn elicited(answer: &Value) -> String {
    format!(
        "action={}, content={}",
        answer["action"].as_str().unwrap_or("?"),
        answer.get("content").cloned().unwrap_or_else(|| json!({}))
    )
}

fn accepted_field<'a>(answer: &'a Value, field: &str) -> Option<&'a str> {
    if answer["action"] != "accept" {
        return None;
    }
    answer["content"][field].as_str()
}

fn root_list(answer: &Value) -> String {
    let uris: Vec<&str> = answer["roots"]
        .as_array()
        .map(|a| a.iter().filter_map(|r| r["uri"].as_str()).collect())
        .unwrap_or_default();
    format!("{} root(s): {}", uris.len(), uris.join(", "))
}

/// What follows a stage once every request of it has an answer.
pub(super) enum Next {
    /// The request is complete with this result.
    Done(Map<String, Value>),
    /// Another round: this data goes into the new sealed state.
    Round(Value),
}

pub(super) fn text(t: String) -> Next {
    Next::Done(tools::text_result(t, false))
}

pub(super) fn advance(name: &str, data: &Value, answers: &Map<String, Value>) -> Next {
    let a = |k: &str| answers.get(k).cloned().unwrap_or(Value::Null);
    match name {
        "test_sampling" => text(format!("LLM response: {}", sampled_text(&a("llm_answer")))),
        "test_missing_capability" => text(format!("Sampled: {}", sampled_text(&a("llm_answer")))),
        "test_elicitation" => text(format!("User response: {}", elicited(&a("user_input")))),
        "test_elicitation_sep1034_defaults" | "test_elicitation_sep1330_enums" => text(format!(
            "Elicitation completed: {}",
            elicited(&a("user_input"))
        )),
        "test_streaming_elicitation" | "test_input_required_result_elicitation" => {
            let answer = a("user_name");
            match accepted_field(&answer, "name") {
                Some(n) => text(format!("Hello, {n}!")),
                None => text(format!("No name given ({})", elicited(&answer))),
            }
        }
        "test_input_required_result_sampling" => text(format!(
            "The client's model answered: {}",
            sampled_text(&a("capital_question"))
        )),
        "test_input_required_result_list_roots" => {
            text(format!("The client has {}", root_list(&a("client_roots"))))
        }
        "test_input_required_result_request_state"
        | "test_input_required_result_tampered_state" => text(format!(
            "state-ok: the requestState passed its integrity check; {}",
            elicited(&a("confirm"))
        )),
        "test_input_required_result_multiple_inputs" => text(format!(
            "Got all three inputs: name {}; greeting {}; {}",
            accepted_field(&a("user_name"), "name").unwrap_or("(none)"),
            sampled_text(&a("greeting")),
            root_list(&a("client_roots"))
        )),
        "test_input_required_result_multi_round" => match stage(data) {
            1 => Next::Round(json!({
                "stage": 2,
                "name": accepted_field(&a("step1"), "name").unwrap_or("(none)")
            })),
            _ => text(format!(
                "{}'s favorite color is {}",
                data["name"].as_str().unwrap_or("(none)"),
                accepted_field(&a("step2"), "color").unwrap_or("(none)")
            )),
        },
        "test_input_required_result_capabilities" => {
            let got: Vec<String> = answers.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            text(format!("Inputs received: {}", got.join("; ")))
        }
        "prompt:test_input_required_result_prompt" => {
            let context = accepted_field(&a("user_context"), "context")
                .unwrap_or("(none)")
                .to_string();
            Next::Done(Map::from_iter([
                (
                    "description".to_string(),
                    json!("A prompt built from context the user gave"),
                ),
                (
                    "messages".into(),
                    json!([{"role": "user", "content": {"type": "text", "text": format!("Answer using this context: {context}")}}]),
                ),
            ]))
        }
        other => Next::Done(tools::text_result(format!("Unknown fixture {other}"), true)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds() {
        let caps = json!({"sampling": {}});
        let only_sampling = asks(
            "test_input_required_result_capabilities",
            &json!({}),
            &Value::Null,
            &caps,
        );
        assert_eq!(only_sampling.len(), 1);
        assert_eq!(only_sampling[0].method, SAMPLE);
        let answers = Map::from_iter([(
            "step1".to_string(),
            json!({"action": "accept", "content": {"name": "Ada"}}),
        )]);
        let Next::Round(data) = advance(
            "test_input_required_result_multi_round",
            &json!({"stage": 1}),
            &answers,
        ) else {
            panic!("round 1 leads to round 2");
        };
        assert_eq!(data, json!({"stage": 2, "name": "Ada"}));
        assert!(check_answer(ELICIT, &json!(12345)).is_err());
        assert!(check_answer(ROOTS, &json!({"roots": []})).is_ok());
    }
}
