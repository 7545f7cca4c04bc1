//! `mcp-verdict classify --jsonl`: files and stdin, exit codes, the stderr summary, and parity
//! with single-file `classify --format json`.

use std::process::Output;

use serde_json::Value;

use crate::support::cli::{bin, run};
use crate::support::temp::temp_dir;

const EXAMPLE: &str = "examples/jsonl/calls.jsonl";

fn mcp_verdict(args: &[&str], stdin: Option<&[u8]>) -> Output {
    run(bin().args(args), stdin)
}

fn records(out: &Output) -> Vec<Value> {
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

fn example_lines() -> Vec<String> {
    std::fs::read_to_string(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(EXAMPLE))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn bundled_example() {
    let out = mcp_verdict(&["classify", "--jsonl", EXAMPLE], None);
    assert_eq!(
        out.status.code(),
        Some(1),
        "error records and findings fail the run"
    );
    let recs = records(&out);
    assert_eq!(recs.len(), 13);
    let raw = String::from_utf8(out.stdout.clone()).unwrap();
    for (i, (r, text)) in recs.iter().zip(raw.lines()).enumerate() {
        assert_eq!(r["line"], i + 1);
        assert!(
            text.starts_with(&format!("{{\"line\":{},", i + 1)),
            "the line number comes first: {text}"
        );
        if i == 8 {
            assert_eq!(r.as_object().unwrap().len(), 2);
            assert!(
                r["error"]
                    .as_str()
                    .unwrap()
                    .starts_with("not JSON at column ")
            );
        } else {
            assert!(r["verdicts"].is_array() && r["differences"].is_array());
        }
    }
    let outcome = |i: usize| recs[i]["verdicts"][0]["outcome"].as_str().unwrap();
    assert_eq!(outcome(0), "TOOL_SUCCESS");
    assert_eq!(outcome(1), "TOOL_SUCCESS");
    assert_eq!(outcome(3), "TOOL_ERROR");
    assert_eq!(outcome(4), "JSONRPC_ERROR");
    assert_eq!(outcome(5), "HTTP_ERROR");
    assert_eq!(outcome(6), "MALFORMED_JSON");
    assert_eq!(outcome(9), "INPUT_REQUIRED");
    assert_eq!(outcome(12), "TOOL_SUCCESS");
    assert_eq!(
        recs[2]["verdicts"][0]["facts"]["media_type"],
        "text/event-stream"
    );
    // stderr is not a terminal here and --summary was not given.
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn stdin_is_the_default_and_summary_goes_to_stderr_on_request() {
    let input =
        std::fs::read(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(EXAMPLE)).unwrap();
    let from_file = mcp_verdict(&["classify", "--jsonl", EXAMPLE], None);
    for args in [
        &["classify", "--jsonl", "--summary"][..],
        &["classify", "--jsonl", "-", "--summary"][..],
    ] {
        let out = mcp_verdict(args, Some(&input));
        assert_eq!(out.status.code(), Some(1));
        assert_eq!(
            out.stdout, from_file.stdout,
            "stdin and file give the same records"
        );
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(
            err,
            "mcp-verdict: 13 lines: 12 judged (4 with error-severity findings), 1 error record(s), 0 blank\n"
        );
    }
}

#[test]
fn passing_lines_exit_0_and_threads_do_not_change_the_output() {
    let lines = example_lines();
    // Lines without error-severity findings, repeated with blank lines between.
    let good: String = [0usize, 1, 3, 4, 5, 9, 12]
        .iter()
        .cycle()
        .take(300)
        .map(|&i| format!("{}\n\n", lines[i]))
        .collect();
    let one = mcp_verdict(
        &["classify", "--jsonl", "--jobs", "1"],
        Some(good.as_bytes()),
    );
    let four = mcp_verdict(
        &["classify", "--jsonl", "--jobs", "4"],
        Some(good.as_bytes()),
    );
    assert_eq!(
        one.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&one.stderr)
    );
    assert_eq!(four.status.code(), Some(0));
    assert_eq!(one.stdout, four.stdout);
    let recs = records(&four);
    assert_eq!(recs.len(), 300);
    assert_eq!(recs[299]["line"], 599);
}

#[test]
fn records_match_single_file_output() {
    let lines = example_lines();
    let dir = temp_dir("jsonl-cli");
    let stream = mcp_verdict(&["classify", "--jsonl", EXAMPLE, "--protocol", "all"], None);
    let recs = records(&stream);
    for (i, line) in lines.iter().enumerate() {
        if i == 8 {
            continue;
        }
        let path = dir.join(format!("{i}.json"));
        std::fs::write(&path, line).unwrap();
        let single = mcp_verdict(
            &[
                "classify",
                path.to_str().unwrap(),
                "--protocol",
                "all",
                "--format",
                "json",
            ],
            None,
        );
        let single: Value = serde_json::from_slice(&single.stdout).unwrap();
        assert_eq!(recs[i]["verdicts"], single["verdicts"], "line {}", i + 1);
        assert_eq!(
            recs[i]["differences"],
            single["differences"],
            "line {}",
            i + 1
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn usage_errors() {
    let out = mcp_verdict(&["classify", "--jsonl", EXAMPLE, "--format", "text"], None);
    assert_eq!(out.status.code(), Some(2));
    let out = mcp_verdict(&["classify", "--jsonl", EXAMPLE, "--jobs", "0"], None);
    assert_eq!(out.status.code(), Some(2));
    let out = mcp_verdict(&["classify", "x.json", "--summary"], None);
    assert_eq!(out.status.code(), Some(2), "--summary needs --jsonl");
    let out = mcp_verdict(&["classify", "--har", "x.har", "--jobs", "2"], None);
    assert_eq!(out.status.code(), Some(2), "--jobs needs --jsonl");
    let out = mcp_verdict(&["classify", "--jsonl", "/nonexistent/calls.jsonl"], None);
    assert_eq!(out.status.code(), Some(3));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/calls.jsonl"));
}

#[test]
fn format_json_is_accepted() {
    let out = mcp_verdict(&["classify", "--jsonl", EXAMPLE, "--format", "json"], None);
    assert_eq!(records(&out).len(), 13);
}

/// `--compact` writes, per line, the full record's outcome, layer, deciding rule and rules with
/// findings (each once) and its count of error findings; each record validates against the
/// published schema, and error records are the full output's.
#[test]
fn compact_records_agree_with_the_full_ones() {
    let full = mcp_verdict(&["classify", "--jsonl", EXAMPLE, "--protocol", "all"], None);
    let compact = mcp_verdict(
        &[
            "classify",
            "--jsonl",
            EXAMPLE,
            "--protocol",
            "all",
            "--compact",
        ],
        None,
    );
    assert_eq!(full.status.code(), compact.status.code());
    let schema = mcp_verdict::outputs::compact::compact_record_json_schema();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let (full, compact) = (records(&full), records(&compact));
    assert_eq!(full.len(), compact.len());
    let mut verdicts = 0;
    for (f, c) in full.iter().zip(&compact) {
        assert_eq!(f["line"], c["line"]);
        if f.get("error").is_some() {
            assert_eq!(f, c, "an error record is the same in both");
            continue;
        }
        let errors: Vec<String> = validator.iter_errors(c).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{c}: {errors:?}");
        let fv = f["verdicts"].as_array().unwrap();
        let cv = c["verdicts"].as_array().unwrap();
        assert_eq!(fv.len(), cv.len());
        for (fv, cv) in fv.iter().zip(cv) {
            verdicts += 1;
            for key in ["protocol", "outcome", "layer"] {
                assert_eq!(fv[key], cv[key], "{key}: {cv}");
            }
            let decided = fv["cites"]
                .as_array()
                .unwrap()
                .iter()
                .find(|c| c["role"] == "decided")
                .map(|c| c["id"].clone());
            assert_eq!(decided, cv.get("rule").cloned(), "{cv}");
            let mut rules: Vec<&Value> = Vec::new();
            let mut errors = 0;
            for f in fv["findings"].as_array().unwrap() {
                errors += usize::from(f["severity"] == "error");
                if !rules.contains(&&f["rule"]) {
                    rules.push(&f["rule"]);
                }
            }
            assert_eq!(
                cv["findings"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .collect::<Vec<_>>(),
                rules
            );
            assert_eq!(cv["errors"], errors, "{cv}");
        }
    }
    assert!(verdicts >= 20, "only {verdicts} verdicts compared");
    // The short form is the point: well under the full output's size.
    let sizes = |o: &[Value]| o.iter().map(|r| r.to_string().len()).sum::<usize>();
    assert!(sizes(&compact) * 4 < sizes(&full));
}

#[test]
fn compact_needs_a_stream() {
    let out = mcp_verdict(
        &[
            "classify",
            "--compact",
            "tests/fixtures/2026-07-28/request/mcp-method-missing.json",
        ],
        None,
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--compact"));
}

/// Every exchange file of the fixture corpus as one line (line breaks between tokens become
/// spaces; JSON strings hold none), with bad lines among them: not JSON, JSON that is not an
/// exchange, a cut line, a line over the length limit, blank lines.
fn corpus_lines() -> String {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut files = Vec::new();
    let mut dirs = vec![root];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "json") {
                files.push(path);
            }
        }
    }
    files.sort();
    let bad = [
        "not json at all",
        "{\"response\": {\"status\": 200, \"body\": \"{}\"",
        "[1, 2, 3]",
        "{\"request\": {}, \"response\": {\"status\": \"two hundred\"}}",
        "",
        &format!(
            "{{\"response\":{{\"status\":200,\"body\":\"{}\"}}}}",
            "x".repeat(5000)
        ),
    ];
    let mut out = String::new();
    for (i, f) in files.iter().enumerate() {
        let text = std::fs::read_to_string(f).unwrap();
        out.push_str(&text.replace(['\r', '\n'], " "));
        out.push('\n');
        if i % 7 == 0 {
            out.push_str(bad[(i / 7) % bad.len()]);
            out.push('\n');
        }
    }
    assert!(files.len() >= 200, "only {} fixture files", files.len());
    out
}

#[test]
fn the_fixture_corpus_and_bad_lines_give_the_same_bytes_on_one_thread_and_several() {
    let input = corpus_lines();
    for extra in [&[][..], &["--compact"][..]] {
        let outputs: Vec<Output> = ["1", "2", "5"]
            .iter()
            .map(|jobs| {
                let mut args = vec![
                    "classify",
                    "--jsonl",
                    "--protocol",
                    "all",
                    "--max-line-bytes",
                    "4096",
                    "--jobs",
                    jobs,
                ];
                args.extend_from_slice(extra);
                mcp_verdict(&args, Some(input.as_bytes()))
            })
            .collect();
        let recs = records(&outputs[0]);
        let errors = recs.iter().filter(|r| r.get("error").is_some()).count();
        assert!(errors >= 30, "{extra:?}: only {errors} error records");
        assert!(recs.len() - errors >= 200, "{extra:?}: too few judged");
        assert!(
            recs.windows(2)
                .all(|w| w[0]["line"].as_u64() < w[1]["line"].as_u64()),
            "records in input order"
        );
        for o in &outputs[1..] {
            assert_eq!(o.status.code(), outputs[0].status.code());
            assert!(
                o.stdout == outputs[0].stdout,
                "{extra:?}: the records differ between one thread and several"
            );
        }
    }
}
