//! What the proxy says about each answer it relayed: a judged exchange ([`Judged`]: the
//! exchange as relayed, its judgement, how long it took and what the verdict should be read
//! with), or why an answer could not be judged ([`Unjudged`]); and how an exchange is built
//! from what the relay copied.

use std::time::Duration;

use serde_json::Value;

use super::framing::Head;
use super::upstream::Upstream;
use crate::judge::Judgement;
use crate::vocab::Outcome;
use crate::vocab::protocol::header;
use crate::wire::analysis::Media;
use crate::wire::exchange::{BodyEnd, Exchange, Headers, RecordedRequest};

/// Which kind of exchange was judged.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A `tools/call`.
    Call,
    /// An answer a client sets itself up from: `initialize`, `server/discover`, `tools/list`.
    Setup,
}

/// A judged exchange.
#[derive(Debug)]
pub struct Judged {
    /// Its number among everything the proxy reported, from 1 (the `line` of its log record).
    pub seq: usize,
    /// Call or setup.
    pub kind: Kind,
    /// The JSON-RPC method of the request.
    pub method: String,
    /// The tool called (`tools/call`).
    pub tool: Option<String>,
    /// The exchange as relayed (secrets not redacted: every output redacts its own copy).
    pub exchange: Exchange,
    /// Its judgement, under the revision in force.
    pub judgement: Judgement<'static>,
    /// From the request head's arrival to the end of the answer.
    pub latency: Duration,
    /// What the verdict should be read with: a copy cut at its bound, a stream resumed or
    /// cut off when the proxy stopped.
    pub notes: Vec<String>,
}

impl Judged {
    /// The outcome under the revision judged.
    pub fn outcome(&self) -> Outcome {
        self.judgement.verdicts[0].outcome
    }

    /// The rule that decided the outcome, when one did.
    pub fn deciding_rule(&self) -> Option<&str> {
        self.judgement.verdicts[0]
            .deciding_rule()
            .map(|r| r.id.as_str())
    }

    /// A short label: the tool for a call, the method otherwise.
    pub fn label(&self) -> String {
        match &self.tool {
            Some(t) => format!("{} {t}", self.method),
            None => self.method.clone(),
        }
    }
}

/// An answer the proxy relayed but could not judge, and why.
#[derive(Debug, Clone)]
pub struct Unjudged {
    /// Its number among everything the proxy reported.
    pub seq: usize,
    /// The JSON-RPC method of the request, when it could be read.
    pub method: Option<String>,
    /// The tool called, for a `tools/call`.
    pub tool: Option<String>,
    /// Why.
    pub why: String,
}

/// A message as the relay copied it.
#[derive(Debug)]
pub(crate) struct Copied {
    pub head: Head,
    pub body: Vec<u8>,
    /// The body was longer than the copy bound.
    pub over: bool,
}

impl Copied {
    pub(crate) fn new(head: Head) -> Copied {
        Copied {
            head,
            body: Vec::new(),
            over: false,
        }
    }

    pub(crate) fn headers(&self) -> Headers {
        Headers::new(self.head.headers.iter().cloned())
    }

    pub(crate) fn media(&self) -> Media {
        Media::parse(self.head.header("content-type"))
    }
}

/// The JSON-RPC message a request carried, when its copy is whole and one JSON object.
pub(crate) fn request_message(req: &Copied) -> Option<Value> {
    if req.over || req.body.is_empty() {
        return None;
    }
    serde_json::from_slice::<Value>(&req.body)
        .ok()
        .filter(Value::is_object)
}

/// The request's session id header, when it carries one.
pub(crate) fn session_id(head: &Head) -> Option<&str> {
    head.header(header::SESSION_ID)
}

/// The JSON-RPC response to request `id` in an answer: the body itself (JSON) or the event
/// that carries it (SSE).
pub(crate) fn response_message(answer: &Copied, id: &Value) -> Option<Value> {
    let answers = |m: &Value| {
        m.get("id") == Some(id) && (m.get("result").is_some() || m.get("error").is_some())
    };
    match answer.media() {
        Media::Json => serde_json::from_slice::<Value>(&answer.body)
            .ok()
            .filter(answers),
        Media::EventStream => crate::wire::sse::parse(&answer.body)
            .events
            .iter()
            .filter_map(|e| serde_json::from_str::<Value>(&e.data).ok())
            .find(answers),
        _ => None,
    }
}

/// Where an event stream stands: the length of its complete events, the last event id (what
/// a client resumes from) and the `retry` it set, and whether the response to `id` is in it.
pub(crate) struct StreamState {
    pub complete_len: usize,
    pub last_event_id: Option<String>,
    pub retry: Option<u64>,
    pub answered: bool,
}

pub(crate) fn stream_state(body: &[u8], id: &Value) -> StreamState {
    let parsed = crate::wire::sse::parse(body);
    let answered = parsed.events.iter().any(|e| {
        serde_json::from_str::<Value>(&e.data).is_ok_and(|m| {
            m.get("id") == Some(id) && (m.get("result").is_some() || m.get("error").is_some())
        })
    });
    StreamState {
        complete_len: parsed.tail.as_ref().map_or(parsed.len, |t| t.start),
        last_event_id: (!parsed.last_event_id.is_empty()).then(|| parsed.last_event_id.clone()),
        retry: parsed.retry,
        answered,
    }
}

/// The exchange as the client sent it and the server answered it, `Host` as forwarded.
pub(crate) fn exchange_of(
    up: &Upstream,
    req: &Copied,
    body: Value,
    answer: &Copied,
    end: BodyEnd,
) -> Exchange {
    let headers = Headers::new(req.head.headers.iter().map(|(n, v)| {
        if n.eq_ignore_ascii_case("host") {
            (n.clone(), up.authority.clone())
        } else {
            (n.clone(), v.clone())
        }
    }));
    let scheme = if up.tls { "https" } else { "http" };
    let mut ex = Exchange::new(
        None,
        answer.head.status,
        answer.headers(),
        answer.body.clone(),
    );
    ex.request = RecordedRequest {
        method: Some(req.head.method.clone()),
        url: Some(format!("{scheme}://{}{}", up.authority, req.head.target)),
        headers,
        body: Some(body),
    };
    ex.end = end;
    ex
}
