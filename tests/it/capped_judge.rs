//! Capping as the checks run (`judge_capped`) gives the judgement that judging and then
//! capping (`Judgement::cap_findings`) gives: the same findings kept, the same counts left
//! out, for every fixture under each revision and both, at several caps.

use mcp_verdict::views::JudgementOut;
use mcp_verdict::{Engine, ExchangeFile, Judgement, Options, Protocol, judge_capped};

use crate::support::corpus::fixture_files;
use crate::support::judge::judge_under;
use crate::support::recording::progress_without_token;

fn view(j: &Judgement<'_>) -> serde_json::Value {
    serde_json::to_value(JudgementOut::of(j, None)).unwrap()
}

/// Compares the two ways for one exchange; returns how many findings the cap left out.
fn compare(ex: &mcp_verdict::Exchange, set: &[Protocol], cap: usize, what: &str) -> usize {
    let mut after = judge_under(ex, set);
    after.cap_findings(cap);
    let options = Options {
        protocols: Some(set),
        engine: Engine::builtin(),
    };
    let during = judge_capped(ex, &options, cap).unwrap();
    assert_eq!(
        view(&during),
        view(&after),
        "{what} under {set:?}, cap {cap}"
    );
    during.verdicts.iter().map(|v| v.omitted_count()).sum()
}

#[test]
fn capping_as_judged_is_capping_after() {
    let sets: [&[Protocol]; 3] = [
        &[Protocol::V2025_11_25],
        &[Protocol::V2026_07_28],
        &[Protocol::V2025_11_25, Protocol::V2026_07_28],
    ];
    let mut left_out = 0;
    for path in fixture_files() {
        let file = ExchangeFile::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let ex = file.to_exchange().unwrap();
        for set in sets {
            for cap in [0, 1, 2, 3, 100] {
                left_out += compare(&ex, set, cap, &path.display().to_string());
            }
        }
    }
    assert!(left_out > 100, "the caps left out only {left_out} findings");
}

#[test]
fn a_finding_at_every_event_is_counted_past_the_cap() {
    let ex = ExchangeFile::from_slice(progress_without_token(500).as_bytes())
        .unwrap()
        .to_exchange()
        .unwrap();
    let set = [Protocol::V2025_11_25];
    assert!(compare(&ex, &set, 100, "500 progress events") >= 400);
    assert_eq!(compare(&ex, &set, 0, "500 progress events"), 0);
}
