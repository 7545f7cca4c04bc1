//! External programs some tests run (xmllint, the SARIF Multitool, Chromium and chromedriver),
//! found on the machine or where the project's install scripts put them.
//!
//! A test that needs one is skipped, with one line saying so, when it is missing; with its
//! requirement variable set (`MCP_VERDICT_REQUIRE_TOOLS=1` for the report validators,
//! `MCP_VERDICT_REQUIRE_BROWSER=1` for the browser, as `.ci/run` sets them) it fails instead.

use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The variable that makes a missing report validator a failure.
pub const REQUIRE_TOOLS: &str = "MCP_VERDICT_REQUIRE_TOOLS";
/// The variable that makes a missing browser a failure.
pub const REQUIRE_BROWSER: &str = "MCP_VERDICT_REQUIRE_BROWSER";

/// A program on `PATH`.
pub fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// The first of `candidates` that exists, else `None` after a skip line (or a panic when
/// `require` is set). `what` says what the test needs and `how` how to get it.
pub fn find(candidates: &[PathBuf], require: &str, what: &str, how: &str) -> Option<PathBuf> {
    if let Some(p) = candidates.iter().find(|p| p.is_file()) {
        return Some(p.clone());
    }
    let test = std::thread::current()
        .name()
        .filter(|n| *n != "main")
        .unwrap_or("a test")
        .to_owned();
    if std::env::var_os(require).is_some_and(|v| !v.is_empty() && v != "0") {
        panic!("{test}: {what} is not installed ({require} is set): {how}");
    }
    // Written to the stderr handle directly, so that the harness does not capture it.
    let _ = writeln!(
        std::io::stderr(),
        "SKIP: {test}: {what} is not installed: {how}"
    );
    None
}

/// Where `tests/reporters/install.sh` puts the SARIF Multitool.
pub fn sarif_multitool() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    find(
        &[root
            .join("tests/reporters/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool")],
        REQUIRE_TOOLS,
        "Microsoft's SARIF Multitool",
        "run `bash tests/reporters/install.sh` (npm)",
    )
}

/// `xmllint` (Debian's libxml2-utils).
pub fn xmllint() -> Option<PathBuf> {
    find(
        &on_path("xmllint").into_iter().collect::<Vec<_>>(),
        REQUIRE_TOOLS,
        "xmllint",
        "apt-get install libxml2-utils",
    )
}
