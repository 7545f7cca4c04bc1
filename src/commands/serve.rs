//! `mcp-verdict serve`: command-line entry point.

use std::io::Write;
use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::serve::{ResponseMode, Scenario, ServeConfig, render_list};
use crate::vocab::{Protocol, exit};

/// Run a fault-injecting MCP Streamable HTTP server (2025-11-25 and 2026-07-28
/// on one endpoint) for testing client error handling.
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = super::exit_help(&[
    (exit::OK, "--list printed the scenarios (otherwise the server runs until interrupted)"),
    (exit::FINDINGS, "the address could not be bound, or the log file not opened"),
    (exit::USAGE, "usage: bad arguments or an unknown scenario"),
]))]
pub(crate) struct ServeArgs {
    /// Scenario to inject, as `NAME` or `NAME:PARAMS` (see --list).
    #[arg(long, value_name = "NAME[:PARAMS]", default_value = "baseline")]
    pub scenario: Scenario,

    /// Print the scenario table (name, params, what is injected, layer,
    /// expected verdict per revision) and exit.
    #[arg(long)]
    pub list: bool,

    /// Address to bind. Keep the loopback default unless you know why.
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
}

/// Runs `serve` until the process is interrupted.
pub(crate) fn run(args: ServeArgs) -> ExitCode {
    if args.list {
        print!("{}", render_list());
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
        ..ServeConfig::default()
    };
    let scenario = config.scenario.to_string();
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
    eprintln!(
        "mcp-verdict serve: scenario {scenario}; serving {} and {} (Ctrl-C to stop)",
        Protocol::V2025_11_25.as_str(),
        Protocol::V2026_07_28.as_str()
    );
    loop {
        std::thread::park();
    }
}
