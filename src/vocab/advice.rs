//! The words of retry advice: what a client should do next after a verdict.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use strum::{AsRefStr, EnumIter, EnumString};

/// What the client should do next.
#[derive(
    Clone,
    Copy,
    Debug,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    JsonSchema,
    EnumString,
    EnumIter,
    AsRefStr,
)]
#[serde(rename_all = "snake_case")]
#[strum(serialize_all = "snake_case")]
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
    /// The session ended: start a new one with `initialize` (without the session id), then
    /// send the call again in it (2025-11-25).
    StartNewSession,
    /// Authorize (or refresh the token), then retry: the request was refused before the tool
    /// ran.
    Authenticate,
    /// Request a token with more scope (the scopes held plus the challenged ones), then retry,
    /// a limited number of times.
    StepUpThenRetry,
    /// Do not retry automatically.
    DoNotRetry,
}
