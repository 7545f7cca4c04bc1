//! Judges one exchange file N times: a fixed workload for profilers
//! (`valgrind --tool=callgrind target/release/examples/profile_judge FILE 2000`).
//! With `parse` as the revision it only parses the body into a `serde_json::Value` N times: the
//! floor that judging is measured against, for an instruction-count ratio.

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
