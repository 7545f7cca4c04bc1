//! Reading a rule table's TOML files into a [`RuleTable`], rejecting anything ambiguous with the
//! file, line and column and what to do about it.
//!
//! Files are read in the order of their paths (relative to the table's root), the same whether
//! the table is built in or loaded from a directory; a file holding rules is named by their id
//! prefix (`transport/sse.toml` holds `transport.sse.*`).

mod advice;
mod bands;
mod doc;
mod rule;

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use super::{CheckSig, RevisionProfile, RuleTable};
use crate::vocab::Protocol;
use doc::{Ctx, FileDoc, line_col};

/// The rule files compiled into the binary (`rules/**/*.toml`), by path.
const EMBEDDED: &[(&str, &str)] = include!(concat!(env!("OUT_DIR"), "/rule_files.rs"));

/// Where the built-in table's files are shown to come from.
const EMBEDDED_ROOT: &str = "rules/";

/// The built-in table's files as `(path, text)` pairs, paths relative to `rules/`.
pub(super) fn embedded_sources() -> Vec<(String, String)> {
    EMBEDDED
        .iter()
        .map(|(rel, text)| ((*rel).to_string(), (*text).to_string()))
        .collect()
}

/// Every `*.toml` file under a directory (subdirectories included), as `(path, text)` pairs
/// with paths relative to it.
pub(super) fn dir_sources(dir: &Path) -> Result<Vec<(String, String)>, LoadError> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<(String, String)>) -> Result<(), LoadError> {
        let entries = std::fs::read_dir(dir).map_err(|e| LoadError::io(dir, &e))?;
        for entry in entries {
            let p = entry.map_err(|e| LoadError::io(dir, &e))?.path();
            if p.is_dir() {
                walk(&p, root, out)?;
            } else if p.extension().is_some_and(|x| x == "toml") {
                let text = std::fs::read_to_string(&p).map_err(|e| LoadError::io(&p, &e))?;
                let rel = p
                    .strip_prefix(root)
                    .unwrap_or(&p)
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join("/");
                out.push((rel, text));
            }
        }
        Ok(())
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out)?;
    Ok(out)
}

/// Where a rule was defined.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleSource {
    /// The file name as given to the loader.
    pub file: String,
    /// 1-based line of the rule's `id`.
    pub line: usize,
}

impl fmt::Display for RuleSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.file, self.line)
    }
}

/// Why a rule table could not be loaded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoadError {
    /// The file.
    pub file: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub column: Option<usize>,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl LoadError {
    fn io(path: &Path, e: &std::io::Error) -> LoadError {
        LoadError {
            file: path.display().to_string(),
            line: None,
            column: None,
            message: format!("cannot read: {e}"),
        }
    }
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
            if let Some(c) = self.column {
                write!(f, ":{c}")?;
            }
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for LoadError {}

/// Parsed files: (name shown in messages, text, document), in load order.
type Docs<'a> = [(&'a str, &'a str, FileDoc)];

/// Loads a table. `sources` are `(path relative to the table's root, text)`; `shown_root` is
/// put before the paths in messages.
pub(super) fn load(
    sources: &[(String, String)],
    shown_root: &str,
    checks: &[CheckSig],
) -> Result<RuleTable, LoadError> {
    let mut sources: Vec<&(String, String)> = sources.iter().collect();
    sources.sort_by(|a, b| a.0.cmp(&b.0));
    let shown: Vec<String> = sources
        .iter()
        .map(|(rel, _)| format!("{shown_root}{rel}"))
        .collect();
    let mut docs = Vec::new();
    for ((_, text), file) in sources.iter().zip(&shown) {
        let doc: FileDoc = toml::from_str(text).map_err(|e| {
            let (line, column) = e
                .span()
                .map(|s| line_col(text, s.start))
                .map_or((None, None), |(l, c)| (Some(l), Some(c)));
            LoadError {
                file: file.clone(),
                line,
                column,
                message: e.message().trim().to_string(),
            }
        })?;
        docs.push((file.as_str(), text.as_str(), doc));
    }
    let stems: Vec<String> = sources
        .iter()
        .map(|(rel, _)| rel.trim_end_matches(".toml").replace('/', "."))
        .collect();
    let profiles = load_profiles(&docs)?;
    let bands = bands::load_bands(&docs)?;
    let loaded = rule::load_rules(&docs, &stems, checks, &profiles, &bands)?;
    let (advice, policies) = advice::load_advice(&docs, &loaded.rules, &profiles)?;
    Ok(RuleTable {
        rules: loaded.rules,
        active: loaded.active,
        profiles,
        groups: loaded.groups,
        bands,
        advice,
        policies,
    })
}

/// The `[[revision]]` profiles; every revision this build knows needs one.
fn load_profiles(docs: &Docs<'_>) -> Result<BTreeMap<Protocol, RevisionProfile>, LoadError> {
    let mut profiles: BTreeMap<Protocol, RevisionProfile> = BTreeMap::new();
    for (file, text, doc) in docs {
        let cx = Ctx { file, text };
        for r in &doc.revision {
            let p = Protocol::parse(r.name.get_ref()).ok_or_else(|| {
                cx.at(
                    r.name.span(),
                    format!(
                        "unknown revision `{}`; this build knows {}",
                        r.name.get_ref(),
                        Protocol::names()
                    ),
                )
            })?;
            if profiles.contains_key(&p) {
                return Err(cx.at(
                    r.name.span(),
                    format!("revision `{p}` has two [[revision]] profiles; keep one"),
                ));
            }
            profiles.insert(
                p,
                RevisionProfile {
                    docs: r.docs.trim_end_matches('/').to_string(),
                    result_types: r.result_types.clone(),
                    extension_result_types: r.extension_result_types.clone(),
                    error_codes: r
                        .error_codes
                        .iter()
                        .map(|c| (c.code, c.name.clone()))
                        .collect(),
                },
            );
        }
    }
    for p in Protocol::all() {
        if !profiles.contains_key(&p) {
            return Err(LoadError {
                file: docs
                    .first()
                    .map_or_else(|| "rules".into(), |d| d.0.to_string()),
                line: None,
                column: None,
                message: format!(
                    "no [[revision]] profile for `{p}`; add one (see rules/revisions.toml)"
                ),
            });
        }
    }

    Ok(profiles)
}

/// Loads the built-in table's sources (shown as `rules/...`).
pub(super) fn load_embedded(checks: &[CheckSig]) -> Result<RuleTable, LoadError> {
    load(&embedded_sources(), EMBEDDED_ROOT, checks)
}
