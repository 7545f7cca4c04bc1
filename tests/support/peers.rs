//! The real MCP servers the interop tests run (`tests/peers`, installed by
//! `bash tests/peers/install.sh`), and whether they are there.

use std::path::PathBuf;
use std::process::Command;

/// `tests/peers`.
pub fn peers_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/peers")
}

/// Says why a peer cannot run: SKIP on stderr, or a failure when `MCP_VERDICT_REQUIRE_PEERS`
/// is set (as in CI). `fix` says how to install it.
fn missing(why: &str, fix: &str) -> bool {
    if std::env::var_os("MCP_VERDICT_REQUIRE_PEERS").is_some() {
        panic!("interop peer missing ({why}); run `{fix}` (MCP_VERDICT_REQUIRE_PEERS is set)");
    }
    // Written to the stderr handle directly, so that the test harness does not capture it:
    // a skip must be visible, not look like a pass.
    use std::io::Write as _;
    let _ = writeln!(
        std::io::stderr(),
        "SKIP: interop test not run: {why}; run `{fix}` to install it"
    );
    false
}

/// Whether the npm peer `package` is installed and node runs; otherwise SKIP (or fail when
/// `MCP_VERDICT_REQUIRE_PEERS` is set).
pub fn peer_available(package: &str) -> bool {
    let installed = peers_dir()
        .join("node_modules")
        .join(package)
        .join("package.json")
        .is_file();
    let node = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if installed && node {
        return true;
    }
    let why = if node {
        format!("{package} is not installed in tests/peers/node_modules")
    } else {
        "node is not on PATH".to_string()
    };
    missing(&why, "bash tests/peers/install.sh")
}

/// The Python with the pinned `mcp` package (the clients' environment, installed by
/// `bash tests/clients/install.sh`), when it is there; otherwise SKIP (or fail when
/// `MCP_VERDICT_REQUIRE_PEERS` is set).
pub fn python_mcp() -> Option<PathBuf> {
    let python = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/clients/.venv/bin/python");
    let ok = Command::new(&python)
        .args(["-c", "import mcp.server.mcpserver"])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        return Some(python);
    }
    missing(
        "tests/clients/.venv has no Python with the mcp package",
        "bash tests/clients/install.sh",
    );
    None
}
