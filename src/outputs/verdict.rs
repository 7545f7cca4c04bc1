//! `classify`: a judgement as text for people.

use std::fmt::Write as _;

use super::Style;
use super::safe::text as esc;
use crate::judge::{Judgement, Verdict};
use crate::views::redact;
use crate::vocab::Severity;

/// How the verdicts of a run fared, for the closing summary line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Verdicts.
    pub verdicts: usize,
    /// Verdicts with an error finding.
    pub errors: usize,
    /// Verdicts whose worst finding is a warning.
    pub warnings: usize,
    /// Files judged.
    pub files: usize,
    /// Files that could not be judged (reported on stderr).
    pub unjudged: usize,
}

impl Tally {
    /// The tally of one file's verdicts.
    pub fn of(verdicts: &[Verdict<'_>]) -> Tally {
        let worst = |s| verdicts.iter().filter(|v| v.worst() == Some(s)).count();
        Tally {
            verdicts: verdicts.len(),
            errors: worst(Severity::Error),
            warnings: worst(Severity::Warning),
            files: 1,
            unjudged: 0,
        }
    }

    /// Adds another tally.
    pub fn add(&mut self, other: &Tally) {
        self.verdicts += other.verdicts;
        self.errors += other.errors;
        self.warnings += other.warnings;
        self.files += other.files;
        self.unjudged += other.unjudged;
    }

    /// `2 verdicts (1 file): 1 with errors, 1 without errors or warnings; exit 1`, coloured
    /// by the worst finding.
    pub fn line(&self, exit: u8, style: Style) -> String {
        let plural =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        let clean = self.verdicts - self.errors - self.warnings;
        let mut parts = Vec::new();
        if self.errors > 0 {
            parts.push(format!("{} with errors", self.errors));
        }
        if self.warnings > 0 {
            parts.push(format!("{} with warnings", self.warnings));
        }
        if clean > 0 {
            parts.push(format!("{clean} without errors or warnings"));
        }
        let unjudged = match self.unjudged {
            0 => String::new(),
            n => format!("; {} not judged (see above)", plural(n, "file", "files")),
        };
        let text = format!(
            "{} ({}): {}{unjudged}; exit {exit}",
            plural(self.verdicts, "verdict", "verdicts"),
            plural(self.files, "file", "files"),
            parts.join(", "),
        );
        let worst = if self.errors > 0 || self.unjudged > 0 {
            Some(Severity::Error)
        } else if self.warnings > 0 {
            Some(Severity::Warning)
        } else {
            None
        };
        format!("{}\n", style.by_worst(worst, &text))
    }
}

/// Renders a judgement: one block per revision, then what differs. Every string that came
/// from the exchange (and the label, a file name) is escaped ([`super::safe`]), and what the
/// server wrote is redacted ([`redact`]).
pub fn judgement(j: &Judgement<'_>, label: &str, style: Style) -> String {
    judgement_at(j, label, style, None)
}

/// [`judgement`], each finding at its `file:line:col` when `at` gives it (per verdict, per
/// finding), else at its JSON path.
pub fn judgement_at(
    j: &Judgement<'_>,
    label: &str,
    style: Style,
    at: Option<&[Vec<Option<crate::run::Location>>]>,
) -> String {
    let mut out = String::new();
    let label = &*esc(label);
    let _ = writeln!(out, "{}", style.bold(label));
    for (i, v) in j.verdicts.iter().enumerate() {
        let places = at.and_then(|a| a.get(i)).map(Vec::as_slice).unwrap_or(&[]);
        verdict(&mut out, v, label, style, places);
    }
    let diffs = j.differences();
    if !diffs.is_empty() {
        let _ = writeln!(out, "  {}", style.bold("differences between revisions"));
        for d in diffs {
            let vals: Vec<String> = d
                .values
                .iter()
                .map(|(k, v)| format!("{k}: {}", esc(v)))
                .collect();
            let _ = writeln!(out, "    {:<40} {}", esc(&d.aspect), vals.join("   "));
        }
    }
    out
}

fn verdict(
    out: &mut String,
    v: &Verdict<'_>,
    label: &str,
    style: Style,
    places: &[Option<crate::run::Location>],
) {
    let _ = writeln!(
        out,
        "  {}  {}  {}",
        style.bold(v.protocol.as_str()),
        style.outcome(v),
        style.dim(&format!("[{} layer]", v.layer()))
    );
    let _ = writeln!(out, "    {}", esc(&redact::text(&v.summary())));
    let table = v.table();
    let mut cite = |kind: &str, a: &crate::rules::Active| {
        let r = table.rule_of(a);
        let _ = writeln!(
            out,
            "    {:<10} {} {}",
            kind,
            style.bold(&r.id),
            style.dim(&format!("({})", a.level))
        );
        let _ = writeln!(out, "    {:<10} {}", "", a.cite.url);
        let _ = writeln!(
            out,
            "    {:<10} {}",
            "",
            style.dim(&format!("\u{201c}{}\u{201d}", esc(&a.cite.quote)))
        );
    };
    if let Some(a) = v.decided_by {
        cite("decided by", a);
    }
    for a in &v.defaults {
        cite("default", a);
    }
    for a in &v.context {
        cite("also", a);
    }
    if !v.findings.is_empty() {
        let _ = writeln!(out, "    findings");
        for (k, f) in v.findings.iter().enumerate() {
            let path = crate::vocab::pointer::json_path(&f.pointer);
            let json_at = esc(&crate::views::place(&path, f.event, f.line)).into_owned();
            // As `check` writes it: `file:line:col: $.path`, or `file::$.path` unplaced.
            let at = match places.get(k).copied().flatten() {
                Some(l) => format!("{label}:{}:{}: {json_at}", l.line, l.column),
                None => format!("{label}::{json_at}"),
            };
            let _ = writeln!(
                out,
                "      {} {}  {}: {}",
                style.severity(f.severity),
                f.rule.id,
                at,
                esc(&redact::text(&f.message))
            );
        }
    }
    for o in &v.omitted {
        let _ = writeln!(
            out,
            "      {} {}  {}",
            style.severity(o.severity),
            o.rule.id,
            crate::views::omitted_message(o.count, &o.rule.id)
        );
    }
    for a in &v.adjustments {
        let shown = crate::views::AdjustmentOut::of(a);
        let _ = writeln!(out, "    {:<10} {}", "settings", shown.message);
    }
    let advice = crate::advice::advise(v, &crate::advice::RetryPolicy::default());
    let _ = writeln!(
        out,
        "    {:<10} {} — {}",
        "retry",
        style.bold(
            &serde_json::to_value(advice.action)
                .map_or_else(|_| "?".into(), |a| a.as_str().unwrap_or("?").to_string())
        ),
        esc(&redact::text(&advice.detail))
    );
    for n in &v.notes {
        let _ = writeln!(out, "    {} {}", style.dim("note:"), esc(&redact::text(n)));
    }
}
