//! `classify --jsonl`: one JSON record per input line, `{"line": N, ...verdicts}` for a judged
//! exchange (the `classify --format json` document with its line number first) or
//! `{"line": N, "error": "..."}` for a line that could not be judged. Characters that would
//! act on a terminal are written as `\uXXXX` escapes ([`super::safe::json`]).

use serde::Serialize;

use crate::judge::Judgement;
use crate::run::stream::LineFormat;
use crate::views::JudgementOut;

#[derive(Serialize)]
struct LineOut<'a> {
    line: usize,
    #[serde(flatten)]
    judgement: &'a JudgementOut,
}

#[derive(Serialize)]
struct ErrorOut<'a> {
    line: usize,
    error: &'a str,
}

/// The JSON Lines records of `classify --jsonl`.
#[derive(Clone, Copy, Debug, Default)]
pub struct JsonLines;

impl LineFormat for JsonLines {
    fn judged(&self, line: usize, judgement: &Judgement<'_>, exchange: Option<String>) -> String {
        let out = JudgementOut::of(judgement, exchange);
        super::safe::json(
            serde_json::to_string(&LineOut {
                line,
                judgement: &out,
            })
            .expect("verdicts serialize"),
        )
    }

    fn error(&self, line: usize, error: &str) -> String {
        // A parser's message may quote a value of the line.
        let error = &*crate::views::redact::text(error);
        super::safe::json(
            serde_json::to_string(&ErrorOut { line, error }).expect("records serialize"),
        )
    }
}
