//! A corpus of exchange files on disk: paths, directories and glob patterns expanded to the
//! files to judge, and paths as reports show them.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// Why the paths name no files to judge: a command-line problem (exit 2).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CorpusError {
    /// No path was given.
    #[error("no paths given: name exchange files, directories or glob patterns")]
    NoPaths,
    /// A glob pattern does not parse.
    #[error("`{pattern}` is not a valid glob pattern: {message}")]
    BadPattern {
        /// The pattern.
        pattern: String,
        /// The parser's message.
        message: String,
    },
    /// A glob pattern or directory matched no `*.json` file.
    #[error("`{0}` matches no exchange file (*.json)")]
    NothingMatched(String),
}

/// Expands paths: files as given (whatever their extension), directories recursively to their
/// `*.json` files (hidden entries skipped), and glob patterns (`*`, `?`, `[`, `**`). A path that
/// does not exist and is not a pattern is kept, so that the run reports it as unreadable.
/// The result is sorted and without duplicates.
pub fn collect_files<P: AsRef<Path>>(paths: &[P]) -> Result<Vec<PathBuf>, CorpusError> {
    if paths.is_empty() {
        return Err(CorpusError::NoPaths);
    }
    let mut out = BTreeSet::new();
    for p in paths {
        let p = p.as_ref();
        let shown = p.display().to_string();
        if p.is_dir() {
            let before = out.len();
            walk(p, &mut out);
            if out.len() == before {
                return Err(CorpusError::NothingMatched(shown));
            }
        } else if p.exists() || !shown.contains(['*', '?', '[']) {
            out.insert(p.to_path_buf());
        } else {
            let entries = glob::glob(&shown).map_err(|e| CorpusError::BadPattern {
                pattern: shown.clone(),
                message: e.msg.to_string(),
            })?;
            let before = out.len();
            for e in entries.filter_map(Result::ok) {
                if e.is_dir() {
                    walk(&e, &mut out);
                } else if e.extension().is_some_and(|x| x == "json") {
                    out.insert(e);
                }
            }
            if out.len() == before {
                return Err(CorpusError::NothingMatched(shown));
            }
        }
    }
    // The same file named twice (e.g. `./a.json` and `a.json`) is judged once.
    let mut seen = BTreeSet::new();
    let mut files: Vec<PathBuf> = out
        .into_iter()
        .filter(|p| seen.insert(display_path(p, None)))
        .collect();
    files.sort_by_key(|p| display_path(p, None));
    Ok(files)
}

/// Paths read from a list: one per line, or NUL-separated when the text holds a NUL (as
/// `find -print0` writes them); blank lines and surrounding whitespace of a line are
/// ignored.
pub fn path_list(text: &str) -> Vec<PathBuf> {
    let items: Vec<&str> = if text.contains('\0') {
        text.split('\0').collect()
    } else {
        text.lines().map(str::trim).collect()
    };
    items
        .into_iter()
        .filter(|s| !s.is_empty())
        .map(PathBuf::from)
        .collect()
}

fn walk(dir: &Path, out: &mut BTreeSet<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        // An unreadable directory is reported as an unreadable input.
        out.insert(dir.to_path_buf());
        return;
    };
    for e in entries.filter_map(Result::ok) {
        let path = e.path();
        if e.file_name().to_string_lossy().starts_with('.') {
            continue;
        }
        if path.is_dir() {
            walk(&path, out);
        } else if path.extension().is_some_and(|x| x == "json") {
            out.insert(path);
        }
    }
}

/// A path as reports show it: relative to `root` (an absolute directory; default: the current
/// directory) when below it, else absolute; `/`-separated, without a leading `./`.
pub(crate) fn display_path(p: &Path, root: Option<&Path>) -> String {
    if root.is_none() && p.is_relative() {
        return normalize_path(&p.to_string_lossy());
    }
    let cwd = std::env::current_dir().ok();
    let root = root.map(Path::to_path_buf).or_else(|| cwd.clone());
    let abs = match (&cwd, p.is_absolute()) {
        (Some(cwd), false) => cwd.join(p),
        _ => p.to_path_buf(),
    };
    let rel = root
        .and_then(|r| {
            lexical(&abs)
                .strip_prefix(lexical(&r))
                .ok()
                .map(Path::to_path_buf)
        })
        .filter(|r| !r.as_os_str().is_empty())
        .unwrap_or_else(|| {
            if p.is_absolute() {
                lexical(p)
            } else {
                lexical(&abs)
            }
        });
    normalize_path(&rel.to_string_lossy())
}

/// `p` without `.` segments and with `..` applied to what precedes it (no file system access:
/// symbolic links are not followed).
pub(crate) fn lexical(p: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            c => out.push(c.as_os_str()),
        }
    }
    out
}

/// `\` to `/`, no leading `./`, no repeated `/`.
pub(crate) fn normalize_path(s: &str) -> String {
    let s = s.replace('\\', "/");
    let mut parts: Vec<&str> = Vec::new();
    for (i, seg) in s.split('/').enumerate() {
        if seg == "." || (seg.is_empty() && i > 0) {
            continue;
        }
        parts.push(seg);
    }
    parts.join("/")
}
