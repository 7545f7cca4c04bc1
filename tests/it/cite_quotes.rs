//! Every rule's quote, under every revision it applies to, stands verbatim on the page it cites
//! (markdown aside; `…` marks an elision, the parts standing in order). Pages are read from the
//! official specification (`MCP_SPEC_DIR`): `docs/<page>.mdx` or `docs/<page>/index.mdx`, and
//! for the `schema` page the comments of `schema/schema.ts`, from which the schema reference is
//! generated. The anchor names a heading of the page (its slug), or for the `schema` page a type
//! of `schema.ts`. Citations of other sources (JSON-RPC 2.0, RFCs) are listed, not checked.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use mcp_verdict::{Engine, Protocol};

use crate::support::reference::{Reference, dir};

/// Text as a reader sees it: no markdown (or, for `schema.ts`, comment markers and JSDoc
/// links), one space between words, plain quotation marks.
fn plain(text: &str, comments: bool) -> String {
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
        // List markers: `- item`, `3. item`.
        let t = t.strip_prefix("- ").unwrap_or(t);
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        let t = match t[digits..].strip_prefix(". ") {
            Some(rest) if digits > 0 => rest,
            _ => t,
        };
        s.push_str(t);
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
        .replace(['\u{201c}', '\u{201d}'], "\"");
    out.split_whitespace().collect::<Vec<_>>().join(" ")
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

/// The anchors a page offers: the slugs of its headings (`## Security & Endpoint` →
/// `security--endpoint`), or for `schema.ts` its types, lowercased.
fn anchors(raw: &str, schema: bool) -> Vec<String> {
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
        .filter_map(|l| {
            let text = l.strip_prefix('#')?.trim_start_matches('#');
            let text = plain(text.trim(), false);
            Some(
                text.to_lowercase()
                    .chars()
                    .filter(|c| c.is_alphanumeric() || *c == ' ' || *c == '-' || *c == '_')
                    .map(|c| if c == ' ' { '-' } else { c })
                    .collect(),
            )
        })
        .collect()
}

/// Whether every part of `quote` (split at `…`) stands in `page`, in order.
fn stands_in(quote: &str, page: &str) -> bool {
    let mut from = 0;
    for part in quote.split('…').map(str::trim).filter(|p| !p.is_empty()) {
        match page[from..].find(part) {
            Some(i) => from += i + part.len(),
            None => return false,
        }
    }
    true
}

fn page_file(spec: &Path, p: Protocol, page: &str) -> Option<PathBuf> {
    let rev = spec.join(p.as_str());
    if page == "schema" {
        return Some(rev.join("schema/schema.ts"));
    }
    [
        rev.join(format!("docs/{page}.mdx")),
        rev.join(format!("docs/{page}/index.mdx")),
    ]
    .into_iter()
    .find(|f| f.is_file())
}

#[test]
fn every_quote_stands_on_the_page_it_cites() {
    let Some(spec) = dir(Reference::Spec) else {
        return;
    };
    let table = Engine::builtin().table();
    let mut pages: BTreeMap<PathBuf, (String, Vec<String>)> = BTreeMap::new();
    let (mut checked, mut other_sources) = (0, 0);
    let mut wrong = Vec::new();
    for p in Protocol::all() {
        let docs = format!("{}/", table.profile(p).docs);
        for a in table.active(p) {
            let rule = &table.rule_of(a).id;
            let Some(page) = a.cite.url.strip_prefix(&docs) else {
                other_sources += 1;
                continue;
            };
            let (page, anchor) = page.split_once('#').unwrap_or((page, ""));
            let Some(file) = page_file(&spec, p, page) else {
                wrong.push(format!(
                    "{rule} ({p}): no page `{page}` in the specification"
                ));
                continue;
            };
            let schema = file.extension().is_some_and(|x| x == "ts");
            let (text, slugs) = pages.entry(file.clone()).or_insert_with(|| {
                let raw = std::fs::read_to_string(&file).unwrap_or_default();
                (plain(&raw, schema), anchors(&raw, schema))
            });
            checked += 1;
            if !anchor.is_empty() && !slugs.iter().any(|s| s == anchor) {
                wrong.push(format!(
                    "{rule} ({p}, {page}): no heading or type with the anchor `#{anchor}`"
                ));
            }
            if !stands_in(&plain(&a.cite.quote, false), text) {
                wrong.push(format!(
                    "{rule} ({p}, {page}): not on the page: \"{}\"",
                    a.cite.quote
                ));
            }
        }
    }
    eprintln!(
        "cite quotes: {checked} checked against the specification, {other_sources} cite other sources"
    );
    assert!(
        wrong.is_empty(),
        "{} citation(s) not on their page:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn markdown_and_elisions_are_read_as_a_reader_would() {
    let page = plain(
        "A [server](/x) **MUST** return `202 Accepted`\n  **with** no _body_.",
        false,
    );
    assert!(stands_in(
        &plain("server MUST return 202 Accepted with no body.", false),
        &page
    ));
    assert_eq!(
        anchors("# Title\n## Security & `Endpoint`\ntext", false),
        ["title", "security--endpoint"]
    );
    assert_eq!(
        anchors("export interface CallToolResult extends Result {", true),
        ["calltoolresult"]
    );
    let ts = plain(" * The {@link CallToolRequest | tools/call} result.", true);
    assert!(stands_in("The tools/call result.", &ts));
    assert!(stands_in("A server … with no body.", &page));
    assert!(!stands_in("with no body. … A server", &page));
    assert!(!stands_in("A server MUST return 200", &page));
}
