//! Reading HAR 1.2 captures (HTTP Archive, as saved by browsers' developer tools, mitmproxy,
//! Charles) and judging the MCP `tools/call` exchanges in them.
//!
//! A HAR entry holds one request and its response, so pairing is by entry. [`read`] classifies
//! every entry as a `tools/call` [`Exchange`] ready for the engine, a tools/call whose response
//! was not recorded, a tools/call whose capture cannot be read, or a skipped entry of some kind
//! (`initialize`, `tools/list`, notifications, GETs, traffic that is not JSON-RPC); the
//! judging and the report are `crate::run::har`.
//!
//! # Field mapping
//!
//! | exchange                 | HAR                                                                        |
//! |--------------------------|----------------------------------------------------------------------------|
//! | `request.method`, `url`  | `request.method`, `request.url`                                            |
//! | `request.headers`        | `request.headers[]` (`name`/`value`), HTTP/2 pseudo-headers (`:path`, ...) dropped |
//! | `request.body`           | `postData.text` parsed as JSON (`postData.encoding: "base64"` decoded first) |
//! | `status`                 | `response.status`                                                          |
//! | response headers         | `response.headers[]`, pseudo-headers dropped                               |
//! | body bytes               | `response.content.text`, base64-decoded when `content.encoding` is `base64`, else its UTF-8 bytes exactly as stored |
//! | `end`                    | see below                                                                  |
//!
//! HAR has no standard field for how a body ended. The mapping:
//!
//! * `response._error` (Chrome, mitmproxy) or `entry._error` is a non-empty string:
//!   * naming a time-out (`timed out`, `timeout`, `TIMED_OUT`) → [`BodyEnd::Timeout`];
//!   * naming an abort or cancellation by the client (`net::ERR_ABORTED`, `aborted`,
//!     `cancel`) → [`BodyEnd::Timeout`]: the recording side stopped reading, the server did
//!     not cut the body;
//!   * anything else (`net::ERR_CONNECTION_RESET`, `net::ERR_INCOMPLETE_CHUNKED_ENCODING`,
//!     `net::ERR_HTTP2_PROTOCOL_ERROR`, mitmproxy's `Connection killed.`, ...) →
//!     [`BodyEnd::Reset`].
//! * No error string → [`BodyEnd::Complete`]. A `content.size` larger than the recorded text is
//!   only noted (exporters count sizes differently: compression, UTF-16, `-1` for unknown); it
//!   does not change `end`.
//! * Status 0 (Firefox, Chrome and mitmproxy for a request that got no response) → the entry is
//!   *not recorded*: there is no status, no headers and no body to judge.
//! * No `content.text` (Firefox's "Response bodies are not included.", a body evicted from the
//!   browser's buffer, mitmproxy's `content: {}`), or an empty `content.text` while
//!   `content.size` is positive → *not recorded*, never judged as an empty body. An empty text
//!   with size 0 or no size (a 202 Accepted) is an empty body and is judged.

use std::fmt;

use base64::Engine as _;
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::wire::exchange::{BodyEnd, Exchange, Headers, RecordedRequest};

/// Why a HAR file could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HarError {
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub column: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for HarError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "line {l}, column {c}: {}", self.message),
            (Some(l), None) => write!(f, "line {l}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for HarError {}

/// A HAR capture, read and classified.
#[derive(Clone, Debug)]
pub struct Har {
    /// `log.version`.
    pub version: Option<String>,
    /// `log.creator` as `name version`.
    pub creator: Option<String>,
    /// Every entry of `log.entries`, in file order.
    pub entries: Vec<Entry>,
}

/// One HAR entry (one request and its response).
#[derive(Clone, Debug)]
pub struct Entry {
    /// Position in `log.entries` (0-based, as `jq '.log.entries[N]'` counts).
    pub index: usize,
    /// HTTP method of the request.
    pub method: String,
    /// Request URL.
    pub url: String,
    /// `startedDateTime`.
    pub started: Option<String>,
    /// `params.name` of a tools/call request.
    pub tool: Option<String>,
    /// What the entry is.
    pub record: Record,
    /// Remarks on how the capture was read (size mismatches, `_error`, tool definition source).
    pub notes: Vec<String>,
}

/// What an entry is.
#[derive(Clone, Debug)]
pub enum Record {
    /// A tools/call exchange, ready to judge.
    ToolsCall(Box<Exchange>),
    /// A tools/call whose response (or response body) was not recorded.
    NotRecorded {
        /// Why, in words.
        reason: String,
    },
    /// A tools/call whose recorded response cannot be decoded (bad base64, unknown encoding).
    Unreadable {
        /// What is wrong.
        reason: String,
    },
    /// Not a tools/call.
    Skipped(SkipKind),
}

/// Kinds of entries that are counted, not judged.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum SkipKind {
    /// A request whose HTTP method is not POST (GET, DELETE, OPTIONS, ...).
    HttpMethod(String),
    /// A POST whose body was not recorded and whose headers do not say it is a tools/call.
    NoRequestBody,
    /// A POST whose body is not a JSON-RPC message (not JSON, or JSON of another shape).
    NotJsonRpc,
    /// A JSON-RPC request or notification other than tools/call, by method.
    Method(String),
    /// A JSON-RPC response the client sent (answering a server request).
    Response,
    /// A JSON array (a JSON-RPC batch).
    Batch,
}

impl SkipKind {
    /// The kind as counted in summaries: the JSON-RPC method for requests and notifications
    /// (`initialize`, `tools/list`, `notifications/initialized`), else a short phrase.
    pub fn label(&self) -> String {
        match self {
            SkipKind::HttpMethod(m) => format!("HTTP {m}"),
            SkipKind::NoRequestBody => "request body not recorded".into(),
            SkipKind::NotJsonRpc => "not JSON-RPC".into(),
            SkipKind::Method(m) => m.clone(),
            SkipKind::Response => "JSON-RPC response".into(),
            SkipKind::Batch => "JSON-RPC batch".into(),
        }
    }
}

// ---- the HAR file, as stored -------------------------------------------------------------

#[derive(Deserialize)]
struct HarFile {
    log: Log,
}

#[derive(Deserialize)]
struct Log {
    #[serde(default)]
    version: Option<String>,
    #[serde(default)]
    creator: Option<Creator>,
    entries: Vec<RawEntry>,
}

#[derive(Deserialize)]
struct Creator {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    version: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawEntry {
    #[serde(default)]
    started_date_time: Option<String>,
    request: RawRequest,
    #[serde(default)]
    response: Option<RawResponse>,
    #[serde(default, rename = "_error")]
    error: Option<Value>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawRequest {
    method: String,
    url: String,
    #[serde(default, deserialize_with = "nullable")]
    headers: Vec<NameValue>,
    #[serde(default)]
    post_data: Option<PostData>,
}

#[derive(Deserialize)]
struct PostData {
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    encoding: Option<String>,
    #[serde(default)]
    comment: Option<String>,
}

#[derive(Deserialize)]
struct RawResponse {
    status: u16,
    #[serde(default, deserialize_with = "nullable")]
    headers: Vec<NameValue>,
    #[serde(default)]
    content: Option<Content>,
    #[serde(default, rename = "_error")]
    error: Option<Value>,
}

#[derive(Deserialize)]
struct Content {
    #[serde(default)]
    size: Option<i64>,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    encoding: Option<String>,
    #[serde(default)]
    comment: Option<String>,
}

#[derive(Deserialize)]
struct NameValue {
    name: String,
    #[serde(default)]
    value: String,
}

fn nullable<'de, D, T>(d: D) -> Result<Vec<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    Ok(Option::<Vec<T>>::deserialize(d)?.unwrap_or_default())
}

fn headers_of(pairs: Vec<NameValue>) -> Headers {
    Headers::new(
        pairs
            .into_iter()
            .filter(|h| !h.name.starts_with(':'))
            .map(|h| (h.name, h.value)),
    )
}

/// A non-empty error string (`_error` may be absent, `null` or empty).
fn error_string(v: &Option<Value>) -> Option<&str> {
    v.as_ref()
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// How a body ended, given the recorder's error string. See the module documentation.
pub fn end_of_error(error: &str) -> BodyEnd {
    let e = error.to_ascii_lowercase();
    let timed_out = e.contains("timed out") || e.contains("timed_out") || e.contains("timeout");
    let client_stopped = e.contains("abort") || e.contains("cancel");
    if timed_out || client_stopped {
        BodyEnd::Timeout
    } else {
        BodyEnd::Reset
    }
}

fn decode_base64(text: &str) -> Result<Vec<u8>, base64::DecodeError> {
    let compact: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
    base64::engine::general_purpose::STANDARD.decode(compact)
}

/// Reads a HAR file and classifies its entries.
pub fn read(bytes: &[u8]) -> Result<Har, HarError> {
    let bytes = crate::wire::utf8::strip_bom(bytes);
    let file: HarFile = serde_json::from_slice(bytes).map_err(|e| {
        let hint = if e.is_syntax() || e.is_eof() {
            " (a HAR file is one JSON document)"
        } else {
            " (a HAR 1.2 file is {\"log\": {\"entries\": [{\"request\": ..., \"response\": ...}]}})"
        };
        HarError {
            line: Some(e.line()),
            column: Some(e.column()),
            message: format!("{e}{hint}"),
        }
    })?;
    let log = file.log;
    let creator = log.creator.and_then(|c| match (c.name, c.version) {
        (Some(n), Some(v)) if !v.is_empty() => Some(format!("{n} {v}")),
        (Some(n), _) => Some(n),
        (None, v) => v,
    });
    let mut tool_lists: Vec<ToolList> = Vec::new();
    let mut entries: Vec<Entry> = log
        .entries
        .into_iter()
        .enumerate()
        .map(|(index, raw)| classify(index, raw, &mut tool_lists))
        .collect();
    attach_tool_definitions(&mut entries, &tool_lists);
    Ok(Har {
        version: log.version,
        creator,
        entries,
    })
}

/// Tools listed by a recorded tools/list response.
struct ToolList {
    index: usize,
    url: String,
    tools: Vec<Value>,
}

enum RequestBody {
    Absent(Option<String>),
    Json(Value),
    NotJson(String),
}

fn request_body(post: Option<&PostData>) -> RequestBody {
    let Some(post) = post else {
        return RequestBody::Absent(None);
    };
    let Some(text) = &post.text else {
        return RequestBody::Absent(post.comment.clone());
    };
    let bytes = match post.encoding.as_deref() {
        Some(enc) if enc.eq_ignore_ascii_case("base64") => match decode_base64(text) {
            Ok(b) => b,
            Err(e) => return RequestBody::NotJson(format!("postData is not valid base64: {e}")),
        },
        _ => text.as_bytes().to_vec(),
    };
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return RequestBody::Absent(post.comment.clone());
    }
    match serde_json::from_slice::<Value>(&bytes) {
        Ok(v) => RequestBody::Json(v),
        Err(e) => RequestBody::NotJson(format!("postData.text is not JSON: {e}")),
    }
}

fn classify(index: usize, raw: RawEntry, tool_lists: &mut Vec<ToolList>) -> Entry {
    let RawEntry {
        started_date_time,
        request,
        response,
        error: entry_error,
    } = raw;
    let mut entry = Entry {
        index,
        method: request.method.clone(),
        url: request.url.clone(),
        started: started_date_time,
        tool: None,
        record: Record::Skipped(SkipKind::NotJsonRpc),
        notes: Vec::new(),
    };
    if !request.method.eq_ignore_ascii_case("POST") {
        entry.record = Record::Skipped(SkipKind::HttpMethod(request.method.to_ascii_uppercase()));
        return entry;
    }
    let headers = headers_of(request.headers);
    let body = match request_body(request.post_data.as_ref()) {
        RequestBody::Json(v) => Some(v),
        RequestBody::NotJson(why) => {
            entry.notes.push(why);
            return entry;
        }
        RequestBody::Absent(comment) => {
            // The 2026-07-28 standard headers name the method even when the body is missing.
            let by_header = headers
                .get("Mcp-Method")
                .is_some_and(|m| m.trim() == "tools/call");
            if !by_header {
                entry.record = Record::Skipped(SkipKind::NoRequestBody);
                if let Some(c) = comment {
                    entry.notes.push(format!("postData.comment: {c}"));
                }
                return entry;
            }
            entry.tool = headers.get("Mcp-Name").map(|n| n.trim().to_string());
            entry.notes.push(
                "the request body was not recorded; identified as tools/call by its Mcp-Method header"
                    .into(),
            );
            None
        }
    };
    if let Some(v) = &body {
        let obj = match v {
            Value::Array(_) => {
                entry.record = Record::Skipped(SkipKind::Batch);
                return entry;
            }
            Value::Object(o) => o,
            _ => return entry,
        };
        match obj.get("method").and_then(Value::as_str) {
            Some("tools/call") => {
                entry.tool = obj
                    .get("params")
                    .and_then(|p| p.get("name"))
                    .and_then(Value::as_str)
                    .map(str::to_string);
            }
            Some(m) => {
                if m == "tools/list"
                    && let Some(tools) = response.as_ref().and_then(listed_tools)
                {
                    tool_lists.push(ToolList {
                        index,
                        url: request.url.clone(),
                        tools,
                    });
                }
                entry.record = Record::Skipped(SkipKind::Method(m.to_string()));
                return entry;
            }
            None if obj.contains_key("result") || obj.contains_key("error") => {
                entry.record = Record::Skipped(SkipKind::Response);
                return entry;
            }
            None => return entry,
        }
    }
    entry.record = tools_call_record(
        RecordedRequest {
            method: Some(request.method),
            url: Some(request.url),
            headers,
            body,
        },
        response,
        error_string(&entry_error).map(str::to_string),
        &mut entry.notes,
    );
    entry
}

fn tools_call_record(
    request: RecordedRequest,
    response: Option<RawResponse>,
    entry_error: Option<String>,
    notes: &mut Vec<String>,
) -> Record {
    let Some(response) = response else {
        return Record::NotRecorded {
            reason: "the entry has no response".into(),
        };
    };
    let error = error_string(&response.error)
        .map(str::to_string)
        .or(entry_error);
    let with_error = |s: String| match &error {
        Some(e) => format!("{s}; _error: {e}"),
        None => s,
    };
    if response.status == 0 {
        return Record::NotRecorded {
            reason: with_error("no HTTP response (status 0)".into()),
        };
    }
    let content = response.content.unwrap_or(Content {
        size: None,
        text: None,
        encoding: None,
        comment: None,
    });
    let Some(text) = content.text else {
        let mut reason = "content has no text".to_string();
        if let Some(c) = &content.comment {
            reason.push_str(&format!("; content.comment: {c}"));
        }
        return Record::NotRecorded {
            reason: with_error(reason),
        };
    };
    if text.is_empty()
        && let Some(size) = content.size.filter(|s| *s > 0)
    {
        return Record::NotRecorded {
            reason: with_error(format!(
                "content.text is empty but content.size says the body had {size} bytes"
            )),
        };
    }
    let body = match content.encoding.as_deref().map(str::trim) {
        None | Some("") => text.into_bytes(),
        Some(enc) if enc.eq_ignore_ascii_case("base64") => match decode_base64(&text) {
            Ok(b) => b,
            Err(e) => {
                return Record::Unreadable {
                    reason: format!("content.encoding is base64 but content.text is not: {e}"),
                };
            }
        },
        Some(other) => {
            return Record::Unreadable {
                reason: format!(
                    "content.encoding `{other}` is not supported (HAR 1.2 knows only base64)"
                ),
            };
        }
    };
    if let Some(size) = content.size
        && size >= 0
        && size as u64 != body.len() as u64
    {
        notes.push(format!(
            "content.size says {size} bytes; the recorded text has {} (judged as recorded)",
            body.len()
        ));
    }
    let end = match &error {
        Some(e) => {
            let end = end_of_error(e);
            notes.push(format!(
                "_error \"{e}\": body end taken as {}",
                end.as_str()
            ));
            end
        }
        None => BodyEnd::Complete,
    };
    Record::ToolsCall(Box::new(Exchange {
        stdio: None,
        name: None,
        request,
        status: response.status,
        response_headers: headers_of(response.headers),
        body,
        end,
        tool: None,
        initialize: None,
        session: None,
        retry: None,
        auth: None,
        server: None,
        protocol: None,
    }))
}

/// The `result.tools` of a recorded tools/list response (JSON body, or any SSE event carrying
/// a result with tools).
fn listed_tools(response: &RawResponse) -> Option<Vec<Value>> {
    let content = response.content.as_ref()?;
    let text = content.text.as_ref()?;
    let bytes = match content.encoding.as_deref() {
        Some(enc) if enc.eq_ignore_ascii_case("base64") => decode_base64(text).ok()?,
        _ => text.as_bytes().to_vec(),
    };
    let tools_of = |v: &Value| {
        v.get("result")
            .and_then(|r| r.get("tools"))
            .and_then(Value::as_array)
            .cloned()
    };
    if let Ok(v) = serde_json::from_slice::<Value>(&bytes) {
        return tools_of(&v);
    }
    crate::wire::sse::parse(&bytes)
        .events
        .iter()
        .filter_map(|e| serde_json::from_str::<Value>(&e.data).ok())
        .find_map(|v| tools_of(&v))
}

/// Gives each tools/call exchange the definition of its tool from a tools/list response at the
/// same URL: the latest one before the call, else the first one after it.
fn attach_tool_definitions(entries: &mut [Entry], lists: &[ToolList]) {
    if lists.is_empty() {
        return;
    }
    for entry in entries.iter_mut() {
        let Some(name) = entry.tool.clone() else {
            continue;
        };
        let Record::ToolsCall(ex) = &mut entry.record else {
            continue;
        };
        let defines = |l: &&ToolList| {
            l.url == entry.url
                && l.tools
                    .iter()
                    .any(|t| t.get("name").and_then(Value::as_str) == Some(&name))
        };
        let source = lists
            .iter()
            .filter(|l| l.index < entry.index)
            .rfind(defines)
            .or_else(|| lists.iter().filter(|l| l.index > entry.index).find(defines));
        if let Some(list) = source {
            ex.tool = list
                .tools
                .iter()
                .find(|t| t.get("name").and_then(Value::as_str) == Some(&name))
                .cloned();
            entry.notes.push(format!(
                "tool definition of `{name}` taken from the tools/list response in entry {}",
                list.index
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_strings_map_to_body_ends() {
        assert_eq!(end_of_error("net::ERR_TIMED_OUT"), BodyEnd::Timeout);
        assert_eq!(end_of_error("read timed out"), BodyEnd::Timeout);
        assert_eq!(end_of_error("net::ERR_ABORTED"), BodyEnd::Timeout);
        assert_eq!(end_of_error("net::ERR_CONNECTION_RESET"), BodyEnd::Reset);
        assert_eq!(
            end_of_error("net::ERR_INCOMPLETE_CHUNKED_ENCODING"),
            BodyEnd::Reset
        );
        assert_eq!(end_of_error("Connection killed."), BodyEnd::Reset);
    }

    #[test]
    fn not_a_har() {
        let e = read(b"{\"entries\": []}").unwrap_err();
        assert_eq!(e.line, Some(1));
        assert!(e.message.contains("log"), "{}", e.message);
        let e = read(b"{\"log\": {\"entries\": [}}").unwrap_err();
        assert!(e.column.is_some());
    }
}
