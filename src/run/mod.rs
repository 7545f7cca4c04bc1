//! The judging loop: inputs (`crate::inputs`) yield exchanges or errors as values; each is
//! judged once and turned into the prepared views the outputs (`crate::outputs`) render. One
//! exchange file, a HAR capture, a stream of lines and a corpus of fixtures differ only in how
//! they are driven: one at a time, entry by entry, in parallel and in order, or in parallel
//! against expectations.

#[cfg(feature = "reports")]
pub mod check;
pub mod har;
pub mod stream;
pub mod transcript;

use crate::judge::JudgeError;
use crate::vocab::Protocol;

/// A position in a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
pub struct Location {
    /// 1-based line.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
}

/// Where an exchange came from, for telling people how to name its revision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// An exchange file.
    File,
    /// An entry of a HAR capture.
    Har,
    /// A line of a JSON Lines stream.
    Line,
    /// A call of a stdio session transcript.
    Transcript,
}

/// The message for an exchange whose revision cannot be chosen, worded for the command line:
/// the judge's reason and how to choose with this tool.
pub fn revision_message(e: &JudgeError, origin: Origin) -> String {
    match e {
        JudgeError::UnknownRevision => {
            let and = match origin {
                Origin::File => " (or set \"protocol\" in the exchange file)",
                Origin::Line => " (or set \"protocol\" in the line's exchange)",
                Origin::Transcript => {
                    " (or record the session from its initialize, whose answer names the revision)"
                }
                Origin::Har => "",
            };
            format!(
                "{}; pass --protocol {} or all{and}",
                e.reason(),
                Protocol::names()
            )
        }
        JudgeError::UnsupportedRevision(_) => format!(
            "{}; pass --protocol to judge it under one of those",
            e.reason()
        ),
    }
}
