//! Keywords a tool's schema borrows from a JSON Schema dialect other than the one it declares.

use crate::check_api::{Cx, Eval, Hit, Params};
use crate::schema::dialect::ForeignKeyword;

use super::result::judges_member;

crate::check_api::declare_checks! {
    "schema_keywords_of_dialect" => schema_keywords_of_dialect, ["names"], [], NONE,
        "a schema member (`names`: `outputSchema` when not given, `inputSchema`) of the tool, or of a tool a `tools/list` result lists, uses a keyword its declared dialect does not define";
}

fn describe(f: &ForeignKeyword, dialect: &str) -> String {
    let instead = match f.instead {
        Some(i) => format!("{dialect} has {i} instead"),
        None => format!("{dialect} has no keyword for it"),
    };
    format!(
        "`{}` is not a keyword of {dialect}, the schema's dialect: validated according to that dialect it asserts nothing; {instead}",
        f.keyword
    )
}

fn schema_keywords_of_dialect(cx: &Cx<'_>, p: &Params) -> Eval {
    if cx.listed_tools().is_some() {
        let mut judged = false;
        let mut hits = Vec::new();
        for s in cx.listed_tool_schemas() {
            if !judges_member(p, s.member) {
                continue;
            }
            judged = true;
            if let Ok(c) = &s.compiled {
                for f in &c.foreign {
                    hits.push(Hit::new(
                        format!("/result/tools/{}/{}{}", s.index, s.member, f.pointer),
                        describe(f, c.dialect),
                    ));
                }
            }
        }
        return if judged {
            Eval::from_hits(hits)
        } else {
            Eval::NotApplicable
        };
    }
    if cx.complete_result().is_none() || !judges_member(p, "outputSchema") {
        return Eval::NotApplicable;
    }
    match cx.output_schema() {
        Some(Ok(c)) => Eval::from_hits(
            c.foreign
                .iter()
                .map(|f| {
                    Hit::new(
                        "",
                        format!(
                            "the tool's outputSchema at {}: {}",
                            f.pointer,
                            describe(f, c.dialect)
                        ),
                    )
                })
                .collect(),
        ),
        _ => Eval::NotApplicable,
    }
}
