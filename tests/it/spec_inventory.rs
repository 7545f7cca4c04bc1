//! Every sentence with a BCP 14 keyword on the specification pages in scope is accounted for by
//! `spec-inventory/`: mapped to the rules that judge it, or given the reason one recorded
//! exchange cannot show it (the format is described in `spec-inventory/pages.toml`).
//!
//! The pages are read from the official specification (`MCP_SPEC_DIR`). The test fails when a
//! page is neither inventoried nor listed in `pages.toml` (or listed as still pending), when a keyword sentence has no entry,
//! when an entry matches no sentence (the page changed), when an entry's excerpt is not in its
//! sentence, or when a mapped rule does not exist or does not apply to the page's revision. It
//! prints the counts per page and revision.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::Hasher as _;
use std::path::{Path, PathBuf};

use mcp_verdict::{Engine, Protocol};
use serde::Deserialize;

use crate::support::reference::{Reference, dir};
use crate::support::spec_page::{
    Sentence, first_keyword, keyword_sentences, page_file, split_sentences,
};

/// The inventory's index: shared reasons, and the pages (or sections) not inventoried.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Index {
    #[serde(default)]
    reasons: BTreeMap<String, String>,
    #[serde(default)]
    page: Vec<Listed>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Listed {
    revision: String,
    page: String,
    section: Option<String>,
    scope: Scope,
    reason: String,
}

#[derive(Deserialize, Clone, Copy, PartialEq, Eq, Debug)]
#[serde(rename_all = "lowercase")]
enum Scope {
    /// No keyword sentence of it bears on a `tools/call` exchange, its stream, its session or
    /// the discovery answers.
    Out,
    /// In scope, not inventoried yet.
    Pending,
}

/// One page's (or one section's) inventory.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PageFile {
    revision: String,
    page: String,
    section: Option<String>,
    #[serde(default)]
    sentence: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    hash: String,
    excerpt: String,
    #[serde(default)]
    rules: Vec<String>,
    reason: Option<String>,
}

/// The inventory's identity of a sentence: FNV-1a (64 bits) of its plain text, in hex.
fn sentence_hash(text: &str) -> String {
    let mut h = fnv::FnvHasher::default();
    h.write(text.as_bytes());
    format!("{:016x}", h.finish())
}

/// A few words around a sentence's first keyword, as they stand in it, to recognise it by.
fn excerpt(text: &str) -> String {
    let (at, kw) = first_keyword(text).expect("a keyword sentence");
    let words: Vec<(usize, usize)> = text
        .split(' ')
        .scan(0, |pos, w| {
            let span = (*pos, *pos + w.len());
            *pos += w.len() + 1;
            Some(span)
        })
        .collect();
    let first = words.iter().position(|&(_, e)| e > at).unwrap_or(0);
    let last = words
        .iter()
        .position(|&(_, e)| e >= at + kw.len())
        .unwrap_or(words.len() - 1);
    let from = words[first.saturating_sub(5)].0;
    let to = words[(last + 6).min(words.len() - 1)].1;
    text[from..to].to_owned()
}

/// What the inventory says, and where.
struct Inventory {
    index: Index,
    files: Vec<(PathBuf, PageFile)>,
}

fn inventory_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("spec-inventory")
}

fn load_inventory() -> Inventory {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "toml") {
                out.push(p);
            }
        }
    }
    let root = inventory_dir();
    let read =
        |p: &Path| std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let index_path = root.join("pages.toml");
    let index: Index = toml::from_str(&read(&index_path))
        .unwrap_or_else(|e| panic!("{}: {e}", index_path.display()));
    let mut paths = Vec::new();
    walk(&root, &mut paths);
    paths.sort();
    let files = paths
        .into_iter()
        .filter(|p| *p != index_path)
        .map(|p| {
            let f: PageFile =
                toml::from_str(&read(&p)).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            (p, f)
        })
        .collect();
    Inventory { index, files }
}

/// The pages of a revision: `docs/**/*.mdx` by page name (`basic/index.mdx` is `basic`).
fn spec_pages(spec: &Path, p: Protocol) -> BTreeSet<String> {
    fn walk(dir: &Path, root: &Path, out: &mut BTreeSet<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let path = e.path();
            if path.is_dir() {
                walk(&path, root, out);
            } else if path.extension().is_some_and(|x| x == "mdx") {
                let rel = path
                    .strip_prefix(root)
                    .expect("under docs/")
                    .with_extension("");
                let rel = rel.to_string_lossy().replace('\\', "/");
                let name = rel.strip_suffix("/index").unwrap_or(&rel).to_owned();
                out.insert(name);
            }
        }
    }
    let mut out = BTreeSet::new();
    let docs = spec.join(p.as_str()).join("docs");
    walk(&docs, &docs, &mut out);
    out
}

/// Counts of one inventoried page or section.
#[derive(Default)]
struct Counts {
    sentences: usize,
    mapped: usize,
    reasoned: usize,
}

/// The problems of one inventory file against its page, and its counts.
fn check_file(
    path: &Path,
    f: &PageFile,
    sentences: &[Sentence],
    other_sections: &BTreeSet<String>,
    reasons: &BTreeMap<String, String>,
    p: Protocol,
    wrong: &mut Vec<String>,
) -> Counts {
    let table = Engine::builtin().table();
    let name = path
        .strip_prefix(inventory_dir())
        .unwrap_or(path)
        .display()
        .to_string();
    let mine = sentences.iter().filter(|s| match &f.section {
        Some(sec) => s.headings.iter().any(|h| h == sec),
        None => !s.headings.iter().any(|h| other_sections.contains(h)),
    });
    let mut by_hash: BTreeMap<String, &str> = BTreeMap::new();
    let mut in_order = Vec::new();
    for s in mine {
        let h = sentence_hash(&s.text);
        if by_hash.insert(h.clone(), &s.text).is_none() {
            in_order.push(h);
        }
    }
    let mut seen = BTreeSet::new();
    let mut counts = Counts {
        sentences: by_hash.len(),
        ..Counts::default()
    };
    for e in &f.sentence {
        let at = format!(
            "spec-inventory/{name}: entry \"{}\" ({})",
            e.excerpt, e.hash
        );
        if !seen.insert(e.hash.clone()) {
            wrong.push(format!("{at}: a second entry for one sentence"));
            continue;
        }
        match by_hash.get(&e.hash) {
            None => wrong.push(format!(
                "{at}: matches no keyword sentence of the page (the page changed: map the new sentence and remove this entry)"
            )),
            Some(text) if !text.contains(e.excerpt.as_str()) => wrong.push(format!(
                "{at}: the excerpt is not in its sentence \"{text}\""
            )),
            Some(_) => {}
        }
        for r in &e.rules {
            if table.rule(r).is_none() {
                wrong.push(format!("{at}: no rule `{r}` in the table"));
            } else if table.active_rule(p, r).is_none() {
                wrong.push(format!("{at}: rule `{r}` does not apply to {p}"));
            }
        }
        match e.reason.as_deref().map(str::trim) {
            Some(r) if !r.contains(' ') && !reasons.contains_key(r) => wrong.push(format!(
                "{at}: reason `{r}` is not in pages.toml's [reasons] (a free-text reason has several words)"
            )),
            Some("") | None if e.rules.is_empty() => {
                wrong.push(format!("{at}: neither rules nor a reason"));
            }
            _ => {}
        }
        if !e.rules.is_empty() {
            counts.mapped += 1;
        } else {
            counts.reasoned += 1;
        }
    }
    let missing: Vec<String> = in_order
        .iter()
        .filter(|h| !seen.contains(*h))
        .map(|h| {
            let text = by_hash[h];
            format!(
                "[[sentence]]\nhash = \"{h}\"\nexcerpt = {:?}\n# {text}\nrules = []\nreason = \"\"\n",
                excerpt(text)
            )
        })
        .collect();
    if !missing.is_empty() {
        wrong.push(format!(
            "spec-inventory/{name}: {} keyword sentence(s) of {p} {} without an entry; add, each with rules or a reason:\n\n{}",
            missing.len(),
            f.page,
            missing.join("\n")
        ));
    }
    counts
}

#[test]
fn every_keyword_sentence_in_scope_is_mapped_or_reasoned() {
    let Some(spec) = dir(Reference::Spec) else {
        return;
    };
    let inv = load_inventory();
    let mut wrong = Vec::new();
    // Who claims each page or section: an inventory file or an index entry.
    let mut claims: BTreeMap<(String, String, Option<String>), String> = BTreeMap::new();
    let mut claim = |key: (String, String, Option<String>), by: String, wrong: &mut Vec<String>| {
        if let Some(first) = claims.insert(key.clone(), by.clone()) {
            wrong.push(format!(
                "{} {}{}: claimed by both {first} and {by}",
                key.0,
                key.1,
                key.2
                    .as_deref()
                    .map(|s| format!("#{s}"))
                    .unwrap_or_default()
            ));
        }
    };
    for l in &inv.index.page {
        if l.reason.trim().is_empty() {
            wrong.push(format!(
                "pages.toml: {} {} is listed without a reason",
                l.revision, l.page
            ));
        }
        let key = (l.revision.clone(), l.page.clone(), l.section.clone());
        claim(key, format!("pages.toml ({:?})", l.scope), &mut wrong);
    }
    for (path, f) in &inv.files {
        let key = (f.revision.clone(), f.page.clone(), f.section.clone());
        claim(key, path.display().to_string(), &mut wrong);
    }
    // Every page of every revision is claimed, and every claim names a page.
    let revisions: BTreeMap<String, Protocol> = Protocol::all()
        .map(|p| (p.as_str().to_owned(), p))
        .collect();
    for (rev, &p) in &revisions {
        for page in spec_pages(&spec, p) {
            if !claims.keys().any(|(r, pg, _)| r == rev && *pg == page) {
                wrong.push(format!(
                    "{rev} {page}: neither inventoried (spec-inventory/{rev}/{page}.toml) nor listed in spec-inventory/pages.toml"
                ));
            }
        }
    }
    for (rev, page, _) in claims.keys() {
        match revisions.get(rev) {
            None => wrong.push(format!("{rev} {page}: no such revision")),
            Some(&p) if page_file(&spec, p, page).is_none() => {
                wrong.push(format!("{rev} {page}: no such page in the specification"));
            }
            Some(_) => {}
        }
    }
    let mut rows = Vec::new();
    for (path, f) in &inv.files {
        let Some(&p) = revisions.get(&f.revision) else {
            continue;
        };
        let Some(file) = page_file(&spec, p, &f.page) else {
            continue;
        };
        let raw = std::fs::read_to_string(&file).unwrap_or_default();
        let sentences = keyword_sentences(&raw, f.page == "schema");
        let other_sections: BTreeSet<String> = claims
            .keys()
            .filter(|(r, pg, s)| *r == f.revision && *pg == f.page && *s != f.section)
            .filter_map(|(_, _, s)| s.clone())
            .collect();
        if let Some(sec) = &f.section
            && !sentences.iter().any(|s| s.headings.contains(sec))
        {
            wrong.push(format!(
                "{}: no keyword sentence under a heading `#{sec}` of {} {}",
                path.display(),
                f.revision,
                f.page
            ));
        }
        let c = check_file(
            path,
            f,
            &sentences,
            &other_sections,
            &inv.index.reasons,
            p,
            &mut wrong,
        );
        let page = match &f.section {
            Some(s) => format!("{}#{s}", f.page),
            None => f.page.clone(),
        };
        rows.push((f.revision.clone(), page, c));
    }
    eprintln!("| revision | page | sentences | mapped | reasoned |\n|---|---|---:|---:|---:|");
    for (rev, page, c) in &rows {
        eprintln!(
            "| {rev} | {page} | {} | {} | {} |",
            c.sentences, c.mapped, c.reasoned
        );
    }
    // Every page in scope is inventoried: a page left pending is a sentence unaccounted for.
    for l in inv.index.page.iter().filter(|l| l.scope == Scope::Pending) {
        wrong.push(format!(
            "pages.toml: {} {}{} is still pending: inventory it (spec-inventory/{}/{}.toml)",
            l.revision,
            l.page,
            l.section
                .as_deref()
                .map(|s| format!("#{s}"))
                .unwrap_or_default(),
            l.revision,
            l.page
        ));
    }
    assert!(
        wrong.is_empty(),
        "{} problem(s) with the spec inventory:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn sentences_are_read_as_a_reader_would() {
    let page = "---\ntitle: T\n---\n\n<Note>\n\nA note. Servers **MUST**\nanswer.\n\n</Note>\n\n\
                ## Sending `Messages`\n\n1. The client **MUST** use POST, e.g. `POST /mcp`. It\n   \
                **MAY** retry.\n   - Nested item **SHOULD** count.\n\n```json\n{\"MUST\": 1}\n```\n\n\
                | Who | What |\n| --- | --- |\n| Server | MUST NOT answer |\n\n\
                [ref]: https://example.com MUST\n\n### Deeper\n\nMUSTARD is no keyword. OPTIONAL is.\n";
    let got = keyword_sentences(page, false);
    let texts: Vec<&str> = got.iter().map(|s| s.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            "Servers MUST answer.",
            "The client MUST use POST, e.g. POST /mcp.",
            "It MAY retry.",
            "Nested item SHOULD count.",
            "Server | MUST NOT answer",
            "OPTIONAL is."
        ]
    );
    assert!(got[0].headings.is_empty());
    assert_eq!(got[5].headings, ["sending-messages", "deeper"]);
    let ts = "/**\n * A result. Servers MUST include {@link Foo | this}.\n *\n * @example\n * ```json\n * {\"a\": \"MUST\"}\n * ```\n */\nexport interface Foo {}\n/** One line MAY be. */";
    let got: Vec<String> = keyword_sentences(ts, true)
        .into_iter()
        .map(|s| s.text)
        .collect();
    assert_eq!(got, ["Servers MUST include this.", "One line MAY be."]);
    assert_eq!(
        split_sentences("See v1.2 here. Done! Next? no split"),
        ["See v1.2 here.", "Done!", "Next? no split"]
    );
    assert_eq!(
        excerpt("one two three four five six seven MUST NOT a b c d e f g"),
        "three four five six seven MUST NOT a b c d e f"
    );
    assert_eq!(excerpt("Clients SHOULD:"), "Clients SHOULD:");
    assert_eq!(excerpt("a\u{2014}MUST b"), "a\u{2014}MUST b");
    assert_eq!(sentence_hash("a"), "af63dc4c8601ec8c");
}
