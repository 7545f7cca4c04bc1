//! The rule table as data: one record per rule with its effect and citation under each revision
//! it applies to, as `mcp-verdict rules --format json` prints it and the language bindings return
//! it.

use serde::Serialize;

use crate::rules::{DefaultEffect, Rule, RuleTable};

/// One rule of the table.
#[derive(Debug, Serialize)]
pub struct RuleView<'a> {
    /// The rule id.
    pub id: &'a str,
    /// One line.
    pub title: &'a str,
    /// What the rule checks.
    pub summary: &'a str,
    /// Why it matters.
    pub why: &'a str,
    /// An example, when the table gives one.
    pub example: Option<&'a str>,
    /// Whose behaviour it judges.
    pub actor: &'a str,
    /// The layer it belongs to.
    pub layer: &'a str,
    /// The check that evaluates it.
    pub check: &'a str,
    /// Its effect and citation under each revision it applies to.
    pub revisions: Vec<RevisionView<'a>>,
}

/// Where an outcome rule ranks: its band and its rank in the band.
#[derive(Debug, Serialize)]
pub struct PrecedenceView<'a> {
    /// The band's name.
    pub band: &'a str,
    /// The rank within the band (lower decides first).
    pub rank: u32,
}

/// A rule under one revision.
#[derive(Debug, Serialize)]
pub struct RevisionView<'a> {
    /// The revision.
    pub protocol: &'a str,
    /// The requirement level (MUST, SHOULD, schema, ...).
    pub level: &'a str,
    /// The outcome it decides, for an outcome rule.
    pub outcome: Option<&'a str>,
    /// Its precedence, for an outcome rule.
    pub precedence: Option<PrecedenceView<'a>>,
    /// The severity of its findings, for a finding rule.
    pub severity: Option<&'a str>,
    /// The default it applies, for a default rule.
    pub default: Option<&'a DefaultEffect>,
    /// The spec URL it cites.
    pub url: &'a str,
    /// The sentence it quotes.
    pub quote: &'a str,
}

/// The records of `rules`, in the order given.
pub fn rule_views<'a>(
    table: &'a RuleTable,
    rules: impl IntoIterator<Item = &'a Rule>,
) -> Vec<RuleView<'a>> {
    rules
        .into_iter()
        .map(|r| RuleView {
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
                .map(|act| RevisionView {
                    protocol: act.protocol.as_str(),
                    level: act.level.as_ref(),
                    outcome: act.outcome.map(|o| o.as_str()),
                    precedence: act.precedence.map(|p| PrecedenceView {
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
        .collect()
}
