//! The verdict JSON written straight from a judgement (`views::judgement_json`, its indented
//! form, and the `classify --jsonl` record) is byte for byte the serialised `JudgementOut`
//! it stands for, and the `--compact` record the serialised `CompactRecord`, over every
//! fixture under each revision and under both, with findings capped and not, and with
//! secrets to redact.

use mcp_verdict::outputs::compact::{CompactLines, CompactRecord, CompactVerdict};
use mcp_verdict::outputs::jsonl::JsonLines;
use mcp_verdict::outputs::safe;
use mcp_verdict::run::stream::LineFormat;
use mcp_verdict::views::{JudgementOut, judgement_json, judgement_json_pretty};
use mcp_verdict::{Exchange, ExchangeFile, Judgement, Protocol};
use serde::Serialize;
use serde_json::json;

use crate::support::corpus::fixture_files;
use crate::support::judge::judge_under;

/// The `classify --jsonl` record as it was built: the view, its line number first.
#[derive(Serialize)]
struct LineOut<'a> {
    line: usize,
    #[serde(flatten)]
    judgement: &'a JudgementOut,
}

/// What the compared outputs held, so that the comparison is known to cover them.
#[derive(Default)]
struct Seen {
    judgements: usize,
    findings: usize,
    defaults: usize,
    context: usize,
    errors: usize,
    omitted: usize,
    notes: usize,
    redacted: usize,
}

/// Compares every path for one judgement; `what` names it in a failure.
fn compare(j: &Judgement<'_>, exchange: Option<&str>, what: &str, seen: &mut Seen) {
    let out = JudgementOut::of(j, exchange.map(str::to_string));
    let owned = serde_json::to_string(&out).unwrap();
    assert_bytes(what, "compact", &owned, &judgement_json(j, exchange));
    assert_bytes(
        what,
        "pretty",
        &serde_json::to_string_pretty(&out).unwrap(),
        &judgement_json_pretty(j, exchange),
    );
    let line = 7 + seen.judgements;
    let record = safe::json(
        serde_json::to_string(&LineOut {
            line,
            judgement: &out,
        })
        .unwrap(),
    );
    let written = JsonLines.judged(line, j, exchange.map(str::to_string));
    assert_bytes(what, "jsonl", &record, &written);
    let compact = safe::json(
        serde_json::to_string(&CompactRecord {
            line,
            verdicts: j.verdicts.iter().map(CompactVerdict::of).collect(),
        })
        .unwrap(),
    );
    let written = CompactLines.judged(line, j, exchange.map(str::to_string));
    assert_bytes(what, "jsonl --compact", &compact, &written);
    seen.judgements += 1;
    for v in &out.verdicts {
        seen.findings += v.findings.len();
        seen.defaults += v.defaults.len();
        seen.context += v
            .cites
            .iter()
            .filter(|c| c.role == mcp_verdict::views::CiteRole::Context)
            .count();
        seen.errors += usize::from(v.facts.error.is_some());
        seen.omitted += v.omitted.len();
        seen.notes += v.notes.len();
    }
    seen.redacted += usize::from(owned.contains(mcp_verdict::views::redact::REDACTED));
}

fn assert_bytes(what: &str, form: &str, expected: &str, got: &str) {
    if expected != got {
        let at = expected
            .bytes()
            .zip(got.bytes())
            .position(|(a, b)| a != b)
            .unwrap_or(expected.len().min(got.len()));
        let from = at.saturating_sub(80);
        panic!(
            "{what} ({form}): bytes differ at {at}:\n  expected …{}\n  written  …{}",
            &expected[from..(at + 80).min(expected.len())],
            &got[from..(at + 80).min(got.len())],
        );
    }
}

/// Judges `ex` under each revision alone and under both, then with one finding per rule.
fn compare_all(ex: &Exchange, label: &str, seen: &mut Seen) {
    let all: Vec<Protocol> = Protocol::all().collect();
    let mut sets: Vec<Vec<Protocol>> = all.iter().map(|&p| vec![p]).collect();
    sets.push(all);
    for set in &sets {
        let mut j = judge_under(ex, set);
        let what = format!("{label} under {set:?}");
        compare(&j, Some(label), &what, seen);
        compare(&j, None, &what, seen);
        j.cap_findings(1);
        compare(&j, Some(label), &format!("{what}, capped"), seen);
    }
}

#[test]
fn written_verdicts_are_the_serialised_view_for_every_fixture() {
    let mut seen = Seen::default();
    let files = fixture_files();
    for path in &files {
        let file = ExchangeFile::from_slice(&std::fs::read(path).unwrap()).unwrap();
        let ex = file.to_exchange().unwrap();
        compare_all(&ex, &path.display().to_string(), &mut seen);
    }
    assert!(files.len() > 100, "only {} fixtures", files.len());
    for (what, n) in [
        ("findings", seen.findings),
        ("defaults", seen.defaults),
        ("context citations", seen.context),
        ("JSON-RPC errors", seen.errors),
        ("omitted findings", seen.omitted),
        ("notes", seen.notes),
    ] {
        assert!(
            n > 0,
            "no {what} compared in {} judgements",
            seen.judgements
        );
    }
}

/// What the server wrote is redacted in the written form as in the view: secrets in the
/// error message and data, the response id, `resultType` and a body that is not JSON; and
/// characters a terminal would act on are escaped alike.
#[test]
fn written_verdicts_redact_as_the_view_does() {
    let token = "Bearer abcdefghijklmnopqrstuvwxyz0123456789";
    let json_type = json!({"Content-Type": "application/json"});
    let responses = [
        // An error with secrets in its message and data, a secret id, a number beyond f64.
        (
            json_type.clone(),
            format!(
                r#"{{"jsonrpc": "2.0", "id": "sk-abcdefghijklmnopqrstuvwxyz012345",
                    "error": {{"code": -32603, "message": "upstream said: Authorization: {token}",
                    "data": {{"api_key": "hunter2hunter2", "detail": ["{token}", 1, 1e400]}}}}}}"#
            ),
        ),
        // A secret in `resultType`.
        (
            json_type,
            format!(
                r#"{{"jsonrpc": "2.0", "id": 1, "result": {{"resultType": "x {token}",
                    "content": [{{"type": "text", "text": "ok"}}]}}}}"#
            ),
        ),
        // A page that is not JSON, with a secret and characters a terminal acts on.
        (
            json!({"Content-Type": "text/html"}),
            format!("<html>token={token} \u{202e}\u{7f}\u{2028}\u{1b}[31m</html>"),
        ),
    ];
    let mut seen = Seen::default();
    for (k, (headers, body)) in responses.into_iter().enumerate() {
        let file = json!({
            "name": format!("secret {k}"),
            "request": {
                "method": "POST",
                "url": "http://127.0.0.1:0/mcp",
                "headers": {"content-type": "application/json", "accept": "application/json"},
                "body": {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                         "params": {"name": "to\u{202e}ol", "arguments": {}}}
            },
            "response": {"status": 200, "headers": headers, "body": body},
        });
        let file = ExchangeFile::from_slice(&serde_json::to_vec(&file).unwrap()).unwrap();
        let ex = file.to_exchange().unwrap();
        compare_all(&ex, &format!("secret {k} \u{202e}"), &mut seen);
    }
    assert!(seen.redacted > 0, "nothing was redacted");
    assert!(seen.errors > 0, "no error compared");
}
