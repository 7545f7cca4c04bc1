//! Retry advice: whether and how a client may retry a tool call, decided by which layer failed,
//! whether a final result exists, and whether replaying the call is safe.
//!
//! Replay safety comes from the tool's annotations (`readOnlyHint`, `idempotentHint`,
//! `destructiveHint`) or an `Idempotency-Key` on the request, never from the HTTP status alone:
//! replaying a payment tool because of a 503 is a bug. Every piece of advice cites the rule or
//! policy it came from.

use std::time::{Duration, SystemTime};

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::engine::Verdict;
use crate::vocab::Outcome;
use crate::vocab::Protocol;
use crate::wire::exchange::Exchange;

/// How aggressively to retry side-effect-free calls.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct RetryPolicy {
    /// Retries after the first attempt.
    pub max_retries: u32,
    /// Delay before the first retry, in milliseconds.
    pub initial_backoff_ms: u64,
    /// Factor applied to the delay after each retry.
    pub multiplier: f64,
    /// Upper bound of one delay, in milliseconds.
    pub max_backoff_ms: u64,
    /// Whether to randomise each delay (full jitter: uniform in [0, delay]).
    pub jitter: bool,
}

impl Default for RetryPolicy {
    /// At most two retries, 200 ms initial exponential backoff, with jitter.
    fn default() -> Self {
        RetryPolicy {
            max_retries: 2,
            initial_backoff_ms: 200,
            multiplier: 2.0,
            max_backoff_ms: 10_000,
            jitter: true,
        }
    }
}

impl RetryPolicy {
    /// The delay before each retry, before jitter.
    pub fn schedule(&self) -> Vec<u64> {
        let mut out = Vec::with_capacity(self.max_retries as usize);
        let mut d = self.initial_backoff_ms as f64;
        for _ in 0..self.max_retries {
            out.push((d as u64).min(self.max_backoff_ms));
            d *= self.multiplier;
        }
        out
    }
}

/// Why a replay is or is not safe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum ReplayBasis {
    /// The tool's `readOnlyHint` is true.
    ReadOnlyHint,
    /// The tool's `idempotentHint` is true.
    IdempotentHint,
    /// The request carried an `Idempotency-Key` header: the server can deduplicate.
    IdempotencyKey,
    /// The tool may modify its environment and is not marked idempotent.
    SideEffects,
    /// No tool definition was available to tell.
    NoToolDefinition,
}

impl ReplayBasis {
    /// The basis in words.
    pub fn describe(self) -> &'static str {
        match self {
            ReplayBasis::ReadOnlyHint => "the tool is annotated readOnlyHint",
            ReplayBasis::IdempotentHint => "the tool is annotated idempotentHint",
            ReplayBasis::IdempotencyKey => "the request carries an Idempotency-Key",
            ReplayBasis::SideEffects => {
                "the tool may have side effects and is not marked idempotent"
            }
            ReplayBasis::NoToolDefinition => {
                "no tool definition says the call is free of side effects"
            }
        }
    }
}

/// Whether replaying the call is safe, and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
pub struct ReplaySafety {
    /// Safe to send the same call again.
    pub safe: bool,
    /// Why.
    pub basis: ReplayBasis,
}

/// What the exchange says that bears on retrying (small and `Copy`; read once per exchange).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryContext {
    /// Whether replay is safe.
    pub replay: ReplaySafety,
    /// The wait a `Retry-After` header asks for.
    pub retry_after: Option<Duration>,
}

impl RetryContext {
    /// Reads replay safety from the exchange's tool definition or request headers, and the
    /// `Retry-After` header (seconds, or an HTTP date relative to the response's `Date`).
    pub fn of(ex: &Exchange) -> RetryContext {
        RetryContext {
            replay: replay_safety(ex.tool.as_ref(), ex.request.headers.get("Idempotency-Key")),
            retry_after: ex
                .response_headers
                .get("Retry-After")
                .and_then(|v| parse_retry_after(v, ex.response_headers.get("Date"))),
        }
    }
}

/// Replay safety from a tool definition (`annotations`) and an idempotency key.
pub fn replay_safety(tool: Option<&Value>, idempotency_key: Option<&str>) -> ReplaySafety {
    let ann = tool.and_then(|t| t.get("annotations"));
    let flag = |k: &str| ann.and_then(|a| a.get(k)).and_then(Value::as_bool);
    if flag("readOnlyHint") == Some(true) {
        return ReplaySafety {
            safe: true,
            basis: ReplayBasis::ReadOnlyHint,
        };
    }
    if flag("idempotentHint") == Some(true) {
        return ReplaySafety {
            safe: true,
            basis: ReplayBasis::IdempotentHint,
        };
    }
    if idempotency_key.is_some_and(|k| !k.trim().is_empty()) {
        return ReplaySafety {
            safe: true,
            basis: ReplayBasis::IdempotencyKey,
        };
    }
    ReplaySafety {
        safe: false,
        basis: if tool.is_some() {
            ReplayBasis::SideEffects
        } else {
            ReplayBasis::NoToolDefinition
        },
    }
}

/// Parses `Retry-After`: delta-seconds, or an HTTP-date measured from the response's `Date`.
pub fn parse_retry_after(value: &str, date: Option<&str>) -> Option<Duration> {
    let v = value.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = httpdate::parse_http_date(v).ok()?;
    let now = date
        .and_then(|d| httpdate::parse_http_date(d.trim()).ok())
        .unwrap_or_else(SystemTime::now);
    Some(at.duration_since(now).unwrap_or(Duration::ZERO))
}

/// What the client should do next.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RetryAction {
    /// Nothing: the call finished.
    None,
    /// Give the tool's error text to the model; do not replay.
    ReportToModel,
    /// Not finished: gather the requested input and send a follow-up request.
    FollowUp,
    /// The call became a task: poll it.
    PollTask,
    /// Replay the same call after the backoff schedule.
    Retry,
    /// Replay after the wait the server asked for (429 + Retry-After).
    RetryAfter,
    /// Re-issue the call as a new request with a new JSON-RPC id.
    ReissueWithNewId,
    /// Resume the stream with GET and `Last-Event-ID` (2025-11-25).
    ResumeStream,
    /// Call tools/list to refresh the tool's input schema, then retry with corrected headers.
    RefreshToolsThenRetry,
    /// Retry with a protocol version from the error's `data.supported`.
    ChangeVersionThenRetry,
    /// Declare the capabilities listed in `data.requiredCapabilities`, then retry.
    DeclareCapabilityThenRetry,
    /// The endpoint is legacy or not MCP: fall back to `initialize` (or HTTP+SSE).
    FallBackToLegacy,
    /// Authenticate (refresh the token), then retry.
    Authenticate,
    /// Do not retry automatically.
    DoNotRetry,
}

/// A citation behind a piece of advice: a rule of the table, a spec sentence, or this
/// project's retry policy.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct AdviceCite {
    /// A rule id, or `policy.*` for this project's policy.
    pub id: String,
    /// Where to read it.
    pub url: String,
}

/// Whether and how to retry.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
pub struct RetryAdvice {
    /// What to do next.
    pub action: RetryAction,
    /// Whether an automatic replay of the same call is advised.
    pub replay: bool,
    /// Whether replaying is safe, and why.
    pub replay_safety: ReplaySafety,
    /// Delays before each retry, in milliseconds (empty when no replay is advised).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub backoff_ms: Vec<u64>,
    /// Whether to randomise the delays.
    pub jitter: bool,
    /// A wait the server asked for (Retry-After), in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wait_ms: Option<u64>,
    /// Whether the next request needs a new JSON-RPC id.
    pub new_request_id: bool,
    /// The advice in words.
    pub detail: String,
    /// Where it comes from.
    pub cites: Vec<AdviceCite>,
}

/// The project's own retry policy is documented in its README.
const POLICY_URL: &str = "README.md#retry-advice";

fn spec(p: Protocol, page: &str) -> String {
    format!(
        "https://modelcontextprotocol.io/specification/{}/{page}",
        p.as_str()
    )
}

/// Advises on one verdict.
pub fn advise(verdict: &Verdict<'_>, ctx: &RetryContext, policy: &RetryPolicy) -> RetryAdvice {
    let p = verdict.protocol;
    let rule_cite = |v: &Verdict<'_>| -> Vec<AdviceCite> {
        v.decided_by
            .map(|a| AdviceCite {
                id: v.table().rule_of(a).id.clone(),
                url: a.cite.url.clone(),
            })
            .into_iter()
            .collect()
    };
    let safety_cite = AdviceCite {
        id: "policy.replay-safety".into(),
        url: spec(p, "schema#toolannotations"),
    };
    let backoff_cite = AdviceCite {
        id: "policy.backoff".into(),
        url: POLICY_URL.into(),
    };
    let mut a = RetryAdvice {
        action: RetryAction::DoNotRetry,
        replay: false,
        replay_safety: ctx.replay,
        backoff_ms: Vec::new(),
        jitter: policy.jitter,
        wait_ms: None,
        new_request_id: false,
        detail: String::new(),
        cites: rule_cite(verdict),
    };
    let safe = ctx.replay.safe;
    let why_unsafe = ctx.replay.basis.describe();
    let replay = |a: &mut RetryAdvice, why: &str| {
        if safe {
            a.action = RetryAction::Retry;
            a.replay = true;
            a.backoff_ms = policy.schedule();
            a.detail = format!(
                "{why}; the call is safe to replay ({}): retry at most {} time(s) with {} ms initial exponential backoff{}",
                ctx.replay.basis.describe(),
                policy.max_retries,
                policy.initial_backoff_ms,
                if policy.jitter { " and jitter" } else { "" }
            );
            a.cites.push(safety_cite.clone());
            a.cites.push(backoff_cite.clone());
        } else {
            a.action = RetryAction::DoNotRetry;
            a.detail = format!(
                "{why}; do not replay automatically: {why_unsafe} (retry only after checking whether it took effect)"
            );
            a.cites.push(safety_cite.clone());
        }
    };
    let f = &verdict.facts;
    let code = f.error.as_ref().and_then(|e| e.code);
    match verdict.outcome {
        Outcome::ToolSuccess | Outcome::NotificationAccepted | Outcome::NotAToolCall => {
            a.action = RetryAction::None;
            a.detail = "nothing to retry".into();
        }
        Outcome::ToolError => {
            a.action = RetryAction::ReportToModel;
            a.detail = "the tool ran and failed: give its content to the model so it can correct the call; do not replay the same call".into();
            a.cites.push(AdviceCite {
                id: "spec.tools.error-handling".into(),
                url: spec(p, "server/tools#error-handling"),
            });
        }
        Outcome::InputRequired if code == Some(-32042) => {
            a.action = RetryAction::FollowUp;
            a.detail = "complete the URL elicitation(s) listed in error.data, then retry the original request".into();
        }
        Outcome::InputRequired => {
            a.action = RetryAction::FollowUp;
            a.new_request_id = true;
            a.detail = "not a retry: gather the requested input, then send the original call again with a new id, `inputResponses` keyed like `inputRequests`, and the exact `requestState` if one was given".into();
            a.cites.push(AdviceCite {
                id: "spec.mrtr.client-requirements".into(),
                url: spec(p, "basic/patterns/mrtr#client-requirements-basic-workflow"),
            });
        }
        Outcome::TaskCreated => {
            a.action = RetryAction::PollTask;
            a.detail =
                "the result arrives through the task: poll it instead of calling again".into();
        }
        Outcome::DeliveryUnknown => {
            let last_id = f.stream.as_ref().and_then(|s| s.last_event_id.clone());
            if p == Protocol::V2025_11_25 && last_id.is_some() {
                a.action = RetryAction::ResumeStream;
                a.detail = format!(
                    "resume with GET and Last-Event-ID: {} rather than sending the call again",
                    last_id.unwrap_or_default()
                );
                a.cites.push(AdviceCite {
                    id: "spec.transports.resumability".into(),
                    url: spec(p, "basic/transports#resumability-and-redelivery"),
                });
            } else if safe {
                a.action = RetryAction::ReissueWithNewId;
                a.replay = true;
                a.new_request_id = true;
                a.backoff_ms = policy.schedule();
                a.detail = "the request was lost with its stream and the call is safe to replay: re-issue it as a new request with a new id".into();
                a.cites.push(safety_cite.clone());
            } else {
                a.detail = format!(
                    "whether the tool ran is unknown; do not replay automatically: {why_unsafe}"
                );
                a.cites.push(safety_cite.clone());
            }
        }
        Outcome::HttpError => match (f.http_status, code) {
            (_, Some(-32020)) => {
                a.action = RetryAction::RefreshToolsThenRetry;
                a.detail = "the server rejected the headers before running the tool: call tools/list to refresh the tool's inputSchema, then retry with the Mcp-Param-*/Mcp-Name headers it requires".into();
                a.cites.push(AdviceCite {
                    id: "spec.streamable-http.client-behavior".into(),
                    url: spec(p, "basic/transports/streamable-http#client-behavior"),
                });
            }
            (_, Some(-32022)) => {
                a.action = RetryAction::ChangeVersionThenRetry;
                let supported = f
                    .error
                    .as_ref()
                    .and_then(|e| e.data.as_ref())
                    .and_then(|d| d.get("supported"))
                    .map(Value::to_string)
                    .unwrap_or_else(|| "(not given)".into());
                a.detail = format!(
                    "select a mutually supported version from data.supported {supported} and retry, or report that none is compatible"
                );
                a.cites.push(AdviceCite {
                    id: "spec.versioning.negotiation".into(),
                    url: spec(p, "basic/versioning#protocol-version-negotiation"),
                });
            }
            (_, Some(-32021)) => {
                a.action = RetryAction::DeclareCapabilityThenRetry;
                a.detail = "declare the capabilities in data.requiredCapabilities (if the client has them), then retry".into();
            }
            (401, _) => {
                a.action = RetryAction::Authenticate;
                a.detail = "authorization is required: obtain or refresh the token (see WWW-Authenticate), then retry".into();
                a.cites.push(AdviceCite {
                    id: "spec.authorization".into(),
                    url: spec(p, "basic/authorization"),
                });
            }
            (429, _) => {
                if safe {
                    a.action = RetryAction::RetryAfter;
                    a.replay = true;
                    a.wait_ms = Some(
                        ctx.retry_after
                            .map_or(policy.initial_backoff_ms, |d| d.as_millis() as u64),
                    );
                    a.detail = match ctx.retry_after {
                        Some(d) => format!(
                            "rate limited: wait {} s as Retry-After asks, then retry",
                            d.as_secs()
                        ),
                        None => "rate limited without Retry-After: back off before retrying".into(),
                    };
                    a.cites.push(AdviceCite {
                        id: "rfc6585.429".into(),
                        url: "https://www.rfc-editor.org/rfc/rfc6585#section-4".into(),
                    });
                    a.cites.push(safety_cite.clone());
                } else {
                    replay(&mut a, "rate limited");
                    a.wait_ms = ctx.retry_after.map(|d| d.as_millis() as u64);
                }
            }
            (400 | 404 | 405, _) if verdict.mentions("transport.http.legacy-endpoint") => {
                a.action = RetryAction::FallBackToLegacy;
                a.detail = "the endpoint does not speak this revision: fall back to initialize (2025-11-25 and earlier) or to HTTP+SSE".into();
            }
            (408 | 500 | 502 | 503 | 504, _) => {
                replay(&mut a, &format!("HTTP {} is transient", f.http_status))
            }
            (s, _) => {
                a.detail = format!("HTTP {s}: fix the request or the server before retrying");
            }
        },
        Outcome::JsonrpcError => {
            a.detail = "the server rejected the call: the same call will fail again; the error may be shown to the model".into();
            a.cites.push(AdviceCite {
                id: "spec.tools.error-handling".into(),
                url: spec(p, "server/tools#error-handling"),
            });
        }
        Outcome::InvalidToolResult => {
            a.detail = "the server produced a result, so the tool ran: do not replay; report the invalid result as a server bug".into();
        }
        Outcome::MalformedJson | Outcome::InvalidEnvelope => replay(
            &mut a,
            "the response could not be read, so whether the tool ran is unknown",
        ),
        Outcome::UnexpectedContentType | Outcome::NoResponse => replay(
            &mut a,
            "no JSON-RPC response was delivered (often a proxy or gateway answered)",
        ),
    }
    a
}

impl Verdict<'_> {
    /// Retry advice for this verdict under a policy.
    pub fn retry_advice(&self, policy: &RetryPolicy) -> RetryAdvice {
        advise(self, &self.retry, policy)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schedule_and_retry_after() {
        assert_eq!(RetryPolicy::default().schedule(), vec![200, 400]);
        assert_eq!(parse_retry_after("7", None), Some(Duration::from_secs(7)));
        assert_eq!(
            parse_retry_after(
                "Sun, 06 Nov 1994 08:49:40 GMT",
                Some("Sun, 06 Nov 1994 08:49:37 GMT")
            ),
            Some(Duration::from_secs(3))
        );
        assert_eq!(parse_retry_after("soon", None), None);
    }

    #[test]
    fn replay_safety_comes_from_annotations_or_a_key() {
        let ro = json!({"annotations": {"readOnlyHint": true}});
        assert_eq!(
            replay_safety(Some(&ro), None).basis,
            ReplayBasis::ReadOnlyHint
        );
        let idem = json!({"annotations": {"idempotentHint": true, "destructiveHint": true}});
        assert!(replay_safety(Some(&idem), None).safe);
        let pay = json!({"annotations": {"destructiveHint": true}});
        assert!(!replay_safety(Some(&pay), None).safe);
        assert!(replay_safety(Some(&pay), Some("k-1")).safe);
        assert_eq!(
            replay_safety(None, None).basis,
            ReplayBasis::NoToolDefinition
        );
    }
}
