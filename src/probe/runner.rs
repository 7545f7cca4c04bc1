//! One revision's run: its state, and sending one JSON-RPC message of it and recording the
//! HTTP steps that came of it (the request, and answers to server requests on its stream).

use serde_json::Value;

use super::ProbeConfig;
use super::answers::{answer_server_request, capabilities_for};
use super::http::{self, Outgoing, Received, Transport};
use super::report::{HttpStep, RevisionRun, RunStatus};
use crate::vocab::Protocol;

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
            run: RevisionRun {
                protocol: p,
                status: RunStatus::Probed,
                server: None,
                tools: Vec::new(),
                steps: Vec::new(),
                exchanges: Vec::new(),
                failures: Vec::new(),
                unreachable: None,
            },
        }
    }

    pub(super) fn id(&mut self) -> i64 {
        self.next_id += 1;
        self.next_id
    }

    pub(super) fn push_step(&mut self, mut step: HttpStep) -> usize {
        if step.http_method == "POST" {
            step.post = Some(self.run.post_count() + 1);
        }
        self.run.steps.push(step);
        self.run.steps.len() - 1
    }

    /// Sends one JSON-RPC message; records the step. Server requests on the stream are
    /// answered (2025-11-25) and recorded after it.
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
        let mut extra_steps: Vec<HttpStep> = Vec::new();
        let legacy = self.p == Protocol::V2025_11_25;
        let answer_headers = self.headers("response", None);
        let t = self.t;
        let answers = &self.cfg.answers;
        let mut on_message = |msg: &Value| {
            if !legacy {
                return;
            }
            if let Some((line, step)) = answer_server_request(t, &answer_headers, answers, msg) {
                answered.push(line);
                extra_steps.push(step);
            }
        };
        let out = Outgoing {
            method: "POST",
            headers,
            body: Some(&bytes),
            rpc_id,
        };
        let res = self.t.send(&out, &mut on_message);
        let step = HttpStep {
            post: None,
            http_method: "POST".into(),
            rpc_method,
            tool: tool.map(str::to_string),
            status: res.as_ref().ok().map(|r| r.status),
            end: res.as_ref().ok().map(|r| r.end),
            stopped: res.as_ref().ok().and_then(|r| r.stop),
            redirect: res.as_ref().ok().and_then(Received::redirect),
            note: match &res {
                Ok(r) => match (r.redirect(), &r.end_note) {
                    (Some(to), None) => Some(format!(
                        "redirected to {to}; the probe does not follow redirects"
                    )),
                    (_, n) => n.clone(),
                },
                Err(e) => Some(e.to_string()),
            },
        };
        self.push_step(step);
        for s in extra_steps {
            self.push_step(s);
        }
        if let Err(http::SendError::Unreachable(why)) = &res
            && self.run.steps.len() == 1
        {
            self.run.unreachable = Some(why.clone());
        }
        res
    }
}
