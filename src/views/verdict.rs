//! The owned, serialisable views of verdicts: the `classify --format json` contract, published
//! as `schemas/classify-output.schema.json`.

use std::borrow::Cow;

use schemars::JsonSchema;
use serde::Serialize;
use serde::ser::{SerializeStruct as _, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

use super::redact;
use crate::advice::RetryAdvice;
use crate::judge::{Difference, Facts, Judgement, Verdict};
use crate::rules::{Active, ActiveJson};
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

impl CiteOut {
    /// The citation of the active rule `a` (whose rule id is `id`) in the role given.
    fn of(id: &str, a: &Active, role: CiteRole) -> CiteOut {
        CiteOut {
            id: id.to_string(),
            role,
            level: a.level,
            url: a.cite.url.clone(),
            section: a.cite.section.clone(),
            quote: a.cite.quote.clone(),
        }
    }
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
    /// stdout line (1-based), for stdio exchanges.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
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

/// What settings changed in one rule's findings (`--ignore`, `--severity`, a settings file),
/// in output form.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct AdjustmentOut {
    /// Rule id.
    pub rule: String,
    /// `ignored` (not reported) or `severity` (reported with another severity).
    pub change: &'static str,
    /// The rule's own severity (for `severity`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<Severity>,
    /// The severity the settings gave it (for `severity`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to: Option<Severity>,
    /// How many findings it changed.
    pub count: usize,
    /// The setting that changed them: a flag (`--ignore`) or a settings file.
    pub by: String,
    /// `2 findings of RULE not reported (--ignore)`.
    pub message: String,
}

impl AdjustmentOut {
    /// The view of an adjustment.
    pub fn of(a: &crate::judge::Adjustment<'_>) -> AdjustmentOut {
        use crate::judge::Change;
        let what = if a.count == 1 { "finding" } else { "findings" };
        let (change, from, to, message) = match a.change {
            Change::Ignored => (
                "ignored",
                None,
                None,
                format!(
                    "{} {what} of {} not reported ({})",
                    a.count, a.rule.id, a.by
                ),
            ),
            Change::Severity { from, to } => (
                "severity",
                Some(from),
                Some(to),
                format!(
                    "{} {what} of {} reported as {to}, not {from} ({})",
                    a.count, a.rule.id, a.by
                ),
            ),
        };
        AdjustmentOut {
            rule: a.rule.id.clone(),
            change,
            from,
            to,
            count: a.count,
            by: a.by.clone(),
            message,
        }
    }
}

/// Where a finding is, for people: its JSONPath-like `path` in the message, prefixed by the
/// SSE event (`event[3].result.content`) or the stdout line (`stdout:4.params.progress`) it is
/// in, when it is in one.
pub fn place(path: &str, event: Option<usize>, line: Option<usize>) -> String {
    let rest = path.get(1..).unwrap_or_default();
    match (event, line) {
        (Some(e), _) => format!("event[{e}]{rest}"),
        (None, Some(l)) => format!("stdout:{l}{rest}"),
        (None, None) => path.to_string(),
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
    /// What settings changed in the findings (none unless settings select, ignore or set
    /// severities); the outcome never changes.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub settings: Vec<AdjustmentOut>,
    /// Whether and how a client may retry (default policy).
    pub retry: RetryAdvice,
}

impl VerdictOut {
    /// The view of a verdict (the `--format json` contract), with retry advice under the
    /// default policy.
    pub fn of(v: &Verdict<'_>) -> VerdictOut {
        let cite = |a: &Active, role: CiteRole| CiteOut::of(&v.table().rule_of(a).id, a, role);
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
                    line: f.line,
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
            settings: v.adjustments.iter().map(AdjustmentOut::of).collect(),
            retry: {
                let mut a = crate::advice::advise(v, &crate::advice::RetryPolicy::default());
                redact_in_place(&mut a.detail);
                a
            },
        }
    }
}

/// The facts as shown ([`redacted_facts`]), borrowed when redaction changes none of them.
pub(super) fn shown_facts(f: &Facts) -> Cow<'_, Facts> {
    fn same_text(s: &str) -> bool {
        matches!(redact::text(s), Cow::Borrowed(_))
    }
    fn same_value(v: &Value) -> bool {
        match v {
            Value::String(s) => same_text(s),
            Value::Array(_) | Value::Object(_) => redact::value(v) == *v,
            _ => true,
        }
    }
    if !redact::enabled() {
        return Cow::Borrowed(f);
    }
    let same = f.error.as_ref().is_none_or(|e| {
        e.message.as_deref().is_none_or(same_text) && e.data.as_ref().is_none_or(same_value)
    }) && f.body_excerpt.as_deref().is_none_or(same_text)
        && [&f.request_id, &f.response_id, &f.result_type]
            .into_iter()
            .flatten()
            .all(|v| v.as_str().is_none_or(same_text))
        && f.stream
            .as_ref()
            .and_then(|s| s.last_event_id.as_deref())
            .is_none_or(same_text);
    if same {
        Cow::Borrowed(f)
    } else {
        Cow::Owned(redacted_facts(f))
    }
}

/// Replaces `s` by its redacted form when redaction changed it.
fn redact_in_place(s: &mut String) {
    if let Cow::Owned(o) = redact::text(s) {
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

/// Made by the views, kept in the rule table's [`Active`] entries.
impl ActiveJson {
    /// The fragments of `a`, whose rule id is `id`: made the first time they are asked for.
    pub(super) fn of<'a>(id: &str, a: &'a Active) -> &'a ActiveJson {
        a.json.get_or_init(|| {
            let raw = |json: String| RawValue::from_string(json).expect("serialised JSON");
            let cite = |role| {
                raw(serde_json::to_string(&CiteOut::of(id, a, role)).expect("cites serialize"))
            };
            ActiveJson {
                cites: [
                    cite(CiteRole::Decided),
                    cite(CiteRole::Default),
                    cite(CiteRole::Context),
                ],
                id: raw(serde_json::to_string(id).expect("strings serialize")),
                url: raw(serde_json::to_string(&a.cite.url).expect("strings serialize")),
            }
        })
    }

    /// The citation's object in `role`.
    pub(super) fn cite(&self, role: CiteRole) -> &RawValue {
        &self.cites[role as usize]
    }
}

/// `serde_json::to_string_pretty(&JudgementOut::of(j, exchange))`, byte for byte: what
/// [`judgement_json`](super::judgement_json) writes, indented (each citation is built, to be
/// indented too).
pub fn judgement_json_pretty(j: &Judgement<'_>, exchange: Option<&str>) -> String {
    serde_json::to_string_pretty(&JudgementRef {
        judgement: j,
        exchange,
    })
    .expect("verdicts serialize")
}

/// A judgement serialised as its [`JudgementOut`] would be, borrowing from the judgement
/// (for the indented document; the compact one is written by hand, in `verdict_json`).
struct JudgementRef<'a> {
    judgement: &'a Judgement<'a>,
    exchange: Option<&'a str>,
}

/// A sequence serialised from the iterator its function makes, with no vector built.
struct SeqOf<F>(F);

impl<F, I> Serialize for SeqOf<F>
where
    F: Fn() -> I,
    I: IntoIterator,
    I::Item: Serialize,
{
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq((self.0)())
    }
}

// Field for field (names, order, omissions) as `JudgementOut` serialises.
impl Serialize for JudgementRef<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let j = self.judgement;
        let mut st = s.serialize_struct("JudgementOut", 3)?;
        if let Some(exchange) = self.exchange {
            st.serialize_field("exchange", exchange)?;
        }
        st.serialize_field(
            "verdicts",
            &SeqOf(|| j.verdicts.iter().map(|v| VerdictRef { verdict: v })),
        )?;
        st.serialize_field("differences", &j.differences())?;
        st.end()
    }
}

/// A verdict serialised as its [`VerdictOut`] would be.
struct VerdictRef<'a> {
    verdict: &'a Verdict<'a>,
}

/// [`DefaultOut`], borrowed.
#[derive(Serialize)]
struct DefaultRef<'a> {
    rule: &'a RawValue,
    field: &'a str,
    value: &'a Value,
    url: &'a RawValue,
}

/// [`FindingOut`], borrowed.
#[derive(Serialize)]
struct FindingRef<'a> {
    rule: &'a RawValue,
    severity: Severity,
    level: Level,
    layer: Layer,
    pointer: &'a str,
    path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    event: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<usize>,
    message: Cow<'a, str>,
    url: &'a RawValue,
}

// Field for field as `VerdictOut::of` and its serialisation; the redaction is the same.
impl<'a> Serialize for VerdictRef<'a> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let v = self.verdict;
        let table = v.table();
        // Each citation is built, to be indented too.
        let cite = |a: &'a Active, role| CiteOut::of(&table.rule_of(a).id, a, role);
        let mut st = s.serialize_struct("VerdictOut", 11)?;
        st.serialize_field("protocol", &v.protocol)?;
        st.serialize_field("outcome", &v.outcome)?;
        st.serialize_field("layer", &v.layer())?;
        st.serialize_field("summary", &*redact::text(&v.summary()))?;
        st.serialize_field(
            "cites",
            &SeqOf(|| {
                v.decided_by
                    .iter()
                    .map(|&a| cite(a, CiteRole::Decided))
                    .chain(v.defaults.iter().map(|&a| cite(a, CiteRole::Default)))
                    .chain(v.context.iter().map(|&a| cite(a, CiteRole::Context)))
            }),
        )?;
        st.serialize_field(
            "defaults",
            &SeqOf(|| {
                v.defaults.iter().filter_map(|a| {
                    let d = a.default.as_ref()?;
                    let json = ActiveJson::of(&table.rule_of(a).id, a);
                    Some(DefaultRef {
                        rule: &json.id,
                        field: &d.field,
                        value: &d.value,
                        url: &json.url,
                    })
                })
            }),
        )?;
        st.serialize_field(
            "findings",
            &SeqOf(|| {
                v.findings.iter().map(|f| {
                    let json = ActiveJson::of(&f.rule.id, f.active);
                    FindingRef {
                        rule: &json.id,
                        severity: f.severity,
                        level: f.active.level,
                        layer: f.rule.layer,
                        pointer: &f.pointer,
                        path: json_path(&f.pointer),
                        event: f.event,
                        line: f.line,
                        message: redact::text(&f.message),
                        url: &json.url,
                    }
                })
            }),
        )?;
        if !v.omitted.is_empty() {
            st.serialize_field("omitted", &SeqOf(|| v.omitted.iter().map(OmittedOut::of)))?;
        }
        st.serialize_field("facts", &shown_facts(&v.facts))?;
        if !v.notes.is_empty() {
            st.serialize_field("notes", &SeqOf(|| v.notes.iter().map(|n| redact::text(n))))?;
        }
        if !v.adjustments.is_empty() {
            st.serialize_field(
                "settings",
                &SeqOf(|| v.adjustments.iter().map(AdjustmentOut::of)),
            )?;
        }
        let mut retry = crate::advice::advise(v, &crate::advice::RetryPolicy::default());
        redact_in_place(&mut retry.detail);
        st.serialize_field("retry", &retry)?;
        st.end()
    }
}
