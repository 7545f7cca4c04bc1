//! `check --accept`: the current verdicts written into the `expect` entries of a file that fails
//! them, as `jest -u` or `cargo insta accept` do for snapshots.
//!
//! [`accept`] is a pure function of a file's text and its results: it edits the text of the
//! `expect` entries that failed and nothing else, so every other byte of the file (its layout,
//! its key order, its bodies) is kept. Within an entry, only what differs is rewritten:
//!
//! - `outcome` becomes the outcome reached;
//! - an id of `rules` that the verdict neither cites nor finds is dropped from `rules`;
//! - an id of `absent` that the verdict finds moves to `rules`;
//! - with `strict`, a finding's rule that `rules` does not list is added to it.
//!
//! A list keeps its layout (one line, or one id per line with the same indentation). Among the
//! judged revisions that draw on `all`, the oldest one's new expectation is written into `all`,
//! and each other one whose expectation then differs gets an entry of its own, written after
//! `all` in `all`'s layout. Only the revisions judged count: `results` are meant to hold the
//! revisions a file is judged under by default (`check --accept` refuses `--protocol`).

use std::ops::Range;

use super::locate::pointer_span;
use super::{Diff, RevisionResult, Status};
use crate::vocab::Protocol;
use crate::vocab::pointer::escape;
use crate::wire::exchange::Expectation;

/// A file's text with the failing `expect` entries rewritten.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accepted {
    /// The new text of the file.
    pub text: String,
    /// The `expect` keys written, in the order of the file (a key added after `all` is
    /// listed as added).
    pub entries: Vec<String>,
}

/// Why a file's expectations could not be rewritten.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum AcceptError {
    /// An entry of `expect` could not be found in the text (e.g. a key written with escapes).
    #[error("cannot find `{0}` in the file's text; edit that entry by hand")]
    NotFound(String),
}

/// The expectation that the verdict meets, changed from `old` only where `diff` says they
/// differ (see the module documentation).
pub fn updated(old: &Expectation, diff: &Diff) -> Expectation {
    let mut rules: Vec<String> = old
        .rules
        .iter()
        .filter(|r| !diff.missing.contains(r))
        .cloned()
        .collect();
    for r in diff.unexpected.iter().chain(&diff.unlisted) {
        if !rules.contains(r) {
            rules.push(r.clone());
        }
    }
    Expectation {
        outcome: diff.outcome.as_ref().map_or(old.outcome, |o| o.actual),
        rules,
        absent: old
            .absent
            .iter()
            .filter(|r| !diff.unexpected.contains(r))
            .cloned()
            .collect(),
    }
}

/// Rewrites the `expect` entries of `text` (an exchange file) that `results` (the file's
/// results, as `check` made them from this text) show failing; `None` when none fails.
/// Results that are baselined, pass or have no expectation are left as they are.
pub fn accept(text: &str, results: &[RevisionResult]) -> Result<Option<Accepted>, AcceptError> {
    let (bom, body) = match text.strip_prefix('\u{feff}') {
        Some(rest) => ("\u{feff}", rest),
        None => ("", text),
    };
    let failing: Vec<(&RevisionResult, &Expectation, Expectation)> = results
        .iter()
        .filter(|r| r.status == Status::Fail)
        .filter_map(|r| {
            let (old, diff) = (r.expected.as_ref()?, r.diff.as_ref()?);
            Some((r, old, updated(old, diff)))
        })
        .collect();
    if failing.is_empty() {
        return Ok(None);
    }
    let nl = if body.contains("\r\n") { "\r\n" } else { "\n" };
    let own = |p: Protocol| pointer_span(body, &entry_pointer(p.as_str()));
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    let mut entries = Vec::new();
    let mut from_all = Vec::new();
    for (r, old, new) in &failing {
        match own(r.protocol) {
            Some(span) => {
                let entry = edit_entry(&body[span.clone()], old, new, nl)?;
                edits.push((span, entry));
                entries.push(r.protocol.as_str().to_string());
            }
            None => from_all.push((r.protocol, *old, new)),
        }
    }
    if let Some((_, old_all, _)) = from_all.first() {
        let old_all: &Expectation = old_all;
        let all_span =
            pointer_span(body, "/expect/all").ok_or_else(|| AcceptError::NotFound("all".into()))?;
        let all_text = &body[all_span.clone()];
        // What each judged revision that draws on `all` now expects, oldest first: `all`
        // takes the oldest one's, and the others that differ get entries of their own.
        let served: Vec<(Protocol, &Expectation)> = results
            .iter()
            .filter(|r| r.expected.is_some() && own(r.protocol).is_none())
            .map(|r| match from_all.iter().find(|(q, ..)| *q == r.protocol) {
                Some((p, _, new)) => (*p, *new),
                None => (r.protocol, old_all),
            })
            .collect();
        let base = served.first().map_or(old_all, |(_, e)| *e);
        if base != old_all {
            edits.push((all_span.clone(), edit_entry(all_text, old_all, base, nl)?));
            entries.push("all".to_string());
        }
        let apart: Vec<(Protocol, &Expectation)> =
            served.into_iter().filter(|(_, e)| *e != base).collect();
        if !apart.is_empty() {
            let expect = pointer_span(body, "/expect")
                .ok_or_else(|| AcceptError::NotFound("expect".into()))?;
            let sep = if body[expect].contains('\n') {
                format!(",{nl}{}", indent_of_line(body, all_span.start))
            } else {
                ", ".to_string()
            };
            let mut added = String::new();
            for (p, new) in apart {
                let entry = edit_entry(all_text, old_all, new, nl)?;
                added.push_str(&format!("{sep}\"{}\": {entry}", p.as_str()));
                entries.push(p.as_str().to_string());
            }
            edits.push((all_span.end..all_span.end, added));
        }
    }
    Ok(Some(Accepted {
        text: format!("{bom}{}", apply(body, edits)),
        entries,
    }))
}

fn entry_pointer(key: &str) -> String {
    format!("/expect/{}", escape(key))
}

/// Applies non-overlapping edits (an empty range inserts).
fn apply(text: &str, mut edits: Vec<(Range<usize>, String)>) -> String {
    edits.sort_by_key(|(r, _)| std::cmp::Reverse((r.start, r.end)));
    let mut out = text.to_string();
    for (r, s) in edits {
        out.replace_range(r, &s);
    }
    out
}

/// The text of one `expect` entry (`entry`, an object) rewritten from `old` to `new`.
fn edit_entry(
    entry: &str,
    old: &Expectation,
    new: &Expectation,
    nl: &str,
) -> Result<String, AcceptError> {
    let find = |member: &str| pointer_span(entry, &format!("/{member}"));
    let outcome = find("outcome").ok_or_else(|| AcceptError::NotFound("outcome".into()))?;
    let mut edits = Vec::new();
    if old.outcome != new.outcome {
        edits.push((outcome.clone(), quoted(new.outcome.as_str())));
    }
    for (member, was, now) in [
        ("rules", &old.rules, &new.rules),
        ("absent", &old.absent, &new.absent),
    ] {
        if was == now {
            continue;
        }
        match find(member) {
            Some(span) => {
                let list = list(&entry[span.clone()], now, nl);
                edits.push((span, list));
            }
            None => {
                // Added after `outcome`, in the entry's layout.
                let sep = if entry.contains('\n') {
                    format!(",{nl}{}", indent_of_line(entry, outcome.start))
                } else {
                    ", ".to_string()
                };
                let list = list("[]", now, nl);
                edits.push((
                    outcome.end..outcome.end,
                    format!("{sep}\"{member}\": {list}"),
                ));
            }
        }
    }
    Ok(apply(entry, edits))
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).expect("a string serialises")
}

/// The spaces and tabs that begin the line holding byte `at`.
fn indent_of_line(text: &str, at: usize) -> &str {
    let start = text[..at].rfind('\n').map_or(0, |p| p + 1);
    let line = &text[start..at];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

/// `ids` as a JSON array in the layout of `old` (an array's text): one id per line, indented as
/// its first element and closed as it was, when `old` spans lines; else on one line, spaced as
/// `old` is.
fn list(old: &str, ids: &[String], nl: &str) -> String {
    if ids.is_empty() {
        return "[]".to_string();
    }
    let items = ids.iter().map(|id| quoted(id));
    if old.contains('\n') {
        let first = old[1..]
            .find(|c: char| !c.is_ascii_whitespace())
            .map_or(old.len() - 1, |i| i + 1);
        let close = old.len() - 1;
        let (inner, outer) = (indent_of_line(old, first), indent_of_line(old, close));
        let sep = format!(",{nl}{inner}");
        let body: Vec<String> = items.collect();
        return format!("[{nl}{inner}{}{nl}{outer}]", body.join(&sep));
    }
    let pad = if old.starts_with("[ ") { " " } else { "" };
    let sep = if old.contains("\",\"") && !old.contains(", ") {
        ","
    } else {
        ", "
    };
    format!("[{pad}{}{pad}]", items.collect::<Vec<_>>().join(sep))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_keep_their_layout() {
        let ids = vec!["a.b".to_string(), "c".to_string()];
        assert_eq!(list("[]", &ids, "\n"), r#"["a.b", "c"]"#);
        assert_eq!(list(r#"[ "x" ]"#, &ids, "\n"), r#"[ "a.b", "c" ]"#);
        assert_eq!(list(r#"["x","y"]"#, &ids, "\n"), r#"["a.b","c"]"#);
        assert_eq!(
            list("[\n        \"x\"\n      ]", &ids, "\n"),
            "[\n        \"a.b\",\n        \"c\"\n      ]"
        );
        assert_eq!(list(r#"["x"]"#, &[], "\n"), "[]");
    }

    #[test]
    fn an_entry_changes_only_where_it_differs() {
        let old = Expectation {
            outcome: crate::Outcome::ToolSuccess,
            rules: vec!["x".into()],
            absent: vec![],
        };
        let new = Expectation {
            outcome: crate::Outcome::ToolError,
            rules: vec!["x".into(), "y".into()],
            absent: vec![],
        };
        assert_eq!(
            edit_entry(
                r#"{"outcome":"TOOL_SUCCESS" , "rules": ["x"]}"#,
                &old,
                &new,
                "\n"
            )
            .unwrap(),
            r#"{"outcome":"TOOL_ERROR" , "rules": ["x", "y"]}"#
        );
        let bare = Expectation {
            rules: vec![],
            ..old.clone()
        };
        assert_eq!(
            edit_entry("{\n  \"outcome\": \"TOOL_SUCCESS\"\n}", &bare, &new, "\n").unwrap(),
            "{\n  \"outcome\": \"TOOL_ERROR\",\n  \"rules\": [\"x\", \"y\"]\n}"
        );
    }
}
