//! Finding duplicate object keys in raw JSON text. `serde_json::Value` keeps only the last of
//! repeated keys, silently; the spec requires some keys to be unique (`inputRequests`), so the
//! engine re-reads the text when such a rule applies. Only the path asked for is descended into;
//! everything else is skipped without being built, and keys are borrowed where the text allows.

use std::borrow::Cow;
use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};

/// The repeated keys of the object at `path` (a chain of object member names from the root),
/// each once, in the order their repetition appears. Invalid JSON, or no object at `path`,
/// yields what was found before (usually nothing).
pub fn duplicate_keys_at(text: &str, path: &[&str]) -> Vec<String> {
    let mut found = Vec::new();
    let mut de = serde_json::Deserializer::from_str(text);
    let _ = Descend {
        path,
        found: &mut found,
    }
    .deserialize(&mut de);
    found
}

struct Descend<'p, 'f> {
    path: &'p [&'p str],
    found: &'f mut Vec<String>,
}

impl<'de> DeserializeSeed<'de> for Descend<'_, '_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Descend<'_, '_> {
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
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let Some((head, rest)) = self.path.split_first() else {
            // The target object: collect its keys and report repeats.
            let mut seen: Vec<Cow<'de, str>> = Vec::new();
            while let Some(Key(k)) = map.next_key::<Key<'de>>()? {
                if seen.contains(&k) {
                    if !self.found.iter().any(|f| *f == *k) {
                        self.found.push(k.into_owned());
                    }
                } else {
                    seen.push(k);
                }
                map.next_value::<IgnoredAny>()?;
            }
            return Ok(());
        };
        while let Some(Key(k)) = map.next_key::<Key<'de>>()? {
            if k == *head {
                map.next_value_seed(Descend {
                    path: rest,
                    found: &mut *self.found,
                })?;
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        Ok(())
    }
}

/// An object key, borrowed from the text when it has no escapes.
struct Key<'de>(Cow<'de, str>);

impl<'de> serde::Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object key")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_str(V)
    }
}

#[cfg(test)]
mod tests {
    use super::duplicate_keys_at;

    const PATH: &[&str] = &["result", "inputRequests"];

    #[test]
    fn finds_repeats_at_the_path_only() {
        let t = r#"{"id":1,"result":{"x":{"a":1,"a":2},"inputRequests":{"a":{"x":1},"b":2,"a":{"x":2},"a":3},"k":[{"z":1,"z":2}]}}"#;
        assert_eq!(duplicate_keys_at(t, PATH), vec!["a".to_string()]);
        assert!(
            duplicate_keys_at(r#"{"result":{"inputRequests":{"a":1,"b":{"a":2}}}}"#, PATH)
                .is_empty()
        );
        assert!(duplicate_keys_at("{bad", PATH).is_empty());
        assert!(duplicate_keys_at(r#"{"result":[]}"#, PATH).is_empty());
        let escaped = r#"{"result":{"inputRequests":{"\u0061":1,"a":2}}}"#;
        assert_eq!(duplicate_keys_at(escaped, PATH), vec!["a".to_string()]);
    }
}
