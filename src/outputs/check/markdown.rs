//! `--format markdown`: for a GitHub job summary (`$GITHUB_STEP_SUMMARY`) or a PR comment: a
//! summary table, failures with diffs, files not judged, stale baseline entries, and per
//! revision a conformance line with a table of the rules some exchange triggered (with spec
//! links; the rules only satisfied or not exercised are counted, and listed in the JSON and
//! HTML reports).
//!
//! The report stays under [`LIMIT`] characters (a pull-request comment's limit on GitHub): its
//! parts are written in that order, summary and failures first, and when the next part would
//! not fit, the rest is left out with a note that says what was and where the full report is.

use std::fmt::Write as _;

use crate::run::check::{CheckRun, Coverage, RuleState, Status};

/// Escapes text for a Markdown table cell or paragraph: Markdown punctuation and HTML (after
/// [`crate::outputs::safe::text`]: no control or bidi character survives).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in crate::outputs::safe::text(s).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '|' => out.push_str("\\|"),
            '\n' | '\r' => out.push(' '),
            '\\' | '`' | '*' | '_' | '[' | ']' | '#' | '~' | '!' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

/// Inline code that survives any content (HTML-escaped, pipes escaped for tables).
fn code(s: &str) -> String {
    let s = crate::outputs::safe::text(s)
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('|', "&#124;")
        .replace(['\n', '\r'], " ");
    format!("<code>{}</code>", s.replace('`', "&#96;"))
}

/// A link to a spec URL (only `https://` URLs become links).
fn link(text: &str, url: &str) -> String {
    if url.starts_with("https://") && !url.contains([' ', '(', ')', '<', '>', '"']) {
        format!("[{}]({url})", code(text))
    } else {
        code(text)
    }
}

/// GitHub's limit on a pull-request comment's body, in characters; a report is kept under it
/// (its length in bytes, at least its length in characters, is).
pub const LIMIT: usize = 65_536;

/// How to render.
#[derive(Clone, Debug)]
pub struct Options {
    /// The report is kept under this many bytes (at least the [`LIMIT`] room for the note
    /// that says what was left out is kept).
    pub limit: usize,
    /// Where the full report is (e.g. the HTML report's file), for the note when parts are
    /// left out.
    pub full_report: Option<String>,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            limit: LIMIT,
            full_report: None,
        }
    }
}

/// Renders the run, under [`LIMIT`] characters.
pub fn render(run: &CheckRun, coverage: Option<&Coverage>) -> String {
    render_with(run, coverage, &Options::default())
}

/// Room kept for the note on what was left out.
const NOTE_ROOM: usize = 1024;

/// Renders the run with options: the parts in order while they fit in `limit` (less room for
/// the note), then the note on what was left out.
pub fn render_with(run: &CheckRun, coverage: Option<&Coverage>, o: &Options) -> String {
    let parts = parts(run, coverage);
    let budget = o.limit.saturating_sub(NOTE_ROOM);
    let mut out = String::new();
    let mut left: Vec<&str> = Vec::new();
    let mut cut = false;
    for (i, p) in parts.iter().enumerate() {
        if !cut && (i == 0 || out.len() + p.text.len() <= budget) {
            out.push_str(&p.text);
        } else {
            cut = true;
            left.push(p.what);
        }
    }
    if cut {
        let mut counts: Vec<(&str, usize)> = Vec::new();
        for w in left {
            match counts.iter_mut().find(|(x, _)| *x == w) {
                Some((_, n)) => *n += 1,
                None => counts.push((w, 1)),
            }
        }
        let listed: Vec<String> = counts
            .iter()
            .map(|(w, n)| match w.split_once('|') {
                Some((one, many)) => {
                    if *n == 1 {
                        format!("1 {one}")
                    } else {
                        format!("{n} {many}")
                    }
                }
                None => w.to_string(),
            })
            .collect();
        let full = match &o.full_report {
            Some(f) => format!("the full report is {}", code(f)),
            None => "for the full report, run `mcp-verdict check` again with `--format html --output FILE` (or `json`)".to_string(),
        };
        let _ = write!(
            out,
            "\n---\n\n**This report was cut to stay under {} characters**: left out are {}; {full}.\n",
            LIMIT,
            escape(&listed.join(", "))
        );
    }
    out
}

/// One part of the report: its text, and what it is called in the note when it is left out
/// (`singular|plural` for parts counted).
struct Part {
    text: String,
    what: &'static str,
}

/// The report's parts, in order.
fn parts(run: &CheckRun, coverage: Option<&Coverage>) -> Vec<Part> {
    let mut parts = Vec::new();
    let s = run.summary();
    let code_ = run.exit_code(coverage.is_some());
    let mut out = String::new();
    let icon = if code_ == 0 { "✅" } else { "❌" };
    let _ = writeln!(out, "## {icon} mcp-verdict check\n");
    let _ = writeln!(out, "{}\n", escape(&super::text::summary_line(run)));
    let _ = writeln!(out, "| | Count |\n|---|---:|");
    for (label, n) in [
        ("Files", s.files),
        ("Results (file × revision)", s.results),
        ("Passed (expectation met)", s.passed),
        ("Failed (expectation not met)", s.failed),
        ("OK (no expectation, no failing finding)", s.ok),
        ("With findings (no expectation)", s.with_findings),
        ("Baselined (known failures)", s.baselined),
        ("Stale baseline entries", s.stale),
        ("Unreadable or invalid files", s.invalid_files),
    ] {
        let _ = writeln!(out, "| {label} | {n} |");
    }
    let _ = writeln!(
        out,
        "\nFindings at or above `{}` fail files without expectations{}.",
        run.fail_on.as_str(),
        if run.strict {
            "; strict: unlisted findings fail files with expectations"
        } else {
            ""
        }
    );
    parts.push(Part {
        text: out,
        what: "the summary",
    });

    let failing: Vec<_> = run
        .results()
        .filter(|(_, r)| r.status.is_failure() || r.status == Status::Baselined)
        .collect();
    for (i, (f, r)) in failing.into_iter().enumerate() {
        let mut out = String::new();
        if i == 0 {
            let _ = writeln!(out, "\n### Failures\n");
        }
        let _ = writeln!(
            out,
            "#### {} {} — {} — {}\n",
            r.status.label(),
            code(&f.file),
            r.protocol,
            code(r.outcome.as_str())
        );
        if let Some(d) = &r.diff {
            let _ = writeln!(out, "```diff");
            for line in d.lines(r.decided_by.as_deref()) {
                // A fence cannot be closed from inside: lines start with - or +.
                let _ = writeln!(out, "{}", crate::outputs::safe::text(&line));
            }
            let _ = writeln!(out, "```\n");
        }
        let listed: Vec<String> = r
            .failures
            .iter()
            .filter(|x| x.baselined)
            .map(|x| match (&x.rule, x.outcome) {
                (Some(rule), _) => code(rule),
                (None, Some(o)) => format!("outcome {}", code(o.as_str())),
                _ => String::new(),
            })
            .collect();
        if !listed.is_empty() {
            let _ = writeln!(out, "Listed in the baseline: {}\n", listed.join(", "));
        }
        let shown: Vec<_> = r
            .findings
            .iter()
            .filter(|x| r.expected.is_some() || run.fail_on.fails(x.finding.severity))
            .collect();
        if !shown.is_empty() {
            let _ = writeln!(
                out,
                "| Severity | Rule | Where | Message |\n|---|---|---|---|"
            );
            for x in shown {
                let f = &x.finding;
                let place = crate::views::place(&f.path, f.event, f.line);
                let at = match x.location {
                    Some(l) => format!("{} (line {})", code(&place), l.line),
                    None => code(&place),
                };
                let _ = writeln!(
                    out,
                    "| {} | {} | {at} | {} |",
                    x.finding.severity,
                    link(&x.finding.rule, &x.finding.url),
                    escape(&x.finding.message)
                );
            }
            let _ = writeln!(out);
        }
        for x in &r.omitted {
            let _ = writeln!(out, "{} ({})\n", escape(&x.message), x.severity);
        }
        parts.push(Part {
            text: out,
            what: "failing result|failing results",
        });
    }

    let errors: Vec<_> = run.input_errors().collect();
    if !errors.is_empty() {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "\n### Unreadable or invalid files (not judged)\n\n| File | Line | Column | Problem |\n|---|---:|---:|---|"
        );
        for (f, e) in errors {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} |",
                code(&f.file),
                e.line.map_or(String::new(), |l| l.to_string()),
                e.column.map_or(String::new(), |c| c.to_string()),
                escape(&e.message)
            );
        }
        parts.push(Part {
            text: out,
            what: "the unreadable or invalid files",
        });
    }

    if !run.stale.is_empty() {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "\n### Stale baseline entries\n\nThe listed failure no longer occurs: remove the entry.\n\n| File | Revision | Rule or outcome |\n|---|---|---|"
        );
        for e in &run.stale {
            let what = e
                .rule
                .clone()
                .or(e.outcome.map(|o| o.to_string()))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                code(&e.file),
                e.protocol,
                code(&what)
            );
        }
        parts.push(Part {
            text: out,
            what: "the stale baseline entries",
        });
    }

    for c in &run.conformance {
        let mut out = String::new();
        let _ = writeln!(
            out,
            "\n### Conformance {} ({} exchanges)\n\n{}. Counts are exchanges.\n",
            c.protocol,
            c.exchanges,
            escape(&super::text::conformance_line(c))
        );
        let triggered: Vec<_> = c
            .rules
            .iter()
            .filter(|r| r.state == RuleState::Triggered)
            .collect();
        if !triggered.is_empty() {
            let _ = writeln!(
                out,
                "<details><summary>Rules some exchange triggered</summary>\n\n| Rule | Level | Severity | Layer | Satisfied | Triggered | Not applicable |\n|---|---|---|---|---:|---:|---:|"
            );
            for r in triggered {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} | {} | {} |",
                    link(&r.rule, &r.url),
                    escape(r.level.as_ref()),
                    r.severity.map_or("—".to_string(), |s| s.to_string()),
                    r.layer,
                    r.passed,
                    r.triggered,
                    r.not_applicable,
                );
            }
            let _ = writeln!(out, "\n</details>\n");
        }
        let _ = writeln!(
            out,
            "The rules only satisfied or not exercised are listed, with their counts, in the JSON and HTML reports (`--format json`, `--format html`)."
        );
        parts.push(Part {
            text: out,
            what: "conformance table|conformance tables",
        });
    }

    if let Some(cov) = coverage {
        let mut out = String::new();
        let gaps: Vec<_> = cov.gaps().collect();
        let _ = writeln!(out, "\n### Rule coverage\n");
        if gaps.is_empty() {
            let _ = writeln!(
                out,
                "Every rule of every judged revision has a triggering and a satisfying fixture."
            );
        } else {
            let _ = writeln!(
                out,
                "| Revision | Rule | Triggered by | Satisfied by | Lacks |\n|---|---|---:|---:|---|"
            );
            for (p, r) in gaps {
                let _ = writeln!(
                    out,
                    "| {p} | {} | {} | {} | {} |",
                    code(&r.rule),
                    r.triggered_by.len(),
                    r.satisfied_by.len(),
                    r.lacks().join(", ")
                );
            }
        }
        parts.push(Part {
            text: out,
            what: "the rule coverage",
        });
    }
    parts
}
