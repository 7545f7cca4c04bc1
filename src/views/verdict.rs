//! The owned, serialisable views of verdicts: the `classify --format json` contract, published
//! as `schemas/classify-output.schema.json`.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::redact;
use crate::advice::RetryAdvice;
use crate::judge::{Difference, Facts, Judgement, Verdict};
use crate::rules::Active;
use crate::vocab::pointer::json_path;
use crate::vocab::{Layer, Level, Outcome, Protocol, Severity};

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

/// Findings of one rule a cap left out (`--max-findings-per-rule`), in output form.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct OmittedOut {
    /// Rule id.
    pub rule: String,
    /// The severity of its findings.
    pub severity: Severity,
    /// How many findings of the rule are not listed.
    pub count: usize,
    /// `N more findings of RULE not shown`.
    pub message: String,
}

impl OmittedOut {
    /// The view of a count of omitted findings.
    pub fn of(o: &crate::judge::Omitted<'_>) -> OmittedOut {
        OmittedOut {
            rule: o.rule.id.clone(),
            severity: o.severity,
            count: o.count,
            message: omitted_message(o.count, &o.rule.id),
        }
    }
}

/// `N more finding(s) of RULE not shown (--max-findings-per-rule)`.
pub fn omitted_message(count: usize, rule: &str) -> String {
    let what = if count == 1 { "finding" } else { "findings" };
    format!("{count} more {what} of {rule} not shown (--max-findings-per-rule)")
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
    /// Conformance findings (at most `--max-findings-per-rule` per rule).
    pub findings: Vec<FindingOut>,
    /// Per rule, how many findings the cap left out.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub omitted: Vec<OmittedOut>,
    /// Facts read off the exchange.
    pub facts: Facts,
    /// Remarks about what could not be judged.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Whether and how a client may retry (default policy).
    pub retry: RetryAdvice,
}

impl VerdictOut {
    /// The view of a verdict (the `--format json` contract), with retry advice under the
    /// default policy.
    pub fn of(v: &Verdict<'_>) -> VerdictOut {
        let cite = |a: &Active, role: CiteRole| {
            let r = v.table().rule_of(a);
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
        if let Some(a) = v.decided_by {
            cites.push(cite(a, CiteRole::Decided));
        }
        cites.extend(v.defaults.iter().map(|a| cite(a, CiteRole::Default)));
        cites.extend(v.context.iter().map(|a| cite(a, CiteRole::Context)));
        VerdictOut {
            protocol: v.protocol,
            outcome: v.outcome,
            layer: v.layer(),
            summary: redact::text(&v.summary()).into_owned(),
            cites,
            defaults: v
                .defaults
                .iter()
                .filter_map(|a| {
                    let d = a.default.as_ref()?;
                    Some(DefaultOut {
                        rule: v.table().rule_of(a).id.clone(),
                        field: d.field.clone(),
                        value: d.value.clone(),
                        url: a.cite.url.clone(),
                    })
                })
                .collect(),
            findings: v
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
                    message: redact::text(&f.message).into_owned(),
                    url: f.active.cite.url.clone(),
                })
                .collect(),
            omitted: v.omitted.iter().map(OmittedOut::of).collect(),
            facts: redacted_facts(&v.facts),
            notes: v
                .notes
                .iter()
                .map(|n| redact::text(n).into_owned())
                .collect(),
            retry: {
                let mut a = crate::advice::advise(v, &crate::advice::RetryPolicy::default());
                redact_in_place(&mut a.detail);
                a
            },
        }
    }
}

/// Replaces `s` by its redacted form when redaction changed it.
fn redact_in_place(s: &mut String) {
    if let std::borrow::Cow::Owned(o) = redact::text(s) {
        *s = o;
    }
}

/// The facts as shown: what the server wrote (error message and data, a body excerpt, ids
/// and `resultType`) with its secrets redacted ([`redact`]). Only those members are scanned,
/// so a verdict without an error costs nothing more.
fn redacted_facts(f: &Facts) -> Facts {
    let mut out = f.clone();
    if !redact::enabled() {
        return out;
    }
    if let Some(e) = &mut out.error {
        if let Some(m) = &mut e.message {
            redact_in_place(m);
        }
        if let Some(d) = &mut e.data {
            *d = redact::value(d);
        }
    }
    if let Some(x) = &mut out.body_excerpt {
        redact_in_place(x);
    }
    for v in [
        &mut out.request_id,
        &mut out.response_id,
        &mut out.result_type,
    ]
    .into_iter()
    .flatten()
    {
        if v.is_string() {
            *v = redact::value(v);
        }
    }
    if let Some(s) = &mut out.stream
        && let Some(id) = &mut s.last_event_id
    {
        redact_in_place(id);
    }
    out
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

impl JudgementOut {
    /// The view of a judgement.
    pub fn of(j: &Judgement<'_>, exchange: Option<String>) -> JudgementOut {
        JudgementOut {
            exchange,
            verdicts: j.verdicts.iter().map(VerdictOut::of).collect(),
            differences: j.differences(),
        }
    }
}
