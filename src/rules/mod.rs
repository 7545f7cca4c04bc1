//! The spec-rule table as data: loading, validation and per-revision resolution.
//!
//! The table (TOML files under `rules/`) decides, per protocol revision, which checks run, what
//! a triggered check means (an outcome in a precedence band, a finding with a severity, or a
//! default applied), which spec sentence it cites, and what a client should do next (the
//! advice entries). Nothing here runs a check: a rule names its check, and the judge binds
//! names to code. The loader only needs each check's name and parameters ([`CheckSig`]) to
//! reject a rule that names an unknown check or passes it an unknown parameter.

mod advice;
mod load;
mod params;
mod pattern;

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

pub use advice::{AdviceEntry, Policy, Replay};
pub use load::{LoadError, RuleSource};
pub use params::{Params, Target};
pub use pattern::PointerPattern;

use crate::vocab::{Actor, Layer, Level, Outcome, Protocol, Severity};

/// What the loader needs to know of a check the code implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CheckSig {
    /// The name rules refer to.
    pub name: &'static str,
    /// Parameters it accepts.
    pub params: &'static [&'static str],
    /// Parameters it needs.
    pub required: &'static [&'static str],
}

/// Where a rule's citation points.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Cite {
    /// The full URL of the cited sentence's section.
    pub url: String,
    /// The section, for people: e.g. `basic#result-responses` or `JSON-RPC 2.0 §5`.
    pub section: String,
    /// The cited sentence, quoted from the source.
    pub quote: String,
}

/// A default a rule applies when a field is absent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DefaultEffect {
    /// The field, e.g. `resultType`.
    pub field: String,
    /// The value it is taken to have.
    pub value: Value,
}

/// A precedence band: when several outcome rules trigger, the rule in the earliest band
/// decides, and within a band the lowest rank.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Band {
    /// The band's name, e.g. `envelope`.
    pub name: String,
    /// What its rules decide.
    pub about: String,
}

/// Where an outcome rule stands when several trigger: lower decides first. Ties are
/// impossible: the loader rejects two outcome rules of one revision with the same place.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Precedence {
    /// Index of the band in [`RuleTable::bands`].
    pub band: usize,
    /// Rank within the band.
    pub rank: u32,
}

/// A rule as written in the table.
#[derive(Debug)]
pub struct Rule {
    /// Stable id, e.g. `jsonrpc.response.id-match`.
    pub id: String,
    /// A short title.
    pub title: String,
    /// What it checks.
    pub summary: String,
    /// Why it matters.
    pub why: String,
    /// A minimal example of a violation (or of the case it decides).
    pub example: Option<String>,
    /// Who the rule binds.
    pub actor: Actor,
    /// The layer it belongs to.
    pub layer: Layer,
    /// The name of the check it runs.
    pub check: &'static str,
    /// Revisions it applies to.
    pub revisions: Vec<Protocol>,
    /// Where it was defined.
    pub source: RuleSource,
}

/// A rule as it applies under one revision, with per-revision differences resolved.
#[derive(Debug)]
pub struct Active {
    /// Index of the rule in [`RuleTable::rules`].
    pub rule: usize,
    /// The revision.
    pub protocol: Protocol,
    /// The requirement level under this revision.
    pub level: Level,
    /// The outcome a trigger decides, if any.
    pub outcome: Option<Outcome>,
    /// Where the outcome stands when several outcome rules trigger (outcome rules only).
    pub precedence: Option<Precedence>,
    /// The severity of the finding a trigger produces, if any.
    pub severity: Option<Severity>,
    /// The default a trigger applies, if any.
    pub default: Option<DefaultEffect>,
    /// The citation under this revision.
    pub cite: Cite,
    /// Check parameters under this revision.
    pub params: Params,
    /// What verdict outputs repeat for this entry (its citation per role, its rule id and URL),
    /// serialised to JSON once, on first use, by the views.
    pub(crate) json: std::sync::OnceLock<ActiveJson>,
}

/// What verdict outputs repeat for an active rule, serialised to JSON once (kept in
/// [`Active`], made on first use by the views): its citation per role, exactly as the output
/// view of a citation serialises, and its rule id and URL as JSON strings, written as they are
/// instead of cloning and escaping the same static text for every verdict.
#[derive(Debug)]
pub(crate) struct ActiveJson {
    /// The citation's object, indexed by role (decided, default, context).
    pub(crate) cites: [Box<serde_json::value::RawValue>; 3],
    /// The rule id, as a JSON string.
    pub(crate) id: Box<serde_json::value::RawValue>,
    /// The citation's URL, as a JSON string.
    pub(crate) url: Box<serde_json::value::RawValue>,
}

/// Data that differs between revisions and is not a rule.
#[derive(Debug, Clone, Default)]
pub struct RevisionProfile {
    /// Base URL of the revision's specification pages.
    pub docs: String,
    /// `resultType` values the core protocol defines; `None` when the revision predates
    /// `resultType` (every result is then a final result).
    pub result_types: Option<Vec<String>>,
    /// Extra `resultType` values each extension defines, keyed by extension id.
    pub extension_result_types: BTreeMap<String, Vec<String>>,
    /// Names of the JSON-RPC error codes the revision defines or recognises.
    pub error_codes: BTreeMap<i64, String>,
}

/// Rules that share one schema validation, and how its errors are routed among them.
#[derive(Debug, Clone)]
pub struct SchemaGroup {
    /// The schema definition.
    pub def: String,
    /// Where in the message the definition applies.
    pub target: Target,
    /// Error-code filter for error-response targets.
    pub code: Option<i64>,
    /// Member rules: (index into the revision's active list, patterns, keyword filter).
    pub members: Vec<(usize, Vec<PointerPattern>, Vec<String>)>,
}

impl SchemaGroup {
    /// The member (active index) that owns an error at `pointer` with `keyword`: the most
    /// specific matching pattern wins; ties go to the rule listed first.
    pub fn owner(&self, pointer: &str, keyword: &str) -> Option<usize> {
        let mut best: Option<(usize, (usize, usize, bool))> = None;
        for (idx, patterns, keywords) in &self.members {
            if !keywords.is_empty() && !keywords.iter().any(|k| k == keyword) {
                continue;
            }
            for p in patterns {
                if p.matches(pointer) {
                    let score = (p.literal_segments(), p.segments(), !keywords.is_empty());
                    if best.is_none_or(|(_, b)| score > b) {
                        best = Some((*idx, score));
                    }
                }
            }
        }
        best.map(|(i, _)| i)
    }
}

/// A loaded, validated rule table.
#[derive(Debug)]
pub struct RuleTable {
    rules: Vec<Rule>,
    active: BTreeMap<Protocol, Vec<Active>>,
    profiles: BTreeMap<Protocol, RevisionProfile>,
    /// Schema groups per revision: each (definition, target) validated once per exchange.
    groups: BTreeMap<Protocol, Vec<SchemaGroup>>,
    bands: Vec<Band>,
    advice: Vec<AdviceEntry>,
    policies: Vec<Policy>,
}

impl RuleTable {
    /// Loads a table from `(path, TOML text)` pairs, paths relative to the table's root (a file
    /// holding rules is named by their id prefix: `transport/sse.toml`); `checks` are the checks
    /// the code implements.
    pub fn from_sources(
        sources: &[(String, String)],
        checks: &[CheckSig],
    ) -> Result<RuleTable, LoadError> {
        load::load(sources, "", checks)
    }

    /// Loads a table from every `*.toml` file under a directory (subdirectories included).
    pub fn from_dir(dir: &std::path::Path, checks: &[CheckSig]) -> Result<RuleTable, LoadError> {
        let shown = format!("{}/", dir.display().to_string().trim_end_matches('/'));
        load::load(&load::dir_sources(dir)?, &shown, checks)
    }

    /// The table shipped with this build (`rules/**/*.toml`).
    pub fn embedded(checks: &[CheckSig]) -> Result<RuleTable, LoadError> {
        load::load_embedded(checks)
    }

    /// The files of the table shipped with this build, as `(path, text)` pairs.
    pub fn embedded_sources() -> Vec<(String, String)> {
        load::embedded_sources()
    }

    /// Every rule, in table order.
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    /// A rule by id.
    pub fn rule(&self, id: &str) -> Option<&Rule> {
        self.rules.iter().find(|r| r.id == id)
    }

    /// The rules active under a revision, in table order.
    pub fn active(&self, protocol: Protocol) -> &[Active] {
        self.active.get(&protocol).map_or(&[], Vec::as_slice)
    }

    /// A rule's resolved form under a revision.
    pub fn active_rule(&self, protocol: Protocol, id: &str) -> Option<&Active> {
        self.active(protocol)
            .iter()
            .find(|a| self.rules[a.rule].id == id)
    }

    /// The revision's profile.
    pub fn profile(&self, protocol: Protocol) -> &RevisionProfile {
        self.profiles
            .get(&protocol)
            .expect("load() guarantees a profile per revision")
    }

    /// The revision's schema groups.
    pub fn groups(&self, protocol: Protocol) -> &[SchemaGroup] {
        self.groups.get(&protocol).map_or(&[], Vec::as_slice)
    }

    /// The rule an active entry belongs to.
    pub fn rule_of(&self, active: &Active) -> &Rule {
        &self.rules[active.rule]
    }

    /// The precedence bands, first to decide first.
    pub fn bands(&self) -> &[Band] {
        &self.bands
    }

    /// A precedence as people read it: `envelope 3`.
    pub fn precedence_label(&self, p: Precedence) -> String {
        format!("{} {}", self.bands[p.band].name, p.rank)
    }

    /// The advice entries, in the order they are tried (the first that applies gives the
    /// advice).
    pub fn advice(&self) -> &[AdviceEntry] {
        &self.advice
    }

    /// This project's own policies that advice cites (`policy.*`).
    pub fn policy(&self, id: &str) -> Option<&Policy> {
        self.policies.iter().find(|p| p.id == id)
    }
}
