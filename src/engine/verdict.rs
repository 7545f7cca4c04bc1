//! Verdicts: what the table's effects make of the checks' evaluations, and their output form.

use std::borrow::Cow;
use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::{Analysis, Body, Cx, MessageMembers, ResultKind, ResultMembers};
use crate::checks::Eval;
use crate::rules::{Active, Rule, RuleTable};
use crate::vocab::Protocol;
use crate::vocab::pointer::json_path;
use crate::vocab::{Layer, Level, Outcome, Severity};

/// How a rule's check came out on one exchange.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum EvalStatus {
    /// The check's precondition did not hold.
    NotApplicable,
    /// Looked; condition absent.
    Passed,
    /// Condition present.
    Triggered,
}

/// A rule the responder (or the recorded request) broke.
#[derive(Clone, Debug)]
pub struct Finding<'t> {
    /// The rule.
    pub rule: &'t Rule,
    /// The rule under this revision.
    pub active: &'t Active,
    /// How serious.
    pub severity: Severity,
    /// JSON Pointer into the response message.
    pub pointer: String,
    /// What was found.
    pub message: String,
    /// SSE event index, for stream bodies.
    pub event: Option<usize>,
}

/// The verdict on one exchange under one revision.
#[derive(Clone, Debug)]
pub struct Verdict<'t> {
    /// The revision.
    pub protocol: Protocol,
    /// What a conforming client should conclude.
    pub outcome: Outcome,
    /// The rule that decided the outcome.
    pub decided_by: Option<&'t Active>,
    /// Other outcome rules that triggered but were outranked (e.g. a JSON-RPC error inside an
    /// HTTP 400), for context.
    pub context: Vec<&'t Active>,
    /// Defaults applied (absent `resultType`, absent `isError`).
    pub defaults: Vec<&'t Active>,
    /// Every finding, in table order.
    pub findings: Vec<Finding<'t>>,
    /// Every active rule's evaluation, indexed like [`RuleTable::active`] for the verdict's
    /// revision (table order).
    pub evaluations: Vec<EvalStatus>,
    /// Facts read off the exchange.
    pub facts: Facts,
    /// Remarks about what could not be judged.
    pub notes: Vec<String>,
    /// What the deciding rule's check found (its first hit), if it said anything.
    pub detail: Option<String>,
    /// What the exchange says about retrying (replay safety, Retry-After).
    pub retry: crate::retry::RetryContext,
    table: &'t RuleTable,
}

/// Facts read off the exchange (the same under every revision except error names).
#[derive(Clone, Debug, Default, PartialEq, Serialize, JsonSchema)]
pub struct Facts {
    /// HTTP status.
    pub http_status: u16,
    /// Response media type essence, or `(none)`.
    pub media_type: Cow<'static, str>,
    /// Body length in bytes.
    pub body_bytes: usize,
    /// How the body ended.
    pub body_end: Cow<'static, str>,
    /// The request's JSON-RPC method.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_method: Option<Cow<'static, str>>,
    /// The request's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<Value>,
    /// The tool called.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The response's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_id: Option<Value>,
    /// The JSON-RPC error, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorFacts>,
    /// `resultType` as received.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_type: Option<Value>,
    /// `isError` as received.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_error: Option<Value>,
    /// `type` of each content block.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub content_types: Vec<Cow<'static, str>>,
    /// The start of a body that is not JSON (HTML page, text), for context.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body_excerpt: Option<String>,
    /// What the SSE stream carried, for `text/event-stream` bodies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream: Option<StreamFacts>,
}

/// What an SSE response stream carried and how it ended.
#[derive(Clone, Debug, Default, PartialEq, Serialize, JsonSchema)]
pub struct StreamFacts {
    /// Dispatched events (each should carry one JSON-RPC message).
    pub events: usize,
    /// Blocks without data (e.g. the priming event), not dispatched.
    pub skipped_events: usize,
    /// Comment lines (keep-alives).
    pub comments: usize,
    /// Notifications by method.
    pub notifications: BTreeMap<String, usize>,
    /// Server-to-client requests by method.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub requests: BTreeMap<String, usize>,
    /// Responses seen (the final one included).
    pub responses: usize,
    /// Whether the response to this request arrived.
    pub final_response: bool,
    /// The event carrying it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_event: Option<usize>,
    /// Events that were not JSON.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub malformed_events: Vec<usize>,
    /// Why the stream ended: `complete` (EOF), `reset` or `timeout`.
    pub end: String,
    /// Bytes of an event left undispatched at the end (cut off mid-event).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undispatched_bytes: Option<usize>,
    /// The last event id the server sent (for resumption under revisions that allow it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_event_id: Option<String>,
}

fn stream_facts(an: &Analysis<'_>) -> Option<StreamFacts> {
    use super::MessageKind;
    let s = an.stream()?;
    let mut f = StreamFacts {
        events: s.messages.len(),
        skipped_events: s.parsed.skipped_empty.len(),
        comments: s.parsed.comments,
        final_response: s.final_index.is_some(),
        final_event: s.final_message().map(|m| m.event),
        end: an.ex.end.as_str().to_string(),
        undispatched_bytes: s
            .parsed
            .tail
            .as_ref()
            .map(|t| s.parsed.len.saturating_sub(t.start)),
        last_event_id: (!s.parsed.last_event_id.is_empty()).then(|| s.parsed.last_event_id.clone()),
        ..StreamFacts::default()
    };
    for m in &s.messages {
        match &m.kind {
            MessageKind::Notification => {
                *f.notifications
                    .entry(m.method().unwrap_or("?").to_string())
                    .or_default() += 1;
            }
            MessageKind::Request => {
                *f.requests
                    .entry(m.method().unwrap_or("?").to_string())
                    .or_default() += 1;
            }
            MessageKind::Response => f.responses += 1,
            MessageKind::BadJson(_) => f.malformed_events.push(m.event),
            MessageKind::Other => {}
        }
    }
    Some(f)
}

/// A JSON-RPC error as received.
#[derive(Clone, Debug, Default, PartialEq, Serialize, JsonSchema)]
pub struct ErrorFacts {
    /// `error.code` when an integer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<i64>,
    /// The code's name under the revision (e.g. `Invalid params`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `error.message`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// `error.data`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// Reads the facts of an analysed exchange under a revision.
pub fn facts_for(an: &Analysis<'_>, table: &RuleTable, protocol: Protocol) -> Facts {
    let members = an.message().map(MessageMembers::of).unwrap_or_default();
    let result = members
        .result
        .filter(|_| members.error.is_none())
        .and_then(Value::as_object)
        .map(ResultMembers::of)
        .unwrap_or_default();
    facts_of(an, &members, &result, table, protocol)
}

/// `result` holds the members of a result object (all `None` without one, or beside `error`).
fn facts_of(
    an: &Analysis<'_>,
    msg: &MessageMembers<'_>,
    result: &ResultMembers<'_>,
    table: &RuleTable,
    protocol: Protocol,
) -> Facts {
    let ex = an.ex;
    let error = msg.error.map(|e| {
        let code = e.get("code").and_then(crate::wire::analysis::as_integer);
        ErrorFacts {
            code,
            name: code.and_then(|c| table.profile(protocol).error_codes.get(&c).cloned()),
            message: e.get("message").and_then(Value::as_str).map(str::to_string),
            data: e.get("data").cloned(),
        }
    });
    let body_excerpt = match &an.body {
        Body::Opaque | Body::BadJson(_) | Body::NotUtf8 { .. } => Some(excerpt(&ex.body, 160)),
        _ => None,
    };
    Facts {
        http_status: ex.status,
        media_type: match &an.media {
            crate::wire::analysis::Media::Json => Cow::Borrowed("application/json"),
            crate::wire::analysis::Media::EventStream => Cow::Borrowed("text/event-stream"),
            crate::wire::analysis::Media::Missing => Cow::Borrowed("(none)"),
            crate::wire::analysis::Media::Other(m) => Cow::Owned(m.clone()),
        },
        body_bytes: ex.body.len(),
        body_end: Cow::Borrowed(ex.end.as_str()),
        request_method: an.req.method.map(|m| match m {
            "tools/call" => Cow::Borrowed("tools/call"),
            other => Cow::Owned(other.to_string()),
        }),
        request_id: an.req.id.cloned(),
        tool: an.req.tool_name.map(str::to_string),
        response_id: msg.id.cloned(),
        error,
        result_type: result.result_type.cloned(),
        is_error: result.is_error.cloned(),
        content_types: result
            .content
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .map(|b| match b.get("type").and_then(Value::as_str) {
                        Some(t @ ("text" | "image" | "audio" | "resource_link" | "resource")) => {
                            Cow::Borrowed(match t {
                                "text" => "text",
                                "image" => "image",
                                "audio" => "audio",
                                "resource_link" => "resource_link",
                                _ => "resource",
                            })
                        }
                        Some(other) => Cow::Owned(other.to_string()),
                        None => Cow::Borrowed("?"),
                    })
                    .collect()
            })
            .unwrap_or_default(),
        body_excerpt,
        stream: stream_facts(an),
    }
}

/// The first `max` characters of a body, lossily decoded, with control characters shown.
pub fn excerpt(bytes: &[u8], max: usize) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut out: String = text
        .chars()
        .take(max)
        .map(|c| match c {
            '\n' => '⏎',
            c if c.is_control() => '·',
            c => c,
        })
        .collect();
    if text.chars().count() > max {
        out.push('…');
    }
    out
}

impl<'t> Verdict<'t> {
    pub(super) fn assemble(
        cx: &Cx<'_>,
        table: &'t RuleTable,
        actives: &'t [Active],
        evals: impl Iterator<Item = (usize, Eval)>,
    ) -> Verdict<'t> {
        // Rules the engine did not run could only say "not applicable".
        let mut evaluations = vec![EvalStatus::NotApplicable; actives.len()];
        let mut findings = Vec::new();
        let mut defaults = Vec::new();
        // The deciding rule is the triggered outcome rule with the lowest precedence; only its
        // first hit is kept (as the verdict's detail), so the success path allocates nothing.
        let mut decided_by: Option<&'t Active> = None;
        let mut detail: Option<String> = None;
        for (i, eval) in evals {
            let hits = match eval {
                Eval::NotApplicable => continue,
                Eval::Pass => {
                    evaluations[i] = EvalStatus::Passed;
                    continue;
                }
                Eval::Trigger(hits) => hits,
            };
            evaluations[i] = EvalStatus::Triggered;
            let active = &actives[i];
            let rule = table.rule_of(active);
            if active.outcome.is_some()
                && decided_by.is_none_or(|d| active.precedence < d.precedence)
            {
                decided_by = Some(active);
                detail = hits.first().map(|h| h.message.clone());
            }
            if active.default.is_some() {
                defaults.push(active);
            }
            let message_event = match rule.layer {
                crate::vocab::Layer::Transport | crate::vocab::Layer::Framing => None,
                _ => cx.an.message_event(),
            };
            if let Some(severity) = active.severity {
                if hits.is_empty() {
                    findings.push(Finding {
                        rule,
                        active,
                        severity,
                        pointer: String::new(),
                        message: rule.title.clone(),
                        event: None,
                    });
                }
                for h in hits {
                    findings.push(Finding {
                        rule,
                        active,
                        severity,
                        pointer: h.pointer,
                        message: h.message,
                        event: h.event.or(message_event),
                    });
                }
            }
        }
        let mut notes = Vec::new();
        let outcome = match decided_by {
            Some(a) => a.outcome.expect("outcome rules have outcomes"),
            None => {
                notes.push(
                    "no outcome rule applied to this exchange under this revision; the rule table has a gap (reported as INVALID_ENVELOPE)"
                        .to_string(),
                );
                Outcome::InvalidEnvelope
            }
        };
        // When the transport decided, say what the body carried (e.g. a JSON-RPC error inside
        // an HTTP 400); otherwise outranked outcomes only restate what the findings show.
        let context = match decided_by {
            Some(d) if outcome.layer() == crate::vocab::Layer::Transport => evaluations
                .iter()
                .zip(actives)
                .filter(|(s, _)| **s == EvalStatus::Triggered)
                .map(|(_, a)| a)
                .filter(|a| a.outcome.is_some() && a.outcome != d.outcome)
                .min_by_key(|a| a.precedence)
                .into_iter()
                .collect(),
            _ => Vec::new(),
        };
        if cx.an.req.body.is_none() {
            notes.push(
                "the request was not recorded: id matching and request-dependent rules were not applied"
                    .to_string(),
            );
        }
        if matches!(cx.kind(), ResultKind::Extension(_)) {
            notes.push(
                "the result is an extension result type this engine does not inspect further"
                    .to_string(),
            );
        }
        Verdict {
            protocol: cx.protocol,
            outcome,
            decided_by,
            context,
            defaults,
            findings,
            evaluations,
            facts: facts_of(cx.an, cx.members(), cx.result_members(), table, cx.protocol),
            notes,
            detail,
            retry: crate::retry::RetryContext::of(cx.an.ex),
            table,
        }
    }

    /// The outcome's layer.
    pub fn layer(&self) -> Layer {
        self.outcome.layer()
    }

    /// The rule table the verdict was reached with.
    pub fn table(&self) -> &'t RuleTable {
        self.table
    }

    /// The rule that decided the outcome.
    pub fn deciding_rule(&self) -> Option<&'t Rule> {
        self.decided_by.map(|a| self.table.rule_of(a))
    }

    /// Ids of every cited rule: the deciding rule, then defaults, then context.
    pub fn cited_ids(&self) -> impl Iterator<Item = &'t str> + '_ {
        self.decided_by
            .iter()
            .chain(self.defaults.iter())
            .chain(self.context.iter())
            .map(|a| self.table.rule_of(a).id.as_str())
    }

    /// Whether a rule id is cited or found.
    pub fn mentions(&self, id: &str) -> bool {
        self.cited_ids().any(|c| c == id) || self.findings.iter().any(|f| f.rule.id == id)
    }

    /// The worst finding severity.
    pub fn worst(&self) -> Option<Severity> {
        self.findings.iter().map(|f| f.severity).max()
    }

    /// A one-line explanation of the outcome, with the specifics of this exchange.
    pub fn summary(&self) -> String {
        let f = &self.facts;
        let mut s = match self.outcome {
            Outcome::JsonrpcError => format!("{}: {}", error_label(f), self.outcome.meaning()),
            _ => self.outcome.meaning().to_string(),
        };
        if let Some(d) = &self.detail {
            s.push_str(" — ");
            s.push_str(d);
        }
        if self.outcome == Outcome::HttpError && f.error.is_some() {
            s.push_str(&format!("; the body carries {}", error_label(f)));
        }
        s
    }

    /// The evaluation status of a rule by id.
    pub fn status_of(&self, id: &str) -> Option<EvalStatus> {
        let actives = self.table.active(self.protocol);
        let i = actives
            .iter()
            .position(|a| self.table.rule_of(a).id == id)?;
        self.evaluations.get(i).copied()
    }

    /// The owned, serialisable form (the `--format json` contract).
    pub fn to_output(&self) -> VerdictOut {
        let cite = |a: &Active, role: CiteRole| {
            let r = self.table.rule_of(a);
            CiteOut {
                id: r.id.clone(),
                role,
                level: a.level,
                url: a.cite.url.clone(),
                section: a.cite.section.clone(),
                quote: a.cite.quote.clone(),
            }
        };
        let mut cites = Vec::new();
        if let Some(a) = self.decided_by {
            cites.push(cite(a, CiteRole::Decided));
        }
        cites.extend(self.defaults.iter().map(|a| cite(a, CiteRole::Default)));
        cites.extend(self.context.iter().map(|a| cite(a, CiteRole::Context)));
        VerdictOut {
            protocol: self.protocol,
            outcome: self.outcome,
            layer: self.layer(),
            summary: self.summary(),
            cites,
            defaults: self
                .defaults
                .iter()
                .filter_map(|a| {
                    let d = a.default.as_ref()?;
                    Some(DefaultOut {
                        rule: self.table.rule_of(a).id.clone(),
                        field: d.field.clone(),
                        value: d.value.clone(),
                        url: a.cite.url.clone(),
                    })
                })
                .collect(),
            findings: self
                .findings
                .iter()
                .map(|f| FindingOut {
                    rule: f.rule.id.clone(),
                    severity: f.severity,
                    level: f.active.level,
                    layer: f.rule.layer,
                    pointer: f.pointer.clone(),
                    path: json_path(&f.pointer),
                    event: f.event,
                    message: f.message.clone(),
                    url: f.active.cite.url.clone(),
                })
                .collect(),
            facts: self.facts.clone(),
            notes: self.notes.clone(),
            retry: self.retry_advice(&crate::retry::RetryPolicy::default()),
        }
    }
}

fn error_label(f: &Facts) -> String {
    match &f.error {
        Some(e) => match (e.code, &e.name) {
            (Some(c), Some(n)) => format!("JSON-RPC error {c} ({n})"),
            (Some(c), None) => format!("JSON-RPC error {c}"),
            _ => "a JSON-RPC error".to_string(),
        },
        None => "a JSON-RPC error".to_string(),
    }
}

/// Why a rule is cited.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum CiteRole {
    /// It decided the outcome.
    Decided,
    /// It supplied a default.
    Default,
    /// It also applied but was outranked.
    Context,
}

/// A cited rule in output form.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct CiteOut {
    /// Rule id.
    pub id: String,
    /// Why it is cited.
    pub role: CiteRole,
    /// Requirement level.
    pub level: Level,
    /// Spec URL of the cited sentence.
    pub url: String,
    /// The section, for people.
    pub section: String,
    /// The cited sentence.
    pub quote: String,
}

/// A default applied, in output form.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct DefaultOut {
    /// Rule id.
    pub rule: String,
    /// The absent field.
    pub field: String,
    /// The value it was taken to have.
    pub value: Value,
    /// Spec URL.
    pub url: String,
}

/// A finding in output form.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct FindingOut {
    /// Rule id.
    pub rule: String,
    /// `error`, `warning` or `info`.
    pub severity: Severity,
    /// Requirement level of the rule.
    pub level: Level,
    /// Layer of the rule.
    pub layer: Layer,
    /// JSON Pointer into the response message (empty: the exchange as a whole).
    pub pointer: String,
    /// The same location as a JSONPath-like string (`$.result.content[0]`).
    pub path: String,
    /// SSE event index, for stream bodies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<usize>,
    /// What was found.
    pub message: String,
    /// Spec URL of the rule.
    pub url: String,
}

/// A verdict in output form.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct VerdictOut {
    /// The revision.
    pub protocol: Protocol,
    /// The outcome.
    pub outcome: Outcome,
    /// The outcome's layer.
    pub layer: Layer,
    /// One line on what happened.
    pub summary: String,
    /// The rules that decided the verdict (deciding rule first, then defaults, then context).
    pub cites: Vec<CiteOut>,
    /// Defaults applied.
    pub defaults: Vec<DefaultOut>,
    /// Conformance findings.
    pub findings: Vec<FindingOut>,
    /// Facts read off the exchange.
    pub facts: Facts,
    /// Remarks about what could not be judged.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Whether and how a client may retry (default policy).
    pub retry: crate::retry::RetryAdvice,
}

/// How verdicts under different revisions differ.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct Difference {
    /// `outcome`, or `finding <rule id>`.
    pub aspect: String,
    /// The value under each revision (`-` where a finding is absent).
    pub values: BTreeMap<String, String>,
}

/// Verdicts on one exchange under one or more revisions.
#[derive(Clone, Debug)]
pub struct Judgement<'t> {
    /// One verdict per revision, oldest revision first.
    pub verdicts: Vec<Verdict<'t>>,
}

impl<'t> Judgement<'t> {
    pub(super) fn new(mut verdicts: Vec<Verdict<'t>>) -> Judgement<'t> {
        verdicts.sort_by_key(|v| v.protocol);
        verdicts.dedup_by_key(|v| v.protocol);
        Judgement { verdicts }
    }

    /// What differs between the verdicts (empty with a single revision).
    pub fn differences(&self) -> Vec<Difference> {
        let mut out = Vec::new();
        if self.verdicts.len() < 2 {
            return out;
        }
        let outcomes: BTreeMap<String, String> = self
            .verdicts
            .iter()
            .map(|v| (v.protocol.to_string(), v.outcome.to_string()))
            .collect();
        if outcomes
            .values()
            .collect::<std::collections::BTreeSet<_>>()
            .len()
            > 1
        {
            out.push(Difference {
                aspect: "outcome".into(),
                values: outcomes,
            });
        }
        let mut rules: Vec<&str> = self
            .verdicts
            .iter()
            .flat_map(|v| v.findings.iter().map(|f| f.rule.id.as_str()))
            .collect();
        rules.sort_unstable();
        rules.dedup();
        for id in rules {
            let values: BTreeMap<String, String> = self
                .verdicts
                .iter()
                .map(|v| {
                    let sev = v
                        .findings
                        .iter()
                        .filter(|f| f.rule.id == id)
                        .map(|f| f.severity)
                        .max();
                    (
                        v.protocol.to_string(),
                        sev.map_or_else(|| "-".to_string(), |s| s.to_string()),
                    )
                })
                .collect();
            if values
                .values()
                .collect::<std::collections::BTreeSet<_>>()
                .len()
                > 1
            {
                out.push(Difference {
                    aspect: format!("finding {id}"),
                    values,
                });
            }
        }
        out
    }

    /// The owned, serialisable form.
    pub fn to_output(&self, exchange: Option<String>) -> JudgementOut {
        JudgementOut {
            exchange,
            verdicts: self.verdicts.iter().map(Verdict::to_output).collect(),
            differences: self.differences(),
        }
    }
}

/// `mcp-verdict classify --format json` output: one object per exchange.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[schemars(
    title = "mcp-verdict classify output",
    description = "Verdicts on one MCP tools/call exchange, one per protocol revision judged."
)]
pub struct JudgementOut {
    /// The exchange's name or file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exchange: Option<String>,
    /// One verdict per revision.
    pub verdicts: Vec<VerdictOut>,
    /// What differs between revisions.
    pub differences: Vec<Difference>,
}

/// The JSON Schema of `classify --format json` output, as published in
/// `schemas/classify-output.schema.json`.
pub fn classify_output_json_schema() -> Value {
    let generator = schemars::generate::SchemaSettings::default()
        .for_serialize()
        .into_generator();
    serde_json::to_value(generator.into_root_schema_for::<JudgementOut>())
        .expect("schema serializes")
}
