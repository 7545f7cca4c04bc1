//! Keywords of one JSON Schema dialect met in a schema that declares another.
//!
//! A schema is validated according to its declared dialect (2020-12 when it declares none), so a
//! keyword that dialect does not define is no assertion there: `dependencies` under 2020-12,
//! `prefixItems` under draft-07. Validators treat such a keyword as an annotation, and so does
//! this judge; but the schema's author most likely meant it to assert something, so each one is
//! reported with the keyword the declared dialect has for it. Which keywords each dialect
//! defines is the drafts' own vocabulary, listed here for the keywords whose meaning moved
//! between drafts (the `jsonschema` crate offers no such list).

use jsonschema::Draft;
use serde_json::Value;

/// A keyword the declared dialect does not define, where it stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ForeignKeyword {
    /// JSON Pointer to the keyword within the schema.
    pub pointer: String,
    /// The keyword.
    pub keyword: &'static str,
    /// What the declared dialect has instead, for people; `None` when it has nothing like it.
    pub instead: Option<&'static str>,
}

const D4: u8 = 1;
const D6: u8 = 1 << 1;
const D7: u8 = 1 << 2;
const D2019: u8 = 1 << 3;
const D2020: u8 = 1 << 4;

fn bit(d: Draft) -> u8 {
    match d {
        Draft::Draft4 => D4,
        Draft::Draft6 => D6,
        Draft::Draft7 => D7,
        Draft::Draft201909 => D2019,
        _ => D2020,
    }
}

/// Keywords whose meaning moved between drafts: the dialects that define each, and what the
/// others have instead (`(dialects that have the replacement, replacement)`).
type Moved = (&'static str, u8, &'static [(u8, &'static str)]);

const MOVED: &[Moved] = &[
    (
        "dependencies",
        D4 | D6 | D7,
        &[(
            D2019 | D2020,
            "dependentRequired (for lists of property names) and dependentSchemas (for schemas)",
        )],
    ),
    (
        "dependentRequired",
        D2019 | D2020,
        &[(D4 | D6 | D7, "dependencies, with a list of property names")],
    ),
    (
        "dependentSchemas",
        D2019 | D2020,
        &[(D4 | D6 | D7, "dependencies, with a schema")],
    ),
    (
        "prefixItems",
        D2020,
        &[(D4 | D6 | D7 | D2019, "items, with an array of schemas")],
    ),
    (
        "additionalItems",
        D4 | D6 | D7 | D2019,
        &[(D2020, "items, which applies after prefixItems")],
    ),
    ("unevaluatedProperties", D2019 | D2020, &[]),
    ("unevaluatedItems", D2019 | D2020, &[]),
    ("minContains", D2019 | D2020, &[]),
    ("maxContains", D2019 | D2020, &[]),
    (
        "const",
        D6 | D7 | D2019 | D2020,
        &[(D4, "enum, with one value")],
    ),
    ("contains", D6 | D7 | D2019 | D2020, &[]),
    ("propertyNames", D6 | D7 | D2019 | D2020, &[]),
    ("if", D7 | D2019 | D2020, &[]),
    ("then", D7 | D2019 | D2020, &[]),
    ("else", D7 | D2019 | D2020, &[]),
];

/// Keywords whose value is a schema, an array of schemas, or an object of schemas.
const ONE: &[&str] = &[
    "additionalProperties",
    "additionalItems",
    "contains",
    "propertyNames",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
];
const MANY: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems"];
const NAMED: &[&str] = &[
    "properties",
    "patternProperties",
    "definitions",
    "$defs",
    "dependentSchemas",
    "dependencies",
];

/// The keywords of other dialects that `dialect` does not define, everywhere in the schema
/// (subschemas are reached through the keywords of any draft), in key order.
pub fn foreign_keywords(schema: &Value, dialect: Draft) -> Vec<ForeignKeyword> {
    let mut out = Vec::new();
    walk(schema, bit(dialect), &mut String::new(), &mut out, 0);
    out
}

/// Schemas nest no deeper than this for the walk (a deeper one is an attack on the judge, and
/// its validity is the validator's concern).
const MAX_DEPTH: usize = 64;

fn walk(s: &Value, d: u8, at: &mut String, out: &mut Vec<ForeignKeyword>, depth: usize) {
    let Some(obj) = s.as_object() else {
        return;
    };
    if depth > MAX_DEPTH {
        return;
    }
    let len = at.len();
    for (k, v) in obj {
        if let Some((keyword, defined, instead)) = MOVED.iter().find(|m| m.0 == k)
            && defined & d == 0
        {
            out.push(ForeignKeyword {
                pointer: format!("{at}/{}", crate::vocab::pointer::escape(k)),
                keyword,
                instead: instead.iter().find(|(ds, _)| ds & d != 0).map(|(_, i)| *i),
            });
        }
        let key = k.as_str();
        at.push('/');
        at.push_str(&crate::vocab::pointer::escape(k));
        if ONE.contains(&key) || (key == "items" && v.is_object()) {
            walk(v, d, at, out, depth + 1);
        } else if MANY.contains(&key) || (key == "items" && v.is_array()) {
            for (i, sub) in v.as_array().into_iter().flatten().enumerate() {
                let l = at.len();
                at.push_str(&format!("/{i}"));
                walk(sub, d, at, out, depth + 1);
                at.truncate(l);
            }
        } else if NAMED.contains(&key) {
            for (name, sub) in v.as_object().into_iter().flatten() {
                let l = at.len();
                at.push('/');
                at.push_str(&crate::vocab::pointer::escape(name));
                walk(sub, d, at, out, depth + 1);
                at.truncate(l);
            }
        }
        at.truncate(len);
    }
}

/// A keyword that always holds: `dependencies` compiled under a dialect that does not define
/// it. The `jsonschema` crate asserts `dependencies` under 2019-09 and 2020-12 too (a
/// compatibility the test suite lists as optional); those dialects split it into
/// `dependentRequired` and `dependentSchemas`, and validators that follow them ignore it.
pub(crate) struct NoAssertion;

impl<'i> jsonschema::Keyword<'i> for NoAssertion {
    fn validate(&self, _: &'i Value) -> Result<(), jsonschema::ValidationError<'i>> {
        Ok(())
    }

    fn is_valid(&self, _: &'i Value) -> bool {
        true
    }
}

/// Whether `dialect` defines `keyword`, for the keywords whose meaning moved between drafts
/// (any other keyword: `true`).
pub(crate) fn defines(dialect: Draft, keyword: &str) -> bool {
    MOVED
        .iter()
        .find(|m| m.0 == keyword)
        .is_none_or(|m| m.1 & bit(dialect) != 0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keywords_of_other_drafts_are_found_where_they_stand() {
        let s = json!({
            "properties": {
                "dependencies": {"type": "string"},
                "a": {"dependencies": {"b": ["c"]}, "items": [{"const": 1}]}
            },
            "allOf": [{"prefixItems": [{}]}],
            "const": {"dependencies": 1}
        });
        let got: Vec<(String, &str)> = foreign_keywords(&s, Draft::Draft202012)
            .into_iter()
            .map(|f| (f.pointer, f.keyword))
            .collect();
        assert_eq!(
            got,
            [("/properties/a/dependencies".to_string(), "dependencies")]
        );
        let got: Vec<(String, &str)> = foreign_keywords(&s, Draft::Draft4)
            .into_iter()
            .map(|f| (f.pointer, f.keyword))
            .collect();
        assert_eq!(
            got,
            [
                ("/allOf/0/prefixItems".to_string(), "prefixItems"),
                ("/const".to_string(), "const"),
                ("/properties/a/items/0/const".to_string(), "const"),
            ]
        );
        let f = &foreign_keywords(&json!({"dependencies": {}}), Draft::Draft201909)[0];
        assert!(f.instead.unwrap().starts_with("dependentRequired"));
        let f = &foreign_keywords(&json!({"unevaluatedProperties": false}), Draft::Draft7)[0];
        assert_eq!(f.instead, None);
        assert!(
            defines(Draft::Draft7, "dependencies") && !defines(Draft::Draft202012, "dependencies")
        );
        assert!(defines(Draft::Draft4, "type"));
    }
}
