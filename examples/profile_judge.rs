//! Judges one exchange file N times: a fixed workload for profilers
//! (`cargo build --profile profiling --example profile_judge`, then
//! `valgrind --tool=callgrind target/profiling/examples/profile_judge FILE 2000`).
//! With `parse` as the revision it only parses the body into a `serde_json::Value` N times: the
//! floor that judging is measured against, for an instruction-count ratio. With `tape` it
//! reads the body onto a `wire::tape` N times, and with `tape-check` also checks its `result`
//! against `CallToolResult` (2026-07-28) on the tape, as `parse-check` does on a `Value`.

use mcp_verdict::{Engine, ExchangeFile, Options, Protocol, judge};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: profile_judge FILE [ITERATIONS] [REVISION|parse]");
    let n: usize = args
        .next()
        .map_or(1000, |s| s.parse().expect("ITERATIONS is a number"));
    let revision = args.next();
    let file =
        ExchangeFile::from_slice(&std::fs::read(&path).expect("readable")).expect("an exchange");
    let ex = file.to_exchange().expect("an exchange");
    let call_tool_result = || {
        mcp_verdict::schema::for_revision(Protocol::V2026_07_28)
            .fast("CallToolResult")
            .expect("a fast CallToolResult check")
    };
    if let Some(mode @ ("tape" | "tape-check" | "parse-check")) = revision.as_deref() {
        let fast = call_tool_result();
        let mut valid = 0;
        for _ in 0..n {
            let body = std::hint::black_box(&ex.body);
            valid += usize::from(if mode == "parse-check" {
                let v: serde_json::Value = serde_json::from_slice(body).unwrap_or_default();
                v.get("result").is_some_and(|r| fast.is_valid(r))
            } else {
                let text = std::str::from_utf8(body).unwrap_or_default();
                let t = mcp_verdict::wire::tape::Tape::read(text);
                match (&t, mode) {
                    (Some(t), "tape-check") => t
                        .root()
                        .get("result")
                        .is_some_and(|r| fast.is_valid_tape(r)),
                    (t, _) => t.is_some(),
                }
            });
        }
        println!("{n} {mode} runs, {valid} read or valid");
        return;
    }
    if revision.as_deref() == Some("parse") {
        let mut objects = 0;
        for _ in 0..n {
            let v: serde_json::Value =
                serde_json::from_slice(std::hint::black_box(&ex.body)).unwrap_or_default();
            objects += usize::from(v.is_object());
        }
        println!("{n} parses, {objects} objects");
        return;
    }
    let p = revision.map_or(Protocol::V2026_07_28, |s| {
        Protocol::parse(&s).expect("a revision or `parse`")
    });
    let ps = [p];
    let options = Options {
        protocols: Some(&ps),
        engine: Engine::builtin(),
    };
    let mut findings = 0;
    for _ in 0..n {
        let j = judge(&ex, &options).expect("judged");
        findings += j.verdicts[0].findings.len();
    }
    println!("{n} judgements, {findings} findings");
}
