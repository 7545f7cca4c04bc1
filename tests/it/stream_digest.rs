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
                set.iter().all(|&p| {
                    let schemas = mcp_verdict::schema::for_revision(p);
                    match message {
                        Candidate::Tape(t) => schemas.accepts_tape(method, t),
                        Candidate::Value(v) => schemas.accepts(method, v),
                    }
                }) && {
                    tapes.set(tapes.get() + usize::from(matches!(message, Candidate::Tape(_))));
                    true
                }
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
