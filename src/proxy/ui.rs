//! `--ui`: a small page on loopback that lists the exchanges as the proxy judges them. `GET /`
//! is the page ([`super::page`]); `GET /events` is an event stream that sends every entry kept
//! so far and then each new one as it is judged (the page's `EventSource` resumes with
//! `Last-Event-ID` after a break, and gets what it missed). Each entry is one JSON object: the
//! exchange's number, method, tool, latency and notes, and its `classify --jsonl` record
//! (verdict, citations with their sentences, findings), redacted as every output is.
//!
//! The last [`KEEP`] entries are kept; the server answers only `GET` on these two paths and
//! closes each connection after its answer (the event stream when the proxy stops).

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Duration;

use serde_json::json;

use super::judged::{Judged, Unjudged};
use super::sinks::{Sink, unjudged_line};
use crate::outputs::jsonl::JsonLines;
use crate::run::stream::LineFormat;

/// Entries kept for a page that opens late.
pub(crate) const KEEP: usize = 1000;
/// How often an idle event stream sends a comment (so that a closed page is noticed).
const KEEPALIVE: Duration = Duration::from_secs(15);

/// The entries, shared by the judging thread (which adds) and the page connections (which
/// wait for them).
#[derive(Default)]
pub(crate) struct Feed {
    entries: Mutex<FeedState>,
    added: Condvar,
    stopped: AtomicBool,
}

#[derive(Default)]
struct FeedState {
    /// (number, JSON entry), oldest first.
    kept: VecDeque<(usize, String)>,
}

impl Feed {
    fn lock(&self) -> std::sync::MutexGuard<'_, FeedState> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn push(&self, seq: usize, entry: String) {
        let mut s = self.lock();
        if s.kept.len() >= KEEP {
            s.kept.pop_front();
        }
        s.kept.push_back((seq, entry));
        drop(s);
        self.added.notify_all();
    }

    /// Entries after number `after`, waiting up to `wait` for one.
    fn after(&self, after: usize, wait: Duration) -> Vec<(usize, String)> {
        let s = self.lock();
        let (s, _) = self
            .added
            .wait_timeout_while(s, wait, |s| {
                !self.stopped.load(Ordering::SeqCst)
                    && s.kept.back().is_none_or(|(n, _)| *n <= after)
            })
            .unwrap_or_else(|e| e.into_inner());
        s.kept.iter().filter(|(n, _)| *n > after).cloned().collect()
    }

    pub(crate) fn stop(&self) {
        self.stopped.store(true, Ordering::SeqCst);
        self.added.notify_all();
    }
}

/// The sink that feeds the page.
pub(crate) struct FeedSink(pub Arc<Feed>);

impl Sink for FeedSink {
    fn judged(&mut self, j: &Judged) {
        let record = JsonLines.judged(j.seq, &j.judgement, j.exchange.name.clone());
        let head = json!({
            "seq": j.seq,
            "method": j.method,
            "tool": j.tool,
            "latencyMs": (j.latency.as_secs_f64() * 10_000.0).round() / 10.0,
            "notes": j.notes,
        })
        .to_string();
        // The record is JSON already (escaped and redacted): it is set in as it is.
        let entry = format!("{},\"record\":{record}}}", &head[..head.len() - 1]);
        let entry = crate::views::redact::text(&entry).into_owned();
        self.0.push(j.seq, crate::outputs::safe::json(entry));
    }

    fn unjudged(&mut self, u: &Unjudged) {
        let entry = json!({
            "seq": u.seq,
            "method": u.method,
            "tool": u.tool,
            "notJudged": unjudged_line(u),
        })
        .to_string();
        self.0.push(u.seq, crate::outputs::safe::json(entry));
    }

    fn finish(&mut self) {
        self.0.stop();
    }
}

/// Starts the page's server on `addr` (loopback unless told otherwise).
pub(crate) fn start(
    addr: SocketAddr,
    feed: Arc<Feed>,
    upstream: String,
) -> std::io::Result<SocketAddr> {
    let listener = TcpListener::bind(addr)?;
    let bound = listener.local_addr()?;
    let page = Arc::new(super::page::render(&upstream));
    std::thread::Builder::new()
        .name("proxy-ui".into())
        .spawn(move || {
            for stream in listener.incoming() {
                let Ok(stream) = stream else { continue };
                if feed.stopped.load(Ordering::SeqCst) {
                    return;
                }
                let feed = feed.clone();
                let page = page.clone();
                let _ = std::thread::Builder::new()
                    .name("proxy-ui-conn".into())
                    .spawn(move || answer(stream, &feed, &page));
            }
        })?;
    Ok(bound)
}

/// Reads one request head and answers it.
fn answer(stream: TcpStream, feed: &Feed, page: &str) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let Ok(w) = stream.try_clone() else { return };
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    if reader.read_line(&mut line).is_err() {
        return;
    }
    let mut parts = line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    // The rest of the head: only Last-Event-ID matters.
    let mut last_id = 0usize;
    loop {
        let mut h = String::new();
        match reader.read_line(&mut h) {
            Ok(0) | Err(_) => break,
            Ok(_) if h.trim().is_empty() => break,
            Ok(_) => {
                if let Some((n, v)) = h.split_once(':')
                    && n.trim().eq_ignore_ascii_case("last-event-id")
                {
                    last_id = v.trim().parse().unwrap_or(0);
                }
            }
        }
    }
    let mut w = w;
    match (method, target) {
        ("GET", "/") => {
            let _ = write!(
                w,
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nCache-Control: no-store\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{page}",
                page.len()
            );
        }
        ("GET", "/events") => events(w, feed, last_id),
        ("GET", _) => plain(&mut w, "404 Not Found", "not found\n"),
        _ => plain(&mut w, "405 Method Not Allowed", "GET only\n"),
    }
}

fn plain(w: &mut TcpStream, status: &str, body: &str) {
    let _ = write!(
        w,
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
}

/// The event stream: what is kept after `after`, then each new entry, until the proxy stops
/// or the page goes.
fn events(mut w: TcpStream, feed: &Feed, mut after: usize) {
    if w
        .write_all(b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-store\r\nConnection: close\r\n\r\nretry: 1000\n\n")
        .is_err()
    {
        return;
    }
    loop {
        let entries = feed.after(after, KEEPALIVE);
        let mut out = String::new();
        for (n, e) in &entries {
            out.push_str(&format!("id: {n}\ndata: {e}\n\n"));
            after = *n;
        }
        if out.is_empty() {
            if feed.stopped.load(Ordering::SeqCst) {
                return;
            }
            out.push_str(": idle\n\n");
        }
        if w.write_all(out.as_bytes()).is_err() {
            return;
        }
    }
}
