//! Where each finding of a judged exchange file sits: its position in the file
//! (`file:line:column`) and an excerpt of what the server sent around it. The answer is found
//! where the file gives it: an HTTP body as text, JSON or base64 (a stream's findings carry
//! their event), or a stdio server's stdout as text, lines or base64 (findings carry their
//! stdout line).

use std::collections::BTreeMap;
use std::ops::Range;

use super::locate::{
    self, ceil_char_boundary, floor_char_boundary, line_col, line_cols, pointer_span,
};
use super::{Excerpt, Location};
use crate::wire::exchange::{Exchange, ExchangeFile};
use crate::wire::stdio::Line;

/// Maps findings' pointers to positions in the exchange file and excerpts of the body: every
/// finding of a verdict in one pass over each text ([`Locator::locate_all`]).
pub(crate) struct Locator<'a> {
    text: &'a str,
    /// The body as judged (a stdio server's stdout), when it is text.
    body: Option<&'a str>,
    /// How findings are placed in the body.
    framing: Framing,
    /// How the body is written in the file.
    source: BodySource,
    /// Position of the `response` (or `stdio`) member's value: where a finding that has no
    /// place of its own is put.
    response: Option<Location>,
}

/// How findings are placed in the body.
enum Framing {
    /// One JSON document: a finding's pointer is into it.
    Json,
    /// An SSE stream: a finding's pointer is into the data of its event.
    Sse,
    /// A stdio server's stdout: a finding's pointer is into the message on its (1-based) line,
    /// and a finding without a pointer is the line itself.
    Stdout(Vec<Line>),
}

/// Which of `response.body`, `body_json` and `body_base64`, or of `stdio.stdout`,
/// `stdout_lines` and `stdout_base64`, the file gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BodyGiven {
    Text,
    Json,
    Base64,
    StdoutText,
    StdoutLines,
    StdoutBase64,
    None,
}

impl BodyGiven {
    pub(crate) fn of(file: &ExchangeFile) -> BodyGiven {
        if let Some(s) = &file.stdio {
            return if s.stdout.is_some() {
                BodyGiven::StdoutText
            } else if s.stdout_lines.is_some() {
                BodyGiven::StdoutLines
            } else if s.stdout_base64.is_some() {
                BodyGiven::StdoutBase64
            } else {
                BodyGiven::None
            };
        }
        let Some(r) = &file.response else {
            return BodyGiven::None;
        };
        if r.body.is_some() {
            BodyGiven::Text
        } else if r.body_json.is_some() {
            BodyGiven::Json
        } else if r.body_base64.is_some() {
            BodyGiven::Base64
        } else {
            BodyGiven::None
        }
    }
}

enum BodySource {
    /// `stdio.stdout_lines`: each element's start offset in the file, and whether it is a
    /// string (the line's text) rather than a JSON value (its compact serialization).
    Lines(Vec<(usize, bool)>),
    /// `response.body`: the offset of the literal's opening quote.
    Literal(usize),
    /// `response.body_json`: the value's start offset in the file.
    Json(usize),
    /// `response.body_base64`: its position.
    Base64(Location),
    /// Not found in the file.
    None,
}

impl<'a> Locator<'a> {
    pub(crate) fn new(text: &'a str, given: BodyGiven, ex: &'a Exchange) -> Locator<'a> {
        let loc = |p: &str| {
            pointer_span(text, p).map(|s| {
                let (line, column) = line_col(text, s.start);
                Location { line, column }
            })
        };
        let source = match given {
            BodyGiven::Text => pointer_span(text, "/response/body")
                .map_or(BodySource::None, |s| BodySource::Literal(s.start)),
            BodyGiven::Json => pointer_span(text, "/response/body_json")
                .map_or(BodySource::None, |s| BodySource::Json(s.start)),
            BodyGiven::Base64 => {
                loc("/response/body_base64").map_or(BodySource::None, BodySource::Base64)
            }
            BodyGiven::StdoutText => pointer_span(text, "/stdio/stdout")
                .map_or(BodySource::None, |s| BodySource::Literal(s.start)),
            BodyGiven::StdoutLines => BodySource::Lines(stdout_lines(
                text,
                ex.stdio
                    .as_ref()
                    .map_or(0, |s| crate::wire::stdio::lines(&s.stdout).count()),
            )),
            BodyGiven::StdoutBase64 => {
                loc("/stdio/stdout_base64").map_or(BodySource::None, BodySource::Base64)
            }
            BodyGiven::None => BodySource::None,
        };
        if let Some(s) = &ex.stdio {
            return Locator {
                text,
                body: std::str::from_utf8(&s.stdout).ok(),
                framing: Framing::Stdout(crate::wire::stdio::lines(&s.stdout).collect()),
                source,
                response: loc("/stdio"),
            };
        }
        let sse = ex
            .response_headers
            .get("Content-Type")
            .is_some_and(|c| c.to_ascii_lowercase().contains("text/event-stream"));
        Locator {
            text,
            body: std::str::from_utf8(&ex.body).ok(),
            framing: if sse { Framing::Sse } else { Framing::Json },
            source,
            response: loc("/response"),
        }
    }

    /// The span in stdout of each finding: the value its pointer designates in the message on
    /// its line (the nearest ancestor when the value is missing), or the line itself.
    fn stdout_spans(
        stdout: &str,
        lines: &[Line],
        wants: &[(&str, Option<usize>)],
    ) -> Vec<Option<Range<usize>>> {
        wants
            .iter()
            .map(|(p, line)| {
                let l = lines.get(line.and_then(|n| n.checked_sub(1))?)?;
                if p.is_empty() {
                    return Some(l.start..l.end);
                }
                // The message starts on its line and may go on over the next (pretty-printed).
                let s = locate::nearest_span(&stdout[l.start..], p)?;
                Some(l.start + s.start..l.start + s.end)
            })
            .collect()
    }

    /// The byte range of each pointer's value in the judged body (for an SSE body, in the
    /// event given, else the last event that has it; the exact value first, then the
    /// nearest ancestor): each event's data and the body scanned once.
    fn body_spans(&self, wants: &[(&str, Option<usize>)]) -> Vec<Option<Range<usize>>> {
        let mut out = vec![None; wants.len()];
        let Some(body) = self.body else { return out };
        if let Framing::Stdout(lines) = &self.framing {
            return Self::stdout_spans(body, lines, wants);
        }
        if wants.iter().all(|(p, _)| p.is_empty()) {
            return out;
        }
        if matches!(self.framing, Framing::Json) {
            let pointers: Vec<&str> = wants.iter().map(|(p, _)| *p).collect();
            for ((o, r), (p, _)) in out
                .iter_mut()
                .zip(locate::resolve_all(body, &pointers))
                .zip(wants)
            {
                if !p.is_empty() {
                    *o = r.map(|r| r.span);
                }
            }
            return out;
        }
        locate::add_work(body.len());
        // Findings in a given event, grouped by event.
        let mut by_event: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        let mut anywhere: Vec<usize> = Vec::new();
        for (k, (p, e)) in wants.iter().enumerate() {
            if p.is_empty() {
                continue;
            }
            match e {
                Some(e) => by_event.entry(*e).or_default().push(k),
                None => anywhere.push(k),
            }
        }
        // A finding without an event is placed in the last event that has its exact value,
        // else in the last that has its nearest ancestor.
        let mut tree = (!anywhere.is_empty())
            .then(|| locate::PointerTree::new(anywhere.iter().map(|&k| wants[k].0)));
        let mut exact: Vec<Option<Range<usize>>> = vec![None; anywhere.len()];
        let mut near: Vec<Option<Range<usize>>> = vec![None; anywhere.len()];
        let mut visit = |e: &crate::wire::sse::Event| {
            if let Some(ks) = by_event.get(&e.index) {
                let pointers: Vec<&str> = ks.iter().map(|&k| wants[k].0).collect();
                for (k, r) in ks.iter().zip(locate::resolve_all(&e.data, &pointers)) {
                    out[*k] = r.map(|r| e.input_offset(r.span.start)..e.input_offset(r.span.end));
                }
            }
            if let Some(tree) = &mut tree {
                for (j, r) in tree.resolve(&e.data).into_iter().enumerate() {
                    let Some(r) = r else { continue };
                    let span = e.input_offset(r.span.start)..e.input_offset(r.span.end);
                    if r.exact {
                        exact[j] = Some(span.clone());
                    }
                    near[j] = Some(span);
                }
            }
        };
        // The events are visited as the body is split, never all held at once.
        crate::wire::sse::parse_each(body.as_bytes(), |e| visit(&e));
        for (j, &k) in anywhere.iter().enumerate() {
            out[k] = exact[j].take().or_else(|| near[j].take());
        }
        out
    }

    /// Where each finding (pointer, event) sits in the file, and the body around it.
    pub(crate) fn locate_all(
        &self,
        wants: &[(&str, Option<usize>)],
    ) -> Vec<(Option<Location>, Option<Excerpt>)> {
        let spans = self.body_spans(wants);
        // File offsets of the values, for the sources that have them.
        let mut offsets: Vec<Option<usize>> = vec![None; wants.len()];
        match &self.source {
            BodySource::Literal(start) => {
                let ks: Vec<usize> = (0..wants.len()).filter(|&k| spans[k].is_some()).collect();
                let starts: Vec<usize> = ks
                    .iter()
                    .map(|&k| spans[k].as_ref().map_or(0, |s| s.start))
                    .collect();
                for (k, o) in ks
                    .iter()
                    .zip(locate::literal_offsets(self.text, *start, &starts))
                {
                    offsets[*k] = o;
                }
            }
            BodySource::Json(start) => {
                let ks: Vec<usize> = (0..wants.len())
                    .filter(|&k| spans[k].is_some() && !wants[k].0.is_empty())
                    .collect();
                let pointers: Vec<&str> = ks.iter().map(|&k| wants[k].0).collect();
                let value = &self.text[*start..];
                for (k, r) in ks.iter().zip(locate::resolve_all(value, &pointers)) {
                    offsets[*k] = r.map(|r| start + r.span.start);
                }
            }
            BodySource::Lines(elements) => {
                if let Framing::Stdout(lines) = &self.framing {
                    for (k, span) in spans.iter().enumerate() {
                        if let Some(span) = span {
                            offsets[k] = self.in_lines(elements, lines, wants[k].0, span);
                        }
                    }
                }
            }
            BodySource::Base64(_) | BodySource::None => {}
        }
        let placed: Vec<usize> = offsets.iter().flatten().copied().collect();
        let mut positions = line_cols(self.text, &placed).into_iter();
        spans
            .iter()
            .zip(&offsets)
            .map(|(span, offset)| {
                let excerpt = match (span, self.body) {
                    (Some(s), Some(body)) => Some(excerpt(body, s.clone())),
                    _ => None,
                };
                let location = match (&self.source, offset) {
                    (BodySource::Base64(l), _) => Some(*l),
                    (_, Some(_)) => positions
                        .next()
                        .map(|(line, column)| Location { line, column }),
                    _ => None,
                };
                (location.or(self.response), excerpt)
            })
            .collect()
    }
}

impl Locator<'_> {
    /// The file offset of a span of stdout given as `stdio.stdout_lines`: within the string
    /// of the line it starts on, or, for a line given as a JSON value (its compact text, not
    /// the file's), where the pointer leads in that value.
    fn in_lines(
        &self,
        elements: &[(usize, bool)],
        lines: &[Line],
        pointer: &str,
        span: &Range<usize>,
    ) -> Option<usize> {
        let li = lines.partition_point(|l| l.next_start() <= span.start);
        let (start, is_string) = *elements.get(li)?;
        if is_string {
            let within = span.start - lines.get(li)?.start;
            return locate::literal_offsets(self.text, start, &[within])
                .pop()
                .flatten();
        }
        let value = &self.text[start..];
        let s = locate::nearest_span(value, pointer)?;
        Some(start + s.start)
    }
}

/// The start offset in the file of each of the `n` elements of `stdio.stdout_lines`, and
/// whether it is a string: found in one scan of the file.
fn stdout_lines(text: &str, n: usize) -> Vec<(usize, bool)> {
    let pointers: Vec<String> = (0..n).map(|i| format!("/stdio/stdout_lines/{i}")).collect();
    let pointers: Vec<&str> = pointers.iter().map(String::as_str).collect();
    locate::resolve_all(text, &pointers)
        .into_iter()
        .map_while(|r| {
            let start = r?.span.start;
            Some((start, text.as_bytes().get(start) == Some(&b'"')))
        })
        .collect()
}

/// Up to 60 characters either side of the value, the value cut at 160, secrets redacted.
fn excerpt(body: &str, span: Range<usize>) -> Excerpt {
    const SIDE: usize = 60;
    const MAX: usize = 160;
    let start = floor_char_boundary(body, span.start);
    let end = ceil_char_boundary(body, span.end.max(start));
    let before_start = floor_char_boundary(body, start.saturating_sub(SIDE));
    let after_end = ceil_char_boundary(body, end + SIDE);
    let mut before = String::new();
    if before_start > 0 {
        before.push('…');
    }
    before.push_str(&body[before_start..start]);
    let mut target: String = body[start..end].chars().take(MAX).collect();
    if body[start..end].chars().nth(MAX).is_some() {
        target.push('…');
    }
    let mut after = body[end..after_end].to_string();
    if after_end < body.len() {
        after.push('…');
    }
    // Shown in reports: redacted like every other text the server wrote.
    let shown = |s: String| match crate::views::redact::text(&s) {
        std::borrow::Cow::Owned(o) => o,
        std::borrow::Cow::Borrowed(_) => s,
    };
    Excerpt {
        before: shown(before),
        target: shown(target),
        after: shown(after),
    }
}

/// Where each finding of each verdict sits in the exchange file `text` (per verdict, per
/// finding, in order), for `file:line:col` outside `check`.
pub(crate) fn locate_judgement(
    text: &str,
    given: BodyGiven,
    ex: &Exchange,
    judgement: &crate::judge::Judgement<'_>,
) -> Vec<Vec<Option<Location>>> {
    let locator = Locator::new(text, given, ex);
    judgement
        .verdicts
        .iter()
        .map(|v| {
            let wants: Vec<(&str, Option<usize>)> = v
                .findings
                .iter()
                .map(|f| (f.pointer.as_str(), f.event.or(f.line)))
                .collect();
            locator
                .locate_all(&wants)
                .into_iter()
                .map(|(l, _)| l)
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn locator_for(text: &str) -> (ExchangeFile, Exchange) {
        let f = ExchangeFile::from_slice(text.as_bytes()).unwrap();
        let x = f.to_exchange().unwrap();
        (f, x)
    }

    #[test]
    fn sse_events_locate_in_the_body_literal() {
        let text = "{\"response\": {\"status\": 200,\n \"headers\": {\"Content-Type\": \"text/event-stream\"},\n \"body\": \"data: {\\\"a\\\":1}\\n\\ndata: {\\\"jsonrpc\\\":\\\"2.0\\\",\\\"result\\\":{\\\"content\\\":[{\\\"type\\\":\\\"text\\\"}]}}\\n\\n\"}}";
        let (f, x) = locator_for(text);
        let l = Locator::new(text, BodyGiven::of(&f), &x);
        let (loc, ex) = l
            .locate_all(&[("/result/content/0/text", Some(1))])
            .remove(0);
        let ex = ex.unwrap();
        assert_eq!(ex.target, "{\"type\":\"text\"}");
        assert!(ex.before.ends_with("\"content\":["), "{ex:?}");
        let loc = loc.unwrap();
        assert_eq!(loc.line, 3);
        let col_text: String = text
            .lines()
            .nth(2)
            .unwrap()
            .chars()
            .skip(loc.column - 1)
            .take(12)
            .collect();
        assert_eq!(col_text, "{\\\"type\\\":\\\"");
        // Without an event index, the events are searched from the last.
        assert_eq!(
            l.locate_all(&[("/a", None)])[0].1.as_ref().unwrap().target,
            "1"
        );
    }

    #[test]
    fn body_json_locates_in_the_file_and_missing_members_at_their_object() {
        let text = "{\"response\": {\"status\": 200,\n \"body_json\": {\n  \"result\": {\n   \"content\": []\n  }\n }\n}}";
        let (f, x) = locator_for(text);
        let l = Locator::new(text, BodyGiven::of(&f), &x);
        let (loc, ex) = l.locate_all(&[("/result/resultType", None)]).remove(0);
        assert_eq!(
            loc,
            Some(Location {
                line: 3,
                column: 13
            })
        );
        assert_eq!(ex.unwrap().target, "{\"content\":[]}");
        // The exchange as a whole: the `response` member.
        assert_eq!(
            l.locate_all(&[("", None)])[0].0,
            Some(Location {
                line: 1,
                column: 14
            })
        );
    }
}
