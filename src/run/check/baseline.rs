//! Expected-failures baseline: a JSON array of known failures, each
//! `{"file", "protocol", "rule"}` or `{"file", "protocol", "outcome"}`.
//!
//! A (file, revision) whose every failure is listed does not fail the run (status
//! `baselined`). An entry for a (file, revision) that was judged but no longer fails that way is
//! **stale** and fails the run, so the baseline only ever shrinks. Entries for files or
//! revisions the run did not judge are left alone. `file` is relative to the current directory,
//! with `/` separators.
//!
//! What an entry matches: `outcome` matches an outcome mismatch whose *actual* outcome is that
//! one; `rule` matches a missing or unexpected expected rule, an unlisted finding (strict), or,
//! in a file without expectations, a finding at or above `--fail-on`.

use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{Failure, FileResult};
use crate::inputs::corpus::normalize_path;
use crate::vocab::Outcome;
use crate::vocab::Protocol;

/// One known failure.
#[derive(
    Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct BaselineEntry {
    /// The exchange file, relative to the current directory, `/`-separated.
    pub file: String,
    /// The revision.
    pub protocol: Protocol,
    /// A rule id (missing, unexpected or failing finding).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// The actual outcome of an outcome mismatch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
}

impl BaselineEntry {
    /// What the entry lists, for people: `rule ID`, `outcome NAME`, or nothing.
    pub fn what(&self) -> String {
        match (&self.rule, self.outcome) {
            (Some(r), _) => format!("rule {r}"),
            (None, Some(o)) => format!("outcome {o}"),
            _ => String::new(),
        }
    }
}

/// A loaded baseline.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Baseline {
    /// Its entries, with `file` normalised.
    pub entries: Vec<BaselineEntry>,
}

/// Why a baseline could not be loaded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("baseline {file}: {message}")]
pub struct BaselineError {
    /// The baseline file.
    pub file: String,
    /// What is wrong.
    pub message: String,
}

impl Baseline {
    /// Parses a baseline from JSON text.
    pub fn parse(text: &str) -> Result<Baseline, String> {
        let mut entries: Vec<BaselineEntry> = serde_json::from_str(text).map_err(|e| {
            format!(
                "{e} (expected a JSON array of {{\"file\", \"protocol\", \"rule\" or \"outcome\"}})"
            )
        })?;
        for (i, e) in entries.iter_mut().enumerate() {
            if e.rule.is_some() == e.outcome.is_some() {
                return Err(format!(
                    "entry {i} ({}, {}): give exactly one of `rule` and `outcome`",
                    e.file, e.protocol
                ));
            }
            e.file = normalize_path(&e.file);
        }
        Ok(Baseline { entries })
    }

    /// Reads a baseline file.
    pub fn load(path: &Path) -> Result<Baseline, BaselineError> {
        let err = |message: String| BaselineError {
            file: path.display().to_string(),
            message,
        };
        let text = std::fs::read_to_string(path).map_err(|e| err(format!("cannot read: {e}")))?;
        Baseline::parse(&text).map_err(err)
    }

    /// Renders entries as a baseline file (pretty JSON, one entry per line, sorted).
    pub fn render(entries: &[BaselineEntry]) -> String {
        let mut sorted = entries.to_vec();
        sorted.sort();
        sorted.dedup();
        let mut out = String::from("[");
        for (i, e) in sorted.iter().enumerate() {
            out.push_str(if i == 0 { "\n  " } else { ",\n  " });
            out.push_str(&serde_json::to_string(e).expect("entries serialize"));
        }
        out.push_str(if sorted.is_empty() { "]\n" } else { "\n]\n" });
        out
    }

    fn matches(e: &BaselineEntry, file: &str, protocol: Protocol, x: &Failure) -> bool {
        e.file == file
            && e.protocol == protocol
            && match (&e.rule, e.outcome) {
                (Some(r), _) => x.rule.as_ref() == Some(r),
                (None, Some(o)) => x.outcome == Some(o),
                _ => false,
            }
    }

    /// Whether a failure of a (file, revision) is listed.
    pub fn lists(&self, file: &str, protocol: Protocol, x: &Failure) -> bool {
        self.entries
            .iter()
            .any(|e| Self::matches(e, file, protocol, x))
    }

    /// Entries for a judged (file, revision) that match none of its failures.
    pub fn stale(&self, files: &[FileResult]) -> Vec<BaselineEntry> {
        let mut out: Vec<BaselineEntry> = self
            .entries
            .iter()
            .filter(|e| {
                let judged = files
                    .iter()
                    .filter(|f| f.file == e.file)
                    .flat_map(|f| &f.results)
                    .find(|r| r.protocol == e.protocol);
                judged.is_some_and(|r| {
                    !r.failures
                        .iter()
                        .any(|x| Self::matches(e, &e.file, e.protocol, x))
                })
            })
            .cloned()
            .collect();
        out.sort();
        out.dedup();
        out
    }
}
