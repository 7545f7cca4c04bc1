//! Finding duplicate object keys in raw JSON text. `serde_json::Value` keeps only the last of
//! repeated keys, silently; the spec requires some keys to be unique (`inputRequests`), so the
//! engine re-reads the text when such a rule applies.

use std::collections::HashSet;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// JSON Pointers of every repeated key (the pointer of the repeated member). Invalid JSON
/// yields what was found before the error.
pub fn duplicate_keys(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut de = serde_json::Deserializer::from_str(text);
    let _ = Walk {
        path: String::new(),
        found: &mut found,
    }
    .deserialize(&mut de);
    found
}

struct Walk<'a> {
    path: String,
    found: &'a mut Vec<String>,
}

fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

impl<'de> DeserializeSeed<'de> for Walk<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Walk<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }
    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }
    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }
    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }
    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }
    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut i = 0usize;
        loop {
            let seed = Walk {
                path: format!("{}/{i}", self.path),
                found: &mut *self.found,
            };
            if seq.next_element_seed(seed)?.is_none() {
                return Ok(());
            }
            i += 1;
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            let path = format!("{}/{}", self.path, escape(&key));
            if !seen.insert(key) {
                self.found.push(path.clone());
            }
            map.next_value_seed(Walk {
                path,
                found: &mut *self.found,
            })?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::duplicate_keys;

    #[test]
    fn finds_repeats_with_pointers() {
        let t = r#"{"result":{"inputRequests":{"a":{"x":1},"a":{"x":2}},"k":[{"z":1,"z":2}]}}"#;
        assert_eq!(
            duplicate_keys(t),
            vec![
                "/result/inputRequests/a".to_string(),
                "/result/k/0/z".to_string()
            ]
        );
        assert!(duplicate_keys(r#"{"a":1,"b":{"a":2}}"#).is_empty());
        assert!(duplicate_keys("{bad").is_empty());
    }
}
