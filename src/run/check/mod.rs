//! `mcp-verdict check`: judge a corpus of exchange files against their expectations, and report
//! the result in the formats CI systems read.
//!
//! One run ([`run_check`], or [`collect_files`] then [`check_files`]) yields a [`CheckRun`]: one
//! [`FileResult`] per file, sorted by path, each with one [`RevisionResult`] per revision judged,
//! sorted by revision; files that could not be read or are not valid exchange files carry an
//! [`InputError`] instead. From the same run come two views:
//!
//! - **fixture expectations**: each (file, revision) is [`Status::Pass`] when the verdict matches
//!   the file's `expect` entry, [`Status::Fail`] otherwise, with a [`Diff`];
//!   a file without `expect` is judged for conformance only ([`Status::Ok`] or
//!   [`Status::Findings`], by `--fail-on`);
//! - **conformance of what was recorded** ([`CheckRun::conformance`]): per revision and rule, how
//!   many exchanges satisfied it, triggered it, or where it did not apply; a rule no exchange
//!   exercised is [`RuleState::NotExercised`], never passed.
//!
//! [`coverage`] lists, per revision and rule, the fixtures that trigger and satisfy it.
//!
//! The run is the prepared view every report format of `crate::outputs::check` renders; the
//! formats are pure functions of it: the same run renders to the same bytes.
//!
//! ## When a run fails ([`CheckRun::exit_code`])
//!
//! - `3`: a file could not be read, is not a valid exchange file (syntax, unknown field, unknown
//!   `expect` key, unknown rule id in `expect`), or no revision can be chosen for it;
//! - `1`: otherwise, when a (file, revision) with an expectation does not match it, a
//!   (file, revision) without one has a finding at or above the `--fail-on` severity, a baseline
//!   entry is stale, or (with `--coverage`) a rule lacks a triggering or a satisfying fixture;
//! - `0`: otherwise.
//!
//! A file whose `expect` entries name other revisions only is not failed by findings under a
//! revision it has no entry for (it was not written for that revision), unless `strict`.
//!
//! Findings never fail a (file, revision) that has an expectation: the expectation is the
//! contract, and a fixture records a misbehaving exchange on purpose. With `strict`, findings at
//! or above `--fail-on` whose rule the expectation does not list in `rules` do fail it.
//! Failures listed in a baseline do not fail the run.

mod accept;
mod baseline;
mod coverage;
mod expect;
mod files;
pub mod locate;
mod locator;
mod options;

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;

pub use crate::inputs::corpus::{CorpusError, collect_files, path_list};
pub use accept::{AcceptError, Accepted, accept, updated};
pub use baseline::{Baseline, BaselineEntry, BaselineError};
pub use coverage::{Coverage, RevisionCoverage, RuleCoverage, coverage};
pub use files::{check_bytes, check_bytes_at, check_files, check_one, run_check};
pub(crate) use locator::{BodyGiven, locate_judgement};
pub use options::{CheckOptions, FailOn};

use crate::judge::EvalStatus;
use crate::views::FindingOut;
use crate::vocab::Protocol;
use crate::vocab::{Layer, Level, Outcome, Severity};
use crate::wire::exchange::Expectation;

use crate::vocab::exit;

/// The result of one run over a corpus.
#[derive(Clone, Debug, Serialize)]
pub struct CheckRun {
    /// One entry per file, sorted by path.
    pub files: Vec<FileResult>,
    /// Baseline entries for a judged (file, revision) whose listed failure no longer occurs.
    pub stale: Vec<BaselineEntry>,
    /// Per revision judged, per active rule: how the recorded exchanges fared.
    pub conformance: Vec<RevisionConformance>,
    /// The severity at or above which findings fail a file without expectations.
    pub fail_on: FailOn,
    /// Whether unlisted findings fail files with expectations.
    pub strict: bool,
    /// The absolute directory relative paths in [`FileResult::file`] are relative to (SARIF's
    /// `%SRCROOT%`), when known.
    #[serde(skip)]
    pub root: Option<std::path::PathBuf>,
}

/// One file.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct FileResult {
    /// The path, relative to the current directory when below it, with `/` separators.
    pub file: String,
    /// The exchange's `name`, if given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Why the file was not judged, if it was not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<InputError>,
    /// One result per revision judged, oldest revision first.
    pub results: Vec<RevisionResult>,
    /// How long reading and judging the file took (JUnit `time`; not serialised).
    #[serde(skip)]
    #[schemars(skip)]
    pub elapsed: std::time::Duration,
}

/// Why a file could not be judged.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct InputError {
    /// What kind of problem.
    pub kind: InputErrorKind,
    /// 1-based line, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    /// 1-based column, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub column: Option<usize>,
    /// What is wrong and how to fix it.
    pub message: String,
}

/// Kinds of [`InputError`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum InputErrorKind {
    /// The file could not be read.
    Unreadable,
    /// The file is not a valid exchange file.
    Invalid,
    /// No revision to judge under could be chosen.
    NoRevision,
}

/// The outcome of one (file, revision).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// The verdict matches the expectation.
    Pass,
    /// The verdict does not match the expectation.
    Fail,
    /// No expectation; no finding at or above the `--fail-on` severity.
    Ok,
    /// No expectation; findings at or above the `--fail-on` severity.
    Findings,
    /// Failed, but every failure is listed in the baseline.
    Baselined,
}

impl Status {
    /// Whether this status fails the run.
    pub fn is_failure(self) -> bool {
        matches!(self, Status::Fail | Status::Findings)
    }

    /// The upper-case label used in text and reports.
    pub fn label(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Ok => "OK",
            Status::Findings => "FINDINGS",
            Status::Baselined => "BASELINED",
        }
    }
}

/// The verdict on one file under one revision, compared with the file's expectation.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct RevisionResult {
    /// The revision.
    pub protocol: Protocol,
    /// Pass, fail, ok, findings or baselined.
    pub status: Status,
    /// The file's expectation for this revision (its own `expect` entry, else `all`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<Expectation>,
    /// Where that expectation is written in the file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected_at: Option<Location>,
    /// The outcome reached.
    pub outcome: Outcome,
    /// The outcome's layer.
    pub layer: Layer,
    /// One line on what happened.
    pub summary: String,
    /// The rule that decided the outcome.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_by: Option<String>,
    /// Every cited rule id: the deciding rule, then defaults, then context.
    pub cited: Vec<String>,
    /// Expected vs actual, when the expectation is not met.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<Diff>,
    /// What fails this (file, revision), each marked when the baseline lists it.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<Failure>,
    /// Every finding, in rule-table order, located in the file where possible (at most
    /// `--max-findings-per-rule` per rule).
    pub findings: Vec<CheckFinding>,
    /// Per rule, how many findings `--max-findings-per-rule` left out.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub omitted: Vec<crate::views::OmittedOut>,
    /// What settings changed in the findings (not reported, or another severity).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub settings: Vec<crate::views::AdjustmentOut>,
    /// Every active rule's evaluation, in table order (for conformance and coverage; not
    /// serialised).
    #[serde(skip)]
    #[schemars(skip)]
    pub evaluations: Vec<RuleEval>,
}

/// One rule's evaluation on one exchange.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleEval {
    /// Rule id.
    pub rule: String,
    /// How it came out.
    pub status: EvalStatus,
}

/// Expected vs actual.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Diff {
    /// Set when the outcome differs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<OutcomeDiff>,
    /// Rule ids listed in `rules` that the verdict neither cites nor finds.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub missing: Vec<String>,
    /// Rule ids listed in `absent` that the verdict finds.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unexpected: Vec<String>,
    /// With `strict`: rule ids of findings at or above `--fail-on` not listed in `rules`.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unlisted: Vec<String>,
}

impl Diff {
    /// Whether nothing differs.
    pub fn is_empty(&self) -> bool {
        self.outcome.is_none()
            && self.missing.is_empty()
            && self.unexpected.is_empty()
            && self.unlisted.is_empty()
    }

    /// Diff lines: `-` expected, `+` actual.
    pub fn lines(&self, decided_by: Option<&str>) -> Vec<String> {
        let mut out = Vec::new();
        if let Some(o) = &self.outcome {
            out.push(format!("- outcome {}", o.expected));
            match decided_by {
                Some(r) => out.push(format!("+ outcome {} (decided by {r})", o.actual)),
                None => out.push(format!("+ outcome {}", o.actual)),
            }
        }
        for r in &self.missing {
            out.push(format!(
                "- rule {r} (expected to be cited or found; it is not)"
            ));
        }
        for r in &self.unexpected {
            out.push(format!("+ rule {r} (listed in absent; it is found)"));
        }
        for r in &self.unlisted {
            out.push(format!("+ rule {r} (found; not listed in rules)"));
        }
        out
    }
}

/// Expected and actual outcome.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct OutcomeDiff {
    /// What the fixture expects.
    pub expected: Outcome,
    /// What the verdict says.
    pub actual: Outcome,
}

/// One reason a (file, revision) fails; the unit a baseline lists.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Failure {
    /// What failed.
    pub kind: FailureKind,
    /// The rule concerned (all kinds but `outcome`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// The actual outcome (kind `outcome`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub outcome: Option<Outcome>,
    /// Whether the baseline lists it.
    pub baselined: bool,
}

/// Kinds of [`Failure`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The outcome differs from the expected one.
    Outcome,
    /// An expected rule is neither cited nor found.
    Missing,
    /// A rule listed in `absent` is found.
    Unexpected,
    /// With `strict`, a finding whose rule `rules` does not list.
    Unlisted,
    /// In a file without expectations, a finding at or above `--fail-on`.
    Finding,
}

/// A finding, located in the exchange file.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct CheckFinding {
    /// The finding as `classify --format json` reports it.
    #[serde(flatten)]
    pub finding: FindingOut,
    /// Whether the expectation lists its rule in `rules`.
    pub expected: bool,
    /// Where in the exchange file: the finding's value inside `response.body` / `body_json`
    /// when it can be found, else the `response` member.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location: Option<Location>,
    /// The body around the finding's value, when it can be found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excerpt: Option<Excerpt>,
}

pub use super::Location;

/// A piece of the response body around a finding's value.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Excerpt {
    /// Text before the value (`…` first when cut).
    pub before: String,
    /// The value (cut with `…` when long).
    pub target: String,
    /// Text after the value (`…` last when cut).
    pub after: String,
}

/// Per revision: how the recorded exchanges fared against each active rule.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct RevisionConformance {
    /// The revision.
    pub protocol: Protocol,
    /// Exchanges judged under it.
    pub exchanges: usize,
    /// Active rules, grouped: finding severity (error, warning, info, then rules that only
    /// decide outcomes or defaults), then layer, then table order.
    pub rules: Vec<RuleConformance>,
}

/// One rule under one revision, over the corpus.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct RuleConformance {
    /// Rule id.
    pub rule: String,
    /// Short title.
    pub title: String,
    /// What it checks.
    pub summary: String,
    /// Requirement level under this revision.
    pub level: Level,
    /// Layer.
    pub layer: Layer,
    /// Finding severity, for rules that produce findings.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub severity: Option<Severity>,
    /// What a trigger does: `outcome OUTCOME`, `finding SEVERITY`, `default FIELD`.
    pub effect: String,
    /// Spec URL under this revision.
    pub url: String,
    /// Section, for people.
    pub section: String,
    /// The cited sentence.
    pub quote: String,
    /// Exchanges on which the rule's condition was looked for and absent.
    pub passed: usize,
    /// Exchanges on which the condition was present.
    pub triggered: usize,
    /// Exchanges to which the rule did not apply.
    pub not_applicable: usize,
    /// Summary state.
    pub state: RuleState,
}

/// How a rule fared over a corpus.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RuleState {
    /// Triggered on at least one exchange.
    Triggered,
    /// Applied to at least one exchange and never triggered.
    Satisfied,
    /// Applied to no exchange: nothing is known (never reported as passed).
    NotExercised,
}

impl RuleState {
    /// Label for reports.
    pub fn label(self) -> &'static str {
        match self {
            RuleState::Triggered => "triggered",
            RuleState::Satisfied => "satisfied",
            RuleState::NotExercised => "not exercised",
        }
    }
}

/// Counts over a run.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
pub struct Summary {
    /// Files given (including unreadable and invalid ones).
    pub files: usize,
    /// Files not judged (unreadable, invalid, no revision).
    pub invalid_files: usize,
    /// (file, revision) results.
    pub results: usize,
    /// Results matching their expectation.
    pub passed: usize,
    /// Results not matching their expectation.
    pub failed: usize,
    /// Results without expectation and without findings at or above `--fail-on`.
    pub ok: usize,
    /// Results without expectation with findings at or above `--fail-on`.
    pub with_findings: usize,
    /// Failing results whose failures the baseline lists.
    pub baselined: usize,
    /// Stale baseline entries.
    pub stale: usize,
}

impl CheckRun {
    /// Every (file, revision) result with its file.
    pub fn results(&self) -> impl Iterator<Item = (&FileResult, &RevisionResult)> {
        self.files
            .iter()
            .flat_map(|f| f.results.iter().map(move |r| (f, r)))
    }

    /// Files that could not be judged.
    pub fn input_errors(&self) -> impl Iterator<Item = (&FileResult, &InputError)> {
        self.files
            .iter()
            .filter_map(|f| f.error.as_ref().map(|e| (f, e)))
    }

    /// Revisions judged, oldest first.
    pub fn revisions(&self) -> Vec<Protocol> {
        self.conformance.iter().map(|c| c.protocol).collect()
    }

    /// Counts.
    pub fn summary(&self) -> Summary {
        let mut s = Summary {
            files: self.files.len(),
            invalid_files: self.input_errors().count(),
            stale: self.stale.len(),
            ..Summary::default()
        };
        for (_, r) in self.results() {
            s.results += 1;
            match r.status {
                Status::Pass => s.passed += 1,
                Status::Fail => s.failed += 1,
                Status::Ok => s.ok += 1,
                Status::Findings => s.with_findings += 1,
                Status::Baselined => s.baselined += 1,
            }
        }
        s
    }

    /// The exit status: 3 when a file could not be judged, else 1 on a failing result, a stale
    /// baseline entry or (when `with_coverage`) a coverage gap, else 0.
    pub fn exit_code(&self, with_coverage: bool) -> u8 {
        if self.input_errors().next().is_some() {
            exit::INPUT
        } else if self.results().any(|(_, r)| r.status.is_failure())
            || !self.stale.is_empty()
            || (with_coverage && !coverage(&self.files).is_complete())
        {
            exit::FINDINGS
        } else {
            exit::OK
        }
    }

    /// The current failures as baseline entries (for `--write-baseline`), sorted.
    pub fn baseline_entries(&self) -> Vec<BaselineEntry> {
        let mut out: Vec<BaselineEntry> = self
            .results()
            .flat_map(|(f, r)| {
                r.failures.iter().map(move |x| BaselineEntry {
                    file: f.file.clone(),
                    protocol: r.protocol,
                    rule: x.rule.clone(),
                    outcome: x.outcome,
                })
            })
            .collect();
        out.sort();
        out.dedup();
        out
    }
}

/// How a rule's counts over a revision come out, by rule id.
pub(crate) fn rule_counts(
    files: &[FileResult],
    protocol: Protocol,
) -> BTreeMap<&str, (usize, usize, usize)> {
    let mut m: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    for f in files {
        for r in f.results.iter().filter(|r| r.protocol == protocol) {
            for e in &r.evaluations {
                let c = m.entry(e.rule.as_str()).or_default();
                match e.status {
                    EvalStatus::Passed => c.0 += 1,
                    EvalStatus::Triggered => c.1 += 1,
                    EvalStatus::NotApplicable => c.2 += 1,
                }
            }
        }
    }
    m
}

/// The revisions any file was judged under, oldest first.
pub(crate) fn judged_revisions(files: &[FileResult]) -> Vec<Protocol> {
    let mut revisions: Vec<Protocol> = files
        .iter()
        .flat_map(|f| f.results.iter().map(|r| r.protocol))
        .collect();
    revisions.sort();
    revisions.dedup();
    revisions
}
