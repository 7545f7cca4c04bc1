//! `check`: the report formats CI systems and people read, each a pure function of the
//! prepared [`CheckRun`]: the same run renders to the same bytes. A new format is a new file
//! here and one arm in [`render`].

pub mod actions;
pub mod github;
pub mod gitlab;
pub mod html;
pub mod json;
pub mod junit;
pub mod markdown;
pub mod sarif;
pub mod text;

use crate::run::check::{CheckRun, Coverage, RevisionResult, Status};

/// Whether a result is `ok` only because its file's `expect` names other revisions: it has
/// findings at or above `--fail-on`, which do not fail the run. Reports show it as
/// `NOT TARGETED`, keeping `OK` for what `check --help` calls OK.
pub fn not_targeted(run: &CheckRun, r: &RevisionResult) -> bool {
    r.status == Status::Ok
        && r.findings
            .iter()
            .any(|f| run.fail_on.fails(f.finding.severity))
}

/// The label a result is shown with: its status's, or `NOT TARGETED` ([`not_targeted`]).
pub fn label(run: &CheckRun, r: &RevisionResult) -> &'static str {
    if not_targeted(run, r) {
        "NOT TARGETED"
    } else {
        r.status.label()
    }
}

/// The report formats of `check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Format {
    /// For people at a terminal: failures with diffs, `file::$.path: message` lines, summary.
    Text,
    /// One JSON document (schema: schemas/check-report.schema.json).
    Json,
    /// One JSON record per line: per file and revision, then errors, stale entries, summary.
    Ndjson,
    /// GitHub job summary or PR comment.
    Markdown,
    /// JUnit XML: one test case per file and revision.
    Junit,
    /// SARIF 2.1.0 for code scanning.
    Sarif,
    /// One self-contained HTML page.
    Html,
    /// GitHub Actions workflow commands: one `::error`/`::warning` annotation per failure.
    Github,
    /// GitLab Code Quality (a JSON array of issues).
    Gitlab,
}

/// Writes a run in a format to `w`: `json`, `ndjson`, `sarif` and `html` as they are
/// composed (a large report is never held whole), the others rendered first.
pub fn render_to(
    format: Format,
    run: &CheckRun,
    coverage: Option<&Coverage>,
    text: text::TextOptions,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    match format {
        Format::Json => json::render_to(run, coverage, w),
        Format::Ndjson => json::ndjson_to(run, coverage, w),
        Format::Sarif => sarif::render_to(run, w),
        Format::Html => html::render_to(run, coverage, w),
        _ => w.write_all(render(format, run, coverage, text).as_bytes()),
    }
}

/// Renders a run in a format (`text` takes its options; the others ignore them).
pub fn render(
    format: Format,
    run: &CheckRun,
    coverage: Option<&Coverage>,
    text: text::TextOptions,
) -> String {
    match format {
        Format::Text => text::render(run, coverage, text),
        Format::Json => json::render(run, coverage),
        Format::Ndjson => json::ndjson(run, coverage),
        Format::Markdown => markdown::render(run, coverage),
        Format::Junit => junit::render(run, coverage),
        Format::Sarif => sarif::render(run),
        Format::Html => html::render(run, coverage),
        Format::Github => github::render(run, coverage),
        Format::Gitlab => gitlab::render(run),
    }
}
