//! The revision-independent reading of an exchange: the request's facts, the media type, and
//! the body read exactly once (a JSON body onto a tape, its `Value` built only if a check asks).

use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::vocab::protocol::{header, meta};
use crate::wire::deep::JsonFailure;
use crate::wire::exchange::Exchange;
use crate::wire::jsonref::JsonRef;
use crate::wire::stdio::read::StdioRead;
use crate::wire::surrogate::{self, LoneSurrogate};
use crate::wire::tape::Tape;

pub(crate) use crate::wire::message::json_error;
pub use crate::wire::message::{
    Accepted, Candidate, Digest, JsonError, MessageKind, StreamMessage, kind_of,
};
pub use crate::wire::stream::Stream;

/// The response's media type, compared case-insensitively with parameters ignored.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Media {
    /// `application/json`.
    Json,
    /// `text/event-stream`.
    EventStream,
    /// Any other media type (its essence, lowercased).
    Other(String),
    /// No Content-Type header.
    Missing,
}

impl Media {
    /// Parses a Content-Type value.
    pub fn parse(header: Option<&str>) -> Media {
        let Some(h) = header else {
            return Media::Missing;
        };
        let essence = h.split(';').next().unwrap_or("").trim();
        if essence.eq_ignore_ascii_case("application/json") {
            Media::Json
        } else if essence.eq_ignore_ascii_case("text/event-stream") {
            Media::EventStream
        } else if essence.is_empty() {
            Media::Missing
        } else {
            Media::Other(essence.to_ascii_lowercase())
        }
    }

    /// The essence as text (`(none)` when missing).
    pub fn as_str(&self) -> &str {
        match self {
            Media::Json => "application/json",
            Media::EventStream => "text/event-stream",
            Media::Other(s) => s,
            Media::Missing => "(none)",
        }
    }
}

/// The body, read once.
#[derive(Clone, Debug)]
pub enum Body {
    /// No bytes.
    Empty,
    /// A JSON body: read onto a tape, or parsed where the tape does not read it (see
    /// [`Analysis::json`]).
    Json,
    /// A JSON-branch body that is not UTF-8: the first bad byte.
    NotUtf8 {
        /// Byte offset of the first invalid sequence.
        offset: usize,
    },
    /// A JSON-branch body that does not parse.
    BadJson(JsonError),
    /// A body not read as JSON (e.g. an HTML error page).
    Opaque,
    /// A `text/event-stream` body, split into events and messages.
    Stream(Box<Stream>),
    /// A JSON-branch body nesting deeper than [`crate::wire::deep::MAX_DEPTH`]: not read.
    TooDeep {
        /// Byte offset of the bracket that opens the first level past the limit.
        offset: usize,
    },
}

/// Facts about the request as recorded.
#[derive(Clone, Debug, Default)]
pub struct RequestFacts<'x> {
    /// The JSON-RPC message as sent.
    pub body: Option<&'x Value>,
    /// Its `id`, when it is a request.
    pub id: Option<&'x Value>,
    /// Its `method`.
    pub method: Option<&'x str>,
    /// Whether it is a notification (`method` and no `id`).
    pub is_notification: bool,
    /// `params`.
    pub params: Option<&'x Map<String, Value>>,
    /// `params._meta`.
    pub meta: Option<&'x Map<String, Value>>,
    /// `params.name` of a tools/call.
    pub tool_name: Option<&'x str>,
    /// The `MCP-Protocol-Version` header.
    pub header_version: Option<&'x str>,
    /// `_meta["io.modelcontextprotocol/protocolVersion"]`.
    pub meta_version: Option<&'x str>,
    /// `_meta["io.modelcontextprotocol/clientCapabilities"]`.
    pub capabilities: Option<&'x Map<String, Value>>,
    /// `_meta.progressToken`.
    pub progress_token: Option<&'x Value>,
    /// `_meta["io.modelcontextprotocol/logLevel"]`.
    pub log_level: Option<&'x str>,
    /// `params.task` (2025-11-25 task augmentation).
    pub task: Option<&'x Value>,
}

impl<'x> RequestFacts<'x> {
    /// Reads the request side of an exchange.
    pub fn of(ex: &'x Exchange) -> RequestFacts<'x> {
        let body = ex.request.body.as_ref();
        // Each object is read in one pass over its members (cheaper than a lookup per member).
        let (mut method, mut id, mut params) = (None, None, None);
        for (k, v) in body.and_then(Value::as_object).into_iter().flatten() {
            match k.as_str() {
                "method" => method = v.as_str(),
                "id" => id = Some(v),
                "params" => params = v.as_object(),
                _ => {}
            }
        }
        let (mut meta, mut tool_name, mut task) = (None, None, None);
        for (k, v) in params.into_iter().flatten() {
            match k.as_str() {
                "_meta" => meta = v.as_object(),
                "name" => tool_name = v.as_str(),
                "task" => task = Some(v),
                _ => {}
            }
        }
        let (mut meta_version, mut capabilities, mut progress_token, mut log_level) =
            (None, None, None, None);
        for (k, v) in meta.into_iter().flatten() {
            match k.as_str() {
                meta::PROTOCOL_VERSION => meta_version = v.as_str(),
                meta::CLIENT_CAPABILITIES => capabilities = v.as_object(),
                meta::PROGRESS_TOKEN => progress_token = Some(v),
                meta::LOG_LEVEL => log_level = v.as_str(),
                _ => {}
            }
        }
        RequestFacts {
            body,
            id,
            method,
            is_notification: method.is_some() && id.is_none(),
            params,
            meta,
            tool_name,
            header_version: ex
                .request
                .headers
                .get(header::PROTOCOL_VERSION)
                .map(str::trim),
            meta_version,
            capabilities,
            progress_token,
            log_level,
            task,
        }
    }

    /// Whether the request declared an extension in `clientCapabilities.extensions`.
    pub fn declares_extension(&self, ext: &str) -> bool {
        self.capabilities
            .and_then(|c| c.get("extensions"))
            .and_then(Value::as_object)
            .is_some_and(|e| e.contains_key(ext))
    }

    /// Whether a response is expected (the request is a request, or was not recorded).
    pub fn expects_response(&self) -> bool {
        !self.is_notification
    }
}

/// The analysed exchange.
#[derive(Debug)]
pub struct Analysis<'x> {
    /// The exchange.
    pub ex: &'x Exchange,
    /// Request facts.
    pub req: RequestFacts<'x>,
    /// Response media type.
    pub media: Media,
    /// The body, read once.
    pub body: Body,
    /// The body as text, when it was read as one JSON document (validated once, on reading).
    json_text: Option<&'x str>,
    /// A JSON body read onto a tape (`None` where the tape does not read it).
    tape: Option<Tape<'x>>,
    /// A JSON body's `Value`: parsed on reading where the tape does not read the body, else
    /// built on first use (only a check that needs a `Value` asks for it).
    value: OnceLock<Value>,
    /// The deepest nesting of the JSON read, when deeper than `serde_json`'s limit (else 0).
    depth: usize,
    /// A stdio exchange's output, read line by line (its response, if any, is the body).
    stdio: Option<Box<StdioRead>>,
    /// A JSON body's first lone surrogate escape, when it has one.
    lone_surrogate: Option<LoneSurrogate>,
}

impl<'x> Analysis<'x> {
    /// Analyses an exchange: reads the request, branches on Content-Type, reads the body once
    /// (a JSON body onto a tape where the tape reads it, else parsed).
    /// Every message of a stream keeps its parsed value.
    pub fn new(ex: &'x Exchange) -> Analysis<'x> {
        Self::read(ex, None, true)
    }

    /// Analyses an exchange as [`Analysis::new`] does, but parses a JSON body into its
    /// `Value` on reading instead of reading it onto a tape: the reading the tape is held to
    /// (the verdicts are the same either way).
    pub fn parsed(ex: &'x Exchange) -> Analysis<'x> {
        Self::read(ex, None, false)
    }

    /// Analyses an exchange that is judged under revisions whose schemas `accepted` stands
    /// for: `accepted(method, message)` says whether a stream notification with that method
    /// validates under each of them (true too where a revision defines no such method). A
    /// notification accepted as read keeps only its [`Digest`], so that a long stream is held
    /// as a few members per message rather than as every message's tree; the checks read the
    /// same members either way. A notification is first read onto a [`tape`](crate::wire::tape) and put to
    /// `accepted` as it is there: one accepted that way never has its `Value` built.
    pub fn judged(ex: &'x Exchange, accepted: Accepted<'_>) -> Analysis<'x> {
        Self::read(ex, Some(accepted), true)
    }

    fn read(ex: &'x Exchange, accepted: Option<Accepted<'_>>, on_tape: bool) -> Analysis<'x> {
        let req = RequestFacts::of(ex);
        let media = Media::parse(ex.response_headers.get("Content-Type"));
        let (read, stdio) = match &ex.stdio {
            // Over stdio the response is a line (or the lines of a pretty-printed message) of
            // the output, read as a JSON body is.
            Some(s) => {
                let (lines, deepest) = crate::wire::stdio::read::read(&s.stdout, req.id, accepted);
                let mut read = match &lines.frame {
                    Some(r) => read_json(&s.stdout[r.clone()], on_tape),
                    None => Read::bare(Body::Empty, 0),
                };
                read.depth = read.depth.max(deepest);
                (read, Some(Box::new(lines)))
            }
            None => (read_body(ex, &media, req.id, accepted, on_tape), None),
        };
        Analysis {
            ex,
            req,
            media,
            body: read.body,
            json_text: read.text,
            tape: read.tape,
            value: read.value.map(OnceLock::from).unwrap_or_default(),
            depth: read.depth,
            lone_surrogate: read.lone_surrogate,
            stdio,
        }
    }

    /// The first lone surrogate escape of the JSON read (its offset in the body, and the SSE
    /// event it is in), with the count over the body: such text is read with U+FFFD in its
    /// place (see [`surrogate`]).
    pub fn lone_surrogate(&self) -> Option<(LoneSurrogate, Option<usize>)> {
        match (&self.body, self.lone_surrogate) {
            (_, Some(l)) => Some((l, None)),
            (Body::Stream(s), None) => s.lone_surrogate,
            _ => None,
        }
    }

    /// A stdio exchange's output, read line by line.
    pub fn stdio(&self) -> Option<&StdioRead> {
        self.stdio.as_deref()
    }

    /// The bytes the body was read from: the HTTP body, or over stdio the line(s) of the
    /// response (empty when there is none).
    pub fn body_bytes(&self) -> &'x [u8] {
        match (
            &self.ex.stdio,
            self.stdio.as_ref().and_then(|r| r.frame.clone()),
        ) {
            (Some(s), Some(frame)) => &s.stdout[frame],
            (Some(_), None) => &[],
            (None, _) => &self.ex.body,
        }
    }

    /// How the answer came, for messages: `HTTP 200`, or `over stdio`.
    pub fn how_answered(&self) -> String {
        match self.stdio {
            Some(_) => "over stdio".to_string(),
            None => format!("HTTP {}", self.ex.status),
        }
    }

    /// Whether the transport delivered an answer to read as the response: a 2xx HTTP status,
    /// or, over stdio (which has no status), always.
    pub fn delivered(&self) -> bool {
        self.stdio.is_some() || self.is_2xx()
    }

    /// How deep the JSON read nests, when deeper than `serde_json`'s recursion limit (0
    /// otherwise): walks over it, and dropping the analysis, must run within
    /// [`crate::wire::deep::on_stack_for`] this depth.
    pub fn nesting_depth(&self) -> usize {
        self.depth
    }

    /// The HTTP status.
    pub fn status(&self) -> u16 {
        self.ex.status
    }

    /// Whether the status is 2xx.
    pub fn is_2xx(&self) -> bool {
        (200..300).contains(&self.ex.status)
    }

    /// A JSON body's value: on its tape when it was read onto one, else parsed.
    pub fn json(&self) -> Option<JsonRef<'_>> {
        if !matches!(self.body, Body::Json) {
            return None;
        }
        match &self.tape {
            Some(t) => Some(JsonRef::Tape(t.root())),
            None => self.value.get().map(JsonRef::Value),
        }
    }

    /// Whether a JSON body is held as a parsed `Value` (parsed on reading, or built since
    /// because a check asked for it), rather than only on its tape.
    pub fn value_built(&self) -> bool {
        self.value.get().is_some()
    }

    /// A JSON body's value, parsed (built on first use from a body read onto a tape).
    pub fn json_value(&self) -> Option<&Value> {
        if !matches!(self.body, Body::Json) {
            return None;
        }
        // Parsed on reading, or read onto the tape, which holds what `serde_json` would read.
        if let Some(parsed) = self.value.get() {
            return Some(parsed);
        }
        let tape = self.tape.as_ref()?;
        Some(self.value.get_or_init(|| tape.root().to_value()))
    }

    /// The response message: the JSON object of the body. For a non-2xx status only when the
    /// object looks like JSON-RPC (has `jsonrpc`, `result` or `error`).
    pub fn message(&self) -> Option<JsonRef<'_>> {
        let obj = match &self.body {
            Body::Json => self.json().filter(|j| j.is_object())?,
            Body::Stream(s) => {
                return s
                    .final_message()?
                    .value
                    .as_ref()
                    .filter(|v| v.is_object())
                    .map(JsonRef::Value);
            }
            _ => return None,
        };
        (self.delivered() || looks_like_jsonrpc(obj)).then_some(obj)
    }

    /// The response message as a parsed value (built on first use from a body read onto a
    /// tape): for checks that need a `Value`.
    pub fn message_value(&self) -> Option<&Value> {
        match &self.body {
            Body::Json => self.message().and_then(|_| self.json_value()),
            Body::Stream(s) => s.final_message()?.value.as_ref(),
            _ => None,
        }
    }

    /// The raw text of the response message (for checks that must see the text, e.g.
    /// repeated keys).
    pub fn message_text(&self) -> Option<&str> {
        match &self.body {
            Body::Json => self.json_text,
            Body::Stream(s) => s.final_data.as_deref(),
            _ => None,
        }
    }

    /// The stream, when the body is an SSE stream.
    pub fn stream(&self) -> Option<&Stream> {
        match &self.body {
            Body::Stream(s) => Some(s),
            _ => None,
        }
    }

    /// The SSE event the response message came from (over stdio, the index of its first
    /// line), for locating findings.
    pub fn message_event(&self) -> Option<usize> {
        match &self.stdio {
            Some(r) => r.final_message().map(|m| m.event),
            None => self.stream()?.final_message().map(|m| m.event),
        }
    }

    /// Whether the body is read as JSON (JSON media, or JSON-looking text without a type).
    pub fn json_branch(&self) -> bool {
        matches!(
            self.body,
            Body::Json | Body::BadJson(_) | Body::NotUtf8 { .. }
        )
    }
}

/// Integer reading, kept here for callers of this module.
pub use crate::wire::number::as_integer;

/// Whether a JSON object in a non-2xx body is a JSON-RPC response (and so worth judging), as
/// opposed to a framework's own error document such as `{"error": "rate limited"}`.
fn looks_like_jsonrpc(obj: JsonRef<'_>) -> bool {
    let has = |k| obj.get(k).is_some();
    has("jsonrpc")
        || obj
            .get("error")
            .is_some_and(|e| e.is_object() && e.get("code").is_some())
        || (has("result") && has("id"))
}

/// A body as read.
struct Read<'x> {
    body: Body,
    /// Its text, when it is read as one JSON document.
    text: Option<&'x str>,
    /// The document on a tape, when the tape reads it.
    tape: Option<Tape<'x>>,
    /// The document parsed, when the tape does not read it.
    value: Option<Value>,
    /// How deep it nests past `serde_json`'s limit (else 0).
    depth: usize,
    /// Its first lone surrogate escape, when it has one (see [`surrogate`]).
    lone_surrogate: Option<LoneSurrogate>,
}

impl Read<'_> {
    fn bare(body: Body, depth: usize) -> Self {
        Read {
            body,
            text: None,
            tape: None,
            value: None,
            depth,
            lone_surrogate: None,
        }
    }
}

/// Reads the body: a JSON document onto a tape where it can be (its `Value` is then built only
/// when asked for), else parsed by `serde_json`, which stays the authority on what does not
/// read and why.
fn read_body<'x>(
    ex: &'x Exchange,
    media: &Media,
    request_id: Option<&Value>,
    accepted: Option<Accepted<'_>>,
    on_tape: bool,
) -> Read<'x> {
    let bytes = ex.body.as_slice();
    let sniff_json = || {
        bytes
            .iter()
            .find(|b| !b.is_ascii_whitespace())
            .is_some_and(|b| *b == b'{' || *b == b'[')
    };
    let json = match media {
        // An event stream is a stream even when it carried nothing: a server that opens the
        // stream and stays quiet until the connection ends has started an answer, not sent an
        // empty body.
        Media::EventStream => {
            let (stream, depth) = crate::wire::stream::read_stream(bytes, request_id, accepted);
            return Read::bare(Body::Stream(Box::new(stream)), depth);
        }
        _ if bytes.is_empty() => return Read::bare(Body::Empty, 0),
        Media::Json => true,
        Media::Missing => sniff_json(),
        // A non-2xx answer in another type (e.g. text/html) is kept opaque; a non-2xx JSON
        // error in a wrong type is still worth reading for the code.
        Media::Other(_) => !(200..300).contains(&ex.status) && sniff_json(),
    };
    if !json {
        return Read::bare(Body::Opaque, 0);
    }
    read_json(bytes, on_tape)
}

/// Reads bytes that should be one JSON document: onto a tape where the tape reads them, else
/// parsed.
fn read_json(bytes: &[u8], on_tape: bool) -> Read<'_> {
    // Validating UTF-8 up front (a fast scan) lets serde_json read a `&str`, which is cheaper
    // than reading bytes and checking every string, and tells bad encoding from bad syntax.
    let text = match crate::wire::utf8::text(bytes) {
        Ok(t) => t,
        Err(offset) => return Read::bare(Body::NotUtf8 { offset }, 0),
    };
    if let Some(tape) = Tape::read(text).filter(|_| on_tape) {
        return Read {
            body: Body::Json,
            text: Some(text),
            tape: Some(tape),
            value: None,
            depth: 0,
            lone_surrogate: None,
        };
    }
    match surrogate::parse(text) {
        Ok((v, depth, lone)) => Read {
            body: Body::Json,
            // The text read is not the body's when a lone surrogate was replaced: checks that
            // read the text find none.
            text: lone.is_none().then_some(text),
            tape: None,
            value: Some(v),
            depth,
            lone_surrogate: lone,
        },
        Err(JsonFailure::Syntax(e)) => Read::bare(Body::BadJson(json_error(text, &e, |o| o)), 0),
        Err(JsonFailure::TooDeep { offset }) => Read::bare(Body::TooDeep { offset }, 0),
    }
}

/// JSON-RPC id equality, kept here for callers of this module: numbers by exact value.
pub use crate::wire::number::ids_equal;
