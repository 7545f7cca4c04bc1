//! `mcp-verdict proxy`: command-line entry point.

use std::io::Write;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use super::Global;
use crate::outputs::{ColorChoice, Style};
use crate::proxy::stdio::StdioConfig;
use crate::proxy::{self, DEFAULT_MAX_COPY, ProxyConfig};
use crate::vocab::exit;

/// Put mcp-verdict between a real MCP client and a real MCP server: the traffic is relayed
/// unchanged and every tools/call (and initialize, server/discover, tools/list) is judged as
/// its answer completes.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = format!("{}\n{}", PROXY_NOTES, super::exit_help(&[
    (exit::OK, "stopped (Ctrl-C or SIGTERM) with no error finding in what was judged"),
    (exit::FINDINGS, "stopped, and an exchange had an error finding"),
    (exit::USAGE, "usage: bad arguments, an upstream URL that cannot be read, or an address that cannot be bound"),
    (exit::INPUT, "the log or the record folder could not be created"),
])))]
pub(crate) struct ProxyArgs {
    /// The MCP endpoint to relay to, http:// or https:// (the HTTP form).
    #[arg(
        long,
        value_name = "URL",
        required_unless_present = "command",
        conflicts_with = "command"
    )]
    pub upstream: Option<String>,

    /// The stdio form: the server command and its arguments, after `--`. The proxy launches
    /// it and relays stdin, stdout and stderr; a client runs `mcp-verdict proxy -- COMMAND
    /// ARGS...` as its server command.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,

    /// Address to listen on (loopback by default; port 0 picks a free one). The first stdout
    /// line is `listening on http://ADDR/PATH`, PATH being the upstream's.
    #[arg(
        long,
        value_name = "ADDR",
        default_value = "127.0.0.1:0",
        conflicts_with = "command"
    )]
    pub listen: SocketAddr,

    /// Also trust the PEM certificates in FILE for an https upstream (a private CA).
    #[arg(long, value_name = "FILE", conflicts_with = "command")]
    pub ca_file: Option<PathBuf>,

    /// Write one JSON line per judged exchange to FILE: the `classify --jsonl` record (its
    /// `line` is the exchange's number), or {"line": N, "error": ...} for one not judged.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,

    /// Write each judged exchange as an exchange file into DIR (NNNN-REVISION-METHOD.json),
    /// which `classify` and `check` judge again.
    #[arg(long, value_name = "DIR")]
    pub record: Option<PathBuf>,

    /// Copy at most this many bytes of one body for judging; a longer answer is relayed in
    /// full and judged on its first BYTES, its verdict saying so.
    #[arg(long, value_name = "BYTES", default_value_t = DEFAULT_MAX_COPY, value_parser = parse_positive)]
    pub max_copy: usize,

    /// Serve a live page listing the exchanges as they are judged (newest first, filter by
    /// outcome and tool, each opening its verdict with the cited sentence), on ADDR
    /// (default: loopback, a free port). Its URL is the second stdout line, `live page on URL`.
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = "127.0.0.1:0")]
    pub ui: Option<SocketAddr>,

    /// No line per exchange on stderr (the summary is still printed on exit).
    #[arg(long)]
    pub quiet: bool,

    /// Show and record what went through as it is: no redaction of credentials
    /// (Authorization, cookies, bearer tokens, keys, credential-named URL parameters) in any
    /// line, log or record.
    #[arg(long)]
    pub no_redact: bool,
}

fn parse_positive(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("`{s}` is not a whole number above 0")),
    }
}

const PROXY_NOTES: &str = "The relay: every request is forwarded as it came, on an upstream \
connection of its own client connection, with Host set to the upstream's; answers are written \
back as they arrive (an SSE event when it is read, chunk framing as it was). Nothing is added, \
retried or dropped; judging reads a copy on another thread and never holds the relay back. Each \
judged exchange prints one line on stderr: number, method and tool, outcome, revision, deciding \
rule, latency, error findings. The summary (calls per outcome, per tool, error findings by rule, \
what was not judged) is printed on stderr when the proxy stops.

The stdio form, `proxy [OPTIONS] -- COMMAND ARGS...`, is what a client launches as its server \
command: the proxy launches COMMAND and relays stdin, stdout and stderr as they come, writes \
nothing of its own on stdout, and puts its lines on stderr between the server's lines. It ends \
when the server does and exits with the server's status (128 + the signal's number for a \
signal), not with the codes below; a SIGTERM or SIGINT is passed on to the server. --record \
writes transcript.jsonl (for classify --transcript) beside the exchange files; the live page's \
URL is printed on stderr.

Examples:
  mcp-verdict proxy --upstream http://127.0.0.1:3000/mcp --listen 127.0.0.1:8808 \\
      --log calls.jsonl --record recorded/
  (point the client at http://127.0.0.1:8808/mcp)
  mcp-verdict proxy --log calls.jsonl -- npx -y @modelcontextprotocol/server-everything
";

/// Runs the proxy until SIGINT or SIGTERM.
pub(crate) fn run(args: ProxyArgs, g: Global) -> ExitCode {
    super::set_redaction(args.no_redact, &[]);
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        if let Err(e) = signal_hook::flag::register(signal, stop.clone()) {
            eprintln!("mcp-verdict proxy: cannot handle signal {signal}: {e}");
            return ExitCode::from(exit::USAGE);
        }
    }
    let Some(upstream) = args.upstream.clone() else {
        return run_stdio(args, g, stop);
    };
    let config = ProxyConfig {
        upstream: upstream.clone(),
        listen: args.listen,
        ca_file: args.ca_file.clone(),
        max_copy: args.max_copy,
        log: args.log.clone(),
        record: args.record.clone(),
        echo_stderr: !args.quiet,
        style: stderr_style(g.color),
        ui: args.ui,
    };
    let handle = match proxy::start(config) {
        Ok(h) => h,
        Err(e @ proxy::ProxyError::Output { .. }) => {
            eprintln!("mcp-verdict proxy: {e}");
            return ExitCode::from(exit::INPUT);
        }
        Err(e) => {
            eprintln!("mcp-verdict proxy: {e}");
            return ExitCode::from(exit::USAGE);
        }
    };
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "listening on {}", handle.url());
    if let Some(ui) = handle.ui_url() {
        let _ = writeln!(out, "live page on {ui}");
    }
    let _ = out.flush();
    drop(out);
    if !args.listen.ip().is_loopback() {
        eprintln!(
            "mcp-verdict proxy: warning: listening on {}, beyond loopback: anyone who can reach it can use the upstream through the proxy",
            args.listen
        );
    }
    eprintln!(
        "mcp-verdict proxy: relaying {} to {} (Ctrl-C to stop)",
        handle.url(),
        crate::views::diag::sanitize(&upstream)
    );
    while !stop.load(Ordering::SeqCst) {
        std::thread::sleep(Duration::from_millis(50));
    }
    let summary = handle.stop();
    eprint!("{}", summary.render());
    ExitCode::from(if summary.has_errors() {
        exit::FINDINGS
    } else {
        exit::OK
    })
}

/// The stdio form: runs until the server ends; exits with the server's status.
fn run_stdio(args: ProxyArgs, g: Global, stop: Arc<AtomicBool>) -> ExitCode {
    let config = StdioConfig {
        command: args.command,
        max_copy: args.max_copy,
        log: args.log,
        record: args.record,
        echo_stderr: !args.quiet,
        style: stderr_style(g.color),
        ui: args.ui,
    };
    match proxy::stdio::run(config, stop) {
        Ok(run) => ExitCode::from(run.exit_code()),
        Err(e @ proxy::ProxyError::Output { .. }) => {
            eprintln!("mcp-verdict proxy: {e}");
            ExitCode::from(exit::INPUT)
        }
        Err(e) => {
            eprintln!("mcp-verdict proxy: {e}");
            ExitCode::from(exit::USAGE)
        }
    }
}

fn stderr_style(choice: ColorChoice) -> Style {
    use std::io::IsTerminal;
    Style {
        color: choice.colors(std::io::stderr().is_terminal()),
    }
}
