//! Every rule's quote, under every revision it applies to, stands verbatim on the page it cites
//! (markdown aside; `…` marks an elision, the parts standing in order). Pages are read from the
//! official specification (`MCP_SPEC_DIR`): `docs/<page>.mdx` or `docs/<page>/index.mdx`, and
//! for the `schema` page the comments of `schema/schema.ts`, from which the schema reference is
//! generated. The anchor names a heading of the page (its slug), or for the `schema` page a type
//! of `schema.ts`. Citations of other sources (JSON-RPC 2.0, RFCs) are listed, not checked.

use std::collections::BTreeMap;
use std::path::PathBuf;

use mcp_verdict::{Engine, Protocol};

use crate::support::reference::{Reference, dir};
use crate::support::spec_page::{anchors, page_file, plain};

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
