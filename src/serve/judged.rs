//! The verdict on what the server sent: a `tools/call` exchange is rebuilt from the request as
//! received and the response as written (status, `Content-Type` and the reply's own header
//! fields, the body as the client reads it, how it ended), judged under the revision in force
//! with the tool's definition, and its outcome, deciding rule and retry advice go into the
//! diagnostic record. A client's conclusion can then be set beside the verdict on the very
//! bytes it was sent (`mcp-verdict clients`).

use serde_json::Value;

use super::Shared;
use super::execute::Sent;
use super::http::Request;
use crate::advice::{RetryPolicy, advise};
use crate::judge::{Engine, Options, judge};
use crate::views::diag::DiagRecord;
use crate::vocab::Protocol;
use crate::wire::exchange::{Exchange, Headers};

/// Judges what went out for `req` and notes the verdict in `record`. Nothing is noted when
/// the revision is unknown or the copy of the body was cut at its cap (a part is not the
/// whole exchange).
pub(crate) fn note_verdict(shared: &Shared, req: &Request, sent: Sent, record: &mut DiagRecord) {
    let Some(protocol) = record.protocol_version.as_deref().and_then(Protocol::parse) else {
        return;
    };
    if sent.cut {
        return;
    }
    let body: Option<Value> = serde_json::from_slice(&req.body).ok();
    let tool = body
        .as_ref()
        .and_then(|b| b.pointer("/params/name"))
        .and_then(Value::as_str)
        .and_then(|name| shared.tools.iter().find(|t| t.name == name))
        .map(|t| t.definition.clone());
    let request_headers = Headers::new(req.headers.iter().filter_map(|(n, v)| {
        std::str::from_utf8(v)
            .ok()
            .map(|v| (n.clone(), v.trim().to_string()))
    }));
    let mut builder = Exchange::builder(sent.status, Headers::new(sent.headers), sent.body)
        .request_headers(request_headers)
        .request_line("POST", shared.config.path.clone())
        .end(sent.end)
        .protocols(vec![protocol]);
    if let Some(body) = body {
        builder = builder.request(body);
    }
    if let Some(tool) = tool {
        builder = builder.tool(tool);
    }
    let ex = builder.build();
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
