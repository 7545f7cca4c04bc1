//! HTTP header fields as an exchange records them: in the order received, names compared
//! case-insensitively, written in a file as an object or as a list of pairs.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// HTTP header fields in the order received. Names compare case-insensitively.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Headers(Vec<(String, String)>);

impl Headers {
    /// Builds headers from name/value pairs.
    pub fn new<I, N, V>(pairs: I) -> Headers
    where
        I: IntoIterator<Item = (N, V)>,
        N: Into<String>,
        V: Into<String>,
    {
        Headers(
            pairs
                .into_iter()
                .map(|(n, v)| (n.into(), v.into()))
                .collect(),
        )
    }

    /// The first value of a field, by case-insensitive name.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Every value of a field, by case-insensitive name.
    pub fn get_all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.0
            .iter()
            .filter(move |(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Appends a field.
    pub fn push(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.0.push((name.into(), value.into()));
    }

    /// All fields in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }

    /// Whether there are no fields.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A header value in the file format: one string, or a list for repeated fields.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(untagged)]
enum HeaderValue {
    One(String),
    Many(Vec<String>),
}

// Read by its first token rather than as an untagged enum, which would buffer every value
// into an intermediate tree and copy it again to try each variant in turn.
impl<'de> Deserialize<'de> for HeaderValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = HeaderValue;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a header value: a string, or a list of strings for a repeated field")
            }

            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<HeaderValue, E> {
                Ok(HeaderValue::One(v.to_owned()))
            }

            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<HeaderValue, E> {
                Ok(HeaderValue::One(v))
            }

            fn visit_seq<A: serde::de::SeqAccess<'de>>(
                self,
                mut seq: A,
            ) -> Result<HeaderValue, A::Error> {
                let mut values = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(16));
                while let Some(v) = seq.next_element::<String>()? {
                    values.push(v);
                }
                Ok(HeaderValue::Many(values))
            }
        }
        d.deserialize_any(Visitor)
    }
}

impl Serialize for Headers {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map: BTreeMap<&str, Vec<&str>> = BTreeMap::new();
        let mut order: Vec<&str> = Vec::new();
        for (n, v) in &self.0 {
            let key = order
                .iter()
                .find(|k| k.eq_ignore_ascii_case(n))
                .copied()
                .unwrap_or_else(|| {
                    order.push(n);
                    n
                });
            map.entry(key).or_default().push(v);
        }
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(order.len()))?;
        for k in order {
            let vs = &map[k];
            if vs.len() == 1 {
                m.serialize_entry(k, vs[0])?;
            } else {
                m.serialize_entry(k, vs)?;
            }
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for Headers {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        // serde_json keeps object order only with preserve_order, so the fields are put in
        // name order (byte order, as a `BTreeMap<String, _>` would hold them), a repeated
        // name keeping its last value; repeated fields are expressed as lists. Read straight
        // into the list: no map is built to be thrown away.
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Headers;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a map")
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Headers, A::Error> {
                let mut fields: Vec<(String, HeaderValue)> =
                    Vec::with_capacity(map.size_hint().unwrap_or(0).min(32));
                while let Some((name, value)) = map.next_entry::<String, HeaderValue>()? {
                    fields.push((name, value));
                }
                // Stable: of a repeated name, the last one read comes last and is kept.
                fields.sort_by(|a, b| a.0.cmp(&b.0));
                let mut h = Headers(Vec::with_capacity(fields.len()));
                let mut fields = fields.into_iter().peekable();
                while let Some((name, value)) = fields.next() {
                    if fields.peek().is_some_and(|(next, _)| *next == name) {
                        continue;
                    }
                    match value {
                        HeaderValue::One(v) => h.0.push((name, v)),
                        HeaderValue::Many(vs) => {
                            for v in vs {
                                h.0.push((name.clone(), v));
                            }
                        }
                    }
                }
                Ok(h)
            }
        }
        d.deserialize_map(Visitor)
    }
}

impl JsonSchema for Headers {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Headers".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let value = generator.subschema_for::<HeaderValue>();
        schemars::json_schema!({
            "description": "HTTP header fields: name to value, or to a list of values for a repeated field. Names are case-insensitive.",
            "type": "object",
            "additionalProperties": value,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_strings_or_lists_of_strings() {
        let h: Headers =
            serde_json::from_str(r#"{"X-B":["1","2"],"A":"one","C":"t\u00e9\"x"}"#).unwrap();
        let pairs: Vec<(&str, &str)> = h.iter().collect();
        assert_eq!(
            pairs,
            [("A", "one"), ("C", "té\"x"), ("X-B", "1"), ("X-B", "2")]
        );
        for bad in [
            r#"{"A":1}"#,
            r#"{"A":[1]}"#,
            r#"{"A":null}"#,
            r#"{"A":{"b":"c"}}"#,
        ] {
            let e = serde_json::from_str::<Headers>(bad).unwrap_err();
            assert!(
                e.to_string().contains("header value") || e.to_string().contains("string"),
                "{bad}: {e}"
            );
        }
        // A repeated name keeps its last value, as a map keyed by name would.
        let h: Headers = serde_json::from_str(r#"{"B":"1","A":"x","B":["2","3"]}"#).unwrap();
        let pairs: Vec<(&str, &str)> = h.iter().collect();
        assert_eq!(pairs, [("A", "x"), ("B", "2"), ("B", "3")]);
        for text in [r#"[]"#, r#""a""#, "1"] {
            let mine = serde_json::from_str::<Headers>(text)
                .unwrap_err()
                .to_string();
            let map = serde_json::from_str::<BTreeMap<String, HeaderValue>>(text)
                .unwrap_err()
                .to_string();
            assert_eq!(mine, map);
        }
        // Through a reader, strings arrive owned (or borrowed): the same fields.
        let h: Headers = serde_json::from_reader(&br#"{"A":"one"}"#[..]).unwrap();
        assert_eq!(h.get("a"), Some("one"));
    }
}
