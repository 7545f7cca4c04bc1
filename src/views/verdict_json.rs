//! The `classify --format json` document and the `classify --jsonl` record, written straight
//! from a judgement: byte for byte `serde_json::to_string(&JudgementOut::of(..))`
//! (tests/it/verdict_bytes.rs holds the two to the same bytes over the fixture corpus, under
//! each revision and both, with secrets to redact and findings capped).
//!
//! Written by hand for what every verdict has (its frame, summary, citations, findings and
//! retry advice), because serde's machinery cost a full record of the compare stream about a
//! third of writing it: every key escaped as if it could hold a quote, every string scanned a
//! byte at a time. Here keys are constants, strings are scanned eight bytes at a time, and a
//! rule's citation is its pre-serialised JSON. What only some verdicts have, and the facts
//! (thirty-odd optional members), are still serialised by serde into the same buffer.

use serde::Serialize;

use super::redact;
use super::verdict::{AdjustmentOut, CiteRole, OmittedOut, shown_facts};
use crate::judge::{Judgement, Verdict};
use crate::rules::ActiveJson;
use crate::vocab::pointer::json_path;

/// `serde_json::to_string(&JudgementOut::of(j, exchange))`, byte for byte, without building
/// the [`JudgementOut`](super::JudgementOut): the verdicts are written from the judgement where
/// they lie, each citation as the JSON its rule holds (the rule's pre-serialised fragments),
/// with the same redaction. Like the `JudgementOut`, the text is not yet made terminal-safe
/// ([`crate::outputs::safe::json`]).
pub fn judgement_json(j: &Judgement<'_>, exchange: Option<&str>) -> String {
    judgement(j, exchange, None)
}

/// [`judgement_json`] with the exchange's line number first, `{"line": N, ...}`: a judged
/// line's record in `classify --jsonl`.
pub fn judgement_json_line(line: usize, j: &Judgement<'_>, exchange: Option<&str>) -> String {
    judgement(j, exchange, Some(line))
}

/// The compact JSON of `JudgementOut::of(j, exchange)`, with `"line": N` first when given.
fn judgement(j: &Judgement<'_>, exchange: Option<&str>, line: Option<usize>) -> String {
    let mut out = Out(Vec::with_capacity(1024 * j.verdicts.len().max(1)));
    out.raw("{");
    if let Some(line) = line {
        out.raw("\"line\":");
        out.usize(line);
        out.raw(",");
    }
    if let Some(exchange) = exchange {
        out.raw("\"exchange\":");
        out.str(exchange);
        out.raw(",");
    }
    out.raw("\"verdicts\":[");
    for (i, v) in j.verdicts.iter().enumerate() {
        if i > 0 {
            out.raw(",");
        }
        verdict(&mut out, v);
    }
    out.raw("],\"differences\":");
    out.serde(&j.differences());
    out.raw("}");
    String::from_utf8(out.0).expect("the record is written from text")
}

/// One verdict, as `VerdictOut::of(v)` serialises.
fn verdict(out: &mut Out, v: &Verdict<'_>) {
    let table = v.table();
    out.raw("{\"protocol\":");
    out.str(v.protocol.as_str());
    out.raw(",\"outcome\":");
    out.str(v.outcome.as_str());
    out.raw(",\"layer\":");
    out.str(v.layer().into());
    out.raw(",\"summary\":");
    out.str(&redact::text(&v.summary()));

    out.raw(",\"cites\":[");
    let cited = v
        .decided_by
        .iter()
        .map(|&a| (a, CiteRole::Decided))
        .chain(v.defaults.iter().map(|&a| (a, CiteRole::Default)))
        .chain(v.context.iter().map(|&a| (a, CiteRole::Context)));
    for (i, (a, role)) in cited.enumerate() {
        if i > 0 {
            out.raw(",");
        }
        out.raw(ActiveJson::of(&table.rule_of(a).id, a).cite(role).get());
    }

    out.raw("],\"defaults\":[");
    let defaults = v
        .defaults
        .iter()
        .filter_map(|a| Some((a, a.default.as_ref()?)));
    for (i, (a, d)) in defaults.enumerate() {
        let json = ActiveJson::of(&table.rule_of(a).id, a);
        out.raw(if i > 0 { ",{\"rule\":" } else { "{\"rule\":" });
        out.raw(json.id.get());
        out.raw(",\"field\":");
        out.str(&d.field);
        out.raw(",\"value\":");
        out.serde(&d.value);
        out.raw(",\"url\":");
        out.raw(json.url.get());
        out.raw("}");
    }

    out.raw("],\"findings\":[");
    for (i, f) in v.findings.iter().enumerate() {
        let json = ActiveJson::of(&f.rule.id, f.active);
        out.raw(if i > 0 { ",{\"rule\":" } else { "{\"rule\":" });
        out.raw(json.id.get());
        out.raw(",\"severity\":");
        out.str(f.severity.into());
        out.raw(",\"level\":");
        out.str(f.active.level.into());
        out.raw(",\"layer\":");
        out.str(f.rule.layer.into());
        out.raw(",\"pointer\":");
        out.str(&f.pointer);
        out.raw(",\"path\":");
        out.str(&json_path(&f.pointer));
        if let Some(event) = f.event {
            out.raw(",\"event\":");
            out.usize(event);
        }
        if let Some(line) = f.line {
            out.raw(",\"line\":");
            out.usize(line);
        }
        out.raw(",\"message\":");
        out.str(&redact::text(&f.message));
        out.raw(",\"url\":");
        out.raw(json.url.get());
        out.raw("}");
    }
    out.raw("]");

    if !v.omitted.is_empty() {
        out.raw(",\"omitted\":");
        out.serde(&v.omitted.iter().map(OmittedOut::of).collect::<Vec<_>>());
    }
    out.raw(",\"facts\":");
    out.serde(&*shown_facts(&v.facts));
    if !v.notes.is_empty() {
        out.raw(",\"notes\":[");
        for (i, n) in v.notes.iter().enumerate() {
            if i > 0 {
                out.raw(",");
            }
            out.str(&redact::text(n));
        }
        out.raw("]");
    }
    if !v.adjustments.is_empty() {
        out.raw(",\"settings\":");
        out.serde(
            &v.adjustments
                .iter()
                .map(AdjustmentOut::of)
                .collect::<Vec<_>>(),
        );
    }

    let retry = crate::advice::advise(v, &crate::advice::RetryPolicy::default());
    out.raw(",\"retry\":{\"action\":");
    out.str(retry.action.as_ref());
    out.raw(",\"replay\":");
    out.bool(retry.replay);
    out.raw(",\"replay_safety\":");
    out.serde(&retry.replay_safety);
    if !retry.backoff_ms.is_empty() {
        out.raw(",\"backoff_ms\":[");
        for (i, ms) in retry.backoff_ms.iter().enumerate() {
            if i > 0 {
                out.raw(",");
            }
            out.u64(*ms);
        }
        out.raw("]");
    }
    out.raw(",\"jitter\":");
    out.bool(retry.jitter);
    if let Some(ms) = retry.wait_ms {
        out.raw(",\"wait_ms\":");
        out.u64(ms);
    }
    out.raw(",\"new_request_id\":");
    out.bool(retry.new_request_id);
    out.raw(",\"detail\":");
    out.str(&redact::text(&retry.detail));
    out.raw(",\"cites\":[");
    for (i, c) in retry.cites.iter().enumerate() {
        out.raw(if i > 0 { ",{\"id\":" } else { "{\"id\":" });
        out.str(&c.id);
        out.raw(",\"url\":");
        out.str(&c.url);
        out.raw("}");
    }
    out.raw("]}}");
}

/// The record as it is written: text only ever appended whole.
struct Out(Vec<u8>);

impl Out {
    /// JSON text as it stands (punctuation, constant keys, pre-serialised JSON).
    fn raw(&mut self, s: &str) {
        self.0.extend_from_slice(s.as_bytes());
    }

    fn usize(&mut self, n: usize) {
        self.raw(itoa::Buffer::new().format(n));
    }

    fn u64(&mut self, n: u64) {
        self.raw(itoa::Buffer::new().format(n));
    }

    fn bool(&mut self, b: bool) {
        self.raw(if b { "true" } else { "false" });
    }

    /// `s` as a JSON string literal ([`push_json_str`]).
    fn str(&mut self, s: &str) {
        push_json_str(&mut self.0, s);
    }

    /// A value as `serde_json` writes it.
    fn serde<T: Serialize + ?Sized>(&mut self, value: &T) {
        serde_json::to_writer(&mut self.0, value).expect("views serialize");
    }
}

/// `s` as a JSON string literal, escaped exactly as `serde_json` escapes it: `"` and `\` with
/// a backslash, the control characters below U+0020 as `\b`, `\t`, `\n`, `\f`, `\r` or
/// `\u00xx` (lower-case hex), everything else as it is. The runs between escapes are found
/// eight bytes at a time.
pub(crate) fn push_json_str(out: &mut Vec<u8>, s: &str) {
    let b = s.as_bytes();
    out.reserve(b.len() + 2);
    out.push(b'"');
    let mut i = 0;
    loop {
        let run = crate::wire::jsonstr::plain_run_end(b, i);
        out.extend_from_slice(&b[i..run]);
        let Some(&c) = b.get(run) else { break };
        match c {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            0x08 => out.extend_from_slice(b"\\b"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            0x0c => out.extend_from_slice(b"\\f"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(c >> 4)]);
                out.push(HEX[usize::from(c & 0xf)]);
            }
        }
        i = run + 1;
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    use super::push_json_str;

    fn escaped(s: &str) -> String {
        let mut out = Vec::new();
        push_json_str(&mut out, s);
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        // Every ASCII character alone, at each place of an eight-byte block, and among
        // multi-byte characters.
        for c in (0u8..0x80).map(char::from) {
            for pad in 0..9 {
                for s in [
                    format!("{}{c}", "a".repeat(pad)),
                    format!("{c}{}", "b".repeat(pad)),
                    format!("é{c}😀{}{c}\u{7f}\u{2028}", "x".repeat(pad)),
                ] {
                    assert_eq!(escaped(&s), serde_json::to_string(&s).unwrap(), "{s:?}");
                }
            }
        }
        assert_eq!(escaped(""), "\"\"");
    }

    /// The enums written by name are written with the names serde gives them.
    #[test]
    fn enum_names_are_their_serde_names() {
        use crate::vocab::{Layer, Level, RetryAction, Severity};
        use strum::IntoEnumIterator;
        fn same<T: serde::Serialize + Into<&'static str> + Copy>(all: impl Iterator<Item = T>) {
            for v in all {
                let name: &'static str = v.into();
                assert_eq!(serde_json::to_string(&v).unwrap(), format!("\"{name}\""));
            }
        }
        same(Layer::iter());
        same(Level::iter());
        same(Severity::iter());
        for a in RetryAction::iter() {
            assert_eq!(
                serde_json::to_string(&a).unwrap(),
                format!("\"{}\"", a.as_ref())
            );
        }
        for p in crate::vocab::Protocol::iter() {
            assert_eq!(
                serde_json::to_string(&p).unwrap(),
                format!("\"{}\"", p.as_str())
            );
        }
        for o in crate::vocab::Outcome::iter() {
            assert_eq!(
                serde_json::to_string(&o).unwrap(),
                format!("\"{}\"", o.as_str())
            );
        }
    }
}
