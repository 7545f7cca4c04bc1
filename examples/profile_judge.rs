//! Judges one exchange file N times: a fixed workload for profilers
//! (`valgrind --tool=callgrind target/release/examples/profile_judge FILE 2000`).

use mcp_verdict::{ExchangeFile, Options, Protocol, RuleTable, judge};

fn main() {
    let mut args = std::env::args().skip(1);
    let path = args
        .next()
        .expect("usage: profile_judge FILE [ITERATIONS] [REVISION]");
    let n: usize = args
        .next()
        .map_or(1000, |s| s.parse().expect("ITERATIONS is a number"));
    let p = args.next().map_or(Protocol::V2026_07_28, |s| {
        Protocol::parse(&s).expect("a revision")
    });
    let file =
        ExchangeFile::from_slice(&std::fs::read(&path).expect("readable")).expect("an exchange");
    let ex = file.to_exchange().expect("an exchange");
    let ps = [p];
    let options = Options {
        protocols: Some(&ps),
        table: RuleTable::builtin(),
    };
    let mut findings = 0;
    for _ in 0..n {
        let j = judge(&ex, &options).expect("judged");
        findings += j.verdicts[0].findings.len();
    }
    println!("{n} judgements, {findings} findings");
}
