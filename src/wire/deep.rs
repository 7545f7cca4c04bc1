//! JSON nested deeper than `serde_json`'s recursion limit.
//!
//! `serde_json` stops at [`SHALLOW`] (128) levels of nesting with an error that reads like a
//! syntax error. Every walk over a parsed value afterwards (the checks, schema validation,
//! comparison, serialisation, `Drop`) recurses once per level too, on the caller's stack. So a
//! document that nests deeper is read again without the limit, up to [`MAX_DEPTH`] levels, on
//! a stack grown for its depth ([`on_stack_for`]), and everything done with the value (the
//! whole judgement, and dropping it) runs on that stack. The common case pays nothing: a
//! document within 128 levels is parsed once, as before, on the caller's stack. A document
//! deeper than [`MAX_DEPTH`] is not read at all, and said to be too deep, not malformed.

use serde::Deserialize;
use serde_json::Value;

/// The deepest nesting read: a document (a body, an SSE event's data, the `response.body_json`
/// of an exchange file) nesting arrays and objects deeper than this is not judged.
pub const MAX_DEPTH: usize = 10_000;

/// `serde_json`'s recursion limit: a value within it is parsed and walked on the caller's stack.
pub const SHALLOW: usize = 128;

/// Stack reserved per level of nesting for a deep document's judgement, in bytes. The deepest
/// walk measured (a recursive output schema validating a deep `structuredContent`, unoptimised
/// build) takes about a quarter of this; the reservation is virtual memory, and only the pages a
/// walk touches are ever backed.
const STACK_PER_LEVEL: usize = 16 * 1024;

/// Stack reserved besides the levels, in bytes.
const STACK_BASE: usize = 4 << 20;

/// Why a JSON text was not read.
#[derive(Debug)]
pub enum JsonFailure {
    /// It is not JSON.
    Syntax(serde_json::Error),
    /// It nests deeper than [`MAX_DEPTH`].
    TooDeep {
        /// Byte offset of the bracket that opens level `MAX_DEPTH + 1`.
        offset: usize,
    },
}

/// Whether a `serde_json` error is its recursion limit (not a syntax error in the text).
pub fn is_depth_error(e: &serde_json::Error) -> bool {
    e.is_syntax() && e.to_string().starts_with("recursion limit exceeded")
}

/// The nesting depth of JSON text (arrays and objects; strings skipped), counted without
/// recursion, and the offset of the bracket that first goes past `limit`, if one does. On text
/// that is not JSON the count is a bound, not a verdict.
pub fn nesting(text: &[u8], limit: usize) -> (usize, Option<usize>) {
    let (mut depth, mut max) = (0usize, 0usize);
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in text.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return (depth, Some(i));
                }
                max = max.max(depth);
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    (max, None)
}

/// Runs `f` on a stack deep enough for walks over a value nested `depth` levels: the caller's
/// own stack within [`SHALLOW`] levels, else one grown for the depth.
pub fn on_stack_for<R>(depth: usize, f: impl FnOnce() -> R) -> R {
    if depth <= SHALLOW {
        f()
    } else {
        stacker::grow(STACK_BASE + depth.min(MAX_DEPTH + 1) * STACK_PER_LEVEL, f)
    }
}

/// Parses JSON text. Within [`SHALLOW`] levels this is `serde_json::from_str`; deeper text,
/// up to [`MAX_DEPTH`] levels, is parsed without the recursion limit on a grown stack. Returns
/// the value and its depth when it nests deeper than [`SHALLOW`] (0 otherwise): walks over the
/// value, and dropping it, must then run within [`on_stack_for`] that depth.
pub fn parse(text: &str) -> Result<(Value, usize), JsonFailure> {
    match serde_json::from_str::<Value>(text) {
        Ok(v) => Ok((v, 0)),
        Err(e) if is_depth_error(&e) => {
            let (depth, over) = nesting(text.as_bytes(), MAX_DEPTH);
            if let Some(offset) = over {
                return Err(JsonFailure::TooDeep { offset });
            }
            on_stack_for(depth, || unbounded(text))
                .map(|v| (v, depth))
                .map_err(JsonFailure::Syntax)
        }
        Err(e) => Err(JsonFailure::Syntax(e)),
    }
}

/// Parses JSON text of any depth and hands the value to `f`; the value is dropped on the stack
/// the text's depth needs, so `f` may keep nothing of it but what it returns.
pub fn parse_then<R>(text: &str, f: impl FnOnce(&Value) -> R) -> Result<R, JsonFailure> {
    match serde_json::from_str::<Value>(text) {
        Ok(v) => Ok(f(&v)),
        Err(e) if is_depth_error(&e) => {
            let (depth, over) = nesting(text.as_bytes(), MAX_DEPTH);
            if let Some(offset) = over {
                return Err(JsonFailure::TooDeep { offset });
            }
            on_stack_for(depth, || unbounded(text).map(|v| f(&v))).map_err(JsonFailure::Syntax)
        }
        Err(e) => Err(JsonFailure::Syntax(e)),
    }
}

/// `serde_json` without its recursion limit (call on a stack grown for the depth).
pub(crate) fn unbounded<T: for<'de> Deserialize<'de>>(text: &str) -> serde_json::Result<T> {
    let mut de = serde_json::Deserializer::from_str(text);
    de.disable_recursion_limit();
    let v = T::deserialize(&mut de)?;
    de.end()?;
    Ok(v)
}

/// Whether a value nests arrays and objects deeper than `limit` levels (counted without
/// recursion).
pub fn deeper_than(v: &Value, limit: usize) -> bool {
    let mut stack: Vec<(&Value, usize)> = vec![(v, 0)];
    while let Some((v, depth)) = stack.pop() {
        let children: Box<dyn Iterator<Item = &Value>> = match v {
            Value::Array(a) => Box::new(a.iter()),
            Value::Object(o) => Box::new(o.values()),
            _ => continue,
        };
        if depth + 1 > limit {
            return true;
        }
        stack.extend(children.map(|c| (c, depth + 1)));
    }
    false
}

/// A copy of `v` down to [`SHALLOW`] levels; anything deeper is replaced by a string saying
/// so. For values that leave a judgement (facts), so that nothing deep outlives the stack it
/// was judged on.
pub fn clone_shallow(v: &Value) -> Value {
    fn go(v: &Value, left: usize) -> Value {
        match v {
            Value::Array(a) if left == 0 && !a.is_empty() => cut(),
            Value::Object(o) if left == 0 && !o.is_empty() => cut(),
            Value::Array(a) => Value::Array(a.iter().map(|x| go(x, left - 1)).collect()),
            Value::Object(o) => Value::Object(
                o.iter()
                    .map(|(k, x)| (k.clone(), go(x, left - 1)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
    fn cut() -> Value {
        Value::String(format!("…(nested deeper than {SHALLOW} levels)"))
    }
    go(v, SHALLOW)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nested(depth: usize) -> String {
        "[".repeat(depth) + &"]".repeat(depth)
    }

    #[test]
    fn nesting_skips_strings() {
        assert_eq!(nesting(br#"{"a":"[[[{","b":[1,[2]]}"#, 10), (3, None));
        assert_eq!(nesting(br#"["\"[", [[]]]"#, 10), (3, None));
        assert_eq!(nesting(b"[[[", 2), (3, Some(2)));
    }

    #[test]
    fn shallow_text_parses_as_before() {
        let (v, depth) = parse(&nested(SHALLOW - 1)).unwrap();
        assert_eq!(depth, 0);
        assert!(v.is_array());
        assert!(matches!(parse("{,}"), Err(JsonFailure::Syntax(_))));
    }

    #[test]
    fn deep_text_parses_up_to_the_limit() {
        for depth in [SHALLOW + 1, 200, MAX_DEPTH] {
            let text = nested(depth);
            let (v, d) = parse(&text).unwrap();
            assert_eq!(d, depth);
            // Serialising and dropping need the grown stack too.
            let back = on_stack_for(d, move || serde_json::to_string(&v).unwrap());
            assert_eq!(back, text);
        }
        match parse(&nested(MAX_DEPTH + 1)) {
            Err(JsonFailure::TooDeep { offset }) => assert_eq!(offset, MAX_DEPTH),
            other => panic!("{other:?}"),
        }
        // A syntax error deep down is a syntax error, reported where it is.
        let bad = "[".repeat(300) + "x" + &"]".repeat(300);
        match parse(&bad) {
            Err(JsonFailure::Syntax(e)) => assert_eq!(e.column(), 301),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn depth_of_values() {
        let v = serde_json::json!({"a": [1, {"b": []}]});
        assert!(deeper_than(&v, 3));
        assert!(!deeper_than(&v, 4));
        assert_eq!(nesting(v.to_string().as_bytes(), 10), (4, None));
        assert!(!deeper_than(&serde_json::json!(1), 0));
    }

    #[test]
    fn parse_then_drops_on_the_grown_stack() {
        let n = parse_then(&nested(MAX_DEPTH), |v| v.as_array().map(Vec::len)).unwrap();
        assert_eq!(n, Some(1));
    }

    #[test]
    fn shallow_copies_stop_at_the_limit() {
        let (v, d) = parse(&nested(500)).unwrap();
        let copy = on_stack_for(d, move || clone_shallow(&v));
        let text = serde_json::to_string(&copy).unwrap();
        assert!(text.starts_with(&"[".repeat(SHALLOW)), "{text}");
        assert!(text.contains("nested deeper than"), "{text}");
        let small = serde_json::json!({"a": [1, {"b": null}], "c": "d"});
        assert_eq!(clone_shallow(&small), small);
    }
}
