//! `mcp-verdict serve`: command-line entry point.

use std::io::Write;
use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::serve::{
    DEFAULT_KEEP_RECORDS, DEFAULT_MAX_CONNECTIONS, DEFAULT_MAX_SESSIONS, ResponseMode, Scenario,
    ServeConfig, Transport, render_list, render_list_short, serve_stdio,
};
use crate::vocab::{Protocol, exit};

/// Run a fault-injecting MCP server (2025-11-25 and 2026-07-28 on one endpoint, or on
/// stdin/stdout with --stdio) for testing client error handling.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = format!("{}\n{}", SERVE_LIMITS, super::exit_help(&[
    (exit::OK, "--list printed the scenarios, or (--stdio) stdin ended; otherwise the server runs until interrupted"),
    (exit::FINDINGS, "the address could not be bound, or the log file not opened; (--stdio) a stdio_crash or stdio_partial_exit fault ended the server"),
    (exit::USAGE, "usage: bad arguments or an unknown scenario"),
])))]
pub(crate) struct ServeArgs {
    /// Scenario to inject, as `NAME` or `NAME:PARAMS` (see --list).
    #[arg(long, value_name = "NAME[:PARAMS]", default_value = "baseline")]
    pub scenario: Scenario,

    /// Print the scenario table (name, params, what is injected, layer,
    /// expected verdict per revision, transports) and exit.
    #[arg(long)]
    pub list: bool,

    /// With --list: one line per scenario (name, layer, transports, what it injects).
    #[arg(long, requires = "list")]
    pub short: bool,

    /// Speak stdio instead of HTTP: read JSON-RPC messages from stdin and write them on
    /// stdout, one per line, until stdin ends (give `mcp-verdict serve --stdio` to a client as
    /// its server command). stdout carries nothing else; the start-up line goes to stderr.
    #[arg(long)]
    pub stdio: bool,

    /// Address to bind. Keep the loopback default unless you know why: any other address
    /// (0.0.0.0 binds every interface) lets whoever reaches it call the server, and prints a
    /// warning on stderr.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: IpAddr,

    /// Port to bind; 0 picks a free port. The first stdout line is
    /// `listening on http://HOST:PORT/PATH`.
    #[arg(long, default_value_t = 0)]
    pub port: u16,

    /// Endpoint path.
    #[arg(long, default_value = "/mcp")]
    pub path: String,

    /// Framing of ordinary responses (scenarios that need SSE use it anyway).
    #[arg(long, value_enum, default_value_t = ResponseMode::Json)]
    pub response_mode: ResponseMode,

    /// Longest a stalled stream, or a wait for an elicitation answer, lasts (seconds).
    #[arg(long, value_name = "SECONDS", default_value_t = 30)]
    pub stall_cap: u64,

    /// Append one JSON line (a diagnostic record) per exchange to FILE.
    #[arg(long, value_name = "FILE")]
    pub log: Option<PathBuf>,

    /// Also accept this Origin (exact match; loopback origins are always accepted).
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allow_origin: Vec<String>,

    /// Do not print a summary line per exchange on stderr.
    #[arg(long)]
    pub quiet: bool,

    /// Most connections served at once; one more is answered 503 with Retry-After: 1 and
    /// closed.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_CONNECTIONS, value_parser = parse_positive)]
    pub max_connections: usize,

    /// Seconds a 2025-11-25 session may stay unused before it expires (a request naming it
    /// then gets 404).
    #[arg(long, value_name = "SECONDS", default_value_t = 600, value_parser = clap::value_parser!(u64).range(1..))]
    pub session_ttl: u64,

    /// Most 2025-11-25 sessions kept; past it the least recently used one is dropped.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_SESSIONS, value_parser = parse_positive)]
    pub max_sessions: usize,

    /// Log what the client and the server sent as it is: no redaction of credentials
    /// (Authorization, cookies, --header values, bearer tokens, keys, credential-named URL
    /// parameters) in any output, record or log.
    #[arg(long)]
    pub no_redact: bool,
}

fn parse_positive(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("`{s}` is not a whole number above 0")),
    }
}

const SERVE_LIMITS: &str = "Limits: at most --max-connections connections at once (default 256; \
one more gets 503 with Retry-After: 1); an idle keep-alive connection closes after 30 s; a \
request head over 64 KiB (65,536 bytes) or 96 header fields gets 431, a body over 4 MiB 413, \
differing Content-Length values 400, a chunked request body 411; after such an answer the server \
reads and discards up to 16 MiB (or 5 s) of what the client still sends, so that the client can \
read it. Sessions expire after --session-ttl unused (default 600 s) and at most --max-sessions \
are kept (default 1000). Memory stays bounded: the server keeps no per-exchange state beyond \
the last 1000 diagnostic records (--log writes every one).
";

/// Runs `serve` until the process is interrupted.
pub(crate) fn run(args: ServeArgs) -> ExitCode {
    super::set_redaction(args.no_redact, &[]);
    if args.list {
        if args.short {
            print!("{}", render_list_short());
        } else {
            print!("{}", render_list());
        }
        return ExitCode::SUCCESS;
    }
    if !args.path.starts_with('/') {
        eprintln!(
            "mcp-verdict serve: --path must start with '/' (got {:?})",
            args.path
        );
        return ExitCode::from(exit::USAGE);
    }
    let config = ServeConfig {
        host: args.host,
        port: args.port,
        path: args.path,
        scenario: args.scenario,
        response_mode: args.response_mode,
        stall_cap: Duration::from_secs(args.stall_cap),
        allowed_origins: args.allow_origin,
        log_path: args.log.clone(),
        echo_stderr: !args.quiet,
        max_connections: args.max_connections,
        session_ttl: Duration::from_secs(args.session_ttl),
        max_sessions: args.max_sessions,
        keep_records: DEFAULT_KEEP_RECORDS,
        ..ServeConfig::default()
    };
    let scenario = config.scenario.to_string();
    if args.stdio {
        return run_stdio(config, args.quiet, args.log.as_deref());
    }
    let handle = match crate::serve::start(config) {
        Ok(h) => h,
        Err(e) => {
            let log = args
                .log
                .as_ref()
                .map(|p| format!(" (or opening log file {})", p.display()))
                .unwrap_or_default();
            eprintln!(
                "mcp-verdict serve: binding {}:{}{log} failed: {e}",
                args.host, args.port
            );
            return ExitCode::from(exit::FINDINGS);
        }
    };
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "listening on {}", handle.url());
    let _ = out.flush();
    drop(out);
    if !args.host.is_loopback() {
        eprintln!(
            "mcp-verdict serve: warning: bound to {}, beyond loopback: anyone who can reach this \
address can call the server (which injects faults and keeps no secrets safe); use the default \
--host 127.0.0.1 unless you mean it",
            args.host
        );
    }
    eprintln!(
        "mcp-verdict serve: scenario {scenario}; serving {} and {} (Ctrl-C to stop)",
        Protocol::V2025_11_25.as_str(),
        Protocol::V2026_07_28.as_str()
    );
    loop {
        std::thread::park();
    }
}

/// `serve --stdio`: one client on stdin/stdout until stdin ends.
fn run_stdio(mut config: ServeConfig, quiet: bool, log: Option<&std::path::Path>) -> ExitCode {
    // stdout is the protocol's; the per-exchange lines would only add to stderr's logs.
    config.echo_stderr = false;
    if !config.scenario.offered_over(Transport::Stdio) {
        eprintln!(
            "mcp-verdict serve: scenario {} is offered over HTTP only; run it without --stdio (serve --list says which scenarios each transport offers)",
            config.scenario
        );
        return ExitCode::from(exit::USAGE);
    }
    if !quiet {
        eprintln!(
            "mcp-verdict serve: scenario {}; serving {} and {} on stdio (until stdin ends)",
            config.scenario,
            Protocol::V2025_11_25.as_str(),
            Protocol::V2026_07_28.as_str()
        );
    }
    match serve_stdio(
        config,
        std::io::stdin(),
        std::io::stdout(),
        std::io::stderr(),
    ) {
        Ok(served) => {
            if let Some(why) = served.stopped {
                eprintln!("mcp-verdict serve: {why}");
            }
            match served.exit_code {
                Some(code) => std::process::exit(code),
                None => ExitCode::SUCCESS,
            }
        }
        Err(e) => {
            let log = log
                .map(|p| format!(" (opening log file {})", p.display()))
                .unwrap_or_default();
            eprintln!("mcp-verdict serve: cannot serve on stdio{log}: {e}");
            ExitCode::from(exit::FINDINGS)
        }
    }
}
