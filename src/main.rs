// Temporary entry point wired by the `serve` branch for manual runs; the lead
// owns this file and mounts `serve` in the real command tree.
use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(name = "mcp-verdict", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run a fault-injecting MCP test server.
    Serve(mcp_verdict::serve::cli::ServeArgs),
}

fn main() -> ExitCode {
    match Cli::parse().command {
        Command::Serve(args) => mcp_verdict::serve::cli::run(args),
    }
}
