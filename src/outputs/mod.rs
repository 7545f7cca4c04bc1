//! Outputs: every format a command writes, each a pure function of a prepared view (a
//! judgement, a HAR report, a check run, a probe report, the rule table) or, for streams, a
//! format the judging loop calls per record. A new format is one new file here.

#[cfg(feature = "reports")]
pub mod check;
#[cfg(feature = "clients")]
pub mod clients;
pub mod compact;
pub mod har;
pub mod jsonl;
#[cfg(feature = "probe")]
pub mod probe;
#[cfg(feature = "probe")]
pub mod probe_active;
#[cfg(any(feature = "probe", feature = "proxy"))]
pub(crate) mod record;
pub mod rules;
pub mod safe;
pub(crate) mod style;
pub mod transcript;
pub mod verdict;

pub use style::{ColorChoice, Style};

/// Writes to stdout; a reader that closed the pipe early (e.g. `| head`) is not an error.
pub fn write_stdout(text: &str) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush())
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        eprintln!("mcp-verdict: cannot write output: {e}");
    }
}
