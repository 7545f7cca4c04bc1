//! `mcp-verdict rules`.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

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
                let ids = table.rules().iter().map(|r| r.id.as_str());
                // An id prefix names the rules under it; anything else, the closest id.
                let under: Vec<&str> = ids
                    .clone()
                    .filter(|r| {
                        r.strip_prefix(id.as_str())
                            .is_some_and(|t| t.starts_with('.'))
                    })
                    .collect();
                let hint = if under.is_empty() {
                    crate::vocab::suggest::did_you_mean(id, ids)
                } else {
                    format!(
                        " ({} rules start with it: {})",
                        under.len(),
                        under.join(", ")
                    )
                };
                eprintln!("mcp-verdict: no rule `{id}`{hint}; `mcp-verdict rules` lists them all");
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
            let out = crate::views::rule_views(table, selected);
            super::write_stdout(
                &(serde_json::to_string_pretty(&out).expect("rules serialize") + "\n"),
            );
        }
    }
    ExitCode::from(exit::OK)
}
