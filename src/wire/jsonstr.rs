//! Decoding one JSON string literal into text of exactly its length.
//!
//! Written by hand because `serde_json` offers no public way to decode a string literal but to
//! parse it, and its parser decodes an escaped string into a scratch buffer that grows by
//! doubling and is then copied: for a recorded body of 50 MB that is ~64 MB of scratch and the
//! 50 MB copy, on top of the file. This decoder writes into one buffer sized from the literal,
//! and finds the literal's end as it decodes (the tape reads an escaped string in one pass).
//! It is strict: anything `serde_json` would refuse (a control character, an unknown escape,
//! a lone surrogate) gives `None`, and the caller parses the literal with `serde_json`, which
//! stays the authority on what is valid and on the error message.

/// The text of a JSON string literal (with its quotes), or `None` when the literal is not one
/// `serde_json` would read into a `String`.
pub(crate) fn decode(literal: &str) -> Option<String> {
    // Not a literal: refused before its text is scanned.
    if literal.as_bytes().first() != Some(&b'"') {
        return None;
    }
    match decode_prefix(literal, plain_run_end(literal.as_bytes(), 1), literal.len())? {
        (text, len) if len == literal.len() => Some(text),
        _ => None,
    }
}

/// The text of the JSON string literal `text` starts with, and the literal's length (quotes
/// included), or `None` when it does not start with one `serde_json` would read into a
/// `String`. `plain` is where the plain run after the opening quote ends (as
/// [`plain_run_end`] finds it from index 1: the caller has usually looked already, and it is
/// not scanned again). The text is written into one buffer of `capacity` bytes, grown only
/// when the decoded text is longer.
pub(crate) fn decode_prefix(text: &str, plain: usize, capacity: usize) -> Option<(String, usize)> {
    let bytes = text.as_bytes();
    if bytes.first() != Some(&b'"') {
        return None;
    }
    debug_assert_eq!(
        plain,
        plain_run_end(bytes, 1),
        "`plain` is where the first run ends"
    );
    let mut out = String::with_capacity(capacity);
    out.push_str(text.get(1..plain)?);
    let mut i = plain;
    loop {
        match *bytes.get(i)? {
            b'"' => return Some((out, i + 1)),
            b'\\' => {}
            _ => return None,
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
        // Copy the run up to the next escape, refusing what must be escaped.
        let run = plain_run_end(bytes, i);
        out.push_str(&text[i..run]);
        i = run;
    }
}

/// The index of the first byte at or after `i` that is a quote, a backslash or a control
/// character (below 0x20), or `bytes.len()`: eight bytes at a time (the usual word tests for
/// a zero byte and a byte below a bound; they may flag a byte above one that holds, through the
/// borrow, but never below, so the lowest flagged byte is the first that holds).
pub(crate) fn plain_run_end(bytes: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    while let Some(chunk) = bytes.get(i..i + 8) {
        let w = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let special = has_zero(w ^ (ONES * u64::from(b'"')))
            | has_zero(w ^ (ONES * u64::from(b'\\')))
            | (w.wrapping_sub(ONES * 0x20) & !w & HIGH);
        if special != 0 {
            // Little-endian: the first byte is the lowest.
            return i + (special.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&b) = bytes.get(i) {
        if b == b'"' || b == b'\\' || b < 0x20 {
            return i;
        }
        i += 1;
    }
    i
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
    use super::{decode, decode_prefix, plain_run_end};

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

    /// A literal followed by more text is decoded up to its closing quote, which ends it
    /// however much follows.
    #[test]
    fn decodes_the_literal_a_text_starts_with() {
        let prefix = |text: &str| decode_prefix(text, plain_run_end(text.as_bytes(), 1), 0);
        let text = r#""a\n\"b\u00e9" , "next""#;
        assert_eq!(prefix(text), Some(("a\n\"bé".to_string(), 14)));
        assert_eq!(prefix(r#""plain" x"#), Some(("plain".to_string(), 7)));
        assert_eq!(prefix(r#"x"plain""#), None);
        assert_eq!(prefix(r#""open \n"#), None);
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

    /// What `plain_run_end` finds, a byte at a time.
    fn slow(b: &[u8], i: usize) -> usize {
        (i..b.len())
            .find(|&j| b[j] == b'"' || b[j] == b'\\' || b[j] < 0x20)
            .unwrap_or(b.len())
    }

    #[test]
    fn finds_the_first_special_byte_as_a_byte_loop_does() {
        let mut text: Vec<u8> = "plain ascii, é 😀 \u{7f} ~ text of some length"
            .bytes()
            .collect();
        text.extend([0xff, 0x80, 0x9f, 0x21, 0x5b, 0x5d]);
        for special in [b'"', b'\\', 0x00, 0x1f, b'\n', 0x20, 0x7f, 0xe9] {
            for at in 0..text.len() {
                let mut b = text.clone();
                b[at] = special;
                for start in 0..b.len() {
                    assert_eq!(
                        plain_run_end(&b, start),
                        slow(&b, start),
                        "{b:?} from {start}"
                    );
                }
            }
        }
    }

    /// Two special bytes in one word: the first is found, whatever the second (a byte the
    /// borrow of the first may flag too).
    #[test]
    fn finds_the_first_of_two_special_bytes() {
        let specials = [0x00, 0x01, 0x1f, b'"', b'\\'];
        let others = [0x20, 0x21, b'#', b']', 0x5d, 0x80, 0xff];
        for &a in &specials {
            for &b in specials.iter().chain(&others) {
                for at in 0..20 {
                    for next in at + 1..24 {
                        let mut text = vec![b'x'; 24];
                        text[at] = a;
                        text[next] = b;
                        for start in 0..text.len() {
                            assert_eq!(plain_run_end(&text, start), slow(&text, start));
                        }
                    }
                }
            }
        }
    }
}
