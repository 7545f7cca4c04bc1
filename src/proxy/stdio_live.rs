//! The stdio form's judging thread: it takes each line the relaying threads copied, keeps the
//! `--record` transcript, replays the session to find where a call or a setup answer ends, and
//! judges it into the sinks (the stderr line, `--log`, `--record`, the live page, the summary).
//! The relaying side (src/proxy/stdio.rs) never waits on it.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::Receiver;
use std::time::Instant;

use super::judged::{Judged, Kind, Unjudged};
use super::shared_stderr::SharedStderr;
use super::sinks::Sink;
use super::stdio_setup::{Answered, Setup};
use crate::inputs::transcript::{Call, Replay};
use crate::judge::{Engine, Options, judge, revisions_of};
use crate::vocab::Protocol;
use crate::wire::exchange::Exchange;
use crate::wire::stdio::ExitStatus;
use crate::wire::stdio::transcript::{Direction, Entry, TranscriptWriter};

/// What a relaying thread tells the judging thread.
pub(super) enum Told {
    /// A line one side wrote (without its newline); `over` when it was longer than the copy
    /// bound and only its first bytes are here.
    Line {
        dir: Direction,
        bytes: Vec<u8>,
        partial: bool,
        over: bool,
        at: Instant,
    },
    /// The server process ended.
    Exit { status: ExitStatus, at: Instant },
    /// The proxy stops: judge what is under way.
    Stop,
}

/// `--record`'s `transcript.jsonl`, written as the session goes, secrets redacted.
pub(super) struct TranscriptFile {
    out: std::io::BufWriter<std::fs::File>,
    path: PathBuf,
    failed: bool,
}

impl TranscriptFile {
    pub(super) fn create(path: &Path) -> std::io::Result<TranscriptFile> {
        Ok(TranscriptFile {
            out: std::io::BufWriter::new(std::fs::File::create(path)?),
            path: path.to_path_buf(),
            failed: false,
        })
    }

    fn write(
        &mut self,
        entry: impl FnOnce(&mut TranscriptWriter<Vec<u8>>) -> std::io::Result<()>,
    ) -> Option<String> {
        if self.failed {
            return None;
        }
        let mut w = TranscriptWriter::new(Vec::new());
        let text = entry(&mut w)
            .and_then(|()| w.into_inner())
            .map(|b| String::from_utf8_lossy(&b).into_owned());
        let r = text.and_then(|t| {
            // Redacted as any string of JSON is.
            self.out
                .write_all(crate::views::redact::text(&t).as_bytes())
                .and_then(|()| self.out.flush())
        });
        match r {
            Ok(()) => None,
            Err(e) => {
                self.failed = true;
                Some(format!(
                    "mcp-verdict proxy: cannot write the transcript {}: {e} (the relay goes on; nothing more is recorded)",
                    self.path.display()
                ))
            }
        }
    }
}

/// What an entry ended: a call or a setup answer.
enum Done {
    Call(Call),
    Setup(Answered),
}

/// The judging thread of the stdio form.
pub(super) struct StdioLive {
    pub(super) engine: &'static Engine,
    pub(super) replay: Replay,
    /// The setup answers under way.
    pub(super) setup: Setup,
    pub(super) sinks: Vec<Box<dyn Sink>>,
    pub(super) transcript: Option<TranscriptFile>,
    pub(super) started: Instant,
    /// When each request line (by its transcript line) was read.
    pub(super) requested: HashMap<usize, Instant>,
    pub(super) entries: usize,
    /// The transcript lines longer than the copy bound.
    pub(super) over_at: Vec<usize>,
    pub(super) seq: usize,
    pub(super) err: Arc<SharedStderr>,
}

impl StdioLive {
    pub(super) fn run(mut self, told: Receiver<Told>) {
        while let Ok(t) = told.recv() {
            match t {
                Told::Line {
                    dir,
                    bytes,
                    partial,
                    over,
                    at,
                } => {
                    let secs = Some(at.saturating_duration_since(self.started).as_secs_f64());
                    if let Some(f) = &mut self.transcript
                        && let Some(why) = f.write(|w| w.line(dir, &bytes, partial, secs))
                    {
                        self.err.line(&why);
                    }
                    self.entries += 1;
                    if over {
                        self.over_at.push(self.entries);
                    }
                    let e = Entry {
                        dir,
                        bytes,
                        partial,
                        t: secs,
                        exit: None,
                        at: self.entries,
                    };
                    let open = self.replay.open();
                    let calls = self.replay.push(&e);
                    if self.replay.open() > open {
                        // A tools/call request: its clock starts.
                        self.requested.insert(self.entries, at);
                    }
                    let setups = self.setup.push(&e, at);
                    self.judge_all(calls, setups, at, None);
                }
                Told::Exit { status, at } => {
                    let secs = Some(at.saturating_duration_since(self.started).as_secs_f64());
                    if let Some(f) = &mut self.transcript
                        && let Some(why) = f.write(|w| w.exit(status, secs))
                    {
                        self.err.line(&why);
                    }
                    self.entries += 1;
                    let e = Entry {
                        dir: Direction::Exit,
                        bytes: Vec::new(),
                        partial: false,
                        t: secs,
                        exit: Some(status),
                        at: self.entries,
                    };
                    let calls = self.replay.push(&e);
                    let setups = self.setup.push(&e, at);
                    self.judge_all(calls, setups, at, None);
                }
                Told::Stop => break,
            }
        }
        let calls = self.replay.finish();
        let setups = self.setup.finish();
        self.judge_all(
            calls,
            setups,
            Instant::now(),
            Some("the proxy stopped before the answer ended: judged on what had arrived"),
        );
        for s in &mut self.sinks {
            s.finish();
        }
    }

    /// Judges the calls and setup answers an entry ended, in the order of their requests.
    fn judge_all(
        &mut self,
        calls: Vec<Call>,
        setups: Vec<Answered>,
        ended: Instant,
        note: Option<&str>,
    ) {
        let mut done: Vec<Done> = calls
            .into_iter()
            .map(Done::Call)
            .chain(setups.into_iter().map(Done::Setup))
            .collect();
        done.sort_by_key(|d| match d {
            Done::Call(c) => c.line,
            Done::Setup(a) => a.line,
        });
        for d in done {
            match d {
                Done::Call(c) => self.judge_call(c, ended, note),
                Done::Setup(a) => self.judge_setup(a, ended, note),
            }
        }
    }

    /// Judges a setup answer as the HTTP form does (as `probe` records it over stdio).
    fn judge_setup(&mut self, a: Answered, ended: Instant, note: Option<&str>) {
        self.seq += 1;
        let ex = *a.exchange;
        let revision = match ex.protocol.as_deref() {
            Some([p, ..]) => *p,
            _ => match revisions_of(&ex) {
                Ok(ps) => ps[0],
                Err(e) => return self.unjudged_method(&a.method, None, e.reason()),
            },
        };
        let at = a.at;
        self.judge_into_sinks(
            Kind::Setup,
            a.method,
            None,
            ex,
            revision,
            a.line,
            at,
            ended,
            note,
        );
    }

    fn judge_call(&mut self, call: Call, ended: Instant, note: Option<&str>) {
        let at = self.requested.remove(&call.line).unwrap_or(ended);
        self.seq += 1;
        let ex = *call.exchange;
        let revision = match revisions_of(&ex) {
            Ok(ps) => ps[0],
            Err(e) => return self.unjudged(call.tool, e.reason()),
        };
        let (tool, line) = (call.tool, call.line);
        self.judge_into_sinks(
            Kind::Call,
            "tools/call".into(),
            tool,
            ex,
            revision,
            line,
            at,
            ended,
            note,
        );
        // Lines longer than the bound before every open call's request are forgotten.
        let first_open = self.requested.keys().min().copied().unwrap_or(usize::MAX);
        self.over_at.retain(|&l| l >= first_open);
    }

    /// Judges one exchange (a call or a setup answer, `line` its transcript line) under
    /// `revision` and hands the judgement to every sink.
    #[allow(clippy::too_many_arguments)]
    fn judge_into_sinks(
        &mut self,
        kind: Kind,
        method: String,
        tool: Option<String>,
        mut ex: Exchange,
        revision: Protocol,
        line: usize,
        at: Instant,
        ended: Instant,
        note: Option<&str>,
    ) {
        ex.protocol = Some(vec![revision]);
        let label = match &tool {
            Some(t) => format!("{method} {t}"),
            None => method.clone(),
        };
        ex.name = Some(format!("proxy {:04} {label}", self.seq));
        let judgement = match judge(
            &ex,
            &Options {
                protocols: Some(revision.only()),
                engine: self.engine,
            },
        ) {
            Ok(j) => j,
            Err(e) => return self.unjudged_method(&method, tool, e.reason()),
        };
        let mut notes: Vec<String> = note.map(str::to_string).into_iter().collect();
        if self.over_at.iter().any(|&l| l >= line) {
            notes.push(
                "not judged in full: a line was longer than the copy bound; judged on its first bytes, the rest was relayed uncopied".into(),
            );
        }
        let j = Judged {
            seq: self.seq,
            kind,
            method,
            tool,
            exchange: ex,
            judgement,
            latency: ended.saturating_duration_since(at),
            notes,
        };
        for s in &mut self.sinks {
            s.judged(&j);
        }
    }

    fn unjudged(&mut self, tool: Option<String>, why: String) {
        self.unjudged_method("tools/call", tool, why);
    }

    fn unjudged_method(&mut self, method: &str, tool: Option<String>, why: String) {
        let u = Unjudged {
            seq: self.seq,
            method: Some(method.into()),
            tool,
            why,
        };
        for s in &mut self.sinks {
            s.unjudged(&u);
        }
    }
}
