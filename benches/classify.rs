//! Classify vs. parse, in one run. Every figure is read as a ratio to the floor of reading the
//! same bytes once: `serde_json::from_slice::<Value>` of the body (for an SSE stream: splitting it
//! into events and parsing each event's data). Run with
//! `cargo bench --bench classify`; `MCP_VERDICT_BENCH_GATE=1` makes the run fail when a gated
//! ratio is over its limit (see `TARGETS`, read from paired rounds: see `paired_ratio`).
//! `MCP_VERDICT_BENCH_ROUNDS` sets the number of rounds (101). CI runs it in quick mode without
//! that variable: wall-time ratios on a shared machine move from one process to the next, so
//! they are printed as information and the gate counts instructions instead
//! (`benches/instructions.rs`).

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{BenchmarkId, Criterion};
use mcp_verdict::outputs::compact::CompactLines;
use mcp_verdict::outputs::jsonl::JsonLines;
use mcp_verdict::run::stream::{self, JsonlOptions, LineFormat};
use mcp_verdict::{Engine, Exchange, ExchangeFile, Options, Outcome, Protocol, judge};
use serde_json::Value;

mod common;
use common::*;

/// (benchmark group, the project's target classify/parse ratio, the CI gate's limit).
///
/// Every run reports each target as met or missed; the gate fails the run above its limit, set
/// above what the path measures so that noise does not fail CI but losing the path does. The
/// 1 KB success's target is the validate-while-parsing issue's: judging costs no more than the
/// `Value` parse it replaced. Once a JSON body was read onto a tape and judged there, with no
/// `Value` built for a well-formed result, it measured 1.16x, 1.21x and 1.17x (three runs of
/// the CI command, against 1.47x to 1.57x before), so the limit, 1.9x while the body was parsed,
/// is 1.4x; after the smaller steps on the tape (integers, keys, content blocks read once) it
/// measured 1.00x, 0.96x and 0.95x, and after two more steps 0.97x and 1.10x in two runs of one
/// build (eight processes of this ratio alone: 0.98x to 1.07x, median 1.01x), so the target sits
/// within the scatter from one process to the next. The SSE limit was 2x; once accepted
/// notifications were checked on a tape and kept as digests with no `Value` built, the stream
/// measured 1.45x (three paired runs, against 1.73x to 1.75x before), so the limit was 1.65x.
/// The rules added since (stdio, authorization and its documents, custom parameter headers,
/// capabilities and tasks, `_meta` names wherever a `_meta` appears) cost judging more: the CI
/// command measured 1.49x for the 1 KB success and 1.96x for the stream in one run, so the
/// limits are 1.75x and 2.3x until that cost is won back (the performance issue's first item);
/// the targets stay where they were and read MISSED meanwhile. See benches/README.md.
const TARGETS: &[(&str, f64, f64)] = &[
    ("success_json_1kb", 1.0, 1.75),
    ("sse_progress_3", 2.0, 2.3),
];

/// The CI gate's limit on `classify --jsonl --compact`'s time per line over the full record's:
/// the compact record exists to be cheaper, so a compact run costing as much as a full one is a
/// regression.
const COMPACT_LIMIT: f64 = 0.9;

fn corpus() -> Vec<(Exchange, Vec<Protocol>)> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "json") {
                out.push(p);
            }
        }
    }
    let mut paths = Vec::new();
    walk(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures"),
        &mut paths,
    );
    paths.sort();
    paths
        .iter()
        .map(|p| {
            let f = ExchangeFile::from_slice(&std::fs::read(p).unwrap()).unwrap();
            let ex = f.to_exchange().unwrap();
            let revs = mcp_verdict::judge::revisions_of(&ex).unwrap();
            (ex, revs)
        })
        .collect()
}

fn pair(c: &mut Criterion, name: &str, ex: &Exchange, expect: Outcome) {
    let ps = [Protocol::V2026_07_28];
    let options = Options {
        protocols: Some(&ps),
        engine: Engine::builtin(),
    };
    let j = judge(ex, &options).unwrap();
    assert_eq!(
        j.verdicts[0].outcome,
        expect,
        "{name}: {}",
        j.verdicts[0].summary()
    );
    // The bytes read: the body, or a stdio server's stdout.
    let size = ex.stdio.as_ref().map_or(ex.body.len(), |s| s.stdout.len());
    let mut g = c.benchmark_group(name);
    g.bench_function(BenchmarkId::new("parse", size), |b| {
        b.iter(|| black_box(parse_floor(black_box(ex))))
    });
    g.bench_function(BenchmarkId::new("classify", size), |b| {
        b.iter(|| black_box(judge(black_box(ex), &options).unwrap()))
    });
    g.finish();
}

fn benches(c: &mut Criterion) {
    let success = success_1kb();
    // The hot path: no findings are allocated for a conformant success.
    let ps = [Protocol::V2026_07_28];
    let j = judge(
        &success,
        &Options {
            protocols: Some(&ps),
            engine: Engine::builtin(),
        },
    )
    .unwrap();
    assert!(j.verdicts[0].findings.is_empty() && j.verdicts[0].findings.capacity() == 0);
    pair(c, "success_json_1kb", &success, Outcome::ToolSuccess);
    pair(
        c,
        "success_structured_json_1kb",
        &success_structured_1kb(),
        Outcome::ToolSuccess,
    );
    pair(c, "tool_error_json", &tool_error(), Outcome::ToolError);
    pair(
        c,
        "jsonrpc_error_json",
        &jsonrpc_error(),
        Outcome::JsonrpcError,
    );
    pair(
        c,
        "input_required_json",
        &input_required(),
        Outcome::InputRequired,
    );
    pair(c, "image_json_100kb", &image_100kb(), Outcome::ToolSuccess);
    pair(c, "sse_progress_3", &sse_progress(), Outcome::ToolSuccess);
    pair(
        c,
        "success_stdio_1kb",
        &success_stdio_1kb(),
        Outcome::ToolSuccess,
    );
    pair(
        c,
        "stdio_progress_3",
        &stdio_progress(),
        Outcome::ToolSuccess,
    );
    pair(
        c,
        "sse_incomplete",
        &sse_incomplete(),
        Outcome::DeliveryUnknown,
    );

    let stream = stream_input();
    let mut g = c.benchmark_group("jsonl_stream");
    let lines = stream.iter().filter(|&&b| b == b'\n').count();
    g.bench_function(BenchmarkId::new("full", lines), |b| {
        b.iter(|| stream_run(black_box(&stream), &JsonLines))
    });
    g.bench_function(BenchmarkId::new("compact", lines), |b| {
        b.iter(|| stream_run(black_box(&stream), &CompactLines))
    });
    g.finish();

    let corpus = corpus();
    let mut g = c.benchmark_group("corpus");
    let n = corpus.len();
    g.bench_function(BenchmarkId::new("parse", n), |b| {
        b.iter(|| {
            corpus
                .iter()
                .map(|(ex, _)| parse_floor(black_box(ex)))
                .sum::<usize>()
        })
    });
    g.bench_function(BenchmarkId::new("classify", n), |b| {
        b.iter(|| {
            corpus
                .iter()
                .map(|(ex, revs)| {
                    let o = Options {
                        protocols: Some(revs),
                        engine: Engine::builtin(),
                    };
                    judge(black_box(ex), &o).unwrap().verdicts.len()
                })
                .sum::<usize>()
        })
    });
    g.finish();
}

/// The bundled JSON Lines example (its 13 lines: successes, errors, streams and bad lines)
/// repeated to 1,040 lines: the input of `classify --jsonl`.
fn stream_input() -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/jsonl/calls.jsonl");
    let one = std::fs::read(path).expect("the bundled JSON Lines example");
    one.repeat(80)
}

/// `classify --jsonl`'s whole per-line work on one worker thread (read the line, parse the
/// exchange file, judge under every revision, write the record), output bytes returned.
fn stream_run(input: &[u8], format: &dyn LineFormat) -> usize {
    let ps: Vec<Protocol> = Protocol::all().collect();
    let options = JsonlOptions {
        judge: Options {
            protocols: Some(&ps),
            engine: Engine::builtin(),
        },
        threads: 1,
        ..JsonlOptions::default()
    };
    let mut out = Vec::with_capacity(1 << 20);
    stream::run(input, &mut out, &options, format).expect("the stream runs");
    out.len()
}

/// The compact/full ratio of `classify --jsonl` from paired rounds, as [`paired_ratio`] does.
fn paired_stream_ratio(rounds: usize) -> (f64, f64) {
    use std::time::Instant;
    let input = stream_input();
    let time = |format: &dyn LineFormat| {
        let t = Instant::now();
        black_box(stream_run(black_box(&input), format));
        t.elapsed().as_secs_f64()
    };
    let size = stream_run(&input, &CompactLines) as f64 / stream_run(&input, &JsonLines) as f64;
    let mut ratios: Vec<f64> = (0..rounds)
        .map(|r| {
            if r % 2 == 0 {
                let f = time(&JsonLines);
                time(&CompactLines) / f
            } else {
                let k = time(&CompactLines);
                k / time(&JsonLines)
            }
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    (ratios[ratios.len() / 2], size)
}

/// The classify/parse ratio from paired rounds: in each round the same number of parses and
/// of judgements are timed back to back (in alternating order), so a change of clock speed or
/// load during the run hits both sides of a round alike; the median of the rounds' ratios is
/// steadier than the ratio of two estimates taken seconds apart, which is why the gate reads it.
fn paired_ratio(ex: &Exchange, rounds: usize) -> f64 {
    use std::time::{Duration, Instant};
    let ps = [Protocol::V2026_07_28];
    let options = Options {
        protocols: Some(&ps),
        engine: Engine::builtin(),
    };
    let parse = |n: usize| {
        let t = Instant::now();
        for _ in 0..n {
            black_box(parse_floor(black_box(ex)));
        }
        t.elapsed()
    };
    let classify = |n: usize| {
        let t = Instant::now();
        for _ in 0..n {
            black_box(judge(black_box(ex), &options).unwrap());
        }
        t.elapsed()
    };
    // Enough iterations for a side to take about 2 ms (far above the clock's resolution).
    let mut n = 1;
    while parse(n) < Duration::from_millis(2) {
        n *= 2;
    }
    classify(n);
    let mut ratios: Vec<f64> = (0..rounds)
        .map(|r| {
            let (p, k) = if r % 2 == 0 {
                let p = parse(n);
                (p, classify(n))
            } else {
                let k = classify(n);
                (parse(n), k)
            };
            if std::env::var_os("MCP_VERDICT_BENCH_DEBUG").is_some() {
                eprintln!(
                    "round {r}: parse {:.0} ns, classify {:.0} ns",
                    p.as_secs_f64() * 1e9 / n as f64,
                    k.as_secs_f64() * 1e9 / n as f64
                );
            }
            k.as_secs_f64() / p.as_secs_f64()
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    ratios[ratios.len() / 2]
}

/// Reads criterion's point estimate (median, ns; steadier than the mean on a busy machine) of
/// `group/function/*`, when this run wrote it (a filtered run leaves older results in place).
fn estimate(group: &str, function: &str, since: std::time::SystemTime) -> Option<f64> {
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("target"),
        PathBuf::from,
    );
    let dir = target.join("criterion").join(group).join(function);
    let sub = std::fs::read_dir(&dir)
        .ok()?
        .filter_map(Result::ok)
        .find(|e| e.path().is_dir())?;
    let path = sub.path().join("new/estimates.json");
    if std::fs::metadata(&path).ok()?.modified().ok()? < since {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let v: Value = serde_json::from_str(&text).ok()?;
    v.pointer("/median/point_estimate")?.as_f64()
}

fn main() {
    let started = std::time::SystemTime::now();
    let mut c = Criterion::default().configure_from_args();
    benches(&mut c);
    c.final_summary();
    let groups = [
        "success_json_1kb",
        "success_structured_json_1kb",
        "tool_error_json",
        "jsonrpc_error_json",
        "input_required_json",
        "image_json_100kb",
        "sse_progress_3",
        "sse_incomplete",
        "success_stdio_1kb",
        "stdio_progress_3",
        "corpus",
    ];
    println!("\nclassify / parse, this run (criterion medians):");
    for g in groups {
        let (Some(p), Some(k)) = (
            estimate(g, "parse", started),
            estimate(g, "classify", started),
        ) else {
            println!("  {g:<30} (not measured in this run)");
            continue;
        };
        println!(
            "  {g:<30} {:>6.2}x   parse {p:>10.1} ns, classify {k:>10.1} ns",
            k / p
        );
    }
    // The targets, from paired rounds (see `paired_ratio`), for the targeted groups this run
    // measured.
    let rounds = std::env::var("MCP_VERDICT_BENCH_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(101);
    let mut over = Vec::new();
    let mut header = false;
    for &(g, target, limit) in TARGETS {
        if estimate(g, "classify", started).is_none() {
            continue;
        }
        if !header {
            println!("\ntargets, from {rounds} paired rounds (median of the rounds' ratios):");
            header = true;
        }
        let ex = match g {
            "success_json_1kb" => success_1kb(),
            "sse_progress_3" => sse_progress(),
            other => unreachable!("no exchange for target group {other}"),
        };
        let ratio = paired_ratio(&ex, rounds);
        let met = if ratio <= target { "met" } else { "MISSED" };
        let gate = if ratio <= limit {
            "ok"
        } else {
            over.push(format!("{g}: {ratio:.2}x > {limit}x"));
            "FAILED"
        };
        println!("  {g:<30} {ratio:>6.2}x   target {target}x: {met}; gate {limit}x: {gate}");
    }
    if let (Some(full), Some(compact)) = (
        estimate("jsonl_stream", "full", started),
        estimate("jsonl_stream", "compact", started),
    ) {
        let (ratio, size) = paired_stream_ratio(rounds.min(31));
        let gate = if ratio <= COMPACT_LIMIT {
            "ok"
        } else {
            over.push(format!(
                "jsonl_stream compact/full: {ratio:.2}x > {COMPACT_LIMIT}x"
            ));
            "FAILED"
        };
        println!(
            "\nclassify --jsonl, 1,040 lines on one worker: full {:.1} µs/line, compact {:.1} µs/line (criterion medians)",
            full / 1040.0 / 1e3,
            compact / 1040.0 / 1e3
        );
        println!(
            "  compact / full time {ratio:.2}x (median of {} paired rounds; gate {COMPACT_LIMIT}x: {gate}), output size {size:.3}x",
            rounds.min(31)
        );
    }
    if !over.is_empty() && std::env::var_os("MCP_VERDICT_BENCH_GATE").is_some() {
        eprintln!("benchmark gate failed: {}", over.join("; "));
        std::process::exit(1);
    }
}
