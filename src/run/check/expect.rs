//! Setting a verdict against a file's expectation: the outcome, the rules that must or must
//! not decide or be found, and the findings a file without an expectation fails on.

use std::collections::BTreeSet;

use super::locator::Locator;
use super::options::CheckOptions;
use super::{
    CheckFinding, Diff, Failure, FailureKind, OutcomeDiff, RevisionResult, RuleEval, Status,
};
use crate::judge::Verdict;
use crate::wire::exchange::Expectation;

/// Compares a verdict with an expectation and builds the result: the expectation is met by the
/// verdict as judged (`v`), and what is reported and what fails without one is the verdict
/// with the settings applied (`shown`).
pub(super) fn compare(
    v: &Verdict<'_>,
    shown: &Verdict<'_>,
    exp: Option<&Expectation>,
    targeted: bool,
    options: &CheckOptions<'_>,
    locator: &Locator<'_>,
) -> RevisionResult {
    let out = crate::views::VerdictOut::of(shown);
    let actives = options.engine.table().active(v.protocol);
    let evaluations = v
        .evaluations
        .iter()
        .zip(actives)
        .map(|(status, a)| RuleEval {
            rule: options.engine.table().rule_of(a).id.clone(),
            status: *status,
        })
        .collect();
    let mut failures = Vec::new();
    let mut diff = None;
    let status = match exp {
        Some(exp) => {
            let mut d = Diff::default();
            if v.outcome != exp.outcome {
                d.outcome = Some(OutcomeDiff {
                    expected: exp.outcome,
                    actual: v.outcome,
                });
                failures.push(failure(FailureKind::Outcome, None, Some(v.outcome)));
            }
            for r in &exp.rules {
                if !v.mentions(r) {
                    d.missing.push(r.clone());
                    failures.push(failure(FailureKind::Missing, Some(r), None));
                }
            }
            for r in &exp.absent {
                if v.findings.iter().any(|f| &f.rule.id == r) {
                    d.unexpected.push(r.clone());
                    failures.push(failure(FailureKind::Unexpected, Some(r), None));
                }
            }
            if options.strict {
                for f in &shown.findings {
                    let id = &f.rule.id;
                    if options.fail_on.fails(f.severity)
                        && !exp.rules.contains(id)
                        && !exp.absent.contains(id)
                        && !d.unlisted.contains(id)
                    {
                        d.unlisted.push(id.clone());
                        failures.push(failure(FailureKind::Unlisted, Some(id), None));
                    }
                }
            }
            if d.is_empty() {
                Status::Pass
            } else {
                diff = Some(d);
                Status::Fail
            }
        }
        None => {
            // A file whose `expect` names other revisions only was not written for this one:
            // its findings here are reported, and fail only with `strict`.
            let mut seen = BTreeSet::new();
            for f in &shown.findings {
                if (targeted || options.strict)
                    && options.fail_on.fails(f.severity)
                    && seen.insert(f.rule.id.as_str())
                {
                    failures.push(failure(FailureKind::Finding, Some(&f.rule.id), None));
                }
            }
            if failures.is_empty() {
                Status::Ok
            } else {
                Status::Findings
            }
        }
    };
    let wants: Vec<(&str, Option<usize>)> = out
        .findings
        .iter()
        .map(|f| (f.pointer.as_str(), f.event.or(f.line)))
        .collect();
    let placed = locator.locate_all(&wants);
    let findings = out
        .findings
        .into_iter()
        .zip(placed)
        .map(|(f, (location, excerpt))| CheckFinding {
            expected: exp.is_some_and(|e| e.rules.contains(&f.rule)),
            finding: f,
            location,
            excerpt,
        })
        .collect();
    RevisionResult {
        protocol: v.protocol,
        status,
        expected: exp.cloned(),
        expected_at: None,
        outcome: v.outcome,
        layer: v.layer(),
        summary: out.summary,
        decided_by: v.deciding_rule().map(|r| r.id.clone()),
        cited: v.cited_ids().map(str::to_string).collect(),
        diff,
        failures,
        findings,
        omitted: out.omitted,
        settings: out.settings,
        evaluations,
    }
}

fn failure(kind: FailureKind, rule: Option<&String>, outcome: Option<crate::Outcome>) -> Failure {
    Failure {
        kind,
        rule: rule.cloned(),
        outcome,
        baselined: false,
    }
}
