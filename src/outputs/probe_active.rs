//! How the active checks of a probe (`--active`) are shown: one JSON object per check, a text
//! block per run, and their exchanges as exchange files.

use std::fmt::Write as _;

use serde::Serialize;

use super::Style;
use crate::probe::{ActiveCheck, ActiveFinding, ActiveResult, Expected, RevisionRun};
use crate::views::JudgementOut;
use crate::views::redact;

/// One active check in output form.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActiveOut {
    /// Short name of the check.
    pub check: String,
    /// What was sent.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub sent: String,
    /// The rule whose expectation the check tests (absent for a check that tests a spec
    /// sentence no rule of the table encodes, `tampered-state`).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub rule: String,
    /// The rule's citation under the run's revision (URL and quote), or the sentence a check
    /// without a rule tests.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cite: Option<CiteOut>,
    /// What the rule says the server must answer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<Expected>,
    /// What the check wants, when no status and code say it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wants: Option<String>,
    /// What the server answered.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub got: Option<String>,
    /// Whether the answer was the one the check wants (`expected` or `wants`); true whenever
    /// the result is `passed`.
    pub as_expected: bool,
    /// `passed`, `findings`, `not-judged` or `skipped`, with a `reason` for the latter two.
    #[serde(flatten)]
    pub result: ActiveResult,
    /// Findings.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub findings: Vec<ActiveFinding>,
    /// The engine's judgement of the exchange, when a response arrived.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judgement: Option<JudgementOut>,
}

/// A rule's citation.
#[derive(Debug, Clone, Serialize)]
pub struct CiteOut {
    /// Spec URL.
    pub url: String,
    /// Spec text.
    pub quote: String,
}

fn shown(s: &str) -> String {
    redact::text(s).into_owned()
}

fn esc(s: &str) -> String {
    super::safe::text(&redact::text(s)).into_owned()
}

/// The output form of a run's active checks.
pub fn active_out(r: &RevisionRun) -> Vec<ActiveOut> {
    r.active
        .iter()
        .map(|c| ActiveOut {
            check: c.check.to_string(),
            sent: shown(&c.sent),
            rule: c.rule.to_string(),
            cite: c.cite(r.protocol).map(|cite| CiteOut {
                url: cite.url,
                quote: cite.quote,
            }),
            expected: c.expected,
            wants: c.wants.map(str::to_string),
            got: c.got.as_deref().map(shown),
            as_expected: c.as_expected,
            result: match &c.result {
                ActiveResult::NotJudged(w) => ActiveResult::NotJudged(shown(w)),
                ActiveResult::Skipped(w) => ActiveResult::Skipped(shown(w)),
                other => other.clone(),
            },
            findings: c
                .findings
                .iter()
                .map(|f| ActiveFinding {
                    message: shown(&f.message),
                    ..f.clone()
                })
                .collect(),
            judgement: c
                .exchange
                .as_ref()
                .map(|(ex, j)| JudgementOut::of(j, ex.name.clone())),
        })
        .collect()
}

/// The text block of a run's active checks (empty when there are none).
pub fn render_active(out: &mut String, r: &RevisionRun, style: Style) {
    if r.active.is_empty() {
        return;
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", style.bold("-- active checks"));
    for c in &r.active {
        render_check(out, c, &c.cited(r.protocol), style);
    }
    // The error paths the auto calls already provoke (an unknown tool, invalid arguments) are
    // judged calls above; listed here once more, by verdict, so that the block is complete.
    for x in r
        .exchanges
        .iter()
        .filter(|x| x.round == 1 && !matches!(x.call.kind, crate::probe::CallKind::Named))
    {
        let v = x.verdict();
        let code = v
            .facts
            .error
            .as_ref()
            .and_then(|e| e.code)
            .map_or_else(String::new, |c| format!(" {c}"));
        let errors = v
            .findings
            .iter()
            .filter(|f| f.severity == crate::vocab::Severity::Error)
            .count();
        let _ = writeln!(
            out,
            "   {:<26} {}: {}{code}, {} (the call above)",
            esc(&x.label),
            style.bold("call"),
            v.outcome,
            if errors == 0 {
                "no error finding".to_string()
            } else {
                format!("{errors} error finding(s)")
            }
        );
    }
    let count = |f: fn(&ActiveResult) -> bool| r.active.iter().filter(|c| f(&c.result)).count();
    let _ = writeln!(
        out,
        "   {} passed, {} with findings, {} not judged, {} skipped",
        count(|x| matches!(x, ActiveResult::Passed)),
        count(|x| matches!(x, ActiveResult::Findings)),
        count(|x| matches!(x, ActiveResult::NotJudged(_))),
        count(|x| matches!(x, ActiveResult::Skipped(_))),
    );
}

fn render_check(out: &mut String, c: &ActiveCheck, cited: &str, style: Style) {
    let (mark, what) = match &c.result {
        ActiveResult::Passed => (
            "passed",
            format!(
                "{} ({})",
                c.got.as_deref().map_or_else(String::new, esc),
                cited
            ),
        ),
        ActiveResult::Findings if c.as_expected => (
            "FINDING",
            format!(
                "{} as expected ({}), but the answer breaks other rules",
                c.got.as_deref().map_or_else(String::new, esc),
                cited
            ),
        ),
        ActiveResult::Findings => (
            "FINDING",
            format!(
                "expected {}, got {}",
                c.expected.map_or_else(
                    || c.wants.unwrap_or("what its rule says").to_string(),
                    |e| e.to_string()
                ),
                c.got.as_deref().map_or_else(|| "no response".into(), esc)
            ),
        ),
        ActiveResult::NotJudged(w) => ("not judged", esc(w)),
        ActiveResult::Skipped(w) => ("skipped", esc(w)),
    };
    let _ = writeln!(out, "   {:<26} {}: {what}", c.check, style.bold(mark));
    if !c.sent.is_empty() && !matches!(c.result, ActiveResult::Passed) {
        let _ = writeln!(out, "      sent: {}", esc(&c.sent));
    }
    for f in &c.findings {
        let _ = writeln!(
            out,
            "      {:<7} {}  {}",
            f.severity.to_string(),
            f.rule,
            esc(&f.message)
        );
        let _ = writeln!(out, "              {}", f.url);
        let _ = writeln!(out, "              “{}”", f.quote);
    }
}

/// The exchanges of a run's active checks, with a file stem and a description each.
pub fn active_exchanges(
    r: &RevisionRun,
) -> impl Iterator<Item = (String, &crate::wire::exchange::Exchange, String)> {
    r.active.iter().filter_map(move |c| {
        let (ex, _) = c.exchange.as_ref()?;
        Some((
            format!("{}-active-{}", r.protocol, c.check),
            ex,
            format!("active check {}: {}", c.check, c.sent),
        ))
    })
}

/// The active checks' part of the report's last line: `, N active check(s) with error
/// findings` (empty without `--active`).
pub fn summary(report: &crate::probe::ProbeReport) -> String {
    let checks: Vec<&ActiveCheck> = report.runs.iter().flat_map(|r| &r.active).collect();
    if checks.is_empty() {
        return String::new();
    }
    let errors = checks.iter().filter(|c| c.has_error_finding()).count();
    format!(
        ", {errors} of {} active check(s) with error findings",
        checks.len()
    )
}
