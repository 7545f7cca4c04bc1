//! The fuzz corpora replayed: every input kept under `fuzz/corpus/<target>/` (what the fuzzers
//! found interesting) and `fuzz/regressions/<target>/` (inputs that once made a target fail)
//! goes through the entry point its fuzz target calls (`mcp_verdict::fuzzing`), which must
//! return, accepting or rejecting the input, without a panic.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use mcp_verdict::Protocol;
use mcp_verdict::fuzzing::{self, Replay};

fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz")
}

/// The files of `fuzz/<kind>/<target>/`, sorted; none when the folder does not exist.
fn inputs(kind: &str, target: &str) -> Vec<PathBuf> {
    let dir = fuzz_dir().join(kind).join(target);
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    let mut files: Vec<PathBuf> = entries
        .map(|e| e.expect("a readable folder entry").path())
        .filter(|p| p.is_file())
        .collect();
    files.sort();
    files
}

/// Replays a target's corpus and regressions; fails on any panic, on an empty corpus, on a
/// rejection without a message, and when no input at all was accepted (the seeds are valid
/// inputs, so a target that rejects everything is broken).
fn replay(target: &str, entry: fn(&[u8]) -> Replay) {
    let corpus = inputs("corpus", target);
    let regressions = inputs("regressions", target);
    assert!(
        !corpus.is_empty(),
        "fuzz/corpus/{target}/ holds no inputs (run fuzz/seed.py)"
    );
    let mut accepted = 0;
    let mut failures = Vec::new();
    for path in corpus.iter().chain(&regressions) {
        let bytes = std::fs::read(path).expect("a readable corpus file");
        match catch_unwind(AssertUnwindSafe(|| entry(&bytes))) {
            Ok(Ok(_)) => accepted += 1,
            Ok(Err(message)) if message.trim().is_empty() => {
                failures.push(format!("{}: rejected without a message", path.display()));
            }
            Ok(Err(_)) => {}
            Err(_) => failures.push(format!("{}: panicked", path.display())),
        }
    }
    assert!(
        failures.is_empty(),
        "{target}: {} of {} inputs failed:\n{}",
        failures.len(),
        corpus.len() + regressions.len(),
        failures.join("\n")
    );
    assert!(
        accepted > 0,
        "{target}: no input of the corpus was accepted"
    );
}

#[test]
fn exchange_file() {
    replay("exchange_file", fuzzing::exchange_file);
}

#[test]
fn sse() {
    replay("sse", fuzzing::sse);
}

#[test]
fn json_string() {
    replay("json_string", fuzzing::json_string);
}

#[test]
fn tape() {
    replay("tape", fuzzing::tape);
}

#[test]
fn har() {
    replay("har", fuzzing::har);
}

#[test]
fn jsonl_line() {
    replay("jsonl_line", fuzzing::jsonl);
}

#[test]
fn judge_2025() {
    replay("judge_2025", |b| {
        fuzzing::judge_body(Protocol::V2025_11_25, b)
    });
}

#[test]
fn judge_2026() {
    replay("judge_2026", |b| {
        fuzzing::judge_body(Protocol::V2026_07_28, b)
    });
}

#[cfg(feature = "serve")]
#[test]
fn serve_request() {
    replay("serve_request", fuzzing::serve_request);
}

/// Every fuzz target declared in `fuzz/Cargo.toml` is replayed above, and every corpus or
/// regression folder belongs to a declared target.
#[test]
fn every_target_is_replayed() {
    const REPLAYED: &[&str] = &[
        "exchange_file",
        "har",
        "json_string",
        "jsonl_line",
        "judge_2025",
        "judge_2026",
        "serve_request",
        "sse",
        "tape",
    ];
    let manifest = std::fs::read_to_string(fuzz_dir().join("Cargo.toml")).expect("fuzz/Cargo.toml");
    let mut declared: Vec<&str> = manifest
        .split("[[bin]]")
        .skip(1)
        .filter_map(|section| {
            section.lines().find_map(|l| {
                l.trim()
                    .strip_prefix("name = \"")
                    .and_then(|r| r.strip_suffix('"'))
            })
        })
        .collect();
    declared.sort_unstable();
    assert_eq!(
        declared, REPLAYED,
        "fuzz targets and replayed targets differ"
    );
    for kind in ["corpus", "regressions"] {
        let Ok(entries) = std::fs::read_dir(fuzz_dir().join(kind)) else {
            continue;
        };
        for e in entries {
            let name = e.expect("a readable folder entry").file_name();
            let name = name.to_string_lossy();
            assert!(
                REPLAYED.contains(&name.as_ref()),
                "fuzz/{kind}/{name}/ belongs to no fuzz target"
            );
        }
    }
}
