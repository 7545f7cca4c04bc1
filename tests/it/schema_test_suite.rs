//! The output-schema validation (`schema::output::compile`, the same compilation that judges a
//! tool's `outputSchema` and the schemas a `tools/list` result lists) held to the official
//! JSON-Schema-Test-Suite: every required test (the suite's `optional/` folders aside) of
//! draft-04, draft-06, draft-07, 2019-09 and 2020-12, read from `MCP_REFERENCE_DIR`.
//!
//! A schema without `$schema` is given its draft's, as the suite means it. A group whose schema
//! needs a document from outside (a remote `$ref`, or a meta-schema of the suite's own served
//! from its `remotes/` at `http://localhost:1234/`) counts as refused: nothing is fetched, and
//! the schema is reported as unresolvable or of an unsupported dialect, as the README promises. Every other test must give the suite's answer, except those listed in
//! [`KNOWN`] with the reason; a listed test that passes fails the run, so the list stays true.
//! The counts per dialect are printed.

use std::collections::BTreeMap;
use std::path::Path;

use mcp_verdict::schema::output::{OutputSchemaProblem, compile};
use serde_json::Value;

use crate::support::reference::{Reference, dir};

/// The dialects, by the suite's folder, with the `$schema` a schema without one is given.
const DRAFTS: [(&str, &str); 5] = [
    ("draft4", "http://json-schema.org/draft-04/schema#"),
    ("draft6", "http://json-schema.org/draft-06/schema#"),
    ("draft7", "http://json-schema.org/draft-07/schema#"),
    (
        "draft2019-09",
        "https://json-schema.org/draft/2019-09/schema",
    ),
    (
        "draft2020-12",
        "https://json-schema.org/draft/2020-12/schema",
    ),
];

/// Where the suite serves its `remotes/` documents.
const REMOTES: &str = "http://localhost:1234/";

/// Required tests this validation does not pass, each `(draft, file, group, test)` with why.
const KNOWN: &[(&str, &str, &str, &str, &str)] = &[];

#[derive(Default)]
struct Counts {
    passed: usize,
    refused: usize,
    failed: usize,
    known: usize,
}

#[test]
fn output_schemas_are_validated_as_the_official_test_suite_says() {
    let Some(suite) = dir(Reference::SchemaSuite) else {
        return;
    };
    let mut counts: BTreeMap<&str, Counts> = BTreeMap::new();
    let mut wrong = Vec::new();
    let mut known_seen = Vec::new();
    for (draft, uri) in DRAFTS {
        let c = counts.entry(draft).or_default();
        let folder = suite.join("tests").join(draft);
        let mut files: Vec<_> = std::fs::read_dir(&folder)
            .unwrap_or_else(|e| panic!("{}: {e}", folder.display()))
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        assert!(!files.is_empty(), "{}: no test files", folder.display());
        for path in files {
            run_file(draft, uri, &path, c, &mut wrong, &mut known_seen);
        }
    }
    for (draft, c) in &counts {
        eprintln!(
            "JSON-Schema-Test-Suite {draft}: {} passed, {} refused (remote $ref or meta-schema, nothing fetched), {} known failures, {} failed",
            c.passed, c.refused, c.known, c.failed
        );
    }
    for k in KNOWN {
        if !known_seen.contains(&(k.0, k.1, k.2, k.3)) {
            wrong.push(format!(
                "{} {} \"{}\" / \"{}\": listed as failing ({}) but it passes or no longer exists; remove it from KNOWN",
                k.0, k.1, k.2, k.3, k.4
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} test(s) of the suite not as it says:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

fn run_file(
    draft: &'static str,
    uri: &str,
    path: &Path,
    c: &mut Counts,
    wrong: &mut Vec<String>,
    known_seen: &mut Vec<(&'static str, &'static str, &'static str, &'static str)>,
) {
    let file = path.file_name().unwrap().to_string_lossy().into_owned();
    let text = std::fs::read_to_string(path).unwrap();
    let groups: Vec<Value> =
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    for g in groups {
        let group = g["description"].as_str().unwrap_or_default().to_owned();
        let mut schema = g["schema"].clone();
        if let Some(o) = schema.as_object_mut() {
            o.entry("$schema").or_insert_with(|| Value::from(uri));
        }
        let tests = g["tests"].as_array().cloned().unwrap_or_default();
        let compiled = compile(&schema);
        let refused = match &compiled {
            Err(OutputSchemaProblem::UnresolvedRef { external, .. }) => *external,
            // A meta-schema of the suite's own (its custom vocabularies), served from remotes/.
            Err(OutputSchemaProblem::UnknownDialect(uri)) => uri.starts_with(REMOTES),
            _ => false,
        };
        if refused {
            c.refused += tests.len();
            continue;
        }
        for t in tests {
            let test = t["description"].as_str().unwrap_or_default();
            let expected = t["valid"]
                .as_bool()
                .expect("a test says whether it is valid");
            let got = match &compiled {
                Ok(v) => Ok(v.validator.is_valid(&t["data"])),
                Err(e) => Err(format!("{e:?}")),
            };
            if got == Ok(expected) {
                c.passed += 1;
                continue;
            }
            let known = KNOWN
                .iter()
                .find(|k| k.0 == draft && k.1 == file && k.2 == group && k.3 == test);
            match known {
                Some(k) => {
                    c.known += 1;
                    known_seen.push((k.0, k.1, k.2, k.3));
                }
                None => {
                    c.failed += 1;
                    wrong.push(format!(
                        "{draft} {file} \"{group}\" / \"{test}\": expected valid={expected}, got {got:?}"
                    ));
                }
            }
        }
    }
}
