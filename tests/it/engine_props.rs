//! Bad input is a verdict, never a panic: arbitrary bodies, media types, statuses, body ends
//! and requests all yield one verdict per revision, with an outcome and a layer.

use mcp_verdict::{BodyEnd, Exchange, Headers, Protocol};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::support::judge::judge_under;

pub(crate) fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(|f| json!(f)),
        "[a-z_/\\-]{0,12}".prop_map(Value::String),
        prop_oneof![
            Just("complete"),
            Just("input_required"),
            Just("task"),
            Just("text"),
            Just("image"),
            Just("2.0"),
            Just("tools/call"),
            Just("notifications/progress"),
            Just("elicitation/create"),
        ]
        .prop_map(|s| Value::String(s.into())),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    Just("jsonrpc".to_string()),
                    Just("id".to_string()),
                    Just("result".to_string()),
                    Just("error".to_string()),
                    Just("code".to_string()),
                    Just("message".to_string()),
                    Just("resultType".to_string()),
                    Just("content".to_string()),
                    Just("type".to_string()),
                    Just("text".to_string()),
                    Just("data".to_string()),
                    Just("isError".to_string()),
                    Just("structuredContent".to_string()),
                    Just("inputRequests".to_string()),
                    Just("requestState".to_string()),
                    Just("method".to_string()),
                    Just("params".to_string()),
                    Just("_meta".to_string()),
                    "[a-z]{1,6}",
                ],
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn body() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..200),
        json_value().prop_map(|v| serde_json::to_vec(&v).unwrap()),
        json_value().prop_map(|v| {
            let mut m = json!({"jsonrpc": "2.0", "id": 1});
            m["result"] = v;
            serde_json::to_vec(&m).unwrap()
        }),
        prop::collection::vec(json_value(), 0..4).prop_map(|vs| {
            let mut s = String::from("id: x\ndata:\n\n: ping\n");
            for v in vs {
                s.push_str("event: message\ndata: ");
                s.push_str(&v.to_string());
                s.push_str("\n\n");
            }
            s.push_str("data: {\"jsonrpc\":\"2.0\",\"id\":1,\"res");
            s.into_bytes()
        }),
    ]
}

fn media() -> impl Strategy<Value = Option<String>> {
    prop_oneof![
        Just(None),
        Just(Some("application/json".to_string())),
        Just(Some("Application/JSON; charset=utf-8".to_string())),
        Just(Some("text/event-stream".to_string())),
        Just(Some("text/html".to_string())),
        Just(Some(";;".to_string())),
        "[ -~]{0,20}".prop_map(Some),
    ]
}

fn request() -> impl Strategy<Value = Option<Value>> {
    prop_oneof![
        Just(None),
        json_value().prop_map(Some),
        (json_value(), json_value()).prop_map(|(id, meta)| Some(json!({
            "jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "t", "task": {}, "_meta": meta}
        }))),
        Just(Some(
            json!({"jsonrpc": "2.0", "method": "notifications/initialized"})
        )),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, .. ProptestConfig::default() })]

    #[test]
    fn any_exchange_gets_a_verdict_per_revision(
        status in prop_oneof![Just(200u16), Just(202u16), Just(400u16), Just(404u16), 100u16..600],
        media in media(),
        body in body(),
        end in prop_oneof![Just(BodyEnd::Complete), Just(BodyEnd::Reset), Just(BodyEnd::Timeout)],
        req in request(),
        retry_after in prop::option::of("[ -~]{0,12}"),
        tool in prop::option::of(json_value()),
    ) {
        let mut headers = Headers::default();
        if let Some(m) = &media {
            headers.push("Content-Type", m.clone());
        }
        if let Some(r) = retry_after {
            headers.push("Retry-After", r);
        }
        let mut ex = Exchange::new(req, status, headers, body);
        ex.end = end;
        ex.tool = tool;
        let all: Vec<Protocol> = Protocol::all().collect();
        let j = judge_under(&ex, &all);
        prop_assert_eq!(j.verdicts.len(), all.len());
        for v in &j.verdicts {
            prop_assert!(v.decided_by.is_some(), "no rule decided: {:?}", v.notes);
            let _ = v.summary();
            let _ = mcp_verdict::views::VerdictOut::of(v);
        }
        let _ = j.differences();
    }
}
