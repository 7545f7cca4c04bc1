//! One revision's run: its state, and sending one JSON-RPC message of it and recording the
//! HTTP steps that came of it (the request, and answers to server requests on its stream).

use serde_json::Value;

use super::ProbeConfig;
use super::answers::{answer_server_request, capabilities_for};
use super::http::{self, Outgoing, Received, Transport};
use super::report::{HttpStep, RevisionRun, RunStatus};
use super::steps::{DEFAULT_RECONNECT, MAX_RESUMES, get_step, post_step, resumable};
use crate::vocab::Protocol;
use crate::vocab::protocol::code::UNSUPPORTED_PROTOCOL_VERSION;

/// Why a response is not a complete answer to its request, when it is not: a redirect, a
/// body that ended (cut, closed, stalled, timed out) before the JSON-RPC response arrived, or
/// an event stream that ended without it.
pub(super) fn unanswered(r: &Received) -> Option<String> {
    if let Some(to) = r.redirect() {
        return Some(format!(
            "redirected: HTTP {} to {to} (not followed)",
            r.status
        ));
    }
    if r.final_message.is_some() {
        return None;
    }
    if r.end == crate::wire::exchange::BodyEnd::Complete {
        let stream = crate::wire::analysis::Media::parse(r.headers.get("content-type"))
            == crate::wire::analysis::Media::EventStream;
        // A complete JSON body is an answer, whatever it holds; a stream that ended without
        // the response is not.
        return ((200..300).contains(&r.status) && stream)
            .then(|| "the stream ended without the JSON-RPC response".to_string());
    }
    let what = r.stop.map_or("the body did not complete", |s| s.label());
    Some(match &r.end_note {
        Some(n) => format!("{what}: {n}"),
        None => what.to_string(),
    })
}

/// The state of one revision's run: the configuration, the transport, the revision, the
/// JSON-RPC ids handed out, the session (2025-11-25), the client capabilities declared and
/// what the run has found so far.
pub(super) struct Runner<'a> {
    pub(super) cfg: &'a ProbeConfig,
    pub(super) t: &'a Transport,
    pub(super) p: Protocol,
    pub(super) url: &'a str,
    next_id: i64,
    pub(super) session: Option<String>,
    pub(super) caps: Value,
    /// What `initialize` negotiated (2025-11-25), recorded with every exchange of the session.
    pub(super) negotiated: Option<crate::wire::exchange::Negotiated>,
    /// The standalone GET stream of a 2025-11-25 session, while it is open.
    pub(super) listener: Option<super::listen::Listener>,
    /// A revision the server said it supports instead of this one (UnsupportedProtocolVersion),
    /// which the probe speaks.
    pub(super) fallback: Option<Protocol>,
    pub(super) run: RevisionRun,
}

impl<'a> Runner<'a> {
    pub(super) fn new(
        cfg: &'a ProbeConfig,
        t: &'a Transport,
        p: Protocol,
        url: &'a str,
    ) -> Runner<'a> {
        Runner {
            cfg,
            t,
            p,
            url,
            next_id: 0,
            session: None,
            caps: capabilities_for(&cfg.answers),
            negotiated: None,
            listener: None,
            fallback: None,
            run: RevisionRun {
                protocol: p,
                status: RunStatus::Probed,
                server: None,
                tools: Vec::new(),
                discovery: Vec::new(),
                steps: Vec::new(),
                exchanges: Vec::new(),
                failures: Vec::new(),
                unreachable: None,
                stream_messages: Vec::new(),
                rejected_tools: Vec::new(),
                active: Vec::new(),
            },
        }
    }

    pub(super) fn id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    /// Moves what the standalone GET stream brought so far into the run. Called between
    /// requests (never while a call is under way, so that a call's steps stay its own).
    pub(super) fn drain_listener(&mut self) {
        if let Some(heard) = self.listener.as_ref().map(super::listen::Listener::drain) {
            self.take_heard(heard);
        }
    }

    /// Closes the standalone GET stream, if open, and keeps what it brought.
    pub(super) fn close_listener(&mut self) {
        if let Some(l) = self.listener.take() {
            let heard = l.close();
            self.take_heard(heard);
        }
    }

    fn take_heard(&mut self, heard: super::listen::Heard) {
        for s in heard.steps {
            self.push_step(s);
        }
        self.run.stream_messages.extend(heard.lines);
    }

    pub(super) fn push_step(&mut self, mut step: HttpStep) -> usize {
        if step.http_method == "POST" {
            step.post = Some(self.run.post_count() + 1);
        }
        self.run.steps.push(step);
        self.run.steps.len() - 1
    }

    /// Sends one HTTP request and reads its response; server requests on its stream are
    /// answered (2025-11-25; their answers' steps are returned) or, under 2026-07-28, which has
    /// no server requests on a response stream, reported as not answered.
    pub(super) fn fetch(
        &self,
        out: &Outgoing<'_>,
        answered: &mut Vec<String>,
    ) -> (Result<Received, http::SendError>, Vec<HttpStep>) {
        let mut extra_steps: Vec<HttpStep> = Vec::new();
        let legacy = self.p == Protocol::V2025_11_25;
        let answer_headers = self.headers("response", None);
        let t = self.t;
        let answers = &self.cfg.answers;
        let mut on_message = |msg: &Value| {
            if !legacy {
                if let (Some(id), Some(m)) =
                    (msg.get("id"), msg.get("method").and_then(Value::as_str))
                {
                    answered.push(format!(
                        "{} (id {id}) not answered: {} has no server requests on a response stream",
                        crate::views::diag::sanitize(m),
                        Protocol::V2026_07_28
                    ));
                }
                return;
            }
            if let Some((line, step)) = answer_server_request(t, &answer_headers, answers, msg) {
                answered.push(line);
                extra_steps.push(step);
            }
        };
        let res = self.t.send(out, &mut on_message);
        (res, extra_steps)
    }

    /// Sends one JSON-RPC message; records the step. Server requests on the stream are
    /// answered (2025-11-25) and recorded after it. A 2025-11-25 stream the server closes
    /// before the response, after an event id, is resumed with GET and `Last-Event-ID`
    /// ([`Runner::resume`]); a 2026-07-28 request rejected as UnsupportedProtocolVersion by
    /// a server that lists this revision as supported is sent once more.
    pub(super) fn send(
        &mut self,
        body: &Value,
        headers: &[(String, String)],
        tool: Option<&str>,
        answered: &mut Vec<String>,
    ) -> Result<Received, http::SendError> {
        let bytes = serde_json::to_vec(body).expect("JSON serializes");
        let rpc_id = body.get("id");
        let rpc_method = body
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_string);
        let out = Outgoing {
            method: "POST",
            headers,
            body: Some(&bytes),
            rpc_id,
            cancel: None,
            on_head: None,
        };
        let mut tries = 0;
        let res = loop {
            tries += 1;
            let (res, extra_steps) = self.fetch(&out, answered);
            let retry = match &res {
                Ok(r) if tries == 1 && self.p == Protocol::V2026_07_28 => self.version_retry(r),
                _ => None,
            };
            let mut step = post_step(&res, rpc_method.clone(), tool);
            if let Some(why) = &retry {
                step.note = Some(why.clone());
            }
            self.push_step(step);
            for s in extra_steps {
                self.push_step(s);
            }
            if let Err(http::SendError::Unreachable(why)) = &res
                && self.run.steps.len() == 1
            {
                self.run.unreachable = Some(why.clone());
            }
            if retry.is_none() {
                break res;
            }
        };
        match res {
            Ok(r) if self.p == Protocol::V2025_11_25 && rpc_id.is_some() && resumable(&r) => {
                Ok(self.resume(r, rpc_id, rpc_method.as_deref(), answered))
            }
            other => other,
        }
    }

    /// When `r` rejects the request as UnsupportedProtocolVersion (-32022) and its
    /// `error.data.supported` lists this run's revision, why the request is sent once more.
    /// 2026-07-28 basic/transports/streamable-http, Backward Compatibility: "If the body
    /// contains a recognized modern JSON-RPC error, the server speaks a modern version of MCP
    /// — retry using the advertised `supported` versions"; basic/versioning: "version
    /// mismatches surface as `UnsupportedProtocolVersionError` and the client retries with a
    /// mutually supported version". The probe speaks one revision per run, so it retries only
    /// when that revision is listed (a server listing only 2025-11-25 gets that run instead,
    /// see [`Runner::fallback`]).
    fn version_retry(&self, r: &Received) -> Option<String> {
        let supported = rejected_version(r)?;
        let ours = self.p.as_str();
        supported.iter().any(|v| v == ours).then(|| {
            format!(
                "rejected as UnsupportedProtocolVersion ({UNSUPPORTED_PROTOCOL_VERSION}) although the server lists {ours} among its supported versions {supported:?}; sent once more with {ours}"
            )
        })
    }

    /// Resumes a 2025-11-25 response stream the server closed before the response: waits for
    /// the stream's `retry` (or [`DEFAULT_RECONNECT`]), then GETs the endpoint with
    /// `Last-Event-ID`, up to [`MAX_RESUMES`] times, within the probe's deadline. The
    /// result is the POST's response with the body of every segment in order (each cut to
    /// its last complete event), so the exchange is judged as the one stream it is.
    ///
    /// 2025-11-25 basic/transports, Sending Messages to the Server: the server "**MAY** close
    /// the _connection_ (without terminating the _SSE stream_) at any time ... The client
    /// **SHOULD** then \"poll\" the SSE stream by attempting to reconnect", and "The client
    /// **MUST** respect the `retry` field, waiting the given number of milliseconds before
    /// attempting to reconnect". Resumability and Redelivery: "If the client wishes to resume
    /// after a disconnection (whether due to network failure or server-initiated closure), it
    /// **SHOULD** issue an HTTP GET to the MCP endpoint, and include the `Last-Event-ID`
    /// header to indicate the last event ID it received"; "Resumption is always via HTTP GET
    /// with `Last-Event-ID`."
    fn resume(
        &mut self,
        first: Received,
        rpc_id: Option<&Value>,
        rpc_method: Option<&str>,
        answered: &mut Vec<String>,
    ) -> Received {
        let mut merged = first;
        let what = rpc_method.unwrap_or("request");
        for attempt in 1..=MAX_RESUMES {
            if merged.final_message.is_some() || !resumable(&merged) {
                break;
            }
            let Some(last_id) = merged.last_event_id.clone() else {
                break;
            };
            let wait = merged.retry.unwrap_or(DEFAULT_RECONNECT);
            let why_wait = match merged.retry {
                Some(_) => "the stream's retry field",
                None => "no retry field; the probe's default",
            };
            if wait >= self.t.remaining() {
                self.note_last_step(format!(
                    "not resumed: waiting {} ms ({why_wait}) would pass the probe's deadline",
                    wait.as_millis()
                ));
                break;
            }
            std::thread::sleep(wait);
            let mut headers = self.stream_headers();
            headers.push(("Last-Event-ID".into(), last_id.clone()));
            let out = Outgoing {
                method: "GET",
                headers: &headers,
                body: None,
                rpc_id,
                cancel: None,
                on_head: None,
            };
            let (res, extra_steps) = self.fetch(&out, answered);
            let mut step = get_step(&res);
            let mut note = format!(
                "resumption {attempt} of the {} stream: Last-Event-ID: {}, after waiting {} ms ({why_wait})",
                crate::views::diag::sanitize(what),
                crate::views::diag::sanitize(&last_id),
                wait.as_millis()
            );
            if let Some(n) = &step.note {
                note.push_str("; ");
                note.push_str(n);
            }
            let g = match res {
                Ok(g) => g,
                Err(_) => {
                    step.note = Some(note);
                    self.push_step(step);
                    break;
                }
            };
            let sse = crate::wire::analysis::Media::parse(g.headers.get("content-type"))
                == crate::wire::analysis::Media::EventStream;
            if !(200..300).contains(&g.status) || !sse {
                note.push_str(&format!(
                    "; the server did not resume the stream (HTTP {}{})",
                    g.status,
                    if g.status == 405 {
                        ", Method Not Allowed"
                    } else {
                        ", not an event stream"
                    }
                ));
                step.note = Some(note);
                self.push_step(step);
                for s in extra_steps {
                    self.push_step(s);
                }
                break;
            }
            step.note = Some(note);
            self.push_step(step);
            for s in extra_steps {
                self.push_step(s);
            }
            merged.body.truncate(merged.complete_len);
            let offset = merged.body.len();
            merged.body.extend_from_slice(&g.body);
            merged.complete_len = offset + g.complete_len;
            merged.end = g.end;
            merged.stop = g.stop;
            merged.end_note = g.end_note;
            merged.final_message = g.final_message;
            merged.last_event_id = g.last_event_id.or(Some(last_id));
            merged.retry = g.retry.or(merged.retry);
        }
        merged
    }

    fn note_last_step(&mut self, note: String) {
        if let Some(s) = self.run.steps.last_mut() {
            s.note = Some(match s.note.take() {
                Some(n) => format!("{n}; {note}"),
                None => note,
            });
        }
    }
}

/// The supported versions of an UnsupportedProtocolVersion (-32022) error response, when `r`
/// is one (a 4xx JSON body or the response itself).
pub(super) fn rejected_version(r: &Received) -> Option<Vec<String>> {
    let msg = r
        .final_message
        .clone()
        .or_else(|| serde_json::from_slice::<Value>(&r.body).ok())?;
    let err = msg.get("error")?;
    if err.get("code").and_then(Value::as_i64) != Some(UNSUPPORTED_PROTOCOL_VERSION) {
        return None;
    }
    Some(
        err.pointer("/data/supported")
            .and_then(Value::as_array)
            .map(|v| {
                v.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default(),
    )
}
