//! The fault scenarios `serve` can inject, as one table.
//!
//! [`SCENARIOS`] is the single source of truth: `serve --list` renders it, the
//! parser accepts exactly its names, and the test suite iterates over it.

use std::fmt;
use std::str::FromStr;

/// Protocol revisions the server speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Revision {
    /// 2025-11-25: `initialize` handshake, `MCP-Session-Id` sessions.
    Legacy,
    /// 2026-07-28: stateless, per-request `_meta`.
    Modern,
}

impl Revision {
    /// The revision's date string.
    pub fn as_str(self) -> &'static str {
        match self {
            Revision::Legacy => super::LEGACY_VERSION,
            Revision::Modern => super::MODERN_VERSION,
        }
    }

    /// Both revisions, oldest first.
    pub const ALL: [Revision; 2] = [Revision::Legacy, Revision::Modern];
}

impl fmt::Display for Revision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

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
    pub revisions: &'static [Revision],
    /// Verdict a correct judge reaches for the injected `tools/call` under 2025-11-25.
    pub verdict_legacy: &'static str,
    /// Verdict a correct judge reaches for the injected `tools/call` under 2026-07-28.
    pub verdict_modern: &'static str,
}

const BOTH: &[Revision] = &[Revision::Legacy, Revision::Modern];

/// Every scenario, in `--list` order.
pub const SCENARIOS: &[ScenarioInfo] = &[
    ScenarioInfo {
        name: "baseline",
        params: "",
        example: "baseline",
        injects: "Nothing: every request is answered correctly (application/json by default, \
                  SSE with --response-mode sse or for progress/elicitation).",
        layer: "application",
        revisions: BOTH,
        verdict_legacy: "TOOL_SUCCESS (TOOL_ERROR for arguments that break the inputSchema; \
                         JSONRPC_ERROR -32602 for an unknown tool)",
        verdict_modern: "TOOL_SUCCESS (TOOL_ERROR for arguments that break the inputSchema; \
                         JSONRPC_ERROR -32602 for an unknown tool; INPUT_REQUIRED for \
                         confirm_action round 1, or HTTP_ERROR 400 with -32021 when the client \
                         declared no elicitation capability)",
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
        revisions: BOTH,
        verdict_legacy: "HTTP_ERROR for a tools/call given a non-2xx status (e.g. \
                         200,200,200,503 hits the first call after initialize, \
                         notifications/initialized and tools/list); a non-2xx on initialize stops \
                         a client that does not retry; normal verdicts for the others",
        verdict_modern: "HTTP_ERROR for a tools/call given a non-2xx status (e.g. 200,200,503 \
                         hits the first call after server/discover and tools/list); a non-2xx on \
                         server/discover stops a client that does not retry; normal verdicts for \
                         the others",
    },
    ScenarioInfo {
        name: "jsonrpc_error",
        params: "[:CODE]  (default -32602)",
        example: "jsonrpc_error:-32602",
        injects: "tools/call answered with HTTP 200 and a JSON-RPC error response \
                  {code: CODE, message} carrying the request id.",
        layer: "protocol",
        revisions: BOTH,
        verdict_legacy: "JSONRPC_ERROR",
        verdict_modern: "JSONRPC_ERROR (a code that 2026-07-28 pins to HTTP 400 also draws an \
                         error finding, e.g. transport.http.400-header-mismatch for -32020)",
    },
    ScenarioInfo {
        name: "tool_error",
        params: "",
        example: "tool_error",
        injects: "tools/call answered with a valid CallToolResult with isError: true.",
        layer: "application",
        revisions: BOTH,
        verdict_legacy: "TOOL_ERROR",
        verdict_modern: "TOOL_ERROR",
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
        revisions: BOTH,
        verdict_legacy: "TOOL_SUCCESS once the client answers the elicitation on the stream (legal \
                         server request); TOOL_ERROR if declined or if the client has no \
                         elicitation capability",
        verdict_modern: "INPUT_REQUIRED for round 1; the retry's verdict is the tool's own \
                         (TOOL_SUCCESS); TOOL_ERROR if declined; HTTP_ERROR (400 with -32021) if \
                         the client declared no elicitation capability",
    },
    ScenarioInfo {
        name: "legacy_result",
        params: "",
        example: "legacy_result",
        injects: "tools/call result without resultType (otherwise valid).",
        layer: "protocol",
        revisions: BOTH,
        verdict_legacy: "TOOL_SUCCESS, no finding (2025-11-25 results have no resultType)",
        verdict_modern: "TOOL_SUCCESS for the client (absent resultType MUST be read as complete) \
                         plus an error finding base.result-type.required (the server MUST send \
                         resultType)",
    },
    ScenarioInfo {
        name: "invalid_result",
        params: "",
        example: "invalid_result",
        injects: "tools/call result whose content is the string \"not-an-array\".",
        layer: "protocol",
        revisions: BOTH,
        verdict_legacy: "INVALID_TOOL_RESULT (error finding tools.result.content-required)",
        verdict_modern: "INVALID_TOOL_RESULT (error finding tools.result.content-required)",
    },
    ScenarioInfo {
        name: "malformed_json",
        params: "",
        example: "malformed_json",
        injects: "tools/call answered with HTTP 200, application/json, body `{unclosed`.",
        layer: "framing",
        revisions: BOTH,
        verdict_legacy: "MALFORMED_JSON (error finding jsonrpc.message.well-formed)",
        verdict_modern: "MALFORMED_JSON (error finding jsonrpc.message.well-formed)",
    },
    ScenarioInfo {
        name: "wrong_id",
        params: "",
        example: "wrong_id",
        injects: "tools/call answered with a valid result whose id is 99999 (99998 if the \
                  request id was 99999).",
        layer: "protocol",
        revisions: BOTH,
        verdict_legacy: "INVALID_ENVELOPE (error finding jsonrpc.response.id-match: the \
                         response id does not match the request)",
        verdict_modern: "INVALID_ENVELOPE (error finding jsonrpc.response.id-match: the \
                         response id does not match the request)",
    },
    ScenarioInfo {
        name: "non2xx_valid_body",
        params: "[:STATUS]  (default 500)",
        example: "non2xx_valid_body:500",
        injects: "tools/call answered with HTTP STATUS and an application/json body holding a \
                  valid, successful result.",
        layer: "transport",
        revisions: BOTH,
        verdict_legacy: "HTTP_ERROR (the status decides before the body)",
        verdict_modern: "HTTP_ERROR (the status decides before the body)",
    },
    ScenarioInfo {
        name: "html_error_page",
        params: "[:STATUS]  (default 200)",
        example: "html_error_page:200",
        injects: "tools/call answered with HTTP STATUS, Content-Type text/html and an HTML \
                  error page (as a proxy or gateway would send).",
        layer: "transport",
        revisions: BOTH,
        verdict_legacy: "UNEXPECTED_CONTENT_TYPE with a 2xx STATUS (error finding \
                         transport.http.response-content-type: text/html is neither \
                         application/json nor text/event-stream); HTTP_ERROR with a non-2xx \
                         STATUS; never TOOL_SUCCESS",
        verdict_modern: "UNEXPECTED_CONTENT_TYPE with a 2xx STATUS (error finding \
                         transport.http.response-content-type: text/html is neither \
                         application/json nor text/event-stream); HTTP_ERROR with a non-2xx \
                         STATUS; never TOOL_SUCCESS",
    },
    ScenarioInfo {
        name: "wrong_content_type",
        params: "",
        example: "wrong_content_type",
        injects: "tools/call answered with HTTP 200, Content-Type text/plain, and a body that is \
                  a valid JSON-RPC result.",
        layer: "transport",
        revisions: BOTH,
        verdict_legacy: "UNEXPECTED_CONTENT_TYPE (error finding \
                         transport.http.response-content-type: the server MUST use \
                         application/json or text/event-stream); never TOOL_SUCCESS",
        verdict_modern: "UNEXPECTED_CONTENT_TYPE (error finding \
                         transport.http.response-content-type: the server MUST use \
                         application/json or text/event-stream); never TOOL_SUCCESS",
    },
    ScenarioInfo {
        name: "accepted_no_body",
        params: "",
        example: "accepted_no_body",
        injects: "tools/call answered with 202 Accepted and an empty body.",
        layer: "transport",
        revisions: BOTH,
        verdict_legacy: "NO_RESPONSE (error finding transport.http.request-needs-response: 202 \
                         is for notifications and responses; a request got no JSON-RPC \
                         response); never TOOL_SUCCESS",
        verdict_modern: "NO_RESPONSE (error finding transport.http.request-needs-response: 202 \
                         is for notifications; a request got no JSON-RPC response); never \
                         TOOL_SUCCESS",
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
        revisions: BOTH,
        verdict_legacy: "TOOL_SUCCESS when the request carries _meta.progressToken (without one \
                         the server makes a token up, and each progress notification draws an \
                         error finding transport.sse.progress)",
        verdict_modern: "TOOL_SUCCESS when the request carries _meta.progressToken (without one \
                         the server makes a token up, and each progress notification draws an \
                         error finding transport.sse.progress)",
    },
    ScenarioInfo {
        name: "sse_close_early",
        params: "",
        example: "sse_close_early",
        injects: "tools/call answered as SSE with three progress notifications, then the chunked \
                  stream is terminated cleanly and the connection closed (Connection: close) \
                  before any final response. No event ids are sent, so nothing can be resumed.",
        layer: "framing",
        revisions: BOTH,
        verdict_legacy: "DELIVERY_UNKNOWN (transport.sse.final-response; body end complete): the \
                         stream ended without the response and cannot be resumed (no event \
                         ids); not TOOL_SUCCESS",
        verdict_modern: "DELIVERY_UNKNOWN (transport.sse.final-response; body end complete): the \
                         stream ended without the response; the request is lost and must be \
                         re-issued with a new id; not TOOL_SUCCESS",
    },
    ScenarioInfo {
        name: "sse_reset",
        params: "",
        example: "sse_reset",
        injects: "tools/call answered as SSE with one progress notification, then half of the \
                  final result's event (mid-chunk), then a TCP reset (SO_LINGER 0 + close).",
        layer: "transport",
        revisions: BOTH,
        verdict_legacy: "DELIVERY_UNKNOWN (transport.sse.final-response; body end reset): the \
                         partial event is not a response; not TOOL_SUCCESS",
        verdict_modern: "DELIVERY_UNKNOWN (transport.sse.final-response; body end reset): the \
                         partial event is not a response; not TOOL_SUCCESS",
    },
    ScenarioInfo {
        name: "sse_stall",
        params: "[:SECONDS]  (default: the server's stall cap, 30 s)",
        example: "sse_stall:30",
        injects: "tools/call answered as SSE with one progress notification, then silence until \
                  the client disconnects or SECONDS pass; then the server closes the connection \
                  without terminating the chunked stream.",
        layer: "transport",
        revisions: BOTH,
        verdict_legacy: "DELIVERY_UNKNOWN (transport.sse.final-response; body end timeout) once \
                         the client's idle timeout gives up on the stream; not TOOL_SUCCESS",
        verdict_modern: "DELIVERY_UNKNOWN (transport.sse.final-response; body end timeout) once \
                         the client's idle timeout gives up on the stream; not TOOL_SUCCESS",
    },
    ScenarioInfo {
        name: "sse_malformed_event",
        params: "",
        example: "sse_malformed_event",
        injects: "tools/call answered as SSE with one event whose data is `{unclosed`, then the \
                  stream ends cleanly with no further event.",
        layer: "framing",
        revisions: BOTH,
        verdict_legacy: "MALFORMED_JSON (error finding transport.sse.event-json; no final \
                         response follows)",
        verdict_modern: "MALFORMED_JSON (error finding transport.sse.event-json; no final \
                         response follows)",
    },
    ScenarioInfo {
        name: "rate_limited",
        params: "[:N[:RETRY_AFTER]]  (default 1:1)",
        example: "rate_limited:1:1",
        injects: "The first N POSTs (any method) get 429 Too Many Requests with Retry-After: \
                  RETRY_AFTER (seconds) and a short text/plain body; later POSTs are served \
                  normally.",
        layer: "transport",
        revisions: BOTH,
        verdict_legacy: "HTTP_ERROR for each refused POST (429; retry only after Retry-After, and \
                         only if replay is safe). The first POST is initialize, so a client that \
                         does not wait and retry cannot set up; later POSTs are served normally",
        verdict_modern: "HTTP_ERROR for each refused POST (429; retry only after Retry-After, and \
                         only if replay is safe). The first POST is server/discover (or the \
                         first request a client sends), so a client that does not wait and \
                         retry cannot set up; later POSTs are served normally",
    },
    ScenarioInfo {
        name: "server_request_on_stream",
        params: "",
        example: "server_request_on_stream",
        injects: "tools/call answered as SSE carrying a server-to-client JSON-RPC request with an \
                  id (roots/list; ping under 2025-11-25 when the client declared no roots \
                  capability) before the final result.",
        layer: "protocol",
        revisions: BOTH,
        verdict_legacy: "TOOL_SUCCESS, no finding (servers MAY send requests on the stream; the \
                         client POSTs its JSON-RPC response and gets 202)",
        verdict_modern: "TOOL_SUCCESS for the client plus an error finding \
                         transport.sse.no-server-requests (MUST NOT: independent JSON-RPC \
                         request on the response stream)",
    },
];

/// Looks a scenario up by name.
pub fn scenario_info(name: &str) -> Option<&'static ScenarioInfo> {
    SCENARIOS.iter().find(|s| s.name == name)
}

/// A parsed `--scenario NAME[:PARAMS]` value.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Scenario {
    /// No fault.
    #[default]
    Baseline,
    /// Status per POST.
    HttpStatusSequence(Vec<u16>),
    /// HTTP 200 + JSON-RPC error with this code.
    JsonRpcError(i64),
    /// `isError: true` result.
    ToolError,
    /// Every tool call needs a confirmation round first.
    InputRequired,
    /// Result without `resultType`.
    LegacyResult,
    /// `content` is a string.
    InvalidResult,
    /// Body `{unclosed`.
    MalformedJson,
    /// Response id 99999.
    WrongId,
    /// Non-2xx status with a valid result body.
    Non2xxValidBody(u16),
    /// `text/html` error page with this status.
    HtmlErrorPage(u16),
    /// `text/plain` JSON body.
    WrongContentType,
    /// 202 with no body.
    AcceptedNoBody,
    /// SSE: progress notifications, then the result.
    SseProgress,
    /// SSE closed cleanly before the result.
    SseCloseEarly,
    /// TCP reset in the middle of an event.
    SseReset,
    /// One notification, then silence for this many seconds (`None`: server cap).
    SseStall(Option<u64>),
    /// Event with bad JSON data.
    SseMalformedEvent,
    /// 429 for the first `n` POSTs with this `Retry-After`.
    RateLimited {
        /// How many POSTs are refused.
        n: u64,
        /// `Retry-After` seconds.
        retry_after: u64,
    },
    /// A server-to-client request on the tools/call stream.
    ServerRequestOnStream,
}

impl Scenario {
    /// The scenario's table row.
    pub fn info(&self) -> &'static ScenarioInfo {
        scenario_info(self.name()).expect("every variant has a table row")
    }

    /// The scenario's name (without parameters).
    pub fn name(&self) -> &'static str {
        match self {
            Scenario::Baseline => "baseline",
            Scenario::HttpStatusSequence(_) => "http_status_sequence",
            Scenario::JsonRpcError(_) => "jsonrpc_error",
            Scenario::ToolError => "tool_error",
            Scenario::InputRequired => "input_required",
            Scenario::LegacyResult => "legacy_result",
            Scenario::InvalidResult => "invalid_result",
            Scenario::MalformedJson => "malformed_json",
            Scenario::WrongId => "wrong_id",
            Scenario::Non2xxValidBody(_) => "non2xx_valid_body",
            Scenario::HtmlErrorPage(_) => "html_error_page",
            Scenario::WrongContentType => "wrong_content_type",
            Scenario::AcceptedNoBody => "accepted_no_body",
            Scenario::SseProgress => "sse_progress",
            Scenario::SseCloseEarly => "sse_close_early",
            Scenario::SseReset => "sse_reset",
            Scenario::SseStall(_) => "sse_stall",
            Scenario::SseMalformedEvent => "sse_malformed_event",
            Scenario::RateLimited { .. } => "rate_limited",
            Scenario::ServerRequestOnStream => "server_request_on_stream",
        }
    }
}

impl fmt::Display for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())?;
        match self {
            Scenario::HttpStatusSequence(seq) => {
                let parts: Vec<String> = seq.iter().map(u16::to_string).collect();
                write!(f, ":{}", parts.join(","))
            }
            Scenario::JsonRpcError(code) => write!(f, ":{code}"),
            Scenario::Non2xxValidBody(s) | Scenario::HtmlErrorPage(s) => write!(f, ":{s}"),
            Scenario::SseStall(Some(secs)) => write!(f, ":{secs}"),
            Scenario::RateLimited { n, retry_after } => write!(f, ":{n}:{retry_after}"),
            _ => Ok(()),
        }
    }
}

/// Why a `--scenario` value was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScenarioParseError {
    /// The name is not in [`SCENARIOS`].
    #[error("unknown scenario `{0}` (run `mcp-verdict serve --list` for the names)")]
    UnknownName(String),
    /// The parameters do not fit the scenario.
    #[error("bad parameters for scenario `{name}`: {reason} (expected `{name}{syntax}`)")]
    BadParams {
        /// Scenario name.
        name: String,
        /// What is wrong.
        reason: String,
        /// Expected syntax.
        syntax: String,
    },
}

fn parse_status(s: &str, allow_2xx: bool) -> Result<u16, String> {
    let v: u16 = s
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not an HTTP status"))?;
    if !(200..=599).contains(&v) {
        return Err(format!("{v} is outside 200..=599"));
    }
    if !allow_2xx && v < 300 {
        return Err(format!(
            "{v} is a 2xx status; this scenario needs 300..=599"
        ));
    }
    Ok(v)
}

impl FromStr for Scenario {
    type Err = ScenarioParseError;

    fn from_str(arg: &str) -> Result<Self, Self::Err> {
        let arg = arg.trim();
        let (name, params) = match arg.split_once(':') {
            Some((n, p)) => (n, Some(p)),
            None => (arg, None),
        };
        let info =
            scenario_info(name).ok_or_else(|| ScenarioParseError::UnknownName(name.into()))?;
        let bad = |reason: String| ScenarioParseError::BadParams {
            name: name.into(),
            reason,
            syntax: info.params.split("  ").next().unwrap_or("").to_string(),
        };
        let no_params = |s: Scenario| match params {
            None => Ok(s),
            Some(_) => Err(bad("this scenario takes no parameters".into())),
        };
        match name {
            "baseline" => no_params(Scenario::Baseline),
            "tool_error" => no_params(Scenario::ToolError),
            "input_required" => no_params(Scenario::InputRequired),
            "legacy_result" => no_params(Scenario::LegacyResult),
            "invalid_result" => no_params(Scenario::InvalidResult),
            "malformed_json" => no_params(Scenario::MalformedJson),
            "wrong_id" => no_params(Scenario::WrongId),
            "wrong_content_type" => no_params(Scenario::WrongContentType),
            "accepted_no_body" => no_params(Scenario::AcceptedNoBody),
            "sse_progress" => no_params(Scenario::SseProgress),
            "sse_close_early" => no_params(Scenario::SseCloseEarly),
            "sse_reset" => no_params(Scenario::SseReset),
            "sse_malformed_event" => no_params(Scenario::SseMalformedEvent),
            "server_request_on_stream" => no_params(Scenario::ServerRequestOnStream),
            "http_status_sequence" => {
                let p = params.unwrap_or("503,200");
                let seq = p
                    .split(',')
                    .map(|s| parse_status(s, true))
                    .collect::<Result<Vec<_>, _>>()
                    .map_err(bad)?;
                Ok(Scenario::HttpStatusSequence(seq))
            }
            "jsonrpc_error" => match params {
                None => Ok(Scenario::JsonRpcError(-32602)),
                Some(p) => p
                    .trim()
                    .parse::<i64>()
                    .map(Scenario::JsonRpcError)
                    .map_err(|_| bad(format!("`{p}` is not an integer error code"))),
            },
            "non2xx_valid_body" => match params {
                None => Ok(Scenario::Non2xxValidBody(500)),
                Some(p) => parse_status(p, false)
                    .map(Scenario::Non2xxValidBody)
                    .map_err(bad),
            },
            "html_error_page" => match params {
                None => Ok(Scenario::HtmlErrorPage(200)),
                Some(p) => parse_status(p, true)
                    .map(Scenario::HtmlErrorPage)
                    .map_err(bad),
            },
            "sse_stall" => match params {
                None => Ok(Scenario::SseStall(None)),
                Some(p) => p
                    .trim()
                    .parse::<u64>()
                    .map(|s| Scenario::SseStall(Some(s)))
                    .map_err(|_| bad(format!("`{p}` is not a whole number of seconds"))),
            },
            "rate_limited" => {
                let mut parts = params.map(|p| p.split(':')).into_iter().flatten();
                let mut num = |default: u64, what: &str| -> Result<u64, ScenarioParseError> {
                    match parts.next() {
                        None => Ok(default),
                        Some(p) => p
                            .trim()
                            .parse::<u64>()
                            .map_err(|_| bad(format!("`{p}` is not a whole number ({what})"))),
                    }
                };
                let n = num(1, "N")?;
                let retry_after = num(1, "RETRY_AFTER")?;
                if parts.next().is_some() {
                    return Err(bad("too many parameters".into()));
                }
                Ok(Scenario::RateLimited { n, retry_after })
            }
            _ => unreachable!("every table name is handled"),
        }
    }
}

/// Renders the scenario table for `serve --list`.
pub fn render_list() -> String {
    let mut out = String::new();
    out.push_str(
        "Scenarios (mcp-verdict serve --scenario NAME[:PARAMS]). Faults apply to tools/call \
         unless stated; both revisions are served on one endpoint.\n",
    );
    for s in SCENARIOS {
        out.push('\n');
        out.push_str(s.name);
        if !s.params.is_empty() {
            out.push_str(s.params);
        }
        out.push('\n');
        let revs: Vec<&str> = s.revisions.iter().map(|r| r.as_str()).collect();
        let rows = [
            ("injects", s.injects),
            ("layer", s.layer),
            ("revisions", &revs.join(", ")),
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

/// Collapses the runs of spaces left by line continuations in the table.
fn squeeze(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_example_parses_and_round_trips() {
        for s in SCENARIOS {
            let parsed: Scenario = s.example.parse().unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(parsed.name(), s.name);
            assert_eq!(parsed.to_string(), s.example);
            assert_eq!(parsed.info().name, s.name);
            let bare: Scenario = s.name.parse().unwrap();
            assert_eq!(bare.name(), s.name);
        }
    }

    #[test]
    fn defaults_and_errors() {
        assert_eq!(
            "http_status_sequence".parse::<Scenario>().unwrap(),
            Scenario::HttpStatusSequence(vec![503, 200])
        );
        assert_eq!(
            "jsonrpc_error".parse::<Scenario>().unwrap(),
            Scenario::JsonRpcError(-32602)
        );
        assert_eq!(
            "jsonrpc_error:-32603".parse::<Scenario>().unwrap(),
            Scenario::JsonRpcError(-32603)
        );
        assert_eq!(
            "rate_limited:3".parse::<Scenario>().unwrap(),
            Scenario::RateLimited {
                n: 3,
                retry_after: 1
            }
        );
        assert_eq!(
            "html_error_page".parse::<Scenario>().unwrap(),
            Scenario::HtmlErrorPage(200)
        );
        assert!(matches!(
            "nope".parse::<Scenario>(),
            Err(ScenarioParseError::UnknownName(_))
        ));
        for bad in [
            "baseline:1",
            "http_status_sequence:abc",
            "http_status_sequence:99",
            "non2xx_valid_body:204",
            "rate_limited:1:2:3",
            "sse_stall:-1",
        ] {
            let e = bad.parse::<Scenario>().unwrap_err();
            assert!(
                matches!(e, ScenarioParseError::BadParams { .. }),
                "{bad}: {e}"
            );
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
