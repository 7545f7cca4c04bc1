//! What the record of a run says of each step a transport took (one HTTP request and what
//! came of it) and why the probe stopped reading an answer.

use serde::Serialize;

use crate::wire::exchange::BodyEnd;

/// One message of a run and what came of it: an HTTP request, or a line written to a stdio
/// server's stdin (`http_method` [`STDIN`]).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HttpStep {
    /// Ordinal among the run's messages sent (1-based): POSTs over HTTP, lines written over
    /// stdio; `None` for GET and DELETE.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub post: Option<u32>,
    /// HTTP method, or [`STDIN`] over stdio.
    pub http_method: String,
    /// JSON-RPC method (or `response` for an answer to a server request).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rpc_method: Option<String>,
    /// Tool name, for `tools/call`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// HTTP status, when a response arrived.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// How the body ended (`complete`, `reset`, `timeout`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<BodyEnd>,
    /// Why the probe stopped reading the body, when it did not simply complete
    /// (`closed`, `stalled`, `timed-out`, `deadline`, `size-cap`, `event-cap`,
    /// `after-response`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<ReadStop>,
    /// Where a 3xx response pointed (`Location`, secrets redacted); never followed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub redirect: Option<String>,
    /// What went wrong, if anything.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Over stdio: the lines the server wrote on stdout for this message, up to and with
    /// its response.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lines: Option<u32>,
}

/// The `http_method` of a step over stdio: a line written to the server's stdin.
pub const STDIN: &str = "stdin";

impl HttpStep {
    /// One line for people: `#3 POST tools/call echo → 200`, with what happened when the
    /// body did not complete (`(cut at the size cap)`, `(closed mid-body)`, `(stalled)`) or
    /// the answer was a redirect (`(redirected, not followed)`).
    pub fn describe(&self) -> String {
        let mut s = match self.post {
            Some(n) => format!("#{n} {}", self.http_method),
            None => self.http_method.clone(),
        };
        if let Some(m) = &self.rpc_method {
            s.push(' ');
            s.push_str(m);
        }
        if let Some(t) = &self.tool {
            s.push(' ');
            s.push_str(t);
        }
        match (self.status, self.lines, self.end) {
            (Some(st), _, _) => s.push_str(&format!(" → {st}")),
            (None, Some(n), Some(BodyEnd::Complete)) => {
                s.push_str(&format!(" → response ({n} stdout line{})", plural(n)));
            }
            (None, Some(n), Some(_)) => {
                s.push_str(&format!(" → no response ({n} stdout line{})", plural(n)));
            }
            (None, _, None) if self.http_method == STDIN && self.note.is_none() => {}
            (None, _, _) => s.push_str(" → no response"),
        }
        if self.status.is_some_and(|st| (300..400).contains(&st)) {
            s.push_str(" (redirected, not followed)");
        }
        match (self.stopped, self.end) {
            (Some(stop), _) => s.push_str(&format!(" ({})", stop.label())),
            (None, Some(e)) if e != BodyEnd::Complete => {
                s.push_str(&format!(" (body end: {})", e.as_str()));
            }
            _ => {}
        }
        s
    }
}

/// Why the probe stopped reading a response body before the server ended it (or why the body
/// ended early).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReadStop {
    /// The server closed or reset the connection before the body was complete.
    Closed,
    /// No bytes arrived for the idle timeout.
    Stalled,
    /// The request's total time limit passed.
    TimedOut,
    /// The probe's overall deadline passed.
    Deadline,
    /// The body reached the size cap.
    SizeCap,
    /// The stream reached the event cap.
    EventCap,
    /// The final response had arrived; the server had not ended the stream shortly after.
    AfterResponse,
    /// The probe closed the stream itself: a standalone GET stream at the end of the session.
    ClosedByClient,
}

impl ReadStop {
    /// A short label for people: `cut at the size cap`, `closed mid-body`, `stalled`...
    pub fn label(self) -> &'static str {
        match self {
            ReadStop::Closed => "closed mid-body",
            ReadStop::Stalled => "stalled",
            ReadStop::TimedOut => "timed out",
            ReadStop::Deadline => "cut at the probe's deadline",
            ReadStop::SizeCap => "cut at the size cap",
            ReadStop::EventCap => "cut at the event cap",
            ReadStop::AfterResponse => "stopped reading after the response",
            ReadStop::ClosedByClient => "closed by the probe at the end of the session",
        }
    }
}

fn plural(n: u32) -> &'static str {
    if n == 1 { "" } else { "s" }
}
