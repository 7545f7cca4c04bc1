//! JSON text read into a flat tape of borrowed tokens, for validating a message without
//! building its `serde_json::Value`.
//!
//! Why by hand: the schema check needs to walk an instance more than once (`anyOf`, `allOf`,
//! `if`), so a streaming visitor over `serde_json`'s deserializer cannot drive it, and with
//! `arbitrary_precision` on (it is, for exact numbers) such a visitor is handed numbers as maps
//! under a private key. `simd-json`'s tape decodes every escaped string into a buffer and has
//! no borrowed form for this crate's `&str` without copying the input. The tape here is one
//! `Vec` of tokens: strings and numbers borrow the text (only a string with an escape is
//! decoded, by the strict decoder of `wire::jsonstr`), arrays and objects record where they end, so a
//! subtree can be skipped or walked again in place.
//!
//! It is strict, never lenient: [`Tape::read`] gives `None` for anything `serde_json` would
//! refuse, and also for what it reads differently from how this tape would be read (an
//! object with a repeated member, which `serde_json` keeps the last of) or deeper than
//! [`MAX_DEPTH`]. `None` is only "not read here": the caller then parses with `serde_json`,
//! which stays the authority on what the text is and on every error message.

use std::borrow::Cow;

use serde_json::{Map, Number, Value};

use super::jsonstr::{decode_prefix, plain_run_end};

/// The deepest nesting the tape reads: `serde_json` refuses 128 levels (its recursion limit),
/// and deeper text is parsed on a grown stack (`wire::deep`), never read here.
pub const MAX_DEPTH: usize = 127;

/// One token.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok<'a> {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as written.
    Number(&'a str),
    /// A string, decoded (borrowed when it has no escape).
    String(Cow<'a, str>),
    /// An array; its items follow, up to the token at `end` (exclusive).
    Array {
        /// Index one past the array's last token.
        end: u32,
    },
    /// An object; its members follow as a `String` key then the value's tokens, up to `end`.
    Object {
        /// Index one past the object's last token.
        end: u32,
    },
}

/// A JSON document as tokens.
#[derive(Clone, Debug, Default)]
pub struct Tape<'a> {
    toks: Vec<Tok<'a>>,
}

/// One value on a tape.
#[derive(Clone, Copy, Debug)]
pub struct Node<'t, 'a> {
    toks: &'t [Tok<'a>],
    at: u32,
}

impl<'a> Tape<'a> {
    /// Reads `text`, or `None` when it is not a document this tape reads exactly as
    /// `serde_json` does (see the module documentation).
    pub fn read(text: &'a str) -> Option<Tape<'a>> {
        let mut r = Reader {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            // A token per eight bytes is typical of a message; a large one grows the tape as
            // it is read rather than reserving for it up front (a token is 32 bytes).
            toks: Vec::with_capacity((text.len() / 8).min(4096) + 4),
        };
        r.skip_ws();
        r.value(0)?;
        r.skip_ws();
        (r.pos == r.bytes.len()).then_some(Tape { toks: r.toks })
    }

    /// The document's value.
    pub fn root(&self) -> Node<'_, 'a> {
        Node {
            toks: &self.toks,
            at: 0,
        }
    }

    /// How many tokens the document has.
    pub fn len(&self) -> usize {
        self.toks.len()
    }

    /// Whether it has none (never, for a tape that was read).
    pub fn is_empty(&self) -> bool {
        self.toks.is_empty()
    }
}

impl<'t, 'a> Node<'t, 'a> {
    /// Its token.
    pub fn tok(self) -> &'t Tok<'a> {
        &self.toks[self.at as usize]
    }

    /// Index one past its last token.
    fn end(self) -> u32 {
        match self.tok() {
            Tok::Array { end } | Tok::Object { end } => *end,
            _ => self.at + 1,
        }
    }

    /// The string, when it is one.
    pub fn as_str(self) -> Option<&'t str> {
        match self.tok() {
            Tok::String(s) => Some(s),
            _ => None,
        }
    }

    /// The number's text, when it is one.
    pub fn number_text(self) -> Option<&'a str> {
        match self.tok() {
            Tok::Number(n) => Some(n),
            _ => None,
        }
    }

    /// Whether it is an object.
    pub fn is_object(self) -> bool {
        matches!(self.tok(), Tok::Object { .. })
    }

    /// The members of an object (none for anything else), in document order.
    pub fn members(self) -> Members<'t, 'a> {
        let (next, end) = match self.tok() {
            Tok::Object { end } => (self.at + 1, *end),
            _ => (0, 0),
        };
        Members {
            toks: self.toks,
            next,
            end,
        }
    }

    /// The items of an array (none for anything else).
    pub fn items(self) -> Items<'t, 'a> {
        let (next, end) = match self.tok() {
            Tok::Array { end } => (self.at + 1, *end),
            _ => (0, 0),
        };
        Items {
            toks: self.toks,
            next,
            end,
        }
    }

    /// The member `name` of an object.
    pub fn get(self, name: &str) -> Option<Node<'t, 'a>> {
        self.members().find(|(k, _)| *k == name).map(|(_, v)| v)
    }

    /// The value as `serde_json` would have read it (for the few keyword checks and facts
    /// that need one; building it is what the tape otherwise avoids).
    pub fn to_value(self) -> Value {
        match self.tok() {
            Tok::Null => Value::Null,
            Tok::Bool(b) => Value::Bool(*b),
            Tok::Number(n) => number(n).map_or(Value::Null, Value::Number),
            Tok::String(s) => Value::String(s.to_string()),
            Tok::Array { .. } => Value::Array(self.items().map(Node::to_value).collect()),
            Tok::Object { .. } => Value::Object(
                self.members()
                    .map(|(k, v)| (k.to_string(), v.to_value()))
                    .collect::<Map<_, _>>(),
            ),
        }
    }

    /// Whether it is `v`, as `serde_json` compares its own read of the text with `v` (numbers
    /// by their text as `serde_json` keeps it, objects as sets of members), without building a
    /// `Value`.
    pub fn equals(self, v: &Value) -> bool {
        match (self.tok(), v) {
            (Tok::Null, Value::Null) => true,
            (Tok::Bool(a), Value::Bool(b)) => a == b,
            (Tok::Number(n), Value::Number(m)) => numbers_read_alike(n, m.as_str()),
            (Tok::String(s), Value::String(t)) => s == t,
            (Tok::Array { .. }, Value::Array(items)) => {
                let mut mine = self.items();
                items
                    .iter()
                    .all(|b| mine.next().is_some_and(|a| a.equals(b)))
                    && mine.next().is_none()
            }
            // A tape never holds a repeated member, so as many members, each found equal in
            // `v`, are the same set.
            (Tok::Object { .. }, Value::Object(members)) => {
                let mut count = 0;
                self.members().all(|(k, a)| {
                    count += 1;
                    members.get(k).is_some_and(|b| a.equals(b))
                }) && count == members.len()
            }
            _ => false,
        }
    }

    /// Whether it is `other`, as `serde_json` compares its reads of the two texts (see
    /// [`Node::equals`]), without building either.
    pub fn equals_node(self, other: Node<'_, '_>) -> bool {
        match (self.tok(), other.tok()) {
            (Tok::Null, Tok::Null) => true,
            (Tok::Bool(a), Tok::Bool(b)) => a == b,
            (Tok::Number(a), Tok::Number(b)) => numbers_read_alike(a, b),
            (Tok::String(a), Tok::String(b)) => a == b,
            (Tok::Array { .. }, Tok::Array { .. }) => {
                let mut theirs = other.items();
                self.items()
                    .all(|a| theirs.next().is_some_and(|b| a.equals_node(b)))
                    && theirs.next().is_none()
            }
            // Neither holds a repeated member: as many members, each found equal, are the
            // same set.
            (Tok::Object { .. }, Tok::Object { .. }) => {
                let mut count = 0;
                self.members().all(|(k, a)| {
                    count += 1;
                    other.get(k).is_some_and(|b| a.equals_node(b))
                }) && count == other.members().count()
            }
            _ => false,
        }
    }
}

/// Whether JSON text reads as the value at `n` of another tape, as [`text_equals`] does for a
/// `Value`.
pub fn text_equals_node(text: &str, n: Node<'_, '_>) -> bool {
    match Tape::read(text) {
        Some(t) => t.root().equals_node(n),
        None => super::deep::parse_then(text, |parsed| n.equals(parsed)).unwrap_or(false),
    }
}

/// Whether JSON text reads as `v` (what comparing `serde_json`'s parse of it with `v` says):
/// read onto a tape when it can be, else parsed by `serde_json` (any depth). Text that is not
/// JSON is not `v`.
pub fn text_equals(text: &str, v: &Value) -> bool {
    match Tape::read(text) {
        Some(t) => t.root().equals(v),
        None => super::deep::parse_then(text, |parsed| parsed == v).unwrap_or(false),
    }
}

/// A number's text as `serde_json` reads it (the tape only holds texts of its grammar).
pub fn number(text: &str) -> Option<Number> {
    // An integer written as `i64`'s own digits (no leading zero, no `-0`) is the `Number`
    // `serde_json` makes of it, which keeps the text: skip its parser for the common ids.
    let digits = text.strip_prefix('-').unwrap_or(text).as_bytes();
    let canonical = matches!(digits, [b'1'..=b'9', rest @ ..] if rest.len() < 18
        && rest.iter().all(u8::is_ascii_digit))
        || text == "0";
    if canonical {
        return text.parse::<i64>().ok().map(Number::from);
    }
    text.parse().ok()
}

/// One of 64 bits for a key, from its length and its first and last bytes: equal keys get
/// the same bit.
fn key_bit(b: &[u8]) -> u64 {
    let (first, last) = (
        u32::from(b.first().copied().unwrap_or(0)),
        u32::from(b.last().copied().unwrap_or(0)),
    );
    let mix = (b.len() as u32).wrapping_mul(0x9E37_79B9) ^ first.wrapping_mul(0x85EB_CA6B) ^ last;
    1u64 << (mix.wrapping_mul(0x2545_F491) >> 26)
}

/// Whether two numbers' texts are read by `serde_json` as the same number: the same text once
/// the exponent is kept as `e` and a sign, as `serde_json` keeps it (`1E5` as `1e+5`). A text
/// compared with the text `serde_json` kept of a number is compared the same way.
fn numbers_read_alike(a: &str, b: &str) -> bool {
    fn parts(t: &str) -> (&str, Option<(bool, &str)>) {
        match t.find(['e', 'E']) {
            None => (t, None),
            Some(at) => {
                let e = &t[at + 1..];
                let (negative, digits) = match e.as_bytes().first() {
                    Some(b'-') => (true, &e[1..]),
                    Some(b'+') => (false, &e[1..]),
                    _ => (false, e),
                };
                (&t[..at], Some((negative, digits)))
            }
        }
    }
    parts(a) == parts(b)
}

/// An object's members.
pub struct Members<'t, 'a> {
    toks: &'t [Tok<'a>],
    next: u32,
    end: u32,
}

impl<'t, 'a> Iterator for Members<'t, 'a> {
    type Item = (&'t str, Node<'t, 'a>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.end {
            return None;
        }
        let key = match &self.toks[self.next as usize] {
            Tok::String(k) => &**k,
            _ => unreachable!("an object member starts with its key"),
        };
        let value = Node {
            toks: self.toks,
            at: self.next + 1,
        };
        self.next = value.end();
        Some((key, value))
    }
}

/// An array's items.
pub struct Items<'t, 'a> {
    toks: &'t [Tok<'a>],
    next: u32,
    end: u32,
}

impl<'t, 'a> Iterator for Items<'t, 'a> {
    type Item = Node<'t, 'a>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.end {
            return None;
        }
        let item = Node {
            toks: self.toks,
            at: self.next,
        };
        self.next = item.end();
        Some(item)
    }
}

struct Reader<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    toks: Vec<Tok<'a>>,
}

impl<'a> Reader<'a> {
    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.bytes.get(self.pos) {
            self.pos += 1;
        }
    }

    fn literal(&mut self, word: &[u8], tok: Tok<'a>) -> Option<()> {
        if self.bytes.get(self.pos..self.pos + word.len())? != word {
            return None;
        }
        self.pos += word.len();
        self.toks.push(tok);
        Some(())
    }

    fn value(&mut self, depth: usize) -> Option<()> {
        match *self.bytes.get(self.pos)? {
            b'n' => self.literal(b"null", Tok::Null),
            b't' => self.literal(b"true", Tok::Bool(true)),
            b'f' => self.literal(b"false", Tok::Bool(false)),
            b'"' => {
                let s = self.string()?;
                self.toks.push(Tok::String(s));
                Some(())
            }
            b'[' => self.array(depth + 1),
            b'{' => self.object(depth + 1),
            b'-' | b'0'..=b'9' => self.number(),
            _ => None,
        }
    }

    /// A string literal at `pos`, decoded: borrowed up to its end when it has no escape, else
    /// decoded from its start in the same pass the escape is met in.
    fn string(&mut self) -> Option<Cow<'a, str>> {
        let start = self.pos;
        let i = plain_run_end(self.bytes, start + 1);
        match *self.bytes.get(i)? {
            b'"' => {
                self.pos = i + 1;
                Some(Cow::Borrowed(&self.text[start + 1..i]))
            }
            b'\\' => {
                // The decoded text is at most the literal's length, which is not known yet:
                // the plain run so far and room for a short escaped string (most in messages
                // are, and a longer one grows by doubling).
                let plain = i - start;
                let (s, len) = decode_prefix(&self.text[start..], plain, plain + 64)?;
                self.pos = start + len;
                Some(Cow::Owned(s))
            }
            _ => None,
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.pos;
        while self.bytes.get(self.pos).is_some_and(u8::is_ascii_digit) {
            self.pos += 1;
        }
        self.pos - start
    }

    /// RFC 8259's number grammar, as `serde_json` reads it.
    fn number(&mut self) -> Option<()> {
        let start = self.pos;
        if self.bytes[self.pos] == b'-' {
            self.pos += 1;
        }
        match *self.bytes.get(self.pos)? {
            b'0' => {
                self.pos += 1;
                if self.bytes.get(self.pos).is_some_and(u8::is_ascii_digit) {
                    return None;
                }
            }
            b'1'..=b'9' => {
                self.digits();
            }
            _ => return None,
        }
        if self.bytes.get(self.pos) == Some(&b'.') {
            self.pos += 1;
            if self.digits() == 0 {
                return None;
            }
        }
        if let Some(b'e' | b'E') = self.bytes.get(self.pos) {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.bytes.get(self.pos) {
                self.pos += 1;
            }
            if self.digits() == 0 {
                return None;
            }
        }
        self.toks.push(Tok::Number(&self.text[start..self.pos]));
        Some(())
    }

    /// An array or object: its opening token, then items read by `item` and separated by
    /// commas, up to the `close` byte. Returns the opening token's index.
    fn container(
        &mut self,
        depth: usize,
        open: Tok<'a>,
        close: u8,
        mut item: impl FnMut(&mut Self) -> Option<()>,
    ) -> Option<usize> {
        if depth > MAX_DEPTH {
            return None;
        }
        let at = self.toks.len();
        self.toks.push(open);
        self.pos += 1;
        self.skip_ws();
        if self.bytes.get(self.pos) == Some(&close) {
            self.pos += 1;
        } else {
            loop {
                item(self)?;
                self.skip_ws();
                match *self.bytes.get(self.pos)? {
                    b',' => {
                        self.pos += 1;
                        self.skip_ws();
                    }
                    b if b == close => {
                        self.pos += 1;
                        break;
                    }
                    _ => return None,
                }
            }
        }
        self.close(at)?;
        Some(at)
    }

    fn array(&mut self, depth: usize) -> Option<()> {
        self.container(depth, Tok::Array { end: 0 }, b']', |r| r.value(depth))
            .map(|_| ())
    }

    fn object(&mut self, depth: usize) -> Option<()> {
        // Each key sets one of 64 bits picked by its length and end bytes: a repeated key
        // finds its bit set, and only then are the keys compared (distinct keys may share a
        // bit too; the comparison clears them).
        let mut seen = 0u64;
        let mut shared = false;
        let at = self.container(depth, Tok::Object { end: 0 }, b'}', |r| {
            let bit = r.member(depth)?;
            shared |= seen & bit != 0;
            seen |= bit;
            Some(())
        })?;
        (!shared || self.keys_unique(at)).then_some(())
    }

    /// One object member: its key, a colon, its value. Gives the key's bit (see `object`).
    fn member(&mut self, depth: usize) -> Option<u64> {
        if self.bytes.get(self.pos) != Some(&b'"') {
            return None;
        }
        let key = self.string()?;
        let bit = key_bit(key.as_bytes());
        self.toks.push(Tok::String(key));
        self.skip_ws();
        if self.bytes.get(self.pos) != Some(&b':') {
            return None;
        }
        self.pos += 1;
        self.skip_ws();
        self.value(depth)?;
        Some(bit)
    }

    /// Records where the array or object begun at `at` ends.
    fn close(&mut self, at: usize) -> Option<()> {
        let end = u32::try_from(self.toks.len()).ok()?;
        match &mut self.toks[at] {
            Tok::Array { end: e } | Tok::Object { end: e } => *e = end,
            _ => unreachable!("close follows an opening token"),
        }
        Some(())
    }

    /// Whether the object at `at` names each member once (`serde_json` would keep only the
    /// last of a repeated one, so such an object is left to it).
    fn keys_unique(&self, at: usize) -> bool {
        let node = Node {
            toks: &self.toks,
            at: at as u32,
        };
        // Up to 16 keys: each against those before it, kept on the stack.
        let mut few: [&str; 16] = [""; 16];
        let mut n = 0;
        for (k, _) in node.members() {
            if n == few.len() {
                n += 1;
                break;
            }
            if few[..n].contains(&k) {
                return false;
            }
            few[n] = k;
            n += 1;
        }
        if n <= few.len() {
            return true;
        }
        let mut keys: Vec<&str> = node.members().map(|(k, _)| k).collect();
        keys.sort_unstable();
        keys.windows(2).all(|w| w[0] != w[1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads as `serde_json` does, or is not read.
    fn agrees(text: &str) -> bool {
        let theirs = serde_json::from_str::<Value>(text).ok();
        match Tape::read(text) {
            Some(t) => {
                assert_eq!(Some(t.root().to_value()), theirs, "{text}");
                true
            }
            None => false,
        }
    }

    #[test]
    fn text_equals_compares_as_serde_json_does() {
        let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
        let texts = [
            "null",
            "true",
            "false",
            "0",
            "-0",
            "1",
            "1.0",
            "1E400",
            "1e+400",
            "1e400",
            "1E-2",
            "1e-2",
            "1.5e2",
            "15e1",
            "123456789012345678901234567890",
            r#""a""#,
            r#""\u0061""#,
            "[]",
            "[1]",
            "[1, 2]",
            "[2, 1]",
            "{}",
            r#"{"a": 1}"#,
            r#"{"a": 1.0}"#,
            r#"{"a": 1, "b": 2}"#,
            r#"{"b": 2, "a": 1}"#,
            r#"{"a": 1, "a": 2}"#,
            r#"{"a": 2}"#,
            r#"{"a": [{"b": null}]}"#,
            r#"{"a": [{"b": false}]}"#,
            &deep,
            "not json",
            "{",
        ];
        let mut equal = 0;
        for a in texts {
            for b in texts {
                let Ok(v) = crate::wire::deep::parse_then(b, Value::clone) else {
                    continue;
                };
                let theirs = crate::wire::deep::parse_then(a, |p| *p == v).unwrap_or(false);
                assert_eq!(text_equals(a, &v), theirs, "{a} against {b}");
                // Against the other text on its tape, where the tape reads it.
                if let Some(t) = Tape::read(b) {
                    assert_eq!(
                        text_equals_node(a, t.root()),
                        theirs,
                        "{a} against {b}'s tape"
                    );
                }
                equal += usize::from(theirs);
            }
        }
        // Each JSON text equals itself, and the pairs that read the same (three spellings of
        // 1e+400, two of 1e-2, the two orders of one object, the repeated member and its last,
        // the escaped and the plain string).
        assert_eq!(equal, 31 + 6 + 2 + 3 * 2);
    }

    #[test]
    fn reads_what_serde_json_reads_as_it_does() {
        for text in [
            "null",
            " true ",
            "false",
            "0",
            "-0",
            "-12.5e+3",
            "1E400",
            "123456789012345678901234567890",
            "1e99999",
            r#""plain""#,
            r#""esc \" \\ \n \u00e9 \ud83d\ude00""#,
            "[]",
            "[1, [2, []], {}]",
            r#"{"a": 1, "b": {"c": [true, null]}, "d": "x"}"#,
            "\t{\r\n\"k\" : [ ] }\n",
            r#"{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}"#,
        ] {
            assert!(agrees(text), "{text} was not read");
        }
        // Escaped strings that outgrow the room first made for them, as values and as a name.
        let long = "é plain run ".repeat(20);
        for text in [
            format!(r#"["{long}\n{long}\t\"{long}"]"#),
            format!(r#"{{"k\u00e9{long}": "\"{long}"}}"#),
            format!(r#""{}""#, "\\".repeat(300)),
        ] {
            assert!(agrees(&text), "{text} was not read");
        }
    }

    #[test]
    fn refuses_what_serde_json_refuses() {
        for text in [
            "",
            " ",
            "nul",
            "tru",
            "01",
            "-",
            "1.",
            ".5",
            "1e",
            "1e+",
            "+1",
            "[1,]",
            "[1 2]",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "{a:1}",
            "{\"a\":1}x",
            "\"raw\ncontrol\"",
            r#""lone \ud83d""#,
            r#""bad \x""#,
            r#""unterminated"#,
            r#""ends in \"#,
            "[",
            "{",
            "NaN",
        ] {
            assert!(!agrees(text), "{text:?} was read");
            assert!(serde_json::from_str::<Value>(text).is_err(), "{text:?}");
        }
    }

    #[test]
    fn numbers_are_read_as_serde_json_reads_them() {
        // Integers take a shortcut past the parser; each must still be serde_json's `Number`,
        // its text included.
        for t in [
            "0",
            "-0",
            "7",
            "-7",
            "42",
            "007",
            "-01",
            "100000000000000000",
            "999999999999999999",
            "-999999999999999999",
            "9223372036854775807",
            "-9223372036854775808",
            "9223372036854775808",
            "18446744073709551616",
            "1.5",
            "1e5",
            "1E+5",
            "-0.0",
            "",
            "-",
            "1-",
            "01",
        ] {
            let theirs = t.parse::<Number>().ok();
            let mine = number(t);
            assert_eq!(mine, theirs, "{t}");
            assert_eq!(
                mine.as_ref().map(Number::as_str),
                theirs.as_ref().map(Number::as_str),
                "{t}"
            );
        }
    }

    #[test]
    fn leaves_to_serde_json_what_it_reads_differently() {
        // A repeated member: serde_json keeps the last.
        let dup = r#"{"a": 1, "b": 2, "a": 3}"#;
        assert!(serde_json::from_str::<Value>(dup).is_ok());
        assert!(Tape::read(dup).is_none());
        let many: String = (0..40)
            .map(|i| format!("\"k{}\":{i}", i % 39))
            .collect::<Vec<_>>()
            .join(",");
        assert!(Tape::read(&format!("{{{many}}}")).is_none());
        // Around the sixteen keys checked on the stack: every count, a repeat anywhere.
        for n in 1..=20 {
            let object = |keys: &[String]| {
                let members: Vec<String> = keys.iter().map(|k| format!("\"{k}\":0")).collect();
                format!("{{{}}}", members.join(","))
            };
            // Keys of one length and the same end bytes share their bit: all are compared.
            for keys in [
                (0..n).map(|i| format!("k{i}")).collect::<Vec<_>>(),
                (0..n).map(|i| format!("k{i:02}k")).collect(),
            ] {
                assert!(agrees(&object(&keys)), "{keys:?}");
                for (first, second) in (0..n).flat_map(|a| (a + 1..n).map(move |b| (a, b))) {
                    let mut repeated = keys.clone();
                    repeated[second] = repeated[first].clone();
                    assert!(Tape::read(&object(&repeated)).is_none(), "{repeated:?}");
                }
            }
        }
        // Past serde_json's recursion limit.
        let deep = format!("{}{}", "[".repeat(128), "]".repeat(128));
        assert!(serde_json::from_str::<Value>(&deep).is_err());
        assert!(Tape::read(&deep).is_none());
        let ok = format!("{}{}", "[".repeat(127), "]".repeat(127));
        assert!(agrees(&ok));
    }

    #[test]
    fn walks_in_place() {
        let t = Tape::read(r#"{"a": [1, {"b": "c"}, [2]], "d": {"e": null}, "f": "g"}"#).unwrap();
        let root = t.root();
        assert_eq!(
            root.members().map(|(k, _)| k).collect::<Vec<_>>(),
            ["a", "d", "f"]
        );
        assert_eq!(root.get("a").unwrap().items().count(), 3);
        assert_eq!(root.get("f").and_then(Node::as_str), Some("g"));
        assert_eq!(
            root.get("a")
                .unwrap()
                .items()
                .nth(1)
                .and_then(|n| n.get("b"))
                .and_then(Node::as_str),
            Some("c")
        );
        assert!(root.get("x").is_none());
        assert_eq!(root.get("d").unwrap().get("e").unwrap().tok(), &Tok::Null);
    }
}
