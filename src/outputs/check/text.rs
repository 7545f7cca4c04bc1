//! Terminal text: failing results with their diffs and `file:line:column: $.json.path: message`
//! finding lines (the place editors and terminals open, then the JSON path as check-jsonschema
//! prints it), unreadable and invalid files apart, stale baseline entries, a conformance line
//! per revision, then a summary line. File names and everything that came from an exchange are
//! escaped ([`crate::outputs::safe`]).

use std::fmt::Write as _;

use crate::outputs::Style;
use crate::outputs::safe::text as esc;
use crate::run::check::{
    CheckFinding, CheckRun, Coverage, FileResult, RevisionResult, RuleState, Status,
};
use crate::vocab::Severity;

/// What to include.
#[derive(Clone, Copy, Debug, Default)]
pub struct TextOptions {
    /// Colour.
    pub style: Style,
    /// Also list passing results and the per-rule conformance table.
    pub verbose: bool,
    /// Only failing results, files not judged and stale entries: no conformance lines and no
    /// summary line.
    pub quiet: bool,
}

fn paint_status(style: Style, run: &CheckRun, r: &RevisionResult) -> String {
    let shown = super::label(run, r);
    let label = format!("{shown:<9}");
    if !style.color {
        return label;
    }
    let code = match r.status {
        _ if super::not_targeted(run, r) => "2",
        Status::Pass | Status::Ok => "32",
        Status::Fail | Status::Findings => "1;31",
        Status::Baselined => "33",
    };
    format!("\x1b[{code}m{label}\x1b[0m")
}

/// `file:line:column: $.path: message  [severity rule]` (`event[N].path` for stream events,
/// `stdout:N.path` for a stdio server's lines; `file::$.path` when the finding cannot be placed
/// in the file), escaped.
pub fn finding_line(file: &str, f: &CheckFinding) -> String {
    let json_at = crate::views::place(&f.finding.path, f.finding.event, f.finding.line);
    let at = match f.location {
        Some(l) => format!("{}:{}:{}: {}", esc(file), l.line, l.column, esc(&json_at)),
        None => format!("{}::{}", esc(file), esc(&json_at)),
    };
    format!(
        "{at}: {}  [{} {}]",
        esc(&f.finding.message),
        f.finding.severity,
        f.finding.rule
    )
}

/// Renders the run.
pub fn render(run: &CheckRun, coverage: Option<&Coverage>, o: TextOptions) -> String {
    let style = o.style;
    let mut out = String::new();
    for (file, r) in run.results() {
        let show = o.verbose || r.status != Status::Pass && r.status != Status::Ok;
        if show {
            result(&mut out, file, r, run, o);
        }
    }
    let errors: Vec<_> = run.input_errors().collect();
    if !errors.is_empty() {
        let _ = writeln!(
            out,
            "\n{}",
            style.bold("Unreadable or invalid files (not judged):")
        );
        for (f, e) in errors {
            let _ = writeln!(out, "  {}", input_error_line(f, e));
        }
    }
    if !run.stale.is_empty() {
        let _ = writeln!(
            out,
            "\n{}",
            style
                .bold("Stale baseline entries (the listed failure no longer occurs; remove them):")
        );
        for e in &run.stale {
            let what = e.what();
            let _ = writeln!(out, "  STALE {} [{}] {what}", esc(&e.file), e.protocol);
        }
    }
    if let Some(c) = coverage {
        coverage_text(&mut out, c, o);
    }
    if o.quiet {
        return out;
    }
    if !run.conformance.is_empty() {
        let _ = writeln!(out);
        for c in &run.conformance {
            let _ = writeln!(out, "conformance {}", conformance_line(c));
            if o.verbose {
                for r in &c.rules {
                    let sev = r.severity.map_or("-".to_string(), |s| s.to_string());
                    let _ = writeln!(
                        out,
                        "  {:<44} {:<8} {:<12} passed {:>4}  triggered {:>4}  n/a {:>4}  {}",
                        r.rule,
                        sev,
                        r.layer.as_ref(),
                        r.passed,
                        r.triggered,
                        r.not_applicable,
                        r.state.label()
                    );
                }
            }
        }
    }
    let code = run.exit_code(coverage.is_some());
    let verdict = if code == 0 {
        style.bold("check passed")
    } else {
        style.bold("check failed")
    };
    let _ = writeln!(out, "\n{verdict}: {}", summary_line(run));
    out
}

/// `file:line:column: message` for a file not judged (escaped).
pub fn input_error_line(f: &FileResult, e: &crate::run::check::InputError) -> String {
    let pos = match (e.line, e.column) {
        (Some(l), Some(c)) => format!(":{l}:{c}"),
        (Some(l), None) => format!(":{l}"),
        _ => String::new(),
    };
    format!("{}{pos}: {}", esc(&f.file), esc(&e.message))
}

/// How the rules of a revision fared, in words that agree with the per-rule table: `2025-11-25:
/// 91 exchanges; 44 rules: 40 triggered by some exchange (38 of them satisfied by others), 3
/// only satisfied, 1 not exercised`.
pub fn conformance_line(c: &crate::run::check::RevisionConformance) -> String {
    let count = |s: RuleState| c.rules.iter().filter(|r| r.state == s).count();
    let both = c
        .rules
        .iter()
        .filter(|r| r.state == RuleState::Triggered && r.passed > 0)
        .count();
    format!(
        "{}: {} exchanges; {} rules: {} triggered by some exchange ({both} of them satisfied by others), {} only satisfied, {} not exercised",
        c.protocol,
        c.exchanges,
        c.rules.len(),
        count(RuleState::Triggered),
        count(RuleState::Satisfied),
        count(RuleState::NotExercised)
    )
}

fn result(out: &mut String, file: &FileResult, r: &RevisionResult, run: &CheckRun, o: TextOptions) {
    let style = o.style;
    let place = match r.expected_at {
        Some(l) if r.diff.is_some() => format!("{}:{}:{}", esc(&file.file), l.line, l.column),
        _ => esc(&file.file).into_owned(),
    };
    let _ = writeln!(
        out,
        "{} {}  [{}]  {}",
        paint_status(style, run, r),
        style.bold(&place),
        r.protocol,
        r.outcome
    );
    if let Some(d) = &r.diff {
        for line in d.lines(r.decided_by.as_deref()) {
            let line = esc(&line).into_owned();
            let painted = if style.color {
                let code = if line.starts_with('-') { "31" } else { "32" };
                format!("\x1b[{code}m{line}\x1b[0m")
            } else {
                line
            };
            let _ = writeln!(out, "    {painted}");
        }
    }
    let baselined: Vec<String> = r
        .failures
        .iter()
        .filter(|x| x.baselined)
        .map(|x| match (&x.rule, x.outcome) {
            (Some(rule), _) => rule.clone(),
            (None, Some(o)) => format!("outcome {o}"),
            _ => String::new(),
        })
        .collect();
    if !baselined.is_empty() {
        let _ = writeln!(
            out,
            "    {}",
            style.dim(&format!("listed in the baseline: {}", baselined.join(", ")))
        );
    }
    for f in &r.findings {
        let relevant = o.verbose
            || match r.status {
                Status::Findings | Status::Baselined if r.expected.is_none() => {
                    run.fail_on.fails(f.finding.severity)
                }
                Status::Ok | Status::Pass => false,
                _ => true,
            };
        if relevant {
            let sev = match f.finding.severity {
                Severity::Error => style.severity(Severity::Error),
                s => style.severity(s),
            };
            let _ = writeln!(
                out,
                "    {} {}",
                sev.trim_end(),
                finding_line(&file.file, f)
            );
        }
    }
    for x in &r.omitted {
        let _ = writeln!(
            out,
            "    {} {}::  {}  [{} {}]",
            style.severity(x.severity).trim_end(),
            esc(&file.file),
            x.message,
            x.severity,
            x.rule
        );
    }
    for a in &r.settings {
        let _ = writeln!(out, "    {} {}", style.dim("settings:"), a.message);
    }
}

fn coverage_text(out: &mut String, c: &Coverage, o: TextOptions) {
    let style = o.style;
    for rev in &c.revisions {
        let _ = writeln!(
            out,
            "\n{}",
            style.bold(&format!("coverage {}", rev.protocol))
        );
        for r in &rev.rules {
            let mark = if r.is_complete() { "ok  " } else { "MISS" };
            let lacks = r.lacks();
            let _ = writeln!(
                out,
                "  {mark} {:<44} triggered by {:>3}, satisfied by {:>3}{}",
                r.rule,
                r.triggered_by.len(),
                r.satisfied_by.len(),
                if lacks.is_empty() {
                    String::new()
                } else {
                    format!("  ({})", lacks.join(", "))
                }
            );
            let list = |label: &str, files: &[String], out: &mut String| {
                if files.is_empty() {
                    return;
                }
                let shown: Vec<std::borrow::Cow<'_, str>> = files
                    .iter()
                    .take(if o.verbose { usize::MAX } else { 3 })
                    .map(|f| esc(f))
                    .collect();
                let more = files.len() - shown.len();
                let _ = writeln!(
                    out,
                    "         {label}: {}{}",
                    shown.join(", "),
                    if more > 0 {
                        format!(" (+{more} more)")
                    } else {
                        String::new()
                    }
                );
            };
            list("triggered", &r.triggered_by, out);
            list("satisfied", &r.satisfied_by, out);
        }
    }
    let gaps = c.gaps().count();
    let _ = writeln!(
        out,
        "\ncoverage: {}",
        if gaps == 0 {
            "every rule has a triggering and a satisfying fixture".to_string()
        } else {
            format!(
                "{gaps} {} lack a triggering or a satisfying fixture",
                plural(gaps, "rule", "rules")
            )
        }
    );
}

/// A one-line summary of a run, e.g. `12 files, 20 results: 18 passed, 1 failed, ...`.
pub fn summary_line(run: &CheckRun) -> String {
    let s = run.summary();
    let not_targeted = run
        .results()
        .filter(|(_, r)| super::not_targeted(run, r))
        .count();
    let mut parts = Vec::new();
    if s.passed > 0 {
        parts.push(format!("{} passed", s.passed));
    }
    if s.failed > 0 {
        parts.push(format!("{} failed", s.failed));
    }
    if s.ok > not_targeted {
        parts.push(format!("{} ok", s.ok - not_targeted));
    }
    if not_targeted > 0 {
        parts.push(format!("{not_targeted} not targeted"));
    }
    if s.with_findings > 0 {
        parts.push(format!("{} with findings", s.with_findings));
    }
    if s.baselined > 0 {
        parts.push(format!("{} baselined", s.baselined));
    }
    let mut line = format!(
        "{} {}, {} {}",
        s.files,
        plural(s.files, "file", "files"),
        s.results,
        plural(s.results, "result", "results")
    );
    if !parts.is_empty() {
        line.push_str(": ");
        line.push_str(&parts.join(", "));
    }
    if s.stale > 0 {
        line.push_str(&format!(
            "; {} stale baseline {}",
            s.stale,
            plural(s.stale, "entry", "entries")
        ));
    }
    if s.invalid_files > 0 {
        line.push_str(&format!(
            "; {} unreadable or invalid {}",
            s.invalid_files,
            plural(s.invalid_files, "file", "files")
        ));
    }
    line
}

pub(crate) fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 { one } else { many }
}
