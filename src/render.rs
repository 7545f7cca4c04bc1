//! Human-readable rendering of verdicts and rules (terminal text).

use std::fmt::Write as _;

use crate::engine::{Judgement, Verdict};
use crate::rules::{Rule, RuleTable};
use crate::vocab::Severity;

/// ANSI styling, on only when asked for.
#[derive(Clone, Copy, Debug, Default)]
pub struct Style {
    /// Whether to emit ANSI escape codes.
    pub color: bool,
}

impl Style {
    /// Colour when stdout is a terminal and `NO_COLOR` is unset or empty.
    pub fn detect_stdout() -> Style {
        use std::io::IsTerminal;
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Style {
            color: !no_color && std::io::stdout().is_terminal(),
        }
    }

    fn paint(&self, code: &str, s: &str) -> String {
        if self.color {
            format!("\x1b[{code}m{s}\x1b[0m")
        } else {
            s.to_string()
        }
    }

    /// Bold text.
    pub fn bold(&self, s: &str) -> String {
        self.paint("1", s)
    }

    /// Dimmed text.
    pub fn dim(&self, s: &str) -> String {
        self.paint("2", s)
    }

    /// A severity, coloured.
    pub fn severity(&self, s: Severity) -> String {
        let text = format!("{:<7}", s.as_ref());
        match s {
            Severity::Error => self.paint("31", &text),
            Severity::Warning => self.paint("33", &text),
            Severity::Info => self.paint("36", &text),
        }
    }

    /// An outcome name, coloured by how good it is for the caller.
    pub fn outcome(&self, v: &Verdict<'_>) -> String {
        use crate::vocab::Outcome::*;
        let code = match v.outcome {
            ToolSuccess | NotificationAccepted => "32",
            InputRequired | TaskCreated => "36",
            ToolError | JsonrpcError => "33",
            _ => "31",
        };
        self.paint(&format!("1;{code}"), v.outcome.as_str())
    }
}

/// Renders a judgement: one block per revision, then what differs.
pub fn judgement(j: &Judgement<'_>, label: &str, style: Style) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", style.bold(label));
    for v in &j.verdicts {
        verdict(&mut out, v, label, style);
    }
    let diffs = j.differences();
    if !diffs.is_empty() {
        let _ = writeln!(out, "  {}", style.bold("differences between revisions"));
        for d in diffs {
            let vals: Vec<String> = d.values.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            let _ = writeln!(out, "    {:<40} {}", d.aspect, vals.join("   "));
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
    let _ = writeln!(out, "    {}", v.summary());
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
            style.dim(&format!("\u{201c}{}\u{201d}", a.cite.quote))
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
            let path = crate::engine::json_path(&f.pointer);
            let at = match f.event {
                Some(e) => format!("{label}::event[{e}]{path}"),
                None => format!("{label}::{path}"),
            };
            let _ = writeln!(
                out,
                "      {} {}  {}: {}",
                style.severity(f.severity),
                f.rule.id,
                at,
                f.message
            );
        }
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
        advice.detail
    );
    for n in &v.notes {
        let _ = writeln!(out, "    {} {n}", style.dim("note:"));
    }
}

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
