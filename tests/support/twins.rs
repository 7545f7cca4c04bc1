//! Comparing an exchange's verdicts with its twin's (the same message carried another way): the
//! outcome, and the findings apart from the rules of one framing.

use std::collections::BTreeSet;

use mcp_verdict::wire::analysis::Media;
use mcp_verdict::{Exchange, Verdict};
use serde_json::Value;

/// Whether an exchange answers with a 2xx JSON body that is not itself a request or a
/// notification (on a stream of messages such a message is one the server sends beside its
/// response, which is not what the same object as a whole body means): what has a twin.
pub fn has_json_body_twin(ex: &Exchange) -> bool {
    (200..300).contains(&ex.status)
        && !ex.body.is_empty()
        && Media::parse(ex.response_headers.get("Content-Type")) == Media::Json
        && !serde_json::from_slice::<Value>(&ex.body)
            .ok()
            .as_ref()
            .and_then(Value::as_object)
            .is_some_and(|o| o.contains_key("method"))
}

/// The findings of a verdict as (rule, severity, pointer), leaving out the rules `framing_only`
/// names.
pub fn findings(
    v: &Verdict<'_>,
    framing_only: fn(&str) -> bool,
) -> BTreeSet<(String, String, String)> {
    v.findings
        .iter()
        .filter(|f| !framing_only(&f.rule.id))
        .map(|f| (f.rule.id.clone(), f.severity.to_string(), f.pointer.clone()))
        .collect()
}

/// What differs between a verdict (`a`, carried as `how_a`) and its twin's (`b`, as `how_b`):
/// the outcome, or the findings outside `framing_only`.
pub fn differences(
    name: &str,
    (a, how_a): (&Verdict<'_>, &str),
    (b, how_b): (&Verdict<'_>, &str),
    framing_only: fn(&str) -> bool,
) -> Vec<String> {
    let mut problems = Vec::new();
    if a.outcome != b.outcome {
        problems.push(format!(
            "{name}: {how_a} {} but {how_b} {} ({})",
            a.outcome,
            b.outcome,
            b.summary()
        ));
    }
    let (fa, fb) = (findings(a, framing_only), findings(b, framing_only));
    if fa != fb {
        problems.push(format!(
            "{name}: findings differ\n    {how_a} only: {:?}\n    {how_b} only: {:?}",
            fa.difference(&fb).collect::<Vec<_>>(),
            fb.difference(&fa).collect::<Vec<_>>()
        ));
    }
    problems
}
