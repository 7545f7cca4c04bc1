//! Every exchange under `tests/fixtures/` is judged under each revision it names, and the
//! verdict must match its `expect` block: the outcome, every listed rule cited or found, and
//! none of the `absent` rules found.

use std::path::PathBuf;

use mcp_verdict::{Engine, ExchangeFile, Protocol, judge};
use rstest::rstest;

use crate::support::judge::judge_under;

fn revisions(file: &ExchangeFile, ex: &mcp_verdict::Exchange) -> Vec<Protocol> {
    judge::revisions_of(ex)
        .unwrap_or_else(|e| panic!("{}: {e}", file.name.clone().unwrap_or_default()))
}

#[rstest]
fn fixture_matches_its_expectation(#[files("tests/fixtures/**/*.json")] path: PathBuf) {
    let bytes = std::fs::read(&path).unwrap();
    let file =
        ExchangeFile::from_slice(&bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let ex = file
        .to_exchange()
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(
        file.unknown_expect_keys().is_empty(),
        "{}: unknown expect keys",
        path.display()
    );
    let table = Engine::builtin().table();
    let revs = revisions(&file, &ex);
    let judgement = judge_under(&ex, &revs);
    let mut problems = Vec::new();
    for v in &judgement.verdicts {
        let Some(e) = file.expectation(v.protocol) else {
            problems.push(format!("{}: no expectation", v.protocol));
            continue;
        };
        if v.outcome != e.outcome {
            problems.push(format!(
                "{}: outcome {} but expected {} ({})",
                v.protocol,
                v.outcome,
                e.outcome,
                v.summary()
            ));
        }
        for r in &e.rules {
            assert!(
                table.rule(r).is_some(),
                "{}: unknown rule id {r}",
                path.display()
            );
            if !v.mentions(r) {
                problems.push(format!("{}: rule {r} neither cited nor found", v.protocol));
            }
        }
        for r in &e.absent {
            if v.findings.iter().any(|f| &f.rule.id == r) {
                problems.push(format!(
                    "{}: rule {r} found but expected absent",
                    v.protocol
                ));
            }
        }
    }
    if !problems.is_empty() {
        let out =
            serde_json::to_string_pretty(&mcp_verdict::views::JudgementOut::of(&judgement, None))
                .unwrap();
        panic!("{}:\n  {}\n{out}", path.display(), problems.join("\n  "));
    }
}
