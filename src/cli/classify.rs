//! `mcp-verdict classify`: one exchange file, every tools/call in a HAR capture (`--har`), or a
//! stream of exchanges, one per line (`--jsonl`).

use std::io::{IsTerminal, Read};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{ArgGroup, Args};

use super::{Format, ProtocolArg, exit, load_engine, parse_protocol, protocols_of};
use crate::engine::{Options, judge};
use crate::judge::Engine;
use crate::render::{self, Style};
use crate::views::JudgementOut;
use crate::vocab::Severity;
use crate::wire::exchange::ExchangeFile;
use crate::{har, jsonl};

#[derive(Debug, Args)]
#[command(group(ArgGroup::new("input").required(true).args(["file", "har", "jsonl"])))]
pub(crate) struct ClassifyArgs {
    /// The exchange file to judge (JSON, see the README); `-` reads stdin.
    #[arg(value_name = "FILE")]
    file: Option<PathBuf>,
    /// Judge every tools/call POST in a HAR 1.2 capture (browser "Save all as HAR with
    /// content", mitmproxy, Charles); `-` reads stdin. Other entries are counted by kind.
    #[arg(long, value_name = "FILE", conflicts_with = "file")]
    har: Option<PathBuf>,
    /// Judge a stream of exchanges, one compact JSON object per line, from FILE or stdin (`-`,
    /// the default). Writes one JSON verdict per line, in input order, using every core.
    #[arg(
        long,
        value_name = "FILE",
        num_args = 0..=1,
        default_missing_value = "-",
        conflicts_with_all = ["file", "har"]
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
    #[arg(long, value_name = "N", conflicts_with_all = ["file", "har"])]
    jobs: Option<usize>,
    /// With --jsonl: write a one-line summary to stderr at the end even when stderr is not a
    /// terminal.
    #[arg(long, conflicts_with_all = ["file", "har"])]
    summary: bool,
    /// With --jsonl: reject lines longer than this many bytes (an error record, the stream goes
    /// on).
    #[arg(
        long,
        value_name = "BYTES",
        conflicts_with_all = ["file", "har"],
        default_value_t = jsonl::DEFAULT_MAX_LINE_BYTES
    )]
    max_line_bytes: usize,
}

pub(crate) fn run(a: ClassifyArgs) -> ExitCode {
    let engine = match load_engine(&a.rules) {
        Ok(t) => t,
        Err(code) => return code,
    };
    if let Some(path) = &a.jsonl {
        return run_jsonl(&a, path, engine);
    }
    if let Some(path) = &a.har {
        return run_har(&a, path, engine);
    }
    let Some(file) = &a.file else {
        eprintln!("mcp-verdict: classify needs FILE, --har FILE or --jsonl [FILE]");
        return ExitCode::from(exit::USAGE);
    };
    run_file(&a, file, engine)
}

fn read_input(path: &Path) -> Result<(String, Vec<u8>), ExitCode> {
    let label = path.display().to_string();
    if label == "-" {
        let mut buf = Vec::new();
        if let Err(e) = std::io::stdin().read_to_end(&mut buf) {
            eprintln!("mcp-verdict: cannot read stdin: {e}");
            return Err(ExitCode::from(exit::INPUT));
        }
        Ok((label, buf))
    } else {
        match std::fs::read(path) {
            Ok(b) => Ok((label, b)),
            Err(e) => {
                eprintln!("mcp-verdict: cannot read {label}: {e}");
                Err(ExitCode::from(exit::INPUT))
            }
        }
    }
}

fn run_file(a: &ClassifyArgs, path: &Path, engine: &'static Engine) -> ExitCode {
    let (label, bytes) = match read_input(path) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let ex = match ExchangeFile::from_slice(&bytes).and_then(ExchangeFile::into_exchange) {
        Ok(x) => x,
        Err(e) => {
            eprintln!("mcp-verdict: {label}: not a valid exchange file: {e}");
            return ExitCode::from(exit::INPUT);
        }
    };
    let protocols = protocols_of(&a.protocol);
    let options = Options {
        protocols: protocols.as_deref(),
        engine,
    };
    let judgement = match judge(&ex, &options) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("mcp-verdict: {label}: {e}");
            return ExitCode::from(exit::USAGE);
        }
    };
    let text = match a.format.unwrap_or(Format::Text) {
        Format::Text => render::judgement(&judgement, &label, Style::detect_stdout()),
        Format::Json => {
            let out = JudgementOut::of(&judgement, Some(label.clone()));
            serde_json::to_string_pretty(&out).expect("verdicts serialize") + "\n"
        }
    };
    super::write_stdout(&text);
    let failed = judgement
        .verdicts
        .iter()
        .any(|v| v.worst() == Some(Severity::Error));
    ExitCode::from(if failed { exit::FINDINGS } else { exit::OK })
}

fn run_har(a: &ClassifyArgs, path: &Path, engine: &'static Engine) -> ExitCode {
    let (label, bytes) = match read_input(path) {
        Ok(x) => x,
        Err(code) => return code,
    };
    let capture = match har::read(&bytes) {
        Ok(h) => h,
        Err(e) => {
            eprintln!("mcp-verdict: {label}: not a valid HAR file: {e}");
            return ExitCode::from(exit::INPUT);
        }
    };
    let protocols = protocols_of(&a.protocol);
    let options = Options {
        protocols: protocols.as_deref(),
        engine,
    };
    let report = har::judge(&capture, &options);
    let text = match a.format.unwrap_or(Format::Text) {
        Format::Text => report.render_text(&label, Style::detect_stdout()),
        Format::Json => {
            serde_json::to_string_pretty(&report.to_output(&label)).expect("reports serialize")
                + "\n"
        }
    };
    super::write_stdout(&text);
    ExitCode::from(if report.summary.failed() {
        exit::FINDINGS
    } else {
        exit::OK
    })
}

fn run_jsonl(a: &ClassifyArgs, path: &Path, engine: &'static Engine) -> ExitCode {
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
    let protocols = protocols_of(&a.protocol);
    let options = jsonl::JsonlOptions {
        judge: Options {
            protocols: protocols.as_deref(),
            engine,
        },
        threads: a.jobs.unwrap_or(0),
        max_line_bytes: a.max_line_bytes,
        ..jsonl::JsonlOptions::default()
    };
    let label = path.display().to_string();
    let stdout = std::io::stdout().lock();
    let result = if label == "-" {
        jsonl::run(
            std::io::BufReader::with_capacity(64 << 10, std::io::stdin()),
            stdout,
            &options,
        )
    } else {
        match std::fs::File::open(path) {
            Ok(f) => jsonl::run(
                std::io::BufReader::with_capacity(64 << 10, f),
                stdout,
                &options,
            ),
            Err(e) => {
                eprintln!("mcp-verdict: cannot read {label}: {e}");
                return ExitCode::from(exit::INPUT);
            }
        }
    };
    let summary = match result {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => return ExitCode::from(exit::OK),
        Err(e) => {
            let shown = if label == "-" { "stdin" } else { &label };
            eprintln!("mcp-verdict: {shown}: {e}");
            return ExitCode::from(exit::INPUT);
        }
    };
    if a.summary || std::io::stderr().is_terminal() {
        eprintln!("mcp-verdict: {}", summary.line());
    }
    ExitCode::from(if summary.failed() {
        exit::FINDINGS
    } else {
        exit::OK
    })
}
