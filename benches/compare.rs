//! The mcp-verdict side of the peer comparison in `benches/compare/` (run it with
//! `benches/compare/run.sh`, which generates the inputs, runs the Node side too and prints the
//! table). Same inputs and the same timing loop as `benches/compare/harness.mjs`.
//!
//! ```text
//! cargo bench --bench compare -- --data target/compare --schema ../shared/spec/2026-07-28/schema/schema.json \
//!     [--runs 5] [--min-ms 1000] [--warm-ms 200] [--out FILE]
//! ```
//!
//! Without `--data` (e.g. a plain `cargo bench`), or when the data has not been generated, it
//! says so and exits 0. Prints (or appends to `--out`) one JSON line per measured row:
//! `{"side", "name", "rates": [per-run ops/s], "result"}`.

use std::fs;
use std::hint::black_box;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use mcp_verdict::{Engine, Exchange, ExchangeFile, Options, Protocol, judge};
use serde_json::{Value, json};

struct Args {
    data: Option<PathBuf>,
    schema: Option<PathBuf>,
    runs: usize,
    min_ms: f64,
    warm_ms: f64,
    out: Option<PathBuf>,
}

fn args() -> Args {
    let mut a = Args {
        data: None,
        schema: None,
        runs: 5,
        min_ms: 1000.0,
        warm_ms: 200.0,
        out: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(k) = it.next() {
        // `cargo bench` passes `--bench`; anything else unknown is a mistake.
        let mut val = || {
            it.next()
                .unwrap_or_else(|| die(&format!("{k} needs a value")))
        };
        match k.as_str() {
            "--bench" => {}
            "--data" => a.data = Some(val().into()),
            "--schema" => a.schema = Some(val().into()),
            "--runs" => a.runs = val().parse().unwrap_or_else(|_| die("--runs: a number")),
            "--min-ms" => a.min_ms = val().parse().unwrap_or_else(|_| die("--min-ms: a number")),
            "--warm-ms" => a.warm_ms = val().parse().unwrap_or_else(|_| die("--warm-ms: a number")),
            "--out" => a.out = Some(val().into()),
            other => die(&format!("unknown argument {other}")),
        }
    }
    a
}

fn die(msg: &str) -> ! {
    eprintln!("compare: {msg}");
    std::process::exit(2)
}

fn read_lines(path: &Path) -> Vec<String> {
    fs::read_to_string(path)
        .unwrap_or_else(|e| die(&format!("cannot read {}: {e}", path.display())))
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(str::to_owned)
        .collect()
}

/// The loop, identical in shape to the Node side: whole passes over `items` in batches of at
/// least 64 calls, the clock read once per batch, until `min_ms` has passed; one warm-up of
/// `warm_ms` first. Returns ops/s per run.
fn measure<T>(a: &Args, items: &[T], mut f: impl FnMut(&T)) -> Vec<f64> {
    let passes = 64usize.div_ceil(items.len()).max(1);
    let mut timed = |ms: f64| {
        let mut n = 0usize;
        let t0 = Instant::now();
        loop {
            for _ in 0..passes {
                for x in items {
                    f(black_box(x));
                }
            }
            n += passes * items.len();
            let el = t0.elapsed().as_secs_f64() * 1000.0;
            if el >= ms {
                return n as f64 * 1000.0 / el;
            }
        }
    };
    timed(a.warm_ms);
    (0..a.runs).map(|_| timed(a.min_ms)).collect()
}

/// A bare SIMD tape parse (`simd_json::fill_tape`), its buffers and tape kept between calls.
struct TapeFloor {
    scratch: Vec<u8>,
    buffers: simd_json::Buffers,
    tape: Option<simd_json::Tape<'static>>,
}

impl TapeFloor {
    fn new() -> TapeFloor {
        TapeFloor {
            scratch: Vec::new(),
            buffers: simd_json::Buffers::default(),
            tape: Some(simd_json::Tape::null()),
        }
    }

    /// Parses `body` into the tape; returns the number of tape nodes (0 for invalid JSON).
    fn parse(&mut self, body: &[u8]) -> usize {
        self.scratch.clear();
        self.scratch.extend_from_slice(body);
        let mut tape = self.tape.take().expect("the tape is put back").reset();
        let n = match simd_json::fill_tape(&mut self.scratch, &mut self.buffers, &mut tape) {
            Ok(()) => tape.0.len(),
            Err(_) => 0,
        };
        self.tape = Some(tape.reset());
        n
    }
}

struct Out(Option<fs::File>);

impl Out {
    fn emit(&mut self, side: &str, name: &str, rates: Vec<f64>, result: Option<&str>) {
        let line =
            json!({"side": side, "name": name, "rates": rates, "result": result}).to_string();
        match &mut self.0 {
            Some(f) => writeln!(f, "{line}").unwrap_or_else(|e| die(&format!("write: {e}"))),
            None => println!("{line}"),
        }
    }
}

fn main() {
    let a = args();
    let Some(data) = a.data.clone() else {
        eprintln!(
            "compare: no --data given; this bench is driven by benches/compare/run.sh (skipping)"
        );
        return;
    };
    if !data.join("exchanges.jsonl").exists() {
        eprintln!(
            "compare: {} has no exchanges.jsonl; run benches/compare/run.sh (skipping)",
            data.display()
        );
        return;
    }
    let mut out = Out(a.out.as_ref().map(|p| {
        fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(p)
            .unwrap_or_else(|e| die(&format!("cannot open {}: {e}", p.display())))
    }));

    // Exchanges, pre-loaded: the body stays bytes; `judge` parses it on every call.
    let exchanges: Vec<Exchange> = read_lines(&data.join("exchanges.jsonl"))
        .iter()
        .enumerate()
        .map(|(i, l)| {
            ExchangeFile::from_slice(l.as_bytes())
                .and_then(|f| f.to_exchange())
                .unwrap_or_else(|e| die(&format!("exchanges.jsonl line {}: {e}", i + 1)))
        })
        .collect();
    let name = |ex: &Exchange| ex.name.clone().unwrap_or_default();

    let engine = Engine::builtin();
    let v2026 = [Protocol::V2026_07_28];
    let both: Vec<Protocol> = Protocol::all().collect();
    let opt_2026 = Options {
        protocols: Some(&v2026),
        engine,
    };
    let opt_both = Options {
        protocols: Some(&both),
        engine,
    };
    eprintln!(
        "compare: {} exchanges; 2026-07-28 activates {} rules ({} under 2025-11-25)",
        exchanges.len(),
        engine.table().active(Protocol::V2026_07_28).len(),
        engine.table().active(Protocol::V2025_11_25).len(),
    );
    let run = |ex: &Exchange, o: &Options| {
        black_box(judge(ex, o).unwrap_or_else(|e| die(&format!("{}: {e}", name(ex)))));
    };

    // --- judge under 2026-07-28: parse + every active rule + schema + citations + retry ------
    for ex in &exchanges {
        let j = judge(ex, &opt_2026).unwrap_or_else(|e| die(&format!("{}: {e}", name(ex))));
        let outcome = j.verdicts[0].outcome.as_str();
        let rates = measure(&a, std::slice::from_ref(ex), |x| run(x, &opt_2026));
        out.emit("verdict", &name(ex), rates, Some(outcome));
    }
    out.emit(
        "verdict",
        "all",
        measure(&a, &exchanges, |x| run(x, &opt_2026)),
        None,
    );
    let seed_only: Vec<Exchange> = exchanges
        .iter()
        .filter(|e| name(e).starts_with("seed:"))
        .cloned()
        .collect();
    out.emit(
        "verdict",
        "seed-cases",
        measure(&a, &seed_only, |x| run(x, &opt_2026)),
        None,
    );
    // Reference, not a peer: parsing the body alone, the floor of any classifier that reads it.
    out.emit(
        "serde-parse-only",
        "all",
        measure(&a, &exchanges, |x| {
            black_box(serde_json::from_slice::<Value>(&x.body).ok());
        }),
        None,
    );
    // The same floor on the seed's cases and on the ~1 KB success alone, and the physical floor
    // under any parser: a bare SIMD tape parse (`simd-json`, a dev-dependency only) of the same
    // bytes. simd-json parses in place, so each call copies the body into a scratch buffer
    // first (a memcpy of the body, a few percent of the parse); its buffers and tape are reused.
    let one_kb: Vec<Exchange> = exchanges
        .iter()
        .filter(|e| name(e) == "success_1kb")
        .cloned()
        .collect();
    if one_kb.is_empty() {
        die("exchanges.jsonl has no success_1kb exchange (regenerate it with run.sh)");
    }
    for (row, set) in [("seed-cases", &seed_only), ("success_1kb", &one_kb)] {
        out.emit(
            "serde-parse-only",
            row,
            measure(&a, set, |x| {
                black_box(serde_json::from_slice::<Value>(&x.body).ok());
            }),
            None,
        );
    }
    let mut tape = TapeFloor::new();
    for (row, set) in [
        ("all", &exchanges),
        ("seed-cases", &seed_only),
        ("success_1kb", &one_kb),
    ] {
        out.emit(
            "simd-tape",
            row,
            measure(&a, set, |x| {
                black_box(tape.parse(&x.body));
            }),
            None,
        );
    }
    // The read the validate-while-parsing work builds on (`mcp_verdict::wire::tape`, strict,
    // strings borrowed, no `Value`): the body read onto the tape, and the same read with the
    // success path's schema work on it (`result`, when there is one, checked against
    // `CallToolResult` by the fast check walking the tape). Beside it the same schema work on
    // a parsed `Value`, as `judge` does it today.
    let call_tool_result = mcp_verdict::schema::for_revision(Protocol::V2026_07_28)
        .fast("CallToolResult")
        .unwrap_or_else(|| die("no fast CallToolResult check for the 2026-07-28 schema"));
    let on_tape = |body: &[u8]| -> Option<bool> {
        let text = std::str::from_utf8(body).ok()?;
        let t = mcp_verdict::wire::tape::Tape::read(text)?;
        Some(
            t.root()
                .get("result")
                .is_some_and(|r| call_tool_result.is_valid_tape(r)),
        )
    };
    let on_value = |body: &[u8]| -> Option<bool> {
        let v = serde_json::from_slice::<Value>(body).ok()?;
        Some(
            v.get("result")
                .is_some_and(|r| call_tool_result.is_valid(r)),
        )
    };
    for ex in &exchanges {
        // A body the tape does not read (`None`) is left to the `Value` path, as in `judge`.
        if let Some(valid) = on_tape(&ex.body)
            && Some(valid) != on_value(&ex.body)
        {
            die(&format!("{}: the tape and the Value disagree", name(ex)));
        }
    }
    for (row, set) in [
        ("all", &exchanges),
        ("seed-cases", &seed_only),
        ("success_1kb", &one_kb),
    ] {
        out.emit(
            "tape-read",
            row,
            measure(&a, set, |x| {
                black_box(
                    std::str::from_utf8(&x.body)
                        .ok()
                        .and_then(mcp_verdict::wire::tape::Tape::read)
                        .map(|t| t.len()),
                );
            }),
            None,
        );
        out.emit(
            "tape-validate",
            row,
            measure(&a, set, |x| {
                black_box(on_tape(&x.body));
            }),
            None,
        );
        out.emit(
            "value-validate",
            row,
            measure(&a, set, |x| {
                black_box(on_value(&x.body));
            }),
            None,
        );
    }
    // Both revisions in one judgement (two verdicts, one parse).
    out.emit(
        "verdict-both",
        "all",
        measure(&a, &exchanges, |x| run(x, &opt_both)),
        None,
    );
    // What `classify --jsonl` does per exchange: judge, then the verdict record (cites with URLs
    // and quotes, findings, retry advice) serialized to JSON.
    out.emit(
        "verdict+json",
        "all",
        measure(&a, &exchanges, |x| {
            let j = judge(x, &opt_2026).unwrap_or_else(|e| die(&e.to_string()));
            black_box(mcp_verdict::views::judgement_json(&j, None));
        }),
        None,
    );

    // --- CallToolResult instances -----------------------------------------------------------
    let inst_lines = read_lines(&data.join("instances.jsonl"));
    let instances: Vec<(String, String)> = inst_lines
        .iter()
        .map(|l| {
            let v: Value = serde_json::from_str(l).unwrap_or_else(|e| die(&format!("{e}")));
            (
                v["name"].as_str().unwrap_or_default().to_owned(),
                v["text"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let texts: Vec<String> = instances.iter().map(|(_, t)| t.clone()).collect();
    let parsed: Vec<Value> = texts
        .iter()
        .map(|t| serde_json::from_str(t).expect("instance is JSON"))
        .collect();

    // mcp-verdict's own schema path: the project's 2026-07-28 schema (formats asserted), decided
    // as `judge` decides it: the specialised check (`mcp_verdict::fast_schema`), and the
    // compiled `jsonschema` validator when that says no; boolean answer, pre-parsed instance.
    let schemas = mcp_verdict::schema::for_revision(Protocol::V2026_07_28);
    let full = schemas
        .def("CallToolResult")
        .unwrap_or_else(|| die("no CallToolResult in the project's 2026-07-28 schema"));
    let fast = schemas
        .fast("CallToolResult")
        .unwrap_or_else(|| die("no fast CallToolResult check for the 2026-07-28 schema"));
    let own = |v: &Value| fast.is_valid(v) || full.is_valid(v);
    for ((n, _), v) in instances.iter().zip(&parsed) {
        let valid = if own(v) { "valid" } else { "invalid" };
        let rates = measure(&a, std::slice::from_ref(v), |x| {
            black_box(own(x));
        });
        out.emit("verdict-schema", n, rates, Some(valid));
    }
    out.emit(
        "verdict-schema",
        "all",
        measure(&a, &parsed, |x| {
            black_box(own(x));
        }),
        None,
    );
    out.emit(
        "verdict-schema+parse",
        "all",
        measure(&a, &texts, |t| {
            let v: Value = serde_json::from_str(t).expect("instance is JSON");
            black_box(own(&v));
        }),
        None,
    );

    // The official schema itself (the file ajv compiles), compiled by the same jsonschema crate
    // mcp-verdict uses, formats not asserted, as ajv is configured.
    if let Some(schema_path) = &a.schema {
        let root: Value = serde_json::from_str(
            &fs::read_to_string(schema_path)
                .unwrap_or_else(|e| die(&format!("cannot read {}: {e}", schema_path.display()))),
        )
        .unwrap_or_else(|e| die(&format!("{}: {e}", schema_path.display())));
        let map = jsonschema::options()
            .with_draft(jsonschema::Draft::Draft202012)
            .should_validate_formats(false)
            .build_map(&root)
            .unwrap_or_else(|e| die(&format!("{}: {e}", schema_path.display())));
        let official = map
            .get("#/$defs/CallToolResult")
            .unwrap_or_else(|| die("the official schema has no #/$defs/CallToolResult"));
        for ((n, _), v) in instances.iter().zip(&parsed) {
            let valid = if official.is_valid(v) {
                "valid"
            } else {
                "invalid"
            };
            let rates = measure(&a, std::slice::from_ref(v), |x| {
                black_box(official.is_valid(x));
            });
            out.emit("jsonschema-official", n, rates, Some(valid));
        }
        out.emit(
            "jsonschema-official",
            "all",
            measure(&a, &parsed, |x| {
                black_box(official.is_valid(x));
            }),
            None,
        );
    }
}
