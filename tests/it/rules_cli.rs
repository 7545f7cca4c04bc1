//! `rules` as a table people and `grep` read, suggestions for a rule id that is not one, and
//! shell completions that offer revisions, rule ids and scenario names.

use crate::support::cli::{bin, run};

fn out(args: &[&str]) -> (i32, String, String) {
    let o = run(bin().args(args), None);
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn the_rule_list_has_a_header_and_an_id_on_every_line() {
    let (code, stdout, _) = out(&["rules"]);
    assert_eq!(code, 0);
    let mut lines = stdout.lines();
    let header: Vec<&str> = lines.next().unwrap().split_whitespace().collect();
    assert_eq!(header, ["RULE", "LEVEL", "LAYER", "EFFECT", "REVISIONS"]);
    let table = mcp_verdict::Engine::builtin().table();
    for line in lines {
        let id = line.split_whitespace().next().unwrap_or_default();
        assert!(
            table.rule(id).is_some(),
            "a line without a rule id: {line:?}"
        );
    }
}

#[test]
fn an_unknown_rule_id_gets_the_closest_or_the_rules_under_it() {
    let (code, _, stderr) = out(&["rules", "transport.sse.final-respons"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("(did you mean `transport.sse.final-response`?)"),
        "{stderr}"
    );
    let (_, _, stderr) = out(&["rules", "transport.sse"]);
    assert!(
        stderr.contains("rules start with it: transport.sse."),
        "{stderr}"
    );
    let (_, _, stderr) = out(&["rules", "nothing.like.it.at.all"]);
    assert!(!stderr.contains("did you mean"), "{stderr}");
}

#[test]
fn completions_offer_revisions_rule_ids_and_scenarios() {
    let (code, fish, _) = out(&["completions", "fish"]);
    assert_eq!(code, 0);
    // One `complete` command per option; its values may span lines.
    let commands: Vec<&str> = fish.split("complete -c ").collect();
    let offers = |sub: &str, flag: &str, value: &str| {
        commands.iter().any(|c| {
            c.contains(&format!("using_subcommand {sub}\""))
                && c.contains(&format!(" -l {flag} "))
                && c.contains(value)
        })
    };
    assert!(offers("classify", "protocol", "2026-07-28"));
    assert!(offers("classify", "protocol", "all"));
    assert!(offers("check", "ignore", "transport.sse.final-response"));
    assert!(offers("serve", "scenario", "sse_close_early"));
    // fish completes options only; zsh completes `rules ID` too.
    let (_, zsh, _) = out(&["completions", "zsh"]);
    assert!(
        zsh.lines()
            .any(|l| l.starts_with("'::id -- ") && l.contains(" base.result-type.required ")),
        "rules ID completes rule ids"
    );
}
