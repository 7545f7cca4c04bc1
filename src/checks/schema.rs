//! The generic schema check: validate a target against a definition of the revision's schema
//! (once per exchange for all rules sharing that definition and target) and report the errors
//! the table routes to this rule.

use crate::check_api::{Cx, Eval, Hit, Params};

crate::check_api::declare_checks! {
    "schema" => schema, ["def", "at", "paths", "keywords", "code"], ["def", "at", "paths"], NONE,
        "the target does not validate against the revision's schema definition `def` (errors routed by pointer)";
}

fn schema(cx: &Cx<'_>, p: &Params) -> Eval {
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
    let mut hits = cx.hits();
    for e in errors.iter().filter(|e| e.owner == Some(me)) {
        hits.push(|| {
            Hit::new(
                format!("{prefix}{}", e.error.pointer),
                e.error.message.clone(),
            )
        });
    }
    hits.into_eval()
}
