//! [`Cx`]: the analysed exchange as one revision sees it, with the message's members read
//! once, the result classified, and each schema group validated at most once.

use std::cell::OnceCell;
use std::sync::OnceLock;

use serde_json::{Map, Value};

use super::Needs;
use crate::rules::{RevisionProfile, SchemaGroup, Target};
use crate::schema::output::{OutputSchema, OutputSchemaProblem};
use crate::schema::{FastValidator, SchemaError, shape_errors};
use crate::vocab::Protocol;
use crate::wire::analysis::Analysis;
use crate::wire::jsonref::JsonRef;

/// What a result is, under a revision.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ResultKind {
    /// No `result` (an error response, no message, ...).
    Absent,
    /// `result` is not an object.
    NotObject,
    /// A final result (`resultType` "complete", absent, or a revision without `resultType`).
    Complete,
    /// `resultType: "input_required"`.
    InputRequired,
    /// A task handle: `resultType` of a declared tasks extension, or a 2025-11-25
    /// `CreateTaskResult` answering a task-augmented request.
    Task,
    /// Another recognised extension value.
    Extension(String),
    /// A `resultType` the client does not recognise (or not a string).
    Unrecognized,
}

/// Everything a check may look at: the analysis plus the revision it is judged under.
pub struct Cx<'a> {
    /// The revision-independent analysis.
    pub an: &'a Analysis<'a>,
    /// The revision.
    pub protocol: Protocol,
    /// Revision data from the rule table.
    pub profile: &'a RevisionProfile,
    setting: Setting<'a>,
    groups: Vec<OnceCell<Option<Vec<RoutedError>>>>,
    kind: ResultKind,
    message: Option<JsonRef<'a>>,
    result: Option<JsonRef<'a>>,
    error: Option<JsonRef<'a>>,
    /// `error.code`, when an integer (read once: several checks ask).
    error_code: Option<i64>,
    members: MessageMembers<'a>,
    result_members: ResultMembers<'a>,
    /// The parts of the exchange present (for skipping checks that cannot apply).
    have: Needs,
    output_schema: OnceCell<Option<Result<OutputSchema, OutputSchemaProblem>>>,
    listed_schemas: OnceCell<Vec<ListedSchema>>,
    blocks: OnceCell<Vec<BlockMembers<'a>>>,
    header_problems: OnceCell<Vec<String>>,
    /// At most this many findings per rule are kept (0: all): see [`Cx::hits`].
    cap: usize,
}

/// A schema member of a tool listed in a `tools/list` result, compiled under its dialect.
#[derive(Debug)]
pub struct ListedSchema {
    /// The tool's index in `tools`.
    pub index: usize,
    /// `inputSchema` or `outputSchema`.
    pub member: &'static str,
    /// The compiled schema, or why it cannot be used.
    pub compiled: Result<OutputSchema, OutputSchemaProblem>,
}

/// The members of the response message that checks read, found in one pass over it.
#[derive(Clone, Copy, Debug, Default)]
pub struct MessageMembers<'a> {
    /// `jsonrpc`.
    pub jsonrpc: Option<JsonRef<'a>>,
    /// `id`.
    pub id: Option<JsonRef<'a>>,
    /// `result`.
    pub result: Option<JsonRef<'a>>,
    /// `error`.
    pub error: Option<JsonRef<'a>>,
    /// `method` (a request or notification where a response was expected).
    pub method: Option<JsonRef<'a>>,
}

/// The members of a result object that checks read, found in one pass over it.
#[derive(Clone, Copy, Debug, Default)]
pub struct ResultMembers<'a> {
    /// `resultType`.
    pub result_type: Option<JsonRef<'a>>,
    /// `isError`.
    pub is_error: Option<JsonRef<'a>>,
    /// `content`.
    pub content: Option<JsonRef<'a>>,
    /// `structuredContent`.
    pub structured_content: Option<JsonRef<'a>>,
    /// `_meta`.
    pub meta: Option<JsonRef<'a>>,
    /// `task` (a 2025-11-25 task handle).
    pub task: Option<JsonRef<'a>>,
}

/// The members of a content block that checks read, found in one pass over it.
#[derive(Clone, Copy, Debug, Default)]
pub struct BlockMembers<'a> {
    /// `type`.
    pub kind: Option<JsonRef<'a>>,
    /// `text`.
    pub text: Option<JsonRef<'a>>,
    /// `_meta`.
    pub meta: Option<JsonRef<'a>>,
    /// `icons`.
    pub icons: Option<JsonRef<'a>>,
}

impl<'a> BlockMembers<'a> {
    fn of(block: JsonRef<'a>) -> Self {
        let mut out = BlockMembers::default();
        for (k, v) in block.members() {
            match k {
                "type" => out.kind = Some(v),
                "text" => out.text = Some(v),
                "_meta" => out.meta = Some(v),
                "icons" => out.icons = Some(v),
                _ => {}
            }
        }
        out
    }
}

impl<'a> MessageMembers<'a> {
    pub(crate) fn of(m: JsonRef<'a>) -> Self {
        let mut out = MessageMembers::default();
        for (k, v) in m.members() {
            match k {
                "jsonrpc" => out.jsonrpc = Some(v),
                "id" => out.id = Some(v),
                "result" => out.result = Some(v),
                "error" => out.error = Some(v),
                "method" => out.method = Some(v),
                _ => {}
            }
        }
        out
    }
}

impl<'a> ResultMembers<'a> {
    pub(crate) fn of(r: JsonRef<'a>) -> Self {
        let mut out = ResultMembers::default();
        for (k, v) in r.members() {
            match k {
                "resultType" => out.result_type = Some(v),
                "isError" => out.is_error = Some(v),
                "content" => out.content = Some(v),
                "structuredContent" => out.structured_content = Some(v),
                "_meta" => out.meta = Some(v),
                "task" => out.task = Some(v),
                _ => {}
            }
        }
        out
    }
}

/// One schema error, routed to the rule that claims it.
#[derive(Clone, Debug)]
pub struct RoutedError {
    /// The shaped error (pointer relative to the target).
    pub error: SchemaError,
    /// The index of the owning rule in the revision's active list.
    pub owner: Option<usize>,
}

/// One schema group's compiled validators, looked up on first use.
#[derive(Debug, Default)]
pub struct SchemaSlot {
    validator: OnceLock<Option<&'static jsonschema::Validator>>,
    fast: OnceLock<Option<&'static FastValidator>>,
}

impl SchemaSlot {
    /// The definition's compiled validator in a revision's schemas (`None` when the schema
    /// has no such definition).
    pub fn validator(
        &self,
        protocol: Protocol,
        def: &str,
    ) -> Option<&'static jsonschema::Validator> {
        *self
            .validator
            .get_or_init(|| crate::schema::for_revision(protocol).def(def))
    }

    /// The definition's specialised validity check, when it has one.
    pub fn fast(&self, protocol: Protocol, def: &str) -> Option<&'static FastValidator> {
        *self
            .fast
            .get_or_init(|| crate::schema::for_revision(protocol).fast(def))
    }
}

/// What a revision's judgement is set in: the revision, its profile and schema groups from the
/// table, and the groups' compiled validators (one slot per group).
#[derive(Clone, Copy, Debug)]
pub struct Setting<'a> {
    /// The revision.
    pub protocol: Protocol,
    /// Its profile.
    pub profile: &'a RevisionProfile,
    /// Its schema groups.
    pub groups: &'a [SchemaGroup],
    /// One slot per group.
    pub slots: &'a [SchemaSlot],
}

impl<'a> Cx<'a> {
    /// Reads what every check of a revision asks for, once.
    pub fn new(an: &'a Analysis<'a>, setting: Setting<'a>) -> Cx<'a> {
        let profile = setting.profile;
        let protocol = setting.protocol;
        // Read the message's parts once; checks ask for them many times.
        let message = an.message();
        let members = message.map(MessageMembers::of).unwrap_or_default();
        let error = members.error;
        let result = members.result.filter(|_| error.is_none());
        let result_members = result
            .filter(|r| r.is_object())
            .map(ResultMembers::of)
            .unwrap_or_default();
        let kind = classify_result(an, result, &result_members, profile);
        let have = [
            (an.req.body.is_some(), Needs::REQUEST),
            (message.is_some(), Needs::MESSAGE),
            (error.is_some(), Needs::ERROR),
            (result.is_some(), Needs::RESULT),
            (kind == ResultKind::InputRequired, Needs::INPUT_REQUIRED),
            (an.stream().is_some(), Needs::STREAM),
            (an.req.is_notification, Needs::NOTIFICATION),
            (an.stdio().is_none(), Needs::HTTP),
            (an.stdio().is_some(), Needs::STDIO),
            (
                an.ex
                    .response_headers
                    .get(crate::vocab::auth::header::WWW_AUTHENTICATE)
                    .is_some(),
                Needs::CHALLENGE,
            ),
            (an.ex.auth.is_some(), Needs::AUTH_RECORD),
        ]
        .into_iter()
        .filter(|(on, _)| *on)
        .fold(Needs::NONE, |acc, (_, n)| acc.union(n));
        Cx {
            an,
            protocol,
            profile,
            setting,
            groups: (0..setting.groups.len()).map(|_| OnceCell::new()).collect(),
            kind,
            message,
            result,
            error,
            error_code: error
                .and_then(|e| e.get("code"))
                .and_then(JsonRef::as_integer),
            members,
            result_members,
            have,
            output_schema: OnceCell::new(),
            listed_schemas: OnceCell::new(),
            blocks: OnceCell::new(),
            header_problems: OnceCell::new(),
            cap: 0,
        }
    }

    /// The same, keeping at most `cap` findings per rule (0: all).
    pub fn capped(mut self, cap: usize) -> Cx<'a> {
        self.cap = cap;
        self
    }

    /// At most how many findings per rule the judgement keeps (0: all).
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// A collector for a check's hits that describes no more of them than the judgement
    /// keeps ([`crate::check_api::Hits`]): for checks that may trigger at every event or item.
    pub fn hits(&self) -> crate::check_api::Hits {
        crate::check_api::Hits::capped(self.cap)
    }

    /// The tool's `outputSchema` compiled under its dialect (once, for every check that asks);
    /// `None` when the exchange has no tool definition with an output schema.
    pub fn output_schema(&self) -> Option<&Result<OutputSchema, OutputSchemaProblem>> {
        self.output_schema
            .get_or_init(|| {
                let schema = self.an.ex.tool.as_ref()?.get("outputSchema")?;
                Some(crate::schema::output::compile(schema))
            })
            .as_ref()
    }

    /// The parts of the exchange present.
    pub fn have(&self) -> Needs {
        self.have
    }

    /// The response message's members.
    pub fn members(&self) -> &MessageMembers<'a> {
        &self.members
    }

    /// The result's members (all `None` when there is no result object).
    pub fn result_members(&self) -> &ResultMembers<'a> {
        &self.result_members
    }

    /// The members of each item of the result's `content` array (none without one), found in
    /// one pass over each item, once for every check that asks.
    pub fn content_blocks(&self) -> &[BlockMembers<'a>] {
        self.blocks.get_or_init(|| {
            self.result_members
                .content
                .map(|c| c.items().map(BlockMembers::of).collect())
                .unwrap_or_default()
        })
    }

    /// What is wrong with the request's standard headers, found by `find` on the first call and
    /// kept for the judgement: two rules report it (one as the request's fault, one as the
    /// server's for serving it), and it is read from the request alone.
    pub fn standard_header_problems(&self, find: impl FnOnce(&Cx<'a>) -> Vec<String>) -> &[String] {
        self.header_problems.get_or_init(|| find(self))
    }

    /// The response message (see [`Analysis::message`]).
    pub fn message(&self) -> Option<JsonRef<'a>> {
        self.message
    }

    /// `result` of a well-formed response (`result` without `error`).
    pub fn result(&self) -> Option<JsonRef<'a>> {
        self.result
    }

    /// `result` of a well-formed response as a parsed value, for checks that need a `Value`
    /// (built on first use from a body read onto a tape).
    pub fn result_value(&self) -> Option<&'a Value> {
        self.result?;
        self.an.message_value()?.get("result")
    }

    /// The error code, when it is an integer.
    pub fn error_code(&self) -> Option<i64> {
        self.error_code
    }

    /// What the result is under this revision.
    pub fn kind(&self) -> &ResultKind {
        &self.kind
    }

    /// The `result` object, when the result is of the given kind.
    pub fn result_if(&self, kind: &ResultKind) -> Option<JsonRef<'a>> {
        if &self.kind == kind {
            self.result.filter(|r| r.is_object())
        } else {
            None
        }
    }

    /// The final tool result object (kind `Complete`, answering a `tools/call` request or a
    /// request that was not recorded).
    pub fn complete_result(&self) -> Option<JsonRef<'a>> {
        match self.an.req.method {
            Some(m) if m != "tools/call" => None,
            _ => self.result_if(&ResultKind::Complete),
        }
    }

    /// The final result object answering a recorded request of method `method` (kind
    /// `Complete`).
    pub fn final_result_of(&self, method: &str) -> Option<JsonRef<'a>> {
        if self.an.req.method == Some(method) {
            self.result_if(&ResultKind::Complete)
        } else {
            None
        }
    }

    /// The final `tools/list` result's `tools` array, parsed (the tools' schemas are compiled
    /// from it).
    pub fn listed_tools(&self) -> Option<&'a Vec<Value>> {
        self.final_result_of("tools/list")?;
        self.result_value()?.get("tools").and_then(Value::as_array)
    }

    /// The final result object answering a recorded request of method `method`, parsed.
    pub fn final_result_value_of(&self, method: &str) -> Option<&'a Map<String, Value>> {
        self.final_result_of(method)?;
        self.result_value()?.as_object()
    }

    /// The schema members (`inputSchema`, `outputSchema`) of the tools a `tools/list` result
    /// lists, each compiled under its dialect (once, for every check that asks): the tool's
    /// index, the member's name and the outcome. Members that are absent or not objects (a
    /// schema error of the list) are left out.
    pub fn listed_tool_schemas(&self) -> &[ListedSchema] {
        self.listed_schemas.get_or_init(|| {
            let mut out = Vec::new();
            for (index, tool) in self.listed_tools().into_iter().flatten().enumerate() {
                for member in ["inputSchema", "outputSchema"] {
                    if let Some(schema) = tool.get(member).filter(|s| s.is_object()) {
                        out.push(ListedSchema {
                            index,
                            member,
                            compiled: crate::schema::output::compile(schema),
                        });
                    }
                }
            }
            out
        })
    }

    /// The recognised `resultType` values under this revision for this request.
    pub fn recognized_result_types(&self) -> Vec<&'a str> {
        let mut v: Vec<&str> = self
            .profile
            .result_types
            .iter()
            .flatten()
            .map(String::as_str)
            .collect();
        for (ext, values) in &self.profile.extension_result_types {
            if self.an.req.declares_extension(ext) {
                v.extend(values.iter().map(String::as_str));
            }
        }
        v
    }

    /// The JSON value a schema target designates, if it applies to this exchange.
    fn target_value(&self, target: Target, code: Option<i64>) -> Option<JsonRef<'a>> {
        match target {
            Target::CompleteResult => self.complete_result().and(self.result),
            Target::ListToolsResult => self.final_result_of("tools/list").and(self.result),
            Target::DiscoverResult => self.final_result_of("server/discover").and(self.result),
            Target::InitializeResult => self.final_result_of("initialize").and(self.result),
            Target::InputRequiredResult => {
                self.result_if(&ResultKind::InputRequired).and(self.result)
            }
            Target::TaskResult => self.result_if(&ResultKind::Task).and(self.result),
            Target::Error => self.error,
            Target::ErrorResponse => {
                let err = self.error?;
                match code {
                    Some(c) => (err.get("code").and_then(as_i64) == Some(c))
                        .then_some(self.message)
                        .flatten(),
                    None => self.message,
                }
            }
            Target::Response => self.message,
        }
    }

    /// The routed schema errors of a group; `None` when the group's target does not apply.
    pub fn schema_errors(&self, group: usize) -> Option<&[RoutedError]> {
        self.groups[group]
            .get_or_init(|| {
                let g = &self.setting.groups[group];
                let slot = &self.setting.slots[group];
                let instance = self.target_value(g.target, g.code)?;
                // The specialised check decides "valid" alone; anything else goes to the full
                // validator, whose errors (or lack of them) stand. The full validator is looked
                // up only then (its schemas are compiled on first need); a definition with a
                // specialised check exists, so the lookup finds it.
                let valid = match slot.fast(self.protocol, &g.def) {
                    Some(fast) => {
                        let valid = match instance {
                            JsonRef::Value(v) => fast.is_valid(v),
                            JsonRef::Tape(n) => fast.is_valid_tape(n),
                        };
                        debug_assert!(
                            !valid
                                || slot
                                    .validator(self.protocol, &g.def)
                                    .is_some_and(|v| v.is_valid(&instance.to_value())),
                            "the fast schema check accepted what {} rejects: {instance}",
                            g.def
                        );
                        valid
                    }
                    None => slot
                        .validator(self.protocol, &g.def)?
                        .is_valid(&instance.to_value()),
                };
                if valid {
                    return Some(Vec::new());
                }
                let validator = slot.validator(self.protocol, &g.def)?;
                // `jsonschema` is the authority on errors: it reads the parsed message.
                let instance = match instance {
                    JsonRef::Value(v) => v,
                    JsonRef::Tape(_) => self.an.message_value()?.pointer(g.target.prefix())?,
                };
                let errors = shape_errors(validator, instance)
                    .into_iter()
                    .map(|error| {
                        let owner = g.owner(&error.pointer, &error.keyword);
                        RoutedError { error, owner }
                    })
                    .collect();
                Some(errors)
            })
            .as_deref()
    }
}

/// A number's value as an `i64`, when it is one (as `Value::as_i64` reads it).
fn as_i64(v: JsonRef<'_>) -> Option<i64> {
    match v {
        JsonRef::Value(v) => v.as_i64(),
        JsonRef::Tape(n) => n.number_text()?.parse().ok(),
    }
}

fn classify_result(
    an: &Analysis<'_>,
    result: Option<JsonRef<'_>>,
    members: &ResultMembers<'_>,
    profile: &RevisionProfile,
) -> ResultKind {
    let Some(result) = result else {
        return ResultKind::Absent;
    };
    if !result.is_object() {
        return ResultKind::NotObject;
    }
    let Some(core) = &profile.result_types else {
        // A revision without resultType: a task-augmented request may get a task handle.
        if an.req.task.is_some() && members.task.is_some_and(JsonRef::is_object) {
            return ResultKind::Task;
        }
        return ResultKind::Complete;
    };
    match members.result_type.map(|t| t.as_str()) {
        None => ResultKind::Complete,
        Some(Some(s)) => {
            if core.iter().any(|c| c == s) {
                return match s {
                    "complete" => ResultKind::Complete,
                    "input_required" => ResultKind::InputRequired,
                    other => ResultKind::Extension(other.to_string()),
                };
            }
            for (ext, values) in &profile.extension_result_types {
                if values.iter().any(|v| v == s) && an.req.declares_extension(ext) {
                    return if s == "task" {
                        ResultKind::Task
                    } else {
                        ResultKind::Extension(s.to_string())
                    };
                }
            }
            ResultKind::Unrecognized
        }
        Some(_) => ResultKind::Unrecognized,
    }
}
