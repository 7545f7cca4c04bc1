//! `classify --jsonl --compact`: one short JSON record per input line, for streams and bulk
//! runs where the full verdict (its citations, quotes, facts and advice) is more than a
//! consumer reads. Each verdict keeps what decides what to do with the call: the revision,
//! the outcome and its layer, the rule that decided it, and the rules of its findings.
//!
//! ```json
//! {"line":1,"verdicts":[{"protocol":"2026-07-28","outcome":"TOOL_SUCCESS","layer":"application","rule":"tools.result.complete","findings":["request.standard-headers"],"errors":0}]}
//! ```
//!
//! The record's shape is published in `schemas/classify-compact.schema.json`; a line that
//! could not be judged is the same `{"line": N, "error": "..."}` record as in the full output.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::judge::{Judgement, Verdict};
use crate::run::stream::LineFormat;
use crate::views::push_json_str;
use crate::vocab::{Layer, Outcome, Protocol, Severity};

/// One verdict in the compact record.
#[derive(Debug, Serialize, JsonSchema)]
pub struct CompactVerdict<'a> {
    /// The revision.
    pub protocol: Protocol,
    /// The outcome.
    pub outcome: Outcome,
    /// The outcome's layer.
    pub layer: Layer,
    /// The id of the rule that decided the outcome (absent when none did).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<&'a str>,
    /// The ids of the rules with findings, each once, in the order of the full verdict's
    /// findings (including rules whose findings the per-rule cap left out).
    pub findings: Vec<&'a str>,
    /// How many findings have error severity (counted before the per-rule cap).
    pub errors: usize,
}

/// `classify --jsonl --compact` output: one record per judged line.
#[derive(Debug, Serialize, JsonSchema)]
#[schemars(
    title = "mcp-verdict classify --jsonl --compact record",
    description = "The short form of the verdicts on one exchange of a JSON Lines stream: per protocol revision, the outcome, its layer, the deciding rule and the rules with findings."
)]
pub struct CompactRecord<'a> {
    /// The input line (1-based).
    pub line: usize,
    /// One verdict per revision judged.
    pub verdicts: Vec<CompactVerdict<'a>>,
}

impl<'a> CompactVerdict<'a> {
    /// The compact view of a verdict.
    pub fn of(v: &'a Verdict<'a>) -> Self {
        let mut findings: Vec<&'a str> = Vec::new();
        let mut errors = 0;
        let rules = v
            .findings
            .iter()
            .map(|f| (f.rule.id.as_str(), f.severity, 1))
            .chain(
                v.omitted
                    .iter()
                    .map(|o| (o.rule.id.as_str(), o.severity, o.count)),
            );
        for (id, severity, count) in rules {
            if severity == Severity::Error {
                errors += count;
            }
            if !findings.contains(&id) {
                findings.push(id);
            }
        }
        CompactVerdict {
            protocol: v.protocol,
            outcome: v.outcome,
            layer: v.layer(),
            rule: v.decided_by.map(|a| v.table().rule_of(a).id.as_str()),
            findings,
            errors,
        }
    }
}

/// The JSON Schema of a `classify --jsonl --compact` record, as published in
/// `schemas/classify-compact.schema.json`.
pub fn compact_record_json_schema() -> Value {
    let generator = schemars::generate::SchemaSettings::default()
        .for_serialize()
        .into_generator();
    serde_json::to_value(generator.into_root_schema_for::<CompactRecord<'static>>())
        .expect("schema serializes")
}

/// The compact records of `classify --jsonl --compact`.
#[derive(Clone, Copy, Debug, Default)]
pub struct CompactLines;

impl LineFormat for CompactLines {
    fn judged(&self, line: usize, judgement: &Judgement<'_>, _exchange: Option<String>) -> String {
        // Rule ids, outcomes and revisions are plain ASCII from the table: nothing here can
        // act on a terminal, but the record goes through the same filter as every other.
        super::safe::json(record_json(line, judgement))
    }

    fn error(&self, line: usize, error: &str) -> String {
        super::jsonl::JsonLines.error(line, error)
    }
}

/// `serde_json::to_string(&CompactRecord {..})`, byte for byte, written straight into the
/// line without serde's machinery (a test holds the two to the same bytes).
fn record_json(line: usize, judgement: &Judgement<'_>) -> String {
    use std::io::Write as _;
    let mut out: Vec<u8> = Vec::with_capacity(96 + 96 * judgement.verdicts.len());
    let _ = write!(out, "{{\"line\":{line},\"verdicts\":[");
    for (i, v) in judgement.verdicts.iter().enumerate() {
        let c = CompactVerdict::of(v);
        if i > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"protocol\":");
        push_json_str(&mut out, c.protocol.as_str());
        out.extend_from_slice(b",\"outcome\":");
        push_json_str(&mut out, c.outcome.as_str());
        out.extend_from_slice(b",\"layer\":");
        push_json_str(&mut out, c.layer.into());
        if let Some(rule) = c.rule {
            out.extend_from_slice(b",\"rule\":");
            push_json_str(&mut out, rule);
        }
        out.extend_from_slice(b",\"findings\":[");
        for (j, id) in c.findings.iter().enumerate() {
            if j > 0 {
                out.push(b',');
            }
            push_json_str(&mut out, id);
        }
        let _ = write!(out, "],\"errors\":{}}}", c.errors);
    }
    out.extend_from_slice(b"]}");
    String::from_utf8(out).expect("the record is written from text")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_strings_as_serde_json_does() {
        for s in [
            "",
            "tools.result.complete",
            "a\"b",
            "back\\slash",
            "ctl\u{1}\n",
            "é😀\u{7f}",
        ] {
            let mut out = Vec::new();
            push_json_str(&mut out, s);
            assert_eq!(
                String::from_utf8(out).unwrap(),
                serde_json::to_string(s).unwrap()
            );
        }
    }
}
