//! Retry advice: whether and how a client may retry a tool call, decided by which layer failed,
//! whether a final result exists, and whether replaying the call is safe.
//!
//! What to do for which outcome, error code, status or rule is data (`rules/advice.toml`);
//! this module applies it: it picks the first entry that applies to a verdict, fills in what
//! the exchange says (status, last event id, supported versions), and words this project's
//! replay policy (backoff, jitter, what safety rests on). Replay safety comes from the tool's
//! annotations or an `Idempotency-Key`, never from the HTTP status alone: replaying a payment
//! tool because of a 503 is a bug.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::judge::Verdict;
use crate::rules::{AdviceEntry, Replay};
pub use crate::vocab::RetryAction;
pub use crate::wire::hints::{
    ReplayBasis, ReplaySafety, RetryContext, parse_retry_after, replay_safety,
};

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

/// Advises on one verdict under a policy.
pub fn advise(verdict: &Verdict<'_>, policy: &RetryPolicy) -> RetryAdvice {
    let ctx = &verdict.retry;
    let table = verdict.table();
    let p = verdict.protocol;
    let mut a = RetryAdvice {
        action: RetryAction::DoNotRetry,
        replay: false,
        replay_safety: ctx.replay,
        backoff_ms: Vec::new(),
        jitter: policy.jitter,
        wait_ms: None,
        new_request_id: false,
        detail: String::new(),
        cites: Vec::new(),
    };
    if let Some(d) = verdict.decided_by {
        a.cites.push(AdviceCite {
            id: table.rule_of(d).id.clone(),
            url: d.cite.url.clone(),
        });
    }
    let Some(entry) = table.advice().iter().find(|e| applies(e, verdict)) else {
        a.detail = format!(
            "the rule table gives no advice for {}; do not retry automatically",
            verdict.outcome
        );
        return a;
    };
    let cite = |a: &mut RetryAdvice, id: &str| {
        let url = match table.policy(id) {
            Some(policy) => policy.urls.get(&p).cloned(),
            None => table.active_rule(p, id).map(|r| r.cite.url.clone()),
        };
        if let Some(url) = url
            && !a.cites.iter().any(|c| c.id == id)
        {
            a.cites.push(AdviceCite {
                id: id.to_string(),
                url,
            });
        }
    };
    let detail = fill(&entry.detail, verdict);
    let safe = ctx.replay.safe;
    let why_unsafe = ctx.replay.basis.describe();
    a.new_request_id = entry.new_request_id;
    for c in &entry.cites {
        cite(&mut a, c);
    }
    match entry.replay {
        Replay::Never => {
            a.action = entry.action;
            a.detail = detail;
        }
        Replay::Backoff => backoff(&mut a, &detail, ctx, policy, &cite),
        Replay::Reissue => {
            if safe {
                a.action = RetryAction::ReissueWithNewId;
                a.replay = true;
                a.new_request_id = true;
                a.backoff_ms = policy.schedule();
                a.detail = format!(
                    "{detail}; the call is safe to replay: re-issue it as a new request with a new id"
                );
            } else {
                a.detail = format!("{detail}; do not replay automatically: {why_unsafe}");
            }
            cite(&mut a, POLICY_REPLAY_SAFETY);
        }
        Replay::RetryAfter if safe => {
            a.action = RetryAction::RetryAfter;
            a.replay = true;
            a.wait_ms = Some(
                ctx.retry_after
                    .map_or(policy.initial_backoff_ms, |d| d.as_millis() as u64),
            );
            a.detail = match ctx.retry_after {
                Some(d) => format!(
                    "{detail}: wait {} s as Retry-After asks, then retry",
                    d.as_secs()
                ),
                None => format!("{detail} without Retry-After: back off before retrying"),
            };
            cite(&mut a, POLICY_RETRY_AFTER);
            cite(&mut a, POLICY_REPLAY_SAFETY);
        }
        Replay::RetryAfter => {
            backoff(&mut a, &detail, ctx, policy, &cite);
            a.wait_ms = ctx.retry_after.map(|d| d.as_millis() as u64);
        }
    }
    a
}

/// `policy.*` entries the replay modes cite (defined in `rules/advice.toml`).
const POLICY_REPLAY_SAFETY: &str = "policy.replay-safety";
const POLICY_BACKOFF: &str = "policy.backoff";
const POLICY_RETRY_AFTER: &str = "policy.retry-after";

/// Replay with the policy's backoff when safe; otherwise advise against an automatic replay.
fn backoff(
    a: &mut RetryAdvice,
    why: &str,
    ctx: &RetryContext,
    policy: &RetryPolicy,
    cite: &dyn Fn(&mut RetryAdvice, &str),
) {
    if ctx.replay.safe {
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
        cite(a, POLICY_REPLAY_SAFETY);
        cite(a, POLICY_BACKOFF);
    } else {
        a.action = RetryAction::DoNotRetry;
        a.detail = format!(
            "{why}; do not replay automatically: {} (retry only after checking whether it took effect)",
            ctx.replay.basis.describe()
        );
        cite(a, POLICY_REPLAY_SAFETY);
    }
}

/// Whether an advice entry's conditions hold for a verdict.
fn applies(e: &AdviceEntry, v: &Verdict<'_>) -> bool {
    let f = &v.facts;
    let code = f.error.as_ref().and_then(|e| e.code);
    let event_id = f
        .stream
        .as_ref()
        .and_then(|s| s.last_event_id.as_ref())
        .is_some();
    e.outcomes.contains(&v.outcome)
        && (e.codes.is_empty() || code.is_some_and(|c| e.codes.contains(&c)))
        && (e.statuses.is_empty() || e.statuses.contains(&f.http_status))
        && e.rule.as_deref().is_none_or(|r| v.mentions(r))
        && (e.revisions.is_empty() || e.revisions.contains(&v.protocol))
        && e.event_id.is_none_or(|want| want == event_id)
}

/// Fills `{status}`, `{last_event_id}`, `{supported}` and `{scope}` from the verdict's facts.
fn fill(template: &str, v: &Verdict<'_>) -> String {
    if !template.contains('{') {
        return template.to_string();
    }
    let f = &v.facts;
    let supported = f
        .error
        .as_ref()
        .and_then(|e| e.data.as_ref())
        .and_then(|d| d.get("supported"))
        .map_or_else(|| "(not given)".to_string(), Value::to_string);
    let last_event_id = f
        .stream
        .as_ref()
        .and_then(|s| s.last_event_id.clone())
        .unwrap_or_default();
    let scope = f
        .challenge
        .as_ref()
        .and_then(|c| c.scope.as_ref())
        .map_or_else(|| "none named".to_string(), |s| format!("\"{s}\""));
    template
        .replace("{scope}", &scope)
        .replace("{status}", &f.http_status.to_string())
        .replace("{last_event_id}", &last_event_id)
        .replace("{supported}", &supported)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn schedule() {
        assert_eq!(RetryPolicy::default().schedule(), vec![200, 400]);
    }
}
