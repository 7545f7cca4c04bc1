//! What a check run is told: the revisions, the engine, what fails it, the baseline, the settings and the finding cap.

use std::path::PathBuf;

use super::Baseline;
use crate::judge::Engine;
use crate::vocab::Protocol;

pub use crate::config::FailOn;
use crate::config::Settings;

/// How to run a check.
pub struct CheckOptions<'t> {
    /// Revisions to judge every file under; `None`: the ones each file names (its `protocol`
    /// and `expect` keys), else the recorded request's, else every revision when `expect` has
    /// only `all`.
    pub protocols: Option<Vec<Protocol>>,
    /// The engine (rule table and plan).
    pub engine: &'t Engine,
    /// Threshold for files without expectations.
    pub fail_on: FailOn,
    /// Whether findings not listed in `rules` fail files with expectations.
    pub strict: bool,
    /// Known failures.
    pub baseline: Option<Baseline>,
    /// Called after each file with the number of files done so far (from worker threads).
    pub progress: Option<&'t (dyn Fn(usize) + Sync)>,
    /// The directory reports show paths relative to (absolute; `None`: the current
    /// directory). Files outside it are shown with their absolute path.
    pub root: Option<PathBuf>,
    /// At most this many findings of one rule per (file, revision) are listed, the rest
    /// counted ([`super::RevisionResult::omitted`]); 0: every finding. The cap changes no status.
    pub max_findings_per_rule: usize,
    /// Settings applied to each verdict before it is reported ([`Settings::apply`], with the
    /// file's path for per-path overrides): which findings are reported and their severity.
    /// Expectations are compared with the verdict as judged, before settings.
    pub settings: Option<&'t Settings>,
}

impl<'t> CheckOptions<'t> {
    /// Defaults: revisions from the files, `--fail-on error`, not strict, no baseline.
    pub fn new(engine: &'t Engine) -> CheckOptions<'t> {
        CheckOptions {
            protocols: None,
            engine,
            fail_on: FailOn::Error,
            strict: false,
            baseline: None,
            progress: None,
            root: None,
            max_findings_per_rule: crate::judge::DEFAULT_MAX_FINDINGS_PER_RULE,
            settings: None,
        }
    }
}

impl Default for CheckOptions<'static> {
    fn default() -> Self {
        CheckOptions::new(Engine::builtin())
    }
}
