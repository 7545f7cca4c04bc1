//! Retry advice as data (`rules/advice.toml`): per outcome, and narrowed by error code, HTTP
//! status, a rule the verdict cites or found, the revision or the stream's event ids, what a
//! client should do next and which rules say so. The entries are tried in order and the first
//! that applies gives the advice; every outcome has an entry without conditions, so advice is
//! never missing.

use std::collections::BTreeMap;

use crate::vocab::{Outcome, Protocol, RetryAction};

/// How replay safety shapes the advice of an entry. The wording of the policy (backoff,
/// jitter, what "safe" rests on) belongs to the advice code; the table says which applies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, strum::EnumString, strum::AsRefStr)]
#[strum(serialize_all = "snake_case")]
pub enum Replay {
    /// The entry's action stands whatever replay safety says.
    Never,
    /// Replay with the policy's backoff when safe; otherwise do not retry automatically.
    Backoff,
    /// Re-issue as a new request with a new id when safe (the request was lost with its
    /// stream); otherwise do not retry automatically.
    Reissue,
    /// Replay after the wait `Retry-After` asks for when safe; otherwise as [`Replay::Backoff`].
    RetryAfter,
}

/// One piece of advice and when it applies.
#[derive(Clone, Debug, PartialEq)]
pub struct AdviceEntry {
    /// The outcomes it applies to.
    pub outcomes: Vec<Outcome>,
    /// The JSON-RPC error code must be one of these (empty: any).
    pub codes: Vec<i64>,
    /// The HTTP status must be one of these (empty: any).
    pub statuses: Vec<u16>,
    /// The verdict must cite or find this rule.
    pub rule: Option<String>,
    /// The revision must be one of these (empty: any).
    pub revisions: Vec<Protocol>,
    /// Whether the stream must (`true`) or must not (`false`) have sent an event id.
    pub event_id: Option<bool>,
    /// What to do next (for [`Replay::Never`]; the replay modes choose their own).
    pub action: RetryAction,
    /// How replay safety shapes the advice.
    pub replay: Replay,
    /// The advice in words; for the replay modes, why a replay is considered. May contain
    /// `{status}`, `{last_event_id}` and `{supported}`, filled from the exchange.
    pub detail: String,
    /// Whether the next request needs a new JSON-RPC id.
    pub new_request_id: bool,
    /// Rule ids (or `policy.*` ids) the advice cites besides the deciding rule.
    pub cites: Vec<String>,
    /// Where the entry was defined (`file:line`).
    pub source: String,
}

impl AdviceEntry {
    /// Whether the entry applies to every verdict of its outcomes.
    pub fn is_fallback(&self) -> bool {
        self.codes.is_empty()
            && self.statuses.is_empty()
            && self.rule.is_none()
            && self.revisions.is_empty()
            && self.event_id.is_none()
    }
}

/// A policy of this project's own that advice cites (`policy.*`), e.g. what makes a replay
/// safe; not a rule of the specification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    /// `policy.*`.
    pub id: String,
    /// What the policy is.
    pub title: String,
    /// Where to read about it, per revision.
    pub urls: BTreeMap<Protocol, String>,
}
