//! `mcp-verdict probe`: command-line entry point.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{Arg, ArgAction, ArgMatches, Args, FromArgMatches};
use serde_json::{Map, Value};

use super::auth_args::AuthArgs;
use super::{Format, ProtocolArg, parse_protocol};
use crate::outputs::Style;
use crate::outputs::probe::render_text_with;
use crate::probe::{self, CallSpec, Limits, ProbeConfig, ProbeError, StdioCommand, Timeouts};
use crate::views::redact;
use crate::vocab::{Protocol, exit};

/// Probe a live MCP server, over Streamable HTTP (`probe URL`) or stdio (`probe -- COMMAND
/// ARGS...`), under each protocol revision: set up (`server/discover` or `initialize`), list
/// its tools, call tools, and judge every `tools/call` exchange as received.
#[derive(Debug, Clone, Args)]
#[command(after_help = probe_help())]
pub struct ProbeArgs {
    /// The MCP endpoint URL (http://, or https:// in builds with the `tls` feature). Leave it
    /// out to probe a stdio server given after `--`.
    #[arg(value_name = "URL", required_unless_present = "command")]
    pub url: Option<String>,

    /// The stdio server to launch, after `--`: its program and arguments (run without a
    /// shell unless --shell), started afresh for each revision and shut down at the end of
    /// it (stdin closed, then SIGTERM, then SIGKILL).
    #[arg(last = true, value_name = "COMMAND", conflicts_with = "url")]
    pub command: Vec<String>,

    /// Run the stdio server command through `sh -c` (its words joined by spaces).
    #[arg(long, requires = "command")]
    pub shell: bool,

    /// Set an environment variable for the stdio server, `KEY=VALUE` (repeatable).
    #[arg(long = "env", value_name = "KEY=VALUE", value_parser = parse_env, requires = "command")]
    pub env: Vec<(String, String)>,

    /// The stdio server's working directory.
    #[arg(long, value_name = "DIR", requires = "command")]
    pub cwd: Option<PathBuf>,

    /// Show what the stdio server wrote on stderr (it is always recorded, and in --format
    /// json).
    #[arg(long, requires = "command")]
    pub show_stderr: bool,

    /// Revision(s) to probe under: 2025-11-25, 2026-07-28 or all.
    #[arg(long, value_parser = parse_protocol, default_value = "all")]
    protocol: ProtocolArg,

    /// Tool calls: `--tool NAME [--args JSON]`, repeatable.
    #[command(flatten)]
    pub calls: CallArgs,

    /// Do not make the calls that need no fixture tools (unknown tool, invalid arguments).
    #[arg(long)]
    pub no_auto_calls: bool,

    /// Let the invalid-arguments calls target tools not marked readOnlyHint: true.
    #[arg(long)]
    pub allow_side_effects: bool,

    /// Also send requests that exercise the server's error paths (an unsupported protocol
    /// version, headers that contradict the body, missing _meta, a removed method, a missing
    /// or ended session, an altered requestState), judge each answer against the rule that
    /// says how the server must reject it, and report each check as passed, with findings, not
    /// judged or skipped. Tool calls among them target read-only tools only
    /// (--allow-side-effects: also tools marked destructiveHint: false).
    #[arg(long)]
    pub active: bool,

    /// JSON object answering server input requests: input-request key or method (e.g.
    /// `elicitation/create`) to the response object (e.g. an ElicitResult). Also decides
    /// the client capabilities declared.
    #[arg(long, value_name = "FILE")]
    pub answers: Option<PathBuf>,

    /// Most tools/call requests sent for one call, input-required follow-ups included.
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub max_rounds: u32,

    /// Extra header sent on every request, `Name: value` (repeatable). Its value is redacted
    /// in records, logs and output, whatever the header's name (see --no-redact).
    #[arg(long = "header", short = 'H', value_name = "NAME: VALUE", value_parser = parse_header)]
    pub headers: Vec<(String, String)>,

    /// Seconds to wait for a connection.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0, value_parser = parse_secs)]
    pub connect_timeout: f64,

    /// Seconds of silence tolerated while waiting for a response head or the next bytes of
    /// a body (per SSE event, per read); a stalled stream ends as `end: timeout`.
    #[arg(long, value_name = "SECONDS", default_value_t = 30.0, value_parser = parse_secs)]
    pub idle_timeout: f64,

    /// Seconds one request may take in total, its body included.
    #[arg(long, value_name = "SECONDS", default_value_t = 120.0, value_parser = parse_secs)]
    pub timeout: f64,

    /// Seconds the whole probe may take, every revision and request included; requests due
    /// after it are not sent (each such call counts as a call without a response).
    #[arg(long, value_name = "SECONDS", default_value_t = 300.0, value_parser = parse_secs)]
    pub deadline: f64,

    /// Most body bytes read from one response (default 32 MiB); a body cut there is labelled
    /// `cut at the size cap`.
    #[arg(long, value_name = "BYTES", default_value_t = probe::DEFAULT_MAX_BODY, value_parser = parse_count)]
    pub max_body: usize,

    /// Most SSE events read from one response; a stream cut there is labelled `cut at the
    /// event cap`.
    #[arg(long, value_name = "N", default_value_t = probe::DEFAULT_MAX_EVENTS, value_parser = parse_count)]
    pub max_events: usize,

    /// Write each tools/call exchange, each --active check's, then each discovery exchange of
    /// the setup (initialize, server/discover, tools/list: setup-*.json), as an exchange file
    /// into DIR
    /// (re-judge with classify).
    #[arg(long, value_name = "DIR")]
    pub record: Option<PathBuf>,

    /// Append one diagnostic record (JSON line) per tools/call exchange to FILE.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,

    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,

    /// Show and record what the server sent as it is: no redaction of credentials
    /// (Authorization, cookies, --header values, bearer tokens, keys, credential-named URL
    /// parameters) in any output, record or log.
    #[arg(long)]
    pub no_redact: bool,

    /// How to authorize with a protected server.
    #[command(flatten)]
    pub auth: AuthArgs,
}

fn probe_help() -> String {
    format!(
        "Besides the tools named with --tool, the probe calls an unknown tool name and, for each \
tool marked readOnlyHint: true, sends arguments that break its inputSchema (--no-auto-calls: \
don't). It never replays a call on its own.

With --active it also provokes the server's error paths, one request per check, each with one \
thing wrong: under 2026-07-28 an unsupported protocol version, a header version contradicting \
_meta, _meta without clientCapabilities, initialize, Mcp-Method, Mcp-Name and Mcp-Param-* \
headers contradicting the body, and, for a call that got input_required, its retry with the \
requestState altered or with inputResponses answering none of the inputRequests; under \
2025-11-25 an MCP-Protocol-Version no revision has, a request without the session id, and one \
in the session the server ended when it answered the DELETE. Each answer is recorded, judged \
and compared with the status and code its rule names; each check is reported as passed (with \
the rule), with findings, not judged (an answer the spec leaves open) or skipped (with why). \
Checks that would run a tool if the server wrongly accepted them use read-only tools only \
(--allow-side-effects: also destructiveHint: false).

As a client: under 2025-11-25 it opens the standalone GET stream after initialize (a 405 \
answer is fine) and answers server requests there and on response streams (ping; others from \
--answers, an accepted form keeping the schema's defaults for fields left out; -32601 for a \
method without an answer, -32602 for an elicitation mode not declared); a response stream \
closed before the response after an event id is resumed with GET and Last-Event-ID once the \
stream's retry has passed. Under 2026-07-28 a request rejected as UnsupportedProtocolVersion \
is sent once more when the server lists 2026-07-28; a server listing only the other revision \
gets a run under it.

Bounds: each request has --connect-timeout, --idle-timeout and --timeout; each response is read \
up to --max-body bytes and --max-events SSE events; the whole probe ends by --deadline (default \
300 s), so its worst case is that long whatever the server does. A call whose response did not \
complete is labelled with what happened: cut at the size cap, cut at the event cap, closed \
mid-body, stalled, timed out, cut at the probe's deadline, a stream that ended without the \
response, redirected (never followed), or not sent (the deadline had passed).

{}
Examples:
  mcp-verdict probe -- npx -y @modelcontextprotocol/server-everything
  mcp-verdict probe --env ROOT=/tmp -- ./my-server --stdio
  mcp-verdict probe http://127.0.0.1:3000/mcp
  mcp-verdict probe http://127.0.0.1:3000/mcp --protocol 2026-07-28 \\
      --tool echo --args '{{\"text\":\"hi\"}}' --no-auto-calls
  mcp-verdict probe http://127.0.0.1:3000/mcp -H \"Authorization: Bearer $TOKEN\" \\
      --record out/ --log probe.jsonl --format json",
        super::exit_help(&[
            (exit::OK, "every judged verdict is free of error findings"),
            (
                exit::FINDINGS,
                "an error finding (of a call or an --active check), a call without a complete response (cut, closed, stalled, \
timed out, redirected, or not sent by the deadline), a failed setup, or nothing probed",
            ),
            (
                exit::USAGE,
                "usage: bad arguments, an unreadable --answers file"
            ),
            (exit::INPUT, "the server is unreachable"),
        ])
    )
}

/// `--tool NAME` and `--args JSON` pairs, in command-line order; `--args` applies to the
/// `--tool` before it.
#[derive(Debug, Clone, Default)]
pub struct CallArgs {
    /// The calls.
    pub calls: Vec<CallSpec>,
    /// Problems pairing them (an `--args` before any `--tool`, two `--args` for one tool,
    /// an `--args` that is not a JSON object).
    pub errors: Vec<String>,
}

impl FromArgMatches for CallArgs {
    fn from_arg_matches(m: &ArgMatches) -> Result<Self, clap::Error> {
        let mut out = CallArgs::default();
        out.update_from_arg_matches(m)?;
        Ok(out)
    }

    fn update_from_arg_matches(&mut self, m: &ArgMatches) -> Result<(), clap::Error> {
        let tools: Vec<(usize, String)> = match (m.indices_of("tool"), m.get_many::<String>("tool"))
        {
            (Some(i), Some(v)) => i.zip(v.cloned()).collect(),
            _ => Vec::new(),
        };
        let args: Vec<(usize, String)> = match (m.indices_of("args"), m.get_many::<String>("args"))
        {
            (Some(i), Some(v)) => i.zip(v.cloned()).collect(),
            _ => Vec::new(),
        };
        self.calls = tools
            .iter()
            .map(|(_, n)| CallSpec {
                name: n.clone(),
                arguments: None,
            })
            .collect();
        for (at, text) in args {
            let Some(k) = tools.iter().rposition(|(i, _)| *i < at) else {
                self.errors.push(format!(
                    "--args {text} comes before any --tool; put it after the --tool it belongs to"
                ));
                continue;
            };
            let call = &mut self.calls[k];
            if call.arguments.is_some() {
                self.errors.push(format!(
                    "--tool {} has two --args; give one JSON object",
                    call.name
                ));
                continue;
            }
            match serde_json::from_str::<Value>(&text) {
                Ok(v @ Value::Object(_)) => call.arguments = Some(v),
                Ok(_) => self.errors.push(format!(
                    "--args for --tool {} must be a JSON object, got {text}",
                    call.name
                )),
                Err(e) => self.errors.push(format!(
                    "--args for --tool {} is not valid JSON ({e}): {text}",
                    call.name
                )),
            }
        }
        Ok(())
    }
}

impl Args for CallArgs {
    fn augment_args(cmd: clap::Command) -> clap::Command {
        cmd.arg(
            Arg::new("tool")
                .long("tool")
                .value_name("NAME")
                .action(ArgAction::Append)
                .help("Call this tool (repeatable; each call in order)"),
        )
        .arg(
            Arg::new("args")
                .long("args")
                .value_name("JSON")
                .action(ArgAction::Append)
                .help("Arguments (a JSON object) for the --tool before it; default {}"),
        )
    }

    fn augment_args_for_update(cmd: clap::Command) -> clap::Command {
        Self::augment_args(cmd)
    }
}

fn parse_header(s: &str) -> Result<(String, String), String> {
    let (name, value) = s
        .split_once(':')
        .ok_or_else(|| "expected `Name: value`".to_string())?;
    let name = name.trim();
    if name.is_empty()
        || !name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
    {
        return Err(format!("`{name}` is not a valid header name"));
    }
    Ok((name.to_string(), value.trim().to_string()))
}

fn parse_count(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("`{s}` is not a whole number above 0")),
    }
}

fn parse_secs(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a number of seconds"))?;
    if !(v.is_finite() && v > 0.0 && v <= 86_400.0) {
        return Err(format!("{v} is outside (0, 86400] seconds"));
    }
    Ok(v)
}

fn parse_env(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.is_empty() => Ok((k.to_string(), v.to_string())),
        _ => Err(format!("`{s}` is not KEY=VALUE")),
    }
}

impl ProbeArgs {
    /// The probe configuration these arguments describe (reads `--answers`).
    pub fn to_config(&self) -> Result<ProbeConfig, String> {
        if let Some(e) = self.calls.errors.first() {
            return Err(e.clone());
        }
        let answers = match &self.answers {
            None => Map::new(),
            Some(path) => {
                let bytes = std::fs::read(path)
                    .map_err(|e| format!("cannot read --answers {}: {e}", path.display()))?;
                match serde_json::from_slice::<Value>(&bytes) {
                    Ok(Value::Object(m)) => m,
                    Ok(_) => {
                        return Err(format!(
                            "--answers {}: expected a JSON object (input-request key or method → response object)",
                            path.display()
                        ));
                    }
                    Err(e) => {
                        return Err(format!("--answers {}: not valid JSON: {e}", path.display()));
                    }
                }
            }
        };
        let protocols = match self.protocol {
            ProtocolArg::All => Protocol::all().collect(),
            ProtocolArg::One(p) => vec![p],
        };
        let mut config = match &self.url {
            Some(url) => ProbeConfig::new(url.clone()),
            None => ProbeConfig::stdio(StdioCommand {
                command: self.command.clone(),
                shell: self.shell,
                env: self.env.clone(),
                cwd: self.cwd.clone(),
                ..StdioCommand::new(Vec::new())
            }),
        };
        config.protocols = protocols;
        config.calls = self.calls.calls.clone();
        config.auto_calls = !self.no_auto_calls;
        config.allow_side_effects = self.allow_side_effects;
        config.active = self.active;
        config.answers = answers;
        config.max_rounds = self.max_rounds;
        config.headers = self.headers.clone();
        config.auth = self
            .auth
            .to_config(Duration::from_secs_f64(self.deadline))?;
        config.timeouts = Timeouts {
            connect: Duration::from_secs_f64(self.connect_timeout),
            idle: Duration::from_secs_f64(self.idle_timeout),
            total: Duration::from_secs_f64(self.timeout),
        };
        config.limits = Limits {
            deadline: Duration::from_secs_f64(self.deadline),
            body_bytes: self.max_body,
            events: self.max_events,
        };
        Ok(config)
    }
}

/// Runs `probe`.
pub(crate) fn run(args: ProbeArgs, g: super::Global) -> ExitCode {
    super::set_redaction(args.no_redact, &args.headers);
    let config = match args.to_config() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("mcp-verdict probe: {e}");
            return ExitCode::from(exit::USAGE);
        }
    };
    let report = match probe::run(&config) {
        Ok(r) => r,
        Err(e @ ProbeError::Config(_)) => {
            eprintln!("mcp-verdict probe: {e}");
            return ExitCode::from(exit::USAGE);
        }
        Err(e @ ProbeError::Unreachable { .. }) => {
            eprintln!("mcp-verdict probe: {}", redact::text(&e.to_string()));
            return ExitCode::from(exit::INPUT);
        }
    };
    if let Some(dir) = &args.record {
        match report.write_records(dir) {
            Ok(paths) => eprintln!(
                "mcp-verdict probe: wrote {} exchange file(s) to {}",
                paths.len(),
                dir.display()
            ),
            Err(e) => eprintln!(
                "mcp-verdict probe: cannot write exchange files to {}: {e}",
                dir.display()
            ),
        }
    }
    if let Some(log) = &args.log
        && let Err(e) = report.append_log(log)
    {
        eprintln!("mcp-verdict probe: cannot append to {}: {e}", log.display());
    }
    match args.format {
        Format::Text => super::write_stdout(&render_text_with(
            &report,
            Style::stdout(g.color),
            args.show_stderr,
        )),
        Format::Json => super::write_stdout(
            &(crate::outputs::safe::json(
                serde_json::to_string_pretty(&report.to_output()).expect("report serializes"),
            ) + "\n"),
        ),
    }
    ExitCode::from(report.exit_code())
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser)]
    struct Wrap {
        #[command(flatten)]
        probe: ProbeArgs,
    }

    fn parse(args: &[&str]) -> ProbeArgs {
        let mut v = vec!["probe"];
        v.extend_from_slice(args);
        Wrap::try_parse_from(v).expect("parses").probe
    }

    #[test]
    fn args_pair_with_the_preceding_tool() {
        let a = parse(&[
            "http://x/mcp",
            "--tool",
            "echo",
            "--args",
            r#"{"text":"hi"}"#,
            "--tool",
            "count",
            "--tool",
            "add",
            "--args",
            r#"{"a":1,"b":2}"#,
        ]);
        let c = a.to_config().unwrap();
        let got: Vec<(String, Option<Value>)> = c
            .calls
            .iter()
            .map(|c| (c.name.clone(), c.arguments.clone()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("echo".into(), Some(serde_json::json!({"text": "hi"}))),
                ("count".into(), None),
                ("add".into(), Some(serde_json::json!({"a": 1, "b": 2}))),
            ]
        );
        assert_eq!(c.protocols.len(), 2);
    }

    #[test]
    fn pairing_errors_are_reported() {
        let a = parse(&["http://x/mcp", "--args", "{}", "--tool", "echo"]);
        assert!(a.to_config().unwrap_err().contains("before any --tool"));
        let a = parse(&["http://x/mcp", "--tool", "echo", "--args", "[1]"]);
        assert!(a.to_config().unwrap_err().contains("JSON object"));
        let a = parse(&[
            "http://x/mcp",
            "--tool",
            "e",
            "--args",
            "{}",
            "--args",
            "{}",
        ]);
        assert!(a.to_config().unwrap_err().contains("two --args"));
    }

    #[test]
    fn headers_and_timeouts_parse() {
        let a = parse(&[
            "http://x/mcp",
            "-H",
            "Authorization: Bearer abc",
            "--idle-timeout",
            "0.5",
            "--protocol",
            "2026-07-28",
        ]);
        let c = a.to_config().unwrap();
        assert_eq!(
            c.headers,
            vec![("Authorization".into(), "Bearer abc".into())]
        );
        assert_eq!(c.timeouts.idle, Duration::from_millis(500));
        assert_eq!(c.limits, Limits::default());
        let d = parse(&[
            "http://x/mcp",
            "--deadline",
            "2.5",
            "--max-body",
            "1024",
            "--max-events",
            "7",
        ])
        .to_config()
        .unwrap();
        assert_eq!(d.limits.deadline, Duration::from_millis(2500));
        assert_eq!((d.limits.body_bytes, d.limits.events), (1024, 7));
        assert!(parse_count("0").is_err() && parse_count("x").is_err());
        assert_eq!(c.protocols, vec![Protocol::V2026_07_28]);
        assert!(parse_header("no colon").is_err());
        assert!(parse_secs("0").is_err());
    }
}
