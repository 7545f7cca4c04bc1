//! Finding the files and judging them in parallel; each verdict is set against its
//! expectation in `expect.rs`.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;

use super::expect::compare;
use super::locate::{line_col, pointer_span};
use super::locator::{BodyGiven, Locator};
use super::options::CheckOptions;
use super::{
    Baseline, CheckRun, FileResult, InputError, InputErrorKind, Location, RevisionConformance,
    RuleConformance, RuleState, Status, rule_counts,
};
use crate::inputs::corpus::{CorpusError, collect_files, display_path};
use crate::judge::{JudgeError, Options, judge_capped, revisions_of};
use crate::rules::RuleTable;
use crate::vocab::Protocol;
use crate::wire::exchange::{Exchange, ExchangeFile};

/// Collects the files and checks them: [`collect_files`] then [`check_files`].
pub fn run_check<P: AsRef<Path>>(
    paths: &[P],
    options: &CheckOptions<'_>,
) -> Result<CheckRun, CorpusError> {
    let files = collect_files(paths)?;
    Ok(check_files(&files, options))
}

/// Judges files in parallel (rayon) and assembles the run in a deterministic order: by path,
/// then revision.
pub fn check_files(files: &[PathBuf], options: &CheckOptions<'_>) -> CheckRun {
    let done = AtomicUsize::new(0);
    let mut results: Vec<FileResult> = files
        .par_iter()
        .map(|p| {
            let label = display_path(p, options.root.as_deref());
            let started = std::time::Instant::now();
            let mut r = check_path(label, p, options);
            r.elapsed = started.elapsed();
            let n = done.fetch_add(1, Ordering::Relaxed) + 1;
            if let Some(cb) = options.progress {
                cb(n);
            }
            r
        })
        .collect();
    results.sort_by(|a, b| a.file.cmp(&b.file));
    assemble(results, options)
}

/// Checks one exchange given as bytes (e.g. read from stdin) as a run of its own, `label`
/// naming it in reports.
pub fn check_one(label: &str, bytes: &[u8], options: &CheckOptions<'_>) -> CheckRun {
    let started = std::time::Instant::now();
    let mut r = check_bytes(label, bytes, options);
    r.elapsed = started.elapsed();
    if let Some(cb) = options.progress {
        cb(1);
    }
    assemble(vec![r], options)
}

/// Applies the baseline and computes conformance over judged files.
fn assemble(files: Vec<FileResult>, options: &CheckOptions<'_>) -> CheckRun {
    let conformance = super::judged_revisions(&files)
        .into_iter()
        .map(|p| conformance_of(&files, p, options.engine.table()))
        .collect();
    let mut run = CheckRun {
        files,
        stale: Vec::new(),
        conformance,
        fail_on: options.fail_on,
        strict: options.strict,
        root: options
            .root
            .clone()
            .or_else(|| std::env::current_dir().ok()),
    };
    if options.baseline.is_some() {
        run.apply_baseline(options.baseline.as_ref());
    }
    run
}

impl CheckRun {
    /// Marks the failures a baseline lists, sets each result's status accordingly and lists
    /// the stale entries (replacing any baseline applied before; `None` removes it).
    pub fn apply_baseline(&mut self, baseline: Option<&Baseline>) {
        for f in &mut self.files {
            for r in &mut f.results {
                for x in &mut r.failures {
                    x.baselined = baseline.is_some_and(|b| b.lists(&f.file, r.protocol, x));
                }
                r.status = match (r.failures.is_empty(), r.expected.is_some()) {
                    (true, true) => Status::Pass,
                    (true, false) => Status::Ok,
                    _ if r.failures.iter().all(|x| x.baselined) => Status::Baselined,
                    (false, true) => Status::Fail,
                    (false, false) => Status::Findings,
                };
            }
        }
        self.stale = baseline.map(|b| b.stale(&self.files)).unwrap_or_default();
    }
}

fn conformance_of(
    files: &[FileResult],
    protocol: Protocol,
    table: &RuleTable,
) -> RevisionConformance {
    let counts = rule_counts(files, protocol);
    let exchanges = files
        .iter()
        .flat_map(|f| &f.results)
        .filter(|r| r.protocol == protocol)
        .count();
    let mut rules: Vec<(usize, RuleConformance)> = table
        .active(protocol)
        .iter()
        .enumerate()
        .map(|(i, a)| {
            let r = table.rule_of(a);
            let (passed, triggered, not_applicable) =
                counts.get(r.id.as_str()).copied().unwrap_or_default();
            let state = if triggered > 0 {
                RuleState::Triggered
            } else if passed > 0 {
                RuleState::Satisfied
            } else {
                RuleState::NotExercised
            };
            let effect = match (&a.outcome, a.severity, &a.default) {
                (Some(o), _, _) => format!("outcome {o}"),
                (None, Some(s), _) => format!("finding {s}"),
                (None, None, Some(d)) => format!("default {}", d.field),
                _ => "-".to_string(),
            };
            (
                i,
                RuleConformance {
                    rule: r.id.clone(),
                    title: r.title.clone(),
                    summary: r.summary.clone(),
                    level: a.level,
                    layer: r.layer,
                    severity: a.severity,
                    effect,
                    url: a.cite.url.clone(),
                    section: a.cite.section.clone(),
                    quote: a.cite.quote.clone(),
                    passed,
                    triggered,
                    not_applicable,
                    state,
                },
            )
        })
        .collect();
    // Group: error, warning, info findings, then outcome/default-only rules; then layer.
    rules.sort_by_key(|(i, r)| {
        (
            std::cmp::Reverse(r.severity.map(|s| s as u8 + 1).unwrap_or(0)),
            r.layer,
            *i,
        )
    });
    RevisionConformance {
        protocol,
        exchanges,
        rules: rules.into_iter().map(|(_, r)| r).collect(),
    }
}

/// Checks one exchange file's bytes (no baseline applied). `label` names the file in reports.
pub fn check_bytes(label: &str, bytes: &[u8], options: &CheckOptions<'_>) -> FileResult {
    check_held(label, None, Held::Bytes(bytes), options)
}

/// Checks an exchange file's bytes as the file at `path` (its per-path settings apply; no
/// baseline applied), e.g. a file's new text before it is written.
pub fn check_bytes_at(
    label: &str,
    path: &Path,
    bytes: &[u8],
    options: &CheckOptions<'_>,
) -> FileResult {
    check_held(label, Some(path), Held::Bytes(bytes), options)
}

/// Files at least this large are not held while they are judged: `check` reads such a file,
/// builds the exchange, releases the bytes, judges, and reads the file again to locate the
/// findings, so that the file's text and the judged exchange are not in memory together.
const REREAD_AT: usize = 4 << 20;

/// What a file's size and modification time were when it was read.
type Stamp = (u64, Option<std::time::SystemTime>);

/// Reads a file whole, with its stamp taken before reading.
fn read_stamped(path: &Path) -> std::io::Result<(Vec<u8>, Stamp)> {
    use std::io::Read;
    let mut f = std::fs::File::open(path)?;
    let meta = f.metadata()?;
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    f.read_to_end(&mut bytes)?;
    Ok((bytes, (meta.len(), meta.modified().ok())))
}

/// An input error with no position in the file.
fn unplaced(kind: InputErrorKind, message: String) -> InputError {
    InputError {
        kind,
        line: None,
        column: None,
        message,
    }
}

/// Checks the file at `path` (see [`REREAD_AT`]).
fn check_path(label: String, path: &Path, options: &CheckOptions<'_>) -> FileResult {
    match read_stamped(path) {
        Ok((bytes, stamp)) if bytes.len() >= REREAD_AT => check_held(
            &label,
            Some(path),
            Held::Reread { path, bytes, stamp },
            options,
        ),
        Ok((bytes, _)) => check_held(&label, Some(path), Held::Bytes(&bytes), options),
        Err(e) => FileResult {
            file: label,
            name: None,
            error: Some(unplaced(
                InputErrorKind::Unreadable,
                format!("cannot read the file: {e}"),
            )),
            results: Vec::new(),
            elapsed: Default::default(),
        },
    }
}

/// The bytes of a file being checked: held throughout, or released while judging and read
/// again.
enum Held<'b> {
    Bytes(&'b [u8]),
    Reread {
        path: &'b Path,
        bytes: Vec<u8>,
        stamp: Stamp,
    },
}

/// A file read and its exchange built, ready to judge.
struct Prepared {
    /// The file without its body (the exchange holds it).
    file: ExchangeFile,
    given: BodyGiven,
    ex: Exchange,
    protocols: Vec<Protocol>,
}

fn check_held(
    label: &str,
    path: Option<&Path>,
    held: Held<'_>,
    options: &CheckOptions<'_>,
) -> FileResult {
    let mut out = FileResult {
        file: label.to_string(),
        name: None,
        error: None,
        results: Vec::new(),
        elapsed: Default::default(),
    };
    let bytes: &[u8] = match &held {
        Held::Bytes(b) => b,
        Held::Reread { bytes, .. } => bytes,
    };
    let Some(prepared) = prepare(&String::from_utf8_lossy(bytes), bytes, options, &mut out) else {
        return out;
    };
    let again = match held {
        Held::Bytes(b) => Ok(b),
        Held::Reread { path, stamp, bytes } => {
            drop(bytes);
            Err((path, stamp))
        }
    };
    let judgement = match judge_capped(
        &prepared.ex,
        &Options {
            protocols: Some(&prepared.protocols),
            engine: options.engine,
        },
        options.max_findings_per_rule,
    ) {
        Ok(j) => j,
        Err(e) => {
            out.error = Some(unplaced(InputErrorKind::NoRevision, e.to_string()));
            return out;
        }
    };
    let bytes: std::borrow::Cow<'_, [u8]> = match again {
        Ok(b) => b.into(),
        Err((path, stamp)) => match read_stamped(path) {
            Ok((b, now)) if now == stamp => b.into(),
            Ok(_) => {
                out.error = Some(unplaced(InputErrorKind::Unreadable, "the file changed while it was being checked (a large file is read again to locate its findings); check it again once it is no longer being written".to_string()));
                return out;
            }
            Err(e) => {
                out.error = Some(unplaced(
                    InputErrorKind::Unreadable,
                    format!("cannot read the file again to locate its findings: {e}"),
                ));
                return out;
            }
        },
    };
    let configured = options
        .settings
        .filter(|s| !s.leaves_findings_alone())
        .map(|s| {
            let mut j = judgement.clone();
            for v in &mut j.verdicts {
                s.apply(v, path);
            }
            j
        });
    finish(
        &String::from_utf8_lossy(&bytes),
        &prepared,
        &judgement,
        configured.as_ref().unwrap_or(&judgement),
        options,
        &mut out,
    );
    out
}

fn prepare(
    text: &str,
    bytes: &[u8],
    options: &CheckOptions<'_>,
    out: &mut FileResult,
) -> Option<Prepared> {
    // Positions are 1-based whatever the parser said (serde_json says column 0 at the start
    // of a line, e.g. for an empty file).
    let invalid = |line: Option<usize>, column: Option<usize>, message: String| InputError {
        kind: InputErrorKind::Invalid,
        line: line.map(|l| l.max(1)),
        column: column.map(|c| c.max(1)),
        // A parser's message may quote a value of the file.
        message: crate::views::redact::text(&message).into_owned(),
    };
    let at = |pointer: &str| pointer_span(text, pointer).map(|s| line_col(text, s.start));
    let file = match ExchangeFile::from_slice(bytes) {
        Ok(f) => f,
        Err(e) => {
            out.error = Some(invalid(e.line, e.column, e.message));
            return None;
        }
    };
    out.name = file.name.clone();
    if let Some(key) = file.unknown_expect_keys().first() {
        let pos = at(&format!("/expect/{}", crate::vocab::pointer::escape(key)));
        out.error = Some(invalid(
            pos.map(|p| p.0),
            pos.map(|p| p.1),
            format!(
                "expect: unknown key `{key}`; use a revision ({}) or `all`",
                Protocol::names()
            ),
        ));
        return None;
    }
    for (key, exp) in &file.expect {
        for (field, ids) in [("rules", &exp.rules), ("absent", &exp.absent)] {
            for (i, id) in ids.iter().enumerate() {
                if options.engine.table().rule(id).is_none() {
                    let pos = at(&format!(
                        "/expect/{}/{field}/{i}",
                        crate::vocab::pointer::escape(key)
                    ));
                    out.error = Some(invalid(
                        pos.map(|p| p.0),
                        pos.map(|p| p.1),
                        format!(
                            "expect.{key}.{field}: `{id}` is not a rule id of the rule table (see `mcp-verdict rules`)"
                        ),
                    ));
                    return None;
                }
            }
        }
    }
    // The exchange takes the body; the file keeps the rest (expectations, revisions), so the
    // body is held once.
    let given = BodyGiven::of(&file);
    let mut file = file;
    let taken = file
        .response
        .as_mut()
        .map(|r| (r.body.take(), r.body_base64.take(), r.body_json.take()));
    let mut whole = file.clone();
    if let (Some(r), Some((body, body_base64, body_json))) = (whole.response.as_mut(), taken) {
        r.body = body;
        r.body_base64 = body_base64;
        r.body_json = body_json;
    }
    let ex = match whole.into_exchange() {
        Ok(x) => x,
        Err(e) => {
            let pos = at("/response").or_else(|| at("/stdio"));
            out.error = Some(invalid(
                e.line.or(pos.map(|p| p.0)),
                e.column.or(pos.map(|p| p.1)),
                e.message,
            ));
            return None;
        }
    };
    let protocols = match revisions_for(&file, &ex, options) {
        Ok(p) => p,
        Err(e) => {
            out.error = Some(unplaced(InputErrorKind::NoRevision, e.to_string()));
            return None;
        }
    };
    Some(Prepared {
        file,
        given,
        ex,
        protocols,
    })
}

/// Compares a judged file's verdicts with its expectations, locating each finding in `text`;
/// `configured` is the judgement with the settings applied, which is what is reported.
fn finish(
    text: &str,
    prepared: &Prepared,
    judgement: &crate::judge::Judgement<'_>,
    configured: &crate::judge::Judgement<'_>,
    options: &CheckOptions<'_>,
    out: &mut FileResult,
) {
    let Prepared {
        file, given, ex, ..
    } = prepared;
    let at = |pointer: &str| pointer_span(text, pointer).map(|s| line_col(text, s.start));
    let locator = Locator::new(text, *given, ex);
    out.results = judgement
        .verdicts
        .iter()
        .zip(&configured.verdicts)
        .map(|(v, shown)| {
            let key = if file.expect.contains_key(v.protocol.as_str()) {
                v.protocol.as_str()
            } else {
                "all"
            };
            let expected_at =
                at(&format!("/expect/{key}")).map(|(line, column)| Location { line, column });
            let targeted = file.expect.is_empty() || file.expectation(v.protocol).is_some();
            let mut r = compare(
                v,
                shown,
                file.expectation(v.protocol),
                targeted,
                options,
                &locator,
            );
            if r.expected.is_some() {
                r.expected_at = expected_at;
            }
            r
        })
        .collect();
}

/// The revisions a file is judged under.
fn revisions_for(
    file: &ExchangeFile,
    ex: &Exchange,
    options: &CheckOptions<'_>,
) -> Result<Vec<Protocol>, JudgeError> {
    if let Some(ps) = &options.protocols
        && !ps.is_empty()
    {
        return Ok(ps.clone());
    }
    let mut v: Vec<Protocol> = file
        .protocol
        .as_ref()
        .map(|p| p.revisions())
        .unwrap_or_default();
    v.extend(file.expect.keys().filter_map(|k| Protocol::parse(k)));
    v.sort();
    v.dedup();
    if !v.is_empty() {
        return Ok(v);
    }
    match revisions_of(ex) {
        Ok(v) => Ok(v),
        Err(JudgeError::UnknownRevision) if file.expect.contains_key("all") => {
            Ok(Protocol::all().collect())
        }
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use crate::inputs::corpus::normalize_path;

    #[test]
    fn paths_normalise() {
        assert_eq!(normalize_path("./a//b\\c.json"), "a/b/c.json");
        assert_eq!(normalize_path("/abs/./x.json"), "/abs/x.json");
    }
}
