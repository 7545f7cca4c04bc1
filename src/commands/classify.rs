//! `mcp-verdict classify`: one exchange file, every tools/call in a HAR capture (`--har`) or in
//! a stdio session transcript (`--transcript`), or a stream of exchanges, one per line
//! (`--jsonl`).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{ArgGroup, Args};

use super::{
    CommandSettings, Format, ProtocolArg, SettingsArgs, exit, load_engine, parse_protocol,
    protocols_of,
};
use crate::config::Settings;
use crate::inputs::file::{self, Source};
use crate::judge::{Engine, Options, judge_capped};
use crate::outputs::compact::CompactLines;
use crate::outputs::jsonl::JsonLines;
use crate::outputs::{Style, safe, write_stdout};
use crate::run::check::{BodyGiven, locate_judgement};
use crate::run::stream::{self, JsonlOptions};
use crate::run::{Origin, revision_message};
use crate::views::redact;
use crate::wire::exchange::ExchangeFile;
use crate::{inputs, outputs, run};

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("input").required(true).multiple(true).args(["file", "har", "transcript", "jsonl", "show_settings"])))]
#[command(after_help = super::exit_help(&[
    (exit::OK, "no verdict carries an error-severity finding"),
    (
        exit::FINDINGS,
        "a verdict carries one (--har, --transcript: or a tools/call could not be judged; \
         --jsonl: or a line could not be judged)",
    ),
    (exit::USAGE, "usage: bad arguments, or the revision cannot be told (give --protocol)"),
    (
        exit::INPUT,
        "the input cannot be read or is not a valid exchange file, HAR capture or transcript",
    ),
    (
        exit::NOTHING_JUDGED,
        "--har, --transcript: no tools/call in the capture could be judged (none recorded, \
         bodies not recorded, or revisions unknown); stderr says why",
    ),
]))]
pub(crate) struct ClassifyArgs {
    /// Exchange files to judge (JSON, see docs/exchange-format.md); `-` reads one from stdin.
    #[arg(value_name = "FILE")]
    file: Vec<PathBuf>,
    /// Judge every tools/call POST in a HAR 1.2 capture (browser "Save all as HAR with
    /// content", mitmproxy, Charles); `-` reads stdin. Other entries are counted by kind.
    #[arg(long, value_name = "FILE", conflicts_with = "file")]
    har: Option<PathBuf>,
    /// Judge every tools/call in a stdio session transcript (JSON Lines, one entry per line
    /// either side wrote: docs/stdio.md), each paired with what the server wrote until its
    /// answer; `-` reads stdin. Other client messages are counted by method.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["file", "har"])]
    transcript: Option<PathBuf>,
    /// Judge a stream of exchanges, one compact JSON object per line, from FILE or stdin (`-`,
    /// the default). Writes one JSON verdict per line, in input order, using every core.
    #[arg(
        long,
        value_name = "FILE",
        num_args = 0..=1,
        default_missing_value = "-",
        conflicts_with_all = ["file", "har", "transcript"]
    )]
    jsonl: Option<PathBuf>,
    /// Revision(s) to judge under: 2025-11-25, 2026-07-28 or all. Default: the one the recorded
    /// request declares (MCP-Protocol-Version header or _meta protocolVersion).
    #[arg(long, value_parser = parse_protocol)]
    protocol: Option<ProtocolArg>,
    /// Output format [default: text; --jsonl always writes JSON lines].
    #[arg(long, value_enum)]
    format: Option<Format>,
    /// Load the rule table from this directory instead of the built-in one.
    #[arg(long, value_name = "DIR")]
    rules: Option<PathBuf>,
    /// With --jsonl: worker threads [default: one per core].
    #[arg(long, value_name = "N", conflicts_with_all = ["file", "har", "transcript"])]
    jobs: Option<usize>,
    /// With --jsonl: write a one-line summary to stderr at the end even when stderr is not a
    /// terminal.
    #[arg(long, conflicts_with_all = ["file", "har", "transcript"])]
    summary: bool,
    /// With --jsonl: reject lines longer than this many bytes (an error record, the stream goes
    /// on).
    #[arg(
        long,
        value_name = "BYTES",
        conflicts_with_all = ["file", "har", "transcript"],
        default_value_t = stream::DEFAULT_MAX_LINE_BYTES
    )]
    max_line_bytes: usize,
    /// With --jsonl: one short record per line instead of the full verdict: per revision the
    /// outcome, its layer, the deciding rule, the rules with findings and the count of errors
    /// (schemas/classify-compact.schema.json).
    #[arg(long, conflicts_with_all = ["file", "har", "transcript"])]
    compact: bool,
    /// With --jsonl: no progress bar and no summary line on stderr.
    #[arg(short, long, conflicts_with = "summary")]
    quiet: bool,
    /// Show and record what the server sent as it is: no redaction of credentials
    /// (Authorization, cookies, --header values, bearer tokens, keys, credential-named URL
    /// parameters) in any output, record or log.
    #[arg(long)]
    no_redact: bool,
    #[command(flatten)]
    settings: SettingsArgs,
}

pub(crate) fn run(a: ClassifyArgs, g: super::Global) -> ExitCode {
    super::set_redaction(a.no_redact, &[]);
    let engine = match load_engine(&a.rules) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let own = CommandSettings {
        protocol: protocols_of(&a.protocol),
        ..CommandSettings::default()
    };
    let settings = match a.settings.resolve(own, engine) {
        Ok(s) => s,
        Err(code) => return code,
    };
    if let Some(path) = &a.jsonl {
        return run_jsonl(&a, path, engine, &settings);
    }
    let judging = Judging {
        engine,
        style: Style::stdout(g.color),
        settings: &settings,
        format: a.format,
    };
    if let Some(path) = &a.har {
        return run_har(path, &judging);
    }
    if let Some(path) = &a.transcript {
        return run_transcript(path, &judging);
    }
    if a.file.is_empty() {
        eprintln!(
            "mcp-verdict: classify needs FILE, --har FILE, --transcript FILE or --jsonl [FILE]"
        );
        return ExitCode::from(exit::USAGE);
    }
    run_files(&a.file, &judging)
}

/// The revisions the settings name, for [`Options::protocols`].
fn protocols(settings: &Settings) -> Option<&[crate::vocab::Protocol]> {
    settings.protocol.as_ref().map(|p| p.value.as_slice())
}

fn read_input(path: &Path) -> Result<Source, ExitCode> {
    file::read(path).map_err(|e| {
        eprintln!("mcp-verdict: {e}");
        ExitCode::from(exit::INPUT)
    })
}

/// What judging one file or capture needs besides its path.
struct Judging<'a> {
    engine: &'static Engine,
    style: Style,
    settings: &'a Settings,
    format: Option<Format>,
}

/// What a file that is not an exchange file is instead, and the command that judges it.
fn misfiled(path: &Path, bytes: &[u8]) -> Option<String> {
    let shown = safe::text(&path.display().to_string()).into_owned();
    if inputs::transcript::looks_like(bytes) {
        return Some(format!(
            "is a stdio session transcript, not an exchange file: judge it with `mcp-verdict classify --transcript {shown}`"
        ));
    }
    let text = crate::wire::utf8::strip_bom(bytes);
    match serde_json::from_slice::<serde_json::Value>(text) {
        Ok(serde_json::Value::Object(o)) if o.contains_key("log") => Some(format!(
            "is a HAR capture, not an exchange file: judge its tools/call entries with `mcp-verdict classify --har {shown}`"
        )),
        Ok(serde_json::Value::Object(o)) if o.contains_key("jsonrpc") => Some(
            "is a bare JSON-RPC message, not an exchange file: record it as an exchange, the request in `request.body` and this message in `response.body_json` (docs/exchange-format.md)"
                .to_owned(),
        ),
        Ok(_) => None,
        Err(_) => {
            let mut lines = text
                .split(|b| *b == b'\n')
                .filter(|l| !l.iter().all(u8::is_ascii_whitespace));
            let first_is_json = lines
                .next()
                .is_some_and(|l| serde_json::from_slice::<serde::de::IgnoredAny>(l).is_ok());
            (first_is_json && lines.next().is_some()).then(|| {
                format!(
                    "holds one JSON value per line, not an exchange file: judge it with `mcp-verdict classify --jsonl {shown}`"
                )
            })
        }
    }
}

/// Files up to this size keep their text while they are judged, to give each finding's line
/// and column (as `check` holds files under 4 MiB).
const LOCATE_UP_TO: usize = 4 << 20;

/// One exchange file judged: what to print, and how its verdicts fared.
struct Judged {
    output: String,
    tally: outputs::verdict::Tally,
    failed: bool,
}

/// Judges one exchange file; an error is reported here and comes back as the exit status.
fn judge_file(path: &Path, j: &Judging<'_>) -> Result<Judged, u8> {
    if path.is_dir() {
        eprintln!(
            "mcp-verdict: {}: is a directory; judge the exchange files in it with `mcp-verdict check {}`",
            safe::text(&path.display().to_string()),
            safe::text(&path.display().to_string())
        );
        return Err(exit::INPUT);
    }
    let Source { label, bytes } = read_input(path).map_err(|_| exit::INPUT)?;
    let parsed =
        ExchangeFile::from_slice(&bytes).and_then(|f| Ok((BodyGiven::of(&f), f.into_exchange()?)));
    let (given, ex) = match parsed {
        Ok(x) => x,
        Err(e) => {
            let why = misfiled(path, &bytes).unwrap_or_else(|| {
                format!(
                    "not a valid exchange file: {}",
                    safe::text(&redact::text(&e.to_string()))
                )
            });
            eprintln!("mcp-verdict: {}: {why}", safe::text(&label));
            return Err(exit::INPUT);
        }
    };
    // The exchange holds what is judged: a large file's bytes are not kept through the
    // judgement (its findings are then placed by JSON path only, not by line and column).
    let text = (bytes.len() < LOCATE_UP_TO).then(|| String::from_utf8_lossy(&bytes).into_owned());
    drop(bytes);
    let options = Options {
        protocols: protocols(j.settings),
        engine: j.engine,
    };
    let mut judgement = match judge_capped(&ex, &options, j.settings.max_findings_per_rule.value) {
        Ok(j) => j,
        Err(e) => {
            eprintln!(
                "mcp-verdict: {}: {}",
                safe::text(&label),
                safe::text(&revision_message(&e, Origin::File))
            );
            return Err(exit::USAGE);
        }
    };
    let failed = j
        .settings
        .apply_all(&mut judgement, (!file::is_stdin(path)).then_some(path));
    let output = match j.format.unwrap_or(Format::Text) {
        Format::Text => {
            let at = text.map(|t| locate_judgement(&t, given, &ex, &judgement));
            outputs::verdict::judgement_at(&judgement, &label, j.style, at.as_deref())
        }
        Format::Json => safe::json(crate::views::judgement_json_pretty(
            &judgement,
            Some(&label),
        )),
    };
    Ok(Judged {
        output,
        tally: outputs::verdict::Tally::of(&judgement.verdicts),
        failed,
    })
}

/// Judges exchange files in turn. Text: one block per file and a closing summary line; JSON:
/// one object for one file, an array of them for several. Every file is judged whatever
/// happened to the others; the exit status is the worst.
fn run_files(paths: &[PathBuf], j: &Judging<'_>) -> ExitCode {
    if paths.len() > 1 && paths.iter().any(|p| file::is_stdin(p)) {
        eprintln!("mcp-verdict: `-` (stdin) cannot be combined with other files");
        return ExitCode::from(exit::USAGE);
    }
    let mut outputs = Vec::new();
    let mut tally = outputs::verdict::Tally::default();
    let mut worst = exit::OK;
    for path in paths {
        match judge_file(path, j) {
            Ok(done) => {
                tally.add(&done.tally);
                if done.failed {
                    worst = worst.max(exit::FINDINGS);
                }
                outputs.push(done.output);
            }
            // Exit statuses rank as their numbers do: input (3) over usage (2) over findings.
            Err(code) => {
                tally.unjudged += 1;
                worst = worst.max(code);
            }
        }
    }
    let text = match j.format.unwrap_or(Format::Text) {
        Format::Text => {
            let mut t = outputs.concat();
            if !outputs.is_empty() {
                t.push_str(&tally.line(worst, j.style));
            }
            t
        }
        Format::Json if paths.len() == 1 => outputs.concat() + "\n",
        Format::Json => format!("[\n{}\n]\n", outputs.join(",\n")),
    };
    write_stdout(&text);
    ExitCode::from(worst)
}

fn run_har(path: &Path, j: &Judging<'_>) -> ExitCode {
    let Source { label, bytes } = match read_input(path) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let capture = match inputs::har::read(&bytes) {
        Ok(h) => h,
        Err(e) => {
            eprintln!(
                "mcp-verdict: {}: not a valid HAR file: {}",
                safe::text(&label),
                safe::text(&redact::text(&e.to_string()))
            );
            return ExitCode::from(exit::INPUT);
        }
    };
    let options = Options {
        protocols: protocols(j.settings),
        engine: j.engine,
    };
    let mut report =
        run::har::judge_capped(&capture, &options, j.settings.max_findings_per_rule.value);
    report.configure(j.settings, (!file::is_stdin(path)).then_some(path));
    let text = match j.format.unwrap_or(Format::Text) {
        Format::Text => outputs::har::text(&report, &label, j.style),
        Format::Json => {
            safe::json(
                serde_json::to_string_pretty(&outputs::har::view(&report, &label))
                    .expect("reports serialize"),
            ) + "\n"
        }
    };
    write_stdout(&text);
    if let Some(why) = report.summary.nothing_judged() {
        eprintln!("mcp-verdict: {}: {}", safe::text(&label), safe::text(&why));
        return ExitCode::from(exit::NOTHING_JUDGED);
    }
    ExitCode::from(if report.summary.failed() {
        exit::FINDINGS
    } else {
        exit::OK
    })
}

fn run_transcript(path: &Path, j: &Judging<'_>) -> ExitCode {
    let Source { label, bytes } = match read_input(path) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let session = match inputs::transcript::read_session(&bytes) {
        Ok(s) => s,
        Err(e) => {
            eprintln!(
                "mcp-verdict: {}: not a valid stdio transcript: {}",
                safe::text(&label),
                safe::text(&redact::text(&e.to_string()))
            );
            return ExitCode::from(exit::INPUT);
        }
    };
    drop(bytes);
    let options = Options {
        protocols: protocols(j.settings),
        engine: j.engine,
    };
    let mut report =
        run::transcript::judge_capped(&session, &options, j.settings.max_findings_per_rule.value);
    report.configure(j.settings, (!file::is_stdin(path)).then_some(path));
    let text = match j.format.unwrap_or(Format::Text) {
        Format::Text => outputs::transcript::text(&report, &label, j.style),
        Format::Json => {
            safe::json(
                serde_json::to_string_pretty(&outputs::transcript::view(&report, &label))
                    .expect("reports serialize"),
            ) + "\n"
        }
    };
    write_stdout(&text);
    if let Some(why) = report.summary.nothing_judged() {
        eprintln!("mcp-verdict: {}: {}", safe::text(&label), safe::text(&why));
        return ExitCode::from(exit::NOTHING_JUDGED);
    }
    ExitCode::from(if report.summary.failed() {
        exit::FINDINGS
    } else {
        exit::OK
    })
}

fn run_jsonl(
    a: &ClassifyArgs,
    path: &Path,
    engine: &'static Engine,
    settings: &Settings,
) -> ExitCode {
    if a.format == Some(Format::Text) {
        eprintln!(
            "mcp-verdict: --jsonl writes JSON lines only; drop --format text (or use --format json)"
        );
        return ExitCode::from(exit::USAGE);
    }
    if a.jobs == Some(0) {
        eprintln!("mcp-verdict: --jobs must be at least 1");
        return ExitCode::from(exit::USAGE);
    }
    let options = JsonlOptions {
        judge: Options {
            protocols: protocols(settings),
            engine,
        },
        threads: a.jobs.unwrap_or(0),
        max_line_bytes: a.max_line_bytes,
        max_findings_per_rule: settings.max_findings_per_rule.value,
        settings: Some(settings),
        ..JsonlOptions::default()
    };
    let label = path.display().to_string();
    let stdout = std::io::stdout().lock();
    let (input, length): (Box<dyn std::io::Read + Send>, Option<u64>) = if file::is_stdin(path) {
        (Box::new(std::io::stdin()), None)
    } else {
        match std::fs::File::open(path) {
            Ok(f) => {
                let length = f.metadata().ok().map(|m| m.len());
                (Box::new(f), length)
            }
            Err(error) => {
                eprintln!("mcp-verdict: {}", file::ReadError { label, error });
                return ExitCode::from(exit::INPUT);
            }
        }
    };
    let bar = (!a.quiet && std::io::stderr().is_terminal()).then(|| super::progress::bytes(length));
    let reader = super::progress::Counted::new(input, bar.clone());
    let result = stream::run(
        std::io::BufReader::with_capacity(64 << 10, reader),
        stdout,
        &options,
        if a.compact {
            &CompactLines as &dyn stream::LineFormat
        } else {
            &JsonLines
        },
    );
    if let Some(pb) = &bar {
        pb.finish_and_clear();
    }
    let summary = match result {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return ExitCode::from(exit::OK),
        Err(e) => {
            let shown = if file::is_stdin(path) {
                "stdin"
            } else {
                &label
            };
            eprintln!("mcp-verdict: {shown}: {e}");
            return ExitCode::from(exit::INPUT);
        }
    };
    if a.summary || (!a.quiet && std::io::stderr().is_terminal()) {
        eprintln!("mcp-verdict: {}", summary.line());
    }
    ExitCode::from(if summary.failed() {
        exit::FINDINGS
    } else {
        exit::OK
    })
}
