//! The TOML documents of a rule table as written, with the spans that errors point at.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

use super::LoadError;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileDoc {
    #[serde(default)]
    pub(super) revision: Vec<RevisionDoc>,
    #[serde(default)]
    pub(super) band: Vec<BandDoc>,
    #[serde(default)]
    pub(super) advice: Vec<AdviceDoc>,
    #[serde(default)]
    pub(super) policy: Vec<PolicyDoc>,
    #[serde(default)]
    pub(super) rule: Vec<RuleDoc>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct BandDoc {
    pub(super) name: Spanned<String>,
    pub(super) about: String,
}

/// `precedence = { band = "envelope", rank = 3 }`; a bare number is the old form, rejected
/// with a message that says how to write it now.
#[derive(Deserialize)]
#[serde(untagged)]
pub(super) enum PrecedenceDoc {
    Band { band: String, rank: u32 },
    Number(i64),
}

/// One value or a list of them.
#[derive(Clone, Deserialize)]
#[serde(untagged)]
pub(super) enum OneOrMany<T> {
    One(T),
    Many(Vec<T>),
}

impl<T> OneOrMany<T> {
    pub(super) fn into_vec(self) -> Vec<T> {
        match self {
            OneOrMany::One(t) => vec![t],
            OneOrMany::Many(v) => v,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct AdviceDoc {
    pub(super) outcome: Spanned<OneOrMany<String>>,
    #[serde(default)]
    pub(super) code: Option<OneOrMany<i64>>,
    #[serde(default)]
    pub(super) status: Option<OneOrMany<u16>>,
    #[serde(default)]
    pub(super) rule: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) revisions: Vec<Spanned<String>>,
    #[serde(default)]
    pub(super) event_id: Option<bool>,
    #[serde(default)]
    pub(super) action: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) replay: Option<Spanned<String>>,
    pub(super) detail: String,
    #[serde(default)]
    pub(super) new_request_id: bool,
    #[serde(default)]
    pub(super) cite: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct PolicyDoc {
    pub(super) id: Spanned<String>,
    pub(super) title: String,
    #[serde(default)]
    pub(super) page: Option<String>,
    #[serde(default)]
    pub(super) anchor: Option<String>,
    #[serde(default)]
    pub(super) url: Option<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RevisionDoc {
    pub(super) name: Spanned<String>,
    pub(super) docs: String,
    #[serde(default)]
    pub(super) result_types: Option<Vec<String>>,
    #[serde(default)]
    pub(super) extension_result_types: BTreeMap<String, Vec<String>>,
    #[serde(default)]
    pub(super) error_codes: Vec<CodeDoc>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CodeDoc {
    pub(super) code: i64,
    pub(super) name: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CiteDoc {
    #[serde(default)]
    pub(super) page: Option<String>,
    #[serde(default)]
    pub(super) anchor: Option<String>,
    #[serde(default)]
    pub(super) url: Option<String>,
    #[serde(default)]
    pub(super) section: Option<String>,
    pub(super) quote: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct DefaultDoc {
    pub(super) field: String,
    pub(super) value: toml::Value,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RuleDoc {
    pub(super) id: Spanned<String>,
    pub(super) title: String,
    pub(super) summary: String,
    pub(super) why: String,
    #[serde(default)]
    pub(super) example: Option<String>,
    pub(super) revisions: Vec<Spanned<String>>,
    pub(super) level: Spanned<String>,
    pub(super) actor: Spanned<String>,
    pub(super) layer: Spanned<String>,
    pub(super) check: Spanned<String>,
    #[serde(default)]
    pub(super) outcome: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) precedence: Option<Spanned<PrecedenceDoc>>,
    #[serde(default)]
    pub(super) severity: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) default: Option<DefaultDoc>,
    pub(super) cite: Spanned<CiteDoc>,
    #[serde(default)]
    pub(super) params: Option<Spanned<toml::Table>>,
    #[serde(default)]
    pub(super) revision: Option<Spanned<BTreeMap<String, OverrideDoc>>>,
}

/// Per-revision differences: each field given replaces the rule's own.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct OverrideDoc {
    #[serde(default)]
    pub(super) level: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) outcome: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) precedence: Option<Spanned<PrecedenceDoc>>,
    #[serde(default)]
    pub(super) severity: Option<Spanned<String>>,
    #[serde(default)]
    pub(super) cite: Option<Spanned<CiteDoc>>,
    #[serde(default)]
    pub(super) params: Option<Spanned<toml::Table>>,
}

pub(super) struct Ctx<'a> {
    pub(super) file: &'a str,
    pub(super) text: &'a str,
}

impl Ctx<'_> {
    pub(super) fn at(&self, span: std::ops::Range<usize>, message: impl Into<String>) -> LoadError {
        let (line, column) = line_col(self.text, span.start);
        LoadError {
            file: self.file.to_string(),
            line: Some(line),
            column: Some(column),
            message: message.into(),
        }
    }

    pub(super) fn parse<T: std::str::FromStr>(
        &self,
        s: &Spanned<String>,
        what: &str,
        allowed: &str,
    ) -> Result<T, LoadError> {
        s.get_ref().parse().map_err(|_| {
            self.at(
                s.span(),
                format!(
                    "unknown {what} `{}`; expected one of {allowed}",
                    s.get_ref()
                ),
            )
        })
    }
}

pub(super) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

pub(super) fn names<T: strum::IntoEnumIterator + AsRef<str>>() -> String {
    T::iter()
        .map(|v| format!("`{}`", v.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}
