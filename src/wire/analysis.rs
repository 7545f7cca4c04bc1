//! The revision-independent reading of an exchange: the request's facts, the media type, and
//! the body read exactly once (a JSON body onto a tape, its `Value` built only if a check asks).

use std::sync::OnceLock;

use serde_json::{Map, Value};

use crate::vocab::protocol::{header, meta};
use crate::wire::deep::{self, JsonFailure};
use crate::wire::exchange::Exchange;
use crate::wire::jsonref::JsonRef;
use crate::wire::tape::{self, Tape};

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

/// Where and why a JSON body failed to parse.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JsonError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub column: usize,
    /// 0-based byte offset in the body.
    pub offset: usize,
    /// The parser's message.
    pub message: String,
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

/// An SSE response stream, read once.
#[derive(Clone, Debug)]
pub struct Stream {
    /// The skipped (priming) blocks, tail and counters. Its `events` are empty: each event is
    /// read into [`Stream::messages`] as it is dispatched and not kept, so that a long stream
    /// is never held as all of its events (what the checks read of the events is
    /// [`Stream::first_event_start`], [`Stream::event_ids`] and [`Stream::final_data`]).
    pub parsed: crate::wire::sse::Parsed,
    /// Byte offset in the body of the first dispatched event's first line.
    pub first_event_start: Option<usize>,
    /// The events that set a non-empty event id: (byte offset of the event's first line,
    /// index of the event, the id), in stream order.
    pub event_ids: Vec<(usize, usize, String)>,
    /// The data of the final message's event: its raw text (checked for repeated keys).
    pub final_data: Option<String>,
    /// One entry per dispatched event, in order.
    pub messages: Vec<StreamMessage>,
    /// Index (into `messages`) of the message judged as the response to the request: the first
    /// response whose id matches the request's (the first response at all when the request id
    /// is unknown); failing that, the stream's last message when it stands where the response
    /// belongs (see [`Stream::final_matches`]).
    pub final_index: Option<usize>,
    /// Whether the final message is a response with the request's id. When it is not, the final
    /// message is the stream's last one, nothing was left undispatched after it, and it is what
    /// the same bytes would be as a JSON body: a response with another id or none (`id: null`),
    /// or JSON that is not a request or notification (a batch array, a primitive, an object
    /// without `method`). The checks of the response then judge it as they judge that body.
    pub final_matches: bool,
}

/// What one event's data is.
#[derive(Clone, Debug)]
pub enum MessageKind {
    /// A JSON-RPC notification (`method`, no `id`).
    Notification,
    /// A JSON-RPC request from the server (`method` and `id`).
    Request,
    /// A JSON-RPC response (`result` or `error`).
    Response,
    /// JSON, but not a JSON-RPC message.
    Other,
    /// Not JSON (boxed: most messages are JSON, and each message's entry is kept).
    BadJson(Box<JsonError>),
    /// The data is not UTF-8 (as a JSON body that is not UTF-8, it is not read).
    NotUtf8 {
        /// Byte offset in the body of the first invalid sequence.
        offset: usize,
    },
    /// JSON nesting deeper than [`crate::wire::deep::MAX_DEPTH`]: not read.
    TooDeep {
        /// Byte offset in the body of the bracket that opens the first level past the limit.
        offset: usize,
    },
}

/// One event's message.
#[derive(Clone, Debug)]
pub struct StreamMessage {
    /// Index of the event among dispatched events.
    pub event: usize,
    /// What it is.
    pub kind: MessageKind,
    /// The parsed data, when it is JSON and kept whole: always, except for a notification
    /// read by [`Analysis::judged`] that its schema accepts, which keeps only its
    /// [`StreamMessage::digest`].
    pub value: Option<Value>,
    /// What the stream checks read of a notification whose value was not kept.
    pub digest: Option<Box<Digest>>,
}

/// The members of a notification that the stream checks read, kept in place of its value when
/// the schemas it is judged under accept it as it is (so nothing else of it is ever reported).
/// A long stream of progress or log notifications is then held as these few members rather
/// than as every message's parsed tree.
#[derive(Clone, Debug, PartialEq)]
pub struct Digest {
    /// `method` (the methods a long stream repeats are not copied for each message).
    pub method: std::borrow::Cow<'static, str>,
    /// `params.progressToken`.
    pub progress_token: Option<Value>,
    /// `params.progress`, as a double.
    pub progress: Option<f64>,
    /// `params.level`, when a string.
    pub level: Option<Box<str>>,
}

impl Digest {
    fn of(method: &str, v: &Value) -> Digest {
        let params = v.get("params");
        let member = |name: &str| params.and_then(|p| p.get(name));
        Digest {
            method: Self::method(method),
            progress_token: member("progressToken").cloned(),
            progress: member("progress").and_then(Value::as_f64),
            level: member("level").and_then(Value::as_str).map(Box::from),
        }
    }

    /// The same members read from a tape.
    fn of_tape(method: &str, v: tape::Node<'_, '_>) -> Digest {
        let params = v.get("params");
        let member = |name: &str| params.and_then(|p| p.get(name));
        Digest {
            method: Self::method(method),
            progress_token: member("progressToken").map(tape::Node::to_value),
            progress: member("progress")
                .and_then(tape::Node::number_text)
                .and_then(tape::number)
                .and_then(|n| n.as_f64()),
            level: member("level").and_then(tape::Node::as_str).map(Box::from),
        }
    }

    /// The method name, not copied for the methods a long stream repeats.
    fn method(method: &str) -> std::borrow::Cow<'static, str> {
        match method {
            "notifications/progress" => "notifications/progress".into(),
            "notifications/message" => "notifications/message".into(),
            other => other.to_string().into(),
        }
    }
}

impl StreamMessage {
    /// `method` of a notification or request.
    pub fn method(&self) -> Option<&str> {
        match &self.digest {
            Some(d) => Some(&d.method),
            None => self.value.as_ref()?.get("method")?.as_str(),
        }
    }

    fn param(&self, name: &str) -> Option<&Value> {
        self.value.as_ref()?.get("params")?.get(name)
    }

    /// `params.progressToken`.
    pub fn progress_token(&self) -> Option<&Value> {
        match &self.digest {
            Some(d) => d.progress_token.as_ref(),
            None => self.param("progressToken"),
        }
    }

    /// `params.progress`, as a double.
    pub fn progress(&self) -> Option<f64> {
        match &self.digest {
            Some(d) => d.progress,
            None => self.param("progress").and_then(Value::as_f64),
        }
    }

    /// `params.level`, when a string.
    pub fn level(&self) -> Option<&str> {
        match &self.digest {
            Some(d) => d.level.as_deref(),
            None => self.param("level").and_then(Value::as_str),
        }
    }
}

impl Stream {
    /// The final response message.
    pub fn final_message(&self) -> Option<&StreamMessage> {
        self.messages.get(self.final_index?)
    }

    /// Messages before the final response (all of them when there is none).
    pub fn before_final(&self) -> &[StreamMessage] {
        &self.messages[..self.final_index.unwrap_or(self.messages.len())]
    }

    /// Messages after the final response.
    pub fn after_final(&self) -> &[StreamMessage] {
        match self.final_index {
            Some(i) => &self.messages[i + 1..],
            None => &[],
        }
    }
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

/// Whether the schemas a stream is judged under accept a notification (its method, the
/// message): see [`Analysis::judged`].
pub type Accepted<'a> = &'a dyn Fn(&str, Candidate<'_, '_>) -> bool;

/// A stream notification put to [`Accepted`].
#[derive(Clone, Copy, Debug)]
pub enum Candidate<'t, 'a> {
    /// Read onto a tape, no `Value` built: `true` is final (every schema accepts it), `false`
    /// only means "not decided on the tape", and the message is then put again as a `Value`.
    Tape(tape::Node<'t, 'a>),
    /// Parsed: the answer is final.
    Value(&'t Value),
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
    /// same members either way. A notification is first read onto a [`tape`] and put to
    /// `accepted` as it is there: one accepted that way never has its `Value` built.
    pub fn judged(ex: &'x Exchange, accepted: Accepted<'_>) -> Analysis<'x> {
        Self::read(ex, Some(accepted), true)
    }

    fn read(ex: &'x Exchange, accepted: Option<Accepted<'_>>, on_tape: bool) -> Analysis<'x> {
        let req = RequestFacts::of(ex);
        let media = Media::parse(ex.response_headers.get("Content-Type"));
        let read = read_body(ex, &media, req.id, accepted, on_tape);
        Analysis {
            ex,
            req,
            media,
            body: read.body,
            json_text: read.text,
            tape: read.tape,
            value: read.value.map(OnceLock::from).unwrap_or_default(),
            depth: read.depth,
        }
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
        (self.is_2xx() || looks_like_jsonrpc(obj)).then_some(obj)
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

    /// The SSE event the response message came from, for locating findings.
    pub fn message_event(&self) -> Option<usize> {
        self.stream()?.final_message().map(|m| m.event)
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
}

impl Read<'_> {
    fn bare(body: Body, depth: usize) -> Self {
        Read {
            body,
            text: None,
            tape: None,
            value: None,
            depth,
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
            let (stream, depth) = read_stream(bytes, request_id, accepted);
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
        };
    }
    match deep::parse(text) {
        Ok((v, depth)) => Read {
            body: Body::Json,
            text: Some(text),
            tape: None,
            value: Some(v),
            depth,
        },
        Err(JsonFailure::Syntax(e)) => Read::bare(Body::BadJson(json_error(text, &e, |o| o)), 0),
        Err(JsonFailure::TooDeep { offset }) => Read::bare(Body::TooDeep { offset }, 0),
    }
}

fn json_error(text: &str, e: &serde_json::Error, to_body: impl Fn(usize) -> usize) -> JsonError {
    JsonError {
        line: e.line(),
        column: e.column(),
        offset: to_body(offset_of(text, e.line(), e.column())),
        message: e.to_string(),
    }
}

/// JSON-RPC id equality, kept here for callers of this module: numbers by exact value.
pub use crate::wire::number::ids_equal;

fn read_stream(
    bytes: &[u8],
    request_id: Option<&Value>,
    accepted: Option<Accepted<'_>>,
) -> (Stream, usize) {
    let mut reader = StreamReader {
        request_id,
        accepted,
        messages: Vec::new(),
        final_index: None,
        deepest: 0,
        first_event_start: None,
        event_ids: Vec::new(),
        final_data: None,
        last_data: None,
    };
    // Each event is read as it is dispatched, then let go: a long stream is never held as its
    // body, all of its events and all of its messages at once.
    let parsed = crate::wire::sse::parse_each(bytes, |ev| reader.take(ev));
    let StreamReader {
        mut messages,
        mut final_index,
        deepest,
        first_event_start,
        event_ids,
        mut final_data,
        last_data,
        ..
    } = reader;
    let final_matches = final_index.is_some();
    if final_index.is_none() && parsed.tail.is_none() {
        // The same bytes as a JSON body would be judged as the response: so is the message that
        // ends the stream where the response belongs.
        final_index = messages
            .last()
            .filter(|m| matches!(m.kind, MessageKind::Response | MessageKind::Other))
            .map(|_| messages.len() - 1);
        if final_index.is_some() {
            final_data = last_data;
        }
    }
    messages.shrink_to_fit();
    let stream = Stream {
        parsed,
        first_event_start,
        event_ids,
        final_data,
        messages,
        final_index,
        final_matches,
    };
    (stream, deepest)
}

/// Reads a stream's events into messages as they are dispatched.
struct StreamReader<'r> {
    request_id: Option<&'r Value>,
    accepted: Option<Accepted<'r>>,
    messages: Vec<StreamMessage>,
    final_index: Option<usize>,
    deepest: usize,
    first_event_start: Option<usize>,
    event_ids: Vec<(usize, usize, String)>,
    /// The data of the event of the response with the request's id.
    final_data: Option<String>,
    /// The data of the last event read (the response by default when no id matches).
    last_data: Option<String>,
}

impl StreamReader<'_> {
    /// Reads the next event; keeps its data only while it may be the response's.
    fn take(&mut self, ev: crate::wire::sse::Event) {
        self.first_event_start.get_or_insert(ev.start);
        if ev.id_field && !ev.last_event_id.is_empty() {
            self.event_ids
                .push((ev.start, ev.index, ev.last_event_id.clone()));
        }
        let at = self.messages.len();
        let message = self.read(&ev);
        self.messages.push(message);
        if self.final_index == Some(at) {
            self.final_data = Some(ev.data);
            self.last_data = None;
        } else {
            self.last_data = Some(ev.data);
        }
    }

    /// The digest of a notification that every schema accepts on its tape, without building
    /// its `Value`; `None` leaves the event to be parsed (a response, a request, anything not
    /// read onto a tape, a notification not accepted there). What is decided here is what the
    /// parsed path decides: the message is an object with `method` and without `result`,
    /// `error` or `id`, its method a string, accepted, and nested within `serde_json`'s limit.
    fn accepted_on_tape(&self, ev: &crate::wire::sse::Event) -> Option<Digest> {
        let accepted = self.accepted?;
        // A response names `result` or `error`: parse it straight away.
        if ev.invalid_utf8_at().is_some()
            || ev.data.contains("\"result\"")
            || ev.data.contains("\"error\"")
        {
            return None;
        }
        let t = Tape::read(&ev.data)?;
        let root = t.root();
        // One pass over the members (none unless an object): a notification names a method
        // and no result, error or id.
        let mut method = None;
        for (k, v) in root.members() {
            match k {
                "result" | "error" | "id" => return None,
                "method" => method = Some(v),
                _ => {}
            }
        }
        let method = method?.as_str()?;
        accepted(method, Candidate::Tape(root)).then(|| Digest::of_tape(method, root))
    }

    fn read(&mut self, ev: &crate::wire::sse::Event) -> StreamMessage {
        if let Some(digest) = self.accepted_on_tape(ev) {
            return StreamMessage {
                event: ev.index,
                kind: MessageKind::Notification,
                value: None,
                digest: Some(Box::new(digest)),
            };
        }
        let parsed_data = match ev.invalid_utf8_at() {
            Some(offset) => Err(MessageKind::NotUtf8 { offset }),
            None => deep::parse(&ev.data).map_err(|e| match e {
                JsonFailure::Syntax(e) => {
                    MessageKind::BadJson(Box::new(json_error(&ev.data, &e, |o| ev.input_offset(o))))
                }
                JsonFailure::TooDeep { offset } => MessageKind::TooDeep {
                    offset: ev.input_offset(offset),
                },
            }),
        };
        let (kind, value, depth) = match parsed_data {
            Ok((v, depth)) => {
                self.deepest = self.deepest.max(depth);
                let kind = match v.as_object() {
                    Some(o) if o.contains_key("result") || o.contains_key("error") => {
                        MessageKind::Response
                    }
                    Some(o) if o.contains_key("method") && o.contains_key("id") => {
                        MessageKind::Request
                    }
                    Some(o) if o.contains_key("method") => MessageKind::Notification,
                    _ => MessageKind::Other,
                };
                (kind, Some(v), depth)
            }
            Err(kind) => (kind, None, 0),
        };
        if self.final_index.is_none() && matches!(kind, MessageKind::Response) {
            let id = value.as_ref().and_then(|v| v.get("id"));
            let matches = match (self.request_id, id) {
                (None, _) => true,
                (Some(want), Some(got)) => ids_equal(want, got),
                (Some(_), None) => false,
            };
            if matches {
                self.final_index = Some(self.messages.len());
            }
        }
        // A notification the schemas accept keeps only what the checks read of it. One nested
        // past serde_json's limit is kept whole: it is walked and dropped on a grown stack.
        let (value, digest) = match (self.accepted, &kind, value) {
            (Some(accepted), MessageKind::Notification, Some(v)) if depth == 0 => {
                match v.get("method").and_then(Value::as_str) {
                    Some(method) if accepted(method, Candidate::Value(&v)) => {
                        (None, Some(Box::new(Digest::of(method, &v))))
                    }
                    _ => (Some(v), None),
                }
            }
            (_, _, value) => (value, None),
        };
        StreamMessage {
            event: ev.index,
            kind,
            value,
            digest,
        }
    }
}

fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut offset = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            return (offset + column.saturating_sub(1)).min(text.len());
        }
        offset += l.len();
    }
    text.len()
}
