//! The judging pipeline. An exchange is analysed once (body read and parsed once, request facts
//! extracted once); then, per revision, every rule the table activates runs its named check
//! against that analysis and the table's effects turn triggers into a verdict.

mod verdict;

use std::cell::OnceCell;

use serde_json::{Map, Value};

pub use crate::vocab::pointer::json_path;
pub use crate::wire::analysis::{
    Analysis, Body, JsonError, Media, MessageKind, RequestFacts, Stream, StreamMessage, as_integer,
    ids_equal,
};
pub use verdict::{
    CiteOut, CiteRole, DefaultOut, Difference, ErrorFacts, EvalStatus, Facts, Finding, FindingOut,
    Judgement, JudgementOut, StreamFacts, Verdict, VerdictOut, classify_output_json_schema,
    excerpt, facts_for,
};

use crate::checks::{Eval, Target};
use crate::rules::{RevisionProfile, RuleTable};
use crate::vocab::Protocol;
use crate::wire::exchange::Exchange;

/// How to judge.
#[derive(Clone, Copy, Debug)]
pub struct Options<'t> {
    /// The revisions to judge under; `None` takes them from the exchange.
    pub protocols: Option<&'t [Protocol]>,
    /// The rule table.
    pub table: &'t RuleTable,
}

impl Default for Options<'static> {
    fn default() -> Self {
        Options {
            protocols: None,
            table: RuleTable::builtin(),
        }
    }
}

/// Why an exchange could not be judged: only the choice of revision can fail.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum JudgeError {
    /// Neither the options nor the exchange say which revision to judge under.
    #[error(
        "cannot tell which protocol revision to judge under: the request has no MCP-Protocol-Version header and no _meta \"io.modelcontextprotocol/protocolVersion\"; pass --protocol 2025-11-25, 2026-07-28 or all (or set \"protocol\" in the exchange file)"
    )]
    UnknownRevision,
    /// The exchange names a revision this build does not judge.
    #[error(
        "the request declares protocol revision `{0}`, which this tool does not judge (it knows {known}); pass --protocol to judge it under one of those",
        known = Protocol::names()
    )]
    UnsupportedRevision(String),
}

/// Which revisions an exchange is judged under, absent an explicit choice: the file's
/// `protocol`, else the request's `MCP-Protocol-Version` header, else its `_meta` version.
pub fn revisions_of(ex: &Exchange) -> Result<Vec<Protocol>, JudgeError> {
    if let Some(ps) = &ex.protocol
        && !ps.is_empty()
    {
        return Ok(ps.clone());
    }
    let req = RequestFacts::of(ex);
    let declared = req.header_version.or(req.meta_version);
    match declared {
        Some(v) => Protocol::parse(v)
            .map(|p| vec![p])
            .ok_or_else(|| JudgeError::UnsupportedRevision(v.to_string())),
        None => Err(JudgeError::UnknownRevision),
    }
}

/// Judges an exchange under the selected revisions.
pub fn judge<'t>(ex: &Exchange, options: &Options<'t>) -> Result<Judgement<'t>, JudgeError> {
    let from_exchange;
    let protocols: &[Protocol] = match options.protocols {
        Some(ps) if !ps.is_empty() => ps,
        _ => {
            from_exchange = revisions_of(ex)?;
            &from_exchange
        }
    };
    let analysis = Analysis::new(ex);
    let verdicts: Vec<Verdict<'t>> = protocols
        .iter()
        .map(|&p| evaluate(&analysis, p, options.table))
        .collect();
    Ok(Judgement::new(verdicts))
}

/// Judges an already analysed exchange under one revision.
pub fn evaluate<'t>(
    analysis: &Analysis<'_>,
    protocol: Protocol,
    table: &'t RuleTable,
) -> Verdict<'t> {
    let cx = Cx::new(analysis, protocol, table);
    let actives = table.active(protocol);
    let plan = table.plan(protocol);
    // Only the steps whose needs the exchange meets run; the rest could only say "not
    // applicable" (debug builds make sure).
    let runnable = table.runnable(protocol, cx.have);
    #[cfg(debug_assertions)]
    for (i, (step, active)) in plan.iter().zip(actives).enumerate() {
        if !runnable.iter().any(|&r| usize::from(r) == i) {
            debug_assert_eq!(
                (step.run)(&cx, &active.params),
                Eval::NotApplicable,
                "check `{}` applies without what it declares it needs",
                table.rule_of(active).check.name
            );
        }
    }
    let evals = runnable.iter().map(|&i| {
        let i = usize::from(i);
        (i, (plan[i].run)(&cx, &actives[i].params))
    });
    Verdict::assemble(&cx, table, actives, evals)
}

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
    /// The rule table.
    pub table: &'a RuleTable,
    groups: Vec<OnceCell<Option<Vec<SchemaError>>>>,
    kind: ResultKind,
    message: Option<&'a Map<String, Value>>,
    result: Option<&'a Value>,
    error: Option<&'a Value>,
    members: MessageMembers<'a>,
    result_members: ResultMembers<'a>,
    /// The parts of the exchange present (for skipping checks that cannot apply).
    have: crate::checks::Needs,
}

/// The members of the response message that checks read, found in one pass over it.
#[derive(Clone, Copy, Debug, Default)]
pub struct MessageMembers<'a> {
    /// `jsonrpc`.
    pub jsonrpc: Option<&'a Value>,
    /// `id`.
    pub id: Option<&'a Value>,
    /// `result`.
    pub result: Option<&'a Value>,
    /// `error`.
    pub error: Option<&'a Value>,
    /// `method` (a request or notification where a response was expected).
    pub method: Option<&'a Value>,
}

/// The members of a result object that checks read, found in one pass over it.
#[derive(Clone, Copy, Debug, Default)]
pub struct ResultMembers<'a> {
    /// `resultType`.
    pub result_type: Option<&'a Value>,
    /// `isError`.
    pub is_error: Option<&'a Value>,
    /// `content`.
    pub content: Option<&'a Value>,
    /// `structuredContent`.
    pub structured_content: Option<&'a Value>,
    /// `_meta`.
    pub meta: Option<&'a Value>,
    /// `task` (a 2025-11-25 task handle).
    pub task: Option<&'a Value>,
}

impl<'a> MessageMembers<'a> {
    pub(crate) fn of(m: &'a Map<String, Value>) -> Self {
        let mut out = MessageMembers::default();
        for (k, v) in m {
            match k.as_str() {
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
    pub(crate) fn of(r: &'a Map<String, Value>) -> Self {
        let mut out = ResultMembers::default();
        for (k, v) in r {
            match k.as_str() {
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
pub struct SchemaError {
    /// Pointer relative to the target; for `required`, the missing member's pointer.
    pub pointer: String,
    /// The failing keyword.
    pub keyword: String,
    /// The validator's message.
    pub message: String,
    /// The index of the owning rule in the revision's active list.
    pub owner: Option<usize>,
}

impl<'a> Cx<'a> {
    fn new(an: &'a Analysis<'a>, protocol: Protocol, table: &'a RuleTable) -> Cx<'a> {
        let profile = table.profile(protocol);
        // Read the message's parts once; checks ask for them many times.
        let message = an.message();
        let members = message.map(MessageMembers::of).unwrap_or_default();
        let error = members.error;
        let result = members.result.filter(|_| error.is_none());
        let result_members = result
            .and_then(Value::as_object)
            .map(ResultMembers::of)
            .unwrap_or_default();
        let kind = classify_result(an, result, &result_members, profile);
        use crate::checks::Needs;
        let have = [
            (an.req.body.is_some(), Needs::REQUEST),
            (message.is_some(), Needs::MESSAGE),
            (error.is_some(), Needs::ERROR),
            (result.is_some(), Needs::RESULT),
            (kind == ResultKind::InputRequired, Needs::INPUT_REQUIRED),
            (an.stream().is_some(), Needs::STREAM),
            (an.req.is_notification, Needs::NOTIFICATION),
        ]
        .into_iter()
        .filter(|(on, _)| *on)
        .fold(Needs::NONE, |acc, (_, n)| acc.union(n));
        Cx {
            an,
            protocol,
            profile,
            table,
            groups: (0..table.groups(protocol).len())
                .map(|_| OnceCell::new())
                .collect(),
            kind,
            message,
            result,
            error,
            members,
            result_members,
            have,
        }
    }

    /// The response message's members.
    pub fn members(&self) -> &MessageMembers<'a> {
        &self.members
    }

    /// The result's members (all `None` when there is no result object).
    pub fn result_members(&self) -> &ResultMembers<'a> {
        &self.result_members
    }

    /// The response message (see [`Analysis::message`]).
    pub fn message(&self) -> Option<&'a Map<String, Value>> {
        self.message
    }

    /// `result` of a well-formed response (`result` without `error`).
    pub fn result(&self) -> Option<&'a Value> {
        self.result
    }

    /// `error` of the message.
    pub fn error(&self) -> Option<&'a Value> {
        self.error
    }

    /// The error code, when it is an integer.
    pub fn error_code(&self) -> Option<i64> {
        self.error?.get("code").and_then(as_integer)
    }

    /// What the result is under this revision.
    pub fn kind(&self) -> &ResultKind {
        &self.kind
    }

    /// The `result` object, when the result is of the given kind.
    pub fn result_if(&self, kind: &ResultKind) -> Option<&'a Map<String, Value>> {
        if &self.kind == kind {
            self.result.and_then(Value::as_object)
        } else {
            None
        }
    }

    /// The final tool result object (kind `Complete`).
    pub fn complete_result(&self) -> Option<&'a Map<String, Value>> {
        self.result_if(&ResultKind::Complete)
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
    fn target_value(&self, target: Target, code: Option<i64>) -> Option<&'a Value> {
        match target {
            Target::CompleteResult => self.complete_result().and(self.result),
            Target::InputRequiredResult => {
                self.result_if(&ResultKind::InputRequired).and(self.result)
            }
            Target::TaskResult => self.result_if(&ResultKind::Task).and(self.result),
            Target::Error => self.error,
            Target::ErrorResponse => {
                let err = self.error?;
                match code {
                    Some(c) => (err.get("code").and_then(Value::as_i64) == Some(c))
                        .then(|| self.an.message_value())
                        .flatten(),
                    None => self.an.message_value(),
                }
            }
            Target::Response => self.an.message_value(),
        }
    }

    /// The routed schema errors of a group; `None` when the group's target does not apply.
    pub fn schema_errors(&self, group: usize) -> Option<&[SchemaError]> {
        self.groups[group]
            .get_or_init(|| {
                let g = &self.table.groups(self.protocol)[group];
                let instance = self.target_value(g.target, g.code)?;
                let validator = g.validator(self.protocol)?;
                // The specialised check decides "valid" alone; anything else goes to the full
                // validator, whose errors (or lack of them) stand.
                let valid = match g.fast(self.protocol) {
                    Some(fast) => {
                        let valid = fast.is_valid(instance);
                        debug_assert!(
                            !valid || validator.is_valid(instance),
                            "the fast schema check accepted what {} rejects: {instance}",
                            g.def
                        );
                        valid
                    }
                    None => validator.is_valid(instance),
                };
                if valid {
                    return Some(Vec::new());
                }
                let mut raw = Vec::new();
                for e in validator.iter_errors(instance) {
                    flatten_error(&e, &mut raw);
                }
                let errors = raw
                    .into_iter()
                    .map(|(pointer, keyword, message)| {
                        let owner = g.owner(&pointer, &keyword);
                        SchemaError {
                            pointer,
                            keyword,
                            message,
                            owner,
                        }
                    })
                    .collect();
                Some(errors)
            })
            .as_deref()
    }

    /// The index of the active rule with a given id, for routing checks.
    pub fn active_index(&self, id: &str) -> Option<usize> {
        self.table
            .active(self.protocol)
            .iter()
            .position(|a| self.table.rule_of(a).id == id)
    }
}

/// Turns a validator error into (pointer, keyword, message) triples.
///
/// `anyOf`/`oneOf` failures are made specific, the way people expect from a union such as
/// `ContentBlock = TextContent | ImageContent | ...`:
/// - when every branch fails on the same constant (a discriminator like `type` or `method`),
///   one error there names the allowed values (`"video" is not one of "text", "image", ...`);
/// - otherwise the errors of the branch that came closest are reported: a branch whose
///   discriminator matched first, then the fewest missing members, then the fewest errors, then
///   the deepest location (`{"blob": "@@@"}` failing TextResourceContents | BlobResourceContents
///   is reported as a bad blob, not as a missing text).
fn flatten_error(e: &jsonschema::ValidationError<'_>, out: &mut Vec<(String, String, String)>) {
    use jsonschema::error::ValidationErrorKind as K;
    let branches = match e.kind() {
        K::AnyOf { context } | K::OneOfNotValid { context } => Some(context),
        _ => None,
    };
    if let Some(branches) = branches {
        let consts: Vec<Option<(&str, &Value)>> = branches
            .iter()
            .map(|b| {
                b.iter().find_map(|x| match x.kind() {
                    K::Constant { expected_value } => {
                        Some((x.instance_path().as_str(), expected_value.as_ref()))
                    }
                    _ => None,
                })
            })
            .collect();
        let first = consts.first().copied().flatten();
        if let Some((at, _)) = first
            && !branches.is_empty()
            && consts.iter().all(|c| c.is_some_and(|(p, _)| p == at))
        {
            let allowed: Vec<String> = consts
                .iter()
                .flatten()
                .map(|(_, v)| v.to_string())
                .collect();
            let found = e
                .instance()
                .pointer(at.strip_prefix(e.instance_path().as_str()).unwrap_or(""))
                .map_or_else(|| "the value".to_string(), Value::to_string);
            out.push((
                at.to_string(),
                "enum".to_string(),
                format!("{found} is not one of {}", allowed.join(", ")),
            ));
            return;
        }
        let best = branches
            .iter()
            .zip(&consts)
            .filter(|(b, _)| !b.is_empty())
            .min_by_key(|(b, c)| {
                let missing = b
                    .iter()
                    .filter(|x| matches!(x.kind(), K::Required { .. }))
                    .count();
                let depth = b
                    .iter()
                    .map(|x| x.instance_path().as_str().matches('/').count())
                    .max()
                    .unwrap_or(0);
                (c.is_some(), missing, b.len(), std::cmp::Reverse(depth))
            });
        if let Some((best, _)) = best {
            for sub in best {
                flatten_error(sub, out);
            }
            return;
        }
    }
    let mut pointer = e.instance_path().to_string();
    if let K::Required { property } = e.kind() {
        pointer.push('/');
        let name = property.as_str().map_or_else(
            || property.to_string(),
            |s| crate::vocab::pointer::escape(s).into_owned(),
        );
        pointer.push_str(&name);
    }
    let keyword = e.kind().keyword().to_string();
    let message = match e.kind() {
        K::Format { format } => format_message(e.instance(), format),
        _ => e.to_string(),
    };
    out.push((pointer, keyword, message));
}

fn format_message(instance: &Value, format: &str) -> String {
    let shown = match instance.as_str() {
        Some(s) if s.chars().count() > 40 => {
            format!("\"{}…\"", s.chars().take(40).collect::<String>())
        }
        _ => instance.to_string(),
    };
    match format {
        "byte" => format!("{shown} is not valid base64 (RFC 4648 standard alphabet)"),
        "uri" => format!("{shown} is not a valid URI"),
        other => format!("{shown} is not a valid \"{other}\""),
    }
}

fn classify_result(
    an: &Analysis<'_>,
    result: Option<&Value>,
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
        if an.req.task.is_some() && members.task.is_some_and(Value::is_object) {
            return ResultKind::Task;
        }
        return ResultKind::Complete;
    };
    match members.result_type {
        None => ResultKind::Complete,
        Some(Value::String(s)) => {
            if core.iter().any(|c| c == s) {
                return match s.as_str() {
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
                        ResultKind::Extension(s.clone())
                    };
                }
            }
            ResultKind::Unrecognized
        }
        Some(_) => ResultKind::Unrecognized,
    }
}

/// Runs one check outside a full judgement (tests, tooling).
pub fn run_check(
    analysis: &Analysis<'_>,
    protocol: Protocol,
    table: &RuleTable,
    rule_id: &str,
) -> Option<Eval> {
    let cx = Cx::new(analysis, protocol, table);
    let active = table.active_rule(protocol, rule_id)?;
    Some((table.rule_of(active).check.run)(&cx, &active.params))
}
