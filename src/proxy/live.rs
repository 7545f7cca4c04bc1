//! The judging thread: it gathers what the relay tells ([`Note`]) into transactions (a
//! request and its answer), and when an answer ends it judges it, as `probe` would have:
//! a `tools/call` under the revision its session negotiated (or the one its request declares)
//! with the tool's definition from the `tools/list` the proxy saw; `initialize`,
//! `server/discover` and `tools/list` too, learning the session's revision and tools from
//! them. What it judged, or could not, goes to every [`Sink`].
//!
//! A `tools/call` answered with an event stream that ended before the response, after an event
//! id, is held until the client resumes it (a `GET` with that `Last-Event-ID`), and judged as
//! the one stream it is (the POST's head, every segment's complete events in order), or, when
//! no resumption comes within the stream's `retry` plus [`RESUME_GRACE`], as it ended.
//! Everything still under way when the proxy stops is judged as it stands (an answer cut off
//! ends `timeout`: the recorder stopped waiting).

use std::collections::HashMap;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::framing::Head;
use super::judged::{
    Copied, Judged, Kind, Unjudged, exchange_of, request_message, response_message, session_id,
    stream_state,
};
use super::note::Note;
use super::sessions::Sessions;
use super::sinks::Sink;
use super::upstream::Upstream;
use crate::judge::{Engine, Options, judge, revisions_of};
use crate::vocab::Outcome;
use crate::wire::analysis::Media;
use crate::wire::exchange::BodyEnd;

/// How long a cut stream waits for its resumption beyond its `retry` (1 s without one).
pub(crate) const RESUME_GRACE: Duration = Duration::from_secs(5);
/// Most cut streams held for a resumption at once (the oldest is judged as it ended).
const MAX_HELD: usize = 64;
/// The `retry` a stream without one is resumed after (the SSE standard leaves it to the
/// client; one second is what most do).
const DEFAULT_RETRY: Duration = Duration::from_secs(1);

/// One request and its answer, as copied.
struct Tx {
    at: Instant,
    request: Copied,
    answer: Option<Copied>,
    /// For a GET that resumes a held stream: that stream's transaction.
    resumes: Option<u64>,
}

/// A cut `tools/call` stream waiting for its resumption.
struct Held {
    tx: Tx,
    body: Value,
    last_event_id: String,
    /// When to stop waiting; `None` while a resumption is under way.
    deadline: Option<Instant>,
    /// How many resumptions joined it so far.
    resumed: u32,
    /// The end of its last segment.
    ended: Instant,
    end: BodyEnd,
}

/// The judging thread's state.
pub(crate) struct Live {
    upstream: Upstream,
    engine: &'static Engine,
    sessions: Sessions,
    txs: HashMap<u64, Tx>,
    held: HashMap<u64, Held>,
    seq: usize,
    sinks: Vec<Box<dyn Sink>>,
}

impl Live {
    pub(crate) fn new(upstream: Upstream, sinks: Vec<Box<dyn Sink>>) -> Live {
        Live {
            upstream,
            engine: Engine::builtin(),
            sessions: Sessions::default(),
            txs: HashMap::new(),
            held: HashMap::new(),
            seq: 0,
            sinks,
        }
    }

    /// Judges until told to stop (or until every relay is gone); then judges what is still
    /// under way and finishes the sinks.
    pub(crate) fn run(mut self, notes: Receiver<Note>) {
        loop {
            let wait = self
                .held
                .values()
                .filter_map(|h| h.deadline)
                .min()
                .map_or(Duration::from_secs(3600), |d| {
                    d.saturating_duration_since(Instant::now())
                });
            match notes.recv_timeout(wait) {
                Ok(Note::Stop) => break,
                Ok(n) => self.note(n),
                Err(RecvTimeoutError::Timeout) => self.expire(Instant::now()),
                Err(RecvTimeoutError::Disconnected) => break,
            }
        }
        self.stop();
        for s in &mut self.sinks {
            s.finish();
        }
    }

    fn note(&mut self, n: Note) {
        match n {
            Note::Request { tx, at, head, .. } => self.request(tx, at, head),
            Note::Response { tx, head, .. } => {
                if let Some(t) = self.txs.get_mut(&tx) {
                    t.answer = Some(Copied::new(head));
                }
            }
            Note::Body {
                tx,
                response,
                bytes,
            } => {
                if let Some(t) = self.txs.get_mut(&tx) {
                    let c = if response {
                        t.answer.as_mut()
                    } else {
                        Some(&mut t.request)
                    };
                    if let Some(c) = c {
                        c.body.extend_from_slice(&bytes);
                    }
                }
            }
            Note::End {
                tx,
                response,
                at,
                end,
                over,
            } => {
                let Some(t) = self.txs.get_mut(&tx) else {
                    return;
                };
                if !response {
                    t.request.over |= over;
                    return;
                }
                if let Some(a) = &mut t.answer {
                    a.over |= over;
                }
                if let Some(t) = self.txs.remove(&tx) {
                    self.answered(tx, t, at, end);
                }
            }
            Note::Unanswered { tx, why } => {
                if let Some(t) = self.txs.remove(&tx) {
                    self.unanswered(t, &format!("no answer: {why}"));
                }
            }
            Note::Trouble { why, .. } => {
                for s in &mut self.sinks {
                    s.trouble(&why);
                }
            }
            Note::Stop => {}
        }
    }

    fn request(&mut self, tx: u64, at: Instant, head: Head) {
        // A GET resuming a held stream stops its clock.
        let mut resumes = None;
        if head.method.eq_ignore_ascii_case("GET")
            && let Some(last) = head.header("last-event-id")
        {
            let sid = session_id(&head).map(str::to_string);
            if let Some((id, h)) = self.held.iter_mut().find(|(_, h)| {
                h.last_event_id == last && session_id(&h.tx.request.head).map(str::to_string) == sid
            }) {
                h.deadline = None;
                resumes = Some(*id);
            }
        }
        self.txs.insert(
            tx,
            Tx {
                at,
                request: Copied::new(head),
                answer: None,
                resumes,
            },
        );
    }

    /// An answer ended.
    fn answered(&mut self, id: u64, t: Tx, ended: Instant, end: BodyEnd) {
        if let Some(held) = t.resumes {
            return self.resumed(held, t, ended, end);
        }
        let method = t.request.head.method.to_ascii_uppercase();
        if method == "DELETE" {
            let ok = t
                .answer
                .as_ref()
                .is_some_and(|a| (200..300).contains(&a.head.status));
            if ok && let Some(sid) = session_id(&t.request.head) {
                self.sessions.ended(sid);
            }
            return;
        }
        if method != "POST" {
            return;
        }
        let Some(body) = request_message(&t.request) else {
            if t.request.over {
                self.unjudged(
                    None,
                    None,
                    "the request body was longer than the copy bound: relayed, not judged".into(),
                );
            }
            return;
        };
        let Some(rpc) = judged_method(&body) else {
            return;
        };
        // A tools/call stream cut before its response, after an event id, waits for the
        // client's resumption.
        if rpc == "tools/call"
            && let Some(a) = &t.answer
            && (200..300).contains(&a.head.status)
            && a.media() == Media::EventStream
            && !a.over
        {
            let st = stream_state(&a.body, body.get("id").unwrap_or(&Value::Null));
            if !st.answered
                && let Some(last) = st.last_event_id
            {
                let retry = st.retry.map_or(DEFAULT_RETRY, Duration::from_millis);
                return self.hold(
                    id,
                    t,
                    body,
                    last,
                    ended + retry + RESUME_GRACE,
                    ended,
                    end,
                    0,
                );
            }
        }
        self.judge_tx(t, body, ended, end, 0);
    }

    #[allow(clippy::too_many_arguments)]
    fn hold(
        &mut self,
        id: u64,
        tx: Tx,
        body: Value,
        last_event_id: String,
        deadline: Instant,
        ended: Instant,
        end: BodyEnd,
        resumed: u32,
    ) {
        if self.held.len() >= MAX_HELD
            && let Some(oldest) = self.held.keys().min().copied()
            && let Some(h) = self.held.remove(&oldest)
        {
            self.judge_held(h);
        }
        self.held.insert(
            id,
            Held {
                tx,
                body,
                last_event_id,
                deadline: Some(deadline),
                resumed,
                ended,
                end,
            },
        );
    }

    /// A resumption of held stream `held` ended: its events join the stream, which is judged
    /// unless it was cut again.
    fn resumed(&mut self, held: u64, get: Tx, ended: Instant, end: BodyEnd) {
        let Some(mut h) = self.held.remove(&held) else {
            return;
        };
        let resumed = h.resumed + 1;
        let Some(seg) = get
            .answer
            .filter(|a| (200..300).contains(&a.head.status) && a.media() == Media::EventStream)
        else {
            // Not resumed after all (e.g. 405): judged as it ended.
            return self.judge_held(h);
        };
        let id = h.body.get("id").cloned().unwrap_or(Value::Null);
        if let Some(a) = &mut h.tx.answer {
            let st = stream_state(&a.body, &id);
            a.body.truncate(st.complete_len);
            a.body.extend_from_slice(&seg.body);
            a.over |= seg.over;
            let st = stream_state(&a.body, &id);
            if !st.answered
                && !a.over
                && let Some(last) = st.last_event_id
            {
                let retry = st.retry.map_or(DEFAULT_RETRY, Duration::from_millis);
                return self.hold(
                    held,
                    h.tx,
                    h.body,
                    last,
                    ended + retry + RESUME_GRACE,
                    ended,
                    end,
                    resumed,
                );
            }
        }
        self.judge_tx(h.tx, h.body, ended, end, resumed);
    }

    fn expire(&mut self, now: Instant) {
        let due: Vec<u64> = self
            .held
            .iter()
            .filter(|(_, h)| h.deadline.is_some_and(|d| d <= now))
            .map(|(id, _)| *id)
            .collect();
        for id in due {
            if let Some(h) = self.held.remove(&id) {
                self.judge_held(h);
            }
        }
    }

    fn judge_held(&mut self, h: Held) {
        self.judge_tx(h.tx, h.body, h.ended, h.end, h.resumed);
    }

    /// The proxy stops: what is under way is judged as it stands.
    fn stop(&mut self) {
        let mut held: Vec<(u64, Held)> = self.held.drain().collect();
        held.sort_by_key(|(id, _)| *id);
        for (_, h) in held {
            self.judge_held(h);
        }
        let mut txs: Vec<(u64, Tx)> = self.txs.drain().collect();
        txs.sort_by_key(|(id, _)| *id);
        let now = Instant::now();
        for (_, t) in txs {
            if t.answer.is_some() && t.resumes.is_none() {
                self.answered_cut(t, now);
            } else {
                self.unanswered(t, "no answer before the proxy stopped");
            }
        }
    }

    /// An answer still under way when the proxy stopped.
    fn answered_cut(&mut self, t: Tx, now: Instant) {
        if !t.request.head.method.eq_ignore_ascii_case("POST") {
            return;
        }
        let Some(body) = request_message(&t.request) else {
            return;
        };
        if judged_method(&body).is_none() {
            return;
        }
        self.judge_tx_noted(
            t,
            body,
            now,
            BodyEnd::Timeout,
            0,
            Some("the proxy stopped before the answer ended: judged on what had arrived".into()),
        );
    }

    fn unanswered(&mut self, t: Tx, why: &str) {
        let Some(body) = request_message(&t.request) else {
            return;
        };
        let Some(method) = judged_method(&body) else {
            return;
        };
        let tool = tool_name(&body);
        self.unjudged(Some(method.to_string()), tool, why.to_string());
    }

    fn unjudged(&mut self, method: Option<String>, tool: Option<String>, why: String) {
        self.seq += 1;
        let u = Unjudged {
            seq: self.seq,
            method,
            tool,
            why,
        };
        for s in &mut self.sinks {
            s.unjudged(&u);
        }
    }

    fn judge_tx(&mut self, t: Tx, body: Value, ended: Instant, end: BodyEnd, resumed: u32) {
        self.judge_tx_noted(t, body, ended, end, resumed, None);
    }

    /// Judges a request and its answer, learning from a setup answer, and tells the sinks.
    fn judge_tx_noted(
        &mut self,
        t: Tx,
        body: Value,
        ended: Instant,
        end: BodyEnd,
        resumed: u32,
        note: Option<String>,
    ) {
        let Some(method) = judged_method(&body).map(str::to_string) else {
            return;
        };
        let tool = tool_name(&body);
        let Some(answer) = &t.answer else {
            return self.unanswered(t, "no answer");
        };
        let sid = session_id(&t.request.head).map(str::to_string);
        let sid = sid.as_deref();
        let mut ex = exchange_of(&self.upstream, &t.request, body.clone(), answer, end);
        // What a recorder of this session knew beside the bytes.
        ex.session = self.sessions.recorded(sid);
        if method == "tools/call" {
            ex.tool = tool.as_deref().and_then(|n| self.sessions.tool(sid, n));
            ex.initialize = self.sessions.negotiated(sid).cloned();
            ex.retry = body
                .pointer("/params/requestState")
                .and_then(Value::as_str)
                .and_then(|s| self.sessions.retry_of(s));
        } else if method == "tools/list" {
            ex.initialize = self.sessions.negotiated(sid).cloned();
        }
        let id = body.get("id").cloned().unwrap_or(Value::Null);
        let message = response_message(answer, &id);
        // Learn from the setup answers (before judging an initialize: the revision it
        // negotiated is the one it is judged under).
        let result = message.as_ref().and_then(|m| m.get("result"));
        match (method.as_str(), result) {
            ("initialize", Some(r)) => {
                let issued = answer
                    .head
                    .header(crate::vocab::protocol::header::SESSION_ID);
                let params = body.get("params").cloned().unwrap_or(Value::Null);
                self.sessions.initialized(issued.or(sid), &params, r);
            }
            ("tools/list", Some(r)) => {
                let first = body.pointer("/params/cursor").is_none_or(Value::is_null);
                self.sessions.listed(sid, first, r);
            }
            _ => {}
        }
        let revision = match method.as_str() {
            "initialize" => {
                let issued = answer
                    .head
                    .header(crate::vocab::protocol::header::SESSION_ID);
                self.sessions.revision(issued.or(sid))
            }
            _ => self.sessions.revision(sid),
        };
        let revision = match revision {
            Ok(Some(p)) => p,
            Ok(None) => match revisions_of(&ex) {
                Ok(ps) => ps[0],
                Err(e) => return self.unjudged(Some(method), tool, e.reason()),
            },
            Err(why) => return self.unjudged(Some(method), tool, why),
        };
        ex.protocol = Some(vec![revision]);
        let label = match &tool {
            Some(t) => format!("{method} {t}"),
            None => method.clone(),
        };
        self.seq += 1;
        ex.name = Some(format!("proxy {:04} {label}", self.seq));
        let judgement = match judge(
            &ex,
            &Options {
                protocols: Some(revision.only()),
                engine: self.engine,
            },
        ) {
            Ok(j) => j,
            Err(e) => {
                self.seq -= 1;
                return self.unjudged(Some(method), tool, e.reason());
            }
        };
        let mut notes: Vec<String> = note.into_iter().collect();
        if answer.over {
            notes.push(format!(
                "not judged in full: the answer was longer than the copy bound ({} bytes); judged on its first {} bytes, the rest was relayed uncopied",
                answer.body.len(),
                answer.body.len()
            ));
        }
        if resumed > 0 {
            notes.push(format!(
                "the stream was resumed {resumed} time(s) with Last-Event-ID and is judged as one"
            ));
        }
        let kind = if method == "tools/call" {
            Kind::Call
        } else {
            Kind::Setup
        };
        // A 2026-07-28 retry answers this input-required result.
        if kind == Kind::Call
            && judgement.verdicts[0].outcome == Outcome::InputRequired
            && let Some(r) = result
            && let Some(state) = r.get("requestState").and_then(Value::as_str)
        {
            self.sessions
                .input_required(state, r.get("inputRequests").and_then(Value::as_object));
        }
        let j = Judged {
            seq: self.seq,
            kind,
            method,
            tool,
            exchange: ex,
            judgement,
            latency: ended.saturating_duration_since(t.at),
            notes,
        };
        for s in &mut self.sinks {
            s.judged(&j);
        }
    }
}

/// The method of a request the proxy judges: `tools/call` and the setup answers.
fn judged_method(body: &Value) -> Option<&str> {
    body.get("id")?;
    match body.get("method")?.as_str()? {
        m @ ("tools/call" | "initialize" | "server/discover" | "tools/list") => Some(m),
        _ => None,
    }
}

fn tool_name(body: &Value) -> Option<String> {
    if body.get("method")?.as_str()? != "tools/call" {
        return None;
    }
    body.pointer("/params/name")
        .and_then(Value::as_str)
        .map(str::to_string)
}
