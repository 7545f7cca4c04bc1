//! Rule coverage of a fixture corpus: per revision and rule, the fixtures that trigger it and
//! the fixtures that satisfy it.

use schemars::JsonSchema;
use serde::Serialize;

use super::FileResult;
use crate::judge::EvalStatus;
use crate::vocab::Protocol;

/// Coverage of every rule active in a judged revision.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Coverage {
    /// One entry per judged revision, oldest first.
    pub revisions: Vec<RevisionCoverage>,
}

/// Coverage under one revision.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct RevisionCoverage {
    /// The revision.
    pub protocol: Protocol,
    /// Every active rule, in table order.
    pub rules: Vec<RuleCoverage>,
}

/// Which fixtures exercise one rule under one revision.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct RuleCoverage {
    /// Rule id.
    pub rule: String,
    /// Files on which the rule triggered, sorted.
    pub triggered_by: Vec<String>,
    /// Files on which the rule applied and did not trigger, sorted.
    pub satisfied_by: Vec<String>,
}

impl RuleCoverage {
    /// Whether both a triggering and a satisfying fixture exist.
    pub fn is_complete(&self) -> bool {
        !self.triggered_by.is_empty() && !self.satisfied_by.is_empty()
    }

    /// What is lacking, for people: `no triggering fixture`, `no satisfying fixture`, both.
    pub fn lacks(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        if self.triggered_by.is_empty() {
            v.push("no triggering fixture");
        }
        if self.satisfied_by.is_empty() {
            v.push("no satisfying fixture");
        }
        v
    }
}

impl Coverage {
    /// Whether every rule of every judged revision has both.
    pub fn is_complete(&self) -> bool {
        self.gaps().next().is_none()
    }

    /// Rules lacking a triggering or a satisfying fixture.
    pub fn gaps(&self) -> impl Iterator<Item = (Protocol, &RuleCoverage)> {
        self.revisions.iter().flat_map(|r| {
            r.rules
                .iter()
                .filter(|c| !c.is_complete())
                .map(move |c| (r.protocol, c))
        })
    }
}

/// Computes coverage from judged files (files not judged contribute nothing). Every rule active
/// in a judged revision is listed, since every verdict evaluates every active rule.
pub fn coverage(files: &[FileResult]) -> Coverage {
    let revisions = super::judged_revisions(files)
        .into_iter()
        .map(|p| {
            let mut rules: Vec<RuleCoverage> = Vec::new();
            for f in files {
                for r in f.results.iter().filter(|r| r.protocol == p) {
                    for (i, e) in r.evaluations.iter().enumerate() {
                        // Every verdict of a revision lists the same rules in the same order.
                        let c = match rules.get_mut(i) {
                            Some(c) if c.rule == e.rule => c,
                            _ => match rules.iter().position(|c| c.rule == e.rule) {
                                Some(j) => &mut rules[j],
                                None => {
                                    rules.push(RuleCoverage {
                                        rule: e.rule.clone(),
                                        triggered_by: Vec::new(),
                                        satisfied_by: Vec::new(),
                                    });
                                    rules.last_mut().expect("just pushed")
                                }
                            },
                        };
                        match e.status {
                            EvalStatus::Triggered => c.triggered_by.push(f.file.clone()),
                            EvalStatus::Passed => c.satisfied_by.push(f.file.clone()),
                            EvalStatus::NotApplicable => {}
                        }
                    }
                }
            }
            for c in &mut rules {
                c.triggered_by.sort();
                c.triggered_by.dedup();
                c.satisfied_by.sort();
                c.satisfied_by.dedup();
            }
            RevisionCoverage { protocol: p, rules }
        })
        .collect();
    Coverage { revisions }
}
