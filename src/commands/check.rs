//! `mcp-verdict check`: a thin layer over [`crate::run::check`]: arguments, output files, the
//! progress bar and the exit status.

use std::io::{IsTerminal, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use clap::{ArgMatches, Args, FromArgMatches, ValueEnum};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use super::accept::accept_failing;
use super::{
    CommandSettings, ProtocolArg, SettingsArgs, exit, load_engine, parse_protocol, protocols_of,
};
use crate::config::Settings;
use crate::inputs::corpus::{WalkOptions, collect_corpus};
use crate::outputs::Style;
use crate::outputs::check::{self as formats, text::TextOptions};
use crate::run::check::{self as report, Baseline, CheckOptions, check_files};

use formats::Format as ReportFormat;

#[derive(Debug, Args)]
#[command(after_long_help = "\
Revisions: each file is judged under the revisions it names (its `protocol` field and the \
revision keys of `expect`), else the one its recorded request declares, else every revision \
when `expect` has only `all`; --protocol overrides this for every file.

Pass and fail, per file and revision:
  PASS       the verdict matches `expect` (outcome; every id in `rules` cited or found; no id \
in `absent` found)
  FAIL       it does not (a diff of expected vs actual is shown)
  OK         no `expect`; no finding at or above --fail-on
  FINDINGS   no `expect`; findings at or above --fail-on
  BASELINED  failing, but every failure is listed in --baseline
  NOT TARGETED  no `expect` entry for this revision (the file names others) and findings at or \
above --fail-on: shown, not failing (reported as `ok` in JSON)
Findings never fail a file that has an expectation (with --strict, unlisted ones do).

Outputs: each --output FILE belongs to the --format value just before it; formats without an \
output go to stdout (at most one). Example:
  mcp-verdict check tests/fixtures --format junit --output junit.xml --format markdown --output \"$GITHUB_STEP_SUMMARY\" --format text
--format github writes workflow commands (annotations) and, when GITHUB_STEP_SUMMARY is set and \
no --format markdown goes there, appends the Markdown report to it as the job summary.

Paths: `-` alone reads standard input: one exchange file (JSON, starting with `{`), judged and \
reported as `-`, or a list of paths, one per line (NUL-separated when it holds a NUL, as \
`find -print0` writes), e.g. `git ls-files '*.json' | mcp-verdict check -`. Reports show paths \
relative to --root (default: the current directory); SARIF locations are relative to it too \
(uriBaseId %SRCROOT%), so in CI give the repository root.

Exit status:
  0  all as expected
  1  a failing result, a stale baseline entry, or (with --coverage) a coverage gap
  2  usage: bad arguments, nothing matched, unreadable baseline, unwritable output
  3  an unreadable or invalid file (reported with line and column)")]
struct Inner {
    /// Exchange files, directories (searched recursively for *.json) or glob patterns; `-`
    /// reads one exchange, or a list of paths, from stdin.
    #[arg(value_name = "PATH", required_unless_present = "show_settings")]
    paths: Vec<PathBuf>,
    /// Judge every file under these revisions: 2025-11-25, 2026-07-28 or all. Default: the
    /// revisions each file names.
    #[arg(long, value_parser = parse_protocol)]
    protocol: Option<ProtocolArg>,
    /// Report format; repeat or separate with commas. Default: text.
    #[arg(long, value_enum, value_delimiter = ',', action = clap::ArgAction::Append)]
    format: Vec<ReportFormat>,
    /// Write the preceding --format to FILE instead of stdout (`-`: stdout).
    #[arg(long, value_name = "FILE", action = clap::ArgAction::Append)]
    output: Vec<PathBuf>,
    /// Findings at or above --fail-on that a file's expectation does not list in `rules` fail
    /// it too.
    #[arg(long)]
    strict: bool,
    /// Known failures (JSON: [{"file","protocol","rule"|"outcome"}]); listed failures do not
    /// fail the run, listed ones that no longer fail do (stale).
    #[arg(long, value_name = "FILE")]
    baseline: Option<PathBuf>,
    /// Write the current failures to FILE as a baseline (then they do not fail this run).
    #[arg(long, value_name = "FILE", conflicts_with = "accept")]
    write_baseline: Option<PathBuf>,
    /// Write the current verdicts into the `expect` entries that fail (nothing else in the
    /// file changes) and show the diff; a file git could not restore (uncommitted changes,
    /// untracked, or outside a repository) is left alone.
    #[arg(long)]
    accept: bool,
    /// With --accept, also rewrite files that git could not restore.
    #[arg(long, requires = "accept")]
    accept_dirty: bool,
    /// List, per revision, every rule with the files that trigger and satisfy it; fail when a
    /// rule lacks either.
    #[arg(long)]
    coverage: bool,
    /// Also show passing results, all findings and the per-rule table (text format).
    #[arg(short, long)]
    verbose: bool,
    /// Load the rule table from this directory instead of the built-in one.
    #[arg(long, value_name = "DIR")]
    rules: Option<PathBuf>,
    /// Show paths relative to DIR (e.g. the repository root); files outside it keep their
    /// absolute path. Default: the current directory.
    #[arg(long, value_name = "DIR")]
    root: Option<PathBuf>,
    /// Follow symbolic links that lead outside the directories given (by default such a link
    /// is not followed, with a note on stderr; a link loop is never followed).
    #[arg(long)]
    follow_symlinks: bool,
    /// No progress bar; the text format shows failures only (no conformance or summary lines),
    /// and no summary line goes to stderr.
    #[arg(short, long, conflicts_with = "verbose")]
    quiet: bool,
    /// Show and record what the server sent as it is: no redaction of credentials
    /// (Authorization, cookies, --header values, bearer tokens, keys, credential-named URL
    /// parameters) in any output, record or log.
    #[arg(long)]
    no_redact: bool,
    #[command(flatten)]
    settings: SettingsArgs,
}

/// The `check` arguments, with the positions of `--format` and `--output` values so that each
/// output can be paired with the format before it.
#[derive(Debug)]
pub(crate) struct CheckArgs {
    inner: Inner,
    format_at: Vec<usize>,
    output_at: Vec<usize>,
}

impl FromArgMatches for CheckArgs {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let positions = |id: &str| {
            m.indices_of(id)
                .map(|i| i.collect::<Vec<_>>())
                .unwrap_or_default()
        };
        Ok(CheckArgs {
            inner: Inner::from_arg_matches(m)?,
            format_at: positions("format"),
            output_at: positions("output"),
        })
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        *self = CheckArgs::from_arg_matches(m)?;
        Ok(())
    }
}

impl Args for CheckArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        Inner::augment_args(cmd)
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Inner::augment_args_for_update(cmd)
    }
}

/// Where each format goes: `None` is stdout. Without `--format`, the settings' reports.
fn pair_outputs(
    a: &CheckArgs,
    settings: &Settings,
) -> Result<Vec<(ReportFormat, Option<PathBuf>)>, String> {
    let formats = if a.inner.format.is_empty() {
        if !a.inner.output.is_empty() {
            return Err("--output FILE must follow the --format it is for".into());
        }
        if let Some(reports) = &settings.reports {
            return Ok(reports
                .value
                .iter()
                .map(|r| {
                    let f = ReportFormat::from_str(&r.format, false)
                        .expect("the settings checked the format names");
                    (f, r.output.clone())
                })
                .collect());
        }
        vec![ReportFormat::Text]
    } else {
        a.inner.format.clone()
    };
    let mut dest: Vec<Option<PathBuf>> = vec![None; formats.len()];
    for (out, at) in a.inner.output.iter().zip(&a.output_at) {
        let Some(k) = a.format_at.iter().rposition(|f| f < at) else {
            return Err(format!(
                "--output {} must follow the --format it is for",
                out.display()
            ));
        };
        if dest[k].is_some() {
            return Err(format!(
                "two outputs for one --format {}: {} and {}",
                formats[k]
                    .to_possible_value()
                    .expect("no skipped values")
                    .get_name(),
                dest[k].as_ref().expect("checked").display(),
                out.display()
            ));
        }
        dest[k] = Some(out.clone());
    }
    let pairs: Vec<(ReportFormat, Option<PathBuf>)> = formats
        .into_iter()
        .zip(dest)
        .map(|(f, d)| (f, d.filter(|p| p.as_os_str() != "-")))
        .collect();
    let on_stdout = pairs.iter().filter(|(_, d)| d.is_none()).count();
    if on_stdout > 1 {
        return Err("more than one format on stdout: give all but one an --output FILE".into());
    }
    let mut files: Vec<&PathBuf> = pairs.iter().filter_map(|(_, d)| d.as_ref()).collect();
    files.sort();
    if files.windows(2).any(|w| w[0] == w[1]) {
        return Err("two formats written to the same --output file".into());
    }
    Ok(pairs)
}

fn usage(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("mcp-verdict check: {msg}");
    ExitCode::from(exit::USAGE)
}

/// What `-` on the command line stands for.
enum StdinInput {
    /// One exchange file's bytes.
    Exchange(Vec<u8>),
    /// Paths, one per line.
    Paths(Vec<PathBuf>),
}

fn read_stdin() -> Result<StdinInput, std::io::Error> {
    use std::io::Read as _;
    let mut bytes = Vec::new();
    std::io::stdin().read_to_end(&mut bytes)?;
    let first = bytes.iter().find(|b| !b.is_ascii_whitespace());
    if first == Some(&b'{') {
        return Ok(StdinInput::Exchange(bytes));
    }
    Ok(StdinInput::Paths(report::path_list(
        &String::from_utf8_lossy(&bytes),
    )))
}

pub(crate) fn run(a: CheckArgs, g: super::Global) -> ExitCode {
    super::set_redaction(a.inner.no_redact, &[]);
    let engine = match load_engine(&a.inner.rules) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let own = CommandSettings {
        protocol: protocols_of(&a.inner.protocol),
        strict: a.inner.strict,
        root: a.inner.root.clone(),
    };
    let settings = match a.inner.settings.resolve(own, engine) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if !settings.fail_on_outcome.value.is_empty() {
        let why =
            "fail-on-outcome is for classify: check compares each file's outcome with its `expect`";
        match settings.fail_on_outcome.origin {
            crate::config::Origin::Flag(_) => return usage(format_args!("--{why}")),
            ref file => eprintln!("mcp-verdict check: note: {file}: {why}"),
        }
    }
    let outputs = match pair_outputs(&a, &settings) {
        Ok(o) => o,
        Err(e) => return usage(e),
    };
    let baseline = match &a.inner.baseline {
        Some(p) => match Baseline::load(p) {
            Ok(b) => Some(b),
            Err(e) => return usage(e),
        },
        None => None,
    };
    let root = match settings.root.as_ref().map(|r| &r.value) {
        Some(r) => match std::fs::canonicalize(r) {
            Ok(abs) if abs.is_dir() => Some(abs),
            Ok(_) => return usage(format_args!("--root {}: not a directory", r.display())),
            Err(e) => return usage(format_args!("--root {}: {e}", r.display())),
        },
        None => None,
    };
    if a.inner.accept
        && a.inner
            .paths
            .iter()
            .any(|p| crate::inputs::file::is_stdin(p))
    {
        return usage("--accept rewrites files: give their paths, not `-`");
    }
    if a.inner.accept && a.inner.protocol.is_some() {
        return usage(
            "--accept writes what each file's own revisions conclude: leave out --protocol",
        );
    }
    let mut stdin_exchange = None;
    let mut paths: Vec<PathBuf> = Vec::new();
    for p in &a.inner.paths {
        if crate::inputs::file::is_stdin(p) {
            if a.inner.paths.len() > 1 {
                return usage("`-` (stdin) cannot be combined with other paths");
            }
            match read_stdin() {
                Ok(StdinInput::Exchange(bytes)) => stdin_exchange = Some(bytes),
                Ok(StdinInput::Paths(list)) if list.is_empty() => {
                    return usage("stdin holds no paths and no exchange");
                }
                Ok(StdinInput::Paths(list)) => paths.extend(list),
                Err(e) => {
                    eprintln!("mcp-verdict check: cannot read stdin: {e}");
                    return ExitCode::from(exit::INPUT);
                }
            }
        } else {
            paths.push(p.clone());
        }
    }
    let files = if stdin_exchange.is_some() {
        Vec::new()
    } else {
        let walk = WalkOptions {
            follow_symlinks: a.inner.follow_symlinks,
        };
        match collect_corpus(&paths, &walk) {
            Ok(c) => {
                // What the walk left out is never silent.
                for n in &c.notes {
                    eprintln!("mcp-verdict check: note: {}", crate::outputs::safe::text(n));
                }
                c.files
            }
            Err(e) => return usage(e),
        }
    };

    let bar = if a.inner.quiet {
        None
    } else {
        progress_bar(files.len())
    };
    let started = Instant::now();
    let shown = AtomicBool::new(files.len() > 200);
    let tick = |done: usize| {
        if let Some(pb) = &bar {
            if !shown.load(Ordering::Relaxed)
                && started.elapsed() > Duration::from_millis(300)
                && !shown.swap(true, Ordering::Relaxed)
            {
                pb.set_draw_target(ProgressDrawTarget::stderr());
            }
            pb.set_position(done as u64);
        }
    };
    let options = CheckOptions {
        protocols: settings.protocol.as_ref().map(|p| p.value.clone()),
        engine,
        fail_on: settings.fail_on.value,
        strict: settings.strict.value,
        baseline,
        progress: Some(&tick),
        root,
        max_findings_per_rule: settings.max_findings_per_rule.value,
        settings: Some(&settings),
    };
    let mut run = match &stdin_exchange {
        Some(bytes) => report::check_one("-", bytes, &options),
        None => check_files(&files, &options),
    };
    if let Some(pb) = &bar {
        pb.finish_and_clear();
    }

    if a.inner.accept {
        let to_stdout = outputs
            .iter()
            .any(|(f, d)| *f == ReportFormat::Text && d.is_none());
        let tally = if to_stdout {
            let mut out = std::io::stdout().lock();
            accept_failing(
                &mut run,
                &files,
                &options,
                a.inner.accept_dirty,
                &mut out,
                Style::stdout(g.color),
            )
        } else {
            let style = Style {
                color: g.color.colors(std::io::stderr().is_terminal()),
            };
            let mut out = std::io::stderr().lock();
            accept_failing(
                &mut run,
                &files,
                &options,
                a.inner.accept_dirty,
                &mut out,
                style,
            )
        };
        eprintln!("mcp-verdict check: {}", tally.line());
    }

    if let Some(path) = &a.inner.write_baseline {
        let entries = run.baseline_entries();
        if let Err(e) = std::fs::write(path, Baseline::render(&entries)) {
            return usage(format_args!("cannot write {}: {e}", path.display()));
        }
        run.apply_baseline(Some(&Baseline { entries }));
    }

    let coverage = a.inner.coverage.then(|| report::coverage(&run.files));
    let cov = coverage.as_ref();
    let mut text_on_stdout = false;
    let summary_file = std::env::var_os("GITHUB_STEP_SUMMARY")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    // Where a Markdown report that is cut points for the full one: another report's file.
    let markdown = formats::markdown::Options {
        full_report: [
            ReportFormat::Html,
            ReportFormat::Json,
            ReportFormat::Sarif,
            ReportFormat::Junit,
            ReportFormat::Ndjson,
        ]
        .iter()
        .find_map(|want| {
            outputs
                .iter()
                .find(|(f, d)| f == want && d.is_some())
                .and_then(|(_, d)| d.as_ref())
        })
        .map(|p| p.display().to_string()),
        ..Default::default()
    };
    let render_to = |format: ReportFormat,
                     options: TextOptions,
                     w: &mut dyn std::io::Write|
     -> std::io::Result<()> {
        match format {
            ReportFormat::Markdown => {
                w.write_all(formats::markdown::render_with(&run, cov, &markdown).as_bytes())
            }
            _ => formats::render_to(format, &run, cov, options, w),
        }
    };
    for (format, dest) in &outputs {
        let style = if dest.is_none() {
            Style::stdout(g.color)
        } else {
            Style::default()
        };
        text_on_stdout |= *format == ReportFormat::Text && dest.is_none();
        let options = TextOptions {
            style,
            verbose: a.inner.verbose,
            quiet: a.inner.quiet,
        };
        match dest {
            Some(p) => {
                let written = std::fs::File::create(p).and_then(|f| {
                    let mut w = std::io::BufWriter::with_capacity(64 << 10, f);
                    render_to(*format, options, &mut w)?;
                    w.flush()
                });
                if let Err(e) = written {
                    return usage(format_args!("cannot write {}: {e}", p.display()));
                }
            }
            None => {
                let mut out = std::io::BufWriter::with_capacity(64 << 10, std::io::stdout().lock());
                // A closed pipe (`| head`) is not an error worth a panic.
                let _ = render_to(*format, options, &mut out);
                let _ = out.flush();
            }
        }
    }
    // The job summary of `--format github`, unless a Markdown report already goes there.
    if let Some(path) = &summary_file
        && outputs.iter().any(|(f, _)| *f == ReportFormat::Github)
        && !outputs
            .iter()
            .any(|(f, d)| *f == ReportFormat::Markdown && d.as_ref() == Some(path))
    {
        let md = formats::markdown::render_with(&run, cov, &markdown);
        let appended = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .and_then(|mut f| f.write_all(md.as_bytes()));
        if let Err(e) = appended {
            return usage(format_args!(
                "cannot append the job summary to {}: {e}",
                path.display()
            ));
        }
    }
    if !text_on_stdout {
        // Files not judged are never silent, whatever the formats.
        for (f, e) in run.input_errors() {
            eprintln!(
                "mcp-verdict check: {}",
                formats::text::input_error_line(f, e)
            );
        }
        if !a.inner.quiet {
            eprintln!("mcp-verdict check: {}", formats::text::summary_line(&run));
        }
    }
    ExitCode::from(run.exit_code(a.inner.coverage))
}

fn progress_bar(len: usize) -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let pb = ProgressBar::with_draw_target(Some(len as u64), ProgressDrawTarget::hidden());
    pb.set_style(
        ProgressStyle::with_template("judging {pos}/{len} files {wide_bar} {eta}")
            .expect("valid template"),
    );
    if len > 200 {
        pb.set_draw_target(ProgressDrawTarget::stderr());
    }
    Some(pb)
}
