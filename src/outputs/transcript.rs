//! `classify --transcript`: the report of a stdio session transcript as text and as JSON.

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use super::Style;
use super::safe::text as esc;
use crate::run::transcript::{CallResult, Report, Summary, call_label};
use crate::views::{JudgementOut, redact};

/// One call in `--format json` output.
#[derive(Clone, Debug, Serialize)]
pub struct CallOut {
    /// The transcript line (1-based) of the request.
    pub line: usize,
    /// The request's id.
    pub id: Value,
    /// The tool called.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The verdicts, for a judged call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judgement: Option<JudgementOut>,
    /// Why the call could not be judged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// `mcp-verdict classify --transcript FILE --format json` output.
#[derive(Clone, Debug, Serialize)]
pub struct ReportOut {
    /// The transcript file.
    pub file: String,
    /// Every tools/call, in request order.
    pub calls: Vec<CallOut>,
    /// Counts.
    pub summary: Summary,
}

/// The `--format json` document of a transcript report.
pub fn view(report: &Report<'_, '_>, file: &str) -> ReportOut {
    let calls = report
        .session
        .calls
        .iter()
        .zip(&report.results)
        .map(|(c, r)| CallOut {
            line: c.line,
            id: redact::value(&c.id),
            tool: c.tool.clone(),
            judgement: match r {
                CallResult::Judged(j) => Some(JudgementOut::of(j, Some(call_label(file, c.line)))),
                CallResult::NotJudged(_) => None,
            },
            error: match r {
                CallResult::NotJudged(why) => Some(redact::text(why).into_owned()),
                CallResult::Judged(_) => None,
            },
        })
        .collect();
    ReportOut {
        file: file.to_string(),
        calls,
        summary: report.summary.clone(),
    }
}

/// The text rendering of a transcript report: per call a header and its verdicts (or why it was
/// not judged), then the counts.
pub fn text(report: &Report<'_, '_>, file: &str, style: Style) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: stdio transcript, {} entries",
        style.bold(&esc(file)),
        report.session.entries
    );
    for (c, r) in report.session.calls.iter().zip(&report.results) {
        let tool = c
            .tool
            .as_deref()
            .map_or_else(String::new, |t| format!(" (tool {})", esc(t)));
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "{}",
            style.bold(&format!(
                "line {}: tools/call id {}{tool}",
                c.line,
                esc(&redact::value(&c.id).to_string())
            ))
        );
        match r {
            CallResult::Judged(j) => {
                let text = super::verdict::judgement(j, &call_label(file, c.line), style);
                // The renderer's first line is the label; the call header replaces it.
                out.push_str(text.split_once('\n').map_or("", |(_, rest)| rest));
            }
            CallResult::NotJudged(why) => {
                let _ = writeln!(out, "  not judged: {}", esc(&redact::text(why)));
            }
        }
    }
    let s = &report.summary;
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", style.bold("summary"));
    let _ = writeln!(
        out,
        "  judged        {} tools/call ({} with error-severity findings)",
        s.judged, s.with_error_findings
    );
    let _ = writeln!(out, "  not judged    {} tools/call", s.not_judged);
    let other: usize = s.other.values().sum();
    let kinds: Vec<String> = s
        .other
        .iter()
        .map(|(k, n)| format!("{} {n}", esc(k)))
        .collect();
    if kinds.is_empty() {
        let _ = writeln!(out, "  other         0");
    } else {
        let _ = writeln!(
            out,
            "  other         {other} client message(s), not judged: {}",
            kinds.join(", ")
        );
    }
    out
}
