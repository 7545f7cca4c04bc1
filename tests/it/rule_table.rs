//! The rule table's own guarantees: it loads, every check in code is used by a rule, every rule
//! has a fixture that triggers it (and says so in its `expect`) and one that satisfies it, and
//! loading rejects broken tables with the file, line and column.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use mcp_verdict::judge::EvalStatus;
use mcp_verdict::{Engine, ExchangeFile, Protocol};

use crate::support::corpus::fixture_files;
use crate::support::judge::judge_under;

#[test]
fn every_check_is_referenced_by_a_rule() {
    let table = Engine::builtin().table();
    let used: BTreeSet<&str> = table.rules().iter().map(|r| r.check).collect();
    let unused: Vec<&str> = mcp_verdict::judge::checks()
        .iter()
        .map(|c| c.name)
        .filter(|n| !used.contains(n))
        .collect();
    assert!(unused.is_empty(), "checks no rule runs: {unused:?}");
}

#[test]
fn every_rule_has_a_triggering_and_a_satisfying_fixture() {
    let table = Engine::builtin().table();
    // (revision, rule) -> (fixtures that trigger it and expect it, fixtures that satisfy it)
    let mut seen: BTreeMap<(Protocol, String), (Vec<String>, Vec<String>)> = BTreeMap::new();
    for path in fixture_files() {
        let file = ExchangeFile::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let ex = file.to_exchange().unwrap();
        let revs = mcp_verdict::judge::revisions_of(&ex).unwrap();
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
    let mut sources: Vec<(String, String)> = vec![
        (
            "revisions.toml".into(),
            include_str!("../../rules/revisions.toml").into(),
        ),
        (
            "bands.toml".into(),
            include_str!("../../rules/bands.toml").into(),
        ),
    ];
    sources.extend(files.iter().map(|(n, t)| (n.to_string(), t.to_string())));
    Engine::from_sources(&sources).unwrap_err()
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
precedence = { band = "transport", rank = 1 }
[rule.cite]
page = "basic"
quote = "q"
"#;

#[test]
fn a_minimal_table_loads() {
    let mut sources = vec![
        (
            "revisions.toml".to_string(),
            include_str!("../../rules/revisions.toml").to_string(),
        ),
        (
            "bands.toml".to_string(),
            include_str!("../../rules/bands.toml").to_string(),
        ),
    ];
    sources.push(("x.toml".into(), GOOD.into()));
    let engine = Engine::from_sources(&sources).unwrap();
    let t = engine.table();
    assert_eq!(t.rules().len(), 1);
    assert_eq!(
        t.active(Protocol::V2026_07_28)[0].cite.url,
        "https://modelcontextprotocol.io/specification/2026-07-28/basic"
    );
}

#[test]
fn loading_rejects_an_unknown_check_with_its_position() {
    let e = load_err(&[("x.toml", &GOOD.replace("status_not_2xx", "no_such_check"))]);
    assert_eq!(e.file, "x.toml");
    assert_eq!(e.line, Some(11));
    assert!(e.column.is_some());
    assert!(e.message.contains("unknown check `no_such_check`"), "{e}");
}

#[test]
fn loading_rejects_a_duplicate_id() {
    let twice = format!("{GOOD}\n{GOOD}");
    let e = load_err(&[("x.toml", &twice)]);
    assert_eq!(e.file, "x.toml");
    assert_eq!(e.line, Some(20));
    assert!(
        e.message
            .contains("duplicate rule id `x.one` (first defined at x.toml:3)"),
        "{e}"
    );
}

#[test]
fn loading_rejects_a_rule_outside_the_file_its_id_names() {
    let e = load_err(&[("other.toml", GOOD)]);
    assert_eq!(e.file, "other.toml");
    assert_eq!(e.line, Some(3));
    assert!(
        e.message
            .contains("belongs in a file named by a prefix of its id, e.g. `x.toml`"),
        "{e}"
    );
    let e = load_err(&[("x.toml", GOOD), ("x/one.toml", "")]);
    assert!(e.message.contains("belongs in `x/one.toml`"), "{e}");
}

#[test]
fn loading_rejects_precedence_ties_unknown_bands_and_numbers() {
    let second = GOOD.replace("x.one", "x.two");
    let e = load_err(&[("x.toml", &format!("{GOOD}\n{second}"))]);
    assert!(
        e.message
            .contains("same precedence under 2026-07-28 as `x.one` (transport 1)"),
        "{e}"
    );
    let e = load_err(&[(
        "x.toml",
        &GOOD.replace("band = \"transport\"", "band = \"nowhere\""),
    )]);
    assert!(
        e.message.contains("unknown precedence band `nowhere`"),
        "{e}"
    );
    let e = load_err(&[(
        "x.toml",
        &GOOD.replace(
            "precedence = { band = \"transport\", rank = 1 }",
            "precedence = 10",
        ),
    )]);
    assert!(e.message.contains("precedence is a band and a rank"), "{e}");
}

#[test]
fn loading_rejects_advice_citing_what_is_not_in_the_table() {
    let advice = "[[advice]]\noutcome = \"HTTP_ERROR\"\naction = \"do_not_retry\"\ndetail = \"d\"\ncite = [\"x.nothing\"]\n";
    let e = load_err(&[("x.toml", GOOD), ("advice.toml", advice)]);
    assert_eq!(e.file, "advice.toml");
    assert!(e.message.contains("advice cites `x.nothing`"), "{e}");
    let partial =
        "[[advice]]\noutcome = \"HTTP_ERROR\"\naction = \"do_not_retry\"\ndetail = \"d\"\n";
    let e = load_err(&[("x.toml", GOOD), ("advice.toml", partial)]);
    assert!(
        e.message
            .contains("no [[advice]] entry without conditions covers"),
        "{e}"
    );
}

#[test]
fn the_built_in_table_and_the_same_directory_agree_in_order() {
    let dir = Engine::from_dir(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/rules"))).unwrap();
    let ids =
        |t: &mcp_verdict::RuleTable| t.rules().iter().map(|r| r.id.clone()).collect::<Vec<_>>();
    assert_eq!(ids(dir.table()), ids(Engine::builtin().table()));
}

#[test]
fn loading_rejects_an_unknown_revision() {
    let e = load_err(&[(
        "x.toml",
        &GOOD.replace("[\"2026-07-28\"]", "[\"2026-07-28\", \"2024-11-05\"]"),
    )]);
    assert_eq!(e.line, Some(7));
    assert!(e.message.contains("unknown revision `2024-11-05`"), "{e}");
}

#[test]
fn loading_rejects_an_unknown_level() {
    let e = load_err(&[(
        "x.toml",
        &GOOD.replace("level = \"MUST\"", "level = \"OUGHT\""),
    )]);
    assert_eq!(e.line, Some(8));
    assert!(e.message.contains("unknown level `OUGHT`"), "{e}");
    assert!(e.message.contains("`SHOULD NOT`"), "{e}");
}

#[test]
fn loading_rejects_syntax_errors_and_unknown_fields() {
    let e = load_err(&[(
        "x.toml",
        &GOOD.replace("title = \"t\"", "title = \"t\"\ntypo = 1"),
    )]);
    assert_eq!(e.line, Some(5));
    assert!(e.message.contains("typo"), "{e}");
    let e = load_err(&[("x.toml", "[[rule]\nid = ")]);
    assert_eq!(e.file, "x.toml");
    assert_eq!(e.line, Some(1));
}

#[test]
fn loading_rejects_bad_params() {
    let extra = GOOD.replace("check = \"status_not_2xx\"", "check = \"status_pairing\"");
    let e = load_err(&[("x.toml", &extra)]);
    assert!(e.message.contains("needs parameter `code`"), "{e}");
    let with = format!("{GOOD}[rule.params]\ncode = 1\n");
    let e = load_err(&[("x.toml", &with)]);
    assert!(e.message.contains("takes no parameter `code`"), "{e}");
}

#[test]
fn loading_rejects_an_outcome_without_precedence_and_a_rule_without_effect() {
    let e = load_err(&[(
        "x.toml",
        &GOOD.replace("precedence = { band = \"transport\", rank = 1 }\n", ""),
    )]);
    assert!(e.message.contains("no `precedence`"), "{e}");
    let e = load_err(&[(
        "x.toml",
        &GOOD.replace(
            "outcome = \"HTTP_ERROR\"\nprecedence = { band = \"transport\", rank = 1 }\n",
            "",
        ),
    )]);
    assert!(e.message.contains("has no effect"), "{e}");
}

#[test]
fn the_shipped_rule_files_load_from_a_directory() {
    let engine =
        Engine::from_dir(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/rules"))).unwrap();
    let t = engine.table();
    assert_eq!(t.rules().len(), Engine::builtin().table().rules().len());
}

#[test]
fn error_code_constants_are_the_codes_the_revision_profiles_name() {
    use mcp_verdict::vocab::protocol::code;
    let table = Engine::builtin().table();
    for c in [
        code::PARSE_ERROR,
        code::INVALID_REQUEST,
        code::METHOD_NOT_FOUND,
        code::INVALID_PARAMS,
        code::INTERNAL_ERROR,
        code::RESOURCE_NOT_FOUND,
        code::HEADER_MISMATCH,
        code::MISSING_REQUIRED_CLIENT_CAPABILITY,
        code::UNSUPPORTED_PROTOCOL_VERSION,
        code::URL_ELICITATION_REQUIRED,
    ] {
        assert!(
            Protocol::all().any(|p| table.profile(p).error_codes.contains_key(&c)),
            "{c} is not named by any revision profile (rules/revisions.toml)"
        );
    }
}

#[test]
fn the_rule_list_shows_level_and_effect_per_revision() {
    let both =
        GOOD.replace(
            "revisions = [\"2026-07-28\"]",
            "revisions = [\"2025-11-25\", \"2026-07-28\"]",
        )
        .replace(
            "outcome = \"HTTP_ERROR\"\n",
            "outcome = \"HTTP_ERROR\"\nseverity = \"error\"\n",
        ) + "[rule.revision.\"2025-11-25\"]\nlevel = \"SHOULD\"\nseverity = \"warning\"\n";
    let mut sources = vec![
        (
            "revisions.toml".to_string(),
            include_str!("../../rules/revisions.toml").to_string(),
        ),
        (
            "bands.toml".to_string(),
            include_str!("../../rules/bands.toml").to_string(),
        ),
    ];
    sources.push(("x.toml".into(), both));
    let engine = Engine::from_sources(&sources).unwrap();
    let text = mcp_verdict::outputs::rules::rule_list(engine.table(), None, Default::default());
    // A header row, then one line per revision.
    let lines: Vec<&str> = text.lines().skip(1).collect();
    assert!(text.starts_with("RULE "), "{text}");
    assert_eq!(lines.len(), 2, "{text}");
    assert!(
        lines[0].starts_with("x.one") && lines[0].contains("SHOULD"),
        "{text}"
    );
    assert!(lines[0].contains("HTTP_ERROR+finding:warning") && lines[0].ends_with("2025-11-25"));
    assert!(
        lines[1].starts_with("x.one") && lines[1].contains("MUST"),
        "{text}"
    );
    assert!(lines[1].contains("HTTP_ERROR+finding:error") && lines[1].ends_with("2026-07-28"));
    let only = mcp_verdict::outputs::rules::rule_list(
        engine.table(),
        Some(Protocol::V2026_07_28),
        Default::default(),
    );
    assert_eq!(only.lines().count(), 2, "a header row and one line: {only}");
    assert!(only.contains("MUST") && !only.contains("SHOULD"), "{only}");
}
