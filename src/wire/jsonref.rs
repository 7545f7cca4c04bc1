//! [`JsonRef`]: one JSON value as the checks read it, either a parsed `serde_json::Value` or a
//! value on a [`tape`] (borrowed tokens, no `Value` built).
//!
//! A response body that reads onto a tape is judged there, and its `Value` is built only when
//! a check needs one (a schema error's path and message, a tool list's schemas). Messages of a
//! stream, and bodies the tape does not read, are `Value`s. Both read alike: the tape holds
//! what `serde_json` would have read (see [`tape`]).

use std::borrow::Cow;

use serde_json::Value;

use super::tape::{self, Node, Tok};

/// A JSON value, parsed or on a tape.
#[derive(Clone, Copy, Debug)]
pub enum JsonRef<'a> {
    /// A parsed value.
    Value(&'a Value),
    /// A value on a tape.
    Tape(Node<'a, 'a>),
}

impl<'a> From<&'a Value> for JsonRef<'a> {
    fn from(v: &'a Value) -> Self {
        JsonRef::Value(v)
    }
}

impl<'a> JsonRef<'a> {
    /// The member `name` of an object.
    pub fn get(self, name: &str) -> Option<JsonRef<'a>> {
        match self {
            JsonRef::Value(v) => v.as_object()?.get(name).map(JsonRef::Value),
            JsonRef::Tape(n) => n.get(name).map(JsonRef::Tape),
        }
    }

    /// The string, when it is one.
    pub fn as_str(self) -> Option<&'a str> {
        match self {
            JsonRef::Value(v) => v.as_str(),
            JsonRef::Tape(n) => n.as_str(),
        }
    }

    /// The boolean, when it is one.
    pub fn as_bool(self) -> Option<bool> {
        match self {
            JsonRef::Value(v) => v.as_bool(),
            JsonRef::Tape(n) => match n.tok() {
                Tok::Bool(b) => Some(*b),
                _ => None,
            },
        }
    }

    /// Whether it is `true`.
    pub fn is_true(self) -> bool {
        self.as_bool() == Some(true)
    }

    /// Whether it is an object.
    pub fn is_object(self) -> bool {
        match self {
            JsonRef::Value(v) => v.is_object(),
            JsonRef::Tape(n) => n.is_object(),
        }
    }

    /// Whether it is an array.
    pub fn is_array(self) -> bool {
        match self {
            JsonRef::Value(v) => v.is_array(),
            JsonRef::Tape(n) => matches!(n.tok(), Tok::Array { .. }),
        }
    }

    /// Whether it is a string.
    pub fn is_string(self) -> bool {
        self.as_str().is_some()
    }

    /// Whether it is `null`.
    pub fn is_null(self) -> bool {
        match self {
            JsonRef::Value(v) => v.is_null(),
            JsonRef::Tape(n) => matches!(n.tok(), Tok::Null),
        }
    }

    /// Whether it is a number.
    pub fn is_number(self) -> bool {
        match self {
            JsonRef::Value(v) => v.is_number(),
            JsonRef::Tape(n) => n.number_text().is_some(),
        }
    }

    /// A number's text, when it is one: as written on a tape, as `serde_json` kept it in a
    /// `Value` (`1E5` is kept as `1e+5`), so equal texts are equal numbers but not conversely.
    pub fn number_text(self) -> Option<&'a str> {
        match self {
            JsonRef::Value(v) => v.as_number().map(serde_json::Number::as_str),
            JsonRef::Tape(n) => n.number_text(),
        }
    }

    /// The members of an object (none for anything else), in document order.
    pub fn members(self) -> impl Iterator<Item = (&'a str, JsonRef<'a>)> {
        let (parsed, taped) = match self {
            JsonRef::Value(v) => (v.as_object().map(|m| m.iter()), None),
            JsonRef::Tape(n) => (None, Some(n.members())),
        };
        let parsed = parsed
            .into_iter()
            .flatten()
            .map(|(k, v)| (k.as_str(), JsonRef::Value(v)));
        let taped = taped
            .into_iter()
            .flatten()
            .map(|(k, v)| (k, JsonRef::Tape(v)));
        parsed.chain(taped)
    }

    /// The items of an array (none for anything else).
    pub fn items(self) -> impl Iterator<Item = JsonRef<'a>> {
        let (parsed, taped) = match self {
            JsonRef::Value(v) => (v.as_array().map(|a| a.iter()), None),
            JsonRef::Tape(n) => (None, Some(n.items())),
        };
        let parsed = parsed.into_iter().flatten().map(JsonRef::Value);
        let taped = taped.into_iter().flatten().map(JsonRef::Tape);
        parsed.chain(taped)
    }

    /// How many members an object has, or items an array has (0 for anything else).
    pub fn len(self) -> usize {
        match self {
            JsonRef::Value(Value::Object(m)) => m.len(),
            JsonRef::Value(Value::Array(a)) => a.len(),
            JsonRef::Value(_) => 0,
            JsonRef::Tape(n) => match n.tok() {
                Tok::Object { .. } => n.members().count(),
                Tok::Array { .. } => n.items().count(),
                _ => 0,
            },
        }
    }

    /// Whether it has no member or item (true for anything but an object or array).
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// An integer, written either way (`-32602` or `-32602.0`), as
    /// [`crate::wire::number::as_integer`] reads one.
    pub fn as_integer(self) -> Option<i64> {
        match self {
            JsonRef::Value(v) => super::number::as_integer(v),
            JsonRef::Tape(n) => {
                let text = n.number_text()?;
                match text.parse::<i64>() {
                    Ok(i) => Some(i),
                    Err(_) => super::number::as_integer(&Value::Number(tape::number(text)?)),
                }
            }
        }
    }

    /// The value as `serde_json` reads it: borrowed when it was parsed, built from the tape
    /// otherwise.
    pub fn to_value(self) -> Cow<'a, Value> {
        match self {
            JsonRef::Value(v) => Cow::Borrowed(v),
            JsonRef::Tape(n) => Cow::Owned(n.to_value()),
        }
    }

    /// Whether it is `v`, as `serde_json` compares values.
    pub fn equals(self, v: &Value) -> bool {
        match self {
            JsonRef::Value(x) => x == v,
            JsonRef::Tape(n) => n.equals(v),
        }
    }
}

impl std::fmt::Display for JsonRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            JsonRef::Value(v) => v.fmt(f),
            JsonRef::Tape(n) => n.to_value().fmt(f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXTS: &[&str] = &[
        r#"{"a":1,"b":[true,null,"x\u0041"],"c":{"d":-3.0},"e":"","f":false}"#,
        r#"[1,2.5e3,-32602,-32602.0,"s",{},[]]"#,
        r#""text""#,
        "12345678901234567890123",
        "null",
    ];

    /// Every read of a value on a tape answers as the same read of its `serde_json` parse.
    #[test]
    fn tape_and_value_read_alike() {
        fn same(a: JsonRef<'_>, b: JsonRef<'_>) {
            assert_eq!(a.as_str(), b.as_str());
            assert_eq!(a.as_bool(), b.as_bool());
            assert_eq!(a.is_object(), b.is_object());
            assert_eq!(a.is_array(), b.is_array());
            assert_eq!(a.is_null(), b.is_null());
            assert_eq!(a.is_number(), b.is_number());
            assert_eq!(a.len(), b.len());
            assert_eq!(a.as_integer(), b.as_integer());
            assert_eq!(a.to_value(), b.to_value());
            assert_eq!(a.to_string(), b.to_string());
            assert!(a.equals(&b.to_value()));
            let (ma, mb): (Vec<_>, Vec<_>) = (a.members().collect(), b.members().collect());
            assert_eq!(ma.len(), mb.len());
            for (k, x) in &ma {
                let y = b.get(k).expect("the same member");
                same(*x, y);
            }
            let (ia, ib): (Vec<_>, Vec<_>) = (a.items().collect(), b.items().collect());
            assert_eq!(ia.len(), ib.len());
            for (x, y) in ia.into_iter().zip(ib) {
                same(x, y);
            }
        }
        for text in TEXTS {
            let tape = tape::Tape::read(text).expect("the tape reads it");
            let value: Value = serde_json::from_str(text).expect("JSON");
            same(JsonRef::Tape(tape.root()), JsonRef::Value(&value));
        }
    }

    #[test]
    fn integers_read_either_way() {
        for (text, want) in [
            ("-32602", Some(-32602)),
            ("-32602.0", Some(-32602)),
            ("-32602.5", None),
            ("1e3", Some(1000)),
            ("\"1\"", None),
        ] {
            let tape = tape::Tape::read(text).expect("the tape reads it");
            assert_eq!(JsonRef::Tape(tape.root()).as_integer(), want, "{text}");
        }
    }
}
