//! Decoding one JSON string literal into text of exactly its length.
//!
//! Written by hand because `serde_json` offers no public way to decode a string literal but to
//! parse it, and its parser decodes an escaped string into a scratch buffer that grows by
//! doubling and is then copied: for a recorded body of 50 MB that is ~64 MB of scratch and the
//! 50 MB copy, on top of the file. This decoder writes into one buffer sized from the literal.
//! It is strict: anything `serde_json` would refuse (a control character, an unknown escape,
//! a lone surrogate) gives `None`, and the caller parses the literal with `serde_json`, which
//! stays the authority on what is valid and on the error message.

/// The text of a JSON string literal (with its quotes), or `None` when the literal is not one
/// `serde_json` would read into a `String`.
pub(crate) fn decode(literal: &str) -> Option<String> {
    let inner = literal.strip_prefix('"')?.strip_suffix('"')?;
    let bytes = inner.as_bytes();
    let mut out = String::with_capacity(inner.len());
    let mut i = 0;
    while i < bytes.len() {
        // Copy the run up to the next escape, refusing what must be escaped.
        let run = bytes[i..]
            .iter()
            .position(|&b| b == b'\\' || b == b'"' || b < 0x20)
            .map_or(bytes.len(), |n| i + n);
        out.push_str(&inner[i..run]);
        i = run;
        if i == bytes.len() {
            break;
        }
        if bytes[i] != b'\\' {
            return None;
        }
        let escape = *bytes.get(i + 1)?;
        i += 2;
        let c = match escape {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let first = hex4(bytes, i)?;
                i += 4;
                match first {
                    0xD800..=0xDBFF => {
                        // A leading surrogate must be followed by an escaped trailing one.
                        if bytes.get(i..i + 2)? != b"\\u" {
                            return None;
                        }
                        let second = hex4(bytes, i + 2)?;
                        if !(0xDC00..=0xDFFF).contains(&second) {
                            return None;
                        }
                        i += 6;
                        char::from_u32(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))?
                    }
                    0xDC00..=0xDFFF => return None,
                    n => char::from_u32(n)?,
                }
            }
            _ => return None,
        };
        out.push(c);
    }
    Some(out)
}

fn hex4(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    digits.iter().try_fold(0u32, |n, &d| {
        let v = char::from(d).to_digit(16)?;
        Some(n * 16 + v)
    })
}

#[cfg(test)]
mod tests {
    use super::decode;

    /// Decodes as `serde_json` does, or refuses where it refuses.
    fn agrees(literal: &str) {
        let theirs = serde_json::from_str::<String>(literal).ok();
        assert_eq!(decode(literal), theirs, "{literal}");
    }

    #[test]
    fn decodes_as_serde_json_does() {
        for literal in [
            r#""""#,
            r#""plain text""#,
            r#""line\nnext\r\n\t\"quoted\" \\ \/ \b\f""#,
            r#""caf\u00e9 \u20AC \ud83d\ude00 end""#,
            "\"raw unicode é € 😀\"",
            r#""event: message\ndata: {\"jsonrpc\":\"2.0\"}\n\n""#,
            r#""\u0000 nul""#,
        ] {
            agrees(literal);
        }
    }

    #[test]
    fn refuses_what_serde_json_refuses() {
        for literal in [
            r#""lone \ud83d leading""#,
            r#""lone \ude00 trailing""#,
            r#""\ud83d\u0041 not a pair""#,
            r#""bad \x escape""#,
            r#""short \u12""#,
            r#""not hex \u12g4""#,
            "\"raw\ncontrol\"",
            r#""ends in \"#,
            r#""unescaped " quote""#,
        ] {
            agrees(literal);
            assert_eq!(decode(literal), None, "{literal}");
        }
        assert_eq!(decode("no quotes"), None);
    }
}
