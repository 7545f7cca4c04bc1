//! Reference material the repository does not ship, found through environment variables:
//!
//! - `MCP_SPEC_DIR`: the official MCP specification, a directory holding `2025-11-25/` and
//!   `2026-07-28/`, each with the `schema/` (schema.json, examples) and `docs/` (the spec
//!   pages) of that revision, as in the official MCP specification repository.
//! - `MCP_RESEARCH_DIR`: the research notes (`spec-rules.md`, whose §5 table the edge-case
//!   vectors transcribe).
//! - `MCP_REFERENCE_DIR`: third-party schemas of the report formats (`sarif-schema-2.1.0.json`,
//!   the OASIS SARIF 2.1.0 schema; `jenkins-junit-10.xsd`, the Jenkins JUnit plugin's schema),
//!   and `json-schema-test-suite/`, the official JSON-Schema-Test-Suite.
//!
//! A test that needs one of them is skipped, with one line saying so, when its variable is not
//! set or names no readable directory; with `MCP_VERDICT_REQUIRE_SPEC=1` it fails instead.

use std::collections::BTreeSet;
use std::io::Write as _;
use std::path::PathBuf;
use std::sync::{Mutex, PoisonError};

/// The variable that turns a missing reference directory into a test failure.
const REQUIRE: &str = "MCP_VERDICT_REQUIRE_SPEC";

/// A kind of reference material.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reference {
    /// The official MCP specification (`MCP_SPEC_DIR`).
    Spec,
    /// The research notes (`MCP_RESEARCH_DIR`).
    Research,
    /// The report formats' schemas (`MCP_REFERENCE_DIR`).
    Reports,
    /// The official JSON-Schema-Test-Suite (`MCP_REFERENCE_DIR/json-schema-test-suite`).
    SchemaSuite,
}

impl Reference {
    fn var(self) -> &'static str {
        match self {
            Reference::Spec => "MCP_SPEC_DIR",
            Reference::Research => "MCP_RESEARCH_DIR",
            Reference::Reports | Reference::SchemaSuite => "MCP_REFERENCE_DIR",
        }
    }

    /// The directory under the variable's that holds the material, if not the variable's own.
    fn sub(self) -> Option<&'static str> {
        match self {
            Reference::SchemaSuite => Some("json-schema-test-suite"),
            _ => None,
        }
    }

    /// What the checks compare against, and what the variable must name.
    fn describe(self) -> (&'static str, &'static str) {
        match self {
            Reference::Spec => (
                "the official MCP specification",
                "a directory holding 2025-11-25/ and 2026-07-28/, each with the schema/ and docs/ of that revision from the official MCP specification repository",
            ),
            Reference::Research => (
                "the research notes",
                "the directory of the research notes (spec-rules.md)",
            ),
            Reference::Reports => (
                "the report formats' official schemas",
                "a directory holding sarif-schema-2.1.0.json (OASIS SARIF 2.1.0) and jenkins-junit-10.xsd (the Jenkins JUnit plugin's junit-10.xsd)",
            ),
            Reference::SchemaSuite => (
                "the official JSON-Schema-Test-Suite",
                "a directory holding json-schema-test-suite/ (json-schema-org's JSON-Schema-Test-Suite, with tests/draft4, draft6, draft7, draft2019-09 and draft2020-12)",
            ),
        }
    }
}

/// The directory of `r`, or `None` when the calling test is to be skipped: its variable is not
/// set or names no readable directory. A skip prints one line (once per test) naming the test,
/// the variable and where the material comes from; under `MCP_VERDICT_REQUIRE_SPEC=1` the test
/// fails instead.
pub fn dir(r: Reference) -> Option<PathBuf> {
    let var = r.var();
    let problem = match std::env::var_os(var) {
        None => format!("{var} is not set"),
        Some(v) if v.is_empty() => format!("{var} is empty"),
        Some(v) => {
            let mut path = PathBuf::from(v);
            if let Some(sub) = r.sub() {
                path.push(sub);
            }
            match std::fs::read_dir(&path) {
                Ok(_) => return Some(path),
                Err(e) => format!("{} (from {var}) cannot be read ({e})", path.display()),
            }
        }
    };
    // The test harness names each test's thread after the test.
    let test = std::thread::current()
        .name()
        .filter(|n| *n != "main")
        .unwrap_or("a test")
        .to_owned();
    let (material, source) = r.describe();
    if std::env::var_os(REQUIRE).is_some_and(|v| !v.is_empty() && v != "0") {
        panic!(
            "{test}: checks against {material} cannot run: {problem} ({REQUIRE} is set); set {var} to {source}"
        );
    }
    static SAID: Mutex<BTreeSet<(String, Reference)>> = Mutex::new(BTreeSet::new());
    let first = SAID
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .insert((test.clone(), r));
    if first {
        // Written to the stderr handle directly, so that the test harness does not capture it:
        // a skip must be visible, not look like a pass.
        let _ = writeln!(
            std::io::stderr(),
            "SKIP: {test}: checks against {material} not run: {problem}; set {var} to {source}"
        );
    }
    None
}
