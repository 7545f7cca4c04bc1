//! The official specification's pages read as a reader sees them: plain text (no markdown, no
//! comment markers), the anchors a page offers, and its sentences with a BCP 14 keyword.
//!
//! A page is `docs/<page>.mdx` or `docs/<page>/index.mdx` of a revision; the `schema` page is
//! read from the comments of `schema/schema.ts`, from which the schema reference is generated.

use std::path::{Path, PathBuf};

use mcp_verdict::Protocol;

/// Text as a reader sees it: no markdown (or, for `schema.ts`, comment markers and JSDoc
/// links), one space between words, plain quotation marks, dashes for their HTML entities.
pub fn plain(text: &str, comments: bool) -> String {
    let mut s = String::with_capacity(text.len());
    for line in text.lines() {
        let mut t = line.trim_start();
        if comments {
            // Doc comments: ` * text`, `/** text`, ` */`.
            t = t
                .strip_prefix("/**")
                .or_else(|| t.strip_prefix("*/"))
                .or_else(|| t.strip_prefix('*'))
                .unwrap_or(t)
                .trim_start();
        }
        s.push_str(strip_list_marker(t));
        s.push(' ');
    }
    let s = if comments { jsdoc_links(&s) } else { s };
    // Links keep their text: [text](url) and [text][ref] -> text.
    let mut out = String::with_capacity(s.len());
    let mut rest = s.as_str();
    while let Some(i) = rest.find('[') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let close = match (after.find("]("), after.find("][")) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        match close {
            Some(j) if !after[..j].contains('[') => {
                let text = &after[..j];
                let tail = &after[j + 2..];
                let end = if after[j..].starts_with("](") {
                    ')'
                } else {
                    ']'
                };
                match tail.find(end) {
                    Some(k) => {
                        out.push_str(text);
                        rest = &tail[k + 1..];
                    }
                    None => {
                        out.push('[');
                        rest = after;
                    }
                }
            }
            _ => {
                out.push('[');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    // Emphasis underscores go; those inside a word (`input_required`) stay.
    let chars: Vec<char> = out.chars().collect();
    let out: String = chars
        .iter()
        .enumerate()
        .filter(|&(i, &c)| {
            c != '_'
                || (i > 0
                    && chars[i - 1].is_alphanumeric()
                    && chars.get(i + 1).is_some_and(|n| n.is_alphanumeric()))
        })
        .map(|(_, &c)| c)
        .collect();
    let out = out
        .replace(['`', '\\'], "")
        .replace("**", "")
        .replace(['\u{2018}', '\u{2019}'], "'")
        .replace(['\u{201c}', '\u{201d}'], "\"")
        .replace("&mdash;", "\u{2014}")
        .replace("&ndash;", "\u{2013}")
        .replace("&nbsp;", " ");
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A line without its list marker (`- item`, `* item`, `3. item`).
fn strip_list_marker(t: &str) -> &str {
    let t = t
        .strip_prefix("- ")
        .or_else(|| t.strip_prefix("* "))
        .unwrap_or(t);
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    match t[digits..].strip_prefix(". ") {
        Some(rest) if digits > 0 => rest,
        _ => t,
    }
}

/// Whether a (trimmed) line starts a list item.
fn is_list_item(t: &str) -> bool {
    strip_list_marker(t).len() != t.len()
}

/// `{@link Target | text}` reads as `text`, `{@link Target}` as `Target`.
fn jsdoc_links(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("{@link ") {
        out.push_str(&rest[..i]);
        let inner = &rest[i + 7..];
        let Some(end) = inner.find('}') else {
            out.push_str(&rest[i..]);
            return out;
        };
        let link = &inner[..end];
        out.push_str(link.split_once('|').map_or(link, |(_, t)| t).trim());
        rest = &inner[end + 1..];
    }
    out.push_str(rest);
    out
}

/// The anchor of a heading's text: lowercased, spaces to `-`, punctuation dropped
/// (`Security & Endpoint` → `security--endpoint`).
pub fn slug(heading: &str) -> String {
    plain(heading.trim(), false)
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors a page offers: the slugs of its headings, or for `schema.ts` its types,
/// lowercased.
pub fn anchors(raw: &str, schema: bool) -> Vec<String> {
    if schema {
        return raw
            .lines()
            .filter_map(|l| {
                let l = l.trim_start();
                let rest = l
                    .strip_prefix("export interface ")
                    .or_else(|| l.strip_prefix("export type "))?;
                let name: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                Some(name.to_lowercase())
            })
            .collect();
    }
    raw.lines()
        .filter_map(|l| Some(slug(l.strip_prefix('#')?.trim_start_matches('#'))))
        .collect()
}

/// The file of a page of revision `p` (`schema` is `schema/schema.ts`), if it exists.
pub fn page_file(spec: &Path, p: Protocol, page: &str) -> Option<PathBuf> {
    let rev = spec.join(p.as_str());
    if page == "schema" {
        return Some(rev.join("schema/schema.ts")).filter(|f| f.is_file());
    }
    [
        rev.join(format!("docs/{page}.mdx")),
        rev.join(format!("docs/{page}/index.mdx")),
    ]
    .into_iter()
    .find(|f| f.is_file())
}

/// The BCP 14 keywords, longest first so that `MUST NOT` is read before `MUST`.
pub const KEYWORDS: [&str; 10] = [
    "MUST NOT",
    "SHALL NOT",
    "SHOULD NOT",
    "MUST",
    "REQUIRED",
    "SHALL",
    "SHOULD",
    "RECOMMENDED",
    "MAY",
    "OPTIONAL",
];

/// The first BCP 14 keyword of a sentence, as a whole word in capitals, with its byte offset.
pub fn first_keyword(sentence: &str) -> Option<(usize, &'static str)> {
    let bytes = sentence.as_bytes();
    let boundary = |i: usize| i >= bytes.len() || !bytes[i].is_ascii_alphanumeric();
    (0..sentence.len())
        .filter(|&i| i == 0 || boundary(i - 1))
        .find_map(|i| {
            KEYWORDS
                .iter()
                .find(|k| bytes[i..].starts_with(k.as_bytes()) && boundary(i + k.len()))
                .map(|k| (i, *k))
        })
}

/// A sentence of a page with a BCP 14 keyword.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sentence {
    /// The plain text (see [`plain`]).
    pub text: String,
    /// The slugs of the headings it stands under, outermost first (empty for `schema.ts`).
    pub headings: Vec<String>,
}

/// Every sentence with a BCP 14 keyword of a page's raw text, in page order. A block (a
/// paragraph, a list item, a comment paragraph) is split into sentences at `.`, `?` or `!`
/// followed by a space and a capital; a table row is one sentence, its cells joined by ` | `.
/// Code blocks, front matter, HTML or JSX tags and link definitions are not prose.
pub fn keyword_sentences(raw: &str, schema: bool) -> Vec<Sentence> {
    let blocks = if schema {
        comment_blocks(raw)
    } else {
        mdx_blocks(raw)
    };
    let mut out = Vec::new();
    for (block, headings, row) in blocks {
        let text = plain(&block, schema);
        let parts = if row {
            vec![text]
        } else {
            split_sentences(&text)
        };
        for s in parts {
            if first_keyword(&s).is_some() {
                out.push(Sentence {
                    text: s,
                    headings: headings.clone(),
                });
            }
        }
    }
    out
}

type Block = (String, Vec<String>, bool);

/// The prose blocks of an `.mdx` page, each with the headings it stands under and whether it is
/// a table row.
fn mdx_blocks(raw: &str) -> Vec<Block> {
    let mut blocks: Vec<Block> = Vec::new();
    let mut headings: Vec<(usize, String)> = Vec::new();
    let mut current = String::new();
    let mut fence: Option<&str> = None;
    let mut lines = raw.lines().peekable();
    let slugs = |h: &[(usize, String)]| h.iter().map(|(_, s)| s.clone()).collect::<Vec<_>>();
    // Front matter.
    if lines.peek().is_some_and(|l| l.trim() == "---") {
        lines.next();
        for l in lines.by_ref() {
            if l.trim() == "---" {
                break;
            }
        }
    }
    let flush = |current: &mut String, blocks: &mut Vec<Block>, h: &[(usize, String)]| {
        if !current.trim().is_empty() {
            blocks.push((std::mem::take(current), slugs(h), false));
        }
        current.clear();
    };
    for line in lines {
        let t = line.trim();
        if let Some(f) = fence {
            if t.starts_with(f) && t.trim_start_matches(f.chars().next().unwrap()).is_empty() {
                fence = None;
            }
            continue;
        }
        if t.starts_with("```") || t.starts_with("~~~") {
            flush(&mut current, &mut blocks, &headings);
            fence = Some(if t.starts_with("```") { "```" } else { "~~~" });
            continue;
        }
        if t.is_empty() {
            flush(&mut current, &mut blocks, &headings);
            continue;
        }
        if let Some(h) = t.strip_prefix('#') {
            flush(&mut current, &mut blocks, &headings);
            let level = 1 + h.bytes().take_while(|&b| b == b'#').count();
            headings.retain(|(l, _)| *l < level);
            headings.push((level, slug(h.trim_start_matches('#'))));
            continue;
        }
        if t.starts_with('|') {
            flush(&mut current, &mut blocks, &headings);
            let cells: Vec<&str> = t.trim_matches('|').split('|').map(str::trim).collect();
            if !cells.iter().all(|c| c.chars().all(|ch| "-: ".contains(ch))) {
                blocks.push((strip_tags(&cells.join(" | ")), slugs(&headings), true));
            }
            continue;
        }
        if is_link_definition(t) {
            continue;
        }
        if is_list_item(t) {
            flush(&mut current, &mut blocks, &headings);
        }
        let text = strip_tags(t);
        if !text.trim().is_empty() {
            current.push_str(&text);
            current.push('\n');
        }
    }
    flush(&mut current, &mut blocks, &headings);
    blocks
}

/// `[name]: target` lines.
fn is_link_definition(t: &str) -> bool {
    t.starts_with('[')
        && t.find("]:")
            .is_some_and(|i| !t[1..i].contains('[') && !t[1..i].is_empty())
}

/// Text without HTML or JSX tags (`<Note>`, `<div id="x" />`, `</Info>`); a `<` not starting a
/// tag (`a < b`) stays.
fn strip_tags(t: &str) -> String {
    let mut out = String::with_capacity(t.len());
    let mut rest = t;
    while let Some(i) = rest.find('<') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        let tag = after
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '/' || c == '!');
        match after.find('>') {
            Some(j) if tag => {
                out.push(' ');
                rest = &after[j + 1..];
            }
            _ => {
                out.push('<');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The paragraphs and list items of `schema.ts`'s doc comments (code examples and `@` tags
/// other than their text left out), each as one block.
fn comment_blocks(raw: &str) -> Vec<Block> {
    let mut blocks = Vec::new();
    let mut current = String::new();
    let mut in_comment = false;
    let mut fence = false;
    let flush = |current: &mut String, blocks: &mut Vec<Block>| {
        if !current.trim().is_empty() {
            blocks.push((std::mem::take(current), Vec::new(), false));
        }
        current.clear();
    };
    for line in raw.lines() {
        let t = line.trim();
        if !in_comment {
            if let Some(rest) = t.strip_prefix("/**") {
                in_comment = true;
                fence = false;
                let (text, closed) = match rest.find("*/") {
                    Some(i) => (&rest[..i], true),
                    None => (rest, false),
                };
                current.push_str(text);
                current.push('\n');
                if closed {
                    in_comment = false;
                    flush(&mut current, &mut blocks);
                }
            }
            continue;
        }
        let (body, closed) = match t.find("*/") {
            Some(i) => (&t[..i], true),
            None => (t, false),
        };
        let body = body.strip_prefix('*').unwrap_or(body).trim();
        if body.starts_with("```") {
            fence = !fence;
            flush(&mut current, &mut blocks);
        } else if fence {
        } else if body.is_empty() || body.starts_with('@') {
            flush(&mut current, &mut blocks);
            // `@deprecated text` and `@default x`: the text is prose; `@example` titles are not.
            let tag_text = body
                .strip_prefix("@deprecated")
                .or_else(|| body.strip_prefix("@remarks"));
            if let Some(text) = tag_text {
                current.push_str(text);
                current.push('\n');
            }
        } else {
            if is_list_item(body) {
                flush(&mut current, &mut blocks);
            }
            current.push_str(body);
            current.push('\n');
        }
        if closed {
            in_comment = false;
            flush(&mut current, &mut blocks);
        }
    }
    blocks
}

/// Whether the character before byte `at` of `s` is a letter or digit.
fn word_char_before(s: &str, at: usize) -> bool {
    s[..at]
        .chars()
        .next_back()
        .is_some_and(char::is_alphanumeric)
}

/// A block's sentences: split after `.`, `?` or `!` followed by a space and a capital letter,
/// a digit or an opening quote, except after `e.g.`, `i.e.`, `etc.` and `vs.`.
pub fn split_sentences(text: &str) -> Vec<String> {
    const ABBREVIATIONS: [&str; 4] = ["e.g.", "i.e.", "etc.", "vs."];
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    for i in 0..bytes.len() {
        if !matches!(bytes[i], b'.' | b'?' | b'!') || bytes.get(i + 1) != Some(&b' ') {
            continue;
        }
        let next = text[i + 2..].chars().next();
        if !next.is_some_and(|c| c.is_uppercase() || c.is_ascii_digit() || c == '"') {
            continue;
        }
        let so_far = &text[start..=i];
        if ABBREVIATIONS
            .iter()
            .any(|a| so_far.ends_with(a) && !word_char_before(so_far, so_far.len() - a.len()))
        {
            continue;
        }
        out.push(so_far.trim().to_owned());
        start = i + 2;
    }
    let last = text[start..].trim();
    if !last.is_empty() {
        out.push(last.to_owned());
    }
    out
}
