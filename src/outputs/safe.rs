//! Text that came from an exchange (a server's `resultType`, an error message, a tool name, a
//! URL, a file name) is shown, never obeyed: every output escapes it here before it reaches a
//! terminal or a report.
//!
//! Unsafe characters are the C0 controls (ESC starts ANSI and OSC sequences: colours, the
//! terminal title, clearing the screen, hyperlinks), DEL, the C1 controls (U+0080 to U+009F,
//! which some terminals read as CSI and OSC too), the bidirectional formatting characters
//! (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069: they reorder what is shown)
//! and the line and paragraph separators U+2028 and U+2029.
//!
//! - [`text`] replaces each with a visible escape (`\n`, `\t`, `\r`, else `\u{1b}`), for
//!   one-line text in a terminal or a report (HTML, Markdown, XML and workflow-command
//!   escaping come after it);
//! - [`json`] rewrites the ones that JSON serialisers leave raw (DEL, C1, bidi, separators) as
//!   `\uXXXX` escapes in a serialised document: the parsed data is the same, the bytes are safe
//!   to print.

use std::borrow::Cow;

/// Whether `c` must not reach a terminal or a report as it is.
pub fn is_unsafe(c: char) -> bool {
    matches!(c,
        '\u{0}'..='\u{1f}'
        | '\u{7f}'..='\u{9f}'
        | '\u{61c}'
        | '\u{200e}' | '\u{200f}'
        | '\u{2028}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}')
}

/// Whether UTF-8 text holds an unsafe character, decided on its bytes: every one is a byte
/// below 0x20, DEL (0x7F), or a sequence led by 0xC2 (the C1 controls), 0xD8 (U+061C) or 0xE2
/// (U+200E to U+2069). A pass over the bytes for those values (which the compiler vectorises)
/// clears nearly every text; only a text with such a byte has its sequences looked at. The
/// per-character test this replaces decoded every character of every output line. With
/// `json_space`, the whitespace JSON allows between tokens (tab, line feed, carriage return)
/// does not count.
fn has_unsafe(s: &str, json_space: bool) -> bool {
    if json_space {
        has_unsafe_bytes::<true>(s.as_bytes())
    } else {
        has_unsafe_bytes::<false>(s.as_bytes())
    }
}

/// [`has_unsafe`] on bytes: blocks of 32 bytes are tested without branching (so the compiler
/// vectorises the test), and only a block holding a lead byte is looked at byte by byte.
fn has_unsafe_bytes<const JSON_SPACE: bool>(b: &[u8]) -> bool {
    #[inline(always)]
    fn lead<const JSON_SPACE: bool>(c: u8) -> bool {
        let space = JSON_SPACE & ((c == b'\t') | (c == b'\n') | (c == b'\r'));
        ((c < 0x20) & !space) | (c == 0x7f) | (c == 0xc2) | (c == 0xd8) | (c == 0xe2)
    }
    const BLOCK: usize = 32;
    for (k, block) in b.chunks(BLOCK).enumerate() {
        if !block
            .iter()
            .fold(false, |any, &c| any | lead::<JSON_SPACE>(c))
        {
            continue;
        }
        for (j, &c) in block.iter().enumerate() {
            let i = k * BLOCK + j;
            let unsafe_here = match c {
                0x00..=0x1f | 0x7f => lead::<JSON_SPACE>(c),
                0xc2 => b.get(i + 1).is_some_and(|&n| n <= 0x9f),
                0xd8 => b.get(i + 1) == Some(&0x9c),
                0xe2 => matches!(
                    (b.get(i + 1), b.get(i + 2)),
                    (Some(0x80), Some(0x8e | 0x8f | 0xa8..=0xae)) | (Some(0x81), Some(0xa6..=0xa9))
                ),
                _ => false,
            };
            if unsafe_here {
                return true;
            }
        }
    }
    false
}

/// `s` with every unsafe character replaced by a visible escape: `\n`, `\r`, `\t`, else
/// `\u{HEX}` (lower-case hex, as Rust writes it). Borrowed when there is nothing to escape.
pub fn text(s: &str) -> Cow<'_, str> {
    if !has_unsafe(s, false) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if is_unsafe(c) => {
                use std::fmt::Write as _;
                let _ = write!(out, "\\u{{{:x}}}", c as u32);
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// [`text`] for each line of `s`, keeping the line breaks (for multi-line text the program
/// composed, e.g. a diff, whose lines quote exchange values).
pub fn lines(s: &str) -> String {
    s.split('\n')
        .map(|l| text(l).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A serialised JSON document with the characters serialisers leave raw inside strings (DEL,
/// C1 controls, bidi formatting, U+2028 and U+2029) written as `\uXXXX` escapes. The document
/// parses to the same value. C0 controls are escaped by every JSON serialiser already; they
/// are rewritten too should one appear.
pub fn json(doc: String) -> String {
    if !has_unsafe(&doc, true) {
        return doc;
    }
    let mut out = String::with_capacity(doc.len() + 16);
    for c in doc.chars() {
        if is_unsafe_in_json(c) {
            use std::fmt::Write as _;
            let _ = write!(out, "\\u{:04x}", c as u32);
        } else {
            out.push(c);
        }
    }
    out
}

/// Serialises `value` as pretty JSON straight into `w`, with the escapes of [`json`] (the
/// same bytes as `json(serde_json::to_string_pretty(value))`, without holding the document).
pub fn write_json_pretty<T: serde::Serialize + ?Sized>(
    w: &mut dyn std::io::Write,
    value: &T,
) -> std::io::Result<()> {
    let mut ser = serde_json::Serializer::with_formatter(
        w,
        SafeFormatter(serde_json::ser::PrettyFormatter::new()),
    );
    value.serialize(&mut ser).map_err(std::io::Error::other)
}

/// Serialises `value` as compact JSON straight into `w`, with the escapes of [`json`].
pub fn write_json_compact<T: serde::Serialize + ?Sized>(
    w: &mut dyn std::io::Write,
    value: &T,
) -> std::io::Result<()> {
    let mut ser =
        serde_json::Serializer::with_formatter(w, SafeFormatter(serde_json::ser::CompactFormatter));
    value.serialize(&mut ser).map_err(std::io::Error::other)
}

/// A JSON formatter that writes the characters of [`is_unsafe_in_json`] inside strings as
/// `\uXXXX` escapes (string fragments are where serialisers leave them raw).
struct SafeFormatter<F>(F);

impl<F: serde_json::ser::Formatter> serde_json::ser::Formatter for SafeFormatter<F> {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        if !has_unsafe(fragment, true) {
            return writer.write_all(fragment.as_bytes());
        }
        let mut rest = fragment;
        while let Some((i, c)) = rest.char_indices().find(|(_, c)| is_unsafe_in_json(*c)) {
            writer.write_all(&rest.as_bytes()[..i])?;
            write!(writer, "\\u{:04x}", c as u32)?;
            rest = &rest[i + c.len_utf8()..];
        }
        writer.write_all(rest.as_bytes())
    }
    fn begin_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_array(w)
    }
    fn end_array<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array(w)
    }
    fn begin_array_value<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.0.begin_array_value(w, first)
    }
    fn end_array_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_array_value(w)
    }
    fn begin_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object(w)
    }
    fn end_object<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object(w)
    }
    fn begin_object_key<W: ?Sized + std::io::Write>(
        &mut self,
        w: &mut W,
        first: bool,
    ) -> std::io::Result<()> {
        self.0.begin_object_key(w, first)
    }
    fn end_object_key<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object_key(w)
    }
    fn begin_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.begin_object_value(w)
    }
    fn end_object_value<W: ?Sized + std::io::Write>(&mut self, w: &mut W) -> std::io::Result<()> {
        self.0.end_object_value(w)
    }
}

/// Unsafe characters other than the whitespace JSON allows between tokens (a serialiser never
/// puts a raw control character inside a string).
fn is_unsafe_in_json(c: char) -> bool {
    is_unsafe(c) && !matches!(c, '\n' | '\r' | '\t')
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte test agrees with the character test on every character (alone and between
    /// others), so no unsafe character is missed and no safe one is escaped.
    #[test]
    fn the_byte_test_is_the_character_test() {
        for c in (0u32..0x11_0000).filter_map(char::from_u32) {
            for s in [c.to_string(), format!("a{c}\u{b0}")] {
                assert_eq!(
                    has_unsafe(&s, false),
                    s.chars().any(is_unsafe),
                    "{:x}",
                    c as u32
                );
                assert_eq!(
                    has_unsafe(&s, true),
                    s.chars().any(is_unsafe_in_json),
                    "{:x}",
                    c as u32
                );
            }
        }
        // Across the edges of the 32-byte blocks.
        for pad in 0..70 {
            for c in [
                '\u{1b}', '\u{85}', '\u{202e}', '\u{2069}', '\u{61c}', '°', '✓',
            ] {
                let s = format!("{}{c}{}", "x".repeat(pad), "y".repeat(pad % 7));
                assert_eq!(has_unsafe(&s, false), is_unsafe(c), "{pad} {c:?}");
            }
        }
        assert!(!has_unsafe("plain text é ° ✓ 🙂", false));
        assert!(!has_unsafe("{\n  \"a\": 1\n}", true));
        assert!(has_unsafe("{\n  \"a\": 1\n}", false));
    }

    #[test]
    fn streamed_json_is_the_escaped_document() {
        let v = serde_json::json!({"a\u{202e}": ["x\u{85}y\u{2028}", 1, {"k": "\u{7f}"}], "b": {}});
        let mut out = Vec::new();
        write_json_pretty(&mut out, &v).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            json(serde_json::to_string_pretty(&v).unwrap())
        );
        let mut out = Vec::new();
        write_json_compact(&mut out, &v).unwrap();
        assert_eq!(String::from_utf8(out).unwrap(), json(v.to_string()));
    }

    #[test]
    fn escapes_controls_bidi_and_separators() {
        assert_eq!(text("plain é ✓"), Cow::Borrowed("plain é ✓"));
        assert_eq!(
            text("\u{1b}]0;title\u{7}\u{1b}[2J"),
            "\\u{1b}]0;title\\u{7}\\u{1b}[2J"
        );
        assert_eq!(text("a\nb\tc\r"), "a\\nb\\tc\\r");
        assert_eq!(
            text("\u{9b}31m \u{202e}evil\u{2066}"),
            "\\u{9b}31m \\u{202e}evil\\u{2066}"
        );
        assert_eq!(lines("- a\u{1b}\n+ b"), "- a\\u{1b}\n+ b");
        for c in text("\u{0}\u{7f}\u{85}\u{61c}\u{200e}\u{2028}\u{2029}").chars() {
            assert!(!is_unsafe(c));
        }
    }

    #[test]
    fn json_stays_the_same_value() {
        let v = serde_json::json!({"m": "\u{1b}[2J \u{202e} \u{9b} \u{2028} \u{7f}", "n": [1]});
        let raw = serde_json::to_string_pretty(&v).unwrap();
        assert!(raw.contains('\u{202e}'), "serde_json leaves bidi raw");
        let safe = json(raw);
        assert!(!safe.chars().any(|c| is_unsafe(c) && c != '\n'), "{safe}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&safe).unwrap(), v);
    }
}
