//! The generic schema check: validate a target against a definition of the revision's schema
//! (once per exchange for all rules sharing that definition and target) and report the errors
//! the table routes to this rule.

use super::{Eval, Hit, Params};
use crate::engine::Cx;

pub(super) fn schema(cx: &Cx<'_>, p: &Params) -> Eval {
    let Some((group, me)) = p.group() else {
        return Eval::NotApplicable;
    };
    let Some(errors) = cx.schema_errors(group) else {
        return Eval::NotApplicable;
    };
    if errors.is_empty() {
        return Eval::Pass;
    }
    let prefix = p.at.map_or("", |t| t.prefix());
    let hits: Vec<Hit> = errors
        .iter()
        .filter(|e| e.owner == Some(me))
        .map(|e| Hit::new(format!("{prefix}{}", e.pointer), e.message.clone()))
        .collect();
    Eval::from_hits(hits)
}
