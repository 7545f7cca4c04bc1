//! `check --accept`: writes the current verdicts into the `expect` entries of the files that
//! fail them ([`crate::run::check::accept`]), shows what changed as a unified diff, and leaves a
//! file with uncommitted changes alone unless told otherwise.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use crate::inputs::corpus::display_path;
use crate::outputs::Style;
use crate::run::check::{CheckOptions, CheckRun, Status, accept, check_bytes_at};

/// What `--accept` did.
#[derive(Debug, Default)]
pub(super) struct Tally {
    /// Files rewritten.
    pub written: usize,
    /// Files left alone because git could not restore them.
    pub refused: usize,
    /// Files that could not be rewritten (unreadable, or the entry not found).
    pub failed: usize,
}

impl Tally {
    /// The closing line, e.g. `--accept: 2 files rewritten, 1 left alone (uncommitted changes)`.
    pub fn line(&self) -> String {
        let files = |n: usize| {
            if n == 1 {
                "1 file".to_string()
            } else {
                format!("{n} files")
            }
        };
        let mut s = format!("--accept: {} rewritten", files(self.written));
        if self.refused > 0 {
            s.push_str(&format!(
                ", {} left alone (git could not restore them; --accept-dirty writes them)",
                files(self.refused)
            ));
        }
        if self.failed > 0 {
            s.push_str(&format!(
                ", {} not rewritten (named above)",
                files(self.failed)
            ));
        }
        s
    }
}

/// Rewrites the failing files of `run` (judged from `files`), writes each diff to `out`, and
/// replaces their results in `run` by the judgement of the text written. Each file left alone
/// is named on stderr with the reason.
pub(super) fn accept_failing(
    run: &mut CheckRun,
    files: &[PathBuf],
    options: &CheckOptions<'_>,
    dirty_ok: bool,
    out: &mut dyn Write,
    style: Style,
) -> Tally {
    let paths: HashMap<String, &PathBuf> = files
        .iter()
        .map(|p| (display_path(p, options.root.as_deref()), p))
        .collect();
    let mut tally = Tally::default();
    for i in 0..run.files.len() {
        let f = &run.files[i];
        if f.error.is_some() || !f.results.iter().any(|r| r.status == Status::Fail) {
            continue;
        }
        let Some(path) = paths.get(&f.file).copied() else {
            continue;
        };
        let note = |why: &str| {
            eprintln!(
                "mcp-verdict check: {}: not accepted: {why}",
                crate::outputs::safe::text(&f.file)
            );
        };
        let text = match std::fs::read(path).map(String::from_utf8) {
            Ok(Ok(t)) => t,
            Ok(Err(_)) => {
                note("the file is not UTF-8 text");
                tally.failed += 1;
                continue;
            }
            Err(e) => {
                note(&format!("cannot read it again: {e}"));
                tally.failed += 1;
                continue;
            }
        };
        let accepted = match accept(&text, &f.results) {
            Ok(Some(a)) => a,
            Ok(None) => continue,
            Err(e) => {
                note(&e.to_string());
                tally.failed += 1;
                continue;
            }
        };
        // The text written must meet its new expectations, judged as the file would be.
        let mut again = check_bytes_at(&f.file, path, accepted.text.as_bytes(), options);
        let still: Vec<&str> = again
            .results
            .iter()
            .filter(|r| r.status == Status::Fail)
            .map(|r| r.protocol.as_str())
            .collect();
        if again.error.is_some() || !still.is_empty() {
            note(&format!(
                "the rewritten expectations would still fail ({}); edit the file by hand",
                still.join(", ")
            ));
            tally.failed += 1;
            continue;
        }
        if !dirty_ok && let Err(why) = restorable(path) {
            note(&format!(
                "{why}; commit it first, or pass --accept-dirty to write it anyway"
            ));
            tally.refused += 1;
            continue;
        }
        if let Err(e) = std::fs::write(path, &accepted.text) {
            note(&format!("cannot write it: {e}"));
            tally.failed += 1;
            continue;
        }
        let label = crate::outputs::safe::text(&f.file);
        let diff = similar::TextDiff::from_lines(&text, &accepted.text);
        let unified = diff
            .unified_diff()
            .context_radius(2)
            .header(&format!("a/{label}"), &format!("b/{label}"))
            .to_string();
        for line in unified.lines() {
            let shown = if line.starts_with("+++") || line.starts_with("---") {
                style.bold(line)
            } else if line.starts_with('+') {
                style.added(line)
            } else if line.starts_with('-') {
                style.removed(line)
            } else if line.starts_with("@@") {
                style.dim(line)
            } else {
                line.to_string()
            };
            let _ = writeln!(out, "{shown}");
        }
        again.elapsed = run.files[i].elapsed;
        run.files[i] = again;
        tally.written += 1;
    }
    run.apply_baseline(options.baseline.as_ref());
    tally
}

/// Whether git can give back what the file holds now: it is tracked and has no uncommitted
/// change; else why not.
fn restorable(path: &Path) -> Result<(), String> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = path.file_name().unwrap_or(path.as_os_str());
    let output = Command::new("git")
        .arg("--literal-pathspecs")
        .arg("-C")
        .arg(dir)
        .args(["status", "--porcelain=v1", "--ignored", "--"])
        .arg(name)
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    let o = match output {
        Ok(o) => o,
        Err(e) => {
            return Err(format!(
                "git could not be run ({e}) to tell whether it is committed"
            ));
        }
    };
    if !o.status.success() {
        return Err(
            "it is not in a git repository, so its current text could not be restored".into(),
        );
    }
    let status = String::from_utf8_lossy(&o.stdout);
    match status.get(..2) {
        None => Ok(()),
        Some("??") => Err("it is not committed (untracked)".into()),
        Some("!!") => Err("git ignores it, so its current text could not be restored".into()),
        Some(_) => Err("it has uncommitted changes".into()),
    }
}
