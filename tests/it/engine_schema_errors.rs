//! Schema errors inside unions (`ContentBlock = TextContent | ImageContent | ...`) are reported
//! where the problem is, and routed to the rule that claims that location.

use mcp_verdict::judge::Judgement;
use mcp_verdict::{Exchange, Headers, Protocol};
use rstest::rstest;
use serde_json::{Value, json};

use crate::support::judge::judge_under;

/// Judges a `tools/call` answered with HTTP 200 and `result` under the given revisions.
fn judge_result(result: Value, ps: &'static [Protocol]) -> Judgement<'static> {
    let body = json!({"jsonrpc": "2.0", "id": 1, "result": result});
    let ex = Exchange::new(
        Some(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t"}})),
        200,
        Headers::new([("Content-Type", "application/json")]),
        serde_json::to_vec(&body).unwrap(),
    );
    judge_under(&ex, ps)
}

fn findings(block: Value) -> Vec<(String, String, String)> {
    let j = judge_result(
        json!({"resultType": "complete", "content": [{"type": "text", "text": "ok"}, block]}),
        &[Protocol::V2025_11_25, Protocol::V2026_07_28],
    );
    let mut out: Vec<(String, String, String)> = Vec::new();
    for v in &j.verdicts {
        for f in v
            .findings
            .iter()
            .filter(|f| f.rule.id.starts_with("content."))
        {
            out.push((f.rule.id.clone(), f.pointer.clone(), f.message.clone()));
        }
    }
    out.sort();
    out.dedup();
    out
}

#[rstest]
#[case::text_without_text(json!({"type": "text"}), "content.block.fields", "/result/content/1/text", r#""text" is a required property"#)]
#[case::image_without_mime(json!({"type": "image", "data": "AA=="}), "content.block.fields", "/result/content/1/mimeType", r#""mimeType" is a required property"#)]
#[case::unknown_type(json!({"type": "video", "url": "x"}), "content.block.type", "/result/content/1/type", r#""video" is not one of "text", "image", "audio", "resource_link", "resource""#)]
#[case::missing_type(json!({"text": "x"}), "content.block.type", "/result/content/1/type", r#""type" is a required property"#)]
#[case::link_bad_size(json!({"type": "resource_link", "uri": "file:///a", "name": "a", "size": "big"}), "content.block.fields", "/result/content/1/size", r#""big" is not of type "integer""#)]
#[case::blob_not_base64(json!({"type": "resource", "resource": {"uri": "file:///a", "blob": "@@@"}}), "content.base64", "/result/content/1/resource/blob", "is not valid base64")]
#[case::priority_too_high(json!({"type": "text", "text": "x", "annotations": {"priority": 2}}), "content.annotations", "/result/content/1/annotations/priority", "2 is greater than the maximum of 1")]
fn one_precise_finding_per_broken_block(
    #[case] block: Value,
    #[case] rule: &str,
    #[case] pointer: &str,
    #[case] says: &str,
) {
    let got = findings(block);
    assert_eq!(
        got.len(),
        1,
        "expected exactly one content finding, got {got:?}"
    );
    let (r, p, m) = &got[0];
    assert_eq!((r.as_str(), p.as_str()), (rule, pointer), "{m}");
    assert!(m.contains(says), "{m:?} does not say {says:?}");
}

#[test]
fn an_input_request_without_method_is_reported_at_its_method() {
    let j = judge_result(
        json!({"resultType": "input_required",
            "inputRequests": {"a": {"params": {}}}, "requestState": "s"}),
        &[Protocol::V2026_07_28],
    );
    let f: Vec<(&str, &str)> = j.verdicts[0]
        .findings
        .iter()
        .filter(|f| f.rule.id.starts_with("mrtr."))
        .map(|f| (f.rule.id.as_str(), f.pointer.as_str()))
        .collect();
    assert_eq!(
        f,
        vec![(
            "mrtr.irr.input-request-types",
            "/result/inputRequests/a/method"
        )]
    );
}
