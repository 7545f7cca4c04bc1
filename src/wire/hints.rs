//! What an exchange says that bears on retrying it: whether replaying the call is safe (the
//! tool's annotations, an `Idempotency-Key`) and how long the server asked to wait
//! (`Retry-After`). Read once per exchange; advice is decided from these and the verdict.

use std::time::{Duration, SystemTime};

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use super::exchange::Exchange;

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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn retry_after() {
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
