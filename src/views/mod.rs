//! Views: owned, serialisable forms of what the judge and the advice produced, prepared once
//! for every output that shows them.

#[cfg(any(feature = "serve", feature = "probe"))]
pub mod diag;
pub mod redact;
pub mod rules;
mod verdict;
mod verdict_json;

pub use rules::{PrecedenceView, RevisionView, RuleView, rule_views};
pub use verdict::{
    AdjustmentOut, CiteOut, CiteRole, DefaultOut, FindingOut, JudgementOut, OmittedOut, VerdictOut,
    classify_output_json_schema, judgement_json_pretty, omitted_message, place,
};
pub(crate) use verdict_json::push_json_str;
pub use verdict_json::{judgement_json, judgement_json_line};
