//! The shipped fixture corpus.

use std::path::{Path, PathBuf};

/// Every exchange file under `tests/fixtures/` (`*.json`, recursively), sorted.
pub fn fixture_files() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    mcp_verdict::run::check::collect_files(&[dir]).unwrap()
}
