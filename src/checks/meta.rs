//! `_meta` key names, wherever the protocol puts a `_meta`: on results, content blocks and
//! embedded resources, tool definitions, input requests, notifications and server requests on a
//! stream, and error responses' results alike. The walk goes through the protocol's own members
//! and stops at those that hold the application's data (arguments, structured content, schemas,
//! log data, error data), whose `_meta`-named members are not the protocol's.

use super::sequence::sequence;
use crate::check_api::{Cx, Eval, Hit, Params};
use crate::vocab::pointer::escape;
use crate::wire::jsonref::JsonRef;
use crate::wire::tape::{Node, Tok};

crate::check_api::declare_checks! {
    "meta_key_format" => meta_key_format, [], [], NONE,
        "a `_meta` key of the response, or of a message on its stream, does not follow the key-name format";
}

/// Whether a `_meta` key follows the key-name format of the base protocol: an optional prefix
/// of dot-separated labels (a letter first, a letter or digit last, letters, digits and `-`
/// between) ending in `/`, then a name that is empty or starts and ends alphanumerically with
/// letters, digits, `-`, `_` and `.` between. Keys are read byte by byte, once (this runs on
/// every `_meta` key of every result).
pub(crate) fn valid_meta_key(key: &str) -> bool {
    // The protocol's own prefix, on most keys, is a valid one.
    if let Some(name) = key.strip_prefix("io.modelcontextprotocol/") {
        return valid_meta_name(name.as_bytes());
    }
    let b = key.as_bytes();
    // A second `/` would sit in the name, where it is not allowed either: split at the first.
    match b.iter().position(|&c| c == b'/') {
        Some(i) => valid_meta_prefix(&b[..i]) && valid_meta_name(&b[i + 1..]),
        None => valid_meta_name(b),
    }
}

/// Dot-separated labels, each a letter first, a letter or digit last, letters, digits and `-`
/// between.
fn valid_meta_prefix(p: &[u8]) -> bool {
    let mut label_start = true;
    let mut prev = 0u8;
    for &c in p {
        let ok = if label_start {
            c.is_ascii_alphabetic()
        } else if c == b'.' {
            prev.is_ascii_alphanumeric()
        } else {
            c.is_ascii_alphanumeric() || c == b'-'
        };
        if !ok {
            return false;
        }
        label_start = c == b'.';
        prev = c;
    }
    !label_start && prev.is_ascii_alphanumeric()
}

/// Empty, or alphanumeric at both ends with letters, digits, `-`, `_` and `.` between.
fn valid_meta_name(n: &[u8]) -> bool {
    match n {
        [] => true,
        [only] => only.is_ascii_alphanumeric(),
        [first, middle @ .., last] => {
            first.is_ascii_alphanumeric()
                && last.is_ascii_alphanumeric()
                && middle
                    .iter()
                    .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
        }
    }
}

/// Members whose values are the application's data, not protocol structure.
const DATA: [&str; 8] = [
    "arguments",
    "structuredContent",
    "inputSchema",
    "outputSchema",
    "requestedSchema",
    "data",
    "metadata",
    "requestState",
];

/// The `_meta` keys under `v` (at pointer `at`) that do not follow the key-name format, as
/// `(pointer, key)`, by pointer: the same order whether `v` is on a tape (the document's order)
/// or parsed (sorted keys).
pub(crate) fn bad_meta_keys(v: JsonRef<'_>, at: &str, out: &mut Vec<(String, String)>) {
    // Most messages have no bad key: finding that out builds no pointer and allocates nothing;
    // the walk that locates them runs only when there is one.
    if !any_bad(v, 0) {
        return;
    }
    let from = out.len();
    walk(v, &mut at.to_string(), out, 0);
    out[from..].sort_unstable();
}

/// Nesting past this depth is not walked for `_meta` (the protocol's own structure is shallow).
const MAX_DEPTH: usize = 32;

/// Whether [`walk`] would find a key: the same members visited to the same depth, no pointer
/// built.
fn any_bad(v: JsonRef<'_>, depth: usize) -> bool {
    if let JsonRef::Tape(n) = v {
        return any_bad_on_tape(n, depth);
    }
    if depth > MAX_DEPTH {
        return false;
    }
    if v.is_array() {
        return v.items().any(|item| any_bad(item, depth + 1));
    }
    v.members().any(|(k, child)| {
        if k == "_meta" {
            child.members().any(|(key, _)| !valid_meta_key(key))
        } else {
            is_container(child) && !DATA.contains(&k) && any_bad(child, depth + 1)
        }
    })
}

/// [`any_bad`] on a tape, where most judgements' messages are: the same members visited to
/// the same depth, through the tape's own iterators, and a member's name held against [`DATA`]
/// only when its value could hold a `_meta` (an object or an array), since a scalar has no
/// member to walk.
fn any_bad_on_tape(n: Node<'_, '_>, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    match n.tok() {
        Tok::Array { .. } => n.items().any(|item| any_bad_on_tape(item, depth + 1)),
        Tok::Object { .. } => n.members().any(|(k, child)| {
            if k == "_meta" {
                child.members().any(|(key, _)| !valid_meta_key(key))
            } else {
                matches!(child.tok(), Tok::Array { .. } | Tok::Object { .. })
                    && !DATA.contains(&k)
                    && any_bad_on_tape(child, depth + 1)
            }
        }),
        _ => false,
    }
}

/// Whether `v` is an object or an array, the only values [`any_bad`] goes into.
fn is_container(v: JsonRef<'_>) -> bool {
    v.is_object() || v.is_array()
}

fn walk(v: JsonRef<'_>, at: &mut String, out: &mut Vec<(String, String)>, depth: usize) {
    if depth > MAX_DEPTH {
        return;
    }
    let len = at.len();
    if v.is_array() {
        for (i, item) in v.items().enumerate() {
            at.push_str(&format!("/{i}"));
            walk(item, at, out, depth + 1);
            at.truncate(len);
        }
        return;
    }
    for (k, child) in v.members() {
        at.push('/');
        at.push_str(&escape(k));
        if k == "_meta" {
            for (key, _) in child.members() {
                if !valid_meta_key(key) {
                    out.push((format!("{at}/{}", escape(key)), key.to_owned()));
                }
            }
        } else if !DATA.contains(&k) {
            walk(child, at, out, depth + 1);
        }
        at.truncate(len);
    }
}

/// Whether every `_meta` key under `v` follows the key-name format (a stream notification is
/// held as a digest only then, so that the check below sees every one that does not).
pub(crate) fn meta_keys_valid(v: JsonRef<'_>) -> bool {
    !any_bad(v, 0)
}

fn meta_key_format(cx: &Cx<'_>, _: &Params) -> Eval {
    let mut bad = Vec::new();
    if let Some(m) = cx.message() {
        bad_meta_keys(m, "", &mut bad);
    }
    let mut hits: Vec<Hit> = bad.drain(..).map(|(at, key)| hit(at, &key, None)).collect();
    if let Some(s) = sequence(cx) {
        let final_index = s.final_index;
        for (i, m) in s.messages.iter().enumerate() {
            // The response is judged above; a digested notification was accepted with valid keys.
            if Some(i) == final_index {
                continue;
            }
            if let Some(v) = &m.value {
                bad_meta_keys(JsonRef::Value(v), "", &mut bad);
                hits.extend(bad.drain(..).map(|(at, key)| hit(at, &key, Some(m.event))));
            }
        }
    }
    let judged = cx.message().is_some() || sequence(cx).is_some();
    if !judged {
        return Eval::NotApplicable;
    }
    Eval::from_hits(hits)
}

fn hit(at: String, key: &str, event: Option<usize>) -> Hit {
    let message = format!(
        "`_meta` key \"{key}\" does not follow the key-name format (optional dotted prefix of letter-led labels plus `/`, then an alphanumeric-delimited name)"
    );
    match event {
        Some(e) => Hit::in_event(e, at, message),
        None => Hit::new(at, message),
    }
}

#[cfg(test)]
mod tests {
    use super::valid_meta_key;

    /// The format read off the rule's wording: the prefix is what comes before the last `/`.
    fn reference(key: &str) -> bool {
        let b = key.as_bytes();
        let (prefix, name) = match b.iter().rposition(|&c| c == b'/') {
            Some(i) => (Some(&b[..i]), &b[i + 1..]),
            None => (None, b),
        };
        if let Some(prefix) = prefix {
            let ok = prefix.split(|&c| c == b'.').all(|label| {
                matches!(label, [first, .., last] if first.is_ascii_alphabetic() && last.is_ascii_alphanumeric())
                    || matches!(label, [only] if only.is_ascii_alphabetic())
            }) && prefix
                .iter()
                .all(|&c| c.is_ascii_alphanumeric() || c == b'-' || c == b'.');
            if !ok {
                return false;
            }
        }
        match name {
            [] => true,
            [only] => only.is_ascii_alphanumeric(),
            [first, middle @ .., last] => {
                first.is_ascii_alphanumeric()
                    && last.is_ascii_alphanumeric()
                    && middle
                        .iter()
                        .all(|&c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
            }
        }
    }

    /// The one-pass reader agrees with the reference on every key of up to six characters
    /// drawn from the characters that matter.
    #[test]
    fn one_pass_matches_reference() {
        let alphabet = [b'a', b'Z', b'7', b'-', b'_', b'.', b'/', b' '];
        let mut key = Vec::new();
        for len in 0..=6u32 {
            for mut n in 0..alphabet.len().pow(len) {
                key.clear();
                for _ in 0..len {
                    key.push(alphabet[n % alphabet.len()]);
                    n /= alphabet.len();
                }
                let k = std::str::from_utf8(&key).unwrap();
                assert_eq!(valid_meta_key(k), reference(k), "{k:?}");
                // Behind the protocol's prefix (read apart) and prefixes like it.
                if len <= 4 {
                    for prefix in [
                        "io.modelcontextprotocol/",
                        "io.modelcontextprotocol",
                        "io.modelcontextprotocol.x/",
                        "io.modelcontextprotocol-/",
                    ] {
                        let k = format!("{prefix}{k}");
                        assert_eq!(valid_meta_key(&k), reference(&k), "{k:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn meta_keys() {
        for ok in [
            crate::vocab::protocol::meta::SERVER_INFO,
            "com.example/x",
            "plain",
            "a.b-c_d",
            "com.example/",
            "progressToken",
        ] {
            assert!(valid_meta_key(ok), "{ok}");
        }
        for bad in [
            "-x",
            "x-",
            "1com.example/x",
            "com..example/x",
            "com.example-/x",
            "a b",
        ] {
            assert!(!valid_meta_key(bad), "{bad}");
        }
    }

    /// The walk that finds nothing builds no pointer ([`super::any_bad`]); it must say "none"
    /// exactly when the locating walk finds none: bad keys at the top, deep, under arrays, in
    /// the application's data (not walked) and past the depth limit (not walked), on a parsed
    /// value and on a tape.
    #[test]
    fn any_bad_agrees_with_the_locating_walk() {
        use crate::wire::jsonref::JsonRef;
        use serde_json::json;
        let mut deep = json!({"_meta": {"-bad": 1}});
        for _ in 0..40 {
            deep = json!({"x": [deep]});
        }
        let docs = [
            json!({"_meta": {"ok": 1}}),
            json!({"_meta": {"-bad": 1}}),
            json!({"result": {"content": [{"type": "text", "_meta": {"x-": 1}}]}}),
            json!({"result": {"content": [{"type": "text", "_meta": {"fine": 1}}]}}),
            json!({"params": {"arguments": {"_meta": {"-bad": 1}}}}),
            json!({"result": {"structuredContent": {"_meta": {"-bad": 1}}, "_meta": "no"}}),
            json!([[{"_meta": {"a b": 1}}]]),
            deep,
        ];
        for doc in &docs {
            let mut located = Vec::new();
            let mut at = String::new();
            super::walk(JsonRef::Value(doc), &mut at, &mut located, 0);
            assert_eq!(
                super::any_bad(JsonRef::Value(doc), 0),
                !located.is_empty(),
                "{doc}"
            );
            let text = doc.to_string();
            if let Some(tape) = crate::wire::tape::Tape::read(&text) {
                let on_tape = JsonRef::Tape(tape.root());
                assert_eq!(super::any_bad(on_tape, 0), !located.is_empty(), "{doc}");
            }
        }
    }
}
