//! A tool's `outputSchema`, compiled under the dialect it declares.
//!
//! A schema without `$schema` is JSON Schema 2020-12; `$schema` may name draft-04, draft-06,
//! draft-07, 2019-09 or 2020-12 (each validated with the `jsonschema` crate's support for that
//! draft, formats included as the draft has them). Any other `$schema` is a dialect this judge
//! does not support, reported as such rather than validated under another dialect. A keyword
//! the declared dialect does not define asserts nothing (see [`dialect`]). Nothing is
//! ever fetched: a `$ref` is resolved inside the schema document or not at all, whatever
//! features the `jsonschema` crate was built with.

use jsonschema::Draft;
use jsonschema::error::ValidationErrorKind;
use serde_json::Value;

use crate::schema::dialect::{self, ForeignKeyword};

/// Why an output schema cannot judge a result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OutputSchemaProblem {
    /// `$schema` names a dialect this judge does not support.
    UnknownDialect(String),
    /// A `$ref` that cannot be resolved within the schema document.
    UnresolvedRef {
        /// Whether the reference points outside the document (and so would need a fetch).
        external: bool,
        /// What the resolver said.
        why: String,
    },
    /// The schema is not valid under its dialect.
    Invalid(String),
}

/// A compiled output schema and the dialect it was compiled under.
#[derive(Debug)]
pub struct OutputSchema {
    /// The validator.
    pub validator: jsonschema::Validator,
    /// The dialect, by name (`draft-07`, `2020-12`, ...).
    pub dialect: &'static str,
    /// Keywords of other dialects the schema uses, which assert nothing under its own.
    pub foreign: Vec<ForeignKeyword>,
}

/// The dialects an output schema may declare, by name.
pub const DIALECTS: &[&str] = &["draft-04", "draft-06", "draft-07", "2019-09", "2020-12"];

fn dialect_name(d: Draft) -> &'static str {
    match d {
        Draft::Draft4 => DIALECTS[0],
        Draft::Draft6 => DIALECTS[1],
        Draft::Draft7 => DIALECTS[2],
        Draft::Draft201909 => DIALECTS[3],
        _ => DIALECTS[4],
    }
}

/// The dialect a schema declares: its `$schema`, else 2020-12.
pub fn dialect_of(schema: &Value) -> Result<Draft, OutputSchemaProblem> {
    match schema.as_object().and_then(|o| o.get("$schema")) {
        None => Ok(Draft::Draft202012),
        Some(Value::String(uri)) => match Draft::from_schema_uri(uri) {
            Draft::Unknown => Err(OutputSchemaProblem::UnknownDialect(uri.clone())),
            d => Ok(d),
        },
        Some(other) => Err(OutputSchemaProblem::Invalid(format!(
            "`$schema` is {other}, not a URI string"
        ))),
    }
}

/// Compiles an output schema under its declared dialect, fetching nothing.
pub fn compile(schema: &Value) -> Result<OutputSchema, OutputSchemaProblem> {
    let draft = dialect_of(schema)?;
    let mut options = jsonschema::options()
        .with_draft(draft)
        .with_retriever(NoFetch);
    if !dialect::defines(draft, "dependencies") {
        options = options.with_keyword("dependencies", |_, _, _| {
            Ok(Box::new(dialect::NoAssertion) as Box<dyn for<'i> jsonschema::Keyword<'i>>)
        });
    }
    let validator = options.build(schema).map_err(|e| match e.kind() {
        ValidationErrorKind::Referencing(r) => {
            let why = r.to_string();
            OutputSchemaProblem::UnresolvedRef {
                external: matches!(r, jsonschema::ReferencingError::Unretrievable { .. }),
                why,
            }
        }
        _ => {
            let at = e.instance_path().as_str();
            OutputSchemaProblem::Invalid(if at.is_empty() {
                e.to_string()
            } else {
                format!("at {at}: {e}")
            })
        }
    })?;
    Ok(OutputSchema {
        validator,
        dialect: dialect_name(draft),
        foreign: dialect::foreign_keywords(schema, draft),
    })
}

/// A retriever that retrieves nothing: a `$ref` outside the schema document stays unresolved.
struct NoFetch;

impl jsonschema::Retrieve for NoFetch {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Err(format!("{uri} is outside the schema document and is not fetched").into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn valid(schema: Value, instance: Value) -> bool {
        compile(&schema).unwrap().validator.is_valid(&instance)
    }

    #[test]
    fn draft_07_tuples_are_tuples() {
        let s = json!({"$schema": "http://json-schema.org/draft-07/schema#",
                       "type": "array", "items": [{"type": "string"}, {"type": "number"}]});
        assert!(valid(s.clone(), json!(["a", 1])));
        assert!(!valid(s, json!([1, "a"])));
    }

    #[test]
    fn a_2020_12_keyword_under_draft_07_is_not_a_keyword() {
        let s = json!({"$schema": "http://json-schema.org/draft-07/schema#",
                       "type": "array", "prefixItems": [{"type": "string"}]});
        assert!(valid(s, json!([1])));
        let s = json!({"type": "array", "prefixItems": [{"type": "string"}]});
        assert!(!valid(s, json!([1])));
    }

    #[test]
    fn dependencies_asserts_only_where_the_dialect_defines_it() {
        let body = json!({"dependencies": {"a": ["b"]}});
        for (uri, asserts) in [
            ("http://json-schema.org/draft-04/schema#", true),
            ("http://json-schema.org/draft-07/schema#", true),
            ("https://json-schema.org/draft/2019-09/schema", false),
            ("https://json-schema.org/draft/2020-12/schema", false),
        ] {
            let mut s = body.clone();
            s["$schema"] = json!(uri);
            assert_eq!(!valid(s.clone(), json!({"a": 1})), asserts, "{uri}");
            let foreign = compile(&s).unwrap().foreign;
            assert_eq!(foreign.is_empty(), asserts, "{uri}");
        }
        assert!(valid(body, json!({"a": 1})));
    }

    #[test]
    fn dialects_are_named() {
        for (uri, name) in [
            ("http://json-schema.org/draft-04/schema#", "draft-04"),
            ("http://json-schema.org/draft-06/schema#", "draft-06"),
            ("http://json-schema.org/draft-07/schema", "draft-07"),
            ("https://json-schema.org/draft/2019-09/schema", "2019-09"),
            ("https://json-schema.org/draft/2020-12/schema", "2020-12"),
        ] {
            let c = compile(&json!({"$schema": uri, "type": "object"})).unwrap();
            assert_eq!(c.dialect, name, "{uri}");
        }
        assert_eq!(compile(&json!({})).unwrap().dialect, "2020-12");
    }

    #[test]
    fn unknown_dialects_and_refs_are_problems() {
        let e = compile(&json!({"$schema": "https://example.com/my-dialect", "type": "object"}))
            .unwrap_err();
        assert_eq!(
            e,
            OutputSchemaProblem::UnknownDialect("https://example.com/my-dialect".into())
        );
        let e = compile(&json!({"$ref": "https://example.com/s.json"})).unwrap_err();
        assert!(
            matches!(e, OutputSchemaProblem::UnresolvedRef { external: true, .. }),
            "{e:?}"
        );
        let e = compile(&json!({"$ref": "#/$defs/missing"})).unwrap_err();
        assert!(
            matches!(
                e,
                OutputSchemaProblem::UnresolvedRef {
                    external: false,
                    ..
                }
            ),
            "{e:?}"
        );
        let e = compile(&json!({"type": 5})).unwrap_err();
        assert!(matches!(e, OutputSchemaProblem::Invalid(_)), "{e:?}");
        let e = compile(&json!({"$schema": 7})).unwrap_err();
        assert!(matches!(e, OutputSchemaProblem::Invalid(_)), "{e:?}");
    }

    #[test]
    fn local_refs_resolve_in_every_dialect() {
        let s = json!({"$schema": "http://json-schema.org/draft-07/schema#",
                       "definitions": {"n": {"type": "number"}},
                       "properties": {"t": {"$ref": "#/definitions/n"}}});
        assert!(valid(s.clone(), json!({"t": 1})));
        assert!(!valid(s, json!({"t": "x"})));
        let s = json!({"$id": "https://example.com/root",
                       "$defs": {"n": {"type": "number"}},
                       "properties": {"t": {"$ref": "https://example.com/root#/$defs/n"}}});
        assert!(!valid(s, json!({"t": "x"})));
    }

    /// A `$ref` to a server that is listening is not fetched: the server sees no connection.
    #[test]
    fn nothing_is_fetched() {
        use std::net::TcpListener;
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        for uri in [
            format!("http://127.0.0.1:{port}/s.json"),
            format!("http://127.0.0.1:{port}/meta"),
        ] {
            let _ = compile(&json!({"$ref": uri}));
            let _ = compile(&json!({"$schema": uri, "type": "object"}));
        }
        assert!(
            listener.accept().is_err(),
            "the validator connected to a $ref's host"
        );
    }
}
