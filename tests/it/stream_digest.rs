//! A stream notification that every judged revision's schema accepts is held as its digest
//! (`Analysis::judged`), not as its parsed value: the verdicts are the same as when every
//! message keeps its value (`Analysis::new`), for every fixture with an event-stream body,
//! under each revision alone and under both. A notification is first put to the schemas as
//! read onto a tape, without a `Value`: what is decided there, and the digest read there, are
//! what the parsed message gives.

use mcp_verdict::judge::evaluate;
use mcp_verdict::views::JudgementOut;
use mcp_verdict::wire::analysis::{Analysis, Candidate};
use mcp_verdict::wire::deep::on_stack_for;
use mcp_verdict::{Engine, ExchangeFile, Judgement, Protocol};

use crate::support::corpus::fixture_files;
use crate::support::judge::judge_under;

#[test]
fn verdicts_are_the_same_with_notifications_held_as_digests() {
    let sets: [&[Protocol]; 3] = [
        &[Protocol::V2025_11_25],
        &[Protocol::V2026_07_28],
        &[Protocol::V2025_11_25, Protocol::V2026_07_28],
    ];
    let (mut streams, mut digested, mut kept, mut on_tape) = (0, 0, 0, 0);
    for path in fixture_files() {
        let file = ExchangeFile::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let ex = file.to_exchange().unwrap();
        let whole = Analysis::new(&ex);
        let Some(stream) = whole.stream() else {
            continue;
        };
        streams += 1;
        assert!(stream.messages.iter().all(|m| m.digest.is_none()));
        for set in sets {
            let tapes = std::cell::Cell::new(0);
            let accepted = |method: &str, message: Candidate<'_, '_>| {
                let ok = set.iter().all(|&p| {
                    mcp_verdict::schema::for_revision(p).accepts_candidate(method, message)
                });
                if ok && matches!(message, Candidate::Tape(_)) {
                    tapes.set(tapes.get() + 1);
                }
                ok
            };
            // Nothing decided on a tape: every notification is parsed.
            let parsed_only = |method: &str, message: Candidate<'_, '_>| match message {
                Candidate::Tape(_) => false,
                Candidate::Value(v) => set
                    .iter()
                    .all(|&p| mcp_verdict::schema::for_revision(p).accepts(method, v)),
            };
            let judged = Analysis::judged(&ex, &accepted);
            on_tape += tapes.get();
            let parsed = Analysis::judged(&ex, &parsed_only);
            let (a, b) = (judged.stream().unwrap(), parsed.stream().unwrap());
            assert_eq!(a.messages.len(), b.messages.len());
            for (m, n) in a.messages.iter().zip(&b.messages) {
                match (&m.value, &m.digest) {
                    (None, Some(_)) => digested += 1,
                    (Some(_), None) => kept += 1,
                    _ => {}
                }
                assert_eq!(
                    (format!("{:?}", m.kind), &m.value, &m.digest),
                    (format!("{:?}", n.kind), &n.value, &n.digest),
                    "{} event {} under {set:?}",
                    path.display(),
                    m.event
                );
            }
            let by_value = on_stack_for(whole.nesting_depth(), || Judgement {
                verdicts: set
                    .iter()
                    .map(|&p| evaluate(&whole, p, Engine::builtin()))
                    .collect(),
            });
            let by_digest = judge_under(&ex, set);
            assert_eq!(
                serde_json::to_value(JudgementOut::of(&by_digest, None)).unwrap(),
                serde_json::to_value(JudgementOut::of(&by_value, None)).unwrap(),
                "{} under {set:?}",
                path.display()
            );
        }
    }
    // The comparison covers streams, notifications held as digests and notifications kept
    // whole because a schema refused them (or they are not notifications).
    eprintln!(
        "{streams} streams, {digested} digests ({on_tape} read on a tape), {kept} kept whole"
    );
    assert!(streams > 30, "only {streams} streams");
    assert!(digested > 30, "only {digested} digests");
    assert!(on_tape > 30, "only {on_tape} digests read on a tape");
    assert!(kept > 30, "only {kept} kept whole");
}

/// Pieces of a notification's text: each slot is filled from its list, so generated streams
/// hold numbers in every spelling, escaped names, wrong types, repeated and unexpected members.
const METHODS: &[&str] = &[
    r#""notifications/progress""#,
    r#""notifications/message""#,
    r#""notifications/progr\u0065ss""#,
    r#""notifications/no_such_method""#,
    "1",
];
const TOKENS: &[&str] = &[
    r#""p-1""#,
    "7",
    "7.0",
    "-0",
    "null",
    "{}",
    r#""\ud83d\ude00""#,
];
const NUMBERS: &[&str] = &[
    "1",
    "2.5",
    "1e2",
    "1E400",
    "-1",
    r#""1""#,
    "0.0000000000000000001",
    "123456789012345678901234567890",
];
const LEVELS: &[&str] = &[r#""info""#, r#""debug""#, r#""bogus""#, "3"];
const EXTRAS: &[&str] = &[
    "",
    "",
    r#","id":1"#,
    r#","extra":true"#,
    r#","params":{}"#,
    r#","result":{}"#,
    r#","jsonrpc":"2.0""#,
];

fn notification(
    m: usize,
    t: usize,
    p: usize,
    x: usize,
    l: usize,
    e: usize,
    spaced: bool,
) -> String {
    let params = if m.is_multiple_of(2) {
        format!(
            r#"{{"progressToken":{},"progress":{},"total":{},"message":"step \"{p}\""}}"#,
            TOKENS[t % TOKENS.len()],
            NUMBERS[p % NUMBERS.len()],
            NUMBERS[x % NUMBERS.len()],
        )
    } else {
        format!(
            r#"{{"level":{},"data":{{"n":{}}}}}"#,
            LEVELS[l % LEVELS.len()],
            NUMBERS[p % NUMBERS.len()],
        )
    };
    let text = format!(
        r#"{{"jsonrpc":"2.0","method":{},"params":{params}{}}}"#,
        METHODS[m % METHODS.len()],
        EXTRAS[e % EXTRAS.len()],
    );
    if spaced {
        text.replace(',', " ,\t").replace(':', ": ")
    } else {
        text
    }
}

/// The bundled stream fixture's exchange with its body replaced by `events` and a final result.
fn stream_exchange(events: &[String]) -> mcp_verdict::Exchange {
    let base = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/2026-07-28/request/mcp-method-missing.json");
    let mut doc: serde_json::Value = serde_json::from_slice(&std::fs::read(base).unwrap()).unwrap();
    doc["request"]["body"]["params"]["_meta"]["progressToken"] = "p-1".into();
    let mut body = String::new();
    for e in events {
        body.push_str("event: message\ndata: ");
        body.push_str(e);
        body.push_str("\n\n");
    }
    body.push_str(
        "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"resultType\":\"complete\",\"content\":[{\"type\":\"text\",\"text\":\"done\"}]}}\n\n",
    );
    let response = doc["response"].as_object_mut().unwrap();
    response.remove("body_json");
    response.insert("body".into(), body.into());
    response.insert(
        "headers".into(),
        serde_json::json!({"Content-Type": "text/event-stream"}),
    );
    let bytes = serde_json::to_vec(&doc).unwrap();
    ExchangeFile::from_slice(&bytes)
        .unwrap()
        .to_exchange()
        .unwrap()
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]

    /// Generated streams judged as `judge` reads them (notifications put to the schemas on a
    /// tape first) give the verdicts of the same streams with every message parsed and kept.
    #[test]
    fn generated_streams_get_the_verdicts_of_every_message_kept(
        parts in proptest::collection::vec(
            (0usize..64, 0usize..64, 0usize..64, 0usize..64, 0usize..64, 0usize..64, proptest::bool::ANY),
            1..6,
        ),
        set in 0usize..3,
    ) {
        let sets: [&[Protocol]; 3] = [
            &[Protocol::V2025_11_25],
            &[Protocol::V2026_07_28],
            &[Protocol::V2025_11_25, Protocol::V2026_07_28],
        ];
        let set = sets[set];
        let events: Vec<String> = parts
            .iter()
            .map(|&(m, t, p, x, l, e, s)| notification(m, t, p, x, l, e, s))
            .collect();
        let ex = stream_exchange(&events);
        let whole = Analysis::new(&ex);
        let by_value = Judgement {
            verdicts: set
                .iter()
                .map(|&p| evaluate(&whole, p, Engine::builtin()))
                .collect(),
        };
        let judged = judge_under(&ex, set);
        proptest::prop_assert_eq!(
            serde_json::to_value(JudgementOut::of(&judged, None)).unwrap(),
            serde_json::to_value(JudgementOut::of(&by_value, None)).unwrap(),
            "{:?}",
            events
        );
    }
}

/// The generated streams reach the tape path and the parsed path both.
#[test]
fn generated_streams_take_both_paths() {
    let set = [Protocol::V2025_11_25, Protocol::V2026_07_28];
    let (on_tape, parsed) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
    for i in 0..64 {
        let events: Vec<String> = (0..4)
            .map(|k| {
                notification(
                    i + k,
                    i * 3 + k,
                    i * 5,
                    i * 7,
                    i + 2 * k,
                    i * 11 + k,
                    i % 2 == 0,
                )
            })
            .collect();
        let ex = stream_exchange(&events);
        let accepted = |method: &str, message: Candidate<'_, '_>| {
            let ok = set
                .iter()
                .all(|&p| mcp_verdict::schema::for_revision(p).accepts_candidate(method, message));
            match message {
                Candidate::Tape(_) => on_tape.set(on_tape.get() + usize::from(ok)),
                Candidate::Value(_) => parsed.set(parsed.get() + 1),
            }
            ok
        };
        let _ = Analysis::judged(&ex, &accepted);
    }
    let (on_tape, parsed) = (on_tape.get(), parsed.get());
    assert!(
        on_tape > 20 && parsed > 20,
        "{on_tape} on a tape, {parsed} parsed"
    );
}
