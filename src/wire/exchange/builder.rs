//! Building an [`Exchange`] in code, step by step (the library's way in beside the file format
//! that `super` reads).

use serde_json::Value;

use super::{
    BodyEnd, Exchange, Headers, Negotiated, RecordedRetry, RecordedServer, RecordedSession,
};
use crate::vocab::Protocol;
use crate::wire::auth_record::RecordedAuth;
use crate::wire::stdio::{ExitStatus, Stdio, StdioEnd};

/// Builds an [`Exchange`] step by step, request side included.
///
/// ```
/// use mcp_verdict::{BodyEnd, Exchange, Headers};
/// use serde_json::json;
///
/// let ex = Exchange::builder(200, Headers::new([("Content-Type", "text/event-stream")]), b"data: {}\n\n")
///     .request(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "echo"}}))
///     .request_headers(Headers::new([("MCP-Protocol-Version", "2026-07-28"), ("Mcp-Method", "tools/call")]))
///     .end(BodyEnd::Reset)
///     .build();
/// assert_eq!(ex.request.headers.get("mcp-method"), Some("tools/call"));
/// ```
#[derive(Clone, Debug)]
#[must_use]
pub struct ExchangeBuilder {
    pub(super) ex: Exchange,
}

impl ExchangeBuilder {
    /// The JSON-RPC message as sent (a request, or a notification without `id`).
    pub fn request(mut self, body: Value) -> Self {
        self.ex.request.body = Some(body);
        self
    }

    /// The request's header fields (`MCP-Protocol-Version`, `Mcp-Method`, `Idempotency-Key`...).
    pub fn request_headers(mut self, headers: Headers) -> Self {
        self.ex.request.headers = headers;
        self
    }

    /// The request's HTTP method and URL.
    pub fn request_line(mut self, method: impl Into<String>, url: impl Into<String>) -> Self {
        self.ex.request.method = Some(method.into());
        self.ex.request.url = Some(url.into());
        self
    }

    /// How the body ended (default: complete).
    pub fn end(mut self, end: BodyEnd) -> Self {
        self.ex.end = end;
        self
    }

    /// The tool's definition from `tools/list` (output schema, annotations).
    pub fn tool(mut self, tool: Value) -> Self {
        self.ex.tool = Some(tool);
        self
    }

    /// What `initialize` negotiated in the session (2025-11-25).
    pub fn initialize(mut self, negotiated: Negotiated) -> Self {
        self.ex.initialize = Some(negotiated);
        self
    }

    /// The session the request belongs to (2025-11-25).
    pub fn session(mut self, session: RecordedSession) -> Self {
        self.ex.session = Some(session);
        self
    }

    /// The `InputRequiredResult` the request answers, when it is a retry (2026-07-28).
    pub fn retry(mut self, retry: RecordedRetry) -> Self {
        self.ex.retry = Some(retry);
        self
    }

    /// What the client knew of the server's authorization.
    pub fn auth(mut self, auth: RecordedAuth) -> Self {
        self.ex.auth = Some(auth);
        self
    }

    /// The protocol revisions the server declared (its `server/discover` answer's
    /// `supportedVersions`).
    pub fn server(mut self, server: RecordedServer) -> Self {
        self.ex.server = Some(server);
        self
    }

    /// The revisions the recording names (used when the caller names none).
    pub fn protocols(mut self, protocols: Vec<Protocol>) -> Self {
        self.ex.protocol = Some(protocols);
        self
    }

    /// A short name for reports.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.ex.name = Some(name.into());
        self
    }

    /// The line the client wrote to stdin for the request, exactly, newline included (a stdio
    /// exchange; without it, the request's compact JSON and a newline).
    pub fn stdin(mut self, line: impl Into<Vec<u8>>) -> Self {
        self.stdio_mut().stdin = line.into();
        self
    }

    /// What the server wrote on stderr (a stdio exchange).
    pub fn stderr(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.stdio_mut().stderr = Some(bytes.into());
        self
    }

    /// What stopped the recording of stdout (a stdio exchange; default: the response was read).
    pub fn stdio_end(mut self, end: StdioEnd) -> Self {
        self.stdio_mut().end = end;
        self
    }

    /// How the server process ended (a stdio exchange).
    pub fn exit(mut self, status: ExitStatus) -> Self {
        self.stdio_mut().exit = Some(status);
        self
    }

    /// The byte offset in stdout at which the client wrote `notifications/cancelled` for the
    /// request (a stdio exchange).
    pub fn cancelled_at(mut self, offset: usize) -> Self {
        self.stdio_mut().cancelled_at = Some(offset);
        self
    }

    fn stdio_mut(&mut self) -> &mut Stdio {
        self.ex.stdio.get_or_insert_with(Box::default)
    }

    /// The exchange.
    pub fn build(mut self) -> Exchange {
        if let (Some(s), Some(body)) = (self.ex.stdio.as_mut(), &self.ex.request.body)
            && s.stdin.is_empty()
        {
            s.stdin = crate::wire::stdio::record::default_line(body);
        }
        self.ex
    }
}
