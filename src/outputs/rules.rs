//! `rules`: the rule table as text, one line per rule, or one rule explained.

use std::fmt::Write as _;

use super::Style;
use crate::rules::{Rule, RuleTable};

/// Renders the rule list (one line per rule).
pub fn rule_list(table: &RuleTable, protocol: Option<crate::Protocol>, style: Style) -> String {
    let mut out = String::new();
    for r in table.rules() {
        if let Some(p) = protocol
            && !r.revisions.contains(&p)
        {
            continue;
        }
        let revs: Vec<&str> = r.revisions.iter().map(|p| p.as_str()).collect();
        let first = table
            .active_rule(*r.revisions.first().expect("rules list revisions"), &r.id)
            .expect("listed revisions are active");
        let effect = effect(first);
        let _ = writeln!(
            out,
            "{:<44} {:<11} {:<12} {:<24} {}",
            style.bold(&r.id),
            first.level.as_ref(),
            r.layer.as_ref(),
            effect,
            style.dim(&revs.join(","))
        );
    }
    out
}

fn effect(a: &crate::rules::Active) -> String {
    match (&a.outcome, a.severity, &a.default) {
        (Some(o), _, _) => o.as_str().to_string(),
        (None, Some(s), _) => format!("finding:{s}"),
        (None, None, Some(d)) => format!("default:{}", d.field),
        _ => "-".into(),
    }
}

/// Explains one rule, like `ruff rule`: what, why, effect and citation per revision, example.
pub fn rule_explain(table: &RuleTable, rule: &Rule, style: Style) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}  {}", style.bold(&rule.id), rule.title);
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", style.bold("What it checks"));
    let _ = writeln!(out, "  {}", rule.summary);
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", style.bold("Why it matters"));
    for line in rule.why.lines() {
        let _ = writeln!(out, "  {line}");
    }
    let _ = writeln!(out);
    let _ = writeln!(
        out,
        "{}  actor: {}   layer: {}   check: {} ({})",
        style.bold("Applies"),
        rule.actor,
        rule.layer,
        rule.check,
        crate::judge::check_doc(rule.check).unwrap_or("")
    );
    for p in &rule.revisions {
        let Some(a) = table.active_rule(*p, &rule.id) else {
            continue;
        };
        let _ = writeln!(out);
        let mut effects = Vec::new();
        if let Some(o) = a.outcome {
            effects.push(match a.precedence {
                Some(p) => format!("outcome {o} (precedence {})", table.precedence_label(p)),
                None => format!("outcome {o}"),
            });
        }
        if let Some(s) = a.severity {
            effects.push(format!("finding ({s})"));
        }
        if let Some(d) = &a.default {
            effects.push(format!("default {} = {}", d.field, d.value));
        }
        let _ = writeln!(
            out,
            "{}  level {}; {}",
            style.bold(p.as_str()),
            a.level,
            effects.join("; ")
        );
        let _ = writeln!(out, "  {}", a.cite.url);
        let _ = writeln!(out, "  \u{201c}{}\u{201d}", a.cite.quote);
    }
    if let Some(ex) = &rule.example {
        let _ = writeln!(out);
        let _ = writeln!(out, "{}", style.bold("Example"));
        for line in ex.lines() {
            let _ = writeln!(out, "  {line}");
        }
    }
    let _ = writeln!(out);
    let _ = writeln!(out, "{}", style.dim(&format!("defined at {}", rule.source)));
    out
}
