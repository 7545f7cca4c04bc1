//! Settings, as ruff has them: which rules' findings are reported (`select` and `ignore`, by
//! rule id or id prefix), a severity per rule, what fails a run (`fail-on`), the revisions to
//! judge under, report settings, and overrides for the files under given paths. They are read
//! from `mcp-verdict.toml`, or from `[tool.mcp-verdict]` in `pyproject.toml`, found upward
//! from the working directory ([`mod@file`]), and from the command line, which wins; they resolve
//! once into [`Settings`], which `classify` and `check` apply to each verdict
//! ([`Settings::apply`]) and `--show-settings` prints ([`show`]).
//!
//! Settings never change an outcome, a citation or an evaluation: only which findings are
//! reported, how severe they are, and what fails. Each change they make to a verdict is
//! recorded in it ([`crate::judge::Adjustment`]), so that every output can say so.

pub mod file;
mod select;
pub mod show;

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Serialize;

use crate::judge::{Adjustment, Change, Judgement, Verdict};
use crate::rules::RuleTable;
use crate::vocab::{Outcome, Protocol, Severity};

pub use file::{ConfigError, FILE_NAME, PYPROJECT};
pub use select::Selector;

/// The severity at or above which a finding fails.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, JsonSchema)]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
#[serde(rename_all = "lowercase")]
pub enum FailOn {
    /// Error findings.
    #[default]
    Error,
    /// Warning and error findings.
    Warning,
    /// Every finding.
    Info,
    /// No finding fails (a conformance report only).
    Never,
}

impl FailOn {
    /// Every value, in order of strictness.
    pub const ALL: [FailOn; 4] = [FailOn::Error, FailOn::Warning, FailOn::Info, FailOn::Never];

    /// Whether a finding of this severity is at or above the threshold.
    pub fn fails(self, s: Severity) -> bool {
        match self {
            FailOn::Error => s >= Severity::Error,
            FailOn::Warning => s >= Severity::Warning,
            FailOn::Info => true,
            FailOn::Never => false,
        }
    }

    /// The name used on the command line and in settings files.
    pub fn as_str(self) -> &'static str {
        match self {
            FailOn::Error => "error",
            FailOn::Warning => "warning",
            FailOn::Info => "info",
            FailOn::Never => "never",
        }
    }

    /// The value a name stands for.
    pub fn parse(s: &str) -> Option<FailOn> {
        FailOn::ALL.into_iter().find(|f| f.as_str() == s)
    }
}

/// Where a setting's value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// Nobody set it.
    Default,
    /// A settings file, by the label it is shown with (`mcp-verdict.toml`, or
    /// `pyproject.toml [tool.mcp-verdict]`).
    File(String),
    /// An override of a settings file: the file's label and the override's 1-based position.
    Override(String, usize),
    /// A command-line flag (`--ignore`).
    Flag(&'static str),
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Origin::Default => f.write_str("default"),
            Origin::File(label) => f.write_str(label),
            Origin::Override(label, n) => write!(f, "{label} [[overrides]] #{n}"),
            Origin::Flag(flag) => f.write_str(flag),
        }
    }
}

/// A value and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct Setting<T> {
    /// The value.
    pub value: T,
    /// Where it came from.
    pub origin: Origin,
}

impl<T> Setting<T> {
    fn of_file(value: T, origin: &Origin) -> Setting<T> {
        Setting {
            value,
            origin: origin.clone(),
        }
    }

    fn default_of(value: T) -> Setting<T> {
        Setting {
            value,
            origin: Origin::Default,
        }
    }
}

/// A report to write (`check`): a format name and its file (`None`: stdout).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// The format, as `--format` names it.
    pub format: String,
    /// Where it goes.
    pub output: Option<PathBuf>,
}

/// One layer of rule settings: the top of a settings file, one of its overrides, or the
/// command line. Later layers win over earlier ones.
#[derive(Clone, Debug, Default)]
pub struct RuleLayer {
    /// `select`: when given, only the rules it matches are reported (as far as this layer
    /// decides).
    pub select: Option<Vec<Selector>>,
    /// `ignore`: rules not reported.
    pub ignore: Vec<Selector>,
    /// Severities by rule id or prefix.
    pub severity: Vec<(Selector, Severity)>,
    /// Where `select` came from.
    pub select_origin: Option<Origin>,
    /// Where `ignore` came from.
    pub ignore_origin: Option<Origin>,
    /// Where `severity` came from.
    pub severity_origin: Option<Origin>,
}

impl RuleLayer {
    fn is_empty(&self) -> bool {
        self.select.is_none() && self.ignore.is_empty() && self.severity.is_empty()
    }
}

/// An override of a settings file: rule settings for the files its globs match.
#[derive(Clone, Debug)]
pub struct Override {
    /// The globs, as written (relative to the settings file's directory).
    pub paths: Vec<String>,
    patterns: Vec<glob::Pattern>,
    /// Its rule settings.
    pub rules: RuleLayer,
}

/// Every setting, resolved from the settings file (if any), the command line and the defaults.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The settings file read, if any.
    pub file: Option<PathBuf>,
    /// The directory override globs are relative to (the settings file's).
    pub base: Option<PathBuf>,
    /// The revisions to judge every exchange under (`None`: the ones each exchange names).
    pub protocol: Option<Setting<Vec<Protocol>>>,
    /// What fails.
    pub fail_on: Setting<FailOn>,
    /// Outcomes that fail `classify` whatever the findings (e.g. `DELIVERY_UNKNOWN`).
    pub fail_on_outcome: Setting<Vec<Outcome>>,
    /// At most this many findings of one rule per verdict (0: all).
    pub max_findings_per_rule: Setting<usize>,
    /// `check --strict`.
    pub strict: Setting<bool>,
    /// `check --root`.
    pub root: Option<Setting<PathBuf>>,
    /// `check`'s reports when no `--format` is given.
    pub reports: Option<Setting<Vec<Report>>>,
    /// The file's own rule settings.
    pub file_rules: RuleLayer,
    /// The file's overrides, in order.
    pub overrides: Vec<Override>,
    /// The command line's rule settings.
    pub flag_rules: RuleLayer,
}

impl Settings {
    /// No file, no flags: every finding reported as the table says, errors fail.
    pub fn defaults() -> Settings {
        Settings {
            file: None,
            base: None,
            protocol: None,
            fail_on: Setting::default_of(FailOn::Error),
            fail_on_outcome: Setting::default_of(Vec::new()),
            max_findings_per_rule: Setting::default_of(crate::judge::DEFAULT_MAX_FINDINGS_PER_RULE),
            strict: Setting::default_of(false),
            root: None,
            reports: None,
            file_rules: RuleLayer::default(),
            overrides: Vec::new(),
            flag_rules: RuleLayer::default(),
        }
    }

    /// Whether the rule settings can change no verdict.
    pub fn leaves_findings_alone(&self) -> bool {
        self.file_rules.is_empty()
            && self.flag_rules.is_empty()
            && self.overrides.iter().all(|o| o.rules.is_empty())
    }

    /// The rule layers that apply to the file at `path` (`None`: stdin, or no file), in
    /// order: the file's own, its overrides that match, the command line's.
    fn layers_for(&self, path: Option<&Path>) -> Vec<&RuleLayer> {
        let mut layers = vec![&self.file_rules];
        if let (Some(path), Some(base)) = (path, &self.base)
            && let Some(rel) = relative_to(path, base)
        {
            let options = glob::MatchOptions {
                require_literal_separator: true,
                ..glob::MatchOptions::new()
            };
            layers.extend(
                self.overrides
                    .iter()
                    .filter(|o| o.patterns.iter().any(|p| p.matches_with(&rel, options)))
                    .map(|o| &o.rules),
            );
        }
        layers.push(&self.flag_rules);
        layers
    }

    /// Applies the rule settings for the file at `path` to a verdict: findings of rules not
    /// selected are dropped (those a cap left out too), severities are set, and each change is
    /// recorded in [`Verdict::adjustments`]. The outcome and everything else stay as judged.
    pub fn apply<'t>(&self, v: &mut Verdict<'t>, path: Option<&Path>) {
        if self.leaves_findings_alone() {
            return;
        }
        let layers = self.layers_for(path);
        let mut cache: Vec<(&'t str, select::Decision)> = Vec::new();
        let mut adjustments: Vec<Adjustment<'t>> = Vec::new();
        let findings = std::mem::take(&mut v.findings);
        for mut f in findings {
            let rule: &'t crate::rules::Rule = f.rule;
            let d = select::decide_cached(&mut cache, &rule.id, &layers);
            match d.change(f.severity) {
                None => v.findings.push(f),
                Some((Change::Ignored, by)) => {
                    record(&mut adjustments, rule, Change::Ignored, 1, by)
                }
                Some((change @ Change::Severity { to, .. }, by)) => {
                    record(&mut adjustments, rule, change, 1, by);
                    f.severity = to;
                    v.findings.push(f);
                }
            }
        }
        let omitted = std::mem::take(&mut v.omitted);
        for mut o in omitted {
            let rule: &'t crate::rules::Rule = o.rule;
            let d = select::decide_cached(&mut cache, &rule.id, &layers);
            match d.change(o.severity) {
                None => v.omitted.push(o),
                Some((Change::Ignored, by)) => {
                    record(&mut adjustments, rule, Change::Ignored, o.count, by)
                }
                Some((change @ Change::Severity { to, .. }, by)) => {
                    record(&mut adjustments, rule, change, o.count, by);
                    o.severity = to;
                    v.omitted.push(o);
                }
            }
        }
        v.adjustments = adjustments;
    }

    /// Applies the settings to every verdict of a judgement ([`Settings::apply`]) and says
    /// whether one of them fails ([`Settings::fails`]).
    pub fn apply_all(&self, j: &mut Judgement<'_>, path: Option<&Path>) -> bool {
        for v in &mut j.verdicts {
            self.apply(v, path);
        }
        j.verdicts.iter().any(|v| self.fails(v))
    }

    /// Whether a verdict, as configured, fails: a finding at or above `fail-on`, or an outcome
    /// `fail-on-outcome` lists.
    pub fn fails(&self, v: &Verdict<'_>) -> bool {
        self.fail_on_outcome.value.contains(&v.outcome)
            || v.findings
                .iter()
                .any(|f| self.fail_on.value.fails(f.severity))
    }
}

/// Counts a change to one rule's findings, once per rule and change.
fn record<'t>(
    adjustments: &mut Vec<Adjustment<'t>>,
    rule: &'t crate::rules::Rule,
    change: Change,
    count: usize,
    by: &Origin,
) {
    match adjustments
        .iter_mut()
        .find(|a| std::ptr::eq(a.rule, rule) && a.change == change)
    {
        Some(a) => a.count += count,
        None => adjustments.push(Adjustment {
            rule,
            change,
            count,
            by: by.to_string(),
        }),
    }
}

/// `path` relative to `base`, with `/` separators, when it lies under it.
fn relative_to(path: &Path, base: &Path) -> Option<String> {
    let abs = std::path::absolute(path).ok()?;
    let rel = abs.strip_prefix(base).ok()?;
    let parts: Vec<String> = rel
        .components()
        .filter_map(|c| match c {
            std::path::Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect();
    Some(parts.join("/"))
}

/// What the command line gave, for [`resolve`]. `None` (or empty) is "not given".
#[derive(Clone, Debug, Default)]
pub struct Flags {
    /// `--config FILE`.
    pub config: Option<PathBuf>,
    /// `--isolated`: read no settings file.
    pub isolated: bool,
    /// `--protocol`.
    pub protocol: Option<Vec<Protocol>>,
    /// `--select`.
    pub select: Option<Vec<String>>,
    /// `--ignore`.
    pub ignore: Vec<String>,
    /// `--severity RULE=LEVEL`.
    pub severity: Vec<String>,
    /// `--fail-on`.
    pub fail_on: Option<FailOn>,
    /// `--fail-on-outcome`.
    pub fail_on_outcome: Vec<String>,
    /// `--max-findings-per-rule`.
    pub max_findings_per_rule: Option<usize>,
    /// `--strict`.
    pub strict: bool,
    /// `--root`.
    pub root: Option<PathBuf>,
}

/// Resolves the settings: the defaults, then the settings file (`flags.config`, else the first
/// found upward from `cwd`, unless `flags.isolated`), then the flags. Rule ids and prefixes are
/// checked against `table`, report formats against `formats`.
pub fn resolve(
    flags: &Flags,
    cwd: &Path,
    table: &RuleTable,
    formats: &[&str],
) -> Result<Settings, ConfigError> {
    let mut s = Settings::defaults();
    let found = match (&flags.config, flags.isolated) {
        (Some(path), _) => Some(file::Found::named(path)?),
        (None, true) => None,
        (None, false) => file::discover(cwd)?,
    };
    if let Some(found) = found {
        found.apply_to(&mut s, table, formats)?;
    }
    select::apply_flags(flags, &mut s, table)?;
    Ok(s)
}
