//! Judging every tools/call entry of a HAR capture: one result per entry (judged, not
//! recorded, not judged, or skipped by kind) and the counts over the file.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Origin, revision_message};
use crate::config::Settings;
use crate::inputs::har::{Entry, Har, Record, SkipKind};
use crate::judge::{self, Judgement, Options};

/// The result for one entry.
#[derive(Debug)]
pub enum EntryResult<'t> {
    /// Judged.
    Judged(Judgement<'t>),
    /// A tools/call whose response was not recorded.
    NotRecorded(String),
    /// A tools/call that could not be judged (revision unknown, response unreadable).
    NotJudged(String),
    /// Not a tools/call.
    Skipped(SkipKind),
}

/// Judges one entry.
pub fn judge_entry<'t>(entry: &Entry, options: &Options<'t>) -> EntryResult<'t> {
    judge_entry_capped(entry, options, 0)
}

/// Judges one entry, keeping at most `max_findings_per_rule` findings of a rule per verdict
/// (0: all; see [`judge::judge_capped`]).
pub fn judge_entry_capped<'t>(
    entry: &Entry,
    options: &Options<'t>,
    max_findings_per_rule: usize,
) -> EntryResult<'t> {
    match &entry.record {
        Record::ToolsCall(ex) => match judge::judge_capped(ex, options, max_findings_per_rule) {
            Ok(j) => EntryResult::Judged(j),
            Err(e) => EntryResult::NotJudged(revision_message(&e, Origin::Har)),
        },
        Record::NotRecorded { reason } => EntryResult::NotRecorded(reason.clone()),
        Record::Unreadable { reason } => EntryResult::NotJudged(reason.clone()),
        Record::Skipped(k) => EntryResult::Skipped(k.clone()),
    }
}

/// Counts over a HAR file.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Entries in the file.
    pub entries: usize,
    /// tools/call exchanges judged.
    pub judged: usize,
    /// Judged exchanges with at least one error-severity finding under some revision.
    pub with_error_findings: usize,
    /// tools/call entries whose response was not recorded.
    pub not_recorded: usize,
    /// tools/call entries that could not be judged (revision unknown, unreadable response).
    pub not_judged: usize,
    /// Skipped entries, by kind.
    pub skipped: BTreeMap<String, usize>,
}

impl Summary {
    /// Why nothing in the capture was judged, when nothing was: what the entries were instead.
    pub fn nothing_judged(&self) -> Option<String> {
        if self.judged > 0 {
            return None;
        }
        let tools_calls = self.not_recorded + self.not_judged;
        let mut why = if tools_calls == 0 {
            format!(
                "nothing judged: none of the {} {} is a tools/call POST",
                self.entries,
                if self.entries == 1 {
                    "entry"
                } else {
                    "entries"
                }
            )
        } else {
            format!(
                "nothing judged: {tools_calls} tools/call {}, {} without a recorded response body, {} whose revision or response could not be read",
                if tools_calls == 1 { "entry" } else { "entries" },
                self.not_recorded,
                self.not_judged
            )
        };
        if !self.skipped.is_empty() {
            let kinds: Vec<String> = self
                .skipped
                .iter()
                .map(|(k, n)| format!("{k} {n}"))
                .collect();
            why.push_str(&format!("; other entries: {}", kinds.join(", ")));
        }
        Some(why)
    }

    /// Whether the run should fail: an error-severity finding, or a tools/call not judged.
    pub fn failed(&self) -> bool {
        self.with_error_findings > 0 || self.not_judged > 0
    }
}

/// Every entry's result, with counts.
#[derive(Debug)]
pub struct Report<'h, 't> {
    /// The HAR read.
    pub har: &'h Har,
    /// One result per entry, in file order.
    pub results: Vec<EntryResult<'t>>,
    /// Counts.
    pub summary: Summary,
}

/// Judges every tools/call entry of a HAR.
pub fn judge<'h, 't>(har: &'h Har, options: &Options<'t>) -> Report<'h, 't> {
    judge_capped(har, options, 0)
}

/// Judges every tools/call entry of a HAR, keeping at most `max_findings_per_rule` findings
/// of one rule per verdict (the rest counted; 0: every finding).
pub fn judge_capped<'h, 't>(
    har: &'h Har,
    options: &Options<'t>,
    max_findings_per_rule: usize,
) -> Report<'h, 't> {
    let mut summary = Summary {
        entries: har.entries.len(),
        ..Summary::default()
    };
    let results: Vec<EntryResult<'t>> = har
        .entries
        .iter()
        .map(|e| judge_entry_capped(e, options, max_findings_per_rule))
        .collect();
    for r in &results {
        match r {
            EntryResult::Judged(j) => {
                summary.judged += 1;
                if j.has_error() {
                    summary.with_error_findings += 1;
                }
            }
            EntryResult::NotRecorded(_) => summary.not_recorded += 1,
            EntryResult::NotJudged(_) => summary.not_judged += 1,
            EntryResult::Skipped(k) => *summary.skipped.entry(k.label()).or_default() += 1,
        }
    }
    Report {
        har,
        results,
        summary,
    }
}

impl Report<'_, '_> {
    /// Applies settings to every verdict ([`Settings::apply`]; `path` is the capture's file),
    /// and counts the entries with a failing finding under them.
    pub fn configure(&mut self, settings: &Settings, path: Option<&std::path::Path>) {
        self.summary.with_error_findings = 0;
        for r in &mut self.results {
            if let EntryResult::Judged(j) = r
                && settings.apply_all(j, path)
            {
                self.summary.with_error_findings += 1;
            }
        }
    }
}

/// The label that findings of an entry are reported under: `FILE#INDEX`.
pub fn entry_label(file: &str, index: usize) -> String {
    format!("{file}#{index}")
}
