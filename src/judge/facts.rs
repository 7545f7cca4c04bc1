//! Facts read off an exchange for a verdict (the same under every revision but error names).

use std::borrow::Cow;
use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::check_api::Cx;
use crate::rules::RuleTable;
use crate::vocab::auth::param;
use crate::wire::analysis::{Analysis, Body, Media, MessageKind, StreamMessage};
use crate::wire::auth::{read_challenges, token_challenge};
use crate::wire::deep::clone_shallow;
use crate::wire::excerpt;
use crate::wire::jsonref::JsonRef;

/// Facts read off the exchange (the same under every revision except error names).
#[derive(Clone, Debug, Default, PartialEq, Serialize, JsonSchema)]
pub struct Facts {
    /// HTTP status (0 for a stdio exchange, which has none).
    pub http_status: u16,
    /// Response media type essence, or `(none)`.
    pub media_type: Cow<'static, str>,
    /// Body length in bytes (over stdio: the response's line or lines).
    pub body_bytes: usize,
    /// How the body ended (over stdio: what stopped the recording of stdout).
    pub body_end: Cow<'static, str>,
    /// The request's JSON-RPC method.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_method: Option<Cow<'static, str>>,
    /// The request's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_id: Option<Value>,
    /// The tool called.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The response's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_id: Option<Value>,
    /// The JSON-RPC error, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorFacts>,
    /// `resultType` as received.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_type: Option<Value>,
    /// `isError` as received.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub is_error: Option<Value>,
    /// `type` of each content block.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub content_types: Vec<Cow<'static, str>>,
    /// The start of a body that is not JSON (HTML page, text), for context.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub body_excerpt: Option<String>,
    /// What the SSE stream carried, for `text/event-stream` bodies.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream: Option<Box<StreamFacts>>,
    /// The authorization challenge of the answer: its first Bearer or DPoP challenge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub challenge: Option<Box<ChallengeFacts>>,
    /// What a stdio server wrote, for stdio exchanges.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stdio: Option<Box<StdioFacts>>,
}

/// What an authorization challenge (`WWW-Authenticate`) asked for.
#[derive(Clone, Debug, Default, PartialEq, Serialize, JsonSchema)]
pub struct ChallengeFacts {
    /// The scheme (`Bearer`, `DPoP`).
    pub scheme: String,
    /// The `error` parameter (`invalid_token`, `insufficient_scope`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The `scope` parameter: the scopes the request needs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    /// The `resource_metadata` parameter: where the protected resource metadata is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_metadata: Option<String>,
}

fn challenge_facts(an: &Analysis<'_>) -> Option<ChallengeFacts> {
    let list = read_challenges(&an.ex.response_headers)?.ok()?;
    let c = token_challenge(&list)?;
    let get = |name| c.param(name).map(str::to_string);
    Some(ChallengeFacts {
        scheme: c.scheme.clone(),
        error: get(param::ERROR),
        scope: get(param::SCOPE),
        resource_metadata: get(param::RESOURCE_METADATA),
    })
}

/// What a stdio server wrote on stdout (and stderr) for the request, and how it ended.
#[derive(Clone, Debug, Default, PartialEq, Serialize, JsonSchema)]
pub struct StdioFacts {
    /// Lines of stdout (a partial last line included).
    pub lines: usize,
    /// Bytes of stdout.
    pub stdout_bytes: usize,
    /// The longest line, in bytes without its newline.
    pub longest_line: usize,
    /// The JSON-RPC messages on stdout, counted.
    #[serde(flatten)]
    pub messages: MessageCounts,
    /// The (first) stdout line, 1-based, of the message judged as the response.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_line: Option<usize>,
    /// stdout lines (1-based) that are not JSON-RPC messages: text, blank, not UTF-8, JSON of
    /// another shape (the response's line aside).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub non_message_lines: Vec<usize>,
    /// Messages split over several lines: (first, last) stdout line, 1-based.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub split_messages: Vec<(usize, usize)>,
    /// Bytes of a last line the output ended without a newline for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partial_line_bytes: Option<usize>,
    /// What stopped the recording: `response`, `eof`, `exit` or `timeout`.
    pub end: String,
    /// The process's exit code, when it exited.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that ended the process.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit_signal: Option<i32>,
    /// Bytes the server wrote on stderr, when captured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stderr_bytes: Option<usize>,
}

fn stdio_facts(an: &Analysis<'_>) -> Option<StdioFacts> {
    use crate::wire::stdio::read::LineRole;
    let (s, r) = (an.ex.stdio.as_deref()?, an.stdio()?);
    let mut f = StdioFacts {
        lines: r.lines.len(),
        stdout_bytes: s.stdout.len(),
        longest_line: r.longest,
        messages: MessageCounts {
            final_response: r.final_matches,
            ..MessageCounts::default()
        },
        final_line: r.final_message().map(|m| m.event + 1),
        split_messages: r.joined.iter().map(|j| (j.first + 1, j.last + 1)).collect(),
        partial_line_bytes: r.partial.map(|(l, _)| l.len()),
        end: s.end.as_str().to_string(),
        exit_code: s.exit.and_then(|e| e.code),
        exit_signal: s.exit.and_then(|e| e.signal),
        stderr_bytes: s.stderr.as_ref().map(Vec::len),
        ..StdioFacts::default()
    };
    for l in &r.lines {
        let m = match l.role {
            LineRole::Blank => {
                f.non_message_lines.push(l.line.index + 1);
                continue;
            }
            LineRole::Message(m) => m,
            LineRole::Joined(j) if r.joined[j].first == l.line.index => r.joined[j].message,
            LineRole::Joined(_) | LineRole::Partial => continue,
        };
        let msg = &r.messages[m];
        let counted = f.messages.count(msg);
        if !counted && Some(m) != r.final_index && !matches!(msg.kind, MessageKind::TooDeep { .. })
        {
            f.non_message_lines.push(l.line.index + 1);
        }
    }
    Some(f)
}

/// The JSON-RPC messages a server sent around its response, counted.
#[derive(Clone, Debug, Default, PartialEq, Serialize, JsonSchema)]
pub struct MessageCounts {
    /// Notifications by method.
    pub notifications: BTreeMap<String, usize>,
    /// Server-to-client requests by method.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub requests: BTreeMap<String, usize>,
    /// Responses seen (the one to this request included).
    pub responses: usize,
    /// Whether the response to this request (its id) arrived.
    pub final_response: bool,
}

impl MessageCounts {
    /// Counts a message: a notification or request by its method, a response. `false` for
    /// what is none of them.
    fn count(&mut self, m: &StreamMessage) -> bool {
        let by_method = match m.kind {
            MessageKind::Notification => &mut self.notifications,
            MessageKind::Request => &mut self.requests,
            MessageKind::Response => {
                self.responses += 1;
                return true;
            }
            _ => return false,
        };
        *by_method
            .entry(m.method().unwrap_or("?").to_string())
            .or_default() += 1;
        true
    }
}

/// What an SSE response stream carried and how it ended.
#[derive(Clone, Debug, Default, PartialEq, Serialize, JsonSchema)]
pub struct StreamFacts {
    /// Dispatched events (each should carry one JSON-RPC message).
    pub events: usize,
    /// Blocks without data (e.g. the priming event), not dispatched.
    pub skipped_events: usize,
    /// Comment lines (keep-alives).
    pub comments: usize,
    /// The JSON-RPC messages on the stream, counted.
    #[serde(flatten)]
    pub messages: MessageCounts,
    /// The event carrying the message judged as the response: the response, or the message
    /// that ended the stream in its place (e.g. a response with another id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub final_event: Option<usize>,
    /// Events that were not JSON (or not UTF-8).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub malformed_events: Vec<usize>,
    /// Events whose JSON nests deeper than the judge reads (not read).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub too_deep_events: Vec<usize>,
    /// Why the stream ended: `complete` (EOF), `reset` or `timeout`.
    pub end: String,
    /// Bytes of an event left undispatched at the end (cut off mid-event).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undispatched_bytes: Option<usize>,
    /// The last event id the server sent (for resumption under revisions that allow it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_event_id: Option<String>,
    /// The reconnection time the server set with a `retry` field, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry_ms: Option<u64>,
}

fn stream_facts(an: &Analysis<'_>) -> Option<StreamFacts> {
    let s = an.stream()?;
    let mut f = StreamFacts {
        events: s.messages.len(),
        skipped_events: s.parsed.skipped_empty.len(),
        comments: s.parsed.comments,
        messages: MessageCounts {
            final_response: s.final_matches,
            ..MessageCounts::default()
        },
        final_event: s.final_message().map(|m| m.event),
        end: an.ex.end.as_str().to_string(),
        undispatched_bytes: s
            .parsed
            .tail
            .as_ref()
            .map(|t| s.parsed.len.saturating_sub(t.start)),
        last_event_id: (!s.parsed.last_event_id.is_empty()).then(|| s.parsed.last_event_id.clone()),
        retry_ms: s.parsed.retry,
        ..StreamFacts::default()
    };
    for m in &s.messages {
        if f.messages.count(m) {
            continue;
        }
        match &m.kind {
            MessageKind::BadJson(_) | MessageKind::NotUtf8 { .. } => {
                f.malformed_events.push(m.event)
            }
            MessageKind::TooDeep { .. } => f.too_deep_events.push(m.event),
            _ => {}
        }
    }
    Some(f)
}

/// A JSON-RPC error as received.
#[derive(Clone, Debug, Default, PartialEq, Serialize, JsonSchema)]
pub struct ErrorFacts {
    /// `error.code` when an integer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<i64>,
    /// The code's name under the revision (e.g. `Invalid params`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `error.message`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// `error.data`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// A value as a fact keeps it: cut past [`crate::wire::deep::SHALLOW`] levels.
fn shallow(v: JsonRef<'_>) -> Value {
    // A tape holds no deeper than the cut: what it holds is built as is, not built and cut.
    const _: () = assert!(crate::wire::tape::MAX_DEPTH < crate::wire::deep::SHALLOW);
    match v {
        JsonRef::Value(v) => clone_shallow(v),
        JsonRef::Tape(_) => v.to_value().into_owned(),
    }
}

/// The result's members are all `None` without a result object, or beside `error`.
pub(super) fn facts_of(cx: &Cx<'_>, table: &RuleTable) -> Facts {
    let (an, msg, result, protocol) = (cx.an, cx.members(), cx.result_members(), cx.protocol);
    let ex = an.ex;
    let error = msg.error.map(|e| {
        let code = e.get("code").and_then(JsonRef::as_integer);
        ErrorFacts {
            code,
            name: code.and_then(|c| table.profile(protocol).error_codes.get(&c).cloned()),
            message: e
                .get("message")
                .and_then(JsonRef::as_str)
                .map(str::to_string),
            data: e.get("data").map(shallow),
        }
    });
    let body_excerpt = match &an.body {
        Body::Opaque | Body::BadJson(_) | Body::NotUtf8 { .. } | Body::TooDeep { .. } => {
            Some(excerpt(an.body_bytes(), 160))
        }
        _ => None,
    };
    Facts {
        http_status: ex.status,
        media_type: match &an.media {
            Media::Json => Cow::Borrowed("application/json"),
            Media::EventStream => Cow::Borrowed("text/event-stream"),
            Media::Missing => Cow::Borrowed("(none)"),
            Media::Other(m) => Cow::Owned(m.clone()),
        },
        body_bytes: an.body_bytes().len(),
        body_end: Cow::Borrowed(match &ex.stdio {
            Some(s) => s.end.as_str(),
            None => ex.end.as_str(),
        }),
        request_method: an.req.method.map(|m| match m {
            "tools/call" => Cow::Borrowed("tools/call"),
            other => Cow::Owned(other.to_string()),
        }),
        request_id: an.req.id.map(clone_shallow),
        tool: an.req.tool_name.map(str::to_string),
        response_id: msg.id.map(shallow),
        error,
        result_type: result.result_type.map(shallow),
        is_error: result.is_error.map(shallow),
        content_types: cx
            .content_blocks()
            .iter()
            .map(|b| match b.kind.and_then(JsonRef::as_str) {
                Some(t @ ("text" | "image" | "audio" | "resource_link" | "resource")) => {
                    Cow::Borrowed(match t {
                        "text" => "text",
                        "image" => "image",
                        "audio" => "audio",
                        "resource_link" => "resource_link",
                        _ => "resource",
                    })
                }
                Some(other) => Cow::Owned(other.to_string()),
                None => Cow::Borrowed("?"),
            })
            .collect(),
        body_excerpt,
        stream: stream_facts(an).map(Box::new),
        challenge: challenge_facts(an).map(Box::new),
        stdio: stdio_facts(an).map(Box::new),
    }
}
