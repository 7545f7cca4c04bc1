//! The verdict on what the server sent: a binding rebuilds a `tools/call` exchange from the
//! request as received and the answer as written (over HTTP: status, `Content-Type` and the
//! reply's own header fields, the body as the client reads it, how it ended), and it is judged
//! here under the revision in force with the tool's definition; its outcome, deciding rule
//! and retry advice go into the diagnostic record. A client's conclusion can then be set
//! beside the verdict on the very bytes it was sent (`mcp-verdict clients`).

use serde_json::Value;

use super::shared::Shared;
use crate::advice::{RetryPolicy, advise};
use crate::judge::{Engine, Options, judge};
use crate::views::diag::DiagRecord;
use crate::vocab::Protocol;
use crate::wire::exchange::Exchange;

/// The definition of the tool a `tools/call` request names, when the server offers it.
pub(crate) fn tool_of(shared: &Shared, request: Option<&Value>) -> Option<Value> {
    request
        .and_then(|b| b.pointer("/params/name"))
        .and_then(Value::as_str)
        .and_then(|name| shared.tools.iter().find(|t| t.name == name))
        .map(|t| t.definition.clone())
}

/// The revision the record says the exchange was served under, when it says one.
pub(crate) fn protocol_of(record: &DiagRecord) -> Option<Protocol> {
    record.protocol_version.as_deref().and_then(Protocol::parse)
}

/// Judges `ex` (what went out, rebuilt by the binding) under `protocol` and notes the verdict
/// in `record`.
pub(crate) fn note_verdict(protocol: Protocol, mut ex: Exchange, record: &mut DiagRecord) {
    ex.protocol = Some(vec![protocol]);
    let protocols = [protocol];
    let options = Options {
        protocols: Some(&protocols),
        engine: Engine::builtin(),
    };
    let Ok(judgement) = judge(&ex, &options) else {
        return;
    };
    let Some(verdict) = judgement.verdicts.first() else {
        return;
    };
    record.outcome = Some(verdict.outcome.to_string());
    record.rule = verdict.deciding_rule().map(|r| r.id.clone());
    record.error_findings = crate::views::diag::error_findings(verdict);
    record.retry_advice = serde_json::to_value(advise(verdict, &RetryPolicy::default())).ok();
}
