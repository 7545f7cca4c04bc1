//! One verdict for the same bytes: every fixture that answers with a JSON body is judged again
//! with that body sent as the one event of an SSE stream (its twin), and both must reach the
//! same outcome with the same findings, apart from the rules that judge one framing only (how
//! a JSON body or an event stream is put together).
//!
//! A JSON body that is itself a request or a notification (it has `method`) has no twin: on a
//! stream such a message is one the server may send before its response, so the stream then
//! ended before the response, which is not what the same object as a whole body means.

use mcp_verdict::{BodyEnd, Exchange, ExchangeFile, Headers};
use serde_json::Value;

use crate::support::corpus::fixture_files;
use crate::support::judge::judge_under;
use crate::support::twins::{differences, has_json_body_twin};

/// Rules about the framing itself: they exist for JSON bodies or for event streams only.
fn framing_only(rule: &str) -> bool {
    rule.starts_with("transport.sse.")
        || matches!(
            rule,
            "jsonrpc.message.well-formed"
                | "transport.json.single-object"
                | "transport.body.cut-off"
                | "transport.http.response-content-type"
        )
}

/// The body's lines as the `data` lines of one event; the blank line that dispatches the event
/// is sent unless the body was cut off (it ended early and is not whole JSON), so that a cut
/// body stays a cut event.
fn sse_twin_body(body: &[u8], end: BodyEnd) -> Vec<u8> {
    let mut out = b"event: message\n".to_vec();
    let text = body.to_vec();
    let mut line = Vec::new();
    let mut lines = Vec::new();
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            b'\r' | b'\n' => {
                if text[i] == b'\r' && text.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                lines.push(std::mem::take(&mut line));
            }
            b => line.push(b),
        }
        i += 1;
    }
    lines.push(line);
    for l in lines {
        out.extend_from_slice(b"data: ");
        out.extend_from_slice(&l);
        out.push(b'\n');
    }
    let whole = serde_json::from_slice::<Value>(body).is_ok();
    if end == BodyEnd::Complete || whole {
        out.push(b'\n');
    }
    out
}

/// The exchange with its JSON body sent as an event stream; `None` when it has no twin.
fn twin(ex: &Exchange) -> Option<Exchange> {
    if !has_json_body_twin(ex) {
        return None;
    }
    let mut headers = Headers::new(
        ex.response_headers
            .iter()
            .filter(|(n, _)| {
                !n.eq_ignore_ascii_case("Content-Type") && !n.eq_ignore_ascii_case("Content-Length")
            })
            .map(|(n, v)| (n.to_string(), v.to_string())),
    );
    headers.push("Content-Type", "text/event-stream");
    headers.push("X-Accel-Buffering", "no");
    let mut t = ex.clone();
    t.response_headers = headers;
    t.body = sse_twin_body(&ex.body, ex.end);
    Some(t)
}

#[test]
fn every_json_body_fixture_gets_the_same_verdict_as_its_sse_twin() {
    let mut twins = 0;
    let mut problems = Vec::new();
    for path in fixture_files() {
        let file = ExchangeFile::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let ex = file.to_exchange().unwrap();
        let Some(t) = twin(&ex) else {
            continue;
        };
        twins += 1;
        let revs = mcp_verdict::judge::revisions_of(&ex).unwrap();
        let (a, b) = (judge_under(&ex, &revs), judge_under(&t, &revs));
        for (va, vb) in a.verdicts.iter().zip(&b.verdicts) {
            let name = format!("{} [{}]", path.display(), va.protocol);
            problems.extend(differences(
                &name,
                (va, "JSON body"),
                (vb, "SSE twin"),
                framing_only,
            ));
        }
    }
    assert!(twins >= 100, "only {twins} JSON-body fixtures found");
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn a_twin_keeps_the_bytes_and_a_cut_body_stays_cut() {
    let whole = sse_twin_body(b"{\"a\":\n1}", BodyEnd::Complete);
    assert_eq!(whole, b"event: message\ndata: {\"a\":\ndata: 1}\n\n");
    let cut = sse_twin_body(b"{\"a\":1", BodyEnd::Reset);
    assert_eq!(cut, b"event: message\ndata: {\"a\":1\n");
    let parsed = mcp_verdict::wire::sse::parse(&whole);
    assert_eq!(parsed.events[0].data, "{\"a\":\n1}");
}
