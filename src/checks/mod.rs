//! Named checks. Each check inspects the analysed exchange under one revision and says whether
//! the condition it looks for is present (`Trigger`), absent (`Pass`) or cannot be judged
//! (`NotApplicable`). What a trigger *means* (an outcome, a finding, a default) is decided by
//! the rule table, never here.

mod envelope;
mod framing;
mod mrtr;
mod request;
mod result;
mod schema;
mod stream;
mod transport;

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::engine::Cx;
use crate::rules::PointerPattern;

/// A check's verdict on one exchange.
#[derive(Debug, Clone, PartialEq)]
pub enum Eval {
    /// The check's precondition does not hold (e.g. no result to inspect).
    NotApplicable,
    /// Looked, and the condition is absent (for a requirement: satisfied).
    Pass,
    /// The condition is present (for a requirement: violated), with where and why.
    Trigger(Vec<Hit>),
}

impl Eval {
    /// A trigger with one hit.
    pub fn hit(pointer: impl Into<String>, message: impl Into<String>) -> Eval {
        Eval::Trigger(vec![Hit::new(pointer, message)])
    }

    /// A trigger that needs no detail (classification rules).
    pub fn triggered() -> Eval {
        Eval::Trigger(Vec::new())
    }

    /// `Pass` when `hits` is empty, else `Trigger(hits)`.
    pub fn from_hits(hits: Vec<Hit>) -> Eval {
        if hits.is_empty() {
            Eval::Pass
        } else {
            Eval::Trigger(hits)
        }
    }
}

/// Where and why a check triggered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// JSON Pointer into the JSON-RPC message (empty: the exchange as a whole).
    pub pointer: String,
    /// What was found, for people.
    pub message: String,
    /// The SSE event the hit is in, when the body is a stream.
    pub event: Option<usize>,
}

impl Hit {
    /// A hit in the response message.
    pub fn new(pointer: impl Into<String>, message: impl Into<String>) -> Hit {
        Hit {
            pointer: pointer.into(),
            message: message.into(),
            event: None,
        }
    }

    /// A hit in a given SSE event.
    pub fn in_event(event: usize, pointer: impl Into<String>, message: impl Into<String>) -> Hit {
        Hit {
            pointer: pointer.into(),
            message: message.into(),
            event: Some(event),
        }
    }
}

/// Where in the response message a schema definition applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// The `result` of a tools/call response read as a final `CallToolResult`.
    CompleteResult,
    /// The `result` when it is an `InputRequiredResult`.
    InputRequiredResult,
    /// The `result` when it is a task handle.
    TaskResult,
    /// The `error` member of an error response.
    Error,
    /// The whole message, when it is an error response (optionally with a given code).
    ErrorResponse,
    /// The whole response message.
    Response,
}

impl Target {
    /// What the exchange must have for the target to exist.
    pub fn needs(self) -> Needs {
        match self {
            Target::CompleteResult | Target::TaskResult => Needs::RESULT,
            Target::InputRequiredResult => Needs::INPUT_REQUIRED,
            Target::Error | Target::ErrorResponse => Needs::ERROR,
            Target::Response => Needs::MESSAGE,
        }
    }

    /// The JSON Pointer of the target inside the message.
    pub fn prefix(self) -> &'static str {
        match self {
            Target::CompleteResult | Target::InputRequiredResult | Target::TaskResult => "/result",
            Target::Error => "/error",
            Target::ErrorResponse | Target::Response => "",
        }
    }
}

/// Parameters a rule passes to its check (the `[rule.params]` table). Each check declares
/// which of these it accepts; loading rejects the rest.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Params {
    /// Schema definition name (schema checks).
    #[serde(default)]
    pub def: Option<String>,
    /// Where the definition applies (schema checks).
    #[serde(default)]
    pub at: Option<Target>,
    /// Pointer patterns (relative to the target) whose schema errors this rule claims.
    #[serde(default)]
    pub paths: Vec<String>,
    /// Schema keywords this rule claims (empty: any).
    #[serde(default)]
    pub keywords: Vec<String>,
    /// A JSON-RPC error code.
    #[serde(default)]
    pub code: Option<i64>,
    /// A list of JSON-RPC error codes.
    #[serde(default)]
    pub codes: Vec<i64>,
    /// Lower bound of a code range (inclusive).
    #[serde(default)]
    pub min: Option<i64>,
    /// Upper bound of a code range (inclusive).
    #[serde(default)]
    pub max: Option<i64>,
    /// An HTTP status code.
    #[serde(default)]
    pub status: Option<u16>,
    /// A string value (e.g. a `resultType`).
    #[serde(default)]
    pub value: Option<String>,
    /// Method name to the client capability it needs (dotted path).
    #[serde(default)]
    pub methods: BTreeMap<String, String>,
    /// A list of names (e.g. notification methods).
    #[serde(default)]
    pub names: Vec<String>,
    /// Whether a broken stream can be resumed under the revision.
    #[serde(default)]
    pub resumable: Option<bool>,
    #[serde(skip)]
    patterns: Vec<PointerPattern>,
    #[serde(skip)]
    group: Option<usize>,
    #[serde(skip)]
    member: usize,
}

/// How a schema-checked rule takes part in its schema group.
pub(crate) struct SchemaRoute {
    pub def: String,
    pub target: Target,
    pub code: Option<i64>,
    pub patterns: Vec<PointerPattern>,
    pub keywords: Vec<String>,
}

impl Params {
    /// Compiles derived data (pointer patterns); called once at load.
    pub(crate) fn compile(&mut self) -> Result<(), String> {
        self.patterns = self
            .paths
            .iter()
            .map(|p| PointerPattern::parse(p))
            .collect::<Result<_, _>>()?;
        if self.def.is_some() && self.at.is_none() {
            return Err("a schema `def` needs `at` (where in the message it applies)".into());
        }
        if self.def.is_some() && self.patterns.is_empty() {
            return Err(
                "a schema `def` needs `paths` (which errors the rule claims; `**` for all)".into(),
            );
        }
        if let (Some(lo), Some(hi)) = (self.min, self.max)
            && lo > hi
        {
            return Err(format!("`min` ({lo}) is above `max` ({hi})"));
        }
        Ok(())
    }

    pub(crate) fn schema_route(&self) -> Option<SchemaRoute> {
        Some(SchemaRoute {
            def: self.def.clone()?,
            target: self.at?,
            code: self.code,
            patterns: self.patterns.clone(),
            keywords: self.keywords.clone(),
        })
    }

    pub(crate) fn set_group(&mut self, group: usize, member: usize) {
        self.group = Some(group);
        self.member = member;
    }

    /// The schema group this rule reads from (schema checks) and the rule's own index in the
    /// revision's active list (the owner id its routed errors carry).
    pub fn group(&self) -> Option<(usize, usize)> {
        self.group.map(|g| (g, self.member))
    }
}

/// Parts of an exchange a check can depend on (a small bit set).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Needs(u8);

impl Needs {
    /// Nothing: the check always runs.
    pub const NONE: Needs = Needs(0);
    /// A recorded request.
    pub const REQUEST: Needs = Needs(1);
    /// A JSON-RPC response message.
    pub const MESSAGE: Needs = Needs(1 << 1);
    /// An `error` member.
    pub const ERROR: Needs = Needs(1 << 2);
    /// A `result` member (without `error`).
    pub const RESULT: Needs = Needs(1 << 3);
    /// An `input_required` result.
    pub const INPUT_REQUIRED: Needs = Needs(1 << 4);
    /// An SSE body.
    pub const STREAM: Needs = Needs(1 << 5);
    /// A request that is a notification.
    pub const NOTIFICATION: Needs = Needs(1 << 6);

    /// Both sets.
    pub const fn union(self, other: Needs) -> Needs {
        Needs(self.0 | other.0)
    }

    /// The raw bits (below 128).
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// Every set of parts, in bit order (index `i` is the set with bits `i`).
    pub fn every() -> impl Iterator<Item = Needs> {
        (0..=Self::ALL.0).map(Needs)
    }

    /// Every part.
    const ALL: Needs = Needs(0x7f);

    /// Whether every part in `self` is present in `have`.
    pub const fn met_by(self, have: Needs) -> bool {
        self.0 & !have.0 == 0
    }
}

/// A named check.
#[derive(Debug)]
pub struct CheckDef {
    /// The name rules refer to.
    pub name: &'static str,
    /// What it looks for.
    pub doc: &'static str,
    /// Parameters it accepts.
    pub params: &'static [&'static str],
    /// Parameters it needs.
    pub required: &'static [&'static str],
    /// What the exchange must have for the check to apply at all; without it the engine
    /// records the rule as not applicable without running the check (a fast path: the check
    /// would say the same).
    pub needs: Needs,
    /// The check itself.
    pub run: fn(&Cx<'_>, &Params) -> Eval,
}

macro_rules! checks {
    ($( $name:literal => $f:path, [$($p:literal),*], [$($r:literal),*], $needs:ident, $doc:literal; )*) => {
        /// Every check the engine implements.
        pub static REGISTRY: &[CheckDef] = &[
            $( CheckDef { name: $name, doc: $doc, params: &[$($p),*], required: &[$($r),*], needs: Needs::$needs, run: $f } ),*
        ];
    };
}

checks! {
    "status_not_2xx" => transport::status_not_2xx, [], [], NONE,
        "the HTTP status is outside 200-299";
    "status_pairing" => transport::status_pairing, ["code", "status"], ["code", "status"], ERROR,
        "an error response with `code` arrived with an HTTP status other than `status`";
    "missing_meta_rejected" => transport::missing_meta_rejected, [], [], REQUEST,
        "the request lacked required `_meta` fields and the answer is not 400 with -32602";
    "no_response_body" => transport::no_response_body, [], [], NONE,
        "a 2xx other than 200 with an empty body answered a request";
    "media_type_allowed" => transport::media_type_allowed, [], [], NONE,
        "a 2xx answer to a request is neither application/json nor text/event-stream, or is empty";
    "notification_accepted" => transport::notification_accepted, [], [], NOTIFICATION,
        "the request was a notification and the server answered 2xx";
    "notification_no_body" => transport::notification_no_body, [], [], NOTIFICATION,
        "a notification was accepted with a status other than 202 or with a body";
    "body_utf8" => framing::body_utf8, [], [], NONE,
        "the JSON body is not valid UTF-8";
    "json_well_formed" => framing::json_well_formed, [], [], NONE,
        "the JSON body does not parse";
    "json_single_object" => framing::json_single_object, [], [], NONE,
        "the JSON body is not a single JSON object (e.g. a batch array)";
    "jsonrpc_version" => envelope::jsonrpc_version, [], [], MESSAGE,
        "`jsonrpc` is missing or not \"2.0\"";
    "result_xor_error" => envelope::result_xor_error, [], [], MESSAGE,
        "the message has both or neither of `result` and `error`";
    "response_id_matches" => envelope::response_id_matches, [], [], MESSAGE,
        "the response `id` differs from the request `id` (type and value)";
    "error_id_present" => envelope::error_id_present, [], [], ERROR,
        "an error response answering a readable request has no `id` or `id: null`";
    "is_error_response" => envelope::is_error_response, [], [], MESSAGE,
        "the response carries `error`";
    "error_code_range" => envelope::error_code_range, ["min", "max", "codes"], ["min", "max"], ERROR,
        "the error code lies in [min, max] and is not one of `codes`";
    "error_code_in" => envelope::error_code_in, ["codes"], ["codes"], ERROR,
        "the error code is one of `codes`";
    "error_code_is" => envelope::error_code_is, ["code"], ["code"], ERROR,
        "the error code equals `code`";
    "schema" => schema::schema, ["def", "at", "paths", "keywords", "code"], ["def", "at", "paths"], NONE,
        "the target does not validate against the revision's schema definition `def` (errors routed by pointer)";
    "request_is_tools_call" => result::request_is_tools_call, [], [], MESSAGE,
        "the recorded request is not a tools/call request";
    "result_is_object" => result::result_is_object, [], [], RESULT,
        "`result` is not a JSON object";
    "result_type_absent" => result::result_type_absent, [], [], RESULT,
        "the result has no `resultType` (under a revision that defines it)";
    "result_type_recognized" => result::result_type_recognized, [], [], RESULT,
        "`resultType` is not a string this client recognises (core values plus declared extensions)";
    "result_type_is" => result::result_type_is, ["value"], ["value"], RESULT,
        "`resultType` equals `value` and is recognised";
    "task_result" => result::task_result, [], [], RESULT,
        "a task-augmented request was answered with a task handle (2025-11-25 `CreateTaskResult`)";
    "is_error_absent" => result::is_error_absent, [], [], RESULT,
        "a final tool result has no `isError` member";
    "is_error_true" => result::is_error_true, [], [], RESULT,
        "a final tool result has `isError: true`";
    "tool_result_final" => result::tool_result_final, [], [], RESULT,
        "a final tool result is present and `isError` is not true";
    "structured_content_mirrored" => result::structured_content_mirrored, [], [], RESULT,
        "`structuredContent` is present and no text block carries the same JSON";
    "output_schema_conforms" => result::output_schema_conforms, [], [], RESULT,
        "the tool declares an `outputSchema` and the structured result is missing or does not conform";
    "meta_key_format" => result::meta_key_format, [], [], RESULT,
        "a `_meta` key in the result does not follow the key-name format";
    "server_info_present" => result::server_info_present, [], [], RESULT,
        "the result's `_meta` lacks `io.modelcontextprotocol/serverInfo`";
    "irr_has_inputs_or_state" => mrtr::irr_has_inputs_or_state, [], [], INPUT_REQUIRED,
        "an InputRequiredResult has neither `inputRequests` nor `requestState`";
    "irr_capability_gate" => mrtr::irr_capability_gate, ["methods"], ["methods"], INPUT_REQUIRED,
        "an input request needs a client capability the request did not declare";
    "irr_keys_unique" => mrtr::irr_keys_unique, [], [], INPUT_REQUIRED,
        "`inputRequests` repeats a key in the raw JSON";
    "sse_event_json" => stream::sse_event_json, [], [], STREAM,
        "an SSE event before the final response carries data that is not JSON";
    "sse_message_shape" => stream::sse_message_shape, [], [], STREAM,
        "an SSE event carries JSON that is not a JSON-RPC message";
    "sse_final_response" => stream::sse_final_response, ["resumable"], ["resumable"], STREAM,
        "the SSE stream ended before a response with the request's id";
    "body_cut_off" => stream::body_cut_off, [], [], NONE,
        "a JSON body ended early (reset or timeout) and does not parse";
    "sse_server_request" => stream::sse_server_request, [], [], STREAM,
        "the SSE stream carries a server-to-client JSON-RPC request";
    "sse_unmatched_response" => stream::sse_unmatched_response, [], [], STREAM,
        "the SSE stream carries a response other than the final one (another id, or a repeat)";
    "sse_after_final" => stream::sse_after_final, [], [], STREAM,
        "events follow the final response on the SSE stream";
    "sse_progress" => stream::sse_progress, [], [], STREAM,
        "a progress notification with another token, without a requested token, not increasing, or after the response";
    "sse_log_without_level" => stream::sse_log_without_level, [], [], STREAM,
        "a log message notification on a request that set no log level";
    "sse_notification_method" => stream::sse_notification_method, ["names"], ["names"], STREAM,
        "a notification whose method is one of `names` is on the stream";
    "sse_unrelated_notification" => stream::sse_unrelated_notification, ["names"], ["names"], STREAM,
        "a notification whose method is not one of `names` (the request-related ones) is on the stream";
    "sse_accel_buffering" => stream::sse_accel_buffering, [], [], STREAM,
        "an SSE response lacks `X-Accel-Buffering: no`";
    "sse_priming_event" => stream::sse_priming_event, [], [], STREAM,
        "an SSE stream does not start with a priming event (event id, empty data)";
    "era_detection" => stream::era_detection, ["codes"], ["codes"], NONE,
        "a 400/404/405 whose body is not a recognised modern JSON-RPC error (one of `codes`)";
    "request_version_header" => request::request_version_header, [], [], REQUEST,
        "the recorded request's MCP-Protocol-Version header is missing or differs from `_meta`";
    "request_standard_headers" => request::request_standard_headers, [], [], REQUEST,
        "the recorded request lacks Mcp-Method/Mcp-Name or they differ from the body";
}

/// Looks a check up by name.
pub fn find(name: &str) -> Option<&'static CheckDef> {
    REGISTRY.iter().find(|c| c.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_params_declared() {
        let mut names: Vec<&str> = REGISTRY.iter().map(|c| c.name).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(before, names.len(), "duplicate check names");
        for c in REGISTRY {
            for r in c.required {
                assert!(
                    c.params.contains(r),
                    "{}: required `{r}` not accepted",
                    c.name
                );
            }
        }
    }
}
