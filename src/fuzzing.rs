//! Entry points of the fuzz targets (`fuzz/fuzz_targets/*.rs`), shared with the test that
//! replays the fuzz corpora: each takes arbitrary bytes, drives one reader or the judge the way
//! the command line does, renders what it produced, and checks the invariants its types
//! document. Bad input may be rejected (`Err` with the message a user would see); it must never
//! panic, hang or exhaust memory. Not part of the supported interface.

use serde_json::{Value, json};

use crate::inputs::har;
use crate::judge::{DEFAULT_MAX_FINDINGS_PER_RULE, JudgeError, Judgement, Options, judge};
use crate::outputs::{self, Style, safe};
use crate::run::stream::{JsonlOptions, run as run_stream};
use crate::views::{JudgementOut, VerdictOut};
use crate::vocab::Protocol;
use crate::wire::exchange::{BodyEnd, Exchange, ExchangeFile, Headers};
use crate::wire::sse;

/// What an entry point made of its input: how many items it accepted (exchanges judged, events
/// dispatched, requests parsed), or the message it rejected the input with.
pub type Replay = Result<usize, String>;

/// Every revision this build judges.
const ALL: &[Protocol] = &[Protocol::V2025_11_25, Protocol::V2026_07_28];

/// Renders a judgement as `classify` does (JSON and text) and checks the JSON is JSON.
fn render(judgement: &Judgement<'_>, label: &str) {
    let out = JudgementOut::of(judgement, Some(label.to_string()));
    let doc = safe::json(serde_json::to_string_pretty(&out).expect("verdicts serialize"));
    let parsed: Value = serde_json::from_str(&doc).expect("the JSON view is JSON");
    assert!(parsed.is_object(), "the JSON view is an object");
    for v in &judgement.verdicts {
        serde_json::to_string(&VerdictOut::of(v)).expect("a verdict serializes");
    }
    let text = outputs::verdict::judgement(judgement, label, Style::default());
    assert!(!text.is_empty(), "the text view says something");
}

/// A judgement as its JSON view, for comparing two.
fn view(j: &Judgement<'_>) -> String {
    serde_json::to_string(&JudgementOut::of(j, None)).unwrap()
}

/// Judging with the cap applied as the checks run (`judge_capped`, as the command line does)
/// gives what judging and capping afterwards gave.
fn same_as_capped(ex: &Exchange, options: &Options<'_>, capped_after: &Judgement<'_>) {
    let capped = crate::judge::judge_capped(ex, options, DEFAULT_MAX_FINDINGS_PER_RULE)
        .expect("judged before, so judged again");
    assert_eq!(
        view(&capped),
        view(capped_after),
        "capping as judged changes nothing"
    );
}

/// The judgement of a body read onto a tape is the one of the same body parsed on reading
/// ([`crate::wire::analysis::Analysis::parsed`]).
fn same_as_parsed(ex: &Exchange, protocol: Protocol, on_tape: &Judgement<'_>) {
    let parsed = crate::wire::analysis::Analysis::parsed(ex);
    let by_value = crate::wire::deep::on_stack_for(parsed.nesting_depth(), move || {
        let verdicts = vec![crate::judge::evaluate(
            &parsed,
            protocol,
            crate::Engine::builtin(),
        )];
        drop(parsed);
        Judgement { verdicts }
    });
    assert_eq!(
        view(on_tape),
        view(&by_value),
        "judged on the tape as on the parsed body"
    );
}

/// `classify FILE`: an exchange file read, judged under the revisions it names (under every
/// revision when it names none), and rendered.
pub fn exchange_file(bytes: &[u8]) -> Replay {
    let file = ExchangeFile::from_slice(bytes).map_err(|e| e.to_string())?;
    for p in ALL {
        let _ = file.expectation(*p);
    }
    let _ = file.unknown_expect_keys();
    let ex = file.into_exchange().map_err(|e| e.to_string())?;
    let mut options = Options::default();
    let mut judgement = match judge(&ex, &options) {
        Ok(j) => j,
        Err(JudgeError::UnknownRevision) => {
            options.protocols = Some(ALL);
            judge(&ex, &options).expect("named revisions are always judged")
        }
        Err(e) => return Err(e.to_string()),
    };
    assert!(!judgement.verdicts.is_empty(), "a judgement has a verdict");
    judgement.cap_findings(DEFAULT_MAX_FINDINGS_PER_RULE);
    same_as_capped(&ex, &options, &judgement);
    render(&judgement, "exchange.json");
    Ok(judgement.verdicts.len())
}

/// The SSE parser: the whole input at once, and the same input fed in chunks (sizes chosen by
/// the first byte), must agree; every event's offsets lie within its span.
pub fn sse(bytes: &[u8]) -> Replay {
    let whole = sse::parse(bytes);
    let step = usize::from(bytes.first().copied().unwrap_or(0) % 13) + 1;
    // Fed in chunks, the events either left in the parser or taken as they come (as the
    // analysis reads a stream).
    for take in [false, true] {
        let mut parser = sse::Parser::new();
        let mut taken = Vec::new();
        let mut rest = bytes;
        let mut size = step;
        while !rest.is_empty() {
            let n = size.min(rest.len());
            parser.feed(&rest[..n]);
            if take {
                taken.extend(parser.take_events());
            }
            rest = &rest[n..];
            // Sizes cycle through 1..=3*step so that chunk ends fall everywhere.
            size = size % (3 * step) + 1;
        }
        let mut chunked = parser.finish();
        taken.append(&mut chunked.events);
        chunked.events = taken;
        assert_eq!(
            whole, chunked,
            "parsing in chunks gives what parsing at once gives"
        );
    }
    assert_eq!(whole.len, bytes.len(), "the input length is counted");
    for (i, ev) in whole.events.iter().enumerate() {
        assert_eq!(ev.index, i, "events are numbered in order");
        assert!(!ev.data.is_empty(), "a dispatched event has data");
        assert!(
            ev.start < ev.end && ev.end <= bytes.len(),
            "an event lies in the input"
        );
        let mut last = ev.start;
        let probes = ev.data.len().min(64);
        for k in 0..=probes {
            let off = ev.input_offset(ev.data.len() * k / probes.max(1));
            assert!(
                off >= last && off < ev.end,
                "offsets are non-decreasing and inside the event"
            );
            last = off;
        }
    }
    Ok(whole.events.len())
}

/// `classify --har`: a HAR capture read, its tools/call entries judged, and the report
/// rendered (JSON and text).
pub fn har(bytes: &[u8]) -> Replay {
    let capture = har::read(bytes).map_err(|e| e.to_string())?;
    let report =
        crate::run::har::judge_capped(&capture, &Options::default(), DEFAULT_MAX_FINDINGS_PER_RULE);
    assert_eq!(
        report.results.len(),
        capture.entries.len(),
        "one result per entry"
    );
    let view = outputs::har::view(&report, "capture.har");
    let doc = safe::json(serde_json::to_string_pretty(&view).expect("reports serialize"));
    serde_json::from_str::<Value>(&doc).expect("the JSON report is JSON");
    let text = outputs::har::text(&report, "capture.har", Style::default());
    assert!(!text.is_empty(), "the text report says something");
    let _ = report.summary.nothing_judged();
    Ok(report.summary.judged)
}

/// `classify --jsonl`: the input as a stream of JSON Lines, judged on one worker; one JSON record
/// per non-blank line, and none of them the record of an engine panic.
pub fn jsonl(bytes: &[u8]) -> Replay {
    let options = JsonlOptions {
        threads: 1,
        max_in_flight: 4,
        max_line_bytes: 1 << 20,
        ..JsonlOptions::default()
    };
    let mut out = Vec::new();
    let summary = run_stream(bytes, &mut out, &options, &outputs::jsonl::JsonLines)
        .map_err(|e| e.to_string())?;
    let text = std::str::from_utf8(&out).expect("records are UTF-8");
    let mut records = 0;
    for line in text.lines() {
        let record: Value = serde_json::from_str(line).expect("each record is JSON");
        let error = record.get("error").and_then(Value::as_str).unwrap_or("");
        assert!(
            !error.starts_with("internal error"),
            "a line made the engine fail: {error}"
        );
        records += 1;
    }
    assert_eq!(
        records,
        summary.lines - summary.blank,
        "one record per non-blank line"
    );
    assert_eq!(
        records,
        summary.judged + summary.errors,
        "every record counted"
    );
    Ok(summary.judged)
}

/// The judge on arbitrary response bytes under one revision. The first byte chooses the
/// response's framing (JSON or SSE), how the body ended, the status, the request id's type and
/// whether the tool declares an output schema; the rest is the body. The verdict must be the
/// one of the body parsed on reading rather than read onto a tape.
pub fn judge_body(protocol: Protocol, bytes: &[u8]) -> Replay {
    let (sel, body) = match bytes.split_first() {
        Some((s, b)) => (*s, b),
        None => (0, bytes),
    };
    let content_type = if sel & 1 == 0 {
        "application/json"
    } else {
        "text/event-stream"
    };
    let end = match (sel >> 1) & 3 {
        1 => BodyEnd::Reset,
        2 => BodyEnd::Timeout,
        _ => BodyEnd::Complete,
    };
    let status = [200, 200, 202, 400, 404, 500, 200, 429][usize::from((sel >> 3) & 7)];
    let id = if sel & 0x40 == 0 {
        json!(1)
    } else {
        json!("call-1")
    };
    let version = protocol.as_str();
    let request = json!({
        "jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": "echo", "arguments": {"text": "hi"},
                   "_meta": {"io.modelcontextprotocol/protocolVersion": version}}
    });
    let mut request_headers = vec![
        ("Content-Type", "application/json"),
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", version),
    ];
    if protocol == Protocol::V2026_07_28 {
        request_headers.push(("Mcp-Method", "tools/call"));
        request_headers.push(("Mcp-Name", "echo"));
    }
    let mut builder =
        Exchange::builder(status, Headers::new([("Content-Type", content_type)]), body)
            .request(request)
            .request_headers(Headers::new(request_headers))
            .request_line("POST", "http://127.0.0.1:8931/mcp")
            .end(end);
    if sel & 0x80 != 0 {
        builder = builder.tool(json!({
            "name": "echo", "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object", "properties": {"text": {"type": "string"}},
                             "required": ["text"]},
            "annotations": {"idempotentHint": true}
        }));
    }
    let ex = builder.build();
    let protocols = [protocol];
    let options = Options {
        protocols: Some(&protocols),
        ..Options::default()
    };
    let mut judgement = judge(&ex, &options).expect("a named revision is always judged");
    assert_eq!(judgement.verdicts.len(), 1, "one verdict per revision");
    assert_eq!(judgement.verdicts[0].protocol, protocol, "judged as asked");
    same_as_parsed(&ex, protocol, &judgement);
    judgement.cap_findings(DEFAULT_MAX_FINDINGS_PER_RULE);
    same_as_capped(&ex, &options, &judgement);
    render(&judgement, "response");
    Ok(1)
}

/// The decoder of a large `response.body` literal (`wire::jsonstr`, written by hand) against
/// `serde_json`: the bytes (lossily decoded), as they are and between quotes, must decode to
/// what `serde_json` reads from the same literal, or be refused where it refuses.
pub fn json_string(bytes: &[u8]) -> Replay {
    let text = String::from_utf8_lossy(bytes);
    let mut decoded = 0;
    for literal in [text.to_string(), format!("\"{text}\"")] {
        let mine = crate::wire::jsonstr::decode(&literal);
        let delimited = literal.len() >= 2 && literal.starts_with('"') && literal.ends_with('"');
        if delimited {
            let theirs = serde_json::from_str::<String>(&literal).ok();
            assert_eq!(mine, theirs, "{literal:?}");
        } else {
            assert_eq!(mine, None, "{literal:?} is no literal");
        }
        decoded += usize::from(mine.is_some());
    }
    if decoded == 0 {
        return Err("neither the bytes nor the bytes quoted are a JSON string literal".into());
    }
    Ok(decoded)
}

/// The definitions the `tape` target checks, per revision (every one the schema has).
static DEFINITIONS: std::sync::LazyLock<Vec<(Protocol, String)>> = std::sync::LazyLock::new(|| {
    ALL.iter()
        .flat_map(|&p| {
            let root: Value =
                serde_json::from_str(crate::schema::source(p)).expect("shipped schema");
            let names: Vec<String> = root["$defs"]
                .as_object()
                .map(|d| d.keys().cloned().collect())
                .unwrap_or_default();
            names.into_iter().map(move |n| (p, n))
        })
        .collect()
});

/// The tape reader (`wire::tape`) against `serde_json` on the same text: what the tape reads,
/// `serde_json` reads to the same value, and the tape compares with a `Value` as `serde_json`'s
/// equality does. The fast schema check walking the tape gives what it gives on that value, for
/// `CallToolResult` and for a definition the input's length picks.
pub fn tape(bytes: &[u8]) -> Replay {
    use crate::wire::tape::{Node, Tape};
    let text = std::str::from_utf8(bytes).map_err(|e| e.to_string())?;
    let Some(t) = Tape::read(text) else {
        return Err("not read onto a tape".into());
    };
    let theirs: Value = serde_json::from_str(text)
        .unwrap_or_else(|e| panic!("the tape read what serde_json refuses ({e}): {text:?}"));
    let value = t.root().to_value();
    assert_eq!(value, theirs, "{text:?}");
    // The tape compares with a `Value` as `serde_json` does: equal to its own read, and to the
    // first children of the root as their reads are (most differ).
    assert!(t.root().equals(&theirs), "{text:?}");
    let root = t.root();
    let children: Vec<(Node<'_, '_>, Value)> = root
        .items()
        .chain(root.members().map(|(_, v)| v))
        .take(8)
        .map(|n| (n, n.to_value()))
        .collect();
    for (a, a_value) in &children {
        for (_, b) in &children {
            assert_eq!(a.equals(b), a_value == b, "{text:?}");
        }
    }
    let defs = &*DEFINITIONS;
    let mut checked = 0;
    for (p, name) in [
        (Protocol::V2026_07_28, "CallToolResult"),
        (
            defs[text.len() % defs.len()].0,
            &*defs[text.len() % defs.len()].1,
        ),
    ] {
        let Some(fast) = crate::schema::for_revision(p).fast(name) else {
            continue;
        };
        for (at_tape, at_value) in [
            (Some(t.root()), Some(&value)),
            (t.root().get("result"), value.get("result")),
        ] {
            let (Some(n), Some(v)) = (at_tape, at_value) else {
                continue;
            };
            assert_eq!(
                fast.is_valid_tape(n),
                fast.is_valid(v),
                "{p} {name}: {text:?}"
            );
            checked += 1;
        }
    }
    Ok(checked)
}

/// `serve`'s request parser on the bytes a client sent: requests are parsed one after the other
/// (pipelining) until the bytes run out or one is rejected.
#[cfg(feature = "serve")]
pub fn serve_request(bytes: &[u8]) -> Replay {
    use crate::serve::http::{Parse, parse_request};
    let mut rest = bytes;
    let mut parsed = 0;
    loop {
        match parse_request(rest) {
            Parse::Request(req, used) => {
                assert!(used > 0 && used <= rest.len(), "a request takes some bytes");
                assert!(used >= req.body.len(), "the body is part of what was taken");
                let _ = req.wants_keep_alive();
                let _ = req.header("content-type");
                let _ = req.header_bytes("mcp-session-id");
                rest = &rest[used..];
                parsed += 1;
            }
            Parse::Partial => return Ok(parsed),
            Parse::Reject(status, why) => {
                assert!((400..500).contains(&status), "a rejection is a 4xx");
                return if parsed == 0 {
                    Err(format!("{status} {why}"))
                } else {
                    Ok(parsed)
                };
            }
        }
    }
}
