//! A parsed `--scenario NAME[:PARAMS]` value: the fault in force, its name and parameters,
//! parsed against the names and parameter syntax of the table in [`SCENARIOS`].
//!
//! [`SCENARIOS`]: super::SCENARIOS

use std::fmt;
use std::str::FromStr;

use super::auth::AuthFault;
use super::scenario_table::{ScenarioInfo, Transport, scenario_info};
use crate::vocab::protocol::code;

/// A parsed `--scenario NAME[:PARAMS]` value.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Scenario {
    /// No fault.
    #[default]
    Baseline,
    /// No fault, with the conformance fixture set (`baseline:tools=conformance`): the fixture
    /// tools, prompts, resources, completions and logging the official MCP conformance suite
    /// calls, besides the five baseline tools.
    BaselineConformance,
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
    /// One error path handled wrongly (what `probe --active` provokes); everything else as in
    /// `baseline`.
    Lenient(Lenient),
    /// One fault of the stdio binding (`serve --stdio`); everything else as in `baseline`.
    Stdio(StdioFault),
    /// The endpoint protected by OAuth 2.1, with its metadata and authorization server on the
    /// same origin; with a fault, one thing of it wrong (see `serve::auth`).
    Auth(Option<AuthFault>),
}

/// The one fault a `stdio_*` scenario injects into what `serve --stdio` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StdioFault {
    /// A plain-text banner line on stdout before the first answer.
    Banner,
    /// A plain-text log line on stdout before a tools/call response.
    LogLine,
    /// The tools/call response pretty-printed over several lines.
    Pretty,
    /// The process exits before the tools/call response.
    Crash,
    /// Half the tools/call response line, no newline, then the process exits.
    PartialExit,
    /// The tools/call response this many milliseconds late.
    Slow(u64),
    /// Log lines on stderr (a control: not a fault).
    StderrChatter,
    /// The tools/call response held this many milliseconds, and written (after a progress
    /// notification) even when the client cancelled the call meanwhile.
    AfterCancel(u64),
}

impl StdioFault {
    /// The scenario name.
    pub fn name(self) -> &'static str {
        match self {
            StdioFault::Banner => "stdio_banner",
            StdioFault::LogLine => "stdio_log_line",
            StdioFault::Pretty => "stdio_pretty",
            StdioFault::Crash => "stdio_crash",
            StdioFault::PartialExit => "stdio_partial_exit",
            StdioFault::Slow(_) => "stdio_slow",
            StdioFault::StderrChatter => "stdio_stderr_chatter",
            StdioFault::AfterCancel(_) => "stdio_after_cancel",
        }
    }
}

/// The error path a `lenient` scenario gets wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lenient {
    /// 2026-07-28: serves a request naming a protocol version it does not implement.
    Version,
    /// 2026-07-28: answers an MCP-Protocol-Version header contradicting `_meta` with -32022
    /// (UnsupportedProtocolVersion) where -32020 (HeaderMismatch) is due.
    VersionHeader,
    /// 2026-07-28: serves a request whose `_meta` lacks clientCapabilities.
    MissingMeta,
    /// 2026-07-28: answers `initialize` with HTTP 200 and error -32601.
    Initialize,
    /// 2026-07-28: ignores the Mcp-Method header.
    MethodHeader,
    /// 2026-07-28: ignores the Mcp-Name header.
    NameHeader,
    /// 2026-07-28: ignores the Mcp-Param-* headers (and offers the conformance tool set,
    /// whose `test_header_param` declares one).
    ParamHeader,
    /// 2026-07-28: takes a retry whose requestState was altered (as a server whose state
    /// decides nothing may).
    RequestState,
    /// 2026-07-28: answers a retry whose inputResponses lack the requested input with a
    /// JSON-RPC error instead of asking again.
    InputResponses,
    /// 2025-11-25: serves a request whose MCP-Protocol-Version names no revision.
    LegacyVersion,
    /// 2025-11-25: answers a request without the session id with 404 instead of 400.
    Session,
    /// 2025-11-25: serves requests in a session it terminated.
    EndedSession,
}

impl Lenient {
    /// Every variant with its parameter name, in `--list` order.
    pub const ALL: [(Lenient, &'static str); 12] = [
        (Lenient::Version, "version"),
        (Lenient::VersionHeader, "version_header"),
        (Lenient::MissingMeta, "missing_meta"),
        (Lenient::Initialize, "initialize"),
        (Lenient::MethodHeader, "method_header"),
        (Lenient::NameHeader, "name_header"),
        (Lenient::ParamHeader, "param_header"),
        (Lenient::RequestState, "request_state"),
        (Lenient::InputResponses, "input_responses"),
        (Lenient::LegacyVersion, "legacy_version"),
        (Lenient::Session, "session"),
        (Lenient::EndedSession, "ended_session"),
    ];

    /// The parameter name.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(l, _)| *l == self)
            .map_or("version", |(_, n)| n)
    }
}

impl Scenario {
    /// The scenario's table row.
    pub fn info(&self) -> &'static ScenarioInfo {
        scenario_info(self.name()).expect("every variant has a table row")
    }

    /// Whether `serve` offers the scenario over `transport`.
    pub fn offered_over(&self, transport: Transport) -> bool {
        self.info().transports.contains(&transport)
    }

    /// The scenario's name (without parameters).
    pub fn name(&self) -> &'static str {
        match self {
            Scenario::Baseline | Scenario::BaselineConformance => "baseline",
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
            Scenario::Lenient(_) => "lenient",
            Scenario::Stdio(f) => f.name(),
            Scenario::Auth(_) => "auth",
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
            Scenario::BaselineConformance => f.write_str(":tools=conformance"),
            Scenario::Lenient(l) => write!(f, ":{}", l.name()),
            Scenario::Stdio(StdioFault::Slow(ms) | StdioFault::AfterCancel(ms)) => {
                write!(f, ":{ms}")
            }
            Scenario::Auth(Some(fault)) => write!(f, ":{}", fault.name()),
            _ => Ok(()),
        }
    }
}

/// Why a `--scenario` value was rejected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScenarioParseError {
    /// The name is not in [`SCENARIOS`](super::SCENARIOS).
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
            "baseline" => match params.map(str::trim) {
                None => Ok(Scenario::Baseline),
                Some("tools=conformance") => Ok(Scenario::BaselineConformance),
                Some(p) => Err(bad(format!(
                    "`{p}` is not a tool set (the only one is tools=conformance)"
                ))),
            },
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
            "stdio_banner" => no_params(Scenario::Stdio(StdioFault::Banner)),
            "stdio_log_line" => no_params(Scenario::Stdio(StdioFault::LogLine)),
            "stdio_pretty" => no_params(Scenario::Stdio(StdioFault::Pretty)),
            "stdio_crash" => no_params(Scenario::Stdio(StdioFault::Crash)),
            "stdio_partial_exit" => no_params(Scenario::Stdio(StdioFault::PartialExit)),
            "stdio_stderr_chatter" => no_params(Scenario::Stdio(StdioFault::StderrChatter)),
            "stdio_slow" | "stdio_after_cancel" => {
                let default = if name == "stdio_slow" { 3000 } else { 5000 };
                let ms = match params {
                    None => default,
                    Some(p) => p
                        .trim()
                        .parse::<u64>()
                        .map_err(|_| bad(format!("`{p}` is not a whole number of milliseconds")))?,
                };
                Ok(Scenario::Stdio(if name == "stdio_slow" {
                    StdioFault::Slow(ms)
                } else {
                    StdioFault::AfterCancel(ms)
                }))
            }
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
                None => Ok(Scenario::JsonRpcError(code::INVALID_PARAMS)),
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
            "lenient" => match params.map(str::trim) {
                None => Ok(Scenario::Lenient(Lenient::Version)),
                Some(p) => Lenient::ALL
                    .iter()
                    .find(|(_, n)| *n == p)
                    .map(|(l, _)| Scenario::Lenient(*l))
                    .ok_or_else(|| {
                        let names: Vec<&str> = Lenient::ALL.iter().map(|(_, n)| *n).collect();
                        bad(format!("`{p}` is not one of {}", names.join(", ")))
                    }),
            },
            "auth" => match params.map(str::trim) {
                None => Ok(Scenario::Auth(None)),
                Some(p) => AuthFault::parse(p)
                    .map(|f| Scenario::Auth(Some(f)))
                    .ok_or_else(|| {
                        let names: Vec<&str> = AuthFault::ALL.iter().map(|(n, _)| *n).collect();
                        bad(format!("`{p}` is not one of {}", names.join(", ")))
                    }),
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

#[cfg(test)]
mod tests {
    use super::super::SCENARIOS;
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
            Scenario::JsonRpcError(code::INVALID_PARAMS)
        );
        assert_eq!(
            "jsonrpc_error:-32603".parse::<Scenario>().unwrap(),
            Scenario::JsonRpcError(code::INTERNAL_ERROR)
        );
        assert_eq!(
            "rate_limited:3".parse::<Scenario>().unwrap(),
            Scenario::RateLimited {
                n: 3,
                retry_after: 1
            }
        );
        let conf = "baseline:tools=conformance".parse::<Scenario>().unwrap();
        assert_eq!(conf, Scenario::BaselineConformance);
        assert_eq!(conf.name(), "baseline");
        assert_eq!(conf.to_string(), "baseline:tools=conformance");
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
            "baseline:tools=other",
            "http_status_sequence:abc",
            "http_status_sequence:99",
            "non2xx_valid_body:204",
            "rate_limited:1:2:3",
            "lenient:nope",
            "sse_stall:-1",
            "stdio_slow:soon",
            "stdio_pretty:1",
        ] {
            let e = bad.parse::<Scenario>().unwrap_err();
            assert!(
                matches!(e, ScenarioParseError::BadParams { .. }),
                "{bad}: {e}"
            );
        }
    }
}
