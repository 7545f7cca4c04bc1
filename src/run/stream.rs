//! Judging a stream of exchanges, one per line (JSON Lines), in input order, in bounded memory,
//! on every core.
//!
//! Each input line is one exchange in the exchange file format, as compact JSON. Each output
//! line is what the [`LineFormat`] makes of that exchange's judgement, or an error record for a
//! line that is not JSON, not an exchange, or names no revision the tool can judge. Blank lines
//! are counted and produce nothing.
//!
//! # Pipeline and memory bound
//!
//! A reader thread reads lines and hands them to a pool of worker threads; the calling thread
//! writes results in input order through a reorder buffer. Before the reader hands a line on,
//! it takes room in an in-flight budget, and the writer gives the room back once the line's
//! output is written. A line is in flight from the moment it is read until its output is
//! written, wherever it is (queued, being judged, or waiting in the reorder buffer), so:
//!
//! * at most [`JsonlOptions::max_in_flight`] lines are in flight, and the reorder buffer never
//!   holds more than that many outputs;
//! * the in-flight lines hold at most [`JsonlOptions::max_in_flight_bytes`] bytes of input, or
//!   a single line when that one line is larger;
//! * a line longer than [`JsonlOptions::max_line_bytes`] is never held whole: the reader
//!   skips the rest of it and emits an error record.
//!
//! Memory therefore depends on these limits, not on the length of the input. [`Summary`]
//! reports the peaks observed so tests can check them.

use std::collections::BTreeMap;
use std::io::{self, BufRead, Write};
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TryRecvError};
use std::sync::{Arc, Condvar, Mutex};

use serde::Serialize;

use super::{Origin, revision_message};
use crate::config::Settings;
use crate::inputs::jsonl::{BOM, is_blank, read_line_capped};
use crate::judge::{Judgement, Options, judge_capped};
use crate::wire::exchange::ExchangeFile;

/// Default [`JsonlOptions::max_in_flight`].
pub const DEFAULT_MAX_IN_FLIGHT: usize = 256;
/// Default [`JsonlOptions::max_in_flight_bytes`]: 32 MiB.
pub const DEFAULT_MAX_IN_FLIGHT_BYTES: usize = 32 << 20;
/// Default [`JsonlOptions::max_line_bytes`]: 16 MiB.
pub const DEFAULT_MAX_LINE_BYTES: usize = 16 << 20;

/// How to judge a stream.
#[derive(Clone, Copy, Debug)]
pub struct JsonlOptions<'t> {
    /// Revisions and rule table, as for a single exchange.
    pub judge: Options<'t>,
    /// Worker threads; 0 uses every core (`std::thread::available_parallelism`).
    pub threads: usize,
    /// At most this many lines between being read and their output being written.
    pub max_in_flight: usize,
    /// At most this many input bytes in flight (a single larger line is let through alone).
    pub max_in_flight_bytes: usize,
    /// Lines longer than this are rejected with an error record without being held in memory.
    pub max_line_bytes: usize,
    /// At most this many findings of one rule per verdict are written, the rest counted
    /// (`omitted`); 0: every finding. Default
    /// [`DEFAULT_MAX_FINDINGS_PER_RULE`](crate::judge::DEFAULT_MAX_FINDINGS_PER_RULE).
    pub max_findings_per_rule: usize,
    /// Settings applied to each verdict (which findings are reported, their severity, what
    /// fails a line); `None`: every finding as judged, error findings fail.
    pub settings: Option<&'t Settings>,
}

impl Default for JsonlOptions<'static> {
    fn default() -> Self {
        JsonlOptions {
            judge: Options::default(),
            threads: 0,
            max_in_flight: DEFAULT_MAX_IN_FLIGHT,
            max_in_flight_bytes: DEFAULT_MAX_IN_FLIGHT_BYTES,
            max_line_bytes: DEFAULT_MAX_LINE_BYTES,
            max_findings_per_rule: crate::judge::DEFAULT_MAX_FINDINGS_PER_RULE,
            settings: None,
        }
    }
}

impl JsonlOptions<'_> {
    /// The number of worker threads used.
    pub fn worker_threads(&self) -> usize {
        if self.threads > 0 {
            self.threads
        } else {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        }
    }
}

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Summary {
    /// Lines read (including blank ones).
    pub lines: usize,
    /// Blank lines (skipped).
    pub blank: usize,
    /// Exchanges judged.
    pub judged: usize,
    /// Judged exchanges with an error-severity finding under some revision.
    pub with_error_findings: usize,
    /// Error records written (bad lines).
    pub errors: usize,
    /// Worker threads used.
    pub threads: usize,
    /// The most lines in flight at once.
    pub peak_in_flight: usize,
    /// The most input bytes in flight at once.
    pub peak_in_flight_bytes: usize,
    /// The most outputs waiting in the reorder buffer at once.
    pub peak_reorder: usize,
}

impl Summary {
    /// Whether the run should fail: an error record or an error-severity finding.
    pub fn failed(&self) -> bool {
        self.errors > 0 || self.with_error_findings > 0
    }

    /// One line for people.
    pub fn line(&self) -> String {
        format!(
            "{} lines: {} judged ({} with error-severity findings), {} error record(s), {} blank",
            self.lines, self.judged, self.with_error_findings, self.errors, self.blank
        )
    }
}

/// A line as read.
enum Input {
    Line(Vec<u8>),
    TooLong(usize),
}

struct Job {
    seq: usize,
    line: usize,
    bytes: usize,
    input: Input,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Status {
    Passed,
    ErrorFindings,
    ErrorRecord,
}

struct Done {
    seq: usize,
    bytes: usize,
    status: Status,
    output: String,
}

/// Room for lines in flight: a counting semaphore over lines and bytes.
struct Budget {
    state: Mutex<BudgetState>,
    freed: Condvar,
    max_lines: usize,
    max_bytes: usize,
}

#[derive(Default)]
struct BudgetState {
    lines: usize,
    bytes: usize,
    peak_lines: usize,
    peak_bytes: usize,
    cancelled: bool,
    /// Whether the reader is waiting for room (only then does a release wake anyone).
    waiting: bool,
}

impl Budget {
    fn new(max_lines: usize, max_bytes: usize) -> Budget {
        Budget {
            state: Mutex::new(BudgetState::default()),
            freed: Condvar::new(),
            max_lines: max_lines.max(1),
            max_bytes,
        }
    }

    /// Takes room for one line of `bytes` if there is some now.
    fn try_acquire(&self, bytes: usize) -> bool {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        let fits = !s.cancelled
            && s.lines < self.max_lines
            && (s.lines == 0 || s.bytes + bytes <= self.max_bytes);
        if fits {
            s.lines += 1;
            s.bytes += bytes;
            s.peak_lines = s.peak_lines.max(s.lines);
            s.peak_bytes = s.peak_bytes.max(s.bytes);
        }
        fits
    }

    /// Waits for room for one line of `bytes`; `false` when the run was cancelled.
    fn acquire(&self, bytes: usize) -> bool {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        loop {
            if s.cancelled {
                return false;
            }
            let fits =
                s.lines < self.max_lines && (s.lines == 0 || s.bytes + bytes <= self.max_bytes);
            if fits {
                s.lines += 1;
                s.bytes += bytes;
                s.peak_lines = s.peak_lines.max(s.lines);
                s.peak_bytes = s.peak_bytes.max(s.bytes);
                return true;
            }
            s.waiting = true;
            s = self.freed.wait(s).unwrap_or_else(|p| p.into_inner());
            s.waiting = false;
        }
    }

    /// Gives back the room of `lines` lines holding `bytes` bytes.
    fn release(&self, lines: usize, bytes: usize) {
        let mut s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        s.lines -= lines;
        s.bytes -= bytes;
        let wake = s.waiting;
        drop(s);
        if wake {
            self.freed.notify_all();
        }
    }

    fn cancel(&self) {
        self.state
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .cancelled = true;
        self.freed.notify_all();
    }

    fn peaks(&self) -> (usize, usize) {
        let s = self.state.lock().unwrap_or_else(|p| p.into_inner());
        (s.peak_lines, s.peak_bytes)
    }
}

/// How each line's result is written: one line of text per non-blank input line. Workers
/// format in parallel, so a format is shared between threads.
pub trait LineFormat: Sync {
    /// The record of a judged exchange.
    fn judged(&self, line: usize, judgement: &Judgement<'_>, exchange: Option<String>) -> String;
    /// The record of a line that could not be judged, and why.
    fn error(&self, line: usize, message: &str) -> String;
}

fn error_record(format: &dyn LineFormat, line: usize, error: &str) -> (Status, String) {
    (Status::ErrorRecord, format.error(line, error))
}

/// Judges one line. Never panics on bad input; a panic inside the engine becomes an error
/// record.
fn judge_line(
    line: usize,
    input: &Input,
    options: &Options<'_>,
    max_line: usize,
    max_findings: usize,
    settings: Option<&Settings>,
    format: &dyn LineFormat,
) -> (Status, String) {
    let bytes = match input {
        Input::Line(b) => b,
        Input::TooLong(n) => {
            return error_record(
                format,
                line,
                &format!(
                    "the line is {n} bytes, longer than the limit of {max_line} (--max-line-bytes)"
                ),
            );
        }
    };
    let file = match ExchangeFile::from_slice(bytes) {
        Ok(f) => f,
        Err(e) => {
            let what = match serde_json::from_slice::<serde::de::IgnoredAny>(bytes) {
                Ok(_) => "not an exchange",
                Err(e) if crate::wire::deep::is_depth_error(&e) => "not an exchange",
                Err(_) => "not JSON",
            };
            // The line is the record's own: only the column is worth giving.
            let at = e
                .column
                .map(|c| format!(" at column {c}"))
                .unwrap_or_default();
            return error_record(format, line, &format!("{what}{at}: {}", e.message));
        }
    };
    let ex = match file.into_exchange() {
        Ok(x) => x,
        Err(e) => return error_record(format, line, &format!("not an exchange: {}", e.message)),
    };
    let judged = std::panic::catch_unwind(AssertUnwindSafe(|| {
        let mut judgement = judge_capped(&ex, options, max_findings)
            .map_err(|e| revision_message(&e, Origin::Line))?;
        let failed = match settings {
            Some(s) => s.apply_all(&mut judgement, None),
            None => judgement.has_error(),
        };
        let status = if failed {
            Status::ErrorFindings
        } else {
            Status::Passed
        };
        Ok::<_, String>((status, format.judged(line, &judgement, ex.name.clone())))
    }));
    match judged {
        Ok(Ok(r)) => r,
        Ok(Err(msg)) => error_record(format, line, &msg),
        Err(_) => error_record(
            format,
            line,
            "internal error: the engine panicked on this exchange",
        ),
    }
}

struct ReaderStats {
    lines: usize,
    blank: usize,
}

/// Most lines the reader hands to a worker at once. Lines are batched only while workers are
/// busy (a batch goes out as soon as no earlier batch is waiting), so a slow live stream is
/// not held back, and a fast one costs few hand-offs between threads.
const BATCH: usize = 32;

fn read_all<R: BufRead>(
    mut reader: R,
    jobs: SyncSender<Vec<Job>>,
    queued: &AtomicUsize,
    budget: &Budget,
    max_line: usize,
) -> io::Result<ReaderStats> {
    let mut stats = ReaderStats { lines: 0, blank: 0 };
    let mut seq = 0;
    let mut buf = Vec::new();
    let mut batch: Vec<Job> = Vec::with_capacity(BATCH);
    let send = |batch: &mut Vec<Job>| -> bool {
        if batch.is_empty() {
            return true;
        }
        queued.fetch_add(1, Ordering::SeqCst);
        jobs.send(std::mem::replace(batch, Vec::with_capacity(BATCH)))
            .is_ok()
    };
    loop {
        let len = match read_line_capped(&mut reader, &mut buf, max_line) {
            Ok(Some(len)) => len,
            Ok(None) => break,
            Err(e) => {
                // Lines read before the failure are still judged and written.
                send(&mut batch);
                return Err(e);
            }
        };
        stats.lines += 1;
        if stats.lines == 1 && buf.starts_with(BOM) {
            buf.drain(..BOM.len());
        }
        let input = if len > max_line {
            Input::TooLong(len)
        } else if is_blank(&buf) {
            stats.blank += 1;
            continue;
        } else {
            Input::Line(std::mem::take(&mut buf))
        };
        let bytes = match &input {
            Input::Line(b) => b.len(),
            Input::TooLong(_) => 0,
        };
        // Lines held in the batch hold room: hand them on before waiting for more.
        if !budget.try_acquire(bytes) && (!send(&mut batch) || !budget.acquire(bytes)) {
            return Ok(stats);
        }
        batch.push(Job {
            seq,
            line: stats.lines,
            bytes,
            input,
        });
        seq += 1;
        if (batch.len() >= BATCH || queued.load(Ordering::SeqCst) == 0) && !send(&mut batch) {
            return Ok(stats);
        }
    }
    send(&mut batch);
    Ok(stats)
}

fn work(
    jobs: &Mutex<Receiver<Vec<Job>>>,
    queued: &AtomicUsize,
    done: SyncSender<Vec<Done>>,
    options: &JsonlOptions<'_>,
    format: &dyn LineFormat,
) {
    loop {
        let batch = {
            let rx = jobs.lock().unwrap_or_else(|p| p.into_inner());
            rx.recv()
        };
        let Ok(batch) = batch else { return };
        queued.fetch_sub(1, Ordering::SeqCst);
        let results: Vec<Done> = batch
            .into_iter()
            .map(|job| {
                let (status, output) = judge_line(
                    job.line,
                    &job.input,
                    &options.judge,
                    options.max_line_bytes,
                    options.max_findings_per_rule,
                    options.settings,
                    format,
                );
                Done {
                    seq: job.seq,
                    bytes: job.bytes,
                    status,
                    output,
                }
            })
            .collect();
        if done.send(results).is_err() {
            return;
        }
    }
}

/// Judges every exchange line of `reader` and writes one record per non-blank line to
/// `writer`, in input order. Returns the counts; an I/O error reading or writing stops the run
/// (records already written stay written).
pub fn run<R, W>(
    reader: R,
    writer: W,
    options: &JsonlOptions<'_>,
    format: &dyn LineFormat,
) -> io::Result<Summary>
where
    R: BufRead + Send,
    W: Write,
{
    let threads = options.worker_threads();
    let budget = Budget::new(options.max_in_flight, options.max_in_flight_bytes);
    let (job_tx, job_rx) = mpsc::sync_channel::<Vec<Job>>(threads * 2);
    let queued = AtomicUsize::new(0);
    let (done_tx, done_rx) = mpsc::sync_channel::<Vec<Done>>(options.max_in_flight.max(1));
    let job_rx = Arc::new(Mutex::new(job_rx));
    let mut writer = io::BufWriter::with_capacity(64 << 10, writer);
    let mut summary = Summary {
        threads,
        ..Summary::default()
    };

    let (read_result, write_result) = std::thread::scope(|s| {
        let budget = &budget;
        let queued = &queued;
        let reader_thread =
            s.spawn(move || read_all(reader, job_tx, queued, budget, options.max_line_bytes));
        for _ in 0..threads {
            let rx = Arc::clone(&job_rx);
            let tx = done_tx.clone();
            s.spawn(move || work(&rx, queued, tx, options, format));
        }
        drop(job_rx);
        drop(done_tx);

        let write_result = write_in_order(&done_rx, &mut writer, budget, &mut summary);
        if write_result.is_err() {
            budget.cancel();
        }
        drop(done_rx);
        let read_result = reader_thread
            .join()
            .unwrap_or_else(|_| Err(io::Error::other("the reader thread panicked")));
        (read_result, write_result)
    });
    let context = |what: &str, e: io::Error| io::Error::new(e.kind(), format!("{what}: {e}"));
    write_result.map_err(|e| context("writing output", e))?;
    let stats = read_result.map_err(|e| context("reading input", e))?;
    summary.lines = stats.lines;
    summary.blank = stats.blank;
    let (peak_lines, peak_bytes) = budget.peaks();
    summary.peak_in_flight = peak_lines;
    summary.peak_in_flight_bytes = peak_bytes;
    Ok(summary)
}

/// The writer: receives results in any order, writes them in input order, gives their room
/// back, and flushes whenever nothing else is ready (so a live stream is not held back).
fn write_in_order<W: Write>(
    done: &Receiver<Vec<Done>>,
    writer: &mut W,
    budget: &Budget,
    summary: &mut Summary,
) -> io::Result<()> {
    let mut pending: BTreeMap<usize, Done> = BTreeMap::new();
    let mut next = 0usize;
    loop {
        let batch = match done.try_recv() {
            Ok(b) => b,
            Err(TryRecvError::Empty) => {
                writer.flush()?;
                match done.recv() {
                    Ok(b) => b,
                    Err(_) => break,
                }
            }
            Err(TryRecvError::Disconnected) => break,
        };
        for d in batch {
            pending.insert(d.seq, d);
        }
        summary.peak_reorder = summary.peak_reorder.max(pending.len());
        let (mut lines, mut bytes) = (0, 0);
        while let Some(d) = pending.remove(&next) {
            writer.write_all(d.output.as_bytes())?;
            writer.write_all(b"\n")?;
            match d.status {
                Status::Passed => summary.judged += 1,
                Status::ErrorFindings => {
                    summary.judged += 1;
                    summary.with_error_findings += 1;
                }
                Status::ErrorRecord => summary.errors += 1,
            }
            lines += 1;
            bytes += d.bytes;
            next += 1;
        }
        if lines > 0 {
            budget.release(lines, bytes);
        }
    }
    writer.flush()?;
    if !pending.is_empty() {
        return Err(io::Error::other(format!(
            "internal error: the result for record {next} never arrived; {} later records were not written",
            pending.len()
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_counts_lines_and_bytes() {
        let b = Budget::new(2, 10);
        assert!(b.acquire(8));
        // A second line that would exceed the byte limit waits; a release makes room.
        std::thread::scope(|s| {
            s.spawn(|| {
                std::thread::sleep(std::time::Duration::from_millis(20));
                b.release(1, 8);
            });
            assert!(b.acquire(8));
        });
        assert!(b.acquire(2));
        assert_eq!(b.peaks(), (2, 10));
        b.cancel();
        assert!(!b.acquire(1));
    }
}
