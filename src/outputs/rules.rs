//! `rules`: the rule table as text, one line per rule, or one rule explained.

use std::fmt::Write as _;

use super::Style;
use crate::rules::{Rule, RuleTable};

/// Renders the rule list under a header row: one line per rule with its level, layer, effect
/// and revisions; a rule whose level or effect differs between revisions gets one more line per
/// difference, which repeats its id (every line stands alone for `grep`).
pub fn rule_list(table: &RuleTable, protocol: Option<crate::Protocol>, style: Style) -> String {
    let mut out = String::new();
    let row = |id: &str, level: &str, layer: &str, effect: &str, revs: &str| {
        format!("{id:<44} {level:<11} {layer:<12} {effect:<38} {revs}")
    };
    let _ = writeln!(
        out,
        "{}",
        style.bold(row("RULE", "LEVEL", "LAYER", "EFFECT", "REVISIONS").trim_end())
    );
    for r in table.rules() {
        // (level, effect) -> the revisions it holds under, in table order.
        let mut groups: Vec<(String, String, Vec<&str>)> = Vec::new();
        for &p in &r.revisions {
            if protocol.is_some_and(|want| want != p) {
                continue;
            }
            let Some(a) = table.active_rule(p, &r.id) else {
                continue;
            };
            let (level, effect) = (a.level.as_ref().to_string(), effect(a));
            match groups.iter_mut().find(|g| g.0 == level && g.1 == effect) {
                Some(g) => g.2.push(p.as_str()),
                None => groups.push((level, effect, vec![p.as_str()])),
            }
        }
        for (level, effect, revs) in &groups {
            // Padded first, then styled: escape codes take no column.
            let id = format!("{:<44}", r.id);
            let _ = writeln!(
                out,
                "{} {level:<11} {:<12} {effect:<38} {}",
                style.bold(&id),
                r.layer.as_ref(),
                style.dim(&revs.join(","))
            );
        }
    }
    out
}

/// What a trigger does under one revision: the outcome it decides, the severity of the
/// finding it makes, the default it applies.
fn effect(a: &crate::rules::Active) -> String {
    let mut parts = Vec::new();
    if let Some(o) = a.outcome {
        parts.push(o.as_str().to_string());
    }
    if let Some(s) = a.severity {
        parts.push(format!("finding:{s}"));
    }
    if let Some(d) = &a.default {
        parts.push(format!("default:{}", d.field));
    }
    if parts.is_empty() {
        "-".into()
    } else {
        parts.join("+")
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
