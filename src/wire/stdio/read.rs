//! The judged reading of a stdio exchange's stdout: every line with what it is, the messages
//! in order (read as an SSE stream's events are, so the same checks judge them), the lines a
//! pretty-printed message was split over, and which bytes are the response.
//!
//! Which bytes are the response (the *frame*, read as a JSON body is):
//!
//! 1. the first response with the request's id, on one line or on the lines of a
//!    pretty-printed message;
//! 2. failing that, when the output did not end in a partial line, its last message (blank
//!    lines after it aside) when it stands where the response belongs, as the same bytes in a
//!    JSON body would: a response with another id or none, JSON that is no JSON-RPC message
//!    (a batch, a primitive), JSON nested too deep to read, or a line that is not JSON but
//!    starts as JSON does (`{` or `[`, the test an HTTP body without a media type gets) or is
//!    not UTF-8. A line of text such as a log line is not taken for the response.
//!
//! A partial last line is no message (no newline delimits it); it never is the frame.

use std::ops::Range;

use serde_json::Value;

use super::{Line, is_blank, lines};
use crate::wire::message::{Accepted, MessageKind, MessageReader, StreamMessage};
use crate::wire::number::ids_equal;
use crate::wire::tape::Tape;

/// What one line of stdout is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LineRole {
    /// Nothing but JSON whitespace.
    Blank,
    /// The line holds the message at this index of [`StdioRead::messages`] (which may not be
    /// a JSON-RPC message: see its kind).
    Message(usize),
    /// One of the lines of the pretty-printed message at this index of [`StdioRead::joined`].
    Joined(usize),
    /// The partial last line: the output ended before its newline.
    Partial,
}

/// One line of stdout and what it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StdioLine {
    /// Where it lies.
    pub line: Line,
    /// What it is.
    pub role: LineRole,
}

/// A message split over several lines (pretty-printed JSON): lines that are not messages on
/// their own but whose text, newlines included, is one JSON value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Joined {
    /// Index of its first line.
    pub first: usize,
    /// Index of its last line.
    pub last: usize,
    /// Its index in [`StdioRead::messages`].
    pub message: usize,
}

/// What the partial last line would have been, had a newline ended it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PartialKind {
    /// A response with the request's id: the response arrived without its newline.
    Response,
    /// Other JSON.
    Json,
    /// Not JSON (a cut message, or text).
    Text,
}

/// The reading of a stdio exchange's stdout.
#[derive(Clone, Debug, Default)]
pub struct StdioRead {
    /// Every line, in order.
    pub lines: Vec<StdioLine>,
    /// One entry per line that is not blank, or per pretty-printed message, in order; a
    /// message's `event` is the index of its (first) line.
    pub messages: Vec<StreamMessage>,
    /// Index in `messages` of the response, or of the message in its place.
    pub final_index: Option<usize>,
    /// Whether that message is a response with the request's id.
    pub final_matches: bool,
    /// The bytes of stdout the response (or the message in its place) is.
    pub frame: Option<Range<usize>>,
    /// The pretty-printed messages.
    pub joined: Vec<Joined>,
    /// The partial last line and what it would have been.
    pub partial: Option<(Line, PartialKind)>,
    /// The longest line, in bytes without its newline.
    pub longest: usize,
}

impl StdioRead {
    /// The response message (or the message in its place).
    pub fn final_message(&self) -> Option<&StreamMessage> {
        self.messages.get(self.final_index?)
    }

    /// The lines a message spans: (first, last).
    pub fn span_of(&self, message: usize) -> (usize, usize) {
        let first = self.messages[message].event;
        match self.lines.get(first).map(|l| l.role) {
            Some(LineRole::Joined(j)) => (self.joined[j].first, self.joined[j].last),
            _ => (first, first),
        }
    }
}

/// Whether a line's text starts as JSON does (`{` or `[` after whitespace).
fn starts_as_json(bytes: &[u8]) -> bool {
    bytes
        .iter()
        .find(|b| !b.is_ascii_whitespace())
        .is_some_and(|b| matches!(b, b'{' | b'['))
}

/// Whether a line is, on its tape, a response with the request's id (without building its
/// `Value`: the response is read again as the frame).
fn response_on_tape(text: &str, request_id: Option<&Value>) -> Option<bool> {
    if !text.contains("\"result\"") && !text.contains("\"error\"") {
        return None;
    }
    let t = Tape::read(text)?;
    let root = t.root();
    let mut response = false;
    let mut id = None;
    for (k, v) in root.members() {
        match k {
            "result" | "error" => response = true,
            "id" => id = Some(v),
            _ => {}
        }
    }
    if !response {
        return Some(false);
    }
    Some(match (request_id, id) {
        (None, _) => true,
        (Some(want), Some(got)) => ids_equal(want, &got.to_value()),
        (Some(_), None) => false,
    })
}

/// Reads stdout. Returns the reading and how deep its deepest message nests past
/// `serde_json`'s limit (0 otherwise).
pub(crate) fn read(
    stdout: &[u8],
    request_id: Option<&Value>,
    accepted: Option<Accepted<'_>>,
) -> (StdioRead, usize) {
    let mut reader = MessageReader {
        request_id,
        accepted,
        deepest: 0,
        lone_surrogate: None,
    };
    let all: Vec<Line> = lines(stdout).collect();
    let mut out = StdioRead {
        lines: Vec::with_capacity(all.len()),
        longest: all.iter().map(Line::len).max().unwrap_or(0),
        ..StdioRead::default()
    };
    // Each complete line read on its own; `None` for a blank one.
    let mut each: Vec<Option<(StreamMessage, bool)>> = Vec::with_capacity(all.len());
    for l in &all {
        let bytes = l.bytes(stdout);
        if !l.terminated {
            let kind = match std::str::from_utf8(bytes) {
                Ok(t) if response_on_tape(t, request_id) == Some(true) => PartialKind::Response,
                Ok(t) if crate::wire::deep::parse_then(t, |_| ()).is_ok() => PartialKind::Json,
                _ => PartialKind::Text,
            };
            out.partial = Some((*l, kind));
            break;
        }
        if is_blank(bytes) {
            each.push(None);
            continue;
        }
        let text = crate::wire::utf8::text(bytes).map_err(|o| l.start + o);
        if let Ok(t) = text
            && response_on_tape(t, request_id) == Some(true)
        {
            each.push(Some((
                StreamMessage {
                    event: l.index,
                    kind: MessageKind::Response,
                    value: None,
                    digest: None,
                },
                true,
            )));
            continue;
        }
        let start = l.start;
        each.push(Some(reader.read(l.index, text, |o| start + o)));
    }
    let joins = find_joins(stdout, &all[..each.len()], &each);
    // Lines and messages in order, each pretty-printed message read once, at its first line.
    let mut next_join = joins.iter().peekable();
    let mut i = 0;
    while i < each.len() {
        if let Some(&&(first, last)) = next_join.peek()
            && first == i
        {
            next_join.next();
            let j = out.joined.len();
            let text = std::str::from_utf8(&stdout[all[first].start..all[last].end])
                .expect("joined lines are UTF-8");
            let (message, matches) = reader.read(first, Ok(text), |o| all[first].start + o);
            let m = out.messages.len();
            if matches && out.final_index.is_none() {
                out.final_index = Some(m);
                out.final_matches = true;
            }
            out.messages.push(message);
            out.joined.push(Joined {
                first,
                last,
                message: m,
            });
            for l in &all[first..=last] {
                out.lines.push(StdioLine {
                    line: *l,
                    role: LineRole::Joined(j),
                });
            }
            i = last + 1;
            continue;
        }
        let role = match each[i].take() {
            None => LineRole::Blank,
            Some((message, matches)) => {
                let m = out.messages.len();
                if matches && out.final_index.is_none() {
                    out.final_index = Some(m);
                    out.final_matches = true;
                }
                out.messages.push(message);
                LineRole::Message(m)
            }
        };
        out.lines.push(StdioLine { line: all[i], role });
        i += 1;
    }
    if let Some((l, _)) = out.partial {
        out.lines.push(StdioLine {
            line: l,
            role: LineRole::Partial,
        });
    }
    if out.final_index.is_none() && out.partial.is_none() {
        out.final_index = out
            .messages
            .last()
            .filter(|m| in_response_place(m, stdout, &out))
            .map(|_| out.messages.len() - 1);
    }
    if let Some(fi) = out.final_index {
        let (first, last) = out.span_of(fi);
        out.frame = Some(all[first].start..all[last].end);
        // The frame is read again as a JSON body: its parsed value is not kept twice.
        out.messages[fi].value = None;
    }
    out.messages.shrink_to_fit();
    (out, reader.deepest)
}

/// Whether the last message stands where the response belongs (see the module's doc).
fn in_response_place(m: &StreamMessage, stdout: &[u8], read: &StdioRead) -> bool {
    match m.kind {
        MessageKind::Response
        | MessageKind::Other
        | MessageKind::TooDeep { .. }
        | MessageKind::NotUtf8 { .. } => true,
        MessageKind::BadJson(_) => starts_as_json(read.lines[m.event].line.bytes(stdout)),
        MessageKind::Notification | MessageKind::Request => false,
    }
}

/// The runs of lines (first, last) that are not messages on their own and whose text is one
/// JSON value: a message pretty-printed over several lines. A run starts at a line that does
/// not parse and starts as JSON does, takes in lines that are not messages (nor blank), and
/// ends where its brackets close. Scanning is bounded (a few passes over the output), so that
/// a hostile output of unclosed brackets costs no more than that.
fn find_joins(
    stdout: &[u8],
    all: &[Line],
    each: &[Option<(StreamMessage, bool)>],
) -> Vec<(usize, usize)> {
    let part_of_message = |i: usize| match &each[i] {
        Some((m, _)) => matches!(m.kind, MessageKind::BadJson(_) | MessageKind::Other),
        None => false,
    };
    let mut budget = stdout.len().saturating_mul(4).saturating_add(1 << 16);
    let mut joins = Vec::new();
    let mut i = 0;
    while i < each.len() {
        let starts = matches!(&each[i], Some((m, _)) if matches!(m.kind, MessageKind::BadJson(_)))
            && starts_as_json(all[i].bytes(stdout));
        if !starts {
            i += 1;
            continue;
        }
        let mut depth = Depth::default();
        let mut closed_at = None;
        for (j, l) in all.iter().enumerate().skip(i) {
            if !part_of_message(j) {
                break;
            }
            let bytes = l.bytes(stdout);
            if budget < bytes.len() {
                return joins;
            }
            budget -= bytes.len();
            if !depth.scan(bytes) {
                break;
            }
            if depth.level == 0 {
                closed_at = Some(j);
                break;
            }
        }
        match closed_at {
            Some(j) if j > i => {
                let text = &stdout[all[i].start..all[j].end];
                let whole = std::str::from_utf8(text)
                    .is_ok_and(|t| crate::wire::deep::parse_then(t, |_| ()).is_ok());
                if whole {
                    joins.push((i, j));
                    i = j + 1;
                    continue;
                }
                i += 1;
            }
            _ => i += 1,
        }
    }
    joins
}

/// Bracket depth through JSON text, strings skipped.
#[derive(Default)]
struct Depth {
    level: usize,
    in_string: bool,
    escaped: bool,
}

impl Depth {
    /// Scans more text; `false` once a bracket closes more than was opened.
    fn scan(&mut self, bytes: &[u8]) -> bool {
        for &b in bytes {
            if self.in_string {
                match b {
                    _ if self.escaped => self.escaped = false,
                    b'\\' => self.escaped = true,
                    b'"' => self.in_string = false,
                    _ => {}
                }
                continue;
            }
            match b {
                b'"' => self.in_string = true,
                b'{' | b'[' => self.level += 1,
                b'}' | b']' => match self.level.checked_sub(1) {
                    Some(l) => self.level = l,
                    None => return false,
                },
                _ => {}
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn roles(r: &StdioRead) -> Vec<LineRole> {
        r.lines.iter().map(|l| l.role).collect()
    }

    #[test]
    fn the_response_line_is_the_frame_and_the_rest_are_messages() {
        let out = b"server ready\n\n{\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}\n";
        let (r, _) = read(out, Some(&json!(1)), None);
        assert_eq!(
            roles(&r),
            [
                LineRole::Message(0),
                LineRole::Blank,
                LineRole::Message(1),
                LineRole::Message(2)
            ]
        );
        assert!(matches!(r.messages[0].kind, MessageKind::BadJson(_)));
        assert_eq!(r.final_index, Some(2));
        assert!(r.final_matches);
        assert_eq!(
            &out[r.frame.clone().unwrap()],
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}"
        );
    }

    #[test]
    fn a_pretty_printed_response_is_found_over_its_lines() {
        let out = b"{\n  \"jsonrpc\": \"2.0\",\n  \"id\": 1,\n  \"result\": {\"content\": [\n    \"a\"\n  ]}\n}\n";
        let (r, _) = read(out, Some(&json!(1)), None);
        assert_eq!(
            r.joined,
            [Joined {
                first: 0,
                last: 6,
                message: 0
            }]
        );
        assert!(r.final_matches);
        assert_eq!(r.frame, Some(0..out.len() - 1));
    }

    #[test]
    fn a_log_line_is_not_taken_for_the_response_but_a_cut_message_is() {
        let (r, _) = read(b"shutting down\n", Some(&json!(1)), None);
        assert_eq!(r.final_index, None);
        let (r, _) = read(
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"res\n",
            Some(&json!(1)),
            None,
        );
        assert_eq!(r.final_index, Some(0));
        assert!(!r.final_matches);
        let (r, _) = read(
            b"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{}}\n\n",
            Some(&json!(1)),
            None,
        );
        assert_eq!(r.final_index, Some(0));
    }

    #[test]
    fn a_partial_last_line_is_no_message() {
        let (r, _) = read(
            b"{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}",
            Some(&json!(1)),
            None,
        );
        assert_eq!(r.final_index, None);
        assert_eq!(r.partial.map(|(_, k)| k), Some(PartialKind::Response));
        assert_eq!(roles(&r), [LineRole::Partial]);
        let (r, _) = read(b"{\"a\":1}\n{\"jsonrpc\":", Some(&json!(1)), None);
        assert_eq!(r.final_index, None);
        assert_eq!(r.partial.map(|(_, k)| k), Some(PartialKind::Text));
    }

    #[test]
    fn unclosed_brackets_cost_a_bounded_scan() {
        let out = "{\n".repeat(20_000);
        let (r, _) = read(out.as_bytes(), Some(&json!(1)), None);
        assert!(r.joined.is_empty());
        assert_eq!(r.messages.len(), 20_000);
    }
}
