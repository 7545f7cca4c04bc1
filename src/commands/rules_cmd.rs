//! `mcp-verdict rules`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use serde::Serialize;

use super::{Format, exit, load_engine};
use crate::outputs::{self, Style};
use crate::vocab::Protocol;

#[derive(Debug, Args)]
#[command(after_help = super::exit_help(&[
    (exit::OK, "the rules were listed or explained"),
    (exit::USAGE, "usage: an unknown rule id, or a rule table that does not load"),
]))]
pub(crate) struct RulesArgs {
    /// A rule id to explain; without it, list every rule.
    #[arg(value_name = "ID")]
    id: Option<String>,
    /// Only rules that apply under this revision.
    #[arg(long, value_parser = |s: &str| Protocol::parse(s).ok_or_else(|| format!("unknown revision `{s}`; use {}", Protocol::names())))]
    protocol: Option<Protocol>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
    /// Load the rule table from this directory instead of the built-in one.
    #[arg(long, value_name = "DIR")]
    rules: Option<PathBuf>,
}

#[derive(Serialize)]
struct RuleOut<'a> {
    id: &'a str,
    title: &'a str,
    summary: &'a str,
    why: &'a str,
    example: Option<&'a str>,
    actor: &'a str,
    layer: &'a str,
    check: &'a str,
    revisions: Vec<RevisionOut<'a>>,
}

#[derive(Serialize)]
struct PrecedenceOut<'a> {
    band: &'a str,
    rank: u32,
}

#[derive(Serialize)]
struct RevisionOut<'a> {
    protocol: &'a str,
    level: &'a str,
    outcome: Option<&'a str>,
    precedence: Option<PrecedenceOut<'a>>,
    severity: Option<&'a str>,
    default: Option<&'a crate::rules::DefaultEffect>,
    url: &'a str,
    quote: &'a str,
}

pub(crate) fn run(a: RulesArgs, g: super::Global) -> ExitCode {
    let table = match load_engine(&a.rules) {
        Ok(e) => e.table(),
        Err(code) => return code,
    };
    let style = Style::stdout(g.color);
    let selected: Vec<&crate::rules::Rule> = match &a.id {
        Some(id) => match table.rule(id) {
            Some(r) => vec![r],
            None => {
                let near: Vec<&str> = table
                    .rules()
                    .iter()
                    .map(|r| r.id.as_str())
                    .filter(|r| r.contains(id.as_str()) || id.contains(*r))
                    .collect();
                eprintln!(
                    "mcp-verdict: no rule `{id}`{}; `mcp-verdict rules` lists them all",
                    if near.is_empty() {
                        String::new()
                    } else {
                        format!(" (did you mean {}?)", near.join(", "))
                    }
                );
                return ExitCode::from(exit::USAGE);
            }
        },
        None => table
            .rules()
            .iter()
            .filter(|r| a.protocol.is_none_or(|p| r.revisions.contains(&p)))
            .collect(),
    };
    match a.format {
        Format::Text => match &a.id {
            Some(_) => {
                super::write_stdout(&outputs::rules::rule_explain(table, selected[0], style))
            }
            None => super::write_stdout(&outputs::rules::rule_list(table, a.protocol, style)),
        },
        Format::Json => {
            let out: Vec<RuleOut<'_>> = selected
                .iter()
                .map(|r| RuleOut {
                    id: &r.id,
                    title: &r.title,
                    summary: &r.summary,
                    why: &r.why,
                    example: r.example.as_deref(),
                    actor: r.actor.as_ref(),
                    layer: r.layer.as_ref(),
                    check: r.check,
                    revisions: r
                        .revisions
                        .iter()
                        .filter_map(|p| table.active_rule(*p, &r.id))
                        .map(|act| RevisionOut {
                            protocol: act.protocol.as_str(),
                            level: act.level.as_ref(),
                            outcome: act.outcome.map(|o| o.as_str()),
                            precedence: act.precedence.map(|p| PrecedenceOut {
                                band: &table.bands()[p.band].name,
                                rank: p.rank,
                            }),
                            severity: act.severity.map(|s| -> &str { s.into() }),
                            default: act.default.as_ref(),
                            url: &act.cite.url,
                            quote: &act.cite.quote,
                        })
                        .collect(),
                })
                .collect();
            super::write_stdout(
                &(serde_json::to_string_pretty(&out).expect("rules serialize") + "\n"),
            );
        }
    }
    ExitCode::from(exit::OK)
}
