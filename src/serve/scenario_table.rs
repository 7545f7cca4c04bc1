//! The fault scenarios `serve` can inject, as one table.
//!
//! [`SCENARIOS`] is the single source of truth: `serve --list` renders it, the
//! parser accepts exactly its names, and the test suite iterates over it.
//!
//! It is longer than the house's ~600 lines because it is one table: its rows are data, one per
//! scenario, and splitting them across files would only make the single source two.

use crate::vocab::Protocol;

/// One row of the scenario table.
#[derive(Debug, Clone, Copy)]
pub struct ScenarioInfo {
    /// Name used on the command line.
    pub name: &'static str,
    /// Parameter syntax after `name:` (empty when the scenario takes none).
    pub params: &'static str,
    /// A complete example argument for `--scenario`.
    pub example: &'static str,
    /// What goes on the wire.
    pub injects: &'static str,
    /// Layer exercised: `transport`, `framing`, `protocol`, `interaction` or `application`.
    pub layer: &'static str,
    /// Revisions the scenario applies to.
    pub revisions: &'static [Protocol],
    /// The transports `serve` offers it over.
    pub transports: &'static [Transport],
    /// Verdict a correct judge reaches for the injected `tools/call` under 2025-11-25.
    pub verdict_legacy: &'static str,
    /// Verdict a correct judge reaches for the injected `tools/call` under 2026-07-28.
    pub verdict_modern: &'static str,
    /// The rules of the error findings the verdict on a plain call (`echo`, no progress
    /// token) carries under 2025-11-25, over HTTP (over stdio for a scenario offered only
    /// there): exactly the scenario's fault, nothing besides.
    pub findings_legacy: &'static [&'static str],
    /// The same under 2026-07-28.
    pub findings_modern: &'static [&'static str],
}

/// A transport `serve` speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "cli", derive(clap::ValueEnum))]
pub enum Transport {
    /// Streamable HTTP on loopback (`serve`).
    #[default]
    Http,
    /// stdio: the server reads its stdin and writes its stdout (`serve --stdio`).
    Stdio,
}

impl Transport {
    /// `http` or `stdio`.
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Http => "http",
            Transport::Stdio => "stdio",
        }
    }
}

impl std::fmt::Display for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

const BOTH: &[Protocol] = &[Protocol::V2025_11_25, Protocol::V2026_07_28];
const HTTP: &[Transport] = &[Transport::Http];
const STDIO: &[Transport] = &[Transport::Stdio];
const ANY: &[Transport] = &[Transport::Http, Transport::Stdio];

/// Every scenario, in `--list` order.
pub const SCENARIOS: &[ScenarioInfo] = &[
    ScenarioInfo {
        name: "baseline",
        params: "[:tools=conformance]  (default: the tools echo, add, count, create_order, \
                 confirm_action)",
        example: "baseline",
        injects: "Nothing: every request is answered correctly (application/json by default, \
                  SSE with --response-mode sse or for progress/elicitation). With \
                  tools=conformance the server also offers the fixtures the official MCP \
                  conformance suite calls: tools named test_* (text, image, audio, embedded \
                  resource, mixed content, error, progress, logging, sampling, elicitation, \
                  2026-07-28 input_required flows, a missing-capability check) and \
                  json_schema_2020_12_tool, prompts test_*, resources test://..., a resource \
                  template, completion/complete, and logging/setLevel and resources/subscribe \
                  under 2025-11-25; list results carry caching hints under 2026-07-28.",
        layer: "application",
        transports: ANY,
        revisions: BOTH,
        verdict_legacy: "TOOL_SUCCESS (TOOL_ERROR for arguments that break the inputSchema; \
                         JSONRPC_ERROR -32602 for an unknown tool)",
        verdict_modern: "TOOL_SUCCESS (TOOL_ERROR for arguments that break the inputSchema; \
                         JSONRPC_ERROR -32602 for an unknown tool; INPUT_REQUIRED for \
                         confirm_action round 1, or HTTP_ERROR 400 with -32021 when the client \
                         declared no elicitation capability)",
        findings_legacy: &[],
        findings_modern: &[],
    },
    ScenarioInfo {
        name: "http_status_sequence",
        params: ":STATUS[,STATUS...]  (default 503,200)",
        example: "http_status_sequence:503,200",
        injects: "The Nth POST to the endpoint (any method, initialize and tools/list included) \
                  gets the Nth status; a non-2xx entry is sent as that status with a short \
                  text/plain body, a 2xx entry lets the POST through normally, and POSTs past \
                  the end of the list are served normally.",
        layer: "transport",
        transports: HTTP,
        revisions: BOTH,
        verdict_legacy: "HTTP_ERROR for a tools/call given a non-2xx status (e.g. \
                         200,200,200,503 hits the first call after initialize, \
                         notifications/initialized and tools/list); a non-2xx on initialize stops \
                         a client that does not retry; normal verdicts for the others",
        verdict_modern: "HTTP_ERROR for a tools/call given a non-2xx status (e.g. 200,200,503 \
                         hits the first call after server/discover and tools/list); a non-2xx on \
                         server/discover stops a client that does not retry; normal verdicts for \
                         the others",
        findings_legacy: &[],
        findings_modern: &[],
    },
    ScenarioInfo {
        name: "jsonrpc_error",
        params: "[:CODE]  (default -32602)",
        example: "jsonrpc_error:-32602",
        injects: "tools/call answered with HTTP 200 and a JSON-RPC error response \
                  {code: CODE, message} carrying the request id.",
        layer: "protocol",
        transports: ANY,
        revisions: BOTH,
        verdict_legacy: "JSONRPC_ERROR",
        verdict_modern: "JSONRPC_ERROR (a code that 2026-07-28 pins to HTTP 400 also draws an \
                         error finding, e.g. transport.http.400-header-mismatch for -32020; a code \
                         the revision does not define inside JSON-RPC's reserved range draws \
                         a finding too)",
        findings_legacy: &[],
        findings_modern: &[],
    },
    ScenarioInfo {
        name: "tool_error",
        params: "",
        example: "tool_error",
        injects: "tools/call answered with a valid CallToolResult with isError: true.",
        layer: "application",
        transports: ANY,
        revisions: BOTH,
        verdict_legacy: "TOOL_ERROR",
        verdict_modern: "TOOL_ERROR",
        findings_legacy: &[],
        findings_modern: &[],
    },
    ScenarioInfo {
        name: "input_required",
        params: "",
        example: "input_required",
        injects: "Every tools/call needs a confirmation first (like confirm_action). 2026-07-28: \
                  resultType input_required with an elicitation/create form request and a \
                  requestState; the retry with inputResponses, the echoed requestState and a new \
                  id runs the tool. 2025-11-25: an SSE stream carrying an elicitation/create \
                  request; the result follows once the client POSTs its JSON-RPC response.",
        layer: "interaction",
        transports: ANY,
        revisions: BOTH,
        verdict_legacy: "TOOL_SUCCESS once the client answers the elicitation on the stream (legal \
                         server request); TOOL_ERROR if declined or if the client has no \
                         elicitation capability",
        verdict_modern: "INPUT_REQUIRED for round 1; the retry's verdict is the tool's own \
                         (TOOL_SUCCESS); TOOL_ERROR if declined; HTTP_ERROR (400 with -32021) if \
                         the client declared no elicitation capability",
        findings_legacy: &[],
        findings_modern: &[],
    },
    ScenarioInfo {
        name: "legacy_result",
        params: "",
        example: "legacy_result",
        injects: "tools/call result without resultType (otherwise valid).",
        layer: "protocol",
        transports: ANY,
        revisions: BOTH,
        verdict_legacy: "TOOL_SUCCESS, no finding (2025-11-25 results have no resultType)",
        verdict_modern: "TOOL_SUCCESS (clients read an absent resultType as complete from \
                         servers of earlier revisions, and one exchange does not show which \
                         revision the server implements) plus an error finding \
                         base.result-type.required (a 2026-07-28 server MUST send resultType); a \
                         client that knows the server speaks 2026-07-28 may refuse the result",
        findings_legacy: &[],
        findings_modern: &["base.result-type.required"],
    },
    ScenarioInfo {
        name: "invalid_result",
        params: "",
        example: "invalid_result",
        injects: "tools/call result whose content is the string \"not-an-array\".",
        layer: "protocol",
        transports: ANY,
        revisions: BOTH,
        verdict_legacy: "INVALID_TOOL_RESULT (error finding tools.result.content-required)",
        verdict_modern: "INVALID_TOOL_RESULT (error finding tools.result.content-required)",
        findings_legacy: &["tools.result.content-required"],
        findings_modern: &["tools.result.content-required"],
    },
    ScenarioInfo {
        name: "malformed_json",
        params: "",
        example: "malformed_json",
        injects: "tools/call answered with HTTP 200, application/json, body `{unclosed`.",
        layer: "framing",
        transports: ANY,
        revisions: BOTH,
        verdict_legacy: "MALFORMED_JSON (error finding jsonrpc.message.well-formed)",
        verdict_modern: "MALFORMED_JSON (error finding jsonrpc.message.well-formed)",
        findings_legacy: &["jsonrpc.message.well-formed"],
        findings_modern: &["jsonrpc.message.well-formed"],
    },
    ScenarioInfo {
        name: "wrong_id",
        params: "",
        example: "wrong_id",
        injects: "tools/call answered with a valid result whose id is 99999 (99998 if the \
                  request id was 99999).",
        layer: "protocol",
        transports: ANY,
        revisions: BOTH,
        verdict_legacy: "INVALID_ENVELOPE (error finding jsonrpc.response.id-match: the \
                         response id does not match the request)",
        verdict_modern: "INVALID_ENVELOPE (error finding jsonrpc.response.id-match: the \
                         response id does not match the request)",
        findings_legacy: &["jsonrpc.response.id-match"],
        findings_modern: &["jsonrpc.response.id-match"],
    },
    ScenarioInfo {
        name: "non2xx_valid_body",
        params: "[:STATUS]  (default 500)",
        example: "non2xx_valid_body:500",
        injects: "tools/call answered with HTTP STATUS and an application/json body holding a \
                  valid, successful result.",
        layer: "transport",
        transports: HTTP,
        revisions: BOTH,
        verdict_legacy: "HTTP_ERROR (the status decides before the body)",
        verdict_modern: "HTTP_ERROR (the status decides before the body)",
        findings_legacy: &[],
        findings_modern: &[],
    },
    ScenarioInfo {
        name: "html_error_page",
        params: "[:STATUS]  (default 200)",
        example: "html_error_page:200",
        injects: "tools/call answered with HTTP STATUS, Content-Type text/html and an HTML \
                  error page (as a proxy or gateway would send).",
        layer: "transport",
        transports: HTTP,
        revisions: BOTH,
        verdict_legacy: "UNEXPECTED_CONTENT_TYPE with a 2xx STATUS (error finding \
                         transport.http.response-content-type: text/html is neither \
                         application/json nor text/event-stream); HTTP_ERROR with a non-2xx \
                         STATUS; never TOOL_SUCCESS",
        verdict_modern: "UNEXPECTED_CONTENT_TYPE with a 2xx STATUS (error finding \
                         transport.http.response-content-type: text/html is neither \
                         application/json nor text/event-stream); HTTP_ERROR with a non-2xx \
                         STATUS; never TOOL_SUCCESS",
        findings_legacy: &["transport.http.response-content-type"],
        findings_modern: &["transport.http.response-content-type"],
    },
    ScenarioInfo {
        name: "wrong_content_type",
        params: "",
        example: "wrong_content_type",
        injects: "tools/call answered with HTTP 200, Content-Type text/plain, and a body that is \
                  a valid JSON-RPC result.",
        layer: "transport",
        transports: HTTP,
        revisions: BOTH,
        verdict_legacy: "UNEXPECTED_CONTENT_TYPE (error finding \
                         transport.http.response-content-type: the server MUST use \
                         application/json or text/event-stream); never TOOL_SUCCESS",
        verdict_modern: "UNEXPECTED_CONTENT_TYPE (error finding \
                         transport.http.response-content-type: the server MUST use \
                         application/json or text/event-stream); never TOOL_SUCCESS",
        findings_legacy: &["transport.http.response-content-type"],
        findings_modern: &["transport.http.response-content-type"],
    },
    ScenarioInfo {
        name: "accepted_no_body",
        params: "",
        example: "accepted_no_body",
        injects: "tools/call answered with 202 Accepted and an empty body.",
        layer: "transport",
        transports: HTTP,
        revisions: BOTH,
        verdict_legacy: "NO_RESPONSE (error finding transport.http.request-needs-response: 202 \
                         is for notifications and responses; a request got no JSON-RPC \
                         response); never TOOL_SUCCESS",
        verdict_modern: "NO_RESPONSE (error finding transport.http.request-needs-response: 202 \
                         is for notifications; a request got no JSON-RPC response); never \
                         TOOL_SUCCESS",
        findings_legacy: &["transport.http.request-needs-response"],
        findings_modern: &["transport.http.request-needs-response"],
    },
    ScenarioInfo {
        name: "sse_progress",
        params: "",
        example: "sse_progress",
        injects: "tools/call answered as SSE (X-Accel-Buffering: no, chunked, one event per \
                  chunk): 2025-11-25 first sends a priming event (id + empty data); then three \
                  notifications/progress with increasing progress, then the final result, then \
                  the stream ends.",
        layer: "framing",
        transports: ANY,
        revisions: BOTH,
        verdict_legacy: "TOOL_SUCCESS when the request carries _meta.progressToken (without one \
                         the server makes a token up, and each progress notification draws an \
                         error finding transport.sse.progress)",
        verdict_modern: "TOOL_SUCCESS when the request carries _meta.progressToken (without one \
                         the server makes a token up, and each progress notification draws an \
                         error finding transport.sse.progress)",
        findings_legacy: &["transport.sse.progress"],
        findings_modern: &["transport.sse.progress"],
    },
    ScenarioInfo {
        name: "sse_close_early",
        params: "",
        example: "sse_close_early",
        injects: "tools/call answered as SSE with three progress notifications (when the \
                  request carries _meta.progressToken; none without one), then the chunked \
                  stream is terminated cleanly and the connection closed (Connection: close) \
                  before any final response. No event ids are sent, so nothing can be resumed.",
        layer: "framing",
        transports: HTTP,
        revisions: BOTH,
        verdict_legacy: "DELIVERY_UNKNOWN (transport.sse.final-response; body end complete): the \
                         stream ended without the response and cannot be resumed (no event \
                         ids); not TOOL_SUCCESS",
        verdict_modern: "DELIVERY_UNKNOWN (transport.sse.final-response; body end complete): the \
                         stream ended without the response; the request is lost and must be \
                         re-issued with a new id; not TOOL_SUCCESS",
        findings_legacy: &[],
        findings_modern: &[],
    },
    ScenarioInfo {
        name: "sse_reset",
        params: "",
        example: "sse_reset",
        injects: "tools/call answered as SSE with one progress notification (when the request \
                  carries _meta.progressToken), then half of the final result's event (mid-chunk), then a TCP reset (SO_LINGER 0 + close).",
        layer: "transport",
        transports: HTTP,
        revisions: BOTH,
        verdict_legacy: "DELIVERY_UNKNOWN (transport.sse.final-response; body end reset): the \
                         partial event is not a response; not TOOL_SUCCESS",
        verdict_modern: "DELIVERY_UNKNOWN (transport.sse.final-response; body end reset): the \
                         partial event is not a response; not TOOL_SUCCESS",
        findings_legacy: &[],
        findings_modern: &[],
    },
    ScenarioInfo {
        name: "sse_stall",
        params: "[:SECONDS]  (default: the server's stall cap, 30 s)",
        example: "sse_stall:30",
        injects: "tools/call answered as SSE with one progress notification (when the request \
                  carries _meta.progressToken), then silence until \
                  the client disconnects or SECONDS pass; then the server closes the connection \
                  without terminating the chunked stream.",
        layer: "transport",
        transports: HTTP,
        revisions: BOTH,
        verdict_legacy: "DELIVERY_UNKNOWN (transport.sse.final-response; body end timeout) once \
                         the client's idle timeout gives up on the stream; not TOOL_SUCCESS",
        verdict_modern: "DELIVERY_UNKNOWN (transport.sse.final-response; body end timeout) once \
                         the client's idle timeout gives up on the stream; not TOOL_SUCCESS",
        findings_legacy: &[],
        findings_modern: &[],
    },
    ScenarioInfo {
        name: "sse_malformed_event",
        params: "",
        example: "sse_malformed_event",
        injects: "tools/call answered as SSE with one event whose data is `{unclosed`, then the \
                  stream ends cleanly with no further event.",
        layer: "framing",
        transports: HTTP,
        revisions: BOTH,
        verdict_legacy: "MALFORMED_JSON (error finding transport.sse.event-json; no final \
                         response follows)",
        verdict_modern: "MALFORMED_JSON (error finding transport.sse.event-json; no final \
                         response follows)",
        findings_legacy: &["transport.sse.event-json"],
        findings_modern: &["transport.sse.event-json"],
    },
    ScenarioInfo {
        name: "rate_limited",
        params: "[:N[:RETRY_AFTER]]  (default 1:1)",
        example: "rate_limited:1:1",
        injects: "The first N POSTs (any method) get 429 Too Many Requests with Retry-After: \
                  RETRY_AFTER (seconds) and a short text/plain body; later POSTs are served \
                  normally.",
        layer: "transport",
        transports: HTTP,
        revisions: BOTH,
        verdict_legacy: "HTTP_ERROR for each refused POST (429; retry only after Retry-After, and \
                         only if replay is safe). The first POST is initialize, so a client that \
                         does not wait and retry cannot set up; later POSTs are served normally",
        verdict_modern: "HTTP_ERROR for each refused POST (429; retry only after Retry-After, and \
                         only if replay is safe). The first POST is server/discover (or the \
                         first request a client sends), so a client that does not wait and \
                         retry cannot set up; later POSTs are served normally",
        findings_legacy: &[],
        findings_modern: &[],
    },
    ScenarioInfo {
        name: "server_request_on_stream",
        params: "",
        example: "server_request_on_stream",
        injects: "tools/call answered as SSE carrying a server-to-client JSON-RPC request with an \
                  id (roots/list; ping under 2025-11-25 when the client declared no roots \
                  capability) before the final result. Over stdio the request is a line on \
                  stdout before the result's.",
        layer: "protocol",
        transports: ANY,
        revisions: BOTH,
        verdict_legacy: "TOOL_SUCCESS, no finding (servers MAY send requests on the stream; the \
                         client POSTs its JSON-RPC response and gets 202)",
        verdict_modern: "TOOL_SUCCESS for the client plus an error finding \
                         transport.sse.no-server-requests (MUST NOT: independent JSON-RPC \
                         request on the response stream); over stdio \
                         transport.stdio.no-server-requests (MUST NOT write requests to stdout)",
        findings_legacy: &[],
        findings_modern: &["transport.sse.no-server-requests"],
    },
    ScenarioInfo {
        name: "lenient",
        params: ":version|version_header|missing_meta|initialize|method_header|name_header|\
                 param_header|request_state|input_responses|legacy_version|session|\
                 ended_session  (default version)",
        example: "lenient:version",
        injects: "One error path handled wrongly, everything else as in baseline (what \
                  `probe --active` provokes). 2026-07-28: version serves a request naming a \
                  protocol version it does not implement; version_header answers an \
                  MCP-Protocol-Version header contradicting _meta with 400 and -32022 instead \
                  of -32020; missing_meta serves a request whose _meta lacks \
                  clientCapabilities; initialize answers initialize with HTTP 200 and error \
                  -32601; method_header and name_header ignore the Mcp-Method and Mcp-Name \
                  headers; param_header ignores the Mcp-Param-* headers (and offers the \
                  conformance tool set, whose test_header_param declares x-mcp-header); \
                  request_state takes a confirm_action retry whose requestState was altered \
                  (as a server whose state decides nothing may); input_responses answers a \
                  retry whose inputResponses lack the requested input with HTTP 200 and \
                  error -32602 instead of asking again. 2025-11-25: legacy_version serves a request whose MCP-Protocol-Version names \
                  no revision; session answers a request without the session id with 404 \
                  instead of 400; ended_session keeps serving a session after answering its \
                  DELETE.",
        layer: "transport",
        transports: HTTP,
        revisions: BOTH,
        verdict_legacy: "The verdicts of baseline for the calls a probe makes; probe --active \
                         reports legacy_version as transport.http.400-unsupported-version-header \
                         (error), session as transport.http.400-missing-session (warning), \
                         ended_session as transport.http.404-ended-session (error)",
        verdict_modern: "The verdicts of baseline for the calls a probe makes; probe --active \
                         reports version as transport.http.400-unsupported-version, \
                         version_header, method_header and name_header as \
                         transport.http.header-mismatch-rejected, missing_meta as \
                         transport.http.400-missing-meta, initialize as \
                         transport.http.404-method-not-found, param_header as \
                         transport.http.400-header-mismatch (all errors), input_responses as \
                         mrtr.missing-input-asked-again (warning); request_state draws no \
                         finding (tampered-state is not judged: the spec lets a server whose \
                         state decides nothing take it)",
        findings_legacy: &[],
        findings_modern: &[],
    },
    ScenarioInfo {
        name: "stdio_banner",
        params: "",
        example: "stdio_banner",
        injects: "A start-up banner, a line of plain text, on stdout before the answer to the \
                  first request (initialize, or server/discover); everything else as in \
                  baseline.",
        layer: "framing",
        transports: STDIO,
        revisions: BOTH,
        verdict_legacy: "TOOL_SUCCESS for the calls; the answer the banner precedes carries an \
                         error finding transport.stdio.non-mcp-output",
        verdict_modern: "TOOL_SUCCESS for the calls; the answer the banner precedes carries an \
                         error finding transport.stdio.non-mcp-output",
        findings_legacy: &[],
        findings_modern: &[],
    },
    ScenarioInfo {
        name: "stdio_log_line",
        params: "",
        example: "stdio_log_line",
        injects: "A log line in plain text on stdout in the middle of a tools/call, before its \
                  response (which is sound).",
        layer: "framing",
        transports: STDIO,
        revisions: BOTH,
        verdict_legacy: "TOOL_SUCCESS plus an error finding transport.stdio.non-mcp-output",
        verdict_modern: "TOOL_SUCCESS plus an error finding transport.stdio.non-mcp-output",
        findings_legacy: &["transport.stdio.non-mcp-output"],
        findings_modern: &["transport.stdio.non-mcp-output"],
    },
    ScenarioInfo {
        name: "stdio_pretty",
        params: "",
        example: "stdio_pretty",
        injects: "The tools/call response pretty-printed over several lines (embedded newlines).",
        layer: "framing",
        transports: STDIO,
        revisions: BOTH,
        verdict_legacy: "MALFORMED_JSON (transport.stdio.split-response: a client reading one \
                         message per line never receives it)",
        verdict_modern: "MALFORMED_JSON (transport.stdio.split-response: a client reading one \
                         message per line never receives it)",
        findings_legacy: &["transport.stdio.embedded-newline"],
        findings_modern: &["transport.stdio.embedded-newline"],
    },
    ScenarioInfo {
        name: "stdio_crash",
        params: "",
        example: "stdio_crash",
        injects: "The server exits (code 1) in the middle of a tools/call, before writing its \
                  response.",
        layer: "transport",
        transports: STDIO,
        revisions: BOTH,
        verdict_legacy: "DELIVERY_UNKNOWN (transport.stdio.ended-early: whether the tool ran is \
                         unknown; restart the server, re-issue only a call safe to repeat)",
        verdict_modern: "DELIVERY_UNKNOWN (transport.stdio.ended-early: whether the tool ran is \
                         unknown; restart the server, re-issue only a call safe to repeat)",
        findings_legacy: &[],
        findings_modern: &[],
    },
    ScenarioInfo {
        name: "stdio_partial_exit",
        params: "",
        example: "stdio_partial_exit",
        injects: "The first half of the tools/call response line, without its newline, then \
                  the server exits (code 1).",
        layer: "transport",
        transports: STDIO,
        revisions: BOTH,
        verdict_legacy: "DELIVERY_UNKNOWN (transport.stdio.ended-early, with the partial last \
                         line noted)",
        verdict_modern: "DELIVERY_UNKNOWN (transport.stdio.ended-early, with the partial last \
                         line noted)",
        findings_legacy: &[],
        findings_modern: &[],
    },
    ScenarioInfo {
        name: "stdio_slow",
        params: "[:MS]  (default 3000)",
        example: "stdio_slow:3000",
        injects: "The tools/call response comes MS milliseconds late (the server does nothing \
                  meanwhile); nothing else is wrong.",
        layer: "transport",
        transports: STDIO,
        revisions: BOTH,
        verdict_legacy: "TOOL_SUCCESS (a client that gives up first cancels, or sees a \
                         timeout of its own)",
        verdict_modern: "TOOL_SUCCESS (a client that gives up first cancels, or sees a \
                         timeout of its own)",
        findings_legacy: &[],
        findings_modern: &[],
    },
    ScenarioInfo {
        name: "stdio_stderr_chatter",
        params: "",
        example: "stdio_stderr_chatter",
        injects: "Not a fault, a control: log lines (one says ERROR) on stderr while every \
                  request is answered correctly on stdout.",
        layer: "transport",
        transports: STDIO,
        revisions: BOTH,
        verdict_legacy: "TOOL_SUCCESS, no finding (stderr is for logging; \
                         transport.stdio.stderr-not-error is an applied default)",
        verdict_modern: "TOOL_SUCCESS, no finding (stderr is for logging; \
                         transport.stdio.stderr-not-error is an applied default)",
        findings_legacy: &[],
        findings_modern: &[],
    },
    ScenarioInfo {
        name: "stdio_after_cancel",
        params: "[:MS]  (default 5000)",
        example: "stdio_after_cancel:5000",
        injects: "The tools/call response is held MS milliseconds; when the client cancels the \
                  call meanwhile (notifications/cancelled), the server still writes a \
                  progress notification and the response for it.",
        layer: "protocol",
        transports: STDIO,
        revisions: BOTH,
        verdict_legacy: "With a cancellation: DELIVERY_UNKNOWN \
                         (transport.stdio.response-after-cancel) plus \
                         transport.stdio.after-cancellation (SHOULD NOT: warning); without one, \
                         TOOL_SUCCESS",
        verdict_modern: "With a cancellation: DELIVERY_UNKNOWN \
                         (transport.stdio.response-after-cancel) plus an error finding \
                         transport.stdio.after-cancellation (MUST NOT); without one, \
                         TOOL_SUCCESS",
        findings_legacy: &[],
        findings_modern: &[],
    },
    ScenarioInfo {
        name: "auth",
        params: ":no-challenge|no-resource-metadata|resource-mismatch|issuer-mismatch|no-s256|\
                 token-expiry|step-up|query-token  (default: none, a well-protected server)",
        example: "auth:step-up",
        injects: "The endpoint is an OAuth 2.1 resource server: a request without a valid token \
                  bound to it gets 401 with a Bearer challenge (resource_metadata, scope \
                  mcp:tools); the same origin serves the protected resource metadata and an \
                  authorization server (RFC 8414 metadata with PKCE S256 and iss, dynamic \
                  registration, the pre-registered client mcp-verdict-client / \
                  mcp-verdict-secret, an authorization endpoint that approves at once, a token \
                  endpoint checking PKCE, redirect URI and resource, refresh tokens, client \
                  credentials). One fault at a time: no-challenge (401 without \
                  WWW-Authenticate), no-resource-metadata (challenge without it; the metadata \
                  stays at its well-known URL), resource-mismatch (metadata for another \
                  resource), issuer-mismatch (metadata claiming another issuer), no-s256 (no \
                  PKCE advertised), token-expiry (a token serves 3 requests, then 401 \
                  invalid_token; refresh works), step-up (tools/call needs mcp:write: 403 \
                  insufficient_scope), query-token (a token in ?access_token= is accepted).",
        layer: "transport",
        transports: HTTP,
        revisions: BOTH,
        verdict_legacy: "Without authorizing: HTTP_ERROR decided by \
                         transport.auth.401-unauthorized (no-challenge: also \
                         transport.auth.401-challenge; no-resource-metadata: \
                         transport.auth.401-resource-metadata). A client that authorizes gets \
                         baseline's verdicts; probe refuses resource-mismatch, issuer-mismatch \
                         and no-s256, naming transport.auth.prm-resource, .as-issuer and \
                         .as-pkce-s256; step-up is HTTP_ERROR by \
                         transport.auth.403-insufficient-scope until the client steps up",
        verdict_modern: "As under 2025-11-25",
        findings_legacy: &[],
        findings_modern: &[],
    },
];

/// Looks a scenario up by name.
pub(crate) fn scenario_info(name: &str) -> Option<&'static ScenarioInfo> {
    SCENARIOS.iter().find(|s| s.name == name)
}

/// Renders the scenario table for `serve --list`.
pub fn render_list() -> String {
    let mut out = String::new();
    out.push_str(
        "Scenarios (mcp-verdict serve [--stdio] --scenario NAME[:PARAMS]). Faults apply to \
         tools/call unless stated; both revisions are served on one endpoint (over HTTP) or one \
         stdin (with --stdio); `transports` says which a scenario is offered over.\n",
    );
    for s in SCENARIOS {
        out.push('\n');
        out.push_str(s.name);
        if !s.params.is_empty() {
            out.push_str(s.params);
        }
        out.push('\n');
        let revs: Vec<&str> = s.revisions.iter().map(|r| r.as_str()).collect();
        let transports: Vec<&str> = s.transports.iter().map(|t| t.as_str()).collect();
        let rows = [
            ("injects", s.injects),
            ("layer", s.layer),
            ("revisions", &revs.join(", ")),
            ("transports", &transports.join(", ")),
            ("example", s.example),
            ("verdict 2025-11-25", s.verdict_legacy),
            ("verdict 2026-07-28", s.verdict_modern),
        ];
        for (k, v) in rows {
            out.push_str(&format!("  {k:<19} {}\n", squeeze(v)));
        }
    }
    out
}

/// The scenario table for `serve --list --short`: a header row, then one line per scenario
/// (name, layer, transports, and what it injects, to its first sentence).
pub fn render_list_short() -> String {
    let width = SCENARIOS.iter().map(|s| s.name.len()).max().unwrap_or(0);
    let mut out = format!(
        "{:<width$}  {:<12} {:<11} INJECTS (serve --list tells all)\n",
        "SCENARIO", "LAYER", "TRANSPORTS"
    );
    for s in SCENARIOS {
        let transports: Vec<&str> = s.transports.iter().map(|t| t.as_str()).collect();
        let injects = squeeze(s.injects);
        let first = match injects.find(". ") {
            Some(i) => &injects[..=i],
            None => injects.as_str(),
        };
        out.push_str(&format!(
            "{:<width$}  {:<12} {:<11} {}\n",
            s.name,
            s.layer,
            transports.join(","),
            cut(first, 90)
        ));
    }
    out
}

/// `s` cut to at most `max` characters, with `…` when cut.
fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut t: String = s.chars().take(max - 1).collect();
    t.push('…');
    t
}

/// Collapses the runs of spaces left by line continuations in the table.
fn squeeze(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_short_list_has_a_header_and_one_line_per_scenario() {
        let short = render_list_short();
        let lines: Vec<&str> = short.lines().collect();
        assert!(lines[0].starts_with("SCENARIO "), "{}", lines[0]);
        assert_eq!(lines.len(), SCENARIOS.len() + 1);
        for (s, line) in SCENARIOS.iter().zip(&lines[1..]) {
            assert!(line.starts_with(&format!("{} ", s.name)), "{line}");
            assert!(line.contains(s.layer), "{line}");
            assert!(line.chars().count() <= 160, "{line}");
        }
    }

    #[test]
    fn list_mentions_every_scenario() {
        let list = render_list();
        for s in SCENARIOS {
            assert!(list.contains(s.name));
            assert!(list.contains(&squeeze(s.verdict_modern)));
        }
    }
}
