// Test cases are generated from the fixture files at compile time (rstest `#[files]`), so a
// change under tests/fixtures must rebuild the test binaries. The rule table is embedded from
// every `rules/**/*.toml`, listed here so that a new rule file needs no code change. The user
// guide's pages (README.md and docs/*.md) are listed the same way, so that their Rust blocks run
// as doc tests and a new page joins them without a code change.
use std::path::{Path, PathBuf};

fn toml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            toml_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "toml") {
            out.push(p);
        }
    }
}

fn main() {
    println!("cargo::rerun-if-changed=tests/fixtures");
    println!("cargo::rerun-if-changed=rules");
    println!("cargo::rerun-if-changed=build.rs");
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets it"));
    let rules = root.join("rules");
    let mut files = Vec::new();
    toml_files(&rules, &mut files);
    let mut rows: Vec<(String, PathBuf)> = files
        .into_iter()
        .map(|p| {
            let rel = p.strip_prefix(&rules).expect("under rules/");
            let rel = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy().into_owned())
                .collect::<Vec<_>>()
                .join("/");
            (rel, p)
        })
        .collect();
    rows.sort();
    let mut code = String::from("&[\n");
    for (rel, path) in rows {
        println!("cargo::rerun-if-changed={}", path.display());
        code.push_str(&format!(
            "    ({rel:?}, include_str!({:?})),\n",
            path.display().to_string()
        ));
    }
    code.push(']');
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets it"));
    std::fs::write(out_dir.join("rule_files.rs"), code).expect("OUT_DIR is writable");
    std::fs::write(out_dir.join("doc_pages.rs"), doc_pages(&root)).expect("OUT_DIR is writable");
}

/// One hidden item per guide page, documented by the page itself (compiled for doc tests only).
fn doc_pages(root: &Path) -> String {
    println!("cargo::rerun-if-changed=README.md");
    println!("cargo::rerun-if-changed=docs");
    let mut pages = vec![root.join("README.md")];
    if let Ok(entries) = std::fs::read_dir(root.join("docs")) {
        pages.extend(
            entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "md")),
        );
    }
    pages.retain(|p| p.is_file());
    pages.sort();
    let mut code = String::new();
    for (i, page) in pages.iter().enumerate() {
        code.push_str(&format!(
            "#[doc = include_str!({:?})]\npub struct Page{i};\n",
            page.display().to_string()
        ));
    }
    code
}
