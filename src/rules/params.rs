//! Check parameters as the table gives them (`[rule.params]`): plain data, checked against the
//! parameters each check declares when the table loads.

use std::collections::BTreeMap;

use serde::Deserialize;

use super::PointerPattern;

/// Where in the response message a schema definition applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Target {
    /// The `result` of a tools/call response read as a final `CallToolResult` (a response to a
    /// recorded request of another method has none).
    CompleteResult,
    /// The final `result` of a response to a recorded `tools/list` request.
    ListToolsResult,
    /// The final `result` of a response to a recorded `server/discover` request.
    DiscoverResult,
    /// The final `result` of a response to a recorded `initialize` request.
    InitializeResult,
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
    /// The JSON Pointer of the target inside the message.
    pub fn prefix(self) -> &'static str {
        match self {
            Target::CompleteResult
            | Target::ListToolsResult
            | Target::DiscoverResult
            | Target::InitializeResult
            | Target::InputRequiredResult
            | Target::TaskResult => "/result",
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
    /// Whether progress may go on, with the request's token, after the response is a task
    /// handle (the task keeps the token for its lifetime).
    #[serde(default)]
    pub task_progress: Option<bool>,
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
