//! JSON text that escapes a lone UTF-16 surrogate (`"\uD800"`, a `\uDC00` without its leading
//! half).
//!
//! RFC 8259 §8.2 says such text is JSON: its grammar allows string values "that cannot encode
//! Unicode characters", and leaves what receivers make of them unpredictable. `serde_json`
//! refuses it (a Rust `String` cannot hold a lone surrogate), so this module finds the lone
//! escapes and reads the text with `\uFFFD` in their place: the same length, so every offset
//! stays where it was, and the same text a JavaScript or Python receiver would show. The
//! reading is only tried when `serde_json` has refused the text, so well-formed bodies never
//! pay for it.

use serde_json::Value;

use crate::wire::deep::{self, JsonFailure};

/// The first lone surrogate escape a JSON text holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LoneSurrogate {
    /// Byte offset of its backslash in the text.
    pub offset: usize,
    /// How many lone surrogate escapes the text holds.
    pub count: usize,
}

/// The text with each lone surrogate escape inside a string replaced by `\uFFFD`, and where the
/// first was; `None` when it has none.
fn replaced(text: &str) -> Option<(String, LoneSurrogate)> {
    let b = text.as_bytes();
    let hex = |at: usize| -> Option<u32> {
        let digits = b.get(at..at + 4)?;
        u32::from_str_radix(std::str::from_utf8(digits).ok()?, 16).ok()
    };
    let escape_at = |at: usize| -> Option<u32> {
        (b.get(at) == Some(&b'\\') && b.get(at + 1) == Some(&b'u'))
            .then(|| hex(at + 2))
            .flatten()
    };
    let mut lone = Vec::new();
    let (mut i, mut in_string) = (0, false);
    while i < b.len() {
        match b[i] {
            b'"' => in_string = !in_string,
            b'\\' if in_string => match escape_at(i) {
                Some(0xD800..=0xDBFF) => {
                    let paired = escape_at(i + 6).is_some_and(|l| (0xDC00..=0xDFFF).contains(&l));
                    if paired {
                        i += 12;
                        continue;
                    }
                    lone.push(i);
                    i += 6;
                    continue;
                }
                Some(0xDC00..=0xDFFF) => {
                    lone.push(i);
                    i += 6;
                    continue;
                }
                // Any other escape: skip the backslash and the escaped character.
                _ => i += 1,
            },
            _ => {}
        }
        i += 1;
    }
    let first = *lone.first()?;
    let mut out = text.to_owned();
    for at in &lone {
        out.replace_range(at + 2..at + 6, "FFFD");
    }
    Some((
        out,
        LoneSurrogate {
            offset: first,
            count: lone.len(),
        },
    ))
}

/// Parses JSON text as [`deep::parse`] does; text that parses only once its lone surrogate
/// escapes are read as U+FFFD is parsed that way, and says where the first was. Any other
/// failure is the original text's.
pub fn parse(text: &str) -> Result<(Value, usize, Option<LoneSurrogate>), JsonFailure> {
    match deep::parse(text) {
        Ok((v, depth)) => Ok((v, depth, None)),
        Err(first) => match replaced(text) {
            Some((fixed, lone)) => match deep::parse(&fixed) {
                Ok((v, depth)) => Ok((v, depth, Some(lone))),
                Err(_) => Err(first),
            },
            None => Err(first),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_escapes_read_as_the_replacement_character() {
        for (text, offset, count) in [
            (r#"{"a":"\ud800"}"#, 6, 1),
            (r#"{"a":"x\uDC00y"}"#, 7, 1),
            (r#"{"a":"\ud800\u0041","\udfff":1}"#, 6, 2),
            (r#"["\ud83d\ude00", "\ud83d"]"#, 18, 1),
        ] {
            let (v, _, lone) = parse(text).unwrap();
            assert_eq!(lone, Some(LoneSurrogate { offset, count }), "{text}");
            assert!(v.to_string().contains('\u{FFFD}'), "{text}");
        }
        let (v, _, _) = parse(r#"{"a":"x\uDC00y"}"#).unwrap();
        assert_eq!(v["a"], "x\u{FFFD}y");
    }

    #[test]
    fn pairs_escaped_backslashes_and_other_failures_are_left_alone() {
        let (v, _, lone) = parse(r#"["\ud83d\ude00", "\\ud800"]"#).unwrap();
        assert_eq!(lone, None);
        assert_eq!(v[0], "\u{1F600}");
        assert_eq!(v[1], "\\ud800");
        // Broken for another reason too: the original failure stands.
        assert!(parse(r#"{"a":"\ud800",}"#).is_err());
        assert!(parse(r#"{"a":"\ud80"}"#).is_err());
        // Outside a string it is no escape.
        assert!(parse(r#"{"a":1} \ud800"#).is_err());
    }
}
