//! `mcp-verdict clients`: the driver manifest, the cells, the reports, and a run of two real
//! clients (the TypeScript SDK v2 client and the Python SDK) on a fixed subset of scenarios,
//! whose cells must be well-formed and the same as in `tests/clients/subset.expected`: the
//! clients' behaviour is data, pinned by the lock files, so a change in it is a change to
//! review, not a failure of this project.
//!
//! The real clients are installed by `bash tests/clients/install.sh`; without them the run
//! SKIPs (and says so), unless `MCP_VERDICT_REQUIRE_CLIENTS` is set, as in CI.

use std::path::{Path, PathBuf};

use mcp_verdict::clients::{Agreement, Cell, Manifest};
use serde_json::Value;

use crate::support::cli::{bin, run};
use crate::support::temp::temp_dir;

fn clients_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients")
}

#[test]
fn a_manifest_with_a_problem_is_refused_naming_the_file_and_the_fix() {
    let dir = temp_dir("clients-manifest");
    let cases = [
        (
            "[[driver]]\nname = \"a\"\ncommand = []\nrevisions = []\n",
            "empty command",
        ),
        (
            "[[driver]]\nname = \"a\"\ncommand = [\"x\"]\nrevisions = [\"2024-01-01\"]\n",
            "names revision `2024-01-01`",
        ),
        (
            "[[driver]]\nname = \"a\"\ncommand = [\"x\"]\nrevisions = []\n[[driver]]\nname = \"a\"\ncommand = [\"y\"]\nrevisions = []\n",
            "two drivers are named `a`",
        ),
        (
            "[[driver]]\nname = \"a\"\ncommand = [\"x\"]\nrevisions = []\nextra = 1\n",
            "unknown field",
        ),
    ];
    for (i, (text, want)) in cases.iter().enumerate() {
        let path = dir.join(format!("m{i}.toml"));
        std::fs::write(&path, text).unwrap();
        let err = Manifest::load(&path).unwrap_err();
        assert!(err.contains(&path.display().to_string()), "{err}");
        assert!(err.contains(want), "{err}");
        let out = run(bin().args(["clients", "--drivers"]).arg(&path), None);
        assert_eq!(
            out.status.code(),
            Some(3),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let shipped = Manifest::load(&clients_dir().join("drivers.toml")).unwrap();
    let names: Vec<&str> = shipped.driver.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(
        names,
        ["ts-sdk-v2", "ts-sdk-v1", "python-sdk", "inspector-cli"]
    );
}

/// Writes a driver script that prints `line` (or nothing) and a manifest naming it.
fn fake_driver(dir: &Path, name: &str, line: &str) -> PathBuf {
    let script = dir.join(format!("{name}.sh"));
    std::fs::write(&script, format!("#!/bin/sh\nprintf '%s\\n' '{line}'\n")).unwrap();
    let manifest = dir.join(format!("{name}.toml"));
    std::fs::write(
        &manifest,
        format!(
            "[[driver]]\nname = \"{name}\"\ncommand = [\"sh\", \"{name}.sh\"]\nrevisions = [\"2026-07-28\"]\n"
        ),
    )
    .unwrap();
    manifest
}

#[test]
fn a_driver_without_a_conclusion_fails_its_cell_and_the_run() {
    let dir = temp_dir("clients-fake");
    let silent = fake_driver(&dir, "silent", "");
    let jsonl = dir.join("cells.jsonl");
    let out = run(
        bin()
            .args([
                "clients",
                "--quiet",
                "--scenario",
                "tool_error",
                "--drivers",
            ])
            .arg(&silent)
            .arg("--jsonl")
            .arg(&jsonl),
        None,
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cells = read_cells(&jsonl);
    // 2025-11-25 is skipped (the driver does not speak it), 2026-07-28 failed.
    assert_eq!(cells.len(), 2);
    assert_eq!(cells[0].agreement, Agreement::Skipped);
    assert_eq!(cells[1].agreement, Agreement::Failed);
    let summary = &cells[1].concluded.as_ref().unwrap().summary;
    assert!(summary.starts_with("driver failed:"), "{summary}");
    // A driver that concludes without calling: the verdict says no call reached the server.
    let liar = fake_driver(
        &dir,
        "liar",
        r#"{"client":"liar","version":"9","outcome":"returned","result":{"isError":false}}"#,
    );
    let out = run(
        bin()
            .args([
                "clients",
                "--quiet",
                "--scenario",
                "tool_error",
                "--protocol",
                "2026-07-28",
                "--drivers",
            ])
            .arg(&liar)
            .arg("--jsonl")
            .arg(&jsonl)
            .args(["--markdown", "-"]),
        None,
    );
    assert_eq!(out.status.code(), Some(0));
    let cells = read_cells(&jsonl);
    assert_eq!(cells.len(), 1);
    assert_eq!(cells[0].agreement, Agreement::Differs);
    assert_eq!(
        cells[0].difference.as_deref(),
        Some("returned a result vs no tools/call reached the server")
    );
    let md = String::from_utf8(out.stdout).unwrap();
    assert!(
        md.contains("| scenario | revision | verdict on what serve sent | liar 9 |"),
        "{md}"
    );
    assert!(md.contains("**differs**: returned a result [^1]"), "{md}");
}

/// Runs the `tool_error` scenario under 2026-07-28 with `manifest`; the one cell's summary.
fn one_cell_summary(manifest: &Path) -> String {
    let jsonl = manifest.with_extension("jsonl");
    let out = run(
        bin()
            .args(["clients", "--quiet", "--scenario", "tool_error"])
            .args(["--protocol", "2026-07-28", "--drivers"])
            .arg(manifest)
            .arg("--jsonl")
            .arg(&jsonl),
        None,
    );
    assert_eq!(out.status.code(), Some(1));
    let cells = read_cells(&jsonl);
    assert_eq!(cells.len(), 1);
    assert_eq!(cells[0].agreement, Agreement::Failed);
    cells[0].concluded.as_ref().unwrap().summary.clone()
}

#[test]
fn a_driver_that_is_not_installed_says_what_to_install() {
    let dir = temp_dir("clients-missing");
    // A Python driver whose package is missing: its traceback is not shown, the package is.
    std::fs::write(
        dir.join("py.sh"),
        "#!/bin/sh\ncat >&2 <<'EOF'\nTraceback (most recent call last):\n  File \"d.py\", line 1, in <module>\n    import mcp\nModuleNotFoundError: No module named 'mcp'\nEOF\nexit 1\n",
    )
    .unwrap();
    let manifest = dir.join("py.toml");
    std::fs::write(
        &manifest,
        "[[driver]]\nname = \"py\"\npackage = \"mcp\"\ncommand = [\"sh\", \"py.sh\"]\nrevisions = [\"2026-07-28\"]\n",
    )
    .unwrap();
    assert_eq!(
        one_cell_summary(&manifest),
        "driver failed: `mcp` is not installed; install mcp where the manifest's command can find it"
    );
    // With an install script beside the manifest, the hint is to run it.
    std::fs::write(dir.join("install.sh"), "#!/bin/sh\n").unwrap();
    let summary = one_cell_summary(&manifest);
    assert!(
        summary
            .starts_with("driver failed: `mcp` is not installed; install the drivers with `bash ")
            && summary.ends_with("install.sh`"),
        "{summary}"
    );
    // A program that is not there.
    let absent = dir.join("absent.toml");
    std::fs::write(
        &absent,
        "[[driver]]\nname = \"absent\"\ncommand = [\"./no-such-driver\", \"x\"]\nrevisions = [\"2026-07-28\"]\n",
    )
    .unwrap();
    let summary = one_cell_summary(&absent);
    assert!(
        summary.starts_with("driver failed: cannot run `./no-such-driver x`: ")
            && summary.contains("install the drivers with `bash "),
        "{summary}"
    );
}

fn read_cells(path: &Path) -> Vec<Cell> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Whether the two clients are installed; otherwise SKIP (or fail when
/// `MCP_VERDICT_REQUIRE_CLIENTS` is set).
fn clients_installed() -> bool {
    let dir = clients_dir();
    let ts = dir
        .join("node_modules/@modelcontextprotocol/client/package.json")
        .is_file();
    let py = dir.join(".venv/bin/python").is_file();
    let node = std::process::Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if ts && py && node {
        return true;
    }
    let why =
        format!("TypeScript client installed: {ts}, Python SDK venv: {py}, node on PATH: {node}");
    if std::env::var_os("MCP_VERDICT_REQUIRE_CLIENTS").is_some() {
        panic!(
            "client drivers missing ({why}); run `bash tests/clients/install.sh` (MCP_VERDICT_REQUIRE_CLIENTS is set)"
        );
    }
    use std::io::Write;
    let _ = writeln!(
        std::io::stderr(),
        "SKIP: client matrix test not run: {why}; run `bash tests/clients/install.sh` to install the clients"
    );
    false
}

/// The fixed subset: a JSON-RPC error, a tool error, a result without resultType, a body that
/// is not JSON, a confirmation, a 503 on the third POST, a stream closed early, a 429.
const SUBSET: &[&str] = &[
    "jsonrpc_error",
    "tool_error",
    "legacy_result",
    "malformed_json",
    "input_required",
    "http_status_sequence:200,200,503",
    "sse_close_early",
    "rate_limited",
];

/// What must stay the same from run to run: who, where, and what each side concluded.
fn stable_line(c: &Cell) -> String {
    format!(
        "{} {} {} {:?} {} {}",
        c.scenario,
        c.revision,
        c.client,
        c.agreement,
        c.concluded.as_ref().map(|k| k.kind.as_str()).unwrap_or("-"),
        c.verdict
            .as_ref()
            .and_then(|v| v.outcome.as_deref())
            .unwrap_or("-"),
    )
}

#[test]
fn two_real_clients_on_a_fixed_subset_give_well_formed_stable_cells() {
    if !clients_installed() {
        return;
    }
    let dir = temp_dir("clients-subset");
    let (jsonl, md, html) = (
        dir.join("cells.jsonl"),
        dir.join("m.md"),
        dir.join("m.html"),
    );
    let mut cmd = bin();
    cmd.args([
        "clients",
        "--quiet",
        // Generous, and one cell at a time, for a loaded machine (the test runs beside the
        // others): a client slower than this to conclude would show as a hang, and the cells
        // would differ from the expected ones.
        "--timeout",
        "20",
        "--jobs",
        "1",
        "--client",
        "ts-sdk-v2",
        "--client",
        "python-sdk",
    ])
    .arg("--drivers")
    .arg(clients_dir().join("drivers.toml"))
    .arg("--jsonl")
    .arg(&jsonl)
    .arg("--markdown")
    .arg(&md)
    .arg("--html")
    .arg(&html);
    for s in SUBSET {
        cmd.args(["--scenario", s]);
    }
    let out = run(&mut cmd, None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let cells = read_cells(&jsonl);
    assert_eq!(cells.len(), SUBSET.len() * 2 * 2, "{stderr}");
    let lock: Value = serde_json::from_str(
        &std::fs::read_to_string(clients_dir().join("package-lock.json")).unwrap(),
    )
    .unwrap();
    let ts_version = lock["packages"]["node_modules/@modelcontextprotocol/client"]["version"]
        .as_str()
        .unwrap()
        .to_string();
    let reqs = std::fs::read_to_string(clients_dir().join("requirements.txt")).unwrap();
    let py_version = reqs
        .lines()
        .find_map(|l| l.strip_prefix("mcp=="))
        .map(|v| v.split_whitespace().next().unwrap().to_string())
        .unwrap();
    for c in &cells {
        let want = if c.client == "ts-sdk-v2" {
            &ts_version
        } else {
            &py_version
        };
        assert_eq!(c.version.as_ref(), Some(want), "{c:?}");
        assert!(
            matches!(c.agreement, Agreement::Agrees | Agreement::Differs),
            "every cell concludes: {c:?}"
        );
        let concluded = c.concluded.as_ref().unwrap();
        assert!(
            ["returned", "threw", "hung"].contains(&concluded.kind.as_str()),
            "{c:?}"
        );
        assert!(!c.verdict.as_ref().unwrap().summary.is_empty());
        assert!(!c.posts.is_empty(), "serve saw the client: {c:?}");
        assert_eq!(
            c.agreement == Agreement::Differs,
            c.difference.is_some(),
            "{c:?}"
        );
    }
    let got: Vec<String> = cells.iter().map(stable_line).collect();
    let expected_path = clients_dir().join("subset.expected");
    let expected: Vec<String> = std::fs::read_to_string(&expected_path)
        .unwrap()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    assert_eq!(
        got,
        expected,
        "the cells differ from {}; if a client changed, review and replace it with:\n{}",
        expected_path.display(),
        got.join("\n")
    );
    // The Markdown has a row per scenario and revision, a column per client and version,
    // and one footnote per distinct difference, each referenced.
    let md = std::fs::read_to_string(&md).unwrap();
    assert!(
        md.contains(&format!(
            "| ts-sdk-v2 {ts_version} | python-sdk {py_version} |"
        )),
        "{md}"
    );
    for s in SUBSET {
        for rev in ["2025-11-25", "2026-07-28"] {
            assert!(
                md.contains(&format!("| `{s}` | {rev} |")),
                "row {s} {rev}: {md}"
            );
        }
    }
    let notes = md.lines().filter(|l| l.starts_with("[^")).count();
    for n in 1..=notes {
        assert!(
            md.contains(&format!(" [^{n}] |")),
            "footnote {n} is referenced"
        );
    }
    // The HTML links each difference to its note.
    let html = std::fs::read_to_string(&html).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && html.trim_end().ends_with("</html>"));
    for n in 1..=notes {
        assert!(html.contains(&format!("href=\"#note-{n}\"")));
        assert!(html.contains(&format!("<li id=\"note-{n}\">")));
    }
    // An earlier run renders the same from its cells.
    let again = run(
        bin()
            .arg("clients")
            .arg("--from")
            .arg(&jsonl)
            .args(["--markdown", "-"]),
        None,
    );
    assert_eq!(String::from_utf8(again.stdout).unwrap(), md);
}

/// The stdio subset: a log line on stdout, a banner, stderr chatter (a control), a crash, a
/// partial line then exit, a response with the wrong id.
const STDIO_SUBSET: &[&str] = &[
    "stdio_log_line",
    "stdio_banner",
    "stdio_stderr_chatter",
    "stdio_crash",
    "stdio_partial_exit",
    "wrong_id",
];

#[test]
fn two_real_clients_over_stdio_give_well_formed_stable_cells() {
    if !clients_installed() {
        return;
    }
    let dir = temp_dir("clients-stdio-subset");
    let (jsonl, md) = (dir.join("cells.jsonl"), dir.join("m.md"));
    let mut cmd = bin();
    cmd.args([
        "clients",
        "--quiet",
        "--transport",
        "stdio",
        // A client that waits for a response that never comes hangs this long.
        "--timeout",
        "6",
        "--jobs",
        "1",
        "--client",
        "ts-sdk-v2",
        "--client",
        "python-sdk",
    ])
    .arg("--drivers")
    .arg(clients_dir().join("drivers.toml"))
    .arg("--jsonl")
    .arg(&jsonl)
    .arg("--markdown")
    .arg(&md);
    for s in STDIO_SUBSET {
        cmd.args(["--scenario", s]);
    }
    let out = run(&mut cmd, None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let cells = read_cells(&jsonl);
    assert_eq!(cells.len(), STDIO_SUBSET.len() * 2 * 2, "{stderr}");
    for c in &cells {
        assert_eq!(c.transport, mcp_verdict::serve::Transport::Stdio);
        assert!(
            matches!(c.agreement, Agreement::Agrees | Agreement::Differs),
            "every cell concludes: {c:?}"
        );
        assert!(!c.posts.is_empty(), "serve saw the client: {c:?}");
    }
    let got: Vec<String> = cells.iter().map(stable_line).collect();
    let expected_path = clients_dir().join("subset-stdio.expected");
    let expected: Vec<String> = std::fs::read_to_string(&expected_path)
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(str::to_string)
        .collect();
    assert_eq!(
        got,
        expected,
        "the cells differ from {}; if a client changed, review and replace it with:\n{}",
        expected_path.display(),
        got.join("\n")
    );
    let md = std::fs::read_to_string(&md).unwrap();
    for s in STDIO_SUBSET {
        assert!(
            md.contains(&format!("| `{s} (stdio)` | 2025-11-25 |")),
            "{md}"
        );
    }
}
