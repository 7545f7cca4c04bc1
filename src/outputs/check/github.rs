//! `--format github`: GitHub Actions workflow commands, one annotation per thing to act on
//! ([`super::actions`]), then the summary line:
//!
//! ```text
//! ::error file=tests/x.json,line=12,col=5,title=content.block.fields::2025-11-25: $.result…
//! ```
//!
//! `error`, `warning` or `notice` by severity. Values are escaped as GitHub's runner reads
//! them back (`%` `\r` `\n` in messages; also `:` and `,` in properties), after
//! [`crate::outputs::safe`] (nothing from an exchange reaches the log raw, and no line can
//! start a workflow command of its own). GitHub shows at most ten annotations of each level
//! per step; the rest are in the log. The job summary comes from the Markdown format
//! (`check --format github` appends it to `$GITHUB_STEP_SUMMARY` when that is set).

use std::fmt::Write as _;

use super::actions::actions;
use crate::outputs::safe;
use crate::run::check::{CheckRun, Coverage};
use crate::vocab::Severity;

/// Escapes a workflow command's message.
pub fn escape_data(s: &str) -> String {
    safe::text(s)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a workflow command's property value.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// Renders the run.
pub fn render(run: &CheckRun, coverage: Option<&Coverage>) -> String {
    let mut out = String::new();
    for a in actions(run) {
        let command = match a.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let mut props = format!("file={}", escape_property(a.file));
        if let Some(l) = a.location {
            let _ = write!(props, ",line={},col={}", l.line, l.column);
        }
        let _ = write!(props, ",title={}", escape_property(&a.rule));
        let mut message = a.message.clone();
        if let Some(url) = a.help_uri() {
            let _ = write!(message, " ({url})");
        }
        let _ = writeln!(out, "::{command} {props}::{}", escape_data(&message));
    }
    if let Some(c) = coverage {
        for (p, r) in c.gaps() {
            let _ = writeln!(
                out,
                "::error title={}::{}",
                escape_property(&format!("coverage {p}")),
                escape_data(&format!("{}: {}", r.rule, r.lacks().join(", ")))
            );
        }
    }
    let code = run.exit_code(coverage.is_some());
    let _ = writeln!(
        out,
        "mcp-verdict check {}: {}",
        if code == 0 { "passed" } else { "failed" },
        escape_data(&super::text::summary_line(run))
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_as_the_runner_reads_back() {
        assert_eq!(escape_data("50%\r\nnext"), "50%25\\r\\nnext");
        assert_eq!(escape_property("a:b,c"), "a%3Ab%2Cc");
        assert_eq!(escape_data("::error::x\u{1b}[2J"), "::error::x\\u{1b}[2J");
    }
}
