//! Where a JSON Pointer's value sits in JSON text: for SARIF regions, `file:line:column`
//! messages and the body excerpts of the HTML report.
//!
//! A small position-tracking scanner: it never builds values, it only skips them, so it works
//! on any text `serde_json` accepts (and degrades to `None` on text it does not).
//!
//! Locating many findings in one file takes one pass per text, not one search per finding:
//! [`resolve_all`] resolves every pointer in one scan, [`literal_offsets`] maps offsets in a
//! decoded string literal back to the file in one sweep, and [`line_cols`] turns sorted
//! offsets into lines and columns in one sweep. [`work`] counts the bytes these scans
//! traverse (per thread), so that tests can assert that locating grows linearly.

use std::cell::Cell;
use std::collections::HashMap;
use std::ops::Range;

thread_local! {
    static WORK: Cell<u64> = const { Cell::new(0) };
}

/// Bytes traversed by this module's scans on the current thread since it started (a work
/// count for tests and benches; it only ever grows).
pub fn work() -> u64 {
    WORK.with(Cell::get)
}

/// Adds to the work count of the current thread.
pub(crate) fn add_work(bytes: usize) {
    WORK.with(|w| w.set(w.get().saturating_add(bytes as u64)));
}

/// The byte range of the value a JSON Pointer designates in `text`, if the text is JSON and the
/// pointer resolves (the first member wins when a key is repeated).
pub fn pointer_span(text: &str, pointer: &str) -> Option<Range<usize>> {
    let span = pointer_span_inner(text, pointer);
    add_work(span.as_ref().map_or(text.len(), |s| s.end));
    span
}

fn pointer_span_inner(text: &str, pointer: &str) -> Option<Range<usize>> {
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
    add_work(offset);
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

/// 1-based line and column (in characters) of each offset, in one sweep over the text: the
/// offsets in any order, the positions in the same order.
pub fn line_cols(text: &str, offsets: &[usize]) -> Vec<(usize, usize)> {
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    order.sort_by_key(|&k| offsets[k]);
    let b = text.as_bytes();
    let mut out = vec![(1, 1); offsets.len()];
    let (mut pos, mut line, mut col) = (0usize, 1usize, 1usize);
    for k in order {
        let target = floor_char_boundary(text, offsets[k]);
        for &c in &b[pos..target] {
            if c == b'\n' {
                line += 1;
                col = 1;
            } else if c & 0xC0 != 0x80 {
                col += 1;
            }
        }
        pos = pos.max(target);
        out[k] = (line, col);
    }
    add_work(pos);
    out
}

/// Maps byte offsets in the decoded text of the JSON string literal starting at `start` (its
/// opening quote) to the offsets in `text` where the characters that produced them begin (the
/// decoded text's length maps to the closing quote), in one sweep and without decoding the
/// literal into memory. `None` for an offset past the literal's end or when the literal is
/// malformed before it.
pub fn literal_offsets(text: &str, start: usize, offsets: &[usize]) -> Vec<Option<usize>> {
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    order.sort_by_key(|&k| offsets[k]);
    let mut out = vec![None; offsets.len()];
    let b = text.as_bytes();
    if b.get(start) != Some(&b'"') {
        return out;
    }
    let mut next = order.into_iter().peekable();
    let mut decoded = 0usize;
    let mut i = start + 1;
    while next.peek().is_some() {
        let Some(&c) = b.get(i) else { break };
        let (produced, len) = match c {
            b'"' => {
                // The end of the decoded text.
                while let Some(&k) = next.peek() {
                    if offsets[k] == decoded {
                        out[k] = Some(i);
                    }
                    next.next();
                }
                break;
            }
            b'\\' => match b.get(i + 1) {
                Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => (1, 2),
                Some(b'u') => {
                    let Some(hi) = text.get(i + 2..i + 6).and_then(hex4) else {
                        break;
                    };
                    if (0xD800..0xDC00).contains(&hi)
                        && text.get(i + 6..i + 8) == Some("\\u")
                        && let Some(lo) = text.get(i + 8..i + 12).and_then(hex4)
                        && (0xDC00..0xE000).contains(&lo)
                    {
                        (4, 12)
                    } else {
                        (char::from_u32(hi).unwrap_or('\u{FFFD}').len_utf8(), 6)
                    }
                }
                _ => break,
            },
            _ => {
                let Some(ch) = text.get(i..).and_then(|t| t.chars().next()) else {
                    break;
                };
                (ch.len_utf8(), ch.len_utf8())
            }
        };
        while let Some(&k) = next.peek() {
            if offsets[k] < decoded + produced {
                out[k] = Some(i);
                next.next();
            } else {
                break;
            }
        }
        decoded += produced;
        i += len;
    }
    add_work(i.saturating_sub(start));
    out
}

/// Where a pointer's value was found by [`resolve_all`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolved {
    /// The byte range of the value, or of its nearest ancestor that exists.
    pub span: Range<usize>,
    /// Whether the value itself exists (not an ancestor).
    pub exact: bool,
}

/// The pointers to resolve, as a tree of their segments.
pub struct PointerTree {
    parent: Vec<usize>,
    keys: Vec<HashMap<String, usize>>,
    indexes: Vec<HashMap<usize, usize>>,
    terminal: Vec<Option<usize>>,
    start: Vec<usize>,
    end: Vec<usize>,
    seen: Vec<u32>,
    generation: u32,
}

impl PointerTree {
    /// The tree of these pointers (a pointer without a leading `/`, other than the empty one,
    /// resolves to nothing).
    pub fn new<'p>(pointers: impl IntoIterator<Item = &'p str>) -> PointerTree {
        let mut t = PointerTree {
            parent: vec![0],
            keys: vec![HashMap::new()],
            indexes: vec![HashMap::new()],
            terminal: Vec::new(),
            start: vec![0],
            end: vec![0],
            seen: vec![0],
            generation: 0,
        };
        for p in pointers {
            let node = if p.is_empty() {
                Some(0)
            } else {
                p.strip_prefix('/').map(|rest| {
                    rest.split('/').fold(0, |n, raw| {
                        let seg = crate::vocab::pointer::unescape(raw).into_owned();
                        t.child(n, seg)
                    })
                })
            };
            t.terminal.push(node);
        }
        t
    }

    fn child(&mut self, n: usize, seg: String) -> usize {
        if let Some(&c) = self.keys[n].get(&seg) {
            return c;
        }
        let c = self.parent.len();
        self.parent.push(n);
        self.keys.push(HashMap::new());
        self.indexes.push(HashMap::new());
        self.start.push(0);
        self.end.push(0);
        self.seen.push(0);
        // An array index as RFC 6901 writes it (no sign, no leading zero).
        if let Ok(i) = seg.parse::<usize>()
            && seg == i.to_string()
        {
            self.indexes[n].insert(i, c);
        }
        self.keys[n].insert(seg, c);
        c
    }

    fn has_children(&self, n: usize) -> bool {
        !self.keys[n].is_empty()
    }

    fn visited(&self, n: usize) -> bool {
        self.seen[n] == self.generation
    }

    /// Resolves every pointer in `text` in one scan: for each pointer (in the order given),
    /// the span of its value (the first member wins when a key is repeated), else of its
    /// nearest ancestor that exists, else `None` (the text is not JSON there).
    pub fn resolve(&mut self, text: &str) -> Vec<Option<Resolved>> {
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            self.seen.iter_mut().for_each(|g| *g = u32::MAX);
            self.generation = 1;
        }
        let scanned = self.scan(text.as_bytes());
        add_work(scanned);
        self.terminal
            .iter()
            .map(|&t| {
                let mut n = t?;
                let mut exact = true;
                loop {
                    if self.visited(n) && self.end[n] > 0 {
                        return Some(Resolved {
                            span: self.start[n]..self.end[n],
                            exact,
                        });
                    }
                    if n == 0 {
                        return None;
                    }
                    n = self.parent[n];
                    exact = false;
                }
            })
            .collect()
    }

    /// Marks the nodes found with their spans (an `end` of 0: not complete); returns how far
    /// it read.
    fn scan(&mut self, b: &[u8]) -> usize {
        struct Frame {
            node: usize,
            object: bool,
            index: usize,
        }
        enum State {
            /// A value starts here; it belongs to this node if any.
            Value(Option<usize>),
            /// Just after a value inside the top frame.
            After,
            /// At the first member (or element) of the top frame, or just after its comma.
            Member,
        }
        let mut stack: Vec<Frame> = Vec::new();
        let mut i = skip_ws(b, 0);
        let mut state = State::Value(Some(0));
        loop {
            match state {
                State::Value(node) => {
                    let Some(&c) = b.get(i) else { return i };
                    match node {
                        Some(n) => {
                            self.seen[n] = self.generation;
                            self.start[n] = i;
                            self.end[n] = 0;
                            if matches!(c, b'{' | b'[') && self.has_children(n) {
                                stack.push(Frame {
                                    node: n,
                                    object: c == b'{',
                                    index: 0,
                                });
                                i = skip_ws(b, i + 1);
                                let close = if c == b'{' { b'}' } else { b']' };
                                if b.get(i) == Some(&close) {
                                    stack.pop();
                                    i += 1;
                                    self.end[n] = i;
                                    state = State::After;
                                } else {
                                    state = State::Member;
                                }
                                continue;
                            }
                            let Some(e) = skip_value(b, i) else { return i };
                            self.end[n] = e;
                            i = e;
                        }
                        None => {
                            let Some(e) = skip_value(b, i) else { return i };
                            i = e;
                        }
                    }
                    state = State::After;
                }
                State::After => {
                    let Some(f) = stack.last_mut() else { return i };
                    i = skip_ws(b, i);
                    match b.get(i) {
                        Some(b',') => {
                            f.index += 1;
                            i = skip_ws(b, i + 1);
                            state = State::Member;
                        }
                        Some(b'}') if f.object => {
                            self.end[f.node] = i + 1;
                            stack.pop();
                            i += 1;
                        }
                        Some(b']') if !f.object => {
                            self.end[f.node] = i + 1;
                            stack.pop();
                            i += 1;
                        }
                        _ => return i,
                    }
                }
                State::Member => {
                    let Some(f) = stack.last() else { return i };
                    let child = if f.object {
                        if b.get(i) != Some(&b'"') {
                            return i;
                        }
                        let Some(kend) = skip_string(b, i) else {
                            return i;
                        };
                        let raw = &b[i + 1..kend - 1];
                        let child = if raw.contains(&b'\\') {
                            match std::str::from_utf8(&b[i..kend])
                                .ok()
                                .and_then(|k| serde_json::from_str::<String>(k).ok())
                            {
                                Some(k) => self.keys[f.node].get(&k).copied(),
                                None => return i,
                            }
                        } else {
                            std::str::from_utf8(raw)
                                .ok()
                                .and_then(|k| self.keys[f.node].get(k).copied())
                        };
                        i = skip_ws(b, kend);
                        if b.get(i) != Some(&b':') {
                            return i;
                        }
                        i = skip_ws(b, i + 1);
                        child
                    } else {
                        self.indexes[f.node].get(&f.index).copied()
                    };
                    // The first member of a repeated key wins.
                    state = State::Value(child.filter(|&c| !self.visited(c)));
                }
            }
        }
    }
}

/// Resolves every pointer in `text` in one scan ([`PointerTree::resolve`]).
pub fn resolve_all(text: &str, pointers: &[&str]) -> Vec<Option<Resolved>> {
    PointerTree::new(pointers.iter().copied()).resolve(text)
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
    fn one_scan_resolves_like_one_search_per_pointer() {
        let t = "{\n  \"a\": [1, {\"b~c/d\": \"x\\\"y\"}],\n  \"e\": true, \"e\": 2, \"k\\u0041\": {}\n}";
        let ps = [
            "/a/1/b~0c~1d",
            "/a/0",
            "/e",
            "/a/2",
            "/zz",
            "/a/1/missing",
            "",
            "/kA",
            "nope",
        ];
        let got = resolve_all(t, &ps);
        for (p, g) in ps.iter().zip(&got) {
            let exact = pointer_span(t, p);
            let near = nearest_span(t, p);
            match g {
                Some(r) if r.exact => assert_eq!(Some(r.span.clone()), exact, "{p}"),
                Some(r) => {
                    assert_eq!(exact, None, "{p}");
                    assert_eq!(Some(r.span.clone()), near, "{p}");
                }
                None => assert_eq!(near, None, "{p}"),
            }
        }
        // Not JSON: nothing resolves, nothing panics.
        assert_eq!(resolve_all("{\"a\": [1,", &["/a/0", "/a"])[1], None);
        let offsets = [0, t.len(), 5, t.find("true").unwrap()];
        let lc = line_cols(t, &offsets);
        for (o, got) in offsets.iter().zip(lc) {
            assert_eq!(got, line_col(t, *o));
        }
    }

    #[test]
    fn literal_offsets_agree_with_the_decoded_map() {
        let t = r#"{"body": "a\u00e9\ud83d\ude00\n\"é€z"}"#;
        let start = pointer_span(t, "/body").unwrap().start;
        let (decoded, map) = decode_literal(t, start).unwrap();
        let offsets: Vec<usize> = (0..=decoded.len()).rev().collect();
        let got = literal_offsets(t, start, &offsets);
        for (o, g) in offsets.iter().zip(got) {
            assert_eq!(g, Some(map[*o]), "offset {o}");
        }
        assert_eq!(literal_offsets(t, start, &[decoded.len() + 1]), vec![None]);
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
