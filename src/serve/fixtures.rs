//! The conformance fixture set (`--scenario baseline:tools=conformance`): the tools, prompts,
//! resources, completions and logging that the official MCP conformance suite calls on a
//! server, served honestly under both revisions on top of the five baseline tools.
//!
//! - Content tools return real content: a 1x1 PNG, a short WAV tone, embedded resources.
//! - `test_tool_with_progress` streams `notifications/progress` with the request's
//!   `progressToken`; the logging tools stream `notifications/message` at level `info` when the
//!   client asked for that level (2025-11-25: `logging/setLevel`, default `info`; 2026-07-28:
//!   `_meta` `io.modelcontextprotocol/logLevel`, none without it).
//! - Tools that need the client (sampling, elicitation, roots) ask through the revision's
//!   own machinery: 2025-11-25 sends the server request on the `tools/call` SSE stream and
//!   finishes once the client has POSTed its answer; 2026-07-28 answers `input_required` with
//!   `inputRequests` (and, for the multi-round fixtures, a sealed `requestState`) and
//!   finishes on the retry that carries `inputResponses`.

use std::sync::{Arc, mpsc};
use std::thread;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use serde_json::{Map, Value, json};

use super::Shared;
use super::call::CallCtx;
use super::reply::{
    AfterAnswer, Answer, Reply, SseEnd, SsePlan, SseStep, decorate, decorate_modern, deliver,
    error_msg, json_reply, priming, result_msg,
};
use super::tools;
use crate::vocab::Protocol;
use crate::vocab::protocol::{code, meta};

/// A 1x1 red PNG (8-bit RGB), base64.
const PNG_1X1_RED: &str =
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

/// How long a progress or logging fixture works between two notifications.
const STEP: Duration = Duration::from_millis(50);

/// Caching hints on cacheable 2026-07-28 results.
const TTL_MS: u64 = 60_000;

/// Log levels, least severe first (RFC 5424 order as MCP uses it).
const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// Which revisions offer a fixture.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Revs {
    Both,
    /// 2026-07-28 only (its `input_required` flows and diagnostic tools).
    Modern,
}

impl Revs {
    fn has(self, rev: Protocol) -> bool {
        self == Revs::Both || rev == Protocol::V2026_07_28
    }
}

/// One fixture tool.
pub(crate) struct FixtureTool {
    name: &'static str,
    revs: Revs,
    definition: Value,
    validator: jsonschema::Validator,
}

/// The fixture set, built once per server.
pub(crate) struct Fixtures {
    tools: Vec<FixtureTool>,
}

fn no_args() -> Value {
    json!({"type": "object", "properties": {}, "additionalProperties": false})
}

fn tool(name: &'static str, revs: Revs, description: &str, schema: Value) -> FixtureTool {
    let validator = jsonschema::validator_for(&schema).expect("fixture inputSchema compiles");
    FixtureTool {
        name,
        revs,
        definition: json!({"name": name, "description": description, "inputSchema": schema}),
        validator,
    }
}

/// Marks a fixture tool `readOnlyHint: true` (it only reads and answers).
fn read_only(mut t: FixtureTool) -> FixtureTool {
    t.definition["annotations"] = json!({"readOnlyHint": true});
    t
}

impl Fixtures {
    pub fn new() -> Self {
        use Revs::{Both, Modern};
        let string_arg = |key: &str, what: &str| {
            json!({
                "type": "object",
                "properties": {key: {"type": "string", "description": what}},
                "required": [key],
                "additionalProperties": false
            })
        };
        let tools = vec![
            tool(
                "test_simple_text",
                Both,
                "Returns one text block.",
                no_args(),
            ),
            tool(
                "test_image_content",
                Both,
                "Returns an image block: a 1x1 red PNG.",
                no_args(),
            ),
            tool(
                "test_audio_content",
                Both,
                "Returns an audio block: a 0.1 s 440 Hz WAV tone.",
                no_args(),
            ),
            tool(
                "test_embedded_resource",
                Both,
                "Returns an embedded text resource.",
                no_args(),
            ),
            tool(
                "test_multiple_content_types",
                Both,
                "Returns text, an image and an embedded JSON resource.",
                no_args(),
            ),
            tool(
                "test_error_handling",
                Both,
                "Always fails: a tool result with isError true.",
                no_args(),
            ),
            tool(
                "test_tool_with_progress",
                Both,
                "Works in three steps 50 ms apart; with _meta.progressToken it sends \
                 notifications/progress 0, 50 and 100 of 100 on the response stream.",
                no_args(),
            ),
            tool(
                "test_tool_with_logging",
                Both,
                "Works in three steps 50 ms apart and sends one notifications/message (level \
                 info) per step when the client asked for info or lower.",
                no_args(),
            ),
            tool(
                "test_logging_tool",
                Both,
                "Same as test_tool_with_logging.",
                no_args(),
            ),
            tool(
                "test_sampling",
                Both,
                "Asks the client's LLM (sampling/createMessage) to answer `prompt` and returns \
                 the answer. Needs the sampling capability.",
                string_arg("prompt", "The prompt to send to the LLM"),
            ),
            tool(
                "test_elicitation",
                Both,
                "Asks the user (elicitation/create, form) for a username and an email with \
                 `message` and returns the answer. Needs the elicitation capability.",
                string_arg("message", "The message to show the user"),
            ),
            tool(
                "test_elicitation_sep1034_defaults",
                Both,
                "Asks the user with a form whose fields have defaults of every primitive type.",
                no_args(),
            ),
            tool(
                "test_elicitation_sep1330_enums",
                Both,
                "Asks the user with a form holding every enum field variant.",
                no_args(),
            ),
            tool(
                "json_schema_2020_12_tool",
                Both,
                "Takes a contact described with JSON Schema 2020-12 keywords ($defs, $anchor, \
                 $ref, allOf/anyOf, if/then/else) and echoes it.",
                json_schema_2020_12(),
            ),
            read_only(tool(
                "test_header_param",
                Modern,
                "Echoes `region`, which clients mirror into the Mcp-Param-Region header \
                 (x-mcp-header); the server checks the header against the body.",
                json!({
                    "type": "object",
                    "properties": {
                        "region": {"type": "string", "description": "A region name", "x-mcp-header": "Region"}
                    },
                    "required": ["region"],
                    "additionalProperties": false
                }),
            )),
            tool(
                "test_missing_capability",
                Modern,
                "Asks the client's LLM a question (input_required with sampling/createMessage); \
                 a client that did not declare sampling gets -32021.",
                no_args(),
            ),
            tool(
                "test_streaming_elicitation",
                Modern,
                "Asks the user for a name (input_required with elicitation/create).",
                no_args(),
            ),
            tool(
                "test_input_required_result_elicitation",
                Modern,
                "input_required: asks the user's name (key user_name), then greets.",
                no_args(),
            ),
            tool(
                "test_input_required_result_sampling",
                Modern,
                "input_required: asks the client's LLM a question (key capital_question).",
                no_args(),
            ),
            tool(
                "test_input_required_result_list_roots",
                Modern,
                "input_required: asks for the client's roots (key client_roots).",
                no_args(),
            ),
            tool(
                "test_input_required_result_request_state",
                Modern,
                "input_required with a sealed requestState; the retry must echo it.",
                no_args(),
            ),
            tool(
                "test_input_required_result_tampered_state",
                Modern,
                "input_required with a sealed requestState; a modified state is rejected \
                 (-32602).",
                no_args(),
            ),
            tool(
                "test_input_required_result_multiple_inputs",
                Modern,
                "input_required with three requests at once: elicitation, sampling, roots.",
                no_args(),
            ),
            tool(
                "test_input_required_result_multi_round",
                Modern,
                "input_required twice (name, then colour), the requestState evolving between \
                 rounds.",
                no_args(),
            ),
            tool(
                "test_input_required_result_capabilities",
                Modern,
                "input_required asking only for what the client declared (elicitation, \
                 sampling, roots).",
                no_args(),
            ),
        ];
        Self { tools }
    }

    fn tool(&self, name: &str, rev: Protocol) -> Option<&FixtureTool> {
        self.tools
            .iter()
            .find(|t| t.name == name && t.revs.has(rev))
    }
}

/// The `inputSchema` of `json_schema_2020_12_tool`.
fn json_schema_2020_12() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {"street": {"type": "string"}, "city": {"type": "string"}}
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    })
}

/// The `tools` array of `tools/list`: the baseline tools, then the fixtures of `rev`.
pub(crate) fn tool_list(shared: &Shared, rev: Protocol) -> Value {
    let mut list = match tools::definitions(&shared.tools) {
        Value::Array(a) => a,
        _ => Vec::new(),
    };
    if let Some(f) = &shared.fixtures {
        list.extend(
            f.tools
                .iter()
                .filter(|t| t.revs.has(rev))
                .map(|t| t.definition.clone()),
        );
    }
    Value::Array(list)
}

/// The `inputSchema` of a tool offered under 2026-07-28 (baseline or fixture).
pub(crate) fn input_schema(shared: &Shared, name: &str) -> Option<Value> {
    if let Some(t) = shared.tools.iter().find(|t| t.name == name) {
        return Some(t.definition["inputSchema"].clone());
    }
    let t = shared
        .fixtures
        .as_ref()?
        .tool(name, Protocol::V2026_07_28)?;
    Some(t.definition["inputSchema"].clone())
}

// ---------------------------------------------------------------------------
// Content

/// A WAV file: 0.1 s of a 440 Hz square wave, 8 kHz, mono, 8-bit PCM.
fn wav_tone() -> Vec<u8> {
    let rate: u32 = 8_000;
    let samples: Vec<u8> = (0..rate / 10)
        .map(|i| {
            if (i * 440 * 2 / rate).is_multiple_of(2) {
                160
            } else {
                96
            }
        })
        .collect();
    let data_len = samples.len() as u32;
    let mut w = Vec::with_capacity(44 + samples.len());
    w.extend_from_slice(b"RIFF");
    w.extend_from_slice(&(36 + data_len).to_le_bytes());
    w.extend_from_slice(b"WAVEfmt ");
    w.extend_from_slice(&16u32.to_le_bytes()); // fmt chunk size
    w.extend_from_slice(&1u16.to_le_bytes()); // PCM
    w.extend_from_slice(&1u16.to_le_bytes()); // mono
    w.extend_from_slice(&rate.to_le_bytes());
    w.extend_from_slice(&rate.to_le_bytes()); // byte rate: 1 byte per sample
    w.extend_from_slice(&1u16.to_le_bytes()); // block align
    w.extend_from_slice(&8u16.to_le_bytes()); // bits per sample
    w.extend_from_slice(b"data");
    w.extend_from_slice(&data_len.to_le_bytes());
    w.extend_from_slice(&samples);
    w
}

fn text_block(text: &str) -> Value {
    json!({"type": "text", "text": text})
}

fn image_block() -> Value {
    json!({"type": "image", "data": PNG_1X1_RED, "mimeType": "image/png"})
}

fn content_result(content: Vec<Value>, is_error: bool) -> Map<String, Value> {
    Map::from_iter([
        ("content".to_string(), Value::Array(content)),
        ("isError".into(), Value::Bool(is_error)),
    ])
}

/// Results of the tools that need nothing from the client.
fn plain_result(name: &str, args: &Value) -> Option<Map<String, Value>> {
    let m = match name {
        "test_simple_text" => content_result(
            vec![text_block("This is a simple text response for testing.")],
            false,
        ),
        "test_image_content" => content_result(vec![image_block()], false),
        "test_audio_content" => content_result(
            vec![
                json!({"type": "audio", "data": STANDARD.encode(wav_tone()), "mimeType": "audio/wav"}),
            ],
            false,
        ),
        "test_embedded_resource" => content_result(
            vec![json!({"type": "resource", "resource": {
                "uri": "test://embedded-resource",
                "mimeType": "text/plain",
                "text": "This is an embedded resource content."
            }})],
            false,
        ),
        "test_multiple_content_types" => content_result(
            vec![
                text_block("Multiple content types test:"),
                image_block(),
                json!({"type": "resource", "resource": {
                    "uri": "test://mixed-content-resource",
                    "mimeType": "application/json",
                    "text": json!({"test": "data", "value": 123}).to_string()
                }}),
            ],
            false,
        ),
        "test_error_handling" => content_result(
            vec![text_block(
                "This tool intentionally returns an error for testing",
            )],
            true,
        ),
        "test_header_param" => content_result(
            vec![text_block(&format!(
                "Region: {}",
                args["region"].as_str().unwrap_or_default()
            ))],
            false,
        ),
        "json_schema_2020_12_tool" => content_result(
            vec![text_block(&format!("Contact received: {args}"))],
            false,
        ),
        _ => return None,
    };
    Some(m)
}

// ---------------------------------------------------------------------------
// tools/call

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

/// A complete result as a reply.
fn complete(shared: &Shared, rev: Protocol, id: &Value, m: Map<String, Value>) -> Reply {
    deliver(
        shared,
        rev,
        200,
        result_msg(id, decorate(rev, m)),
        Vec::new(),
    )
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

// ---------------------------------------------------------------------------
// Asking the client: sampling, elicitation, roots

/// One request for input: its key in `inputRequests`, method and params.
struct Ask {
    key: &'static str,
    method: &'static str,
    params: Value,
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

fn sample(key: &'static str, prompt: &str, max_tokens: u64) -> Ask {
    Ask {
        key,
        method: SAMPLE,
        params: json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": prompt}}],
            "maxTokens": max_tokens
        }),
    }
}

fn roots() -> Ask {
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
fn capability_of(method: &str) -> &'static str {
    match method {
        ELICIT => "elicitation",
        SAMPLE => "sampling",
        _ => "roots",
    }
}

/// Whether the client's capabilities allow a request of this method.
fn client_allows(caps: &Value, method: &str) -> bool {
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
fn is_stateful(name: &str) -> bool {
    matches!(
        name,
        "test_input_required_result_request_state"
            | "test_input_required_result_tampered_state"
            | "test_input_required_result_multiple_inputs"
            | "test_input_required_result_multi_round"
    )
}

/// The stage of a multi-round request (1 when it starts).
fn stage(data: &Value) -> u64 {
    data["stage"].as_u64().unwrap_or(1)
}

/// What the fixture asks for at this stage (`data`: what the sealed state carries).
fn asks(name: &str, args: &Value, data: &Value, caps: &Value) -> Vec<Ask> {
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
fn check_answer(method: &str, answer: &Value) -> Result<(), String> {
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
enum Next {
    /// The request is complete with this result.
    Done(Map<String, Value>),
    /// Another round: this data goes into the new sealed state.
    Round(Value),
}

fn text(t: String) -> Next {
    Next::Done(tools::text_result(t, false))
}

fn advance(name: &str, data: &Value, answers: &Map<String, Value>) -> Next {
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

fn invalid_params(id: &Value, message: String) -> Reply {
    json_reply(
        200,
        error_msg(Some(id), code::INVALID_PARAMS, &message, None),
        Vec::new(),
    )
}

/// 2026-07-28: one round of a request that needs input from the client (SEP-2322
/// `input_required`). `name` is the tool, or `prompt:NAME` for a prompt.
fn mrtr(
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
fn ask_on_stream(shared: &Arc<Shared>, ctx: &CallCtx, name: &'static str, args: &Value) -> Reply {
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

// ---------------------------------------------------------------------------
// Prompts, resources, completions, logging

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
fn template_id(uri: &str) -> Option<&str> {
    let id = uri
        .strip_prefix("test://template/")?
        .strip_suffix("/data")?;
    (!id.is_empty() && !id.contains('/')).then_some(id)
}

/// The contents of a resource, None when there is no such resource.
fn read_resource(uri: &str) -> Option<Value> {
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

fn with_session(shared: &Shared, ctx: &MethodCtx<'_>, f: impl FnOnce(&mut super::state::Session)) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn media_is_real() {
        let png = STANDARD.decode(PNG_1X1_RED).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&png[12..16], b"IHDR");
        assert_eq!(u32::from_be_bytes(png[16..20].try_into().unwrap()), 1);
        let wav = wav_tone();
        assert_eq!(&wav[..4], b"RIFF");
        assert_eq!(&wav[8..16], b"WAVEfmt ");
        assert_eq!(
            u32::from_le_bytes(wav[4..8].try_into().unwrap()) as usize,
            wav.len() - 8
        );
    }

    #[test]
    fn fixtures_compile_and_templates_match() {
        let f = Fixtures::new();
        assert!(f.tool("test_simple_text", Protocol::V2025_11_25).is_some());
        assert!(
            f.tool(
                "test_input_required_result_elicitation",
                Protocol::V2025_11_25
            )
            .is_none()
        );
        let js = f
            .tool("json_schema_2020_12_tool", Protocol::V2026_07_28)
            .unwrap();
        assert!(js.validator.is_valid(&json!({"email": "a@b.c"})));
        assert!(
            !js.validator
                .is_valid(&json!({"contactMethod": "phone", "email": "a@b.c"}))
        );
        assert_eq!(template_id("test://template/123/data"), Some("123"));
        assert_eq!(template_id("test://template//data"), None);
        assert!(read_resource("test://nope").is_none());
    }

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
