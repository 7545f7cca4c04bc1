//! Facts read off an exchange for a verdict (the same under every revision but error names).

use std::borrow::Cow;
use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::check_api::Cx;
use crate::rules::RuleTable;
use crate::vocab::auth::param;
use crate::wire::analysis::{Analysis, Body, Media, MessageKind};
use crate::wire::auth::{read_challenges, token_challenge};
use crate::wire::deep::clone_shallow;
use crate::wire::excerpt;
use crate::wire::jsonref::JsonRef;

/// Facts read off the exchange (the same under every revision except error names).
#[derive(Clone, Debug, Default, PartialEq, Serialize, JsonSchema)]
pub struct Facts {
    /// HTTP status.
    pub http_status: u16,
    /// Response media type essence, or `(none)`.
    pub media_type: Cow<'static, str>,
    /// Body length in bytes.
    pub body_bytes: usize,
    /// How the body ended.
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
    pub stream: Option<StreamFacts>,
    /// The authorization challenge of the answer: its first Bearer or DPoP challenge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub challenge: Option<ChallengeFacts>,
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

/// What an SSE response stream carried and how it ended.
#[derive(Clone, Debug, Default, PartialEq, Serialize, JsonSchema)]
pub struct StreamFacts {
    /// Dispatched events (each should carry one JSON-RPC message).
    pub events: usize,
    /// Blocks without data (e.g. the priming event), not dispatched.
    pub skipped_events: usize,
    /// Comment lines (keep-alives).
    pub comments: usize,
    /// Notifications by method.
    pub notifications: BTreeMap<String, usize>,
    /// Server-to-client requests by method.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub requests: BTreeMap<String, usize>,
    /// Responses seen (the final one included).
    pub responses: usize,
    /// Whether the response to this request (its id) arrived.
    pub final_response: bool,
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
        final_response: s.final_matches,
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
        match &m.kind {
            MessageKind::Notification => {
                *f.notifications
                    .entry(m.method().unwrap_or("?").to_string())
                    .or_default() += 1;
            }
            MessageKind::Request => {
                *f.requests
                    .entry(m.method().unwrap_or("?").to_string())
                    .or_default() += 1;
            }
            MessageKind::Response => f.responses += 1,
            MessageKind::BadJson(_) | MessageKind::NotUtf8 { .. } => {
                f.malformed_events.push(m.event)
            }
            MessageKind::TooDeep { .. } => f.too_deep_events.push(m.event),
            MessageKind::Other => {}
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
    match v {
        JsonRef::Value(v) => clone_shallow(v),
        JsonRef::Tape(_) if !(v.is_object() || v.is_array()) => v.to_value().into_owned(),
        JsonRef::Tape(_) => clone_shallow(&v.to_value()),
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
            Some(excerpt(&ex.body, 160))
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
        body_bytes: ex.body.len(),
        body_end: Cow::Borrowed(ex.end.as_str()),
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
        stream: stream_facts(an),
        challenge: challenge_facts(an),
    }
}
