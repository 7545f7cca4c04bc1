//! `classify`: a judgement as text for people.

use std::fmt::Write as _;

use super::Style;
use super::safe::text as esc;
use crate::judge::{Judgement, Verdict};
use crate::views::redact;

/// Renders a judgement: one block per revision, then what differs. Every string that came
/// from the exchange (and the label, a file name) is escaped ([`super::safe`]), and what the
/// server wrote is redacted ([`redact`]).
pub fn judgement(j: &Judgement<'_>, label: &str, style: Style) -> String {
    let mut out = String::new();
    let label = &*esc(label);
    let _ = writeln!(out, "{}", style.bold(label));
    for v in &j.verdicts {
        verdict(&mut out, v, label, style);
    }
    let diffs = j.differences();
    if !diffs.is_empty() {
        let _ = writeln!(out, "  {}", style.bold("differences between revisions"));
        for d in diffs {
            let vals: Vec<String> = d
                .values
                .iter()
                .map(|(k, v)| format!("{k}: {}", esc(v)))
                .collect();
            let _ = writeln!(out, "    {:<40} {}", esc(&d.aspect), vals.join("   "));
        }
    }
    out
}

fn verdict(out: &mut String, v: &Verdict<'_>, label: &str, style: Style) {
    let _ = writeln!(
        out,
        "  {}  {}  {}",
        style.bold(v.protocol.as_str()),
        style.outcome(v),
        style.dim(&format!("[{} layer]", v.layer()))
    );
    let _ = writeln!(out, "    {}", esc(&redact::text(&v.summary())));
    let table = v.table();
    let mut cite = |kind: &str, a: &crate::rules::Active| {
        let r = table.rule_of(a);
        let _ = writeln!(
            out,
            "    {:<10} {} {}",
            kind,
            style.bold(&r.id),
            style.dim(&format!("({})", a.level))
        );
        let _ = writeln!(out, "    {:<10} {}", "", a.cite.url);
        let _ = writeln!(
            out,
            "    {:<10} {}",
            "",
            style.dim(&format!("\u{201c}{}\u{201d}", esc(&a.cite.quote)))
        );
    };
    if let Some(a) = v.decided_by {
        cite("decided by", a);
    }
    for a in &v.defaults {
        cite("default", a);
    }
    for a in &v.context {
        cite("also", a);
    }
    if !v.findings.is_empty() {
        let _ = writeln!(out, "    findings");
        for f in &v.findings {
            let path = crate::vocab::pointer::json_path(&f.pointer);
            let at = format!(
                "{label}::{}",
                esc(&crate::views::place(&path, f.event, f.line))
            );
            let _ = writeln!(
                out,
                "      {} {}  {}: {}",
                style.severity(f.severity),
                f.rule.id,
                at,
                esc(&redact::text(&f.message))
            );
        }
    }
    for o in &v.omitted {
        let _ = writeln!(
            out,
            "      {} {}  {}",
            style.severity(o.severity),
            o.rule.id,
            crate::views::omitted_message(o.count, &o.rule.id)
        );
    }
    for a in &v.adjustments {
        let shown = crate::views::AdjustmentOut::of(a);
        let _ = writeln!(out, "    {:<10} {}", "settings", shown.message);
    }
    let advice = crate::advice::advise(v, &crate::advice::RetryPolicy::default());
    let _ = writeln!(
        out,
        "    {:<10} {} — {}",
        "retry",
        style.bold(
            &serde_json::to_value(advice.action)
                .map_or_else(|_| "?".into(), |a| a.as_str().unwrap_or("?").to_string())
        ),
        esc(&redact::text(&advice.detail))
    );
    for n in &v.notes {
        let _ = writeln!(out, "    {} {}", style.dim("note:"), esc(&redact::text(n)));
    }
}
