//! `classify --jsonl`: one JSON record per input line, `{"line": N, ...verdicts}` for a judged
//! exchange (the `classify --format json` document with its line number first) or
//! `{"line": N, "error": "..."}` for a line that could not be judged. Characters that would
//! act on a terminal are written as `\uXXXX` escapes ([`super::safe::json`]).

use serde::Serialize;

use crate::judge::Judgement;
use crate::run::stream::LineFormat;

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
        // The `JudgementOut` record, serialised from the judgement without building it.
        super::safe::json(crate::views::judgement_json_line(
            line,
            judgement,
            exchange.as_deref(),
        ))
    }

    fn error(&self, line: usize, error: &str) -> String {
        // A parser's message may quote a value of the line.
        let error = &*crate::views::redact::text(error);
        super::safe::json(
            serde_json::to_string(&ErrorOut { line, error }).expect("records serialize"),
        )
    }
}
