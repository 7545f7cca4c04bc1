//! `--format gitlab`: a GitLab Code Quality report (a JSON array of issues: `description`,
//! `check_name`, `fingerprint`, `severity`, `location.path` and `location.lines.begin`), one
//! issue per thing to act on ([`super::actions`]). Severities: `critical` for errors, `minor`
//! for warnings, `info` for notes. Paths are as the other reports show them (use `--root` with
//! the project directory so that they are relative to it).

use serde_json::{Value, json};

use super::actions::actions;
use crate::outputs::safe;
use crate::run::check::CheckRun;
use crate::vocab::Severity;

/// Renders the run.
pub fn render(run: &CheckRun) -> String {
    let issues: Vec<Value> = actions(run)
        .iter()
        .map(|a| {
            json!({
                "type": "issue",
                "description": safe::text(&a.message),
                "check_name": a.rule,
                "fingerprint": a.fingerprint(),
                "severity": match a.severity {
                    Severity::Error => "critical",
                    Severity::Warning => "minor",
                    Severity::Info => "info",
                },
                "location": {
                    "path": a.file,
                    "lines": { "begin": a.location.map_or(1, |l| l.line) },
                },
            })
        })
        .collect();
    let mut s = safe::json(serde_json::to_string_pretty(&issues).expect("issues serialize"));
    s.push('\n');
    s
}
