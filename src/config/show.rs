//! `--show-settings`: the resolved settings as a settings file, each value with where it came
//! from in a comment, so that the output can be saved as `mcp-verdict.toml` and read back.

use std::fmt::Write as _;

use super::{Origin, RuleLayer, Setting, Settings};
use crate::vocab::Protocol;

fn quoted(s: &str) -> String {
    toml::Value::String(s.to_owned()).to_string()
}

fn list(items: impl IntoIterator<Item = String>) -> String {
    format!("[{}]", items.into_iter().collect::<Vec<_>>().join(", "))
}

fn line(out: &mut String, key: &str, value: &str, origin: &Origin) {
    let _ = writeln!(out, "{key} = {value}  # {origin}");
}

fn protocol_value(p: &[Protocol]) -> String {
    if p.len() > 1 && p.len() == Protocol::all().count() {
        quoted("all")
    } else {
        p.first()
            .map_or_else(|| quoted("all"), |p| quoted(p.as_str()))
    }
}

fn rules(out: &mut String, layer: &RuleLayer, table_prefix: &str) {
    if let (Some(sel), Some(origin)) = (&layer.select, &layer.select_origin) {
        line(
            out,
            "select",
            &list(sel.iter().map(|s| quoted(s.as_str()))),
            origin,
        );
    }
    if let Some(origin) = &layer.ignore_origin {
        line(
            out,
            "ignore",
            &list(layer.ignore.iter().map(|s| quoted(s.as_str()))),
            origin,
        );
    }
    if let Some(origin) = &layer.severity_origin {
        let _ = writeln!(out, "\n[{table_prefix}severity]  # {origin}");
        for (sel, sev) in &layer.severity {
            let _ = writeln!(out, "{} = {}", quoted(sel.as_str()), quoted(sev.as_ref()));
        }
    }
}

/// The settings as a settings file (TOML), for `--show-settings`.
pub fn render(s: &Settings) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# mcp-verdict settings, resolved from: {}",
        match &s.file {
            Some(f) => format!("{}, the command line and the defaults", f.display()),
            None => "the command line and the defaults (no settings file)".to_owned(),
        }
    );
    match &s.protocol {
        Some(Setting { value, origin }) => {
            line(&mut out, "protocol", &protocol_value(value), origin)
        }
        None => {
            let _ = writeln!(
                out,
                "# protocol: not set; each exchange is judged under the revisions it names"
            );
        }
    }
    line(
        &mut out,
        "fail-on",
        &quoted(s.fail_on.value.as_str()),
        &s.fail_on.origin,
    );
    line(
        &mut out,
        "fail-on-outcome",
        &list(s.fail_on_outcome.value.iter().map(|o| quoted(o.as_ref()))),
        &s.fail_on_outcome.origin,
    );
    line(
        &mut out,
        "max-findings-per-rule",
        &s.max_findings_per_rule.value.to_string(),
        &s.max_findings_per_rule.origin,
    );
    line(
        &mut out,
        "strict",
        &s.strict.value.to_string(),
        &s.strict.origin,
    );
    if let Some(root) = &s.root {
        line(
            &mut out,
            "root",
            &quoted(&root.value.display().to_string()),
            &root.origin,
        );
    }
    // The file's rule settings and the command line's are shown as one layer each, in the
    // order they apply (the command line's win).
    let mut top = RuleLayer::default();
    for layer in [&s.file_rules, &s.flag_rules] {
        if layer.select.is_some() {
            top.select.clone_from(&layer.select);
            top.select_origin.clone_from(&layer.select_origin);
        }
        if layer.ignore_origin.is_some() {
            top.ignore.extend(layer.ignore.iter().cloned());
            top.ignore_origin.clone_from(&layer.ignore_origin);
        }
        if layer.severity_origin.is_some() {
            top.severity.extend(layer.severity.iter().cloned());
            top.severity_origin.clone_from(&layer.severity_origin);
        }
    }
    if top.select.is_none() {
        line(&mut out, "select", &list([quoted("all")]), &Origin::Default);
    }
    rules(&mut out, &top, "");
    if let Some(reports) = &s.reports {
        for r in &reports.value {
            let _ = writeln!(out, "\n[[report]]  # {}", reports.origin);
            let _ = writeln!(out, "format = {}", quoted(&r.format));
            if let Some(o) = &r.output {
                let _ = writeln!(out, "output = {}", quoted(&o.display().to_string()));
            }
        }
    }
    for (i, o) in s.overrides.iter().enumerate() {
        let _ = writeln!(out, "\n[[overrides]]  # #{}", i + 1);
        let _ = writeln!(out, "paths = {}", list(o.paths.iter().map(|p| quoted(p))));
        rules(&mut out, &o.rules, "overrides.");
    }
    out
}
