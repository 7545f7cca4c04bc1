//! A judgement: the verdicts on one exchange under one or more revisions, and how they differ.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

use super::Verdict;

/// How verdicts under different revisions differ.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct Difference {
    /// `outcome`, or `finding <rule id>`.
    pub aspect: String,
    /// The value under each revision (`-` where a finding is absent).
    pub values: BTreeMap<String, String>,
}

/// Verdicts on one exchange under one or more revisions.
#[derive(Clone, Debug)]
pub struct Judgement<'t> {
    /// One verdict per revision, oldest revision first.
    pub verdicts: Vec<Verdict<'t>>,
}

impl<'t> Judgement<'t> {
    pub(super) fn new(mut verdicts: Vec<Verdict<'t>>) -> Judgement<'t> {
        verdicts.sort_by_key(|v| v.protocol);
        verdicts.dedup_by_key(|v| v.protocol);
        Judgement { verdicts }
    }

    /// Keeps at most `max` findings per rule in each verdict ([`Verdict::cap_findings`]; `0`
    /// keeps every finding).
    pub fn cap_findings(&mut self, max: usize) {
        for v in &mut self.verdicts {
            v.cap_findings(max);
        }
    }

    /// Whether any verdict carries an error-severity finding.
    pub fn has_error(&self) -> bool {
        self.verdicts
            .iter()
            .any(|v| v.worst() == Some(crate::vocab::Severity::Error))
    }

    /// What differs between the verdicts (empty with a single revision).
    pub fn differences(&self) -> Vec<Difference> {
        let mut out = Vec::new();
        if self.verdicts.len() < 2 {
            return out;
        }
        let outcomes: BTreeMap<String, String> = self
            .verdicts
            .iter()
            .map(|v| (v.protocol.to_string(), v.outcome.to_string()))
            .collect();
        if outcomes
            .values()
            .collect::<std::collections::BTreeSet<_>>()
            .len()
            > 1
        {
            out.push(Difference {
                aspect: "outcome".into(),
                values: outcomes,
            });
        }
        let mut rules: Vec<&str> = self
            .verdicts
            .iter()
            .flat_map(|v| v.findings.iter().map(|f| f.rule.id.as_str()))
            .collect();
        rules.sort_unstable();
        rules.dedup();
        for id in rules {
            let values: BTreeMap<String, String> = self
                .verdicts
                .iter()
                .map(|v| {
                    let sev = v
                        .findings
                        .iter()
                        .filter(|f| f.rule.id == id)
                        .map(|f| f.severity)
                        .max();
                    (
                        v.protocol.to_string(),
                        sev.map_or_else(|| "-".to_string(), |s| s.to_string()),
                    )
                })
                .collect();
            if values
                .values()
                .collect::<std::collections::BTreeSet<_>>()
                .len()
                > 1
            {
                out.push(Difference {
                    aspect: format!("finding {id}"),
                    values,
                });
            }
        }
        out
    }
}
