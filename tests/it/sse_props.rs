//! Property tests for `mcp_verdict::wire::sse`.
//!
//! 1. Chunking: any split of the input fed to `Parser` gives the same
//!    `Parsed` as one-shot `parse`, and the events `feed` returns add up to
//!    `Parsed::events`.
//! 2. Robustness: no input panics; offsets stay inside the input, spans are
//!    ordered and disjoint, `input_offset` is monotonic and points at the
//!    bytes the data came from, `invalid_utf8_at` matches `str::from_utf8`.
//! 3. Round trip: events written by a simple writer (random line endings,
//!    random comments, optional BOM) parse back to the same data, type and id.

use mcp_verdict::wire::sse::{Event, Parsed, Parser, SkipKind, parse};
use proptest::prelude::*;
use proptest::sample::Index;

const BOM: &[u8] = b"\xEF\xBB\xBF";

// ---------------------------------------------------------------- inputs

/// Bytes drawn from an alphabet rich in SSE syntax, BOM and UTF-8 pieces.
fn alphabet_bytes() -> impl Strategy<Value = Vec<u8>> {
    const ALPHABET: &[u8] = &[
        b'd', b'a', b't', b'i', b'e', b'v', b'n', b'r', b'y', b':', b' ', b'\r', b'\n', b'\r',
        b'\n', b'0', b'7', 0, 0xEF, 0xBB, 0xBF, 0xE2, 0x82, 0xAC, 0xC3, 0xA9, 0xFF, 0x80,
    ];
    prop::collection::vec(prop::sample::select(ALPHABET), 0..200)
}

fn line_ending() -> impl Strategy<Value = &'static [u8]> {
    prop::sample::select(vec![&b"\n"[..], b"\r", b"\r\n"])
}

/// A field value mixing ASCII, valid multi-byte characters and invalid or
/// truncated UTF-8 sequences.
fn messy_value() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop::sample::select(vec![
        &b"a"[..],
        b"{",
        b" ",
        b":",
        "\u{e9}".as_bytes(),
        "\u{20ac}".as_bytes(),
        "\u{1F600}".as_bytes(),
        "\u{FFFD}".as_bytes(),
        b"\xFF",
        b"\x80",
        b"\xE2\x82",
        b"\xF0\x9F\x98",
        b"\xC0\xAF",
        b"\xED\xA0\x80",
        b"\0",
    ]);
    prop::collection::vec(piece, 0..8).prop_map(|p| p.concat())
}

/// One SSE-like line (without line break).
fn sse_line() -> impl Strategy<Value = Vec<u8>> {
    let text = "[a-z0-9{}\":, \u{e9}\u{1F600}]{0,12}";
    prop_oneof![
        2 => messy_value().prop_map(|v| [&b"data: "[..], &v].concat()),
        1 => messy_value().prop_map(|v| [&b"event:"[..], &v].concat()),
        1 => messy_value().prop_map(|v| [&b"id: "[..], &v].concat()),
        4 => text.prop_map(|s| format!("data: {s}").into_bytes()),
        2 => text.prop_map(|s| format!("data:{s}").into_bytes()),
        1 => Just(b"data".to_vec()),
        1 => Just(b"data:".to_vec()),
        1 => Just(b"data: ".to_vec()),
        1 => "[a-z ]{0,6}".prop_map(|s| format!("event: {s}").into_bytes()),
        1 => "[a-z0-9-]{0,6}".prop_map(|s| format!("id: {s}").into_bytes()),
        1 => Just(b"id: a\0b".to_vec()),
        1 => Just(b"id".to_vec()),
        1 => "[0-9]{0,5}".prop_map(|s| format!("retry: {s}").into_bytes()),
        1 => "[0-9a-z -]{0,5}".prop_map(|s| format!("retry:{s}").into_bytes()),
        2 => "[ a-z]{0,6}".prop_map(|s| format!(":{s}").into_bytes()),
        1 => "[a-z]{1,6}(: [a-z]{0,4})?".prop_map(String::into_bytes),
        3 => Just(Vec::new()),
        1 => prop::collection::vec(any::<u8>(), 0..8),
    ]
}

/// Streams of SSE-like lines with mixed line breaks, an optional BOM and
/// an optionally truncated end.
fn sse_like() -> impl Strategy<Value = Vec<u8>> {
    (
        any::<bool>(),
        prop::collection::vec((sse_line(), line_ending()), 0..24),
        any::<Index>(),
        any::<bool>(),
    )
        .prop_map(|(bom, lines, cut, truncate)| {
            let mut out = if bom { BOM.to_vec() } else { Vec::new() };
            for (line, end) in lines {
                out.extend_from_slice(&line);
                out.extend_from_slice(end);
            }
            if truncate && !out.is_empty() {
                out.truncate(cut.index(out.len() + 1));
            }
            out
        })
}

fn any_input() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..200),
        alphabet_bytes(),
        sse_like(),
    ]
}

// ------------------------------------------------------------ helpers

/// Feeds `input` split at `cuts` (positions taken modulo the length).
fn feed_split(input: &[u8], cuts: &[Index]) -> (Parsed, Vec<Event>) {
    let mut points: Vec<usize> = cuts.iter().map(|c| c.index(input.len() + 1)).collect();
    points.push(0);
    points.push(input.len());
    points.sort_unstable();
    points.dedup();
    feed_at(input, &points)
}

fn feed_at(input: &[u8], points: &[usize]) -> (Parsed, Vec<Event>) {
    let mut parser = Parser::new();
    let mut returned = Vec::new();
    for w in points.windows(2) {
        returned.extend_from_slice(parser.feed(&input[w[0]..w[1]]));
    }
    (parser.finish(), returned)
}

/// The events `feed` returned are those of `parse`, except that one event
/// whose blank line is a CR ending the input is only dispatched by `finish`.
fn check_returned(input: &[u8], returned: &[Event], whole: &Parsed) {
    assert_eq!(returned, &whole.events[..returned.len()]);
    match &whole.events[returned.len()..] {
        [] => {}
        [last] => assert!(last.end == input.len() && input.ends_with(b"\r")),
        more => panic!("{} events not returned by feed", more.len()),
    }
}

fn check_invariants(input: &[u8], p: &Parsed) {
    assert_eq!(p.len, input.len());
    assert_eq!(p.bom, input.starts_with(BOM));
    let body = if p.bom { BOM.len() } else { 0 };
    assert_eq!(
        p.invalid_utf8_at,
        std::str::from_utf8(&input[body..])
            .err()
            .map(|e| body + e.valid_up_to())
    );

    let mut spans: Vec<(usize, usize)> = p
        .events
        .iter()
        .map(|e| (e.start, e.end))
        .chain(p.skipped_empty.iter().map(|s| (s.start, s.end)))
        .collect();
    for w in p.events.windows(2) {
        assert!(w[0].end <= w[1].start);
    }
    for w in p.skipped_empty.windows(2) {
        assert!(w[0].end <= w[1].start);
    }
    spans.sort_unstable();
    let mut last_end = body;
    for &(start, end) in &spans {
        assert!(last_end <= start && start < end && end <= input.len());
        // The span ends with its blank line's line break.
        assert!(matches!(input[end - 1], b'\n' | b'\r'));
        last_end = end;
    }

    for (i, e) in p.events.iter().enumerate() {
        assert_eq!(e.index, i);
        assert!(!e.data.is_empty());
        assert!(!e.event_type.is_empty());
        assert!(!e.data.contains('\r'));
        assert_eq!(e.data.matches('\n').count() + 1, e.data_lines);
        let mut prev = e.start;
        for d in 0..=e.data.len() {
            let at = e.input_offset(d);
            assert!(prev <= at && at < e.end, "offset {at} for {d} in {e:?}");
            prev = at;
        }
        for (d, c) in e.data.char_indices() {
            if c != '\n' && c != '\u{FFFD}' {
                let mut buf = [0; 4];
                let at = e.input_offset(d);
                assert!(input[at..].starts_with(c.encode_utf8(&mut buf).as_bytes()));
            }
        }
        assert_eq!(e.input_offset(usize::MAX), e.input_offset(e.data.len()));
    }
    for s in &p.skipped_empty {
        assert_eq!(s.is_priming(), s.kind == SkipKind::EmptyData && s.id_field);
    }

    if let Some(t) = &p.tail {
        assert!(last_end <= t.start && t.start < input.len());
        assert!(t.has_fields || t.partial_line.is_some());
        match &t.partial_line {
            Some(pl) => {
                assert!(t.start <= pl.start);
                assert_eq!(pl.end(), input.len());
                assert!(!pl.bytes.is_empty());
                assert_eq!(&input[pl.start..], &pl.bytes[..]);
                assert!(!pl.bytes.iter().any(|&b| b == b'\n' || b == b'\r'));
            }
            None => assert!(matches!(input.last(), Some(b'\n' | b'\r'))),
        }
    } else if !input.is_empty() && input.len() > body {
        // No tail: the input ends with a line break.
        assert!(matches!(input.last(), Some(b'\n' | b'\r')));
    }
}

// ----------------------------------------------------------- round trip

#[derive(Debug, Clone)]
struct GenEvent {
    data: String,
    event_type: Option<String>,
    id: Option<String>,
}

fn gen_event() -> impl Strategy<Value = GenEvent> {
    (
        prop_oneof![
            "[a-z0-9{}\":, \n]{0,24}",
            "\\PC{0,8}(\n\\PC{0,8}){0,3}",
            Just(String::new()),
        ],
        prop::option::of(prop_oneof!["[a-z/_.]{0,10}", " ?\\PC{0,6}"]),
        prop::option::of(prop_oneof!["[a-f0-9-]{0,12}", "\\PC{0,6}"]),
    )
        .prop_map(|(data, event_type, id)| GenEvent {
            data,
            event_type,
            id,
        })
}

/// Writes events as an event stream, drawing layout choices from `choices`.
fn write_stream(events: &[GenEvent], bom: bool, choices: &[u8]) -> Vec<u8> {
    let mut pick = choices.iter().copied().cycle();
    let mut out = if bom { BOM.to_vec() } else { Vec::new() };
    let line = |out: &mut Vec<u8>, text: &str, pick: &mut dyn Iterator<Item = u8>| {
        let c = pick.next().unwrap_or(0);
        if c.is_multiple_of(5) {
            out.extend_from_slice(b": keep-alive\r\n");
        }
        // An empty line ended by a lone LF right after a CR would merge with
        // it into one CRLF line break; end it with CRLF instead.
        let after_cr = out.last() == Some(&b'\r');
        out.extend_from_slice(text.as_bytes());
        out.extend_from_slice(match c % 3 {
            0 if text.is_empty() && after_cr => b"\r\n",
            0 => b"\n",
            1 => b"\r",
            _ => b"\r\n",
        });
    };
    for ev in events {
        let mut fields: Vec<String> = Vec::new();
        if let Some(id) = &ev.id {
            fields.push(format!("id: {id}"));
        }
        if let Some(t) = &ev.event_type {
            fields.push(format!("event: {t}"));
        }
        for l in ev.data.split('\n') {
            let c = pick.next().unwrap_or(0);
            if c.is_multiple_of(2) && !l.starts_with(' ') {
                fields.push(format!("data:{l}"));
            } else {
                fields.push(format!("data: {l}"));
            }
        }
        // Field order does not matter except among data lines.
        if pick.next().unwrap_or(0).is_multiple_of(2) {
            let data_start = fields.len() - ev.data.split('\n').count();
            fields[..data_start].reverse();
        }
        for f in &fields {
            line(&mut out, f, &mut pick);
        }
        line(&mut out, "", &mut pick);
    }
    out
}

// ------------------------------------------------------------ properties

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_chunking_matches_one_shot(
        input in any_input(),
        cuts in prop::collection::vec(any::<Index>(), 0..16),
    ) {
        let whole = parse(&input);
        let (split, returned) = feed_split(&input, &cuts);
        prop_assert_eq!(&split, &whole);
        check_returned(&input, &returned, &whole);
    }

    #[test]
    fn one_byte_chunks_match_one_shot(input in any_input()) {
        let whole = parse(&input);
        let points: Vec<usize> = (0..=input.len()).collect();
        let (split, returned) = feed_at(&input, &points);
        prop_assert_eq!(&split, &whole);
        check_returned(&input, &returned, &whole);
    }

    #[test]
    fn never_panics_and_offsets_are_sane(input in any_input()) {
        check_invariants(&input, &parse(&input));
    }

    #[test]
    fn round_trip(
        events in prop::collection::vec(gen_event(), 0..8),
        bom in any::<bool>(),
        choices in prop::collection::vec(any::<u8>(), 1..32),
        cuts in prop::collection::vec(any::<Index>(), 0..8),
    ) {
        let input = write_stream(&events, bom, &choices);
        let p = parse(&input);
        check_invariants(&input, &p);
        prop_assert_eq!(p.tail.as_ref(), None);
        prop_assert_eq!(p.bom, bom);
        prop_assert_eq!(p.unknown_fields, 0);
        prop_assert_eq!(p.invalid_utf8_at, None);

        let mut last_id = String::new();
        let mut expected = Vec::new();
        let mut expected_skipped = 0;
        for ev in &events {
            if let Some(id) = &ev.id {
                last_id.clone_from(id);
            }
            if ev.data.is_empty() {
                expected_skipped += 1;
            } else {
                let t = ev.event_type.clone().filter(|t| !t.is_empty());
                expected.push((
                    ev.data.clone(),
                    t.clone().unwrap_or_else(|| "message".into()),
                    t.is_some(),
                    last_id.clone(),
                    ev.id.is_some(),
                ));
            }
        }
        let got: Vec<_> = p
            .events
            .iter()
            .map(|e| {
                (
                    e.data.clone(),
                    e.event_type.to_string(),
                    e.explicit_type,
                    e.last_event_id.clone(),
                    e.id_field,
                )
            })
            .collect();
        prop_assert_eq!(got, expected);
        prop_assert_eq!(p.skipped_empty.len(), expected_skipped);
        prop_assert!(p.skipped_empty.iter().all(|s| s.kind == SkipKind::EmptyData));
        prop_assert_eq!(&p.last_event_id, &last_id);

        let (split, _) = feed_split(&input, &cuts);
        prop_assert_eq!(split, p);
    }
}
