//! The exchange the engine judges (one request and what answered it: an HTTP response, or what a
//! stdio server wrote) and its file format.
//!
//! The file format is documented in the README (the stdio variant in `docs/stdio.md`) and
//! published as a JSON Schema generated from the types below (`schemas/exchange.schema.json`);
//! a test fails if the two drift apart.

use std::collections::BTreeMap;
use std::fmt;

use base64::Engine as _;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::auth_record::RecordedAuth;
pub use super::headers::Headers;
use crate::vocab::Outcome;
use crate::vocab::Protocol;
use crate::wire::stdio::{RecordedStdio, Stdio};

mod builder;
pub use builder::ExchangeBuilder;

/// How the response body ended.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum BodyEnd {
    /// The body was received in full (Content-Length reached, last chunk, or clean close).
    #[default]
    Complete,
    /// The connection was reset or closed before the body was complete.
    Reset,
    /// The recorder stopped waiting for more bytes.
    Timeout,
}

impl BodyEnd {
    /// The wire name: `complete`, `reset` or `timeout`.
    pub fn as_str(self) -> &'static str {
        match self {
            BodyEnd::Complete => "complete",
            BodyEnd::Reset => "reset",
            BodyEnd::Timeout => "timeout",
        }
    }
}

/// The request as the client sent it.
#[derive(Clone, Debug, Default, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordedRequest {
    /// HTTP method; POST when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// The MCP endpoint URL, if recorded; its scheme, host and port are the endpoint's origin,
    /// which an `Origin` request header is compared with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Request header fields (e.g. `MCP-Protocol-Version`, `Mcp-Method`, `Mcp-Name`,
    /// `MCP-Session-Id`, `Origin`).
    #[serde(default, skip_serializing_if = "Headers::is_empty")]
    pub headers: Headers,
    /// The JSON-RPC message as sent (a request, or a notification without `id`). A string is
    /// read as the JSON text it holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<Value>,
}

/// The response as the client received it. At most one of `body`, `body_base64` and
/// `body_json` is given; none means an empty body.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RecordedResponse {
    /// HTTP status code.
    pub status: u16,
    /// Response header fields (e.g. `Content-Type`).
    #[serde(default, skip_serializing_if = "Headers::is_empty")]
    pub headers: Headers,
    /// The body text exactly as received (use `body_base64` for bytes that are not UTF-8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<String>,
    /// The body bytes, base64-encoded (RFC 4648 standard alphabet).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_base64: Option<String>,
    /// Convenience: a JSON body given as JSON; judged as its compact serialization.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_json: Option<Value>,
    /// How the body ended; `complete` when absent.
    #[serde(default, skip_serializing_if = "is_complete")]
    pub end: BodyEnd,
}

fn is_complete(end: &BodyEnd) -> bool {
    *end == BodyEnd::Complete
}

/// What `initialize` negotiated in the session the exchange belongs to (2025-11-25, where
/// capabilities are declared once per session rather than with every request).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Negotiated {
    /// The capabilities the client declared in its `initialize` request
    /// (`params.capabilities`); `{}` declares none.
    pub client_capabilities: Map<String, Value>,
    /// The protocol version the server answered `initialize` with.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol_version: Option<String>,
    /// The client's `clientInfo`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_info: Option<Value>,
    /// The capabilities the server answered with (`result.capabilities`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_capabilities: Option<Value>,
    /// The server's `serverInfo` (an `Implementation`: name, version, icons...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server_info: Option<Value>,
}

/// The session the exchange belongs to (2025-11-25 Streamable HTTP), as the client that
/// recorded it knew it. A request recorded without the `MCP-Session-Id` header while `id` is
/// given left the session id out.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RecordedSession {
    /// The `MCP-Session-Id` the server issued with its answer to `initialize`.
    pub id: String,
    /// Whether the session had ended before the request was sent: the client's `DELETE` of it
    /// was answered with a 2xx status. `false` when absent.
    #[serde(default, skip_serializing_if = "is_false")]
    pub ended: bool,
}

/// The `InputRequiredResult` a request answers (2026-07-28 multi round-trip requests), as the
/// client that recorded the retry knew it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RecordedRetry {
    /// The `inputRequests` of that result, as received; the retry's `inputResponses` answer
    /// them by key. Absent when the result carried none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_requests: Option<Map<String, Value>>,
    /// Whether the client changed the `requestState` it received before sending it back (a
    /// test client does, to see whether the server verifies it). `false` when absent.
    #[serde(default, skip_serializing_if = "is_false")]
    pub request_state_altered: bool,
}

/// What the client knew of the protocol revisions the server implements, as the server
/// declared them: the `supportedVersions` of its `server/discover` answer (2026-07-28).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RecordedServer {
    /// The protocol versions the server declared it supports.
    pub supported_versions: Vec<String>,
}

impl RecordedServer {
    /// Whether every version the server declared is `revision` or later: a server that speaks
    /// none of the revisions before it (whose results carried no `resultType`). `false` when
    /// it declared none.
    pub fn only_from(&self, revision: &str) -> bool {
        !self.supported_versions.is_empty()
            && self
                .supported_versions
                .iter()
                .all(|v| v.as_str() >= revision)
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// One revision, or several.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum ProtocolField {
    /// A single revision, e.g. `"2026-07-28"`.
    One(Protocol),
    /// Several revisions.
    Many(Vec<Protocol>),
}

impl ProtocolField {
    /// The revisions named, oldest first, without duplicates.
    pub fn revisions(&self) -> Vec<Protocol> {
        let mut v = match self {
            ProtocolField::One(p) => vec![*p],
            ProtocolField::Many(ps) => ps.clone(),
        };
        v.sort();
        v.dedup();
        v
    }
}

/// What a fixture expects under one revision.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Expectation {
    /// The expected outcome.
    pub outcome: Outcome,
    /// Rule ids that must be cited by the verdict or appear among its findings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<String>,
    /// Rule ids that must NOT appear among the findings.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub absent: Vec<String>,
}

/// The transport an exchange was recorded over.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum TransportName {
    /// Streamable HTTP: `request` with headers, `response` with status, headers and body.
    #[default]
    Http,
    /// stdio: `request` (the message the client wrote as a line) and `stdio` (what the server
    /// wrote on stdout and stderr, and how it ended).
    Stdio,
}

/// An exchange file: the recorded exchange plus optional metadata and expectations.
#[derive(Clone, Debug, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(
    title = "mcp-verdict exchange",
    description = "One recorded MCP tools/call exchange (an HTTP request and response, or a request line and what a stdio server wrote) for mcp-verdict to judge, with optional expectations per protocol revision.",
    transform = transport_variants
)]
pub struct ExchangeFile {
    /// Optional JSON Schema reference for editors.
    #[serde(rename = "$schema", default, skip_serializing_if = "Option::is_none")]
    pub schema: Option<String>,
    /// A short name for reports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// What the exchange shows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The revision(s) to judge under when the command line does not say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<ProtocolField>,
    /// The transport: `http` (the default), or `stdio` (the default when `stdio` is given).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<TransportName>,
    /// The request as sent (over stdio: `body` only, the message the client wrote as a line).
    #[serde(default)]
    pub request: RecordedRequest,
    /// The HTTP response as received (an HTTP exchange).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<RecordedResponse>,
    /// What the client wrote and the server wrote back over stdio (a stdio exchange).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdio: Option<RecordedStdio>,
    /// The tool's definition from `tools/list`, if known (enables output-schema checks and
    /// replay-safety advice).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<Value>,
    /// What `initialize` negotiated in the session (2025-11-25), if known: enables the checks
    /// of server requests against the client's declared capabilities.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initialize: Option<Negotiated>,
    /// The session the request belongs to (2025-11-25), if known: enables the checks of the
    /// answers to a request without the session id and to a request in an ended session.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<RecordedSession>,
    /// The `InputRequiredResult` the request answers, when it is a retry (2026-07-28), if
    /// known: enables the check that a retry lacking the requested input is asked again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry: Option<RecordedRetry>,
    /// What the client knew of the server's authorization (whether it held a token, the
    /// discovery documents it read), if known: enables the checks of those documents and of
    /// a request that left its token out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth: Option<RecordedAuth>,
    /// The protocol revisions the server declared (the `supportedVersions` of its
    /// `server/discover` answer), if known: a 2026-07-28 result without `resultType` from a
    /// server that declared only 2026-07-28 or later is judged invalid, as a client that knows
    /// it reads it, instead of complete.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub server: Option<RecordedServer>,
    /// Expected verdicts, keyed by revision name, or `all` for every judged revision.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub expect: BTreeMap<String, Expectation>,
}

/// The judged exchange: request, response bytes and context.
#[derive(Clone, Debug)]
pub struct Exchange {
    /// A short name for reports.
    pub name: Option<String>,
    /// The request as sent.
    pub request: RecordedRequest,
    /// HTTP status.
    pub status: u16,
    /// Response header fields.
    pub response_headers: Headers,
    /// Response body bytes exactly as received.
    pub body: Vec<u8>,
    /// How the body ended.
    pub end: BodyEnd,
    /// The tool's definition, if known.
    pub tool: Option<Value>,
    /// What `initialize` negotiated in the session (2025-11-25), if known.
    pub initialize: Option<Negotiated>,
    /// The session the request belongs to (2025-11-25), if known.
    pub session: Option<RecordedSession>,
    /// The `InputRequiredResult` the request answers, when it is a retry (2026-07-28), if
    /// known.
    pub retry: Option<RecordedRetry>,
    /// What the client knew of the server's authorization, if known.
    pub auth: Option<RecordedAuth>,
    /// The protocol revisions the server declared, if known.
    pub server: Option<RecordedServer>,
    /// Revisions named by the recording itself.
    pub protocol: Option<Vec<Protocol>>,
    /// A stdio exchange: what the client wrote and the server wrote back. The HTTP fields
    /// (`status`, `response_headers`, `body`, `end`) are then unused: status 0, no headers, no
    /// body, `complete`.
    pub stdio: Option<Box<Stdio>>,
}

impl Exchange {
    /// Starts building a stdio exchange from what the server wrote on stdout from the request
    /// line on (set the request with [`ExchangeBuilder::request`]; the line the client wrote
    /// is its compact JSON and a newline unless [`ExchangeBuilder::stdin`] says otherwise).
    pub fn stdio(stdout: impl Into<Vec<u8>>) -> ExchangeBuilder {
        let mut ex = Exchange::new(None, 0, Headers::default(), Vec::new());
        ex.stdio = Some(Box::new(Stdio {
            stdout: stdout.into(),
            ..Stdio::default()
        }));
        ExchangeBuilder { ex }
    }

    /// The transport the exchange was recorded over.
    pub fn transport(&self) -> TransportName {
        if self.stdio.is_some() {
            TransportName::Stdio
        } else {
            TransportName::Http
        }
    }

    /// Starts building an exchange from its response: status, header fields and body bytes.
    pub fn builder(status: u16, headers: Headers, body: impl Into<Vec<u8>>) -> ExchangeBuilder {
        ExchangeBuilder {
            ex: Exchange::new(None, status, headers, body.into()),
        }
    }

    /// A minimal exchange: a request body and a response.
    pub fn new(request_body: Option<Value>, status: u16, headers: Headers, body: Vec<u8>) -> Self {
        Exchange {
            name: None,
            request: RecordedRequest {
                body: request_body,
                ..RecordedRequest::default()
            },
            status,
            response_headers: headers,
            body,
            end: BodyEnd::Complete,
            tool: None,
            initialize: None,
            session: None,
            retry: None,
            auth: None,
            server: None,
            protocol: None,
            stdio: None,
        }
    }
}

/// Why an exchange file could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExchangeError {
    /// 1-based line, when known.
    pub line: Option<usize>,
    /// 1-based column, when known.
    pub column: Option<usize>,
    /// What is wrong and how to fix it.
    pub message: String,
}

impl fmt::Display for ExchangeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.column) {
            (Some(l), Some(c)) => write!(f, "line {l}, column {c}: {}", self.message),
            (Some(l), None) => write!(f, "line {l}: {}", self.message),
            _ => f.write_str(&self.message),
        }
    }
}

impl std::error::Error for ExchangeError {}

/// A `response.body` literal at least this long is decoded apart from the rest of the file
/// (see [`ExchangeFile::from_slice`]).
const LARGE_BODY: usize = 1 << 20;

impl ExchangeFile {
    /// Parses an exchange file. Only `response.body_json` may nest deeper than `serde_json`'s
    /// limit of 128 levels (up to [`crate::wire::deep::MAX_DEPTH`]); it is then kept as its
    /// compact text in `response.body`.
    pub fn from_slice(bytes: &[u8]) -> Result<ExchangeFile, ExchangeError> {
        // A leading byte order mark is skipped, as in every other input path.
        let bytes = crate::wire::utf8::strip_bom(bytes);
        if let Some(file) = Self::with_large_body(bytes) {
            return Ok(file);
        }
        // The whole file is checked as UTF-8 once (a vector register at a time), then read as
        // text: `serde_json` reading bytes checks each string of the file on its own, which
        // cost a line of `classify --jsonl` about a tenth of its decoding. A file that is not
        // UTF-8 is read as bytes, for `serde_json`'s error and its position.
        let parsed = match crate::wire::utf8::text(bytes) {
            Ok(text) => serde_json::from_str(text),
            Err(_) => serde_json::from_slice(bytes),
        };
        match parsed {
            Err(e) if crate::wire::deep::is_depth_error(&e) => Self::from_deep_slice(bytes, &e),
            parsed => parsed.map_err(|e| Self::file_error(&e)),
        }
    }

    /// Reads a file whose `response.body` is a string of [`LARGE_BODY`] bytes or more, holding
    /// the file and the decoded body and nothing more: the body's literal is found without
    /// decoding it, decoded into text of its exact length, and the rest of the file is read
    /// with the literal left out. `None` whenever the file is not such a file or any step
    /// fails; the caller then reads it the ordinary way, which decides and reports alike.
    fn with_large_body(bytes: &[u8]) -> Option<ExchangeFile> {
        use serde_json::value::RawValue;
        #[derive(Deserialize)]
        struct Outline<'a> {
            #[serde(borrow)]
            response: Option<ResponseOutline<'a>>,
        }
        #[derive(Deserialize)]
        struct ResponseOutline<'a> {
            #[serde(borrow)]
            body: Option<&'a RawValue>,
        }
        if bytes.len() < LARGE_BODY {
            return None;
        }
        let outline: Outline<'_> = serde_json::from_slice(bytes).ok()?;
        let literal = outline.response?.body?.get();
        if literal.len() < LARGE_BODY || !literal.starts_with('"') {
            return None;
        }
        let start = literal.as_ptr() as usize - bytes.as_ptr() as usize;
        let end = start + literal.len();
        let body = crate::wire::jsonstr::decode(literal)?;
        // The rest of the file, with `null` where the body's literal stands.
        let rest = std::io::Read::chain(
            std::io::Read::chain(&bytes[..start], &b"null"[..]),
            &bytes[end..],
        );
        let mut file: ExchangeFile = serde_json::from_reader(rest).ok()?;
        file.response.as_mut()?.body = Some(body);
        Some(file)
    }

    fn file_error(e: &serde_json::Error) -> ExchangeError {
        {
            let hint = if e.is_syntax() || e.is_eof() {
                " (the exchange file itself must be valid JSON; put a malformed response body in `response.body` as a string)"
            } else {
                ""
            };
            // The position is the error's own; the message does not repeat it.
            let text = e.to_string();
            let position = format!(" at line {} column {}", e.line(), e.column());
            let message = text.strip_suffix(&position).unwrap_or(&text);
            ExchangeError {
                line: Some(e.line().max(1)),
                // serde_json counts 0 at the start of a line (an empty file); columns are 1-based.
                column: Some(e.column().max(1)),
                message: format!("{message}{hint}"),
            }
        }
    }

    /// An exchange file nesting deeper than `serde_json`'s limit: read without the limit on a
    /// grown stack, `response.body_json` turned into its text, the rest held to the limit.
    fn from_deep_slice(bytes: &[u8], first: &serde_json::Error) -> Result<Self, ExchangeError> {
        use crate::wire::deep::{self, MAX_DEPTH, SHALLOW};
        // `body_json` itself sits three levels down (file, `response`, `body_json`).
        let limit = MAX_DEPTH + 2;
        let (depth, over) = deep::nesting(bytes, limit);
        let depth_error = |what: String| ExchangeError {
            line: Some(first.line()),
            column: Some(first.column()),
            message: what,
        };
        if over.is_some() {
            return Err(depth_error(format!(
                "the exchange file nests JSON more than {limit} levels deep; a response body may nest at most {MAX_DEPTH} levels (give a deeper body as text in `response.body` to have it judged as too deep)"
            )));
        }
        let text = std::str::from_utf8(bytes).map_err(|e| ExchangeError {
            line: None,
            column: None,
            message: format!("the exchange file is not UTF-8: {e}"),
        })?;
        deep::on_stack_for(depth, || {
            let mut file: Value = deep::unbounded(text).map_err(|e| Self::file_error(&e))?;
            let response = file.get_mut("response").and_then(Value::as_object_mut);
            if let Some(r) = response
                && let Some(json) = r.remove("body_json")
            {
                if r.contains_key("body") || r.contains_key("body_base64") {
                    return Err(ExchangeError {
                        line: None,
                        column: None,
                        message: "response: give only one of `body`, `body_base64` and `body_json`"
                            .into(),
                    });
                }
                let body =
                    serde_json::to_string(&json).expect("serializing a JSON value cannot fail");
                r.insert("body".into(), Value::String(body));
            }
            if deep::deeper_than(&file, SHALLOW) {
                return Err(depth_error(format!(
                    "{first}: only `response.body_json` may nest deeper than {SHALLOW} levels, not the request, the tool definition or the rest of the file"
                )));
            }
            serde_json::from_value(file).map_err(|e| ExchangeError {
                line: None,
                column: None,
                message: e.to_string(),
            })
        })
    }

    /// Turns the file into the exchange the engine judges, decoding the body (copies what it
    /// needs; see [`ExchangeFile::into_exchange`] to move instead).
    pub fn to_exchange(&self) -> Result<Exchange, ExchangeError> {
        self.clone().into_exchange()
    }

    /// Turns the file into the exchange the engine judges, decoding the body, without copying
    /// the request or the tool definition.
    pub fn into_exchange(mut self) -> Result<Exchange, ExchangeError> {
        // A request body given as a string is read as the JSON text it holds (as a recording
        // tool may store it), never ignored.
        if let Some(Value::String(text)) = &self.request.body {
            let parsed = serde_json::from_str::<Value>(text).map_err(|e| ExchangeError {
                line: None,
                column: None,
                message: format!(
                    "request.body is a string that is not JSON text ({e}); give the JSON-RPC request as a JSON object, or as a string holding its JSON text"
                ),
            })?;
            self.request.body = Some(parsed);
        }
        let stdio = match (self.transport, self.stdio, self.response) {
            (Some(TransportName::Http) | None, None, Some(r)) => {
                return Self::http_exchange(
                    r,
                    Exchange {
                        name: self.name,
                        request: self.request,
                        status: 0,
                        response_headers: Headers::default(),
                        body: Vec::new(),
                        end: BodyEnd::Complete,
                        tool: self.tool,
                        initialize: self.initialize,
                        session: self.session,
                        retry: self.retry,
                        auth: self.auth,
                        server: self.server,
                        protocol: self.protocol.as_ref().map(ProtocolField::revisions),
                        stdio: None,
                    },
                );
            }
            (Some(TransportName::Stdio) | None, Some(s), None) => s,
            (_, Some(_), Some(_)) => {
                return Err(whole(
                    "give `response` (an HTTP exchange) or `stdio` (a stdio exchange), not both",
                ));
            }
            (Some(TransportName::Http), Some(_), None) => {
                return Err(whole(
                    "`transport` is `http` but the file gives `stdio`; an HTTP exchange gives `response`, a stdio exchange `\"transport\": \"stdio\"` and `stdio`",
                ));
            }
            (Some(TransportName::Stdio), None, _) => {
                return Err(whole(
                    "`transport` is `stdio`: give what the server wrote as `stdio` (e.g. `\"stdio\": {\"stdout\": \"...\"}`), not `response`",
                ));
            }
            (Some(TransportName::Http) | None, None, None) => {
                return Err(whole(
                    "missing field `response` (an HTTP exchange: status, headers, body) or `stdio` (a stdio exchange: what the server wrote on stdout)",
                ));
            }
        };
        if !self.request.headers.is_empty()
            || self.request.method.is_some()
            || self.request.url.is_some()
        {
            return Err(whole(
                "a stdio exchange has no HTTP request line or headers: give only `request.body` (protocol metadata travels in its `_meta`)",
            ));
        }
        if self.session.is_some() {
            return Err(whole(
                "a stdio exchange has no HTTP session: leave out `session` (the process is the session)",
            ));
        }
        if self.auth.is_some() {
            return Err(whole(
                "a stdio exchange has no HTTP authorization (credentials come from the environment): leave out `auth`",
            ));
        }
        let (stdio, body) = stdio.decode(self.request.body.take()).map_err(whole)?;
        self.request.body = body;
        let mut ex = Exchange::new(None, 0, Headers::default(), Vec::new());
        ex.name = self.name;
        ex.request = self.request;
        ex.tool = self.tool;
        ex.initialize = self.initialize;
        ex.retry = self.retry;
        ex.protocol = self.protocol.as_ref().map(ProtocolField::revisions);
        ex.stdio = Some(Box::new(stdio));
        Ok(ex)
    }

    /// Fills an HTTP exchange's response side from the file's `response`.
    fn http_exchange(r: RecordedResponse, mut ex: Exchange) -> Result<Exchange, ExchangeError> {
        let given = [
            r.body.is_some(),
            r.body_base64.is_some(),
            r.body_json.is_some(),
        ]
        .iter()
        .filter(|g| **g)
        .count();
        if given > 1 {
            return Err(whole(
                "response: give only one of `body`, `body_base64` and `body_json`",
            ));
        }
        let body = if let Some(text) = r.body {
            text.into_bytes()
        } else if let Some(b64) = &r.body_base64 {
            base64::engine::general_purpose::STANDARD
                .decode(b64.trim())
                .map_err(|e| whole(format!(
                    "response.body_base64 is not valid base64 ({e}); encode the raw body bytes with the standard alphabet"
                )))?
        } else if let Some(json) = &r.body_json {
            serde_json::to_vec(json).expect("serializing a JSON value cannot fail")
        } else {
            Vec::new()
        };
        ex.status = r.status;
        ex.response_headers = r.headers;
        ex.body = body;
        ex.end = r.end;
        Ok(ex)
    }

    /// The expectation for a revision: its own entry, else the `all` entry.
    pub fn expectation(&self, protocol: Protocol) -> Option<&Expectation> {
        self.expect
            .get(protocol.as_str())
            .or_else(|| self.expect.get("all"))
    }

    /// Keys of `expect` that name neither a supported revision nor `all`.
    pub fn unknown_expect_keys(&self) -> Vec<&str> {
        self.expect
            .keys()
            .map(String::as_str)
            .filter(|k| *k != "all" && Protocol::parse(k).is_none())
            .collect()
    }
}

/// An error about the file as a whole (no position to name).
fn whole(message: impl Into<String>) -> ExchangeError {
    ExchangeError {
        line: None,
        column: None,
        message: message.into(),
    }
}

/// Says in the published schema which members each transport needs: `response` for HTTP (the
/// default), `stdio` for stdio, never both.
fn transport_variants(schema: &mut schemars::Schema) {
    let stdio = serde_json::json!({
        "anyOf": [
            {"required": ["transport"], "properties": {"transport": {"const": "stdio"}}},
            {"required": ["stdio"]}
        ]
    });
    schema.insert(
        "if".into(),
        serde_json::json!({"not": {"anyOf": [
            {"required": ["transport"], "properties": {"transport": {"const": "http"}}},
            {"not": stdio}
        ]}}),
    );
    schema.insert(
        "then".into(),
        serde_json::json!({"required": ["stdio"], "not": {"required": ["response"]}}),
    );
    schema.insert(
        "else".into(),
        serde_json::json!({"required": ["response"], "not": {"required": ["stdio"]}}),
    );
}

/// The JSON Schema of the exchange file format, as published in `schemas/exchange.schema.json`.
pub fn exchange_json_schema() -> Value {
    let schema = schemars::schema_for!(ExchangeFile);
    serde_json::to_value(schema).expect("schema serializes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_are_case_insensitive_and_repeatable() {
        let f: ExchangeFile = serde_json::from_str(
            r#"{"response":{"status":200,"headers":{"Content-Type":"application/json","Set-Cookie":["a=1","b=2"]}}}"#,
        )
        .unwrap();
        let h = &f.response.as_ref().unwrap().headers;
        assert_eq!(h.get("content-type"), Some("application/json"));
        assert_eq!(h.get_all("set-cookie").collect::<Vec<_>>(), ["a=1", "b=2"]);
        let round = serde_json::to_value(h).unwrap();
        assert_eq!(round["Set-Cookie"], serde_json::json!(["a=1", "b=2"]));
    }

    #[test]
    fn one_body_only() {
        let f =
            ExchangeFile::from_slice(br#"{"response":{"status":200,"body":"{}","body_json":{}}}"#)
                .unwrap();
        assert!(f.to_exchange().unwrap_err().message.contains("only one"));
    }

    #[test]
    fn bodies_decode() {
        let f = ExchangeFile::from_slice(br#"{"response":{"status":200,"body_base64":"/w=="}}"#)
            .unwrap();
        assert_eq!(f.to_exchange().unwrap().body, vec![0xff]);
        let f = ExchangeFile::from_slice(br#"{"response":{"status":200,"body_json":{"a":1}}}"#)
            .unwrap();
        assert_eq!(f.to_exchange().unwrap().body, br#"{"a":1}"#);
    }

    #[test]
    fn syntax_errors_name_the_position() {
        let e = ExchangeFile::from_slice(b"{\n  \"response\": {\"status\": 200,}\n}").unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.column.is_some());
        let e = ExchangeFile::from_slice(br#"{"response":{"status":200},"bogus":1}"#).unwrap_err();
        assert!(e.message.contains("bogus"), "{}", e.message);
    }

    /// A file whose `response.body` literal is `body` (already escaped), padded past
    /// [`LARGE_BODY`], with `after` written after the response.
    fn large(body: &str, after: &str) -> Vec<u8> {
        let pad = r#"event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\"}\n\n"#
            .repeat(LARGE_BODY / 60);
        format!(
            "{{\n  \"name\": \"large\",\n  \"request\": {{\"body\": {{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"tools/call\"}}}},\n  \"response\": {{\"status\": 200, \"headers\": {{\"Content-Type\": \"text/event-stream\"}},\n    \"body\": \"{body}{pad}\"}}{after}\n}}"
        )
        .into_bytes()
    }

    /// What the ordinary read gives: the file as `serde_json` reads it, or its error.
    fn ordinary(bytes: &[u8]) -> Result<Value, ExchangeError> {
        serde_json::from_slice::<ExchangeFile>(bytes)
            .map(|f| serde_json::to_value(f).unwrap())
            .map_err(|e| ExchangeFile::file_error(&e))
    }

    #[test]
    fn a_large_body_is_read_apart_with_the_same_result() {
        for (body, after) in [
            (r#"caf\u00e9 \ud83d\ude00 \"q\" \\ \/ \t"#, ""),
            (
                "raw é 😀",
                r#", "expect": {"all": {"outcome": "TOOL_SUCCESS"}}"#,
            ),
        ] {
            let bytes = large(body, after);
            let mine = ExchangeFile::with_large_body(&bytes).expect("read apart");
            let mine = serde_json::to_value(mine).unwrap();
            assert_eq!(Ok(mine), ordinary(&bytes));
        }
    }

    #[test]
    fn a_large_body_the_ordinary_read_refuses_is_refused_alike() {
        for (body, after) in [
            // A lone surrogate, an unknown member after the body, a repeated body.
            (r#"lone \ud83d here"#, ""),
            ("", r#", "bogus": 1"#),
            ("", r#", "response": {"status": 200}"#),
            // An expectation the ordinary read refuses, after the body.
            ("", r#", "expect": {"all": {"outcome": "SUCCESS"}}"#),
        ] {
            let bytes = large(body, after);
            assert!(ExchangeFile::with_large_body(&bytes).is_none());
            let e = ExchangeFile::from_slice(&bytes).unwrap_err();
            assert_eq!(Err(e), ordinary(&bytes));
        }
    }
}
