//! One message of a stream of messages, whichever binding carried it (an SSE event's data, a
//! stdio line): what it is, read once, with what the checks read of a notification kept in
//! place of its tree when the schemas accept it as it is.

use serde_json::Value;

use crate::wire::deep::JsonFailure;
use crate::wire::number::ids_equal;
use crate::wire::surrogate::{self, LoneSurrogate};
use crate::wire::tape::{self, Tape};

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
    /// read by [`Analysis::judged`](crate::wire::analysis::Analysis::judged) that its schema accepts, which keeps only its
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

/// Whether the schemas a stream is judged under accept a notification (its method, the
/// message): see [`Analysis::judged`](crate::wire::analysis::Analysis::judged).
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

pub(crate) fn json_error(
    text: &str,
    e: &serde_json::Error,
    to_body: impl Fn(usize) -> usize,
) -> JsonError {
    JsonError {
        line: e.line(),
        column: e.column(),
        offset: to_body(offset_of(text, e.line(), e.column())),
        message: e.to_string(),
    }
}

/// Which JSON-RPC message a JSON value is: a response names `result` or `error`, a request
/// `method` and `id`, a notification `method` alone; anything else is [`MessageKind::Other`].
pub fn kind_of(v: &Value) -> MessageKind {
    match v.as_object() {
        Some(o) if o.contains_key("result") || o.contains_key("error") => MessageKind::Response,
        Some(o) if o.contains_key("method") && o.contains_key("id") => MessageKind::Request,
        Some(o) if o.contains_key("method") => MessageKind::Notification,
        _ => MessageKind::Other,
    }
}

/// Reads the text of one message (an SSE event's data, a stdio line) into a [`StreamMessage`],
/// whichever binding carried it.
pub(crate) struct MessageReader<'r> {
    /// The request's id, which the response's must equal.
    pub request_id: Option<&'r Value>,
    /// What the schemas judged under accept (see [`Analysis::judged`](crate::wire::analysis::Analysis::judged)).
    pub accepted: Option<Accepted<'r>>,
    /// The deepest nesting read past `serde_json`'s limit (else 0).
    pub deepest: usize,
    /// The first lone surrogate escape read (its offset in the input, and the message's
    /// index), with the count over every message (see [`surrogate`]).
    pub lone_surrogate: Option<(LoneSurrogate, Option<usize>)>,
}

impl MessageReader<'_> {
    /// The digest of a notification that every schema accepts on its tape, without building
    /// its `Value`; `None` leaves the message to be parsed (a response, a request, anything not
    /// read onto a tape, a notification not accepted there). What is decided here is what the
    /// parsed path decides: the message is an object with `method` and without `result`,
    /// `error` or `id`, its method a string, accepted, and nested within `serde_json`'s limit.
    fn accepted_on_tape(&self, data: &str) -> Option<Digest> {
        let accepted = self.accepted?;
        // A response names `result` or `error`: parse it straight away.
        if data.contains("\"result\"") || data.contains("\"error\"") {
            return None;
        }
        let t = Tape::read(data)?;
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

    fn note_lone_surrogate(
        &mut self,
        index: usize,
        lone: LoneSurrogate,
        to_input: impl Fn(usize) -> usize,
    ) {
        match &mut self.lone_surrogate {
            Some((first, _)) => first.count += lone.count,
            None => {
                let offset = to_input(lone.offset);
                self.lone_surrogate = Some((LoneSurrogate { offset, ..lone }, Some(index)));
            }
        }
    }

    /// Reads message number `index` from its text (or the input offset of its first byte that
    /// is not UTF-8); `to_input` maps an offset in the text to one in the input. Answers the
    /// message and whether it is a response with the request's id (any response when the
    /// request's id is unknown).
    pub(crate) fn read(
        &mut self,
        index: usize,
        data: Result<&str, usize>,
        to_input: impl Fn(usize) -> usize,
    ) -> (StreamMessage, bool) {
        if let Ok(text) = data
            && let Some(digest) = self.accepted_on_tape(text)
        {
            let message = StreamMessage {
                event: index,
                kind: MessageKind::Notification,
                value: None,
                digest: Some(Box::new(digest)),
            };
            return (message, false);
        }
        let parsed_data = match data {
            Err(offset) => Err(MessageKind::NotUtf8 { offset }),
            Ok(text) => surrogate::parse(text)
                .map(|(v, depth, lone)| {
                    if let Some(lone) = lone {
                        self.note_lone_surrogate(index, lone, &to_input);
                    }
                    (v, depth)
                })
                .map_err(|e| match e {
                    JsonFailure::Syntax(e) => {
                        MessageKind::BadJson(Box::new(json_error(text, &e, &to_input)))
                    }
                    JsonFailure::TooDeep { offset } => MessageKind::TooDeep {
                        offset: to_input(offset),
                    },
                }),
        };
        let (kind, value, depth) = match parsed_data {
            Ok((v, depth)) => {
                self.deepest = self.deepest.max(depth);
                (kind_of(&v), Some(v), depth)
            }
            Err(kind) => (kind, None, 0),
        };
        let matches = matches!(kind, MessageKind::Response) && {
            let id = value.as_ref().and_then(|v| v.get("id"));
            match (self.request_id, id) {
                (None, _) => true,
                (Some(want), Some(got)) => ids_equal(want, got),
                (Some(_), None) => false,
            }
        };
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
        let message = StreamMessage {
            event: index,
            kind,
            value,
            digest,
        };
        (message, matches)
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
