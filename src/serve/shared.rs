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

    /// Logs the record (file, stderr summary) and keeps it for [`super::ServerHandle::records`].
    pub(crate) fn push_record(&self, record: DiagRecord) {
        if let Some(log) = &self.log {
            let mut f = log.lock().expect("log lock");
            let _ = writeln!(f, "{}", record.to_json_line());
            let _ = f.flush();
        }
        if self.config.echo_stderr {
            let statuses: Vec<String> = record.http_statuses.iter().map(u16::to_string).collect();
            eprintln!(
                "POST#{} {} {} -> {} {} end={:?}{}",
                record.post_count,
                record.protocol_version.as_deref().unwrap_or("?"),
                record.method.as_deref().unwrap_or("-"),
                statuses.join(","),
                record.content_type.as_deref().unwrap_or("(no body)"),
                record.stream_end,
                record
                    .jsonrpc
                    .error_code
                    .map(|c| format!(" error={c}"))
                    .unwrap_or_default()
            );
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
