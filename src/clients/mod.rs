//! `clients`: what real MCP clients conclude under `serve`'s fault scenarios, set beside the
//! verdict on what `serve` sent them.
//!
//! A **driver** is a small program that makes one MCP client call one tool: it is run as
//! `COMMAND... TARGET TOOL ARGS_JSON --protocol REVISION --timeout SECONDS`, where TARGET is
//! the server's URL (Streamable HTTP) or, over stdio, the server command the client launches,
//! as a JSON array of strings. It prints one JSON line, `{"client", "version", "protocol",
//! "outcome": "returned" | "threw" | "hung", "result": {"isError", ...}, "error": {"type",
//! "code", "stage", "message"}, "elapsedMs"}`.
//! A manifest (TOML) names the drivers, their commands and the revisions each speaks:
//!
//! ```toml
//! [[driver]]
//! name = "ts-sdk-v2"
//! command = ["node", "ts-v2.mjs"]          # run in the manifest's folder
//! revisions = ["2025-11-25", "2026-07-28"]
//! ```
//!
//! For each scenario, transport, revision and driver, [`run_cell`] starts `serve` with the
//! scenario (on loopback; over stdio the driver is given `mcp-verdict serve --stdio` with the
//! scenario and a log file as its server command, and the client launches and ends it), runs
//! the driver with a bounded time, stops the server, and compares the driver's line with
//! `serve`'s records ([`compare`]): `serve` judges every `tools/call` answer it sends, so each
//! cell sets what the client concluded beside the outcome, deciding rule and retry advice for
//! the very bytes the client was sent.

pub mod compare;

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use compare::{Agreement, Compared, Conclusion, PostSeen, ServerVerdict};

use crate::serve::{self, SCENARIOS, Scenario, ServeConfig, Transport};
use crate::views::diag::DiagRecord;
use crate::vocab::Protocol;

/// The tool every cell calls, and its arguments: every scenario offers `echo`, and no
/// scenario's parameters name a tool.
pub const TOOL: &str = "echo";

/// The arguments of the call each driver makes.
pub fn tool_args() -> Value {
    serde_json::json!({"text": "hello from the client matrix"})
}

/// Variants run besides each scenario's default: a non-2xx on a later POST (the default
/// `503,200` hits the first POST, which is the handshake), and the protected server's faults.
pub const EXTRA_SCENARIOS: &[&str] = &[
    "http_status_sequence:200,503",
    "http_status_sequence:200,200,503",
    // The protected server and its other faults (the table's example is `auth:step-up`).
    "auth",
    "auth:no-challenge",
    "auth:no-resource-metadata",
    "auth:resource-mismatch",
    "auth:issuer-mismatch",
    "auth:no-s256",
    "auth:token-expiry",
    "auth:query-token",
];

/// The scenarios a full matrix runs over HTTP: every scenario's example `serve` offers over
/// HTTP (but `lenient`, which needs a file of its own), then [`EXTRA_SCENARIOS`].
pub fn default_scenarios() -> Vec<String> {
    default_scenarios_over(Transport::Http)
}

/// The scenarios a full matrix runs over `transport`: every example `serve` offers over it
/// (but `lenient`), and over HTTP [`EXTRA_SCENARIOS`].
pub fn default_scenarios_over(transport: Transport) -> Vec<String> {
    let extra: &[&str] = match transport {
        Transport::Http => EXTRA_SCENARIOS,
        Transport::Stdio => &[],
    };
    SCENARIOS
        .iter()
        .filter(|s| s.name != "lenient" && s.transports.contains(&transport))
        .map(|s| s.example.to_string())
        .chain(extra.iter().map(|s| s.to_string()))
        .collect()
}

/// One driver from the manifest.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Driver {
    /// The column name (`ts-sdk-v2`).
    pub name: String,
    /// The package the driver drives, for the report (`@modelcontextprotocol/client`).
    #[serde(default)]
    pub package: Option<String>,
    /// Program and arguments; the program is looked up on `PATH` unless it holds a `/`, in
    /// which case it is relative to the manifest's folder (where the driver also runs).
    pub command: Vec<String>,
    /// Revisions the driver speaks.
    pub revisions: Vec<String>,
}

/// A driver manifest.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// The drivers, in column order.
    pub driver: Vec<Driver>,
    /// The folder the manifest is in (set when loaded).
    #[serde(skip)]
    pub dir: PathBuf,
}

impl Manifest {
    /// Reads and checks a manifest; the error names the file, what is wrong and where.
    pub fn load(path: &Path) -> Result<Manifest, String> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        let mut m: Manifest =
            toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        for d in &m.driver {
            if d.command.is_empty() {
                return Err(format!(
                    "{}: driver `{}` has an empty command; give the program and its arguments, e.g. command = [\"node\", \"driver.mjs\"]",
                    path.display(),
                    d.name
                ));
            }
            for r in &d.revisions {
                if Protocol::parse(r).is_none() {
                    return Err(format!(
                        "{}: driver `{}` names revision `{r}`, which is not one of {}",
                        path.display(),
                        d.name,
                        Protocol::names()
                    ));
                }
            }
        }
        if let Some(dup) = m
            .driver
            .iter()
            .enumerate()
            .find(|(i, d)| m.driver[..*i].iter().any(|e| e.name == d.name))
        {
            return Err(format!(
                "{}: two drivers are named `{}`; each column needs its own name",
                path.display(),
                dup.1.name
            ));
        }
        let dir = path
            .parent()
            .map(Path::to_path_buf)
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or_else(|| PathBuf::from("."));
        // Absolute, so that a program path relative to it does not depend on the folder the
        // driver runs in.
        m.dir = dir.canonicalize().unwrap_or(dir);
        Ok(m)
    }
}

/// One cell of the matrix: a driver under one scenario and revision.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cell {
    /// The scenario as given to `serve` (`name[:params]`).
    pub scenario: String,
    /// The transport the client spoke (`http` when a file written before it had one says
    /// nothing).
    #[serde(default)]
    pub transport: Transport,
    /// The revision the driver was asked to speak.
    pub revision: String,
    /// The driver's name.
    pub client: String,
    /// The client's version as the driver reported it (`null` when skipped or unknown).
    pub version: Option<String>,
    /// Whether the client concluded what the verdict says.
    pub agreement: Agreement,
    /// What the client concluded (`null` when skipped).
    pub concluded: Option<Conclusion>,
    /// The verdict on what `serve` sent (`null` when skipped).
    pub verdict: Option<ServerVerdict>,
    /// The difference in one line.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difference: Option<String>,
    /// The rule a difference rests on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// The POSTs `serve` saw, in order.
    #[serde(default)]
    pub posts: Vec<PostSeen>,
    /// Why the cell was skipped or failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// The driver's line as it printed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub driver: Option<Value>,
    /// Wall time of the cell, in milliseconds.
    #[serde(default)]
    pub elapsed_ms: u64,
}

impl Cell {
    /// The row the cell belongs to: its scenario, and the transport unless it is HTTP.
    pub fn row_label(&self) -> String {
        match self.transport {
            Transport::Http => self.scenario.clone(),
            Transport::Stdio => format!("{} (stdio)", self.scenario),
        }
    }

    /// A cell for a revision the driver does not speak.
    pub fn skipped(
        scenario: &str,
        transport: Transport,
        revision: Protocol,
        driver: &Driver,
    ) -> Cell {
        Cell {
            scenario: scenario.to_string(),
            transport,
            revision: revision.to_string(),
            client: driver.name.clone(),
            version: None,
            agreement: Agreement::Skipped,
            concluded: None,
            verdict: None,
            difference: None,
            rule: None,
            posts: Vec::new(),
            note: Some(format!("{} does not speak {revision}", driver.name)),
            driver: None,
            elapsed_ms: 0,
        }
    }
}

/// How to run one cell.
#[derive(Clone, Debug)]
pub struct CellRun<'a> {
    /// The manifest the driver comes from.
    pub manifest: &'a Manifest,
    /// The driver.
    pub driver: &'a Driver,
    /// The scenario.
    pub scenario: &'a str,
    /// The revision.
    pub revision: Protocol,
    /// The transport.
    pub transport: Transport,
    /// The `mcp-verdict` program a stdio client launches as its server.
    pub server_program: &'a Path,
    /// The driver's own timeout; the driver is killed this plus [`GRACE`] after it starts.
    pub timeout: Duration,
}

/// How long past its own timeout a driver may take to print its line before it is killed.
pub const GRACE: Duration = Duration::from_secs(15);

/// Runs one cell: `serve` with the scenario on loopback, the driver against it, then the
/// comparison. An error is a scenario `serve` cannot run, or a server that cannot start.
pub fn run_cell(run: &CellRun<'_>) -> Result<Cell, String> {
    let scenario: Scenario = run
        .scenario
        .parse()
        .map_err(|e| format!("scenario `{}`: {e}", run.scenario))?;
    if !scenario.offered_over(run.transport) {
        return Err(format!(
            "scenario `{}` is not offered over {} (serve --list says which scenarios each transport offers)",
            run.scenario, run.transport
        ));
    }
    let started = Instant::now();
    // A stalled stream outlasts the driver's patience, so a hang is the client's.
    let stall_cap = run.timeout + GRACE;
    let (line, records) = match run.transport {
        Transport::Http => {
            let handle = serve::start(ServeConfig {
                scenario,
                stall_cap,
                ..ServeConfig::default()
            })
            .map_err(|e| format!("cannot start serve on loopback: {e}"))?;
            let line = run_driver(run, &handle.url());
            (line, handle.shutdown_with_records())
        }
        Transport::Stdio => stdio_cell(run, stall_cap)?,
    };
    let compared = compare::compare(&line, &records);
    let version = line
        .get("version")
        .and_then(Value::as_str)
        .map(str::to_string);
    Ok(Cell {
        scenario: run.scenario.to_string(),
        transport: run.transport,
        revision: run.revision.to_string(),
        client: run.driver.name.clone(),
        version,
        agreement: compared.agreement,
        concluded: Some(compared.concluded),
        verdict: Some(compared.verdict),
        difference: compared.difference,
        rule: compared.rule,
        posts: compare::posts(&records),
        note: None,
        driver: Some(line),
        elapsed_ms: started.elapsed().as_millis() as u64,
    })
}

/// How long, once the driver has ended, the records of a stdio server (which the client ends
/// by closing its stdin) may take to reach the log: past the server's own drain after stdin
/// ends.
const STDIO_SETTLE: Duration = Duration::from_secs(4);

/// Runs a stdio cell: the driver launches `mcp-verdict serve --stdio` with the scenario and a
/// log file; the records are read from the log once the driver has ended.
fn stdio_cell(run: &CellRun<'_>, stall_cap: Duration) -> Result<(Value, Vec<DiagRecord>), String> {
    static CELLS: AtomicU64 = AtomicU64::new(0);
    let log = std::env::temp_dir().join(format!(
        "mcp-verdict-clients-{}-{}.jsonl",
        std::process::id(),
        CELLS.fetch_add(1, Ordering::SeqCst)
    ));
    let _ = std::fs::remove_file(&log);
    let command = [
        run.server_program.display().to_string(),
        "serve".into(),
        "--stdio".into(),
        "--quiet".into(),
        "--scenario".into(),
        run.scenario.to_string(),
        "--stall-cap".into(),
        stall_cap.as_secs().to_string(),
        "--log".into(),
        log.display().to_string(),
    ];
    let target = serde_json::to_string(&command).expect("strings serialize");
    let line = run_driver(run, &target);
    let records = settled_log(&log);
    let _ = std::fs::remove_file(&log);
    Ok((line, records))
}

/// The records in a stdio server's log, once it holds a `tools/call` record or stops growing
/// (or [`STDIO_SETTLE`] passes).
fn settled_log(log: &Path) -> Vec<DiagRecord> {
    let until = Instant::now() + STDIO_SETTLE;
    let mut last_len = None;
    loop {
        let text = std::fs::read_to_string(log).unwrap_or_default();
        // In the order written, which is not the order the messages came in: the comparison
        // orders them by their count.
        let records: Vec<DiagRecord> = text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect();
        let called = records
            .iter()
            .any(|r| r.method.as_deref() == Some("tools/call"));
        let steady = last_len == Some(text.len()) && !text.is_empty();
        if called && steady || Instant::now() >= until {
            return records;
        }
        last_len = Some(text.len());
        std::thread::sleep(Duration::from_millis(150));
    }
}

/// The program to run: as given when it has no `/` (looked up on `PATH`), else relative to
/// the manifest's folder.
fn program(manifest: &Manifest, name: &str) -> PathBuf {
    let p = Path::new(name);
    if name.contains('/') && p.is_relative() {
        manifest.dir.join(p)
    } else {
        p.to_path_buf()
    }
}

fn failed(kind: &str, message: String) -> Value {
    serde_json::json!({"outcome": "driver-failed", "error": {"type": kind, "message": message}})
}

/// Runs the driver against `target`, an MCP endpoint's URL or a stdio server's command as a
/// JSON array, and returns its last stdout line as JSON (or a `driver-failed` line saying why
/// there is none). The driver runs in its own process group, which is killed when it overruns.
/// `run.scenario` is not read: whatever serves `target` decides.
pub fn run_driver(run: &CellRun<'_>, target: &str) -> Value {
    let d = run.driver;
    let mut cmd = Command::new(program(run.manifest, &d.command[0]));
    cmd.args(&d.command[1..])
        .arg(target)
        .arg(TOOL)
        .arg(tool_args().to_string())
        .arg("--protocol")
        .arg(run.revision.as_str())
        .arg("--timeout")
        .arg(run.timeout.as_secs_f64().to_string())
        .current_dir(&run.manifest.dir)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            return failed(
                "SpawnFailed",
                format!(
                    // The hint comes before the folder: a summary is cut to a line, and a
                    // deep folder must not push the fix out of it.
                    "cannot run `{}`: {e}; {} (run in {})",
                    d.command.join(" "),
                    install_hint(run),
                    run.manifest.dir.display()
                ),
            );
        }
    };
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let out = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stdout.read_to_end(&mut s);
        s
    });
    let err = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = stderr.read_to_end(&mut s);
        s
    });
    let deadline = Instant::now() + run.timeout + GRACE;
    let mut overran = false;
    loop {
        match child.try_wait() {
            Ok(Some(_)) => break,
            Ok(None) if Instant::now() >= deadline => {
                overran = true;
                kill_group(&mut child);
                break;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(_) => break,
        }
    }
    let _ = child.wait();
    let stdout = out.join().unwrap_or_default();
    let stderr = err.join().unwrap_or_default();
    if overran {
        return failed(
            "DriverOverran",
            format!(
                "the driver did not stop within its timeout + {} s",
                GRACE.as_secs()
            ),
        );
    }
    let text = String::from_utf8_lossy(&stdout);
    match text.lines().rev().find(|l| !l.trim().is_empty()) {
        Some(l) => match serde_json::from_str::<Value>(l) {
            Ok(v) if v.is_object() => v,
            _ => failed(
                "BadDriverLine",
                format!("the driver's last line is not a JSON object: {l}"),
            ),
        },
        None => {
            let e = String::from_utf8_lossy(&stderr);
            match missing_package(&e) {
                Some(what) => failed(
                    "NotInstalled",
                    format!("{what} is not installed; {}", install_hint(run)),
                ),
                None => failed(
                    "NoOutput",
                    format!("the driver printed nothing; it said: {}", headline(&e)),
                ),
            }
        }
    }
}

/// What to run to install the drivers: the `install.sh` beside the manifest, else the package.
fn install_hint(run: &CellRun<'_>) -> String {
    let script = run.manifest.dir.join("install.sh");
    if script.is_file() {
        return format!("install the drivers with `bash {}`", script.display());
    }
    match &run.driver.package {
        Some(p) => format!("install {p} where the manifest's command can find it"),
        None => "install the client the manifest's command runs".to_string(),
    }
}

/// The package a Node.js or Python driver could not import, from its stderr.
fn missing_package(stderr: &str) -> Option<String> {
    for line in stderr.lines() {
        for (marker, close) in [
            ("Cannot find package '", '\''),
            ("Cannot find module '", '\''),
            ("No module named '", '\''),
        ] {
            if let Some(at) = line.find(marker) {
                let rest = &line[at + marker.len()..];
                let name = &rest[..rest.find(close)?];
                return Some(format!("`{}`", crate::outputs::safe::text(name)));
            }
        }
    }
    None
}

/// The line of a driver's stderr that says what went wrong (the first naming an error, else
/// the last), without the stack trace, cut at a word.
fn headline(stderr: &str) -> String {
    let lines: Vec<&str> = stderr
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("at ") && !l.starts_with("File \""))
        .collect();
    let line = lines
        .iter()
        .find(|l| l.contains("Error") || l.contains("error:"))
        .or(lines.last())
        .copied()
        .unwrap_or("(nothing on stderr)");
    let line = crate::outputs::safe::text(line);
    if line.chars().count() <= 200 {
        return line.into_owned();
    }
    let mut cut: String = line.chars().take(200).collect();
    if let Some(space) = cut.rfind(' ') {
        cut.truncate(space);
    }
    cut.push('…');
    cut
}

fn kill_group(child: &mut std::process::Child) {
    #[cfg(unix)]
    {
        // The driver leads its own process group (see `run_driver`): end it with everything
        // it started (a client may spawn helpers).
        let _ = Command::new("kill")
            .arg("-KILL")
            .arg(format!("-{}", child.id()))
            .stderr(Stdio::null())
            .status();
    }
    let _ = child.kill();
}

#[cfg(test)]
mod driver_error_tests {
    use super::*;

    #[test]
    fn a_missing_package_is_named() {
        let node = "node:internal/modules/esm/resolve:873\n  throw new ERR_MODULE_NOT_FOUND(packageName, fileURLToPath(base), null);\n        ^\n\nError [ERR_MODULE_NOT_FOUND]: Cannot find package '@modelcontextprotocol/sdk' imported from /x/ts-v1.mjs\n    at packageResolve (node:internal/modules/esm/resolve:873:9)\n";
        assert_eq!(
            missing_package(node).as_deref(),
            Some("`@modelcontextprotocol/sdk`")
        );
        let py = "Traceback (most recent call last):\n  File \"x.py\", line 3, in <module>\n    import mcp\nModuleNotFoundError: No module named 'mcp'\n";
        assert_eq!(missing_package(py).as_deref(), Some("`mcp`"));
        assert_eq!(missing_package("TypeError: x is not a function"), None);
    }

    #[test]
    fn a_headline_is_the_error_line_cut_at_a_word() {
        let trace = "file:///x/a.mjs:3\nTypeError: x is not a function\n    at main (file:///x/a.mjs:3:1)\n";
        assert_eq!(headline(trace), "TypeError: x is not a function");
        let long = format!("Error: {}", "word ".repeat(100));
        let h = headline(&long);
        assert!(h.ends_with("word…"), "{h}");
        assert!(h.chars().count() <= 201);
        assert_eq!(headline(""), "(nothing on stderr)");
    }
}
