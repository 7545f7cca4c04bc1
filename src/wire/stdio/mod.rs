//! The stdio binding: how the bytes an MCP server writes on its standard output become lines,
//! and lines become messages. Nothing here knows whether the bytes came from a recording or a
//! live pipe, nor what the messages mean: the checks judge that, as over HTTP.
//!
//! Under the stdio transport a message is one line: "Messages are delimited by newlines, and
//! MUST NOT contain embedded newlines". A line ends at `\n`; a `\r` before it stays part of the
//! line (JSON reads it as whitespace, so `{...}\r\n` is still one message). Bytes after the last
//! `\n` are a *partial* line: the output ended before its newline, so a client reading lines
//! never received it as a message.
//!
//! The pieces:
//!
//! * [`lines`] splits a recorded buffer into [`Line`]s (byte offsets, no copies); a [`Framer`]
//!   does the same incrementally on a live pipe (bytes in, [`Frame`]s out, the same lines
//!   however the input is split), holding the peer to [`Limits`] (longest line, total bytes).
//! * [`item`] tells what one line is: blank, a JSON value (then [`crate::wire::message::kind_of`]
//!   says which JSON-RPC message, if any), not UTF-8, or not JSON.
//! * [`record`] is the stdio exchange in the exchange file format (`"transport": "stdio"`) and
//!   its decoded form [`Stdio`], which an [`Exchange`](crate::Exchange) carries.
//! * [`transcript`] is the JSON Lines session transcript: every line each side wrote, with its
//!   direction and an optional time; a writer and a reader.
//! * The judged reading of a stdio exchange (which line is the response, which lines are not
//!   messages, which lines join into a pretty-printed message) is [`read::StdioRead`], which
//!   [`crate::wire::analysis::Analysis`] builds.
//!
//! # Judging a live stdio call
//!
//! A client (a probe, a fault server's recorder, a proxy) that wrote one request line and read
//! the server's output builds the exchange and judges it as any other:
//!
//! ```
//! use mcp_verdict::wire::stdio::{ExitStatus, Framer, Limits, StdioEnd};
//! use mcp_verdict::{Exchange, Options, judge};
//! use serde_json::json;
//!
//! let request = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
//!     "params": {"name": "echo", "arguments": {},
//!                "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}}});
//! // What the pipe gave, in whatever chunks it came; the framer yields whole lines.
//! let mut framer = Framer::new(Limits::default());
//! let mut stdout = Vec::new();
//! let mut answered = false;
//! for chunk in [&b"server ready\n{\"jsonrpc\":\"2.0\",\"id\":1,\"res"[..],
//!               &b"ult\":{\"content\":[],\"resultType\":\"complete\"}}\n"[..]] {
//!     stdout.extend_from_slice(chunk);
//!     framer.push(chunk, |frame| {
//!         // A response with the request's id ends the call.
//!         answered |= frame.bytes.starts_with(b"{\"jsonrpc\":\"2.0\",\"id\":1,");
//!     }).expect("within the limits");
//! }
//! assert!(answered);
//! let ex = Exchange::stdio(stdout)
//!     .request(request)
//!     .stdio_end(StdioEnd::Response)
//!     .build();
//! let judgement = judge(&ex, &Options::default()).unwrap();
//! let v = &judgement.verdicts[0];
//! assert_eq!(v.outcome.as_str(), "TOOL_SUCCESS");
//! // The banner line is a finding of the stdio rules, not the call's outcome.
//! assert!(v.findings.iter().any(|f| f.rule.id.starts_with("transport.stdio.")));
//! # let _ = ExitStatus::code(0);
//! ```
//!
//! Stop reading at the response ([`StdioEnd::Response`]), at end of file ([`StdioEnd::Eof`]),
//! when the process exits ([`StdioEnd::Exit`], with its [`ExitStatus`]), or when giving up
//! ([`StdioEnd::Timeout`]); record stderr with [`crate::ExchangeBuilder::stderr`]. To keep the
//! session, write every line to a [`transcript::TranscriptWriter`] as it passes; `classify
//! --transcript` judges every `tools/call` in such a transcript
//! ([`crate::inputs::transcript`] pairs each with its answer).

pub mod read;
pub mod record;
pub mod transcript;

use serde_json::Value;

pub use record::{ExitStatus, RecordedStdio, Stdio, StdioEnd};

use crate::wire::deep::{self, JsonFailure};
use crate::wire::message::JsonError;

/// How much a framer reads before it stops: the longest line and the most bytes in all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// The longest line, in bytes without its newline.
    pub max_line: usize,
    /// The most bytes read in all.
    pub max_total: usize,
}

impl Default for Limits {
    /// 32 MiB for a line (the largest response body the HTTP probe reads) and 256 MiB in all.
    fn default() -> Self {
        Limits {
            max_line: 32 * 1024 * 1024,
            max_total: 256 * 1024 * 1024,
        }
    }
}

/// Where one line lies in the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line {
    /// 0-based position among the output's lines.
    pub index: usize,
    /// Byte offset of its first byte.
    pub start: usize,
    /// Byte offset just past its last byte, its newline excluded.
    pub end: usize,
    /// Whether a newline ends it; `false` only for a partial last line.
    pub terminated: bool,
}

impl Line {
    /// Its bytes, newline excluded, in the output it was read from.
    pub fn bytes<'a>(&self, output: &'a [u8]) -> &'a [u8] {
        &output[self.start..self.end]
    }

    /// Its length in bytes, newline excluded.
    pub fn len(&self) -> usize {
        self.end - self.start
    }

    /// Whether it has no bytes but its newline.
    pub fn is_empty(&self) -> bool {
        self.start == self.end
    }

    /// The byte offset just past its newline (its end, for a partial line).
    pub fn next_start(&self) -> usize {
        self.end + usize::from(self.terminated)
    }
}

/// The lines of a recorded output, in order; the last one is partial when the output does not
/// end with a newline (an empty output has no lines).
pub fn lines(output: &[u8]) -> Lines<'_> {
    Lines {
        output,
        at: 0,
        index: 0,
    }
}

/// The iterator [`lines`] returns.
#[derive(Clone, Debug)]
pub struct Lines<'a> {
    output: &'a [u8],
    at: usize,
    index: usize,
}

impl Iterator for Lines<'_> {
    type Item = Line;

    fn next(&mut self) -> Option<Line> {
        if self.at >= self.output.len() {
            return None;
        }
        let start = self.at;
        let line = match memchr::memchr(b'\n', &self.output[start..]) {
            Some(n) => Line {
                index: self.index,
                start,
                end: start + n,
                terminated: true,
            },
            None => Line {
                index: self.index,
                start,
                end: self.output.len(),
                terminated: false,
            },
        };
        self.at = line.next_start();
        self.index += 1;
        Some(line)
    }
}

/// One line a [`Framer`] read: where it lies in everything read so far, and its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Where it lies.
    pub line: Line,
    /// Its bytes, newline excluded.
    pub bytes: Vec<u8>,
}

/// Why a [`Framer`] stopped reading.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Overflow {
    /// A line grew past [`Limits::max_line`] before its newline.
    #[error("stdout line {} (from byte {start}) grew past {limit} bytes without a newline", index + 1)]
    LineTooLong {
        /// 0-based index of the line.
        index: usize,
        /// Byte offset where it starts.
        start: usize,
        /// The limit.
        limit: usize,
    },
    /// The output grew past [`Limits::max_total`].
    #[error("the server wrote more than {limit} bytes on stdout")]
    TooMuch {
        /// The limit.
        limit: usize,
    },
}

/// An incremental line framer for a live pipe: bytes in, whole lines out, within [`Limits`].
/// It yields the same lines as [`lines`] on everything pushed, however the input is split.
#[derive(Debug)]
pub struct Framer {
    limits: Limits,
    /// The bytes of the line being read (no newline yet).
    pending: Vec<u8>,
    /// Byte offset of `pending[0]`.
    pending_start: usize,
    /// Index of the line being read.
    index: usize,
    /// Bytes read in all.
    total: usize,
    /// The longest line read (newline excluded), partial lines included.
    longest: usize,
    stopped: Option<Overflow>,
}

impl Framer {
    /// A framer that holds the output to `limits`.
    pub fn new(limits: Limits) -> Framer {
        Framer {
            limits,
            pending: Vec::new(),
            pending_start: 0,
            index: 0,
            total: 0,
            longest: 0,
            stopped: None,
        }
    }

    /// Reads a chunk, handing each line it completes to `each`. Past a limit it reads no more:
    /// the lines completed before the limit was reached are handed over, and this call and
    /// every later one answer the overflow.
    pub fn push(&mut self, chunk: &[u8], mut each: impl FnMut(Frame)) -> Result<(), Overflow> {
        if let Some(o) = self.stopped {
            return Err(o);
        }
        let room = self.limits.max_total.saturating_sub(self.total);
        let (chunk, over) = if chunk.len() > room {
            (&chunk[..room], true)
        } else {
            (chunk, false)
        };
        let mut rest = chunk;
        while let Some(n) = memchr::memchr(b'\n', rest) {
            self.total += n + 1;
            self.grow(&rest[..n])?;
            let start = self.pending_start;
            let bytes = std::mem::take(&mut self.pending);
            let line = Line {
                index: self.index,
                start,
                end: start + bytes.len(),
                terminated: true,
            };
            self.index += 1;
            self.pending_start = line.next_start();
            each(Frame { line, bytes });
            rest = &rest[n + 1..];
        }
        self.total += rest.len();
        self.grow(rest)?;
        if over {
            let o = Overflow::TooMuch {
                limit: self.limits.max_total,
            };
            self.stopped = Some(o);
            return Err(o);
        }
        Ok(())
    }

    /// Adds bytes to the line being read, within the line limit.
    fn grow(&mut self, bytes: &[u8]) -> Result<(), Overflow> {
        let len = self.pending.len() + bytes.len();
        if len > self.limits.max_line {
            let o = Overflow::LineTooLong {
                index: self.index,
                start: self.pending_start,
                limit: self.limits.max_line,
            };
            self.stopped = Some(o);
            return Err(o);
        }
        self.pending.extend_from_slice(bytes);
        self.longest = self.longest.max(len);
        Ok(())
    }

    /// The partial last line, once the output has ended (`None` when it ended with a newline).
    pub fn finish(self) -> Option<Frame> {
        if self.pending.is_empty() {
            return None;
        }
        let start = self.pending_start;
        Some(Frame {
            line: Line {
                index: self.index,
                start,
                end: start + self.pending.len(),
                terminated: false,
            },
            bytes: self.pending,
        })
    }

    /// The bytes read so far.
    pub fn total(&self) -> usize {
        self.total
    }

    /// The longest line read so far, in bytes without its newline.
    pub fn longest(&self) -> usize {
        self.longest
    }

    /// How many whole lines were read so far.
    pub fn lines(&self) -> usize {
        self.index
    }
}

/// What one line of output is, read on its own.
#[derive(Debug)]
pub enum Item {
    /// Nothing but JSON whitespace (space, tab, `\r`): a newline that delimits no message.
    Blank,
    /// A JSON value; [`crate::wire::message::kind_of`] says which JSON-RPC message it is.
    Json(Value),
    /// Not UTF-8: the offset in the line of the first invalid sequence.
    NotUtf8(usize),
    /// Not JSON: where and why it does not parse (offsets within the line).
    NotJson(JsonError),
    /// JSON nested deeper than [`crate::wire::deep::MAX_DEPTH`]: the offset in the line of the
    /// bracket that opens the first level past the limit.
    TooDeep(usize),
}

/// Whether a line holds nothing but JSON whitespace.
pub fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|b| matches!(b, b' ' | b'\t' | b'\r'))
}

/// What one line is (its bytes without the newline). A value nested past `serde_json`'s own
/// limit is parsed on a grown stack; it is dropped before this returns, so hold it only within
/// [`crate::wire::deep::on_stack_for`] when it may be that deep.
pub fn item(line: &[u8]) -> Item {
    if is_blank(line) {
        return Item::Blank;
    }
    let text = match crate::wire::utf8::text(line) {
        Ok(t) => t,
        Err(offset) => return Item::NotUtf8(offset),
    };
    match deep::parse(text) {
        Ok((v, _)) => Item::Json(v),
        Err(JsonFailure::Syntax(e)) => {
            Item::NotJson(crate::wire::message::json_error(text, &e, |o| o))
        }
        Err(JsonFailure::TooDeep { offset }) => Item::TooDeep(offset),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn framed(chunks: &[&[u8]], limits: Limits) -> (Vec<Frame>, Option<Frame>, Option<Overflow>) {
        let mut f = Framer::new(limits);
        let mut out = Vec::new();
        let mut over = None;
        for c in chunks {
            if let Err(o) = f.push(c, |fr| out.push(fr)) {
                over = Some(o);
                break;
            }
        }
        (out, f.finish(), over)
    }

    #[test]
    fn a_framer_gives_the_lines_of_the_whole_however_split() {
        let whole: &[u8] = b"banner\n\n{\"a\":1}\r\n{\"b\":\npartial";
        let want: Vec<Line> = lines(whole).collect();
        assert_eq!(want.len(), 5);
        assert!(!want[4].terminated);
        assert_eq!(want[3].bytes(whole), b"{\"b\":");
        for cut in 0..=whole.len() {
            for cut2 in cut..=whole.len() {
                let (frames, partial, over) = framed(
                    &[&whole[..cut], &whole[cut..cut2], &whole[cut2..]],
                    Limits::default(),
                );
                assert_eq!(over, None);
                let got: Vec<Line> = frames
                    .iter()
                    .map(|f| f.line)
                    .chain(partial.iter().map(|f| f.line))
                    .collect();
                assert_eq!(got, want, "split at {cut} and {cut2}");
                for f in frames.iter().chain(&partial) {
                    assert_eq!(f.bytes, f.line.bytes(whole));
                }
            }
        }
    }

    #[test]
    fn a_framer_stops_at_its_limits() {
        let limits = Limits {
            max_line: 4,
            max_total: 100,
        };
        let (frames, _, over) = framed(&[b"abcd\nabc", b"de\n"], limits);
        assert_eq!(frames.len(), 1);
        assert_eq!(
            over,
            Some(Overflow::LineTooLong {
                index: 1,
                start: 5,
                limit: 4
            })
        );
        let limits = Limits {
            max_line: 100,
            max_total: 7,
        };
        let (frames, partial, over) = framed(&[b"abc\ndefgh\n"], limits);
        assert_eq!(frames.len(), 1);
        assert_eq!(over, Some(Overflow::TooMuch { limit: 7 }));
        assert_eq!(partial.unwrap().bytes, b"def");
    }

    #[test]
    fn items_tell_blank_json_and_the_rest() {
        assert!(matches!(item(b" \t\r"), Item::Blank));
        assert!(matches!(item(b""), Item::Blank));
        assert!(matches!(item(b"{\"a\":1}\r"), Item::Json(_)));
        assert!(matches!(item(b"MCP server running"), Item::NotJson(_)));
        assert!(matches!(item(b"{\"a\":\xff}"), Item::NotUtf8(5)));
    }
}
