//! `classify --har`: the report of a HAR capture as text and as JSON.

use std::fmt::Write as _;

use serde::Serialize;

use super::Style;
use super::safe::text as esc;
use crate::run::har::{EntryResult, Report, Summary, entry_label};
use crate::views::{JudgementOut, redact};

/// One entry in `--format json` output.
#[derive(Clone, Debug, Serialize)]
pub struct EntryOut {
    /// Position in `log.entries` (0-based).
    pub index: usize,
    /// HTTP method.
    pub method: String,
    /// Request URL (credential-named query parameters redacted).
    pub url: String,
    /// `startedDateTime`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started: Option<String>,
    /// The tool called.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The verdicts, for a judged tools/call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judgement: Option<JudgementOut>,
    /// The kind, for an entry that is not a tools/call.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    /// `true` for a tools/call whose response was not recorded.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub not_recorded: bool,
    /// Why the response counts as not recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Why a tools/call could not be judged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// How the capture was read.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

/// `mcp-verdict classify --har FILE --format json` output.
#[derive(Clone, Debug, Serialize)]
pub struct ReportOut {
    /// The HAR file.
    pub file: String,
    /// `log.creator`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub creator: Option<String>,
    /// Every entry, in file order.
    pub entries: Vec<EntryOut>,
    /// Counts.
    pub summary: Summary,
}

/// The `--format json` document of a HAR report.
pub fn view(report: &Report<'_, '_>, file: &str) -> ReportOut {
    let entries = report
        .har
        .entries
        .iter()
        .zip(&report.results)
        .map(|(e, r)| {
            let mut out = EntryOut {
                index: e.index,
                method: e.method.clone(),
                url: redact::url(&e.url).into_owned(),
                started: e.started.clone(),
                tool: e.tool.clone(),
                judgement: None,
                skipped: None,
                not_recorded: false,
                reason: None,
                error: None,
                notes: e
                    .notes
                    .iter()
                    .map(|n| redact::text(n).into_owned())
                    .collect(),
            };
            match r {
                EntryResult::Judged(j) => {
                    out.judgement = Some(crate::views::JudgementOut::of(
                        j,
                        Some(entry_label(file, e.index)),
                    ));
                }
                EntryResult::NotRecorded(why) => {
                    out.not_recorded = true;
                    out.reason = Some(redact::text(why).into_owned());
                }
                EntryResult::NotJudged(why) => out.error = Some(redact::text(why).into_owned()),
                EntryResult::Skipped(k) => out.skipped = Some(k.label()),
            }
            out
        })
        .collect();
    ReportOut {
        file: file.to_string(),
        creator: report.har.creator.clone(),
        entries,
        summary: report.summary.clone(),
    }
}

/// The text rendering of a HAR report: per tools/call entry a header and its verdicts (or why
/// it was not judged), then the counts.
pub fn text(report: &Report<'_, '_>, file: &str, style: Style) -> String {
    let mut out = String::new();
    let from = match (&report.har.version, &report.har.creator) {
        (Some(v), Some(c)) => format!(" (HAR {}, {})", esc(v), esc(c)),
        (Some(v), None) => format!(" (HAR {})", esc(v)),
        (None, Some(c)) => format!(" ({})", esc(c)),
        (None, None) => String::new(),
    };
    let _ = writeln!(
        out,
        "{}{}: {} entries",
        style.bold(&esc(file)),
        from,
        report.har.entries.len()
    );
    for (e, r) in report.har.entries.iter().zip(&report.results) {
        if matches!(r, EntryResult::Skipped(_)) {
            continue;
        }
        let tool = e
            .tool
            .as_deref()
            .map_or_else(String::new, |t| format!(" (tool {})", esc(t)));
        let _ = writeln!(out);
        let _ = writeln!(
            out,
            "{}",
            style.bold(&format!(
                "entry {}: {} {}{tool}",
                e.index,
                esc(&e.method),
                esc(&redact::url(&e.url))
            ))
        );
        match r {
            EntryResult::Judged(j) => {
                let text = super::verdict::judgement(j, &entry_label(file, e.index), style);
                // The renderer's first line is the label; the entry header replaces it.
                out.push_str(text.split_once('\n').map_or("", |(_, rest)| rest));
            }
            EntryResult::NotRecorded(why) => {
                let _ = writeln!(out, "  body not recorded: {}", esc(&redact::text(why)));
            }
            EntryResult::NotJudged(why) => {
                let _ = writeln!(out, "  not judged: {}", esc(&redact::text(why)));
            }
            EntryResult::Skipped(_) => {}
        }
        for n in &e.notes {
            let _ = writeln!(out, "  {} {}", style.dim("capture:"), esc(&redact::text(n)));
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
    let _ = writeln!(out, "  not recorded  {} tools/call", s.not_recorded);
    let _ = writeln!(out, "  not judged    {} tools/call", s.not_judged);
    let skipped: usize = s.skipped.values().sum();
    let kinds: Vec<String> = s
        .skipped
        .iter()
        .map(|(k, n)| format!("{} {n}", esc(k)))
        .collect();
    if kinds.is_empty() {
        let _ = writeln!(out, "  skipped       0");
    } else {
        let _ = writeln!(out, "  skipped       {skipped}: {}", kinds.join(", "));
    }
    out
}
