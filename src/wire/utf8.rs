//! UTF-8 validation of bodies and stream lines.
//!
//! Every JSON body and SSE line is validated before it is read as text. The standard library's
//! check reads a word at a time; `simdutf8` reads a vector register at a time, which on a 1 KB
//! body is a visible part of what judging costs beyond parsing. Its fast form only says yes or
//! no, so the standard check runs again on failure to find where the encoding breaks.

/// The UTF-8 byte order mark. Every input path (an exchange file or stdin, a HAR file, the first
/// line of a JSON Lines stream) skips one at the start, as editors on some systems write it.
pub const BOM: &[u8] = b"\xEF\xBB\xBF";

/// `bytes` without one leading byte order mark.
pub fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(BOM).unwrap_or(bytes)
}

/// `bytes` as text, or the offset of the first byte that is not valid UTF-8.
pub(crate) fn text(bytes: &[u8]) -> Result<&str, usize> {
    match simdutf8::basic::from_utf8(bytes) {
        Ok(t) => Ok(t),
        Err(_) => Err(std::str::from_utf8(bytes).map_or_else(|e| e.valid_up_to(), |_| 0)),
    }
}

#[cfg(test)]
mod tests {
    use super::text;

    #[test]
    fn agrees_with_std() {
        let cases: [&[u8]; 6] = [
            b"",
            b"{\"a\": 1}",
            "caf\u{e9} \u{1F600}".as_bytes(),
            b"ok\xffbad",
            b"\xe2\x82",
            b"abc\xed\xa0\x80",
        ];
        for c in cases {
            match std::str::from_utf8(c) {
                Ok(s) => assert_eq!(text(c), Ok(s)),
                Err(e) => assert_eq!(text(c), Err(e.valid_up_to())),
            }
        }
    }
}
