//! The fixture methods besides tools: prompts, resources and templates, completions, logging.

use serde_json::{Map, Value, json};

use super::content::PNG_1X1_RED;
use super::content::{complete, image_block, text_block};
use super::rounds::{invalid_params, mrtr};
use super::{LOG_LEVELS, TTL_MS};
use crate::serve::reply::{Reply, error_msg, json_reply};
use crate::serve::shared::Shared;
use crate::vocab::Protocol;
use crate::vocab::protocol::code;

/// The request a fixture method answers.
pub(crate) struct MethodCtx<'a> {
    pub rev: Protocol,
    pub id: &'a Value,
    pub params: Option<&'a Map<String, Value>>,
    /// Client capabilities (per request in 2026-07-28, per session in 2025-11-25).
    pub caps: &'a Value,
    /// 2025-11-25 session id.
    pub session: Option<&'a str>,
}

impl MethodCtx<'_> {
    fn param(&self, key: &str) -> Option<&Value> {
        self.params.and_then(|p| p.get(key))
    }
}

const PROMPT_NAMES: [&str; 5] = [
    "test_simple_prompt",
    "test_prompt_with_arguments",
    "test_prompt_with_embedded_resource",
    "test_prompt_with_image",
    "test_input_required_result_prompt",
];

fn prompt_list(rev: Protocol) -> Value {
    let arg = |name: &str, description: &str| json!({"name": name, "description": description, "required": true});
    let mut list = vec![
        json!({"name": "test_simple_prompt", "description": "A prompt without arguments"}),
        json!({
            "name": "test_prompt_with_arguments",
            "description": "A prompt with two required arguments",
            "arguments": [arg("arg1", "First test argument"), arg("arg2", "Second test argument")]
        }),
        json!({
            "name": "test_prompt_with_embedded_resource",
            "description": "A prompt embedding the resource named by resourceUri",
            "arguments": [arg("resourceUri", "URI of the resource to embed")]
        }),
        json!({"name": "test_prompt_with_image", "description": "A prompt holding an image"}),
    ];
    if rev == Protocol::V2026_07_28 {
        list.push(json!({
            "name": "test_input_required_result_prompt",
            "description": "A prompt that first asks the user for context (input_required)"
        }));
    }
    Value::Array(list)
}

const STATIC_TEXT: &str = "test://static-text";
const STATIC_BINARY: &str = "test://static-binary";
const WATCHED: &str = "test://watched-resource";
const TEMPLATE: &str = "test://template/{id}/data";

fn resource_list() -> Value {
    json!([
        {"uri": STATIC_TEXT, "name": "static-text", "description": "A static text resource", "mimeType": "text/plain"},
        {"uri": STATIC_BINARY, "name": "static-binary", "description": "A static binary resource (a 1x1 PNG)", "mimeType": "image/png"},
        {"uri": WATCHED, "name": "watched-resource", "description": "A text resource clients may subscribe to", "mimeType": "text/plain"}
    ])
}

fn template_list() -> Value {
    json!([{
        "uriTemplate": TEMPLATE,
        "name": "template-data",
        "description": "JSON data for the given id",
        "mimeType": "application/json"
    }])
}

/// The `id` of a URI that matches the template.
pub(super) fn template_id(uri: &str) -> Option<&str> {
    let id = uri
        .strip_prefix("test://template/")?
        .strip_suffix("/data")?;
    (!id.is_empty() && !id.contains('/')).then_some(id)
}

/// The contents of a resource, None when there is no such resource.
pub(super) fn read_resource(uri: &str) -> Option<Value> {
    let content = match uri {
        STATIC_TEXT => json!({
            "uri": uri,
            "mimeType": "text/plain",
            "text": "This is the content of the static text resource."
        }),
        STATIC_BINARY => json!({"uri": uri, "mimeType": "image/png", "blob": PNG_1X1_RED}),
        WATCHED => json!({
            "uri": uri,
            "mimeType": "text/plain",
            "text": "This resource does not change while the server runs."
        }),
        _ => {
            let id = template_id(uri)?;
            json!({
                "uri": uri,
                "mimeType": "application/json",
                "text": json!({"id": id, "templateTest": true, "data": format!("Data for ID: {id}")}).to_string()
            })
        }
    };
    Some(json!([content]))
}

/// Answers a fixture method (prompts, resources, completions, logging); None when `method`
/// is not one the fixture set offers under this revision.
pub(crate) fn handle_method(shared: &Shared, ctx: &MethodCtx<'_>, method: &str) -> Option<Reply> {
    shared.fixtures.as_ref()?;
    let legacy = ctx.rev == Protocol::V2025_11_25;
    let (m, cacheable) = match method {
        "prompts/list" => (
            Map::from_iter([("prompts".to_string(), prompt_list(ctx.rev))]),
            true,
        ),
        "prompts/get" => return Some(get_prompt(shared, ctx)),
        "resources/list" => (
            Map::from_iter([("resources".to_string(), resource_list())]),
            true,
        ),
        "resources/templates/list" => (
            Map::from_iter([("resourceTemplates".to_string(), template_list())]),
            true,
        ),
        "resources/read" => {
            let Some(uri) = ctx.param("uri").and_then(Value::as_str) else {
                return Some(invalid_params(
                    ctx.id,
                    "Invalid params: resources/read needs a string uri".into(),
                ));
            };
            let Some(contents) = read_resource(uri) else {
                return Some(resource_not_found(ctx.id, uri));
            };
            (Map::from_iter([("contents".to_string(), contents)]), true)
        }
        "completion/complete" => match complete_argument(ctx) {
            Ok(m) => (m, false),
            Err(why) => return Some(invalid_params(ctx.id, format!("Invalid params: {why}"))),
        },
        // Removed in 2026-07-28: there they stay unknown methods (404, -32601).
        "logging/setLevel" if legacy => {
            let level = ctx.param("level").and_then(Value::as_str);
            let Some(level) = level.filter(|l| LOG_LEVELS.contains(l)) else {
                return Some(invalid_params(
                    ctx.id,
                    format!(
                        "Invalid params: level must be one of {}",
                        LOG_LEVELS.join(", ")
                    ),
                ));
            };
            with_session(shared, ctx, |s| s.log_level = Some(level.to_string()));
            (Map::new(), false)
        }
        "resources/subscribe" | "resources/unsubscribe" if legacy => {
            let Some(uri) = ctx.param("uri").and_then(Value::as_str) else {
                return Some(invalid_params(
                    ctx.id,
                    format!("Invalid params: {method} needs a string uri"),
                ));
            };
            if method == "resources/subscribe" {
                if read_resource(uri).is_none() {
                    return Some(resource_not_found(ctx.id, uri));
                }
                with_session(shared, ctx, |s| {
                    s.subscriptions.insert(uri.to_string());
                });
            } else {
                with_session(shared, ctx, |s| {
                    s.subscriptions.remove(uri);
                });
            }
            (Map::new(), false)
        }
        _ => return None,
    };
    Some(method_result(shared, ctx, m, cacheable))
}

fn with_session(
    shared: &Shared,
    ctx: &MethodCtx<'_>,
    f: impl FnOnce(&mut crate::serve::state::Session),
) {
    if let Some(sid) = ctx.session
        && let Some(s) = shared.sessions.lock().expect("sessions lock").get(sid)
    {
        f(s);
    }
}

/// A complete method result; under 2026-07-28 decorated, with caching hints when cacheable.
fn method_result(
    shared: &Shared,
    ctx: &MethodCtx<'_>,
    mut m: Map<String, Value>,
    cacheable: bool,
) -> Reply {
    if ctx.rev == Protocol::V2026_07_28 && cacheable {
        m.insert("ttlMs".into(), json!(TTL_MS));
        m.insert("cacheScope".into(), json!("public"));
    }
    complete(shared, ctx.rev, ctx.id, m)
}

fn resource_not_found(id: &Value, uri: &str) -> Reply {
    json_reply(
        200,
        error_msg(
            Some(id),
            code::INVALID_PARAMS,
            "Resource not found",
            Some(json!({"uri": uri})),
        ),
        Vec::new(),
    )
}

fn get_prompt(shared: &Shared, ctx: &MethodCtx<'_>) -> Reply {
    let Some(name) = ctx.param("name").and_then(Value::as_str) else {
        return invalid_params(
            ctx.id,
            "Invalid params: prompts/get needs a string name".into(),
        );
    };
    let known = PROMPT_NAMES.contains(&name)
        && (name != "test_input_required_result_prompt" || ctx.rev == Protocol::V2026_07_28);
    if !known {
        return invalid_params(ctx.id, format!("Invalid params: unknown prompt {name}"));
    }
    let args = match ctx.param("arguments") {
        None | Some(Value::Null) => json!({}),
        Some(a @ Value::Object(_)) => a.clone(),
        Some(_) => {
            return invalid_params(ctx.id, "Invalid params: arguments must be an object".into());
        }
    };
    if name == "test_input_required_result_prompt" {
        let empty = Map::new();
        let params = ctx.params.unwrap_or(&empty);
        return mrtr(
            shared,
            ctx.rev,
            ctx.id,
            &format!("prompt:{name}"),
            &args,
            params,
            ctx.caps,
        );
    }
    let arg = |key: &str| args.get(key).and_then(Value::as_str);
    let user = |content: Value| json!({"role": "user", "content": content});
    let messages = match name {
        "test_simple_prompt" => vec![user(text_block("This is a simple prompt for testing."))],
        "test_prompt_with_arguments" => {
            let (Some(a1), Some(a2)) = (arg("arg1"), arg("arg2")) else {
                return invalid_params(
                    ctx.id,
                    "Invalid params: test_prompt_with_arguments needs string arguments arg1 and arg2"
                        .into(),
                );
            };
            vec![user(text_block(&format!(
                "Prompt with arguments: arg1='{a1}', arg2='{a2}'"
            )))]
        }
        "test_prompt_with_embedded_resource" => {
            let Some(uri) = arg("resourceUri") else {
                return invalid_params(
                    ctx.id,
                    "Invalid params: test_prompt_with_embedded_resource needs a string argument resourceUri"
                        .into(),
                );
            };
            vec![
                user(json!({"type": "resource", "resource": {
                    "uri": uri,
                    "mimeType": "text/plain",
                    "text": "Embedded resource content for testing."
                }})),
                user(text_block("Please process the embedded resource above.")),
            ]
        }
        _ => vec![
            user(image_block()),
            user(text_block("Please analyze the image above.")),
        ],
    };
    let m = Map::from_iter([("messages".to_string(), Value::Array(messages))]);
    method_result(shared, ctx, m, false)
}

/// `completion/complete`: candidate values for a prompt argument or a template variable,
/// those starting with what the user typed.
fn complete_argument(ctx: &MethodCtx<'_>) -> Result<Map<String, Value>, String> {
    let reference = ctx
        .param("ref")
        .and_then(Value::as_object)
        .ok_or("completion/complete needs a ref object")?;
    let argument = ctx
        .param("argument")
        .and_then(Value::as_object)
        .ok_or("completion/complete needs an argument object")?;
    let arg_name = argument
        .get("name")
        .and_then(Value::as_str)
        .ok_or("argument.name must be a string")?;
    let typed = argument
        .get("value")
        .and_then(Value::as_str)
        .ok_or("argument.value must be a string")?;
    let candidates: &[&str] = match reference.get("type").and_then(Value::as_str) {
        Some("ref/prompt") => {
            let name = reference.get("name").and_then(Value::as_str).unwrap_or("");
            if !PROMPT_NAMES.contains(&name) {
                return Err(format!("unknown prompt {name}"));
            }
            match (name, arg_name) {
                ("test_prompt_with_arguments", "arg1") => &["hello", "help", "paris", "park"],
                ("test_prompt_with_arguments", "arg2") => &["world", "word", "work"],
                ("test_prompt_with_embedded_resource", "resourceUri") => {
                    &[STATIC_TEXT, STATIC_BINARY, WATCHED]
                }
                _ => &[],
            }
        }
        Some("ref/resource") => {
            let uri = reference.get("uri").and_then(Value::as_str).unwrap_or("");
            if uri != TEMPLATE {
                return Err(format!("unknown resource template {uri}"));
            }
            match arg_name {
                "id" => &["1", "2", "3", "123"],
                _ => &[],
            }
        }
        _ => return Err("ref.type must be ref/prompt or ref/resource".into()),
    };
    let typed_lower = typed.to_lowercase();
    let values: Vec<&str> = candidates
        .iter()
        .copied()
        .filter(|c| c.to_lowercase().starts_with(&typed_lower))
        .collect();
    Ok(Map::from_iter([(
        "completion".to_string(),
        json!({"values": values, "total": values.len(), "hasMore": false}),
    )]))
}
