//! Where a JSON Pointer's value sits in JSON text: for SARIF regions, `file:line:column`
//! messages and the body excerpts of the HTML report.
//!
//! A small position-tracking scanner: it never builds values, it only skips them, so it works
//! on any text `serde_json` accepts (and degrades to `None` on text it does not).

use std::ops::Range;

/// The byte range of the value a JSON Pointer designates in `text`, if the text is JSON and the
/// pointer resolves (the first member wins when a key is repeated).
pub fn pointer_span(text: &str, pointer: &str) -> Option<Range<usize>> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    if !pointer.is_empty() {
        let rest = pointer.strip_prefix('/')?;
        for raw in rest.split('/') {
            let seg = crate::vocab::pointer::unescape(raw);
            i = match b.get(i)? {
                b'{' => member(text, i, &seg)?,
                b'[' => element(b, i, seg.parse().ok()?)?,
                _ => return None,
            };
        }
    }
    let end = skip_value(b, i)?;
    Some(i..end)
}

/// Like [`pointer_span`], falling back to the nearest ancestor that exists (a `required`
/// finding points at the member that is missing; its object is the next best place).
pub fn nearest_span(text: &str, pointer: &str) -> Option<Range<usize>> {
    let mut p = pointer;
    loop {
        if let Some(s) = pointer_span(text, p) {
            return Some(s);
        }
        if p.is_empty() {
            return None;
        }
        p = &p[..p.rfind('/')?];
    }
}

/// 1-based line and column (in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = floor_char_boundary(text, offset.min(text.len()));
    let before = &text[..offset];
    let line = before.bytes().filter(|&c| c == b'\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |p| p + 1);
    let col = text[line_start..offset].chars().count() + 1;
    (line, col)
}

/// The largest char boundary at or below `i`.
pub fn floor_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest char boundary at or above `i`.
pub fn ceil_char_boundary(s: &str, mut i: usize) -> usize {
    i = i.min(s.len());
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Decodes the JSON string literal starting at `start` (its opening quote) and maps every byte
/// of the decoded text back to the offset in `text` where the character that produced it
/// begins. The map has one extra entry, for the end of the decoded text (the closing quote).
pub fn decode_literal(text: &str, start: usize) -> Option<(String, Vec<usize>)> {
    let b = text.as_bytes();
    if b.get(start) != Some(&b'"') {
        return None;
    }
    let mut out = String::new();
    let mut map = Vec::new();
    let mut i = start + 1;
    loop {
        let c = *b.get(i)?;
        match c {
            b'"' => {
                map.push(i);
                return Some((out, map));
            }
            b'\\' => {
                let esc = *b.get(i + 1)?;
                let (ch, len) = match esc {
                    b'"' => ('"', 2),
                    b'\\' => ('\\', 2),
                    b'/' => ('/', 2),
                    b'b' => ('\u{8}', 2),
                    b'f' => ('\u{c}', 2),
                    b'n' => ('\n', 2),
                    b'r' => ('\r', 2),
                    b't' => ('\t', 2),
                    b'u' => {
                        let hi = hex4(text.get(i + 2..i + 6)?)?;
                        if (0xD800..0xDC00).contains(&hi)
                            && text.get(i + 6..i + 8) == Some("\\u")
                            && let Some(lo) = text.get(i + 8..i + 12).and_then(hex4)
                            && (0xDC00..0xE000).contains(&lo)
                        {
                            let cp = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                            (char::from_u32(cp).unwrap_or('\u{FFFD}'), 12)
                        } else {
                            (char::from_u32(hi).unwrap_or('\u{FFFD}'), 6)
                        }
                    }
                    _ => return None,
                };
                for _ in 0..ch.len_utf8() {
                    map.push(i);
                }
                out.push(ch);
                i += len;
            }
            _ => {
                let ch = text[i..].chars().next()?;
                for _ in 0..ch.len_utf8() {
                    map.push(i);
                }
                out.push(ch);
                i += ch.len_utf8();
            }
        }
    }
}

fn hex4(s: &str) -> Option<u32> {
    if s.len() == 4 {
        u32::from_str_radix(s, 16).ok()
    } else {
        None
    }
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r') {
        i += 1;
    }
    i
}

fn skip_string(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'"' => return Some(j + 1),
            _ => j += 1,
        }
    }
    None
}

fn skip_value(b: &[u8], i: usize) -> Option<usize> {
    match b.get(i)? {
        b'"' => skip_string(b, i),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut j = i;
            while j < b.len() {
                match b[j] {
                    b'"' => {
                        j = skip_string(b, j)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.checked_sub(1)?;
                        if depth == 0 {
                            return Some(j + 1);
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            None
        }
        b',' | b'}' | b']' | b':' => None,
        _ => {
            let mut j = i;
            while j < b.len() && !matches!(b[j], b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')
            {
                j += 1;
            }
            Some(j)
        }
    }
}

fn member(text: &str, open: usize, key: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut j = skip_ws(b, open + 1);
    loop {
        if *b.get(j)? != b'"' {
            return None;
        }
        let kend = skip_string(b, j)?;
        let k: String = serde_json::from_str(text.get(j..kend)?).ok()?;
        j = skip_ws(b, kend);
        if *b.get(j)? != b':' {
            return None;
        }
        j = skip_ws(b, j + 1);
        if k == key {
            return Some(j);
        }
        j = skip_ws(b, skip_value(b, j)?);
        match b.get(j)? {
            b',' => j = skip_ws(b, j + 1),
            _ => return None,
        }
    }
}

fn element(b: &[u8], open: usize, index: usize) -> Option<usize> {
    let mut j = skip_ws(b, open + 1);
    if *b.get(j)? == b']' {
        return None;
    }
    for _ in 0..index {
        j = skip_ws(b, skip_value(b, j)?);
        match b.get(j)? {
            b',' => j = skip_ws(b, j + 1),
            _ => return None,
        }
    }
    Some(j)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointers_resolve() {
        let t = "{\n  \"a\": [1, {\"b~c/d\": \"x\\\"y\"}],\n  \"e\": true\n}";
        assert_eq!(&t[pointer_span(t, "/a/1/b~0c~1d").unwrap()], "\"x\\\"y\"");
        assert_eq!(&t[pointer_span(t, "/a/0").unwrap()], "1");
        assert_eq!(&t[pointer_span(t, "/e").unwrap()], "true");
        assert_eq!(pointer_span(t, "/a/2"), None);
        assert_eq!(pointer_span(t, "/zz"), None);
        assert_eq!(
            &t[nearest_span(t, "/a/1/missing").unwrap()],
            "{\"b~c/d\": \"x\\\"y\"}"
        );
        assert_eq!(pointer_span(t, "").unwrap(), 0..t.len());
        let s = pointer_span(t, "/e").unwrap().start;
        assert_eq!(line_col(t, s), (3, 8));
    }

    #[test]
    fn literals_map_back() {
        let t = r#"{"body": "{\"a\":\"\u00e9\\n\"}"}"#;
        let start = pointer_span(t, "/body").unwrap().start;
        let (decoded, map) = decode_literal(t, start).unwrap();
        assert_eq!(decoded, "{\"a\":\"é\\n\"}");
        assert_eq!(map.len(), decoded.len() + 1);
        let inner = pointer_span(&decoded, "/a").unwrap();
        assert_eq!(&t[map[inner.start]..map[inner.end]], r#"\"\u00e9\\n\""#);
    }
}
