//! The `mcp-verdict` command line. `main` only parses arguments and calls in here; the library
//! does the work.

mod check;
mod classify;
mod probe;
mod rules_cmd;
mod serve;

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use crate::judge::Engine;
use crate::vocab::Protocol;

/// Judge MCP tools/call responses per protocol revision and cite the spec rule behind every
/// verdict.
#[derive(Debug, Parser)]
#[command(name = "mcp-verdict", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Judge recorded exchanges: one exchange file (or `-` for stdin), every tools/call in a HAR
    /// capture (`--har`), or a stream of exchanges one per line (`--jsonl`).
    Classify(classify::ClassifyArgs),
    /// List the rule table, or explain one rule with its citation.
    Rules(rules_cmd::RulesArgs),
    /// Run an MCP server on loopback that injects one fault scenario at a time.
    Serve(serve::ServeArgs),
    /// Judge exchange files against their expectations and report for CI (text, json, ndjson,
    /// markdown, junit, sarif, html).
    Check(check::CheckArgs),
    /// Probe a live MCP server under each revision and judge every tools/call exchange.
    Probe(probe::ProbeArgs),
}

pub(crate) use crate::vocab::exit;

/// Which revisions to judge under, as given on the command line.
#[derive(Debug, Clone)]
pub(crate) enum ProtocolArg {
    All,
    One(Protocol),
}

pub(crate) fn parse_protocol(s: &str) -> Result<ProtocolArg, String> {
    if s.eq_ignore_ascii_case("all") {
        return Ok(ProtocolArg::All);
    }
    Protocol::parse(s)
        .map(ProtocolArg::One)
        .ok_or_else(|| format!("unknown revision `{s}`; use {} or all", Protocol::names()))
}

pub(crate) fn protocols_of(arg: &Option<ProtocolArg>) -> Option<Vec<Protocol>> {
    match arg {
        None => None,
        Some(ProtocolArg::All) => Some(Protocol::all().collect()),
        Some(ProtocolArg::One(p)) => Some(vec![*p]),
    }
}

/// Output format of `classify` and `rules`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// For people.
    Text,
    /// Machine-readable JSON.
    Json,
}

pub(crate) fn load_engine(dir: &Option<std::path::PathBuf>) -> Result<&'static Engine, ExitCode> {
    match dir {
        None => Ok(Engine::builtin()),
        Some(d) => match Engine::from_dir(d) {
            Ok(t) => Ok(Box::leak(Box::new(t))),
            Err(e) => {
                eprintln!("mcp-verdict: cannot load the rule table: {e}");
                Err(ExitCode::from(exit::USAGE))
            }
        },
    }
}

/// Writes to stdout; a reader that closed the pipe early (e.g. `| head`) is not an error.
pub(crate) fn write_stdout(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush())
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        eprintln!("mcp-verdict: cannot write output: {e}");
    }
}

/// Runs the command line.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Classify(a) => classify::run(a),
        Command::Rules(a) => rules_cmd::run(a),
        Command::Serve(a) => serve::run(a),
        Command::Check(a) => check::run(a),
        Command::Probe(a) => probe::run(a),
    }
}
