//! A corpus of exchange files on disk: paths, directories and glob patterns expanded to the
//! files to judge, and paths as reports show them.

use std::collections::{BTreeSet, HashSet};
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
/// The result is sorted and without duplicates. The walk is [`collect_corpus`]'s with default
/// options; its notes are dropped.
pub fn collect_files<P: AsRef<Path>>(paths: &[P]) -> Result<Vec<PathBuf>, CorpusError> {
    collect_corpus(paths, &WalkOptions::default()).map(|c| c.files)
}

/// How directories are walked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WalkOptions {
    /// Follow symbolic links that lead outside the directories given (by default they are
    /// not followed, with a note).
    pub follow_symlinks: bool,
}

/// The files to judge, and what the walk left out and why.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Corpus {
    /// The files, sorted, each once.
    pub files: Vec<PathBuf>,
    /// One line per thing left out: a symbolic link loop (once per link), a link leading
    /// outside the directories given, a `*.json` that is not a regular file (a FIFO, a socket,
    /// a device: never opened).
    pub notes: Vec<String>,
}

/// Expands paths like [`collect_files`], safely: each directory is visited once (by device
/// and inode), symbolic links are followed only to places inside the directories given
/// (unless [`WalkOptions::follow_symlinks`]), a link back to a directory being walked is a
/// loop, reported once and not followed, each file is listed once however many paths lead to
/// it, and files found by the walk or a glob that are not regular files are skipped with a
/// note, never opened. A path named as such is kept whatever it is (e.g. `/dev/fd/3`).
pub fn collect_corpus<P: AsRef<Path>>(
    paths: &[P],
    options: &WalkOptions,
) -> Result<Corpus, CorpusError> {
    if paths.is_empty() {
        return Err(CorpusError::NoPaths);
    }
    let mut w = Walker {
        roots: Vec::new(),
        follow: options.follow_symlinks,
        dirs: HashSet::new(),
        files: HashSet::new(),
        ancestors: Vec::new(),
        out: BTreeSet::new(),
        notes: Vec::new(),
    };
    for p in paths {
        let p = p.as_ref();
        if p.is_dir()
            && let Ok(c) = std::fs::canonicalize(p)
        {
            w.roots.push(c);
        }
    }
    for p in paths {
        let p = p.as_ref();
        let shown = p.display().to_string();
        if p.is_dir() {
            let before = w.out.len();
            w.dir(p);
            if w.out.len() == before {
                return Err(CorpusError::NothingMatched(shown));
            }
        } else if p.exists() || !shown.contains(['*', '?', '[']) {
            w.out.insert(p.to_path_buf());
        } else {
            let entries = glob::glob(&shown).map_err(|e| CorpusError::BadPattern {
                pattern: shown.clone(),
                message: e.msg.to_string(),
            })?;
            let before = w.out.len();
            for e in entries.filter_map(Result::ok) {
                if e.is_dir() {
                    if let Ok(c) = std::fs::canonicalize(&e) {
                        w.roots.push(c);
                    }
                    w.dir(&e);
                } else if e.extension().is_some_and(|x| x == "json") {
                    w.file(&e);
                }
            }
            if w.out.len() == before {
                return Err(CorpusError::NothingMatched(shown));
            }
        }
    }
    // The same file named twice (e.g. `./a.json` and `a.json`) is judged once.
    let mut seen = BTreeSet::new();
    let mut files: Vec<PathBuf> = w
        .out
        .into_iter()
        .filter(|p| seen.insert(display_path(p, None)))
        .collect();
    files.sort_by_key(|p| display_path(p, None));
    Ok(Corpus {
        files,
        notes: w.notes,
    })
}

/// What identifies a file or directory: device and inode (else the canonical path).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Id {
    #[cfg(unix)]
    Inode(u64, u64),
    #[cfg_attr(unix, allow(dead_code))]
    Path(PathBuf),
}

fn id_of(path: &Path, meta: &std::fs::Metadata) -> Id {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let _ = path;
        Id::Inode(meta.dev(), meta.ino())
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        Id::Path(std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf()))
    }
}

/// What a non-regular file is, in words.
fn kind_of(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_block_device() || t.is_char_device() {
            return "a device";
        }
    }
    let _ = meta;
    "a special file"
}

struct Walker {
    /// The directories given, canonical.
    roots: Vec<PathBuf>,
    follow: bool,
    dirs: HashSet<Id>,
    files: HashSet<Id>,
    /// The directories being walked, outermost first.
    ancestors: Vec<Id>,
    out: BTreeSet<PathBuf>,
    notes: Vec<String>,
}

impl Walker {
    fn dir(&mut self, dir: &Path) {
        let Ok(meta) = std::fs::metadata(dir) else {
            self.out.insert(dir.to_path_buf());
            return;
        };
        let id = id_of(dir, &meta);
        if !self.dirs.insert(id.clone()) {
            return;
        }
        let Ok(entries) = std::fs::read_dir(dir) else {
            // An unreadable directory is reported as an unreadable input.
            self.out.insert(dir.to_path_buf());
            return;
        };
        self.ancestors.push(id);
        let mut entries: Vec<std::fs::DirEntry> = entries.filter_map(Result::ok).collect();
        // Real entries before links, so that a file is listed under its own path when a link
        // leads to it too; by name within each.
        entries
            .sort_by_cached_key(|e| (e.file_type().is_ok_and(|t| t.is_symlink()), e.file_name()));
        for e in entries {
            if e.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            self.entry(&e.path());
        }
        self.ancestors.pop();
    }

    fn entry(&mut self, path: &Path) {
        let Ok(lmeta) = std::fs::symlink_metadata(path) else {
            return;
        };
        let is_json = path.extension().is_some_and(|x| x == "json");
        let meta = if lmeta.file_type().is_symlink() {
            let (Ok(target), Ok(meta)) = (std::fs::canonicalize(path), std::fs::metadata(path))
            else {
                // A broken link named *.json is reported as unreadable.
                if is_json {
                    self.out.insert(path.to_path_buf());
                }
                return;
            };
            if meta.is_dir() && self.ancestors.contains(&id_of(path, &meta)) {
                self.notes.push(format!(
                    "{}: a symbolic link loop (it leads back to {}, which is being searched); not followed",
                    path.display(),
                    target.display()
                ));
                return;
            }
            if !meta.is_dir() && !is_json {
                return;
            }
            if !self.follow && !self.roots.iter().any(|r| target.starts_with(r)) {
                self.notes.push(format!(
                    "{}: a symbolic link to {}, outside the paths given; not followed (--follow-symlinks follows it)",
                    path.display(),
                    target.display()
                ));
                return;
            }
            meta
        } else {
            lmeta
        };
        if meta.is_dir() {
            self.dir(path);
        } else if is_json {
            self.regular(path, &meta);
        }
    }

    /// A `*.json` a glob matched.
    fn file(&mut self, path: &Path) {
        match std::fs::metadata(path) {
            Ok(meta) => self.regular(path, &meta),
            Err(_) => {
                self.out.insert(path.to_path_buf());
            }
        }
    }

    fn regular(&mut self, path: &Path, meta: &std::fs::Metadata) {
        if !meta.is_file() {
            self.notes.push(format!(
                "{}: {}, not a regular file; skipped (not opened)",
                path.display(),
                kind_of(meta)
            ));
            return;
        }
        if self.files.insert(id_of(path, meta)) {
            self.out.insert(path.to_path_buf());
        }
    }
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
