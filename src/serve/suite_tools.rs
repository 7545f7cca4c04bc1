//! The tools of the conformance fixture set (`--scenario baseline:tools=conformance`): every
//! tool the official conformance suite calls, with the revisions that offer it, its input
//! schema (compiled once) and its annotations. What they answer is `conformance`'s.

use serde_json::{Value, json};

use crate::vocab::Protocol;

/// Which revisions offer a fixture.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Revs {
    Both,
    /// 2026-07-28 only (its `input_required` flows and diagnostic tools).
    Modern,
}

impl Revs {
    pub(crate) fn has(self, rev: Protocol) -> bool {
        self == Revs::Both || rev == Protocol::V2026_07_28
    }
}

/// One fixture tool.
pub(crate) struct FixtureTool {
    pub(crate) name: &'static str,
    pub(crate) revs: Revs,
    pub(crate) definition: Value,
    pub(crate) validator: jsonschema::Validator,
}

/// The fixture set, built once per server.
pub(crate) struct Fixtures {
    pub(crate) tools: Vec<FixtureTool>,
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

    pub(crate) fn tool(&self, name: &str, rev: Protocol) -> Option<&FixtureTool> {
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
