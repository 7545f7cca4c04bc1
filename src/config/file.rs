//! Settings files: `mcp-verdict.toml`, or the `[tool.mcp-verdict]` table of a `pyproject.toml`,
//! found upward from the working directory (in each directory `mcp-verdict.toml` first; a
//! `pyproject.toml` without the table is passed over). Keys are the long flags without their
//! dashes; a file is read whole and any mistake in it is an error naming the file, the line
//! and column, and the fix.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use super::select::{Selector, outcome, severity};
use super::{FailOn, Origin, Override, Report, RuleLayer, Setting, Settings};
use crate::rules::RuleTable;
use crate::vocab::Protocol;
use crate::vocab::suggest::did_you_mean;

/// The settings file's name.
pub const FILE_NAME: &str = "mcp-verdict.toml";
/// The Python project file whose `[tool.mcp-verdict]` table holds settings.
pub const PYPROJECT: &str = "pyproject.toml";

/// Why settings could not be resolved: one position (the file's line and column, or the flag)
/// and what to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigError {
    /// The file (with `:line:column` when known) or the flag at fault.
    pub place: String,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl ConfigError {
    pub(super) fn flag(flag: &str, message: impl Into<String>) -> ConfigError {
        ConfigError {
            place: flag.to_owned(),
            message: message.into(),
        }
    }

    fn at(
        file: &Path,
        text: &str,
        offset: Option<usize>,
        message: impl Into<String>,
    ) -> ConfigError {
        let place = match offset {
            Some(o) => {
                let (line, column) = line_col(text, o);
                format!("{}:{line}:{column}", file.display())
            }
            None => file.display().to_string(),
        };
        ConfigError {
            place,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.place, self.message)
    }
}

impl std::error::Error for ConfigError {}

/// 1-based line and column (in characters) of a byte offset.
fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[start..].chars().count() + 1)
}

/// The keys a settings file may hold (as `--show-settings` prints them).
const KEYS: &[&str] = &[
    "protocol",
    "select",
    "ignore",
    "severity",
    "fail-on",
    "fail-on-outcome",
    "max-findings-per-rule",
    "strict",
    "root",
    "report",
    "overrides",
];

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct FileSettings {
    protocol: Option<Spanned<String>>,
    select: Option<Vec<Spanned<String>>>,
    ignore: Option<Vec<Spanned<String>>>,
    severity: Option<BTreeMap<Spanned<String>, Spanned<String>>>,
    fail_on: Option<Spanned<String>>,
    fail_on_outcome: Option<Vec<Spanned<String>>>,
    max_findings_per_rule: Option<usize>,
    strict: Option<bool>,
    root: Option<String>,
    report: Option<Vec<FileReport>>,
    overrides: Option<Vec<FileOverride>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct FileReport {
    format: Spanned<String>,
    output: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct FileOverride {
    paths: Vec<Spanned<String>>,
    select: Option<Vec<Spanned<String>>>,
    ignore: Option<Vec<Spanned<String>>>,
    severity: Option<BTreeMap<Spanned<String>, Spanned<String>>>,
}

#[derive(Deserialize)]
struct PyProject {
    tool: Option<PyTool>,
}

#[derive(Deserialize)]
struct PyTool {
    #[serde(rename = "mcp-verdict")]
    mcp_verdict: Option<toml::Value>,
}

/// A settings file found, read and parsed (not yet checked against the rule table).
pub struct Found {
    /// Where it is, for the directory override globs are relative to.
    path: PathBuf,
    /// Its path as messages name it.
    shown: PathBuf,
    label: String,
    text: String,
    settings: FileSettings,
}

impl Found {
    /// The file `--config` names: `mcp-verdict.toml` (any name), or a `pyproject.toml`.
    pub fn named(path: &Path) -> Result<Found, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|e| ConfigError {
            place: path.display().to_string(),
            message: format!("cannot read the settings file: {e}"),
        })?;
        let is_pyproject = path.file_name().is_some_and(|n| n == PYPROJECT);
        match Found::parse(path, &path.display().to_string(), text, is_pyproject)? {
            Some(f) => Ok(f),
            None => Err(ConfigError::at(
                path,
                "",
                None,
                "has no [tool.mcp-verdict] table; add one, or name an mcp-verdict.toml",
            )),
        }
    }

    /// `shown` is the path as messages and outputs name it.
    fn parse(
        path: &Path,
        shown: &str,
        text: String,
        is_pyproject: bool,
    ) -> Result<Option<Found>, ConfigError> {
        let label = if is_pyproject {
            format!("{shown} [tool.mcp-verdict]")
        } else {
            shown.to_owned()
        };
        let real = path;
        let path = &PathBuf::from(shown);
        let settings = if is_pyproject {
            // The table is read from the whole document, so positions stay the file's.
            let project: PyProject =
                toml::from_str(&text).map_err(|e| toml_error(path, &text, &e))?;
            match project.tool.and_then(|t| t.mcp_verdict) {
                None => return Ok(None),
                Some(_) => {
                    #[derive(Deserialize)]
                    struct Typed {
                        tool: TypedTool,
                    }
                    #[derive(Deserialize)]
                    struct TypedTool {
                        #[serde(rename = "mcp-verdict")]
                        mcp_verdict: FileSettings,
                    }
                    toml::from_str::<Typed>(&text)
                        .map_err(|e| toml_error(path, &text, &e))?
                        .tool
                        .mcp_verdict
                }
            }
        } else {
            toml::from_str(&text).map_err(|e| toml_error(path, &text, &e))?
        };
        Ok(Some(Found {
            path: real.to_path_buf(),
            shown: path.clone(),
            label,
            text,
            settings,
        }))
    }

    /// Checks the file's settings and lays them over `s`.
    pub(super) fn apply_to(
        self,
        s: &mut Settings,
        table: &RuleTable,
        formats: &[&str],
    ) -> Result<(), ConfigError> {
        let Found {
            path,
            shown,
            label,
            text,
            settings: f,
        } = self;
        let err = |at: usize, m: String| ConfigError::at(&shown, &text, Some(at), m);
        let origin = Origin::File(label.clone());
        let base = std::path::absolute(path.parent().unwrap_or(Path::new(".")))
            .unwrap_or_else(|_| PathBuf::from("."));
        if let Some(p) = &f.protocol {
            let value = if p.get_ref().eq_ignore_ascii_case("all") {
                Protocol::all().collect()
            } else {
                match Protocol::parse(p.get_ref()) {
                    Some(one) => vec![one],
                    None => {
                        return Err(err(
                            p.span().start,
                            format!(
                                "unknown revision `{}`; use {} or all",
                                p.get_ref(),
                                Protocol::names()
                            ),
                        ));
                    }
                }
            };
            s.protocol = Some(Setting::of_file(value, &origin));
        }
        if let Some(v) = &f.fail_on {
            let value = FailOn::parse(v.get_ref()).ok_or_else(|| {
                err(
                    v.span().start,
                    format!(
                        "unknown fail-on `{}`{}; use error, warning, info or never",
                        v.get_ref(),
                        did_you_mean(v.get_ref(), FailOn::ALL.map(FailOn::as_str))
                    ),
                )
            })?;
            s.fail_on = Setting::of_file(value, &origin);
        }
        if let Some(list) = &f.fail_on_outcome {
            let mut value = Vec::new();
            for name in list {
                value.push(outcome(name.get_ref()).map_err(|m| err(name.span().start, m))?);
            }
            s.fail_on_outcome = Setting::of_file(value, &origin);
        }
        if let Some(n) = f.max_findings_per_rule {
            s.max_findings_per_rule = Setting::of_file(n, &origin);
        }
        if let Some(b) = f.strict {
            s.strict = Setting::of_file(b, &origin);
        }
        if let Some(r) = &f.root {
            s.root = Some(Setting::of_file(base.join(r), &origin));
        }
        if let Some(reports) = &f.report {
            let mut list = Vec::new();
            for r in reports {
                let name = r.format.get_ref();
                if !formats.contains(&name.as_str()) {
                    return Err(err(
                        r.format.span().start,
                        format!(
                            "unknown report format `{name}`{}; use one of {}",
                            did_you_mean(name, formats.iter().copied()),
                            formats.join(", ")
                        ),
                    ));
                }
                list.push(Report {
                    format: name.clone(),
                    output: r.output.as_ref().map(|o| base.join(o)),
                });
            }
            s.reports = Some(Setting::of_file(list, &origin));
        }
        s.file_rules = rule_layer(&f.select, &f.ignore, &f.severity, table, &origin, &err)?;
        for (i, o) in f.overrides.iter().flatten().enumerate() {
            let o_origin = Origin::Override(label.clone(), i + 1);
            let mut patterns = Vec::new();
            for p in &o.paths {
                patterns.push(glob::Pattern::new(p.get_ref()).map_err(|e| {
                    err(
                        p.span().start,
                        format!("`{}` is not a glob pattern: {e}", p.get_ref()),
                    )
                })?);
            }
            s.overrides.push(Override {
                paths: o.paths.iter().map(|p| p.get_ref().clone()).collect(),
                patterns,
                rules: rule_layer(&o.select, &o.ignore, &o.severity, table, &o_origin, &err)?,
            });
        }
        s.file = Some(shown);
        s.base = Some(base);
        Ok(())
    }
}

type Selectors = Option<Vec<Spanned<String>>>;
type Severities = Option<BTreeMap<Spanned<String>, Spanned<String>>>;

fn rule_layer(
    select: &Selectors,
    ignore: &Selectors,
    severities: &Severities,
    table: &RuleTable,
    origin: &Origin,
    err: &dyn Fn(usize, String) -> ConfigError,
) -> Result<RuleLayer, ConfigError> {
    let parse = |list: &Vec<Spanned<String>>| -> Result<Vec<Selector>, ConfigError> {
        list.iter()
            .map(|s| Selector::parse(s.get_ref(), table).map_err(|m| err(s.span().start, m)))
            .collect()
    };
    let mut layer = RuleLayer::default();
    if let Some(list) = select {
        layer.select = Some(parse(list)?);
        layer.select_origin = Some(origin.clone());
    }
    if let Some(list) = ignore {
        layer.ignore = parse(list)?;
        layer.ignore_origin = Some(origin.clone());
    }
    for (rule, level) in severities.iter().flatten() {
        let sel = Selector::parse(rule.get_ref(), table).map_err(|m| err(rule.span().start, m))?;
        let sev = severity(level.get_ref()).map_err(|m| err(level.span().start, m))?;
        layer.severity.push((sel, sev));
        layer.severity_origin = Some(origin.clone());
    }
    Ok(layer)
}

/// A TOML or shape error at its one position, with a suggestion for a misspelt key.
fn toml_error(path: &Path, text: &str, e: &toml::de::Error) -> ConfigError {
    let mut message = e.message().trim().to_owned();
    if let Some(rest) = message.strip_prefix("unknown field `")
        && let Some((key, _)) = rest.split_once('`')
    {
        message = format!(
            "unknown setting `{key}`{}; the settings are {}",
            did_you_mean(key, KEYS.iter().copied()),
            KEYS.join(", ")
        );
    }
    ConfigError::at(path, text, e.span().map(|s| s.start), message)
}

/// The settings file that applies in `dir`: the first `mcp-verdict.toml`, or `pyproject.toml`
/// with a `[tool.mcp-verdict]` table, in `dir` or a directory above it.
pub fn discover(dir: &Path) -> Result<Option<Found>, ConfigError> {
    let start = std::path::absolute(dir).unwrap_or_else(|_| dir.to_path_buf());
    for (depth, d) in start.ancestors().enumerate() {
        // Named as seen from `dir`: `mcp-verdict.toml`, `../mcp-verdict.toml`, ...
        let shown = |name: &str| format!("{}{name}", "../".repeat(depth));
        let own = d.join(FILE_NAME);
        if own.is_file() {
            let text = std::fs::read_to_string(&own).map_err(|e| ConfigError {
                place: shown(FILE_NAME),
                message: format!("cannot read the settings file: {e}"),
            })?;
            return Found::parse(&own, &shown(FILE_NAME), text, false);
        }
        let py = d.join(PYPROJECT);
        if py.is_file() {
            let text = std::fs::read_to_string(&py).map_err(|e| ConfigError {
                place: py.display().to_string(),
                message: format!("cannot read it: {e}"),
            })?;
            if let Some(found) = Found::parse(&py, &shown(PYPROJECT), text, true)? {
                return Ok(Some(found));
            }
        }
    }
    Ok(None)
}
