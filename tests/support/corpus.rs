//! The shipped fixture corpus.

use std::path::{Path, PathBuf};

/// Every exchange file under `tests/fixtures/` (`*.json`, recursively), sorted.
pub fn fixture_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    mcp_verdict::run::check::collect_files(&[dir]).unwrap()
}

/// The baseline the report tests run with: one listed failure (a missing `resultType` under
/// 2026-07-28) and one stale entry (an outcome that no longer occurs).
pub fn listed_and_stale_baseline() -> mcp_verdict::run::check::Baseline {
    mcp_verdict::run::check::Baseline::parse(
        r#"[{"file": "tests/data/check/corpus/conformance/missing-result-type.json", "protocol": "2026-07-28", "rule": "base.result-type.required"},
            {"file": "tests/data/check/corpus/ok/success-2025.json", "protocol": "2025-11-25", "outcome": "TOOL_ERROR"}]"#,
    )
    .unwrap()
}
