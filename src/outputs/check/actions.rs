//! What a run asks someone to act on, in one list that the annotating formats (SARIF, GitHub
//! workflow commands, GitLab Code Quality) share:
//!
//! - an expectation not met: the outcome or an expected rule, at the file's `expect` entry; a
//!   rule listed in `absent` that is found, or (`--strict`) a finding the expectation does not
//!   list, at each such finding;
//! - in a file without expectations, each finding at or above `--fail-on`, at the finding;
//! - a file not judged, at the problem's line and column;
//! - a stale baseline entry;
//! - findings of a rule above left out by `--max-findings-per-rule`: one action that counts
//!   them, after the rule's last listed finding (nothing is dropped silently).
//!
//! Findings a fixture expects, findings below `--fail-on` and failures the baseline lists are
//! not actions. Messages are as composed (not yet escaped): each format escapes them.

use crate::run::check::{
    CheckFinding, CheckRun, FailureKind, InputError, Location, RevisionResult,
};
use crate::vocab::{Protocol, Severity};

/// The tool's own rule: an expectation not met.
pub const EXPECTATION: &str = "mcp-verdict/expectation";
/// The tool's own rule: a file not judged.
pub const INVALID: &str = "mcp-verdict/invalid-file";
/// The tool's own rule: a stale baseline entry.
pub const STALE: &str = "mcp-verdict/stale-baseline";

/// What kind of thing to act on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ActionKind {
    /// The outcome differs from the expected one.
    Outcome,
    /// An expected rule is neither cited nor found.
    Missing,
    /// A finding that fails the run (listed in `absent`, unlisted under `--strict`, or at or
    /// above `--fail-on` in a file without expectations).
    Finding,
    /// A file not judged.
    Invalid,
    /// A stale baseline entry.
    Stale,
    /// Findings to act on that `--max-findings-per-rule` left out, counted.
    Omitted,
}

impl ActionKind {
    /// A short stable name (part of fingerprints).
    pub fn as_str(self) -> &'static str {
        match self {
            ActionKind::Outcome => "outcome",
            ActionKind::Missing => "missing",
            ActionKind::Finding => "finding",
            ActionKind::Invalid => "invalid",
            ActionKind::Stale => "stale",
            ActionKind::Omitted => "omitted",
        }
    }
}

/// One thing to act on.
#[derive(Clone, Debug)]
pub struct Action<'a> {
    /// What kind.
    pub kind: ActionKind,
    /// The rule: a table rule id for findings, else one of the tool's own ids.
    pub rule: String,
    /// How serious: `Error` for everything but findings, which keep their severity.
    pub severity: Severity,
    /// The file, as reports name it.
    pub file: &'a str,
    /// The revision, when the action belongs to one.
    pub protocol: Option<Protocol>,
    /// Where in the file, when known.
    pub location: Option<Location>,
    /// What to say (one line, not escaped).
    pub message: String,
    /// The finding's JSON pointer (empty for other kinds).
    pub pointer: &'a str,
    /// The (file, revision) result, when the action belongs to one.
    pub result: Option<&'a RevisionResult>,
    /// The finding, for kind `Finding`.
    pub finding: Option<&'a CheckFinding>,
    /// The file's input error, for kind `Invalid`.
    pub error: Option<&'a InputError>,
    /// What a `Missing` or `Stale` action names (the rule, or the outcome), else empty.
    pub subject: String,
}

impl Action<'_> {
    /// A stable identity that does not depend on the file's line numbers: kind, file, revision,
    /// rule, pointer and stream event (or stdout line), hashed (64-bit FNV-1a, 16 hex digits).
    pub fn fingerprint(&self) -> String {
        // An SSE event as its number, a stdout line as `stdout:N`: the two never meet in one
        // exchange, and a stream's fingerprints stay what they were.
        let event = self
            .finding
            .and_then(|f| {
                let f = &f.finding;
                f.event
                    .map(|e| e.to_string())
                    .or_else(|| f.line.map(|l| format!("stdout:{l}")))
            })
            .unwrap_or_default();
        let parts = [
            self.kind.as_str(),
            self.file,
            self.protocol.map_or("", |p| p.as_str()),
            &self.rule,
            self.pointer,
            &event,
            &self.subject,
        ];
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for p in parts {
            for b in p.bytes().chain([0u8]) {
                h ^= u64::from(b);
                h = h.wrapping_mul(0x0100_0000_01b3);
            }
        }
        format!("{h:016x}")
    }

    /// The spec URL of the finding's rule, for findings.
    pub fn help_uri(&self) -> Option<&str> {
        self.finding.map(|f| f.finding.url.as_str())
    }
}

fn revision_actions<'a>(
    file: &'a str,
    r: &'a RevisionResult,
    run: &CheckRun,
    out: &mut Vec<Action<'a>>,
) {
    let p = r.protocol;
    for x in r.failures.iter().filter(|x| !x.baselined) {
        let rule = x.rule.as_deref().unwrap_or_default();
        match x.kind {
            FailureKind::Outcome | FailureKind::Missing => {
                let (kind, message) = if x.kind == FailureKind::Outcome {
                    let expected = r
                        .expected
                        .as_ref()
                        .map(|e| e.outcome.to_string())
                        .unwrap_or_default();
                    let by = r
                        .decided_by
                        .as_deref()
                        .map(|d| format!(" (decided by {d})"))
                        .unwrap_or_default();
                    (
                        ActionKind::Outcome,
                        format!("{p}: expected outcome {expected}, got {}{by}", r.outcome),
                    )
                } else {
                    (
                        ActionKind::Missing,
                        format!("{p}: expected rule {rule} to be cited or found; it is not"),
                    )
                };
                out.push(Action {
                    kind,
                    rule: EXPECTATION.to_string(),
                    severity: Severity::Error,
                    file,
                    protocol: Some(p),
                    location: r.expected_at,
                    message,
                    pointer: "",
                    result: Some(r),
                    finding: None,
                    error: None,
                    subject: rule.to_string(),
                });
            }
            FailureKind::Unexpected | FailureKind::Unlisted | FailureKind::Finding => {
                let why = match x.kind {
                    FailureKind::Unexpected => " (the file lists this rule in `absent`)",
                    FailureKind::Unlisted => " (not listed in the file's `rules`; --strict)",
                    _ => "",
                };
                let mut last = None;
                for f in r.findings.iter().filter(|f| f.finding.rule == rule) {
                    let severity = f.finding.severity;
                    if x.kind == FailureKind::Finding && !run.fail_on.fails(severity) {
                        continue;
                    }
                    last = Some(f);
                    out.push(Action {
                        kind: ActionKind::Finding,
                        rule: rule.to_string(),
                        severity: if x.kind == FailureKind::Finding {
                            severity
                        } else {
                            Severity::Error
                        },
                        file,
                        protocol: Some(p),
                        location: f.location,
                        message: format!(
                            "{p}: {}: {}{why}",
                            crate::views::place(&f.finding.path, f.finding.event, f.finding.line),
                            f.finding.message
                        ),
                        pointer: &f.finding.pointer,
                        result: Some(r),
                        finding: Some(f),
                        error: None,
                        subject: String::new(),
                    });
                }
                for o in r.omitted.iter().filter(|o| o.rule == rule) {
                    if x.kind == FailureKind::Finding && !run.fail_on.fails(o.severity) {
                        continue;
                    }
                    out.push(Action {
                        kind: ActionKind::Omitted,
                        rule: rule.to_string(),
                        severity: if x.kind == FailureKind::Finding {
                            o.severity
                        } else {
                            Severity::Error
                        },
                        file,
                        protocol: Some(p),
                        location: last.and_then(|f| f.location),
                        message: format!("{p}: {}", o.message),
                        pointer: "",
                        result: Some(r),
                        finding: None,
                        error: None,
                        subject: String::new(),
                    });
                }
            }
        }
    }
}

/// Everything to act on, in report order: per file and revision, then files not judged, then
/// stale baseline entries.
pub fn actions(run: &CheckRun) -> Vec<Action<'_>> {
    let mut out = Vec::new();
    for (f, r) in run.results() {
        revision_actions(&f.file, r, run, &mut out);
    }
    for (f, e) in run.input_errors() {
        out.push(Action {
            kind: ActionKind::Invalid,
            rule: INVALID.to_string(),
            severity: Severity::Error,
            file: &f.file,
            protocol: None,
            location: e.line.map(|l| Location {
                line: l.max(1),
                column: e.column.unwrap_or(1).max(1),
            }),
            message: e.message.clone(),
            pointer: "",
            result: None,
            finding: None,
            error: Some(e),
            subject: String::new(),
        });
    }
    for e in &run.stale {
        let what = e.what();
        out.push(Action {
            kind: ActionKind::Stale,
            rule: STALE.to_string(),
            severity: Severity::Error,
            file: &e.file,
            protocol: Some(e.protocol),
            location: None,
            message: format!(
                "stale baseline entry: {what} no longer fails under {}; remove the entry",
                e.protocol
            ),
            pointer: "",
            result: None,
            finding: None,
            error: None,
            subject: what,
        });
    }
    out
}
