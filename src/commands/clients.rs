//! `mcp-verdict clients`: the client matrix, run or re-rendered.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::clients::{self, Agreement, Cell, CellRun, Manifest};
use crate::judge::Engine;
use crate::outputs::clients as report;
use crate::serve::Transport;
use crate::vocab::{Protocol, exit};

/// Run real MCP clients (through small driver programs) against `serve`'s fault scenarios
/// under each revision they speak, and set what each client concluded beside the verdict on
/// what `serve` sent it: agrees, or differs (with the difference in one line and the rule).
#[derive(Debug, Clone, clap::Args)]
#[command(after_help = format!("{}\n{}", CLIENTS_HELP, super::exit_help(&[
    (exit::OK, "every cell ran (differences between clients and verdicts are data, not failures)"),
    (exit::FINDINGS, "a driver failed to conclude, or --max-seconds left cells unrun"),
    (exit::USAGE, "usage: bad arguments, an unknown scenario, client or revision"),
    (exit::INPUT, "the manifest or a --from file could not be read or is not valid"),
])))]
pub(crate) struct ClientsArgs {
    /// The driver manifest (TOML: [[driver]] name, command, revisions; see below).
    #[arg(long, value_name = "FILE", required_unless_present = "from")]
    pub drivers: Option<PathBuf>,

    /// Only this driver (repeatable; default: every driver in the manifest).
    #[arg(long = "client", value_name = "NAME")]
    pub clients: Vec<String>,

    /// Only this scenario, as `NAME[:PARAMS]` (repeatable; default: every scenario's example
    /// `serve --list` offers over the transport but lenient, and over HTTP
    /// http_status_sequence:200,503 and :200,200,503, and each fault of auth).
    #[arg(long = "scenario", value_name = "NAME[:PARAMS]")]
    pub scenarios: Vec<String>,

    /// Revision to run: 2025-11-25, 2026-07-28 or all (each driver runs the ones it speaks).
    #[arg(long, value_name = "REVISION", default_value = "all")]
    pub protocol: String,

    /// Transport the clients speak (repeatable; default http): over stdio each client is
    /// given `mcp-verdict serve --stdio --scenario ...` as its server command, and the
    /// default scenarios are those `serve --list` offers over stdio.
    #[arg(long = "transport", value_enum, value_name = "TRANSPORT")]
    pub transports: Vec<Transport>,

    /// The driver's own timeout in seconds (it reports a hang after it); the driver is killed
    /// 15 s later if it has not printed its line.
    #[arg(long, value_name = "SECONDS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=600))]
    pub timeout: u64,

    /// Cells run at once.
    #[arg(long, value_name = "N", default_value_t = 2, value_parser = clap::value_parser!(u64).range(1..=32))]
    pub jobs: u64,

    /// Bound on the whole run: cells that could not start in time are left out and counted.
    #[arg(long, value_name = "SECONDS", default_value_t = 3600)]
    pub max_seconds: u64,

    /// Render earlier runs (JSON Lines of cells, repeatable: runs with other client versions
    /// become columns of their own) instead of running.
    #[arg(long, value_name = "FILE", conflicts_with = "drivers")]
    pub from: Vec<PathBuf>,

    /// Write the cells as JSON Lines (one cell per line) to FILE.
    #[arg(long, value_name = "FILE")]
    pub jsonl: Option<PathBuf>,

    /// Write the matrix as Markdown to FILE (`-` for stdout).
    #[arg(long, value_name = "FILE")]
    pub markdown: Option<PathBuf>,

    /// Write the matrix as a self-contained HTML page to FILE.
    #[arg(long, value_name = "FILE")]
    pub html: Option<PathBuf>,

    /// No line per cell on stderr.
    #[arg(long)]
    pub quiet: bool,
}

const CLIENTS_HELP: &str = "A driver is run as `COMMAND... TARGET TOOL ARGS_JSON --protocol REVISION \
--timeout SECONDS` in the manifest's folder, TARGET being the server's URL or, with --transport \
stdio, the server command as a JSON array of strings, and prints one JSON line: {\"client\", \
\"version\", \"outcome\": \"returned\"|\"threw\"|\"hung\", \"result\": {\"isError\"...}, \"error\": \
{\"type\", \"code\", \"stage\", \"message\"}, \"elapsedMs\"}. Each cell starts serve with the \
scenario (on loopback; over stdio the client launches it), runs the driver calling the tool echo, \
and compares its line with the verdict serve reached on the tools/call answer it sent (outcome, \
deciding rule, retry advice), and each call the client sent again with the advice on the answer \
before it.

Examples:
  mcp-verdict clients --drivers tests/clients/drivers.toml --markdown - --jsonl matrix.jsonl
  mcp-verdict clients --drivers tests/clients/drivers.toml --client python-sdk --scenario sse_reset
  mcp-verdict clients --drivers tests/clients/drivers.toml --transport stdio --scenario stdio_banner
  mcp-verdict clients --from old.jsonl --from new.jsonl --html matrix.html
";

/// Runs `clients`.
pub(crate) fn run(args: ClientsArgs) -> ExitCode {
    let table = Engine::builtin().table();
    let (cells, unfinished) = if args.from.is_empty() {
        match run_matrix(&args) {
            Ok(r) => r,
            Err((code, msg)) => {
                eprintln!("mcp-verdict clients: {msg}");
                return ExitCode::from(code);
            }
        }
    } else {
        let mut cells = Vec::new();
        for path in &args.from {
            match read_cells(path) {
                Ok(mut c) => cells.append(&mut c),
                Err(msg) => {
                    eprintln!("mcp-verdict clients: {msg}");
                    return ExitCode::from(exit::INPUT);
                }
            }
        }
        (cells, 0)
    };
    if let Some(path) = &args.jsonl {
        let mut text = String::new();
        for c in &cells {
            text.push_str(&serde_json::to_string(c).expect("a cell serialises"));
            text.push('\n');
        }
        if let Err(e) = std::fs::write(path, text) {
            eprintln!("mcp-verdict clients: cannot write {}: {e}", path.display());
            return ExitCode::from(exit::INPUT);
        }
    }
    if let Some(path) = &args.markdown {
        let md = report::markdown(&cells, table);
        if path.as_os_str() == "-" {
            super::write_stdout(&md);
        } else if let Err(e) = std::fs::write(path, md) {
            eprintln!("mcp-verdict clients: cannot write {}: {e}", path.display());
            return ExitCode::from(exit::INPUT);
        }
    }
    if let Some(path) = &args.html
        && let Err(e) = std::fs::write(path, report::html(&cells, table))
    {
        eprintln!("mcp-verdict clients: cannot write {}: {e}", path.display());
        return ExitCode::from(exit::INPUT);
    }
    let count = |a| cells.iter().filter(|c| c.agreement == a).count();
    let failed = count(Agreement::Failed);
    eprintln!(
        "mcp-verdict clients: {} cells: {} agree, {} differ, {} skipped, {failed} failed{}",
        cells.len(),
        count(Agreement::Agrees),
        count(Agreement::Differs),
        count(Agreement::Skipped),
        if unfinished > 0 {
            format!(", {unfinished} not run within --max-seconds")
        } else {
            String::new()
        }
    );
    if failed > 0 || unfinished > 0 {
        ExitCode::from(exit::FINDINGS)
    } else {
        ExitCode::from(exit::OK)
    }
}

/// Reads a JSON Lines file of cells; the error names the file and line.
fn read_cells(path: &PathBuf) -> Result<Vec<Cell>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str::<Cell>(l).map_err(|e| {
                format!(
                    "{}:{}: not a client-matrix cell ({e}); give a file written by `clients --jsonl`",
                    path.display(),
                    i + 1
                )
            })
        })
        .collect()
}

/// One planned cell: scenario, transport, revision, driver index.
type Plan = (String, Transport, Protocol, usize);

/// Runs the matrix; returns the cells in plan order and how many were left unrun.
fn run_matrix(args: &ClientsArgs) -> Result<(Vec<Cell>, usize), (u8, String)> {
    let path = args.drivers.as_ref().expect("clap requires --drivers");
    let manifest = Manifest::load(path).map_err(|m| (exit::INPUT, m))?;
    for name in &args.clients {
        if !manifest.driver.iter().any(|d| &d.name == name) {
            return Err((
                exit::USAGE,
                format!(
                    "no driver named `{name}` in {} (it has {})",
                    path.display(),
                    manifest
                        .driver
                        .iter()
                        .map(|d| d.name.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
    }
    let revisions: Vec<Protocol> = if args.protocol == "all" {
        Protocol::all().collect()
    } else {
        match Protocol::parse(&args.protocol) {
            Some(p) => vec![p],
            None => {
                return Err((
                    exit::USAGE,
                    format!(
                        "--protocol `{}` is not one of {} or all",
                        args.protocol,
                        Protocol::names()
                    ),
                ));
            }
        }
    };
    let transports = if args.transports.is_empty() {
        vec![Transport::Http]
    } else {
        args.transports.clone()
    };
    let server_program = std::env::current_exe().map_err(|e| {
        (
            exit::FINDINGS,
            format!("cannot find the mcp-verdict program: {e}"),
        )
    })?;
    let mut plan: Vec<Plan> = Vec::new();
    for &t in &transports {
        let scenarios = if args.scenarios.is_empty() {
            clients::default_scenarios_over(t)
        } else {
            args.scenarios.clone()
        };
        for s in &scenarios {
            match s.parse::<crate::serve::Scenario>() {
                Err(e) => return Err((exit::USAGE, format!("--scenario `{s}`: {e}"))),
                Ok(sc) if !sc.offered_over(t) => {
                    return Err((
                        exit::USAGE,
                        format!(
                            "--scenario `{s}` is not offered over {t} (serve --list says which scenarios each transport offers)"
                        ),
                    ));
                }
                Ok(_) => {}
            }
            for &p in &revisions {
                for (i, d) in manifest.driver.iter().enumerate() {
                    if args.clients.is_empty() || args.clients.contains(&d.name) {
                        plan.push((s.clone(), t, p, i));
                    }
                }
            }
        }
    }
    let timeout = Duration::from_secs(args.timeout);
    let started = Instant::now();
    let limit = Duration::from_secs(args.max_seconds);
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<Cell>>> = Mutex::new(vec![None; plan.len()]);
    let error: Mutex<Option<String>> = Mutex::new(None);
    let total = plan.len();
    let done = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..args.jobs.min(plan.len().max(1) as u64) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::SeqCst);
                    let Some((scenario, transport, revision, d)) = plan.get(i) else {
                        break;
                    };
                    let driver = &manifest.driver[*d];
                    let cell = if !driver.revisions.iter().any(|r| r == revision.as_str()) {
                        Cell::skipped(scenario, *transport, *revision, driver)
                    } else if started.elapsed() + timeout + clients::GRACE > limit {
                        continue;
                    } else {
                        match clients::run_cell(&CellRun {
                            manifest: &manifest,
                            driver,
                            scenario,
                            revision: *revision,
                            transport: *transport,
                            server_program: &server_program,
                            timeout,
                        }) {
                            Ok(c) => c,
                            Err(e) => {
                                error.lock().expect("error lock").get_or_insert(e);
                                break;
                            }
                        }
                    };
                    let n = done.fetch_add(1, Ordering::SeqCst) + 1;
                    if !args.quiet && cell.agreement != Agreement::Skipped {
                        let _ = writeln!(
                            std::io::stderr().lock(),
                            "[{n}/{total}] {} {} {}: {} ({})",
                            cell.row_label(),
                            cell.revision,
                            cell.client,
                            cell.concluded
                                .as_ref()
                                .map(|c| c.summary.as_str())
                                .unwrap_or(""),
                            match &cell.difference {
                                Some(d) => format!("differs: {d}"),
                                None => format!("{:?}", cell.agreement).to_lowercase(),
                            }
                        );
                    }
                    results.lock().expect("results lock")[i] = Some(cell);
                }
            });
        }
    });
    if let Some(e) = error.into_inner().expect("error lock") {
        return Err((exit::FINDINGS, e));
    }
    let results = results.into_inner().expect("results lock");
    let unfinished = results.iter().filter(|c| c.is_none()).count();
    Ok((results.into_iter().flatten().collect(), unfinished))
}
