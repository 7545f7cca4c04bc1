//! The one redaction policy for everything the program prints or writes: text, JSON, JSON
//! Lines, SARIF, JUnit, HTML, Markdown and workflow-command reports, HAR reports, probe
//! reports and records, and the server's logs and records. What is judged is never redacted;
//! redaction applies to the copies that leave the program.
//!
//! What is replaced by [`REDACTED`] (the name or key is kept):
//!
//! - header values: `Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`, names
//!   with `api-key`, `token`, `secret`, `session-id` in them, and every header named to the
//!   policy ([`Policy::add_header`]: `probe --header` names them all, whatever their names);
//!   a `Name: value` line in free text is cut to its end;
//! - URL query (and fragment) parameters whose name contains `token`, `key`, `secret`,
//!   `password`, `auth`, `sig` or `code`, and `user:password@` in a URL;
//! - `Bearer` and `Basic` credentials, JWT-shaped strings and well-known key formats (`sk-…`,
//!   `ghp_…`, `github_pat_…`, `glpat-…`, `xox?-…`, `AKIA…`, `AIza…`);
//! - values of `password=`, `token: …`, `"api_key": "…"` pairs and, in JSON values, every value
//!   under a secret-looking key;
//! - every value given to [`Policy::add_header`] (at least four characters long) wherever it
//!   appears.
//!
//! The scanner is written by hand rather than with `regex`, so that the library without its
//! optional features redacts the same way as the command line: one linear pass per string,
//! which allocates only when it replaces something. In serialised JSON it only ever replaces
//! characters inside a string (it stops before a quote or an escape that ends a line), so a
//! redacted document still parses.
//!
//! The policy in force is process-wide ([`set`], [`current`]): the command line sets it once
//! (`--no-redact` turns it off, `probe --header` adds its headers), and every output, however
//! deep in the library it is prepared, follows it. Library callers get the default policy
//! (redaction on) unless they set another.

use std::borrow::Cow;
use std::sync::RwLock;

use serde_json::Value;

use crate::wire::exchange::{Exchange, Headers};

/// Replacement text for a redacted secret.
pub const REDACTED: &str = "[REDACTED]";

/// Values shorter than this are not searched for in free text (they would match too much);
/// headers carrying them are still redacted by name.
const MIN_VALUE_CHARS: usize = 4;

/// What to redact.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Policy {
    enabled: bool,
    /// Extra header names (lower case) whose values are secret.
    headers: Vec<String>,
    /// Extra secret values, searched for literally.
    values: Vec<String>,
}

impl Default for Policy {
    fn default() -> Self {
        Policy::new()
    }
}

static POLICY: RwLock<Policy> = RwLock::new(Policy::new());

/// Sets the process-wide policy.
pub fn set(policy: Policy) {
    *POLICY.write().unwrap_or_else(|e| e.into_inner()) = policy;
}

/// The process-wide policy in force.
pub fn current() -> Policy {
    POLICY.read().unwrap_or_else(|e| e.into_inner()).clone()
}

fn with<R>(f: impl FnOnce(&Policy) -> R) -> R {
    f(&POLICY.read().unwrap_or_else(|e| e.into_inner()))
}

/// Whether the policy in force redacts at all.
pub fn enabled() -> bool {
    with(|p| p.enabled)
}

/// [`Policy::text`] under the policy in force.
pub fn text(s: &str) -> Cow<'_, str> {
    if s.is_empty() {
        return Cow::Borrowed(s);
    }
    with(|p| p.text(s))
}

/// [`Policy::url`] under the policy in force.
pub fn url(s: &str) -> Cow<'_, str> {
    with(|p| p.url(s))
}

/// [`Policy::value`] under the policy in force.
pub fn value(v: &Value) -> Value {
    with(|p| p.value(v))
}

/// [`Policy::header`] under the policy in force.
pub fn header<'a>(name: &str, value: &'a str) -> Cow<'a, str> {
    with(|p| p.header(name, value))
}

impl Policy {
    /// The default policy: redaction on, no extra headers.
    pub const fn new() -> Policy {
        Policy {
            enabled: true,
            headers: Vec::new(),
            values: Vec::new(),
        }
    }

    /// A policy that redacts nothing (`--no-redact`).
    pub const fn off() -> Policy {
        Policy {
            enabled: false,
            headers: Vec::new(),
            values: Vec::new(),
        }
    }

    /// Whether this policy redacts at all.
    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// Treats the header `name` as secret whatever its name, and `value` as a secret wherever
    /// it appears (values of fewer than four characters are redacted by header name only).
    pub fn add_header(&mut self, name: &str, value: &str) {
        let name = name.trim().to_ascii_lowercase();
        if !name.is_empty() && !self.headers.contains(&name) {
            self.headers.push(name);
        }
        let value = value.trim();
        if value.chars().count() >= MIN_VALUE_CHARS && !self.values.iter().any(|v| v == value) {
            self.values.push(value.to_string());
            // Longest first, so that a value containing another is replaced whole.
            self.values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        }
    }

    /// Whether a header with this name carries a secret.
    pub fn is_secret_header(&self, name: &str) -> bool {
        is_secret_header_name(name) || self.is_named_header(name)
    }

    /// Whether the header was named to the policy ([`Policy::add_header`]).
    fn is_named_header(&self, name: &str) -> bool {
        self.headers.iter().any(|h| h.eq_ignore_ascii_case(name))
    }

    /// A header's value as shown: [`REDACTED`] for a secret header, else the value with
    /// secrets inside it redacted.
    pub fn header<'a>(&self, name: &str, value: &'a str) -> Cow<'a, str> {
        if !self.enabled {
            return Cow::Borrowed(value);
        }
        if self.is_secret_header(name) {
            return Cow::Owned(REDACTED.to_string());
        }
        self.text(value)
    }

    /// Free text (an error message, a note, a body) with its secrets replaced. Borrowed when
    /// nothing was replaced.
    pub fn text<'a>(&self, s: &'a str) -> Cow<'a, str> {
        if !self.enabled || s.is_empty() {
            return Cow::Borrowed(s);
        }
        let scanned = Scanner::new(self, s).run();
        if self.values.is_empty() {
            return scanned;
        }
        let mut out = scanned;
        for v in &self.values {
            if out.contains(v.as_str()) {
                out = Cow::Owned(out.replace(v.as_str(), REDACTED));
            }
        }
        out
    }

    /// A URL (absolute or not) with its `user:password@` and the values of its
    /// credential-named query and fragment parameters replaced, then [`Policy::text`].
    pub fn url<'a>(&self, s: &'a str) -> Cow<'a, str> {
        if !self.enabled {
            return Cow::Borrowed(s);
        }
        let mut out = String::new();
        let end = url_end(s.as_bytes(), 0);
        let changed = redact_url(&s[..end], &mut out);
        if !changed {
            return self.text(s);
        }
        out.push_str(&s[end..]);
        Cow::Owned(self.text(&out).into_owned())
    }

    /// A JSON value with every string through [`Policy::text`] and every value under a
    /// secret-looking key replaced by `"[REDACTED]"` (a `null` stays `null`). Values handed
    /// here are bounded in depth by whoever built them (facts keep a shallow copy).
    pub fn value(&self, v: &Value) -> Value {
        if !self.enabled {
            return v.clone();
        }
        match v {
            Value::String(s) => match self.text(s) {
                Cow::Borrowed(_) => v.clone(),
                Cow::Owned(o) => Value::String(o),
            },
            Value::Array(items) => Value::Array(items.iter().map(|x| self.value(x)).collect()),
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, x)| {
                        let x = if !x.is_null() && (is_secret_key(k) || self.is_named_header(k)) {
                            Value::String(REDACTED.into())
                        } else {
                            self.value(x)
                        };
                        (self.text(k).into_owned(), x)
                    })
                    .collect(),
            ),
            other => other.clone(),
        }
    }
}

/// Header names whose values are secret by name.
fn is_secret_header_name(name: &str) -> bool {
    let n = name.trim().to_ascii_lowercase();
    matches!(
        n.as_str(),
        "authorization" | "proxy-authorization" | "cookie" | "set-cookie" | "api-key"
    ) || n.ends_with("-api-key")
        || n.ends_with("_api_key")
        || n.contains("token")
        || n.contains("secret")
        || n.contains("session-id")
        || n.contains("password")
        || n.ends_with("-auth")
        || n.contains("-auth-")
}

const SECRET_WORDS: [&str; 11] = [
    "password",
    "passwd",
    "pwd",
    "secret",
    "token",
    "apikey",
    "authorization",
    "cookie",
    "credential",
    "privatekey",
    "sessionid",
];

/// The longest key read as a name.
const MAX_NAME: usize = 128;

/// A key without `-` and `_`, in lower case, written into `buf` (no allocation: every word of
/// a report's text followed by `:` or `=` is looked at); `None` for a key too long to be a
/// name. Bytes, not characters: `-` and `_` are never part of a longer UTF-8 sequence, and
/// lower-casing leaves every byte of one alone.
fn normalized<'b>(key: &str, buf: &'b mut [u8; MAX_NAME]) -> Option<&'b [u8]> {
    if key.len() > MAX_NAME {
        return None;
    }
    let mut n = 0;
    for &c in key.as_bytes() {
        if c != b'-' && c != b'_' {
            buf[n] = c.to_ascii_lowercase();
            n += 1;
        }
    }
    Some(&buf[..n])
}

/// Whether `needle` occurs in `k`.
fn contains(k: &[u8], needle: &str) -> bool {
    k.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// JSON keys whose values are secret: the key, lower case and without `-` and `_`, contains
/// `password`, `passwd`, `pwd`, `secret`, `token`, `apikey`, `authorization`, `cookie`,
/// `credential`, `privatekey` or `sessionid`.
/// `progressToken` (a progress notification's correlation id) and counts of tokens
/// (`maxTokens`) are protocol data, not secrets.
pub fn is_secret_key(key: &str) -> bool {
    normalized(key, &mut [0; MAX_NAME])
        .is_some_and(|k| !is_protocol_key(k) && SECRET_WORDS.iter().any(|n| contains(k, n)))
}

/// Normalised keys that name protocol data, however secret their names look.
fn is_protocol_key(k: &[u8]) -> bool {
    k == b"progresstoken" || k.ends_with(b"tokens")
}

/// Names in free text (`name=value`, `name: value`, `"name": "value"`) whose values are
/// secret: the name ends with one of the words of [`is_secret_key`] (`access_token`,
/// `client_secret`, `api-key`; not `tokens`).
fn is_secret_name(name: &str) -> bool {
    normalized(name, &mut [0; MAX_NAME]).is_some_and(|k| {
        !is_protocol_key(k) && SECRET_WORDS.iter().any(|n| k.ends_with(n.as_bytes()))
    })
}

/// Query parameter names whose values are secret: the name contains (any case) `token`,
/// `key`, `secret`, `password`, `auth`, `sig` or `code`.
pub fn is_secret_param(name: &str) -> bool {
    const NEEDLES: [&str; 7] = ["token", "key", "secret", "password", "auth", "sig", "code"];
    let n = name.to_ascii_lowercase();
    NEEDLES.iter().any(|x| n.contains(x))
}

/// Header names that, followed by `:` or `=`, have the rest of the line redacted.
fn is_line_header(name: &str, policy: &Policy) -> bool {
    const NAMES: [&str; 10] = [
        "authorization",
        "proxy-authorization",
        "cookie",
        "set-cookie",
        "x-api-key",
        "api-key",
        "x-auth-token",
        "x-access-token",
        "x-csrf-token",
        "x-amz-security-token",
    ];
    NAMES.iter().any(|n| n.eq_ignore_ascii_case(name)) || policy.is_named_header(name)
}

/// Which bytes make up a word: one load per byte in the scanner's loop.
static NAME_BYTES: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = b.is_ascii_alphanumeric() || b == b'_' || b == b'-';
        i += 1;
    }
    t
};

fn is_name_byte(b: u8) -> bool {
    NAME_BYTES[usize::from(b)]
}

/// Where a URL starting at `from` ends: at white space, a quote, `<`, `>`, a backslash or a
/// control character.
fn url_end(b: &[u8], from: usize) -> usize {
    let mut i = from;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace()
            || c.is_ascii_control()
            || matches!(c, b'"' | b'\'' | b'<' | b'>' | b'\\' | b'`')
        {
            break;
        }
        i += 1;
    }
    i
}

/// Writes `u` (one URL, without surrounding text) to `out` with its user information and
/// secret parameters redacted; whether anything was.
fn redact_url(u: &str, out: &mut String) -> bool {
    let mut changed = false;
    let mut rest = u;
    if let Some(p) = u.find("://") {
        let (scheme, after) = u.split_at(p + 3);
        out.push_str(scheme);
        let auth_end = after.find(['/', '?', '#']).unwrap_or(after.len());
        match after[..auth_end].rfind('@') {
            Some(at) if after[..at].contains(':') => {
                out.push_str(REDACTED);
                out.push_str(&after[at..auth_end]);
                changed = true;
            }
            _ => out.push_str(&after[..auth_end]),
        }
        rest = &after[auth_end..];
    }
    // Path, then `?query`, then `#fragment`: parameters in the last two.
    let q = rest.find(['?', '#']).unwrap_or(rest.len());
    out.push_str(&rest[..q]);
    let mut params = &rest[q..];
    while !params.is_empty() {
        // The separator (`?`, `#`, `&` or `;`), then one `name=value`.
        out.push_str(&params[..1]);
        params = &params[1..];
        let end = params.find(['&', ';', '#']).unwrap_or(params.len());
        let pair = &params[..end];
        match pair.split_once('=') {
            Some((name, value)) if !value.is_empty() && is_secret_param(name) => {
                out.push_str(name);
                out.push('=');
                out.push_str(REDACTED);
                changed = true;
            }
            _ => out.push_str(pair),
        }
        params = &params[end..];
    }
    changed
}

/// One pass over a string: copies it, replacing secrets, and allocates only at the first.
struct Scanner<'p, 's> {
    policy: &'p Policy,
    s: &'s str,
    b: &'s [u8],
    out: Option<String>,
    /// Bytes of `s` before this are in `out` (or were left as they are).
    copied: usize,
}

impl<'p, 's> Scanner<'p, 's> {
    fn new(policy: &'p Policy, s: &'s str) -> Self {
        Scanner {
            policy,
            s,
            b: s.as_bytes(),
            out: None,
            copied: 0,
        }
    }

    /// Replaces `s[start..end]` with `with`.
    fn replace(&mut self, start: usize, end: usize, with: &str) {
        let out = self
            .out
            .get_or_insert_with(|| String::with_capacity(self.s.len() + 16));
        out.push_str(&self.s[self.copied..start]);
        out.push_str(with);
        self.copied = end;
    }

    fn run(mut self) -> Cow<'s, str> {
        let b = self.b;
        let mut i = 0;
        // Whether a word may start at `i`.
        let mut boundary = true;
        while i < b.len() {
            let c = b[i];
            // An escape in serialised JSON (`\n`, `\"`) is no part of the word after it.
            if c == b'\\' {
                i += 2;
                boundary = true;
                continue;
            }
            if !is_name_byte(c) || !boundary {
                boundary = !is_name_byte(c);
                i += 1;
                continue;
            }
            let start = i;
            let mut end = i;
            while end < b.len() && is_name_byte(b[end]) {
                end += 1;
            }
            i = self.word(start, end).max(end);
            boundary = !is_name_byte(b[i - 1]) || i == end;
        }
        match self.out {
            None => Cow::Borrowed(self.s),
            Some(mut out) => {
                out.push_str(&self.s[self.copied..]);
                Cow::Owned(out)
            }
        }
    }

    /// Looks at the word `s[start..end]` (letters, digits, `_`, `-`) and what follows it;
    /// returns where scanning resumes.
    fn word(&mut self, start: usize, end: usize) -> usize {
        let b = self.b;
        let word = &self.s[start..end];
        // A URL.
        if b.get(end) == Some(&b':')
            && b[end..].starts_with(b"://")
            && b[start].is_ascii_alphabetic()
        {
            let stop = url_end(b, end + 3);
            let mut u = String::new();
            if redact_url(&self.s[start..stop], &mut u) {
                self.replace(start, stop, &u);
            }
            return stop;
        }
        // A JSON member: "name": "value" (or \"name\": \"value\", JSON inside a JSON string).
        let quote: &[u8] = if b[end..].starts_with(b"\\\"") {
            b"\\\""
        } else {
            b"\""
        };
        if start > 0
            && b[start - 1] == b'"'
            && b[end..].starts_with(quote)
            && (is_secret_name(word) || self.policy.is_named_header(word))
        {
            let mut j = skip_blank(b, end + quote.len());
            if b.get(j) == Some(&b':') {
                j = skip_blank(b, j + 1);
                if b[j..].starts_with(quote) {
                    let from = j + quote.len();
                    let close = if quote.len() == 1 {
                        string_end(b, from)
                    } else {
                        // The inner string ends at its escaped quote; stop at any escape.
                        b[from..]
                            .iter()
                            .position(|c| matches!(c, b'\\' | b'"'))
                            .map_or(b.len(), |n| from + n)
                    };
                    if close > from {
                        self.replace(from, close, REDACTED);
                    }
                    return close;
                }
            }
        }
        let sep = skip_inline(b, end);
        let has_sep = matches!(b.get(sep), Some(b':' | b'='));
        // A header line: the rest of it.
        if has_sep && is_line_header(word, self.policy) {
            let from = skip_inline(b, sep + 1);
            let to = line_value_end(b, from);
            if to > from {
                self.replace(from, to, REDACTED);
            }
            return to;
        }
        // Credentials after an auth scheme.
        let len = end - start;
        if (len == 6 && word.eq_ignore_ascii_case("bearer"))
            || (len == 5 && word.eq_ignore_ascii_case("basic"))
        {
            let from = skip_inline(b, end);
            if from > end {
                let bearer = word.len() == 6;
                let to = credential_end(b, from, bearer);
                let cred = &b[from..to];
                // `Bearer error="invalid_token", scope=...` is a challenge whose auth-params
                // (RFC 9110 §11.2) say nothing secret; a credential (token68) has `=` only as
                // its trailing padding.
                let auth_param = cred.iter().position(|c| *c == b'=').is_some_and(|i| {
                    cred[i..].iter().any(|c| *c != b'=') || b.get(to) == Some(&b'"')
                });
                if auth_param {
                    return end;
                }
                let ok = if bearer {
                    cred.len() >= 6
                } else {
                    cred.iter()
                        .any(|c| c.is_ascii_digit() || matches!(c, b'+' | b'/' | b'='))
                };
                if ok {
                    self.replace(from, to, REDACTED);
                    return to;
                }
            }
            return end;
        }
        // Key-shaped tokens (none is shorter than eight bytes: see `key_like`).
        if len >= 8
            && let Some(to) = key_like(b, start, end)
        {
            self.replace(start, to, REDACTED);
            return to;
        }
        // key=value, key: value.
        if has_sep && is_secret_name(word) {
            let from = skip_inline(b, sep + 1);
            match b.get(from) {
                Some(b'"' | b'\'') => {
                    let q = b[from];
                    let mut to = from + 1;
                    while to < b.len() && b[to] != q && b[to] != b'\\' && b[to] != b'\n' {
                        to += 1;
                    }
                    if to > from + 1 && b.get(to) == Some(&q) {
                        self.replace(from + 1, to, REDACTED);
                    }
                    return to;
                }
                _ => {
                    let mut to = from;
                    while to < b.len()
                        && !b[to].is_ascii_whitespace()
                        && !matches!(b[to], b'&' | b',' | b';' | b'\'' | b'"' | b'\\')
                    {
                        to += 1;
                    }
                    let value = &self.s[from..to];
                    // `token: Bearer abc` — the scheme's rule takes the credential.
                    if value.eq_ignore_ascii_case("bearer") || value.eq_ignore_ascii_case("basic") {
                        return from;
                    }
                    if to > from {
                        self.replace(from, to, REDACTED);
                    }
                    return to;
                }
            }
        }
        end
    }
}

/// Skips spaces and tabs.
fn skip_inline(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && matches!(b[i], b' ' | b'\t') {
        i += 1;
    }
    i
}

/// Skips JSON white space.
fn skip_blank(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// The closing quote of a JSON string whose contents start at `i` (or the end of the text).
fn string_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        match b[i] {
            b'"' => return i,
            b'\\' => i += 2,
            _ => i += 1,
        }
    }
    b.len()
}

/// Where a header value starting at `i` ends: at a line break, an unescaped quote (the end of
/// the JSON string it sits in) or an escaped line break (`\n`, `\r`).
fn line_value_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() {
        match b[i] {
            b'\n' | b'\r' | b'"' => return i,
            b'\\' => match b.get(i + 1) {
                Some(b'n' | b'r') | None => return i,
                Some(_) => i += 2,
            },
            _ => i += 1,
        }
    }
    b.len()
}

/// Where a `Bearer` (token68 characters) or `Basic` (base64) credential starting at `i` ends.
fn credential_end(b: &[u8], mut i: usize, bearer: bool) -> usize {
    while i < b.len() {
        let c = b[i];
        let ok = c.is_ascii_alphanumeric()
            || matches!(c, b'+' | b'/' | b'=')
            || (bearer && matches!(c, b'-' | b'.' | b'_' | b'~'));
        if !ok {
            break;
        }
        i += 1;
    }
    i
}

/// If the word `b[start..end]` starts a well-known key format or a JWT, where it ends.
fn key_like(b: &[u8], start: usize, end: usize) -> Option<usize> {
    let w = &b[start..end];
    let rest_after = |p: &[u8]| w.len().saturating_sub(p.len());
    // JWT: eyJ… . … . …
    if w.starts_with(b"eyJ") && w.len() >= 8 && b.get(end) == Some(&b'.') {
        let mid_end = run_end(b, end + 1);
        if mid_end - (end + 1) >= 5 && b.get(mid_end) == Some(&b'.') {
            return Some(run_end(b, mid_end + 1));
        }
    }
    for p in [&b"sk-"[..], b"pk-", b"rk-", b"glpat-"] {
        if w.starts_with(p) && rest_after(p) >= 12 {
            return Some(end);
        }
    }
    for p in [
        &b"ghp_"[..],
        b"gho_",
        b"ghu_",
        b"ghs_",
        b"ghr_",
        b"github_pat_",
    ] {
        if w.starts_with(p) && rest_after(p) >= 16 {
            return Some(end);
        }
    }
    if w.len() >= 15
        && w.starts_with(b"xox")
        && matches!(w[3], b'a' | b'b' | b'p' | b'r' | b's')
        && w[4] == b'-'
    {
        return Some(end);
    }
    if w.len() == 20
        && (w.starts_with(b"AKIA") || w.starts_with(b"ASIA"))
        && w.iter()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
    {
        return Some(end);
    }
    if w.starts_with(b"AIza") && w.len() >= 34 {
        return Some(end);
    }
    None
}

/// The end of a run of base64url characters from `i`.
fn run_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && is_name_byte(b[i]) {
        i += 1;
    }
    i
}

/// Replaces the values of secret headers, request and response, by `[REDACTED]` under the
/// policy in force (`Authorization`, cookies, `*-Api-Key`, `*token*`, session ids and every
/// header named to the policy).
pub fn exchange_headers(ex: &mut Exchange) {
    let policy = current();
    if !policy.is_enabled() {
        return;
    }
    let redacted = |h: &Headers| {
        Headers::new(
            h.iter()
                .map(|(n, v)| (n.to_string(), policy.header(n, v).into_owned())),
        )
    };
    ex.request.headers = redacted(&ex.request.headers);
    ex.response_headers = redacted(&ex.response_headers);
    // The session id recorded as context is redacted as the header it was sent in.
    if let Some(s) = &mut ex.session {
        s.id = policy
            .header(crate::vocab::protocol::header::SESSION_ID, &s.id)
            .into_owned();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A name is normalised in place as it would be into a new string, character by
    /// character, whatever its letters.
    #[test]
    fn names_normalise_in_place_as_into_a_string() {
        fn as_string(key: &str) -> Option<Vec<u8>> {
            (key.len() <= MAX_NAME).then(|| {
                key.chars()
                    .filter(|c| *c != '-' && *c != '_')
                    .map(|c| c.to_ascii_lowercase())
                    .collect::<String>()
                    .into_bytes()
            })
        }
        let long = "k".repeat(MAX_NAME);
        let longer = "k".repeat(MAX_NAME + 1);
        for key in [
            "",
            "access_token",
            "Client-Secret",
            "progressToken",
            "maxTokens",
            "X-API-KEY",
            "P\u{e4}ss_W\u{f6}rd",
            "\u{130}TOKEN",
            "ß-secret",
            "tok\u{2010}en",
            "_-_",
            &long,
            &longer,
        ] {
            let mut buf = [0; MAX_NAME];
            assert_eq!(
                normalized(key, &mut buf).map(<[u8]>::to_vec),
                as_string(key),
                "{key}"
            );
        }
        assert!(contains(b"clientsecret", "secret") && !contains(b"secre", "secret"));
        assert!(is_secret_name("client_secret") && !is_secret_name("maxTokens"));
        assert!(is_secret_key("X-Api-Key") && !is_secret_key("progressToken"));
    }

    #[test]
    fn secret_headers_are_redacted() {
        let mut ex = Exchange::new(
            None,
            200,
            Headers::new([("Set-Cookie", "a=b"), ("Content-Type", "application/json")]),
            Vec::new(),
        );
        ex.request.headers = Headers::new([
            ("Authorization", "Bearer abc"),
            ("X-Api-Key", "k"),
            ("X-Auth-Token", "t"),
            ("Mcp-Session-Id", "s"),
            ("Accept", "application/json"),
        ]);
        exchange_headers(&mut ex);
        let values: Vec<&str> = ex.request.headers.iter().map(|(_, v)| v).collect();
        assert_eq!(
            values,
            [REDACTED, REDACTED, REDACTED, REDACTED, "application/json"]
        );
        let values: Vec<&str> = ex.response_headers.iter().map(|(_, v)| v).collect();
        assert_eq!(values, [REDACTED, "application/json"]);
    }

    fn t(s: &str) -> String {
        Policy::new().text(s).into_owned()
    }

    #[test]
    fn header_lines_and_schemes() {
        assert_eq!(
            t("Authorization: Bearer abcdef123456\nCookie: sid=xyz; a=b\nok"),
            "Authorization: [REDACTED]\nCookie: [REDACTED]\nok"
        );
        assert_eq!(
            t("upstream said: Bearer eyJhbGciOi.abc.def rejected"),
            "upstream said: Bearer [REDACTED] rejected"
        );
        assert_eq!(
            t("basic dXNlcjpwYXNzd29yZA== was refused"),
            "basic [REDACTED] was refused"
        );
        let s = t("set-cookie=session=abc123; x-api-key: KEY-123-456");
        assert!(!s.contains("abc123") && !s.contains("KEY-123"), "{s}");
        assert_eq!(t("token: Bearer abcdefgh"), "token: Bearer [REDACTED]");
        // A challenge's auth-params are not credentials; token68 padding is.
        let challenge = r#"WWW-Authenticate: Bearer error="insufficient_scope", scope="a b", resource_metadata="https://h/.well-known/oauth-protected-resource""#;
        assert_eq!(t(challenge), challenge);
        assert_eq!(
            t("Bearer error=invalid_token"),
            "Bearer error=invalid_token"
        );
        assert_eq!(t("Basic realm=\"mcp\""), "Basic realm=\"mcp\"");
        assert_eq!(t("Bearer abcdefgh== done"), "Bearer [REDACTED] done");
        assert_eq!(t("Basic dXNlcjpwYXNzd29yZDE="), "Basic [REDACTED]");
    }

    #[test]
    fn json_text_stays_json() {
        let doc = json!({
            "error": {
                "code": -32000,
                "message": "Authorization: Bearer abcdefghijkl\nCookie: \"q\" x",
                "data": {"api_key": "abc\"def", "url": "https://h/x?access_token=zz&a=1"}
            }
        })
        .to_string();
        let red = t(&doc);
        let back: Value = serde_json::from_str(&red).expect(&red);
        let e = &back["error"];
        assert_eq!(
            e["message"],
            "Authorization: [REDACTED]\nCookie: [REDACTED]"
        );
        assert_eq!(e["data"]["api_key"], REDACTED);
        assert_eq!(e["data"]["url"], "https://h/x?access_token=[REDACTED]&a=1");
        assert!(
            !red.contains("abcdefghijkl") && !red.contains("zz"),
            "{red}"
        );
    }

    #[test]
    fn urls() {
        let p = Policy::new();
        assert_eq!(
            p.url("https://bob:pa55@example.com/x?access_token=abc&page=2&Sig=x;code=1#id_token=j"),
            "https://[REDACTED]@example.com/x?access_token=[REDACTED]&page=2&Sig=[REDACTED];code=[REDACTED]#id_token=[REDACTED]"
        );
        assert_eq!(p.url("/mcp?apiKey=k"), "/mcp?apiKey=[REDACTED]");
        assert_eq!(p.url("http://127.0.0.1:9/mcp"), "http://127.0.0.1:9/mcp");
        assert_eq!(
            t("fetch https://bob:pa55@example.com/x failed"),
            "fetch https://[REDACTED]@example.com/x failed"
        );
        assert_eq!(
            t("see http://h/p?q=1&auth=zz."),
            "see http://h/p?q=1&auth=[REDACTED]"
        );
        assert_eq!(Policy::off().url("/x?token=a"), "/x?token=a");
    }

    #[test]
    fn token_shapes() {
        for c in [
            "key sk-proj-ABCDEFGHIJKLMNOPQRSTUV used",
            "key sk-ant-api03-abcdefghijklmnop used",
            "token ghp_abcdefghijklmnopqrstuvwxyz0123456789 used",
            "github_pat_11ABCDEFG0123456789_abcdefghij used",
            "glpat-abcdefghijklmnopqrst used",
            "xoxb-1234567890-abcdefghij used",
            "AKIAABCDEFGHIJKLMNOP used",
            "AIzaSyA1234567890abcdefghijklmnopqrstu used",
            "jwt eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig_nature-xyz used",
        ] {
            let s = t(c);
            assert!(s.contains(REDACTED) && s.ends_with(" used"), "{c} -> {s}");
            let secret = c.split_whitespace().find(|w| w.len() > 15).unwrap();
            assert!(!s.contains(secret), "{c} -> {s}");
        }
    }

    #[test]
    fn pairs() {
        assert_eq!(
            t("login failed: password=hunter2&user=bob"),
            "login failed: password=[REDACTED]&user=bob"
        );
        assert_eq!(
            t("client_secret: s3cr3t, next"),
            "client_secret: [REDACTED], next"
        );
        assert_eq!(t("password = 'hunter2'"), "password = '[REDACTED]'");
        assert_eq!(
            t(r#"{"api_key": "abc\"def", "n": 1}"#),
            r#"{"api_key": "[REDACTED]", "n": 1}"#
        );
    }

    #[test]
    fn ordinary_text_is_borrowed() {
        for plain in [
            "Unknown tool: get_weather (tokens used: 12); basic validation failed",
            "sk-short",
            "the bearer of bad news",
            "",
            "é✓ \u{1b}[2J",
        ] {
            assert!(
                matches!(Policy::new().text(plain), Cow::Borrowed(_)),
                "{plain}"
            );
        }
    }

    #[test]
    fn headers_named_to_the_policy() {
        let mut p = Policy::new();
        p.add_header("X-Custom-Auth", "s3cr3t-value");
        p.add_header("X-Short", "ab");
        assert!(p.is_secret_header("x-custom-auth"));
        assert_eq!(p.header("X-Short", "ab"), REDACTED);
        assert_eq!(p.header("Accept", "text/html"), "text/html");
        assert_eq!(p.header("Mcp-Session-Id", "s"), REDACTED);
        assert_eq!(p.text("echoed s3cr3t-value back"), "echoed [REDACTED] back");
        assert_eq!(p.text("X-Short: ab\nok"), "X-Short: [REDACTED]\nok");
        assert_eq!(p.text("ab"), "ab");
        assert_eq!(Policy::off().header("Authorization", "x"), "x");
    }

    #[test]
    fn values() {
        let mut p = Policy::new();
        p.add_header("X-Custom", "custom-secret");
        let v = json!({
            "headers": {"Authorization": "Bearer abcdefghijkl", "Accept": "*/*", "x-custom": "y"},
            "detail": "retry with sk-proj-ABCDEFGHIJKLMNOPQRSTUV or custom-secret",
            "accessToken": "xyz",
            "list": [1, "password=abc", null],
            "nothing": null,
            "password": null,
            "_meta": {"progressToken": "p-1", "maxTokens": 5}
        });
        let s = p.value(&v);
        assert_eq!(s["headers"]["Authorization"], REDACTED);
        assert_eq!(s["headers"]["Accept"], "*/*");
        assert_eq!(s["headers"]["x-custom"], REDACTED);
        assert_eq!(s["accessToken"], REDACTED);
        assert_eq!(s["detail"], "retry with [REDACTED] or [REDACTED]");
        assert_eq!(s["list"], json!([1, "password=[REDACTED]", null]));
        assert_eq!(s["password"], Value::Null);
        assert_eq!(s["_meta"], v["_meta"]);
        assert_eq!(
            t(r#"{"progressToken": "p-1"}"#),
            r#"{"progressToken": "p-1"}"#
        );
        assert_eq!(Policy::off().value(&v), v);
    }

    proptest::proptest! {
        /// Serialised JSON stays JSON whatever its strings hold, and free text never panics.
        #[test]
        fn redacted_json_still_parses(
            s in "[a-zA-Z0-9 :=\"\\\\\n/?&#@._'é-]{0,40}",
            k in "(token|password|Authorization|api_key|x|url)",
        ) {
            let mut p = Policy::new();
            p.add_header("X-Custom", "custom");
            let v = json!({
                &k: &s,
                "message": format!("Authorization: {s} Bearer {s} token={s} https://h/?code={s}"),
                "nested": json!({&k: &s, "x": format!("eyJabcdefgh.{s}")}).to_string(),
                "list": [format!("X-Custom: {s}"), format!("\"{k}\": \"{s}\"")]
            });
            for doc in [v.to_string(), serde_json::to_string_pretty(&v).unwrap()] {
                let red = p.text(&doc);
                let back = serde_json::from_str::<Value>(&red);
                proptest::prop_assert!(back.is_ok(), "{} -> {}", doc, red);
            }
            let _ = p.text(&s);
            let _ = p.url(&s);
        }
    }

    #[test]
    fn hostile_input_does_not_panic() {
        let p = Policy::new();
        for s in [
            "\"",
            "\"token\"",
            "\"token\":",
            "\"token\": \"",
            "\"token\": \"\\",
            "Bearer",
            "Bearer ",
            "token=",
            "x://",
            "://",
            "a://b@",
            "?",
            "http://h?&&=&a",
            "eyJabcdefgh.",
            "Cookie:",
            "Cookie: \\",
            "é://é?token=é",
            "password:'",
            "auth=é",
        ] {
            let _ = p.text(s);
            let _ = p.url(s);
        }
    }
}
