//! The `mcp-verdict` command line. `main` only parses arguments and calls in here; the library
//! does the work.

mod accept;
mod auth_args;
mod check;
mod classify;
mod clients;
mod probe;
mod progress;
mod proxy;
mod rules_cmd;
mod serve;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};

use crate::config::{self, FailOn, Settings};
use crate::judge::Engine;
use crate::outputs::ColorChoice;
use crate::vocab::Protocol;

/// Judge MCP tools/call responses per protocol revision and cite the spec rule behind every
/// verdict.
#[derive(Debug, Parser)]
#[command(name = "mcp-verdict", version, about, long_about = None, after_help = exit_help(&[
    (exit::OK, "as expected (each command's --help says what that means for it)"),
    (exit::FINDINGS, "findings or failures (a verdict with an error finding, a failing check)"),
    (exit::USAGE, "usage: bad arguments, or a revision that cannot be told"),
    (exit::INPUT, "an input could not be read or is not valid"),
    (exit::NOTHING_JUDGED, "classify --har: nothing in the capture could be judged"),
]))]
pub struct Cli {
    /// When to colour the output: auto (when writing to a terminal, unless NO_COLOR is set;
    /// CLICOLOR_FORCE colours a pipe too), always, never.
    #[arg(long, global = true, value_enum, value_name = "WHEN", default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
    #[command(subcommand)]
    command: Command,
}

/// Settings every command shares.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Global {
    /// `--color`.
    pub color: ColorChoice,
}

/// An "Exit status" section for `--help`, from the codes of [`crate::vocab::exit`].
pub(crate) fn exit_help(lines: &[(u8, &str)]) -> String {
    let mut s = String::from("Exit status:\n");
    for (code, what) in lines {
        s.push_str(&format!("  {code}  {what}\n"));
    }
    s
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
    /// Relay a real MCP client's traffic to a real MCP server unchanged and judge every
    /// tools/call as its answer completes.
    Proxy(proxy::ProxyArgs),
    /// Run real MCP clients against serve's fault scenarios and compare what each concluded
    /// with the verdict on what it was sent (Markdown, HTML, JSON Lines).
    Clients(clients::ClientsArgs),
    /// Print a shell completion script (bash, zsh, fish, elvish, powershell) to stdout.
    #[command(after_help = "Examples:
  mcp-verdict completions bash > ~/.local/share/bash-completion/completions/mcp-verdict
  mcp-verdict completions zsh > \"${fpath[1]}/_mcp-verdict\"
  mcp-verdict completions fish > ~/.config/fish/completions/mcp-verdict.fish

Exit status:
  0  the script was written
  2  usage: an unknown shell")]
    Completions {
        /// The shell.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
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

/// Sets the redaction policy every output of the command follows ([`crate::views::redact`]):
/// none with `--no-redact`, else the default policy with each of `headers` (the ones given to
/// `probe --header`) secret whatever its name.
pub(crate) fn set_redaction(no_redact: bool, headers: &[(String, String)]) {
    use crate::views::redact::{self, Policy};
    if no_redact {
        redact::set(Policy::off());
        return;
    }
    let mut policy = Policy::new();
    for (name, value) in headers {
        policy.add_header(name, value);
    }
    redact::set(policy);
}

/// The settings flags `classify` and `check` share (docs/configuration.md); the same keys in
/// `mcp-verdict.toml` or `[tool.mcp-verdict]` of `pyproject.toml` set them too, and a flag wins.
#[derive(Debug, Args)]
#[command(next_help_heading = "Settings (also from mcp-verdict.toml or pyproject.toml)")]
pub(crate) struct SettingsArgs {
    /// Report findings of these rules only: rule ids, id prefixes (`transport.sse`) or `all`;
    /// comma-separated or repeated. Outcomes never change.
    #[arg(long, value_name = "RULES", value_delimiter = ',')]
    select: Option<Vec<String>>,
    /// Do not report findings of these rules (ids, id prefixes); comma-separated or repeated.
    #[arg(long, value_name = "RULES", value_delimiter = ',')]
    ignore: Vec<String>,
    /// Report a rule's findings with another severity: RULE=error|warning|info, RULE an id or
    /// an id prefix; comma-separated or repeated.
    #[arg(long, value_name = "RULE=LEVEL", value_delimiter = ',')]
    severity: Vec<String>,
    /// Findings of this severity or worse fail (exit 1) [default: error].
    #[arg(long, value_enum)]
    fail_on: Option<FailOn>,
    /// classify: these outcomes fail (exit 1) whatever the findings, e.g. DELIVERY_UNKNOWN (a
    /// stream that ended before its result); comma-separated or repeated.
    #[arg(long, value_name = "OUTCOMES", value_delimiter = ',')]
    fail_on_outcome: Vec<String>,
    /// List at most N findings of one rule per verdict; the rest are counted ("N more findings
    /// of RULE not shown"). 0 lists every finding. The cap changes no outcome or exit status
    /// [default: 100].
    #[arg(long, value_name = "N")]
    max_findings_per_rule: Option<usize>,
    /// Read the settings from FILE (an mcp-verdict.toml, or a pyproject.toml with a
    /// [tool.mcp-verdict] table) instead of the one found upward from the working directory.
    #[arg(long, value_name = "FILE", conflicts_with = "isolated")]
    config: Option<PathBuf>,
    /// Read no settings file: the flags and the defaults only.
    #[arg(long)]
    isolated: bool,
    /// Print the settings as resolved (as a settings file, with where each value came from)
    /// and exit.
    #[arg(long)]
    pub show_settings: bool,
}

/// What only one command gives to [`SettingsArgs::resolve`].
#[derive(Default)]
pub(crate) struct CommandSettings {
    pub protocol: Option<Vec<Protocol>>,
    pub strict: bool,
    pub root: Option<PathBuf>,
}

impl SettingsArgs {
    /// The settings from the file, these flags and `own`. `Err` is the exit status: after a
    /// settings error (printed), or after printing the settings for `--show-settings`.
    pub(crate) fn resolve(
        &self,
        own: CommandSettings,
        engine: &Engine,
    ) -> Result<Settings, ExitCode> {
        let flags = config::Flags {
            config: self.config.clone(),
            isolated: self.isolated,
            protocol: own.protocol,
            select: self.select.clone(),
            ignore: self.ignore.clone(),
            severity: self.severity.clone(),
            fail_on: self.fail_on,
            fail_on_outcome: self.fail_on_outcome.clone(),
            max_findings_per_rule: self.max_findings_per_rule,
            strict: own.strict,
            root: own.root,
        };
        let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
        let names: Vec<String> = crate::outputs::check::Format::value_variants()
            .iter()
            .filter_map(|f| f.to_possible_value())
            .map(|v| v.get_name().to_owned())
            .collect();
        let formats: Vec<&str> = names.iter().map(String::as_str).collect();
        match config::resolve(&flags, &cwd, engine.table(), &formats) {
            Ok(s) if self.show_settings => {
                write_stdout(&config::show::render(&s));
                Err(ExitCode::from(exit::OK))
            }
            Ok(s) => Ok(s),
            Err(e) => {
                eprintln!("mcp-verdict: {e}");
                Err(ExitCode::from(exit::USAGE))
            }
        }
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

/// The command line with the values its shells may complete: revisions, rule ids (and `all`)
/// and scenario names, from the vocabulary, the built-in rule table and the scenario table.
/// Only completion scripts see them; arguments are still checked by their own parsers.
fn with_completion_values(cmd: clap::Command) -> clap::Command {
    use clap::builder::PossibleValuesParser;
    let revisions: Vec<&'static str> = Protocol::all().map(|p| p.as_str()).collect();
    let with_all: Vec<&'static str> = revisions.iter().copied().chain(["all"]).collect();
    let rule_ids: Vec<&'static str> = Engine::builtin()
        .table()
        .rules()
        .iter()
        .map(|r| r.id.as_str())
        .collect();
    let rules_and_all: Vec<&'static str> = rule_ids.iter().copied().chain(["all"]).collect();
    let scenarios: Vec<&'static str> = crate::serve::SCENARIOS.iter().map(|s| s.name).collect();
    let set = |sub: clap::Command, arg: &str, values: &[&'static str]| {
        if sub.get_arguments().any(|a| a.get_id() == arg) {
            sub.mut_arg(arg, |a| {
                a.value_parser(PossibleValuesParser::new(values.iter().copied()))
            })
        } else {
            sub
        }
    };
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|s| s.get_name().to_owned())
        .collect();
    names.iter().fold(cmd, |cmd, name| {
        cmd.mut_subcommand(name, |sub| {
            let protocols = if name == "rules" {
                &revisions
            } else {
                &with_all
            };
            let sub = set(sub, "protocol", protocols);
            let sub = set(sub, "select", &rules_and_all);
            let sub = set(sub, "ignore", &rules_and_all);
            let sub = set(sub, "scenario", &scenarios);
            if name == "rules" {
                set(sub, "id", &rule_ids)
            } else {
                sub
            }
        })
    })
}

/// Runs the command line.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let g = Global { color: cli.color };
    match cli.command {
        Command::Classify(a) => classify::run(a, g),
        Command::Rules(a) => rules_cmd::run(a, g),
        Command::Serve(a) => serve::run(a),
        Command::Check(a) => check::run(a, g),
        Command::Probe(a) => probe::run(a, g),
        Command::Clients(a) => clients::run(a),
        Command::Proxy(a) => proxy::run(a, g),
        Command::Completions { shell } => {
            let mut out = Vec::new();
            let mut cmd = with_completion_values(Cli::command());
            clap_complete::generate(shell, &mut cmd, "mcp-verdict", &mut out);
            write_stdout(&String::from_utf8_lossy(&out));
            ExitCode::from(exit::OK)
        }
    }
}
