//! Judging every `tools/call` of a stdio session transcript: one result per call (judged, or
//! not judged and why) and the counts over the session, as `--har` does for HTTP captures.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Origin, revision_message};
use crate::config::Settings;
use crate::inputs::transcript::{Call, Session};
use crate::judge::{self, Judgement, Options};

/// The result for one call.
#[derive(Debug)]
pub enum CallResult<'t> {
    /// Judged.
    Judged(Judgement<'t>),
    /// Not judged: why (the revision cannot be told).
    NotJudged(String),
}

/// Counts over a transcript.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Entries in the transcript.
    pub entries: usize,
    /// tools/call requests judged.
    pub judged: usize,
    /// Judged calls with at least one error-severity finding under some revision.
    pub with_error_findings: usize,
    /// tools/call requests that could not be judged.
    pub not_judged: usize,
    /// The other messages the client wrote, by method: not judged.
    pub other: BTreeMap<String, usize>,
}

impl Summary {
    /// Why nothing in the transcript was judged, when nothing was.
    pub fn nothing_judged(&self) -> Option<String> {
        if self.judged > 0 {
            return None;
        }
        let mut why = if self.not_judged == 0 {
            "nothing judged: the client wrote no tools/call request".to_string()
        } else {
            format!(
                "nothing judged: {} tools/call request(s) whose revision could not be told",
                self.not_judged
            )
        };
        if !self.other.is_empty() {
            let kinds: Vec<String> = self.other.iter().map(|(k, n)| format!("{k} {n}")).collect();
            why.push_str(&format!("; the client wrote: {}", kinds.join(", ")));
        }
        Some(why)
    }

    /// Whether the run should fail: an error-severity finding, or a call not judged.
    pub fn failed(&self) -> bool {
        self.with_error_findings > 0 || self.not_judged > 0
    }
}

/// Every call's result, with counts.
#[derive(Debug)]
pub struct Report<'s, 't> {
    /// The session read.
    pub session: &'s Session,
    /// One result per call, in request order.
    pub results: Vec<CallResult<'t>>,
    /// Counts.
    pub summary: Summary,
}

impl Report<'_, '_> {
    /// Applies settings to every verdict ([`Settings::apply`]; `path` is the transcript's
    /// file), and counts the calls with a failing finding under them.
    pub fn configure(&mut self, settings: &Settings, path: Option<&std::path::Path>) {
        self.summary.with_error_findings = 0;
        for r in &mut self.results {
            if let CallResult::Judged(j) = r
                && settings.apply_all(j, path)
            {
                self.summary.with_error_findings += 1;
            }
        }
    }
}

/// Judges one call, keeping at most `max_findings_per_rule` findings of a rule per verdict.
fn judge_call<'t>(call: &Call, options: &Options<'t>, max: usize) -> CallResult<'t> {
    match judge::judge_capped(&call.exchange, options, max) {
        Ok(j) => CallResult::Judged(j),
        Err(e) => CallResult::NotJudged(revision_message(&e, Origin::Transcript)),
    }
}

/// Judges every tools/call of a session, keeping at most `max_findings_per_rule` findings of
/// one rule per verdict (the rest counted; 0: every finding).
pub fn judge_capped<'s, 't>(
    session: &'s Session,
    options: &Options<'t>,
    max_findings_per_rule: usize,
) -> Report<'s, 't> {
    let mut summary = Summary {
        entries: session.entries,
        other: session.other.clone(),
        ..Summary::default()
    };
    let results: Vec<CallResult<'t>> = session
        .calls
        .iter()
        .map(|c| judge_call(c, options, max_findings_per_rule))
        .collect();
    for r in &results {
        match r {
            CallResult::Judged(j) => {
                summary.judged += 1;
                if j.has_error() {
                    summary.with_error_findings += 1;
                }
            }
            CallResult::NotJudged(_) => summary.not_judged += 1,
        }
    }
    Report {
        session,
        results,
        summary,
    }
}

/// The label that findings of a call are reported under: `FILE:LINE` (the request's line).
pub fn call_label(file: &str, line: usize) -> String {
    format!("{file}:{line}")
}
