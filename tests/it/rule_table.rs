//! The rule table's own guarantees: it loads, every check in code is used by a rule, every rule
//! has a fixture that triggers it (and says so in its `expect`) and one that satisfies it, and
//! loading rejects broken tables with the file, line and column.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use mcp_verdict::engine::EvalStatus;
use mcp_verdict::{ExchangeFile, Protocol, RuleTable, checks, engine};

use crate::support::corpus::fixture_files;
use crate::support::judge::judge_under;

#[test]
fn every_check_is_referenced_by_a_rule() {
    let table = RuleTable::builtin();
    let used: BTreeSet<&str> = table.rules().iter().map(|r| r.check.name).collect();
    let unused: Vec<&str> = checks::REGISTRY
        .iter()
        .map(|c| c.name)
        .filter(|n| !used.contains(n))
        .collect();
    assert!(unused.is_empty(), "checks no rule runs: {unused:?}");
}

#[test]
fn every_rule_has_a_triggering_and_a_satisfying_fixture() {
    let table = RuleTable::builtin();
    // (revision, rule) -> (fixtures that trigger it and expect it, fixtures that satisfy it)
    let mut seen: BTreeMap<(Protocol, String), (Vec<String>, Vec<String>)> = BTreeMap::new();
    for path in fixture_files() {
        let file = ExchangeFile::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let ex = file.to_exchange().unwrap();
        let revs = engine::revisions_of(&ex).unwrap();
        let j = judge_under(&ex, &revs);
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        for v in &j.verdicts {
            let expected: BTreeSet<&str> = file
                .expectation(v.protocol)
                .map(|e| e.rules.iter().map(String::as_str).collect())
                .unwrap_or_default();
            let actives = table.active(v.protocol);
            assert_eq!(
                v.evaluations.len(),
                actives.len(),
                "one status per active rule"
            );
            for (status, active) in v.evaluations.iter().zip(actives) {
                let id = table.rule_of(active).id.clone();
                let entry = seen.entry((v.protocol, id.clone())).or_default();
                match status {
                    EvalStatus::Triggered if expected.contains(id.as_str()) => {
                        entry.0.push(name.clone())
                    }
                    EvalStatus::Passed => entry.1.push(name.clone()),
                    _ => {}
                }
            }
        }
    }
    let mut gaps = Vec::new();
    for p in Protocol::all() {
        for a in table.active(p) {
            let id = &table.rule_of(a).id;
            let (trig, pass) = seen.get(&(p, id.clone())).cloned().unwrap_or_default();
            if trig.is_empty() {
                gaps.push(format!(
                    "{p} {id}: no fixture triggers it (and lists it in expect.rules)"
                ));
            }
            if pass.is_empty() {
                gaps.push(format!("{p} {id}: no fixture satisfies it"));
            }
        }
    }
    assert!(
        gaps.is_empty(),
        "rule coverage gaps:\n  {}",
        gaps.join("\n  ")
    );
}

fn load_err(files: &[(&str, &str)]) -> mcp_verdict::rules::LoadError {
    let mut sources: Vec<(String, String)> = vec![(
        "revisions.toml".into(),
        include_str!("../../rules/revisions.toml").into(),
    )];
    sources.extend(files.iter().map(|(n, t)| (n.to_string(), t.to_string())));
    RuleTable::from_sources(&sources).unwrap_err()
}

const GOOD: &str = r#"
[[rule]]
id = "x.one"
title = "t"
summary = "s"
why = "w"
revisions = ["2026-07-28"]
level = "MUST"
actor = "server"
layer = "transport"
check = "status_not_2xx"
outcome = "HTTP_ERROR"
precedence = 10
[rule.cite]
page = "basic"
quote = "q"
"#;

#[test]
fn a_minimal_table_loads() {
    let mut sources = vec![(
        "revisions.toml".to_string(),
        include_str!("../../rules/revisions.toml").to_string(),
    )];
    sources.push(("one.toml".into(), GOOD.into()));
    let t = RuleTable::from_sources(&sources).unwrap();
    assert_eq!(t.rules().len(), 1);
    assert_eq!(
        t.active(Protocol::V2026_07_28)[0].cite.url,
        "https://modelcontextprotocol.io/specification/2026-07-28/basic"
    );
}

#[test]
fn loading_rejects_an_unknown_check_with_its_position() {
    let e = load_err(&[("bad.toml", &GOOD.replace("status_not_2xx", "no_such_check"))]);
    assert_eq!(e.file, "bad.toml");
    assert_eq!(e.line, Some(11));
    assert!(e.column.is_some());
    assert!(e.message.contains("unknown check `no_such_check`"), "{e}");
}

#[test]
fn loading_rejects_a_duplicate_id() {
    let e = load_err(&[("a.toml", GOOD), ("b.toml", GOOD)]);
    assert_eq!(e.file, "b.toml");
    assert_eq!(e.line, Some(3));
    assert!(
        e.message
            .contains("duplicate rule id `x.one` (first defined at a.toml:3)"),
        "{e}"
    );
}

#[test]
fn loading_rejects_an_unknown_revision() {
    let e = load_err(&[(
        "bad.toml",
        &GOOD.replace("[\"2026-07-28\"]", "[\"2026-07-28\", \"2024-11-05\"]"),
    )]);
    assert_eq!(e.line, Some(7));
    assert!(e.message.contains("unknown revision `2024-11-05`"), "{e}");
}

#[test]
fn loading_rejects_an_unknown_level() {
    let e = load_err(&[(
        "bad.toml",
        &GOOD.replace("level = \"MUST\"", "level = \"OUGHT\""),
    )]);
    assert_eq!(e.line, Some(8));
    assert!(e.message.contains("unknown level `OUGHT`"), "{e}");
    assert!(e.message.contains("`SHOULD NOT`"), "{e}");
}

#[test]
fn loading_rejects_syntax_errors_and_unknown_fields() {
    let e = load_err(&[(
        "bad.toml",
        &GOOD.replace("title = \"t\"", "title = \"t\"\ntypo = 1"),
    )]);
    assert_eq!(e.line, Some(5));
    assert!(e.message.contains("typo"), "{e}");
    let e = load_err(&[("bad.toml", "[[rule]\nid = ")]);
    assert_eq!(e.file, "bad.toml");
    assert_eq!(e.line, Some(1));
}

#[test]
fn loading_rejects_bad_params() {
    let extra = GOOD.replace("check = \"status_not_2xx\"", "check = \"status_pairing\"");
    let e = load_err(&[("bad.toml", &extra)]);
    assert!(e.message.contains("needs parameter `code`"), "{e}");
    let with = format!("{GOOD}[rule.params]\ncode = 1\n");
    let e = load_err(&[("bad.toml", &with)]);
    assert!(e.message.contains("takes no parameter `code`"), "{e}");
}

#[test]
fn loading_rejects_an_outcome_without_precedence_and_a_rule_without_effect() {
    let e = load_err(&[("bad.toml", &GOOD.replace("precedence = 10\n", ""))]);
    assert!(e.message.contains("no `precedence`"), "{e}");
    let e = load_err(&[(
        "bad.toml",
        &GOOD.replace("outcome = \"HTTP_ERROR\"\nprecedence = 10\n", ""),
    )]);
    assert!(e.message.contains("has no effect"), "{e}");
}

#[test]
fn the_shipped_rule_files_load_from_a_directory() {
    let t = RuleTable::from_dir(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/rules"))).unwrap();
    assert_eq!(t.rules().len(), RuleTable::builtin().rules().len());
}
