//! `mcp-verdict classify`.

use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use super::{Format, ProtocolArg, exit, load_table, parse_protocol, protocols_of};
use crate::engine::{Options, judge};
use crate::exchange::ExchangeFile;
use crate::model::Severity;
use crate::render::{self, Style};

#[derive(Debug, Args)]
pub(crate) struct ClassifyArgs {
    /// The exchange file to judge (JSON, see the README); `-` reads stdin.
    #[arg(value_name = "FILE")]
    file: PathBuf,
    /// Revision(s) to judge under: 2025-11-25, 2026-07-28 or all. Default: the one the recorded
    /// request declares (MCP-Protocol-Version header or _meta protocolVersion).
    #[arg(long, value_parser = parse_protocol)]
    protocol: Option<ProtocolArg>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Load the rule table from this directory instead of the built-in one.
    #[arg(long, value_name = "DIR")]
    rules: Option<PathBuf>,
}

pub(crate) fn run(a: ClassifyArgs) -> ExitCode {
    let table = match load_table(&a.rules) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let label = a.file.display().to_string();
    let bytes = if label == "-" {
        let mut buf = Vec::new();
        if let Err(e) = std::io::stdin().read_to_end(&mut buf) {
            eprintln!("mcp-verdict: cannot read stdin: {e}");
            return ExitCode::from(exit::INPUT);
        }
        buf
    } else {
        match std::fs::read(&a.file) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("mcp-verdict: cannot read {label}: {e}");
                return ExitCode::from(exit::INPUT);
            }
        }
    };
    let file = match ExchangeFile::from_slice(&bytes).and_then(|f| f.to_exchange().map(|x| (f, x)))
    {
        Ok(fx) => fx,
        Err(e) => {
            eprintln!("mcp-verdict: {label}: not a valid exchange file: {e}");
            return ExitCode::from(exit::INPUT);
        }
    };
    let (_, ex) = file;
    let protocols = protocols_of(&a.protocol);
    let options = Options {
        protocols: protocols.as_deref(),
        table,
    };
    let judgement = match judge(&ex, &options) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("mcp-verdict: {label}: {e}");
            return ExitCode::from(exit::USAGE);
        }
    };
    match a.format {
        Format::Text => print!(
            "{}",
            render::judgement(&judgement, &label, Style::detect_stdout())
        ),
        Format::Json => {
            let out = judgement.to_output(Some(label.clone()));
            println!(
                "{}",
                serde_json::to_string_pretty(&out).expect("verdicts serialize")
            );
        }
    }
    let failed = judgement
        .verdicts
        .iter()
        .any(|v| v.worst() == Some(Severity::Error));
    ExitCode::from(if failed { exit::FINDINGS } else { exit::OK })
}
