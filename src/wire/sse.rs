//! Synchronous, offset-preserving Server-Sent Events parser.
//!
//! Under MCP Streamable HTTP a server may answer a `POST` with
//! `Content-Type: text/event-stream`; the `data` of every dispatched event is
//! one JSON-RPC message. To judge such a response exactly as its bytes
//! arrived, including streams cut off in the middle of an event, this module
//! parses the raw bytes following the WHATWG HTML
//! [event stream interpretation](https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation)
//! and records, for everything it finds, where in the input it was:
//!
//! * every dispatched [`Event`] with its byte span and a way to map an offset
//!   inside its `data` back to an input offset ([`Event::input_offset`]);
//! * every block that was terminated by a blank line but had no data to
//!   dispatch, such as the MCP *priming event* `id: <id>\ndata:\n\n`
//!   ([`SkippedEvent`]);
//! * what was left undispatched at end of input ([`Tail`]);
//! * counters for comments, unknown fields and ignored `id` / `retry` lines,
//!   whether a UTF-8 BOM was stripped and where the first invalid UTF-8
//!   sequence is.
//!
//! Use [`parse`] when the whole body is available, or feed chunks to a
//! [`Parser`] as they arrive; both give identical results however the input
//! is split.
//!
//! # Rules applied
//!
//! * One leading UTF-8 BOM (`EF BB BF`) is stripped; offsets still count it.
//! * Lines end with CRLF, LF or CR. A CR ending one chunk and an LF starting
//!   the next form a single line break.
//! * A line starting with `:` is a comment. Any other non-empty line is split
//!   at its first `:` into field name and value; one leading space is
//!   removed from the value. A line without a colon is a field name with an
//!   empty value.
//! * `data` appends the value to the event's data (lines joined with `\n`),
//!   `event` sets the event type, `id` sets the last event ID unless the
//!   value contains NUL (the ID persists across events), `retry` sets the
//!   reconnection time if the value is a non-empty string of ASCII digits.
//!   Other field names are ignored and counted.
//! * A blank line dispatches the event being built.
//! * At end of input the event being built is *not* dispatched; it is
//!   reported as the [`Tail`].
//!
//! # Where WHATWG and MCP practice differ
//!
//! * WHATWG dispatches a `message` event with empty data for a block such as
//!   `data:\n\n` (the data buffer is `"\n"`, not empty, when the emptiness
//!   check runs). MCP servers send exactly that, with an `id`, as a *priming
//!   event* that carries no JSON-RPC message. This parser does not put such
//!   an event in [`Parsed::events`]; it records it as a [`SkippedEvent`] of
//!   kind [`SkipKind::EmptyData`], so that `events` holds exactly the events
//!   whose data should be a JSON-RPC message. Blocks WHATWG does not dispatch
//!   at all (no `data` line, e.g. `retry: 1000\n\n`) are recorded with kind
//!   [`SkipKind::NoData`].
//! * Input is decoded as UTF-8 with replacement (`U+FFFD`), as WHATWG says,
//!   but because MCP requires UTF-8 the offset of the first invalid sequence
//!   is reported in [`Parsed::invalid_utf8_at`].
//! * A `retry` value too large for `u64` saturates to `u64::MAX`; an empty
//!   `retry` value is ignored (it has no digits to interpret).
//!
//! # Example
//!
//! ```
//! use mcp_verdict::wire::sse::{parse, SkipKind};
//!
//! let body = b"id: 7f\ndata:\n\n: ping\n\nevent: message\ndata: {\"jsonrpc\":\"2.0\",\ndata: \"id\":1}\n\ndata: {\"cut";
//! let parsed = parse(body);
//!
//! assert_eq!(parsed.skipped_empty.len(), 1);
//! assert!(parsed.skipped_empty[0].is_priming());
//! assert_eq!(parsed.skipped_empty[0].kind, SkipKind::EmptyData);
//! assert_eq!(parsed.comments, 1);
//!
//! let ev = &parsed.events[0];
//! assert_eq!(ev.data, "{\"jsonrpc\":\"2.0\",\n\"id\":1}");
//! assert_eq!(ev.last_event_id, "7f");
//! assert!(ev.explicit_type);
//! // `"id"` in the data starts on the second data line of the input.
//! let at = ev.data.find("\"id\"").unwrap();
//! assert_eq!(&body[ev.input_offset(at)..][..4], b"\"id\"");
//!
//! let tail = parsed.tail.unwrap();
//! assert!(!tail.has_fields);
//! assert_eq!(tail.partial_line.unwrap().bytes, b"data: {\"cut");
//! ```

use std::borrow::Cow;
use std::fmt;

/// The UTF-8 byte order mark.
const BOM: [u8; 3] = [0xEF, 0xBB, 0xBF];

/// Length in bytes of U+FFFD REPLACEMENT CHARACTER in UTF-8.
const REPLACEMENT_LEN: usize = '\u{FFFD}'.len_utf8();

/// A piece of an event's `data` and where it came from in the input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Seg {
    /// Offset of the piece in `data`.
    data: usize,
    /// Offset of the piece in the input.
    input: usize,
    /// Length of the piece in the input.
    len: usize,
    /// The piece is one U+FFFD standing for `len` invalid input bytes.
    replacement: bool,
}

/// One event dispatched by a blank line, with non-empty data.
///
/// Equality compares every field, including the private offset map used by
/// [`Event::input_offset`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// 0-based position among dispatched events (skipped blocks do not count).
    pub index: usize,
    /// The event type: the value of the event's last `event:` line if that
    /// value is non-empty, otherwise `"message"`.
    pub event_type: Cow<'static, str>,
    /// Whether `event_type` came from an `event:` line (`false` when it is the
    /// `"message"` default, including after an `event:` line with an empty
    /// value).
    pub explicit_type: bool,
    /// The values of the event's `data` lines joined with `\n` (decoded
    /// lossily if the input was not valid UTF-8). Never empty.
    pub data: String,
    /// Number of `data` lines in the event.
    pub data_lines: usize,
    /// The last event ID buffer when the event was dispatched; it may have
    /// been set by an earlier event.
    pub last_event_id: String,
    /// Whether this event itself carried an `id` line that set the last event
    /// ID (an `id` line whose value contains NUL is ignored and does not
    /// count).
    pub id_field: bool,
    /// The last valid `retry` value in this event, if any.
    pub retry: Option<u64>,
    /// Byte offset in the input (BOM included) of the event's first line,
    /// which may be a comment line.
    pub start: usize,
    /// Byte offset just past the line break of the blank line that
    /// dispatched the event.
    pub end: usize,
    /// Where the start of `data` came from (every event has a data line).
    first_seg: Seg,
    /// Further pieces, sorted by `data` offset; empty for the common
    /// single-line, valid-UTF-8 event, so no allocation is needed for it.
    more_segs: Vec<Seg>,
}

impl Event {
    /// The input offset of the first invalid UTF-8 sequence in the event's
    /// `data` (replaced by U+FFFD in [`Event::data`]), if any.
    pub fn invalid_utf8_at(&self) -> Option<usize> {
        std::iter::once(&self.first_seg)
            .chain(&self.more_segs)
            .find(|s| s.replacement)
            .map(|s| s.input)
    }

    /// Maps a byte offset inside [`Event::data`] to a byte offset in the
    /// input.
    ///
    /// An offset inside a data line's value maps to the corresponding input
    /// byte; the `\n` joining two data lines maps to the line break ending
    /// the first of them; `data.len()` maps to the end of the last data
    /// line's value. Offsets past `data.len()` are clamped to it. An offset
    /// inside a U+FFFD that replaced invalid input maps to the start of the
    /// invalid sequence. The result is non-decreasing in `data_offset` and
    /// lies in `start..end`.
    pub fn input_offset(&self, data_offset: usize) -> usize {
        let x = data_offset.min(self.data.len());
        let k = self.more_segs.partition_point(|s| s.data <= x);
        let seg = if k == 0 {
            &self.first_seg
        } else {
            &self.more_segs[k - 1]
        };
        let d = x - seg.data;
        if seg.replacement {
            if d < REPLACEMENT_LEN {
                seg.input
            } else {
                seg.input + seg.len
            }
        } else {
            seg.input + d.min(seg.len)
        }
    }
}

/// Why a block terminated by a blank line produced no [`Event`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SkipKind {
    /// The block had no `data` line; WHATWG does not dispatch it.
    NoData,
    /// The block had exactly one `data` line, with an empty value. WHATWG
    /// dispatches a `message` event with empty data; MCP servers send this
    /// (with an `id`) as a priming event that carries no JSON-RPC message.
    EmptyData,
}

/// A block of field lines terminated by a blank line that produced no
/// [`Event`] because its data was empty.
///
/// Blocks made only of comment lines are not recorded here; they are counted
/// in [`Parsed::comments`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedEvent {
    /// Why no event was produced.
    pub kind: SkipKind,
    /// The event type buffer as the block left it (empty if none was set).
    pub event_type: String,
    /// The last event ID buffer at the blank line.
    pub last_event_id: String,
    /// Whether the block itself carried an `id` line that set the last event
    /// ID.
    pub id_field: bool,
    /// The last valid `retry` value in the block, if any.
    pub retry: Option<u64>,
    /// Byte offset in the input of the block's first line.
    pub start: usize,
    /// Byte offset just past the line break of the terminating blank line.
    pub end: usize,
}

impl SkippedEvent {
    /// Whether this is an MCP priming event: an `id` line and one `data`
    /// line with an empty value (`id: x\ndata:\n\n` or `id: x\ndata: \n\n`).
    pub fn is_priming(&self) -> bool {
        self.kind == SkipKind::EmptyData && self.id_field
    }
}

/// An unterminated final line: the bytes after the last line break.
#[derive(Clone, PartialEq, Eq)]
pub struct PartialLine {
    /// Byte offset in the input where the line starts.
    pub start: usize,
    /// The raw bytes of the line (never empty).
    pub bytes: Vec<u8>,
}

impl PartialLine {
    /// Byte offset just past the line, which is the end of the input.
    pub fn end(&self) -> usize {
        self.start + self.bytes.len()
    }
}

impl fmt::Debug for PartialLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PartialLine")
            .field("start", &self.start)
            .field("bytes", &String::from_utf8_lossy(&self.bytes))
            .finish()
    }
}

/// What was left undispatched at end of input.
///
/// Present when the input ended after at least one field line that no blank
/// line followed, or in the middle of a line. An input ending with complete
/// comment lines only has no tail.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tail {
    /// Byte offset of the first line of the unterminated block (a comment
    /// line, a field line, or the partial line).
    pub start: usize,
    /// The data the event would have had if a blank line had followed: the
    /// values of its complete `data` lines joined with `\n`. The partial
    /// line, if any, is not interpreted.
    pub partial_data: String,
    /// Number of complete `data` lines in the block.
    pub data_lines: usize,
    /// Whether the block had any complete field (non-comment) line.
    pub has_fields: bool,
    /// The event type buffer at end of input (empty if none was set).
    pub event_type: String,
    /// The last event ID buffer at end of input. It differs from
    /// [`Parsed::last_event_id`] when the tail carried an `id` line.
    pub last_event_id: String,
    /// The unterminated final line, if the input did not end with a line
    /// break.
    pub partial_line: Option<PartialLine>,
}

/// Everything found in an event stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    /// Dispatched events with non-empty data, in input order.
    pub events: Vec<Event>,
    /// Blocks terminated by a blank line whose data was empty, in input order
    /// (including MCP priming events).
    pub skipped_empty: Vec<SkippedEvent>,
    /// Number of complete comment lines (starting with `:`); an unterminated
    /// final line is never counted, even if it starts with `:`.
    pub comments: usize,
    /// Number of lines whose field name is not `data`, `event`, `id` or
    /// `retry`.
    pub unknown_fields: usize,
    /// Number of `id` lines ignored because their value contains NUL.
    pub ignored_ids: usize,
    /// Number of `retry` lines ignored because their value is empty or not
    /// all ASCII digits.
    pub ignored_retries: usize,
    /// Whether a leading UTF-8 BOM was stripped.
    pub bom: bool,
    /// Byte offset of the first invalid UTF-8 sequence in the input, if any
    /// (the partial final line included).
    pub invalid_utf8_at: Option<usize>,
    /// The unterminated final event, if any.
    pub tail: Option<Tail>,
    /// The reconnection time set by the last valid `retry` line anywhere in
    /// the input (the tail's complete lines included, as WHATWG applies
    /// `retry` immediately).
    pub retry: Option<u64>,
    /// The event source's last event ID: the last event ID buffer as of the
    /// last blank line, which is what a client would send as `Last-Event-ID`
    /// when reconnecting. An `id` line in the tail does not change it (see
    /// [`Tail::last_event_id`]).
    pub last_event_id: String,
    /// Total input length in bytes, BOM included.
    pub len: usize,
}

/// The event being built.
#[derive(Debug, Default)]
struct Block {
    /// Offset of the block's first non-blank line.
    start: Option<usize>,
    /// A non-comment line was seen.
    has_fields: bool,
    /// Values of the `data` lines joined with `\n` (WHATWG's data buffer
    /// without its trailing LF).
    data: String,
    /// Number of `data` lines; WHATWG's data buffer is empty iff this is 0.
    data_lines: usize,
    /// Offset map of `data`, reused from event to event.
    segs: Vec<Seg>,
    /// The event type buffer.
    event_type: String,
    /// An `id` line set the last event ID buffer.
    id_field: bool,
    /// The last valid `retry` value in the block.
    retry: Option<u64>,
}

impl Block {
    /// Empties the block after a blank line, keeping buffer capacity.
    fn reset(&mut self) {
        self.start = None;
        self.has_fields = false;
        self.data.clear();
        self.data_lines = 0;
        self.segs.clear();
        self.event_type.clear();
        self.id_field = false;
        self.retry = None;
    }
}

/// Incremental event stream parser.
///
/// Feed chunks with [`Parser::feed`] in input order, then call
/// [`Parser::finish`]. The parser keeps every event it dispatches: `feed`
/// returns the events newly dispatched by that chunk as a slice of them, and
/// `finish` returns all of them (including those already returned by
/// `feed`) with everything else in a [`Parsed`], equal to what [`parse`]
/// gives for the concatenated input.
///
/// A blank line ending in a CR that is the last byte of a chunk is held back
/// until the next chunk (or `finish`) shows whether an LF follows, so that
/// [`Event::end`] does not depend on how the input was split. Streams using
/// LF or CRLF line breaks are not delayed unless a chunk ends between CR and
/// LF. Consequently, when the input ends with such a CR, the last event is
/// dispatched by `finish` and appears only in [`Parsed::events`], never in a
/// slice returned by `feed`.
#[derive(Debug, Default)]
pub struct Parser {
    /// Absolute offset of the next byte to be scanned.
    pos: usize,
    /// Set once the BOM question is settled.
    bom_decided: bool,
    /// Number of leading bytes held back because they match a BOM prefix.
    bom_held: usize,
    /// A BOM was stripped.
    bom: bool,
    /// Bytes of the current unterminated line.
    pending: Vec<u8>,
    /// Offset of the first byte of `pending`.
    pending_start: usize,
    /// The last scanned byte was a CR ending a line; an LF next is skipped.
    after_cr: bool,
    /// A blank line ended by that CR awaits dispatch.
    held_blank: bool,
    /// The event being built.
    block: Block,
    /// The last event ID buffer.
    last_event_id: String,
    /// The event source's last event ID (the buffer as of the last blank
    /// line ending a block with an `id` line).
    committed_id: String,
    /// See [`Parsed::retry`].
    retry: Option<u64>,
    /// See [`Parsed::comments`].
    comments: usize,
    /// See [`Parsed::unknown_fields`].
    unknown_fields: usize,
    /// See [`Parsed::ignored_ids`].
    ignored_ids: usize,
    /// See [`Parsed::ignored_retries`].
    ignored_retries: usize,
    /// See [`Parsed::invalid_utf8_at`].
    invalid_utf8_at: Option<usize>,
    /// Every event dispatched so far.
    events: Vec<Event>,
    /// Every skipped block so far.
    skipped: Vec<SkippedEvent>,
    /// How many events [`Parser::take_events`] handed over.
    taken: usize,
}

impl Parser {
    /// Creates a parser positioned at the start of a stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// Parses the next chunk of input and returns the events it dispatched.
    ///
    /// The returned slice may also hold an event held back at the end of the
    /// previous chunk (see the type's documentation).
    pub fn feed(&mut self, chunk: &[u8]) -> &[Event] {
        let before = self.events.len();
        let mut chunk = chunk;
        if !self.bom_decided {
            while self.bom_held < BOM.len() {
                match chunk.first() {
                    Some(&b) if b == BOM[self.bom_held] => {
                        self.bom_held += 1;
                        chunk = &chunk[1..];
                    }
                    _ => break,
                }
            }
            if self.bom_held == BOM.len() {
                self.bom_decided = true;
                self.bom = true;
                self.pos = BOM.len();
            } else if !chunk.is_empty() {
                self.bom_decided = true;
                self.scan(&BOM[..self.bom_held]);
            } else {
                return &self.events[before..];
            }
        }
        self.scan(chunk);
        &self.events[before..]
    }

    /// Events dispatched so far.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// Hands over the events dispatched since the last call, for a reader that takes each as
    /// it comes, so that a long stream is never held as all of its events. Events taken are
    /// not in what [`Parser::finish`] returns; their indices still count them.
    pub fn take_events(&mut self) -> Vec<Event> {
        self.taken += self.events.len();
        std::mem::take(&mut self.events)
    }

    /// Number of input bytes fed so far.
    pub fn position(&self) -> usize {
        if self.bom_decided {
            self.pos
        } else {
            self.bom_held
        }
    }

    /// Ends the input: dispatches a held-back event, reports the undispatched
    /// tail and returns everything found since [`Parser::new`].
    pub fn finish(mut self) -> Parsed {
        if !self.bom_decided {
            self.bom_decided = true;
            let held = self.bom_held;
            self.scan(&BOM[..held]);
        }
        if self.held_blank {
            self.held_blank = false;
            self.blank_line(self.pos);
        }
        self.after_cr = false;
        let partial_line = if self.pending.is_empty() {
            None
        } else {
            if self.invalid_utf8_at.is_none()
                && let Err(offset) = crate::wire::utf8::text(&self.pending)
            {
                self.invalid_utf8_at = Some(self.pending_start + offset);
            }
            Some(PartialLine {
                start: self.pending_start,
                bytes: std::mem::take(&mut self.pending),
            })
        };
        let block = &mut self.block;
        let tail = if block.has_fields || partial_line.is_some() {
            Some(Tail {
                start: block
                    .start
                    .or(partial_line.as_ref().map(|p| p.start))
                    .unwrap_or(self.pos),
                partial_data: std::mem::take(&mut block.data),
                data_lines: block.data_lines,
                has_fields: block.has_fields,
                event_type: std::mem::take(&mut block.event_type),
                last_event_id: self.last_event_id.clone(),
                partial_line,
            })
        } else {
            None
        };
        Parsed {
            events: self.events,
            skipped_empty: self.skipped,
            comments: self.comments,
            unknown_fields: self.unknown_fields,
            ignored_ids: self.ignored_ids,
            ignored_retries: self.ignored_retries,
            bom: self.bom,
            invalid_utf8_at: self.invalid_utf8_at,
            tail,
            retry: self.retry,
            last_event_id: self.committed_id,
            len: self.pos,
        }
    }

    /// Scans bytes that follow the BOM decision, at offset `self.pos`.
    fn scan(&mut self, buf: &[u8]) {
        if buf.is_empty() {
            return;
        }
        let base = self.pos;
        self.pos += buf.len();
        let mut i = 0;
        if self.after_cr {
            self.after_cr = false;
            if buf[0] == b'\n' {
                i = 1;
            }
            if self.held_blank {
                self.held_blank = false;
                self.blank_line(base + i);
            }
        }
        if !self.pending.is_empty() {
            let Some(p) = find_eol(&buf[i..]) else {
                self.pending.extend_from_slice(&buf[i..]);
                return;
            };
            let t = i + p;
            self.pending.extend_from_slice(&buf[i..t]);
            let next = self.line_break(buf, t);
            let mut line = std::mem::take(&mut self.pending);
            self.line(&line, self.pending_start, base + next);
            line.clear();
            self.pending = line;
            i = next;
        }
        while let Some(p) = find_eol(&buf[i..]) {
            let t = i + p;
            let next = self.line_break(buf, t);
            self.line(&buf[i..t], base + i, base + next);
            i = next;
        }
        if i < buf.len() {
            self.pending_start = base + i;
            self.pending.extend_from_slice(&buf[i..]);
        }
    }

    /// Index just past the line break starting at `buf[t]` (a CR or LF).
    fn line_break(&mut self, buf: &[u8], t: usize) -> usize {
        if buf[t] == b'\n' {
            t + 1
        } else if t + 1 < buf.len() {
            if buf[t + 1] == b'\n' { t + 2 } else { t + 1 }
        } else {
            self.after_cr = true;
            t + 1
        }
    }

    /// Processes one complete line (without its line break) that starts at
    /// input offset `start` and whose line break ends at `end`.
    fn line(&mut self, line: &[u8], start: usize, end: usize) {
        let Some(&first) = line.first() else {
            if self.after_cr {
                self.held_blank = true;
            } else {
                self.blank_line(end);
            }
            return;
        };
        if self.block.start.is_none() {
            self.block.start = Some(start);
        }
        if first == b':' {
            self.comments += 1;
            if self.invalid_utf8_at.is_none()
                && let Err(offset) = crate::wire::utf8::text(line)
            {
                self.invalid_utf8_at = Some(start + offset);
            }
            return;
        }
        let text = match crate::wire::utf8::text(line) {
            Ok(s) => Some(s),
            Err(offset) => {
                if self.invalid_utf8_at.is_none() {
                    self.invalid_utf8_at = Some(start + offset);
                }
                None
            }
        };
        self.block.has_fields = true;
        let (name, vstart) = match line.iter().position(|&b| b == b':') {
            Some(c) if line.get(c + 1) == Some(&b' ') => (&line[..c], c + 2),
            Some(c) => (&line[..c], c + 1),
            None => (line, line.len()),
        };
        let value = &line[vstart..];
        match name {
            b"data" => self.data_line(value, text.map(|s| &s[vstart..]), start + vstart),
            b"event" => {
                self.block.event_type.clear();
                push_decoded(
                    &mut self.block.event_type,
                    value,
                    text.map(|s| &s[vstart..]),
                );
            }
            b"id" => {
                if value.contains(&0) {
                    self.ignored_ids += 1;
                } else {
                    self.last_event_id.clear();
                    push_decoded(&mut self.last_event_id, value, text.map(|s| &s[vstart..]));
                    self.block.id_field = true;
                }
            }
            b"retry" => {
                if !value.is_empty() && value.iter().all(u8::is_ascii_digit) {
                    let ms = value.iter().fold(0u64, |acc, d| {
                        acc.saturating_mul(10).saturating_add(u64::from(d - b'0'))
                    });
                    self.retry = Some(ms);
                    self.block.retry = Some(ms);
                } else {
                    self.ignored_retries += 1;
                }
            }
            _ => self.unknown_fields += 1,
        }
    }

    /// Appends a `data` line's value that starts at input offset `at`;
    /// `text` is the value as `&str` if it is valid UTF-8.
    fn data_line(&mut self, value: &[u8], text: Option<&str>, at: usize) {
        let b = &mut self.block;
        if b.data_lines > 0 {
            b.data.push('\n');
        } else {
            // The buffer is moved into the event at dispatch; size it for the
            // common single-line event.
            b.data.reserve_exact(value.len());
        }
        b.data_lines += 1;
        if let Some(s) = text {
            b.segs.push(Seg {
                data: b.data.len(),
                input: at,
                len: value.len(),
                replacement: false,
            });
            b.data.push_str(s);
            return;
        }
        let mut input = at;
        for chunk in value.utf8_chunks() {
            let valid = chunk.valid();
            if !valid.is_empty() {
                b.segs.push(Seg {
                    data: b.data.len(),
                    input,
                    len: valid.len(),
                    replacement: false,
                });
                b.data.push_str(valid);
                input += valid.len();
            }
            let invalid = chunk.invalid();
            if !invalid.is_empty() {
                b.segs.push(Seg {
                    data: b.data.len(),
                    input,
                    len: invalid.len(),
                    replacement: true,
                });
                b.data.push('\u{FFFD}');
                input += invalid.len();
            }
        }
    }

    /// Handles a blank line whose line break ends at input offset `end`.
    fn blank_line(&mut self, end: usize) {
        let Some(start) = self.block.start else {
            return;
        };
        let b = &mut self.block;
        if !b.has_fields {
            b.reset();
            return;
        }
        if b.id_field {
            self.committed_id.clone_from(&self.last_event_id);
        }
        if b.data.is_empty() {
            self.skipped.push(SkippedEvent {
                kind: if b.data_lines == 0 {
                    SkipKind::NoData
                } else {
                    SkipKind::EmptyData
                },
                event_type: b.event_type.clone(),
                last_event_id: self.last_event_id.clone(),
                id_field: b.id_field,
                retry: b.retry,
                start,
                end,
            });
        } else {
            let explicit_type = !b.event_type.is_empty();
            self.events.push(Event {
                index: self.taken + self.events.len(),
                // The usual type is not copied for every event.
                event_type: if !explicit_type || b.event_type == "message" {
                    Cow::Borrowed("message")
                } else {
                    Cow::Owned(b.event_type.clone())
                },
                explicit_type,
                data: std::mem::take(&mut b.data),
                data_lines: b.data_lines,
                last_event_id: self.last_event_id.clone(),
                id_field: b.id_field,
                retry: b.retry,
                start,
                end,
                first_seg: b.segs[0],
                more_segs: b.segs[1..].to_vec(),
            });
        }
        b.reset();
    }
}

/// Appends `value` decoded as UTF-8 (lossily unless `text` already holds it).
fn push_decoded(dst: &mut String, value: &[u8], text: Option<&str>) {
    match text {
        Some(s) => dst.push_str(s),
        None => dst.push_str(&String::from_utf8_lossy(value)),
    }
}

/// Index of the first CR or LF in `hay`, scanning sixteen bytes at a time.
fn find_eol(hay: &[u8]) -> Option<usize> {
    /// Flags (high bit of the byte) every CR or LF byte in `w`; the lowest
    /// flag is exact (borrows only create false flags above a true one).
    #[inline(always)]
    fn flags(w: u64) -> u64 {
        const LO: u64 = u64::from_ne_bytes([0x01; 8]);
        const HI: u64 = u64::from_ne_bytes([0x80; 8]);
        const LF: u64 = u64::from_ne_bytes([b'\n'; 8]);
        const CR: u64 = u64::from_ne_bytes([b'\r'; 8]);
        let lf = w ^ LF;
        let cr = w ^ CR;
        (lf.wrapping_sub(LO) & !lf | cr.wrapping_sub(LO) & !cr) & HI
    }
    #[inline(always)]
    fn word(b: &[u8]) -> u64 {
        u64::from_le_bytes(b.try_into().expect("8 bytes"))
    }
    let mut blocks = hay.chunks_exact(16);
    let mut offset = 0;
    for block in &mut blocks {
        let (a, b) = (flags(word(&block[..8])), flags(word(&block[8..])));
        if a | b != 0 {
            let hit = if a != 0 {
                a.trailing_zeros()
            } else {
                64 + b.trailing_zeros()
            };
            return Some(offset + (hit / 8) as usize);
        }
        offset += 16;
    }
    blocks
        .remainder()
        .iter()
        .position(|&b| b == b'\n' || b == b'\r')
        .map(|p| offset + p)
}

/// Parses a complete event stream in one go.
///
/// Equivalent to feeding `input` to a new [`Parser`] and calling
/// [`Parser::finish`]; lines are processed as slices of `input`, so the only
/// allocations are those of the results.
pub fn parse(input: &[u8]) -> Parsed {
    let mut parser = Parser::new();
    parser.feed(input);
    parser.finish()
}

/// Parses a complete event stream handing each event to `each` as it is dispatched, so that a
/// long stream is never held as all of its events: the input is fed in pieces of 1 MiB and the
/// events taken after each ([`Parser::take_events`]). What it returns is what [`parse`] returns
/// without its events.
pub fn parse_each(input: &[u8], mut each: impl FnMut(Event)) -> Parsed {
    let mut parser = Parser::new();
    for piece in input.chunks(1 << 20) {
        parser.feed(piece);
        parser.take_events().into_iter().for_each(&mut each);
    }
    let mut parsed = parser.finish();
    std::mem::take(&mut parsed.events)
        .into_iter()
        .for_each(each);
    parsed
}

#[cfg(test)]
mod tests {
    use super::*;
    use rstest::rstest;

    #[test]
    fn parse_each_hands_over_what_parse_gives() {
        // Past one 1 MiB piece, with CRLF pairs and events falling across piece ends.
        let mut input = b"\xef\xbb\xbf: hi\r\n".to_vec();
        let mut n = 0;
        while input.len() < (1 << 20) + 5000 {
            input.extend_from_slice(format!("id: {n}\r\ndata: {{\"n\":{n}}}\r\n\r\n").as_bytes());
            n += 1;
        }
        input.extend_from_slice(b"data: tail");
        let whole = parse(&input);
        let mut events = Vec::new();
        let mut parsed = parse_each(&input, |e| events.push(e));
        assert!(parsed.events.is_empty());
        assert_eq!(events.len(), n);
        parsed.events = events;
        assert_eq!(parsed, whole);
    }

    fn one(input: &[u8]) -> Event {
        let p = parse(input);
        assert_eq!(p.events.len(), 1, "{p:#?}");
        p.events.into_iter().next().unwrap()
    }

    fn chunked(input: &[u8], size: usize) -> Parsed {
        let mut parser = Parser::new();
        for c in input.chunks(size) {
            parser.feed(c);
        }
        parser.finish()
    }

    #[test]
    fn simple_event() {
        let p = parse(b"data: hello\n\n");
        assert_eq!(p.events.len(), 1);
        let e = &p.events[0];
        assert_eq!(e.index, 0);
        assert_eq!(e.data, "hello");
        assert_eq!(e.event_type, "message");
        assert!(!e.explicit_type);
        assert_eq!(e.last_event_id, "");
        assert!(!e.id_field);
        assert_eq!(e.retry, None);
        assert_eq!((e.start, e.end), (0, 13));
        assert_eq!(e.data_lines, 1);
        assert!(p.skipped_empty.is_empty());
        assert_eq!(p.tail, None);
        assert_eq!(p.len, 13);
        assert!(!p.bom);
        assert_eq!(p.invalid_utf8_at, None);
    }

    #[rstest]
    #[case::lf(b"data: a\ndata: b\n\n", 17)]
    #[case::crlf(b"data: a\r\ndata: b\r\n\r\n", 20)]
    #[case::cr(b"data: a\rdata: b\r\r", 17)]
    #[case::crlf_lf(b"data: a\r\ndata: b\n\n", 18)]
    #[case::cr_lf_crlf(b"data: a\rdata: b\n\r\n", 18)]
    #[case::lf_cr_crlf(b"data: a\ndata: b\r\r\n", 18)]
    fn line_endings(#[case] input: &[u8], #[case] end: usize) {
        let p = parse(input);
        assert_eq!(p.events.len(), 1);
        let e = &p.events[0];
        assert_eq!(e.data, "a\nb");
        assert_eq!((e.start, e.end), (0, end));
        assert_eq!(p.tail, None);
    }

    #[test]
    fn cr_then_lf_is_one_break_but_lf_then_cr_is_two() {
        // "\r\n" is one line break, so no blank line here.
        let p = parse(b"data: x\r\n");
        assert!(p.events.is_empty());
        // "\n\r" is two line breaks: the second line is blank.
        let p = parse(b"data: x\n\r");
        assert_eq!(p.events[0].end, 9);
        // "\r\r" likewise.
        let p = parse(b"data: x\r\r");
        assert_eq!(p.events[0].end, 9);
    }

    #[test]
    fn crlf_split_across_chunks() {
        let input = b"data: x\r\n\r\ndata: y\r\n\r\n";
        let whole = parse(input);
        assert_eq!(whole.events.len(), 2);
        assert_eq!(whole.events[0].end, 11);
        assert_eq!(whole.events[1].start, 11);
        for size in 1..input.len() {
            assert_eq!(chunked(input, size), whole, "chunk size {size}");
        }
    }

    #[test]
    fn blank_cr_at_chunk_end_is_held_until_next_chunk() {
        let mut p = Parser::new();
        assert!(p.feed(b"data: x\r\n\r").is_empty());
        let got = p.feed(b"\ndata: y\n\n");
        assert_eq!(got.len(), 2);
        assert_eq!(got[0].end, 11);
        assert_eq!(got[1].data, "y");
        let parsed = p.finish();
        assert_eq!(parsed.events.len(), 2);

        // Without a following LF the held event ends at the CR.
        let mut p = Parser::new();
        assert!(p.feed(b"data: x\r\r").is_empty());
        let got = p.feed(b"data: y\n\n");
        assert_eq!(got[0].end, 9);
        assert_eq!(got[1].start, 9);

        // `finish` dispatches it too.
        let mut p = Parser::new();
        assert!(p.feed(b"data: x\r\r").is_empty());
        let parsed = p.finish();
        assert_eq!(parsed.events[0].end, 9);
        assert_eq!(parsed.tail, None);
    }

    #[test]
    fn feed_returns_new_events_and_finish_returns_all() {
        let mut p = Parser::new();
        assert!(p.feed(b"data: a\n").is_empty());
        let got = p.feed(b"\ndata: b\n\ndata: c\n\n");
        assert_eq!(
            got.iter().map(|e| e.data.as_str()).collect::<Vec<_>>(),
            ["a", "b", "c"]
        );
        assert!(p.feed(b"").is_empty());
        assert_eq!(p.events().len(), 3);
        assert_eq!(p.position(), 27);
        let parsed = p.finish();
        assert_eq!(parsed.events.len(), 3);
        assert_eq!(
            parsed.events.iter().map(|e| e.index).collect::<Vec<_>>(),
            [0, 1, 2]
        );
    }

    #[test]
    fn multi_line_data_joined_with_lf() {
        let e = one(b"data: {\ndata:   \"a\": 1\ndata: }\n\n");
        assert_eq!(e.data, "{\n  \"a\": 1\n}");
        assert_eq!(e.data_lines, 3);
    }

    #[rstest]
    #[case::space(b"data: x\n\n", "x")]
    #[case::no_space(b"data:x\n\n", "x")]
    #[case::two_spaces(b"data:  x\n\n", " x")]
    #[case::trailing_space(b"data: x \n\n", "x ")]
    #[case::colon_in_value(b"data: a:b: c\n\n", "a:b: c")]
    #[case::tab_kept(b"data:\tx\n\n", "\tx")]
    #[case::two_empty(b"data\ndata\n\n", "\n")]
    #[case::empty_then_value(b"data:\ndata: x\n\n", "\nx")]
    #[case::only_space_kept(b"data:  \n\n", " ")]
    fn data_values(#[case] input: &[u8], #[case] data: &str) {
        assert_eq!(one(input).data, data);
    }

    #[test]
    fn data_without_colon_is_empty_value() {
        let p = parse(b"data\n\n");
        assert!(p.events.is_empty());
        assert_eq!(p.skipped_empty.len(), 1);
        assert_eq!(p.skipped_empty[0].kind, SkipKind::EmptyData);
        assert_eq!(p.unknown_fields, 0);
    }

    #[test]
    fn event_type() {
        let p = parse(b"event: notify\ndata: a\n\ndata: b\n\nevent:\ndata: c\n\nevent: x\nevent: y\ndata: d\n\n");
        let types: Vec<_> = p
            .events
            .iter()
            .map(|e| (e.event_type.as_ref(), e.explicit_type))
            .collect();
        assert_eq!(
            types,
            [
                ("notify", true),
                ("message", false),
                ("message", false),
                ("y", true)
            ]
        );
        assert!(one(b"event: message\ndata: x\n\n").explicit_type);
    }

    #[test]
    fn id_persists_and_nul_is_rejected() {
        let p = parse(
            b"id: 1\ndata: a\n\ndata: b\n\nid: x\0y\ndata: c\n\nid\ndata: d\n\nid: 2\ndata: e\n\n",
        );
        let ids: Vec<_> = p
            .events
            .iter()
            .map(|e| (e.last_event_id.as_str(), e.id_field))
            .collect();
        assert_eq!(
            ids,
            [
                ("1", true),
                ("1", false),
                ("1", false),
                ("", true),
                ("2", true)
            ]
        );
        assert_eq!(p.ignored_ids, 1);
        assert_eq!(p.last_event_id, "2");
    }

    #[test]
    fn id_in_tail_does_not_change_committed_id() {
        let p = parse(b"id: 1\ndata: a\n\nid: 2\ndata: b\n");
        assert_eq!(p.last_event_id, "1");
        let t = p.tail.unwrap();
        assert_eq!(t.last_event_id, "2");
        assert_eq!(t.partial_data, "b");
        // A skipped block commits its id as WHATWG step 1 does.
        let p = parse(b"id: 1\ndata: a\n\nid: 2\n\n");
        assert_eq!(p.last_event_id, "2");
    }

    #[rstest]
    #[case::digits(b"retry: 1500\n", Some(1500), 0)]
    #[case::no_space(b"retry:0\n", Some(0), 0)]
    #[case::leading_zeros(b"retry: 007\n", Some(7), 0)]
    #[case::letters(b"retry: 15a0\n", None, 1)]
    #[case::negative(b"retry: -1\n", None, 1)]
    #[case::plus(b"retry: +1\n", None, 1)]
    #[case::empty(b"retry:\n", None, 1)]
    #[case::two_spaces(b"retry:  5\n", None, 1)]
    #[case::trailing_space(b"retry: 5 \n", None, 1)]
    #[case::fraction(b"retry: 1.5\n", None, 1)]
    #[case::overflow(b"retry: 99999999999999999999999\n", Some(u64::MAX), 0)]
    #[case::last_wins(b"retry: 1\nretry: 2\nretry: x\n", Some(2), 1)]
    fn retry_digits_only(#[case] line: &[u8], #[case] retry: Option<u64>, #[case] ignored: usize) {
        let mut input = line.to_vec();
        input.extend_from_slice(b"data: x\n\n");
        let p = parse(&input);
        assert_eq!(p.retry, retry);
        assert_eq!(p.events[0].retry, retry);
        assert_eq!(p.ignored_retries, ignored);
    }

    #[test]
    fn retry_persists_globally_but_not_per_event() {
        let p = parse(b"retry: 10\n\ndata: a\n\nretry: 20\n");
        assert_eq!(p.retry, Some(20));
        assert_eq!(p.events[0].retry, None);
        assert_eq!(p.skipped_empty[0].retry, Some(10));
        assert_eq!(p.skipped_empty[0].kind, SkipKind::NoData);
    }

    #[rstest]
    #[case::no_space(b"id: 0b6c\ndata:\n\n")]
    #[case::space(b"id: 0b6c\ndata: \n\n")]
    #[case::crlf(b"id: 0b6c\r\ndata:\r\n\r\n")]
    #[case::data_first(b"data:\nid: 0b6c\n\n")]
    fn priming_event_is_skipped(#[case] priming: &[u8]) {
        let mut input = priming.to_vec();
        input.extend_from_slice(b"data: {}\n\n");
        let p = parse(&input);
        assert_eq!(p.skipped_empty.len(), 1);
        let s = &p.skipped_empty[0];
        assert_eq!(s.kind, SkipKind::EmptyData);
        assert!(s.is_priming());
        assert_eq!(s.last_event_id, "0b6c");
        assert_eq!((s.start, s.end), (0, priming.len()));
        assert_eq!(p.events.len(), 1);
        assert_eq!(p.events[0].index, 0);
        assert_eq!(p.events[0].data, "{}");
        assert_eq!(p.events[0].start, priming.len());
        assert_eq!(p.events[0].last_event_id, "0b6c");
        assert!(!p.events[0].id_field);
    }

    #[test]
    fn empty_data_without_id_is_not_priming() {
        let p = parse(b"data:\n\n");
        assert_eq!(p.skipped_empty[0].kind, SkipKind::EmptyData);
        assert!(!p.skipped_empty[0].is_priming());
    }

    #[rstest]
    #[case::event_only(b"event: x\n\n", "x")]
    #[case::id_only(b"id: 1\n\n", "")]
    #[case::unknown_only(b"foo: bar\n\n", "")]
    fn no_data_blocks_are_skipped(#[case] input: &[u8], #[case] event_type: &str) {
        let p = parse(input);
        assert!(p.events.is_empty());
        assert_eq!(p.skipped_empty.len(), 1);
        assert_eq!(p.skipped_empty[0].kind, SkipKind::NoData);
        assert_eq!(p.skipped_empty[0].event_type, event_type);
        assert_eq!(p.skipped_empty[0].end, input.len());
    }

    #[test]
    fn event_type_resets_after_skipped_block() {
        let p = parse(b"event: x\n\ndata: a\n\n");
        assert_eq!(p.events[0].event_type, "message");
    }

    #[test]
    fn comments_are_counted_and_ignored() {
        let p = parse(b": ping\n\n:\n\n: a\ndata: x\n: b\n\n:: c\n");
        assert_eq!(p.comments, 5);
        assert!(p.skipped_empty.is_empty());
        assert_eq!(p.events.len(), 1);
        let e = &p.events[0];
        assert_eq!(e.data, "x");
        // The event starts at its first line, the comment ": a".
        assert_eq!(e.start, 11);
        // Trailing complete comments make no tail.
        assert_eq!(p.tail, None);
    }

    #[test]
    fn blank_lines_between_events() {
        let p = parse(b"\n\ndata: a\n\n\n\ndata: b\n\n");
        assert_eq!(p.events[0].start, 2);
        assert_eq!(p.events[0].end, 11);
        assert_eq!(p.events[1].start, 13);
        assert!(p.skipped_empty.is_empty());
    }

    #[test]
    fn unknown_fields_are_counted() {
        let p = parse(b"Data: x\nfoo: bar\nfoo\n data: y\ndata: z\n\n");
        assert_eq!(p.unknown_fields, 4);
        assert_eq!(p.events[0].data, "z");
    }

    #[test]
    fn bom_is_stripped_once() {
        let p = parse(b"\xEF\xBB\xBFdata: x\n\n");
        assert!(p.bom);
        assert_eq!(p.events[0].data, "x");
        assert_eq!(p.events[0].start, 3);
        assert_eq!(p.events[0].end, 12);
        assert_eq!(p.events[0].input_offset(0), 9);
        assert_eq!(p.len, 12);

        // A second BOM is part of the first line's field name.
        let p = parse(b"\xEF\xBB\xBF\xEF\xBB\xBFdata: x\n\n");
        assert!(p.bom);
        assert!(p.events.is_empty());
        assert_eq!(p.unknown_fields, 1);

        // A BOM that is not at the very start is not stripped.
        let p = parse(b"\n\xEF\xBB\xBFdata: x\n\n");
        assert!(!p.bom);
        assert_eq!(p.unknown_fields, 1);
    }

    #[test]
    fn bom_split_across_chunks() {
        let input = b"\xEF\xBB\xBFdata: x\n\n";
        let whole = parse(input);
        for size in 1..=3 {
            assert_eq!(chunked(input, size), whole);
        }
        let mut p = Parser::new();
        p.feed(b"\xEF");
        p.feed(b"");
        p.feed(b"\xBB");
        assert_eq!(p.position(), 2);
        p.feed(b"\xBF");
        assert_eq!(p.position(), 3);
        assert!(p.finish().bom);
    }

    #[rstest]
    #[case::prefix1(b"\xEF")]
    #[case::prefix2(b"\xEF\xBB")]
    #[case::prefix_then_text(b"\xEF\xBBdata: x\n\n")]
    fn bom_prefix_is_not_a_bom(#[case] input: &[u8]) {
        let p = parse(input);
        assert!(!p.bom);
        assert_eq!(p.invalid_utf8_at, Some(0));
        assert_eq!(p.len, input.len());
        assert_eq!(chunked(input, 1), p);
    }

    #[test]
    fn bom_only() {
        let p = parse(b"\xEF\xBB\xBF");
        assert!(p.bom);
        assert_eq!(p.tail, None);
        assert_eq!(p.len, 3);
        assert_eq!(p.invalid_utf8_at, None);
    }

    #[test]
    fn unterminated_event_is_the_tail() {
        let p = parse(b"data: a\n\nid: 9\nevent: e\ndata: b\ndata: c\n");
        assert_eq!(p.events.len(), 1);
        let t = p.tail.unwrap();
        assert_eq!(t.start, 9);
        assert_eq!(t.partial_data, "b\nc");
        assert_eq!(t.data_lines, 2);
        assert!(t.has_fields);
        assert_eq!(t.event_type, "e");
        assert_eq!(t.last_event_id, "9");
        assert_eq!(t.partial_line, None);
    }

    #[test]
    fn input_ending_mid_line() {
        let p = parse(b"data: a\n\ndata: {\"jsonrpc\"");
        let t = p.tail.unwrap();
        assert_eq!(t.start, 9);
        assert!(!t.has_fields);
        assert_eq!(t.partial_data, "");
        let pl = t.partial_line.unwrap();
        assert_eq!(pl.start, 9);
        assert_eq!(pl.bytes, b"data: {\"jsonrpc\"");
        assert_eq!(pl.end(), p.len);

        let p = parse(b"data: a\ndata: b");
        let t = p.tail.unwrap();
        assert_eq!(t.start, 0);
        assert!(t.has_fields);
        assert_eq!(t.partial_data, "a");
        assert_eq!(t.partial_line.unwrap().start, 8);

        // A partial comment still makes a tail (the line is unterminated).
        let p = parse(b": pi");
        let t = p.tail.unwrap();
        assert_eq!(t.partial_line.unwrap().bytes, b": pi");
        assert_eq!(p.comments, 0);
    }

    #[test]
    fn empty_input() {
        let p = parse(b"");
        assert_eq!(p, Parser::new().finish());
        assert!(p.events.is_empty());
        assert_eq!(p.tail, None);
        assert_eq!(p.len, 0);
    }

    #[rstest]
    #[case::in_data(b"data: a\xFFb\n\n", 7, "a\u{FFFD}b")]
    #[case::truncated(b"data: \xE2\x82\n\n", 6, "\u{FFFD}")]
    #[case::overlong(b"data: \xC0\xAFx\n\n", 6, "\u{FFFD}\u{FFFD}x")]
    #[case::surrogate(b"data: \xED\xA0\x80\n\n", 6, "\u{FFFD}\u{FFFD}\u{FFFD}")]
    fn invalid_utf8_in_data(#[case] input: &[u8], #[case] at: usize, #[case] data: &str) {
        let p = parse(input);
        assert_eq!(p.invalid_utf8_at, Some(at));
        assert_eq!(p.events[0].data, data);
        assert_eq!(p.events[0].input_offset(0), 6);
    }

    #[test]
    fn invalid_utf8_first_offset_anywhere() {
        assert_eq!(
            parse(b"data: ok\n: \xFF\ndata: \xFF\n\n").invalid_utf8_at,
            Some(11)
        );
        assert_eq!(parse(b"ev\xFFent: x\n").invalid_utf8_at, Some(2));
        assert_eq!(
            parse(b"event: \xFFx\ndata: y\n\n").events[0].event_type,
            "\u{FFFD}x"
        );
        assert_eq!(
            parse(b"id: \xFF\ndata: y\n\n").events[0].last_event_id,
            "\u{FFFD}"
        );
        assert_eq!(
            parse(b"data: ok\n\ndata: \xE2\x82").invalid_utf8_at,
            Some(16)
        );
        let valid = "data: caf\u{e9} \u{1F600}\n\n".as_bytes();
        assert_eq!(parse(valid).invalid_utf8_at, None);
        assert_eq!(chunked(valid, 1), parse(valid));
    }

    #[test]
    fn input_offset_maps_data_back_to_input() {
        let input = b": c\r\ndata: ab\r\ndata:cd\rdata\n\n";
        let e = one(input);
        assert_eq!(e.data, "ab\ncd\n");
        let expect = [
            (0, 11),  // 'a'
            (1, 12),  // 'b'
            (2, 13),  // joiner -> CR of line 2
            (3, 20),  // 'c'
            (4, 21),  // 'd'
            (5, 22),  // joiner -> CR of line 3
            (6, 27),  // empty value of `data` (no colon): end of its line
            (99, 27), // clamped
        ];
        for (d, i) in expect {
            assert_eq!(e.input_offset(d), i, "data offset {d}");
        }
        for (d, i) in expect.iter().take(2) {
            assert_eq!(input[*i], e.data.as_bytes()[*d]);
        }
    }

    #[test]
    fn input_offset_through_replacement_chars() {
        // data "x\u{FFFD}y": 'x' at 6, invalid 2 bytes at 7..9, 'y' at 9.
        let e = one(b"data: x\xE2\x82y\n\n");
        assert_eq!(e.data, "x\u{FFFD}y");
        let got: Vec<_> = (0..=e.data.len()).map(|d| e.input_offset(d)).collect();
        assert_eq!(got, [6, 7, 7, 7, 9, 10]);
    }

    #[test]
    fn input_offset_with_multibyte_chars() {
        let input = "data: \u{e9}t\u{e9}\n\n".as_bytes();
        let e = one(input);
        let at = e.data.find('t').unwrap();
        assert_eq!(input[e.input_offset(at)], b't');
    }

    #[test]
    fn find_eol_matches_naive_scan() {
        let mut hay = vec![b'a'; 40];
        assert_eq!(find_eol(&hay), None);
        for i in 0..hay.len() {
            for b in [b'\n', b'\r'] {
                hay[i] = b;
                assert_eq!(find_eol(&hay), Some(i));
                // Bytes near CR/LF must not cause false hits.
                hay[i] = b + 1;
                assert_eq!(find_eol(&hay), None);
                hay[i] = b.wrapping_sub(1) | 0x80;
                assert_eq!(find_eol(&hay), None);
                hay[i] = b'a';
            }
        }
        hay[9] = b'\r';
        hay[10] = b'\n';
        assert_eq!(find_eol(&hay), Some(9));
        assert_eq!(find_eol(&hay[10..]), Some(0));
    }

    #[test]
    fn long_lines_and_many_events() {
        let payload = "x".repeat(5000);
        let mut input = Vec::new();
        for i in 0..50 {
            input.extend_from_slice(format!("id: {i}\ndata: {payload}\n\n").as_bytes());
        }
        let p = parse(&input);
        assert_eq!(p.events.len(), 50);
        assert!(p.events.iter().all(|e| e.data == payload));
        assert_eq!(p.last_event_id, "49");
        assert_eq!(chunked(&input, 7), p);
    }
}
