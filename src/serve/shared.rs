//! The state a running server shares between its threads: the configuration, counters, the
//! diagnostic records (kept and logged), the 2025-11-25 sessions, the key that seals
//! `requestState`, and the tools.

use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

use super::config::ServeConfig;
use super::scenario::{Lenient, Scenario};
use super::state::{Keys, Sessions};
use super::suite_tools::Fixtures;
use super::tools;
use crate::views::diag::DiagRecord;

/// State shared by all connection threads.
pub(crate) struct Shared {
    pub config: ServeConfig,
    pub shutdown: AtomicBool,
    pub post_count: AtomicU64,
    pub serial: AtomicU64,
    pub orders: AtomicU64,
    pub records: Mutex<Records>,
    pub records_changed: Condvar,
    pub log: Option<Mutex<File>>,
    pub sessions: Mutex<Sessions>,
    /// Connections being served now.
    pub active: AtomicUsize,
    pub keys: Keys,
    pub tools: Vec<tools::Tool>,
    /// The conformance fixture set, when the scenario asks for it.
    pub fixtures: Option<Fixtures>,
    /// The authorization server's and resource server's memory (the `auth` scenario).
    pub auth: super::auth::AuthState,
}

/// The most recent diagnostic records, and how many there have been.
#[derive(Default)]
pub(crate) struct Records {
    pub recent: VecDeque<DiagRecord>,
    pub total: usize,
}

impl Shared {
    /// The state a server starts from under `config`: the log file opened for appending, no
    /// session, the tools (and the conformance fixture set when the scenario asks for it).
    pub(crate) fn new(config: ServeConfig) -> io::Result<Shared> {
        let log = match &config.log_path {
            Some(p) => Some(Mutex::new(
                OpenOptions::new().create(true).append(true).open(p)?,
            )),
            None => None,
        };
        let sessions = Sessions::new(config.session_ttl, config.max_sessions);
        let fixtures = matches!(
            config.scenario,
            Scenario::BaselineConformance | Scenario::Lenient(Lenient::ParamHeader)
        )
        .then(Fixtures::new);
        Ok(Shared {
            config,
            shutdown: AtomicBool::new(false),
            post_count: AtomicU64::new(0),
            serial: AtomicU64::new(0),
            orders: AtomicU64::new(0),
            records: Mutex::new(Records::default()),
            records_changed: Condvar::new(),
            log,
            sessions: Mutex::new(sessions),
            active: AtomicUsize::new(0),
            keys: Keys::new(),
            tools: tools::catalogue(),
            fixtures,
            auth: super::auth::AuthState::default(),
        })
    }

    /// Forgets the server request `key` of `session` that waited for the client's answer.
    pub(crate) fn forget_pending(&self, session: &str, key: &str) {
        if let Some(s) = self.sessions.lock().expect("sessions lock").get(session) {
            s.pending.remove(key);
        }
    }

    /// A fresh number for event and request ids.
    pub fn next_serial(&self) -> u64 {
        self.serial.fetch_add(1, Ordering::SeqCst) + 1
    }

    /// The records kept now, oldest first.
    pub(crate) fn records(&self) -> Vec<DiagRecord> {
        let r = self.records.lock().expect("records lock");
        r.recent.iter().cloned().collect()
    }

    /// Logs the record (file, stderr line) and keeps it for [`super::ServerHandle::records`];
    /// `via` is how the request came: `POST`, `GET`, `DELETE` or `stdio`.
    pub(crate) fn push_record(&self, record: DiagRecord, via: &str) {
        if let Some(log) = &self.log {
            let mut f = log.lock().expect("log lock");
            let _ = writeln!(f, "{}", record.to_json_line());
            let _ = f.flush();
        }
        if self.config.echo_stderr {
            eprintln!("{}", log_line(&record, via));
        }
        let keep = self.config.keep_records;
        {
            let mut records = self.records.lock().expect("records lock");
            records.total += 1;
            if keep > 0 {
                if records.recent.len() >= keep {
                    records.recent.pop_front();
                }
                records.recent.push_back(record);
            }
        }
        self.records_changed.notify_all();
    }
}

/// One line on stderr per request: its number among the POSTs, how it came, the method and
/// revision, the answer (status, type, how the body ended, a JSON-RPC error's code) and, for a
/// `tools/call`, the verdict on what was sent with the rule that decided it, e.g.
/// `#4 POST tools/call 2025-11-25 -> 200 application/json, complete, JSON-RPC error -32602;
/// verdict JSONRPC_ERROR (jsonrpc.error-response)`.
pub(crate) fn log_line(r: &DiagRecord, via: &str) -> String {
    use crate::views::diag::StreamEnd;
    let mut s = String::new();
    if r.post_count > 0 {
        s.push_str(&format!("#{} ", r.post_count));
    }
    s.push_str(via);
    if let Some(m) = &r.method {
        s.push_str(&format!(" {m}"));
    }
    if let Some(p) = &r.protocol_version {
        s.push_str(&format!(" {p}"));
    }
    s.push_str(" ->");
    if !r.http_statuses.is_empty() {
        let statuses: Vec<String> = r.http_statuses.iter().map(u16::to_string).collect();
        s.push_str(&format!(" {}", statuses.join(",")));
    }
    match &r.content_type {
        Some(ct) => s.push_str(&format!(" {ct},")),
        None if r.http_statuses.is_empty() => {}
        None => s.push_str(" (no body),"),
    }
    s.push_str(match r.stream_end {
        StreamEnd::Complete => " complete",
        StreamEnd::Eof => " closed before the end",
        StreamEnd::Reset => " reset",
        StreamEnd::Timeout => " timed out",
        StreamEnd::Stall => " stalled",
    });
    if let Some(c) = r.jsonrpc.error_code {
        s.push_str(&format!(", JSON-RPC error {c}"));
    }
    if let Some(o) = &r.outcome {
        s.push_str(&format!("; verdict {o}"));
        if let Some(rule) = &r.rule {
            s.push_str(&format!(" ({rule})"));
        }
        if !r.error_findings.is_empty() {
            s.push_str(&format!(
                ", error findings: {}",
                r.error_findings.join(", ")
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::views::diag::{Side, StreamEnd};

    #[test]
    fn log_lines_name_the_request_and_the_verdict() {
        let mut r = DiagRecord::new(Side::Serve);
        r.http_statuses = vec![405];
        r.content_type = Some("text/plain; charset=utf-8".into());
        assert_eq!(
            log_line(&r, "GET"),
            "GET -> 405 text/plain; charset=utf-8, complete"
        );
        r.post_count = 4;
        r.method = Some("tools/call".into());
        r.protocol_version = Some("2025-11-25".into());
        r.http_statuses = vec![200];
        r.content_type = Some("text/event-stream".into());
        r.stream_end = StreamEnd::Reset;
        r.outcome = Some("DELIVERY_UNKNOWN".into());
        r.rule = Some("transport.sse.final-response".into());
        assert_eq!(
            log_line(&r, "POST"),
            "#4 POST tools/call 2025-11-25 -> 200 text/event-stream, reset; verdict DELIVERY_UNKNOWN (transport.sse.final-response)"
        );
        let mut s = DiagRecord::new(Side::Serve);
        s.method = Some("tools/list".into());
        assert_eq!(log_line(&s, "stdio"), "stdio tools/list -> complete");
        s.http_statuses = vec![202];
        assert_eq!(
            log_line(&s, "POST"),
            "POST tools/list -> 202 (no body), complete"
        );
    }
}
