//! A JSON body is judged on its tape (`wire::tape`), its `Value` built only when a check asks
//! for one: the verdicts are the same as when the body is parsed on reading
//! (`Analysis::parsed`), for every fixture with a JSON body, under each revision alone and
//! under both, and for mutants of those bodies written compact and pretty (proptest). A
//! well-formed tool result is judged without its `Value` ever being built.

use std::sync::LazyLock;

use mcp_verdict::judge::evaluate;
use mcp_verdict::views::JudgementOut;
use mcp_verdict::wire::analysis::{Analysis, Body};
use mcp_verdict::wire::deep::on_stack_for;
use mcp_verdict::{Engine, Exchange, ExchangeFile, Judgement, Protocol};
use proptest::prelude::*;
use serde_json::Value;

use crate::support::corpus::fixture_files;
use crate::support::judge::judge_under;

const SETS: [&[Protocol]; 3] = [
    &[Protocol::V2025_11_25],
    &[Protocol::V2026_07_28],
    &[Protocol::V2025_11_25, Protocol::V2026_07_28],
];

/// The verdicts as published, judged on the tape (the library's `judge`) and on the parsed
/// body; and whether the tape path ended with the body's `Value` built.
fn both_ways(ex: &Exchange, set: &[Protocol]) -> (Value, Value, bool) {
    let on_tape = serde_json::to_value(JudgementOut::of(&judge_under(ex, set), None)).unwrap();
    let parsed = Analysis::parsed(ex);
    let by_value = on_stack_for(parsed.nesting_depth(), || Judgement {
        verdicts: set
            .iter()
            .map(|&p| evaluate(&parsed, p, Engine::builtin()))
            .collect(),
    });
    let by_value = serde_json::to_value(JudgementOut::of(&by_value, None)).unwrap();
    let taped = Analysis::new(ex);
    for &p in set {
        evaluate(&taped, p, Engine::builtin());
    }
    (on_tape, by_value, taped.value_built())
}

/// The fixtures whose body is one JSON document the tape reads.
static TAPED: LazyLock<Vec<(String, Exchange)>> = LazyLock::new(|| {
    let mut out = Vec::new();
    for path in fixture_files() {
        let file = ExchangeFile::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let ex = file.to_exchange().unwrap();
        let an = Analysis::new(&ex);
        if matches!(an.body, Body::Json) && !an.value_built() {
            drop(an);
            out.push((path.display().to_string(), ex));
        }
    }
    out
});

#[test]
fn verdicts_are_the_same_on_the_tape_and_on_the_parsed_body() {
    let (mut judged, mut never_built) = (0, 0);
    for (path, ex) in TAPED.iter() {
        for set in SETS {
            let (on_tape, by_value, built) = both_ways(ex, set);
            assert_eq!(on_tape, by_value, "{path} under {set:?}");
            judged += 1;
            never_built += usize::from(!built);
        }
    }
    eprintln!(
        "{judged} judgements of JSON bodies read on a tape, {never_built} never built a Value"
    );
    assert!(
        TAPED.len() > 100,
        "only {} JSON bodies on a tape",
        TAPED.len()
    );
    // Most fixtures are failures of one kind or another (whose schema errors are reported from
    // the parsed value); the successes and the semantic failures stay on the tape.
    assert!(
        never_built > 200,
        "only {never_built} judgements stayed on the tape"
    );
}

/// A conformant tool result, and an `isError` one, are judged under either revision without
/// their `Value`.
#[test]
fn a_well_formed_tool_result_never_builds_its_value() {
    let request = serde_json::json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "echo", "arguments": {}}});
    for (body, protocol) in [
        (
            r#"{"jsonrpc":"2.0","id":7,"result":{"resultType":"complete","content":[{"type":"text","text":"{\"n\":1.0}"}],"structuredContent":{"n":1.0},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"s","version":"1"}}}}"#,
            Protocol::V2026_07_28,
        ),
        (
            r#"{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"boom"}],"isError":true}}"#,
            Protocol::V2025_11_25,
        ),
    ] {
        let mut headers = mcp_verdict::Headers::default();
        headers.push("Content-Type", "application/json");
        let ex = Exchange::builder(200, headers, body)
            .request(request.clone())
            .build();
        let an = Analysis::new(&ex);
        let v = evaluate(&an, protocol, Engine::builtin());
        assert!(
            !an.value_built(),
            "{body} under {protocol:?} built its Value"
        );
        // And the verdict is the parsed body's.
        let parsed = Analysis::parsed(&ex);
        let w = evaluate(&parsed, protocol, Engine::builtin());
        assert_eq!(
            serde_json::to_value(JudgementOut::of(&Judgement { verdicts: vec![v] }, None)).unwrap(),
            serde_json::to_value(JudgementOut::of(&Judgement { verdicts: vec![w] }, None)).unwrap()
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Mutants of the fixtures' bodies (members replaced, removed or added), written compact
    /// or pretty, are judged alike on the tape and parsed.
    #[test]
    fn mutated_bodies_are_judged_alike(
        pick in any::<usize>(),
        steps in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<usize>()), 0..4),
        pretty in any::<bool>(),
        set in 0..SETS.len(),
    ) {
        let (path, ex) = &TAPED[pick % TAPED.len()];
        // A stdio exchange's response is a line of its output, not a body to mutate.
        prop_assume!(ex.stdio.is_none());
        let mut v: Value = serde_json::from_slice(&ex.body).unwrap();
        for (at, op, with) in steps {
            crate::fast_schema::mutate(&mut v, at, op, with);
        }
        let mut ex = ex.clone();
        ex.body = if pretty {
            serde_json::to_vec_pretty(&v).unwrap()
        } else {
            serde_json::to_vec(&v).unwrap()
        };
        let (on_tape, by_value, _) = both_ways(&ex, SETS[set]);
        prop_assert_eq!(on_tape, by_value, "a mutant of {}: {}", path, v);
    }
}

/// Findings about an object's members come in the order the parsed object keeps them (its
/// keys sorted), not in the document's order, on the tape as parsed.
#[test]
fn findings_on_members_keep_the_parsed_order() {
    let request = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "echo", "arguments": {}}});
    let body =
        r#"{"jsonrpc":"2.0","id":1,"result":{"content":[],"_meta":{"z-":1,"ok":2,"-a":3,"m.":4}}}"#;
    let mut headers = mcp_verdict::Headers::default();
    headers.push("Content-Type", "application/json");
    let ex = Exchange::builder(200, headers, body)
        .request(request)
        .build();
    let (on_tape, by_value, built) = both_ways(&ex, &[Protocol::V2025_11_25]);
    assert!(!built, "judged on the tape");
    assert_eq!(on_tape, by_value);
    let pointers: Vec<&str> = on_tape["verdicts"][0]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["rule"] == "base.meta.key-format")
        .map(|f| f["pointer"].as_str().unwrap())
        .collect();
    assert_eq!(
        pointers,
        ["/result/_meta/-a", "/result/_meta/m.", "/result/_meta/z-"]
    );
}
