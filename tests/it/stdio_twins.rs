//! One verdict for the same message over either transport: every fixture that answers a request
//! with a 2xx JSON body is judged again with that body written by a stdio server as its one
//! stdout line (its stdio twin), and both must reach the same outcome, decided by the same rule
//! unless the deciding rule judges one binding's framing, with the same findings apart from the
//! rules of one binding (HTTP status and headers, request headers, SSE, stdio lines).
//!
//! The twin writes the body on one line: a body's raw newlines can only be JSON whitespace, so a
//! body that parses is written with each of them as a space (the same JSON); a body that does
//! not parse and holds a newline has no twin. A body cut off by a reset or timeout before it was
//! whole JSON is written without its newline by a server that then exits. A JSON body that is itself a request or a
//! notification has no twin (on stdout it is a message the server sends beside its response).

use mcp_verdict::{BodyEnd, Exchange, ExchangeFile, ExitStatus, StdioEnd, Verdict};
use serde_json::Value;

use crate::support::corpus::fixture_files;
use crate::support::judge::judge_under;
use crate::support::twins::{differences, has_json_body_twin};

/// Rules about one binding: HTTP status and headers, the request's headers, a JSON body's or an
/// SSE stream's framing, stdio lines.
fn one_binding(rule: &str) -> bool {
    ["transport.", "http.", "request."]
        .iter()
        .any(|p| rule.starts_with(p))
}

/// The body as one stdout line, or `None` when it has no stdio twin.
fn stdout_of(body: &[u8], end: BodyEnd) -> Option<(Vec<u8>, StdioEnd)> {
    let parses = serde_json::from_slice::<Value>(body).is_ok();
    let mut line: Vec<u8> = body.to_vec();
    if line.iter().any(|b| matches!(b, b'\n' | b'\r')) {
        if !parses {
            return None;
        }
        for b in &mut line {
            if matches!(*b, b'\n' | b'\r') {
                *b = b' ';
            }
        }
    }
    // A body cut off before it was whole JSON is cut on stdout too: no newline, and the
    // process is gone; a whole one was delimited before the end.
    if end == BodyEnd::Complete || parses {
        line.push(b'\n');
    }
    let end = match end {
        BodyEnd::Complete => StdioEnd::Eof,
        BodyEnd::Reset | BodyEnd::Timeout => StdioEnd::Exit,
    };
    Some((line, end))
}

/// The exchange with its JSON body written on stdout; `None` when it has no twin.
fn twin(ex: &Exchange, revisions: &[mcp_verdict::Protocol]) -> Option<Exchange> {
    if !has_json_body_twin(ex) || ex.request.body.is_none() {
        return None;
    }
    let (stdout, end) = stdout_of(&ex.body, ex.end)?;
    let mut b = Exchange::stdio(stdout)
        .request(ex.request.body.clone()?)
        .stdio_end(end)
        .protocols(revisions.to_vec());
    if end == StdioEnd::Exit {
        b = b.exit(ExitStatus::signal(9));
    }
    if let Some(t) = &ex.tool {
        b = b.tool(t.clone());
    }
    if let Some(i) = &ex.initialize {
        b = b.initialize(i.clone());
    }
    if let Some(r) = &ex.retry {
        b = b.retry(r.clone());
    }
    if let Some(s) = &ex.server {
        b = b.server(s.clone());
    }
    Some(b.build())
}

fn decided(v: &Verdict<'_>) -> Option<String> {
    v.decided_by
        .map(|a| v.table().rule_of(a).id.clone())
        .filter(|id| !one_binding(id))
}

#[test]
fn every_json_body_fixture_gets_the_same_verdict_as_its_stdio_twin() {
    let mut twins = 0;
    let mut problems = Vec::new();
    for path in fixture_files() {
        let file = ExchangeFile::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let ex = file.to_exchange().unwrap();
        let revs = mcp_verdict::judge::revisions_of(&ex).unwrap();
        let Some(t) = twin(&ex, &revs) else {
            continue;
        };
        twins += 1;
        let (a, b) = (judge_under(&ex, &revs), judge_under(&t, &revs));
        for (va, vb) in a.verdicts.iter().zip(&b.verdicts) {
            let name = format!("{} [{}]", path.display(), va.protocol);
            // An HTTP-only outcome (a status, a media type) has no stdio counterpart.
            if va.decided_by.is_some_and(|d| {
                let id = &va.table().rule_of(d).id;
                id.starts_with("transport.http.") || id.starts_with("http.")
            }) {
                continue;
            }
            problems.extend(differences(
                &name,
                (va, "JSON body"),
                (vb, "stdio twin"),
                one_binding,
            ));
            let (da, db) = (decided(va), decided(vb));
            if da.is_some() && db.is_some() && da != db {
                problems.push(format!(
                    "{name}: decided by {da:?} over HTTP, by {db:?} over stdio"
                ));
            }
        }
    }
    assert!(twins >= 100, "only {twins} JSON-body fixtures found");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_twin_keeps_the_json_and_a_cut_body_stays_cut() {
    let (line, end) = stdout_of(b"{\"a\":\r\n 1}", BodyEnd::Complete).unwrap();
    assert_eq!(line, b"{\"a\":   1}\n");
    assert_eq!(end, StdioEnd::Eof);
    let (line, end) = stdout_of(b"{\"a\":1", BodyEnd::Reset).unwrap();
    assert_eq!(line, b"{\"a\":1");
    assert_eq!(end, StdioEnd::Exit);
    let (line, _) = stdout_of(b"{\"a\":1}", BodyEnd::Reset).unwrap();
    assert_eq!(line, b"{\"a\":1}\n");
    assert_eq!(stdout_of(b"{\"a\":\n", BodyEnd::Complete), None);
}
