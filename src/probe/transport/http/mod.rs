//! The Streamable HTTP transport: each message is POSTed with the header fields its revision
//! asks for, and the answer (a JSON body or an SSE stream) is read by [`client`].
//!
//! What belongs to HTTP alone lives here: the header fields (2026-07-28: `MCP-Protocol-Version`,
//! `Mcp-Method`, `Mcp-Name` and `Mcp-Param-*` mirroring the body, see [`headers`]; 2025-11-25:
//! `MCP-Session-Id` and `MCP-Protocol-Version` after `initialize`; the `--header` fields on
//! every request), the session id the server issues, answers to server requests POSTed as
//! JSON-RPC responses, the resumption of a broken response stream ([`resume`]), the standalone
//! GET stream ([`listen`]) and the DELETE that ends a session.

mod answer;
mod auth;
mod client;
mod headers;
mod listen;
mod resume;
mod steps;

use std::time::Duration;

use serde_json::Value;

pub(crate) use auth::SharedAuth;
pub(crate) use client::Client;

use super::{
    Heard, Inbound, MetaEdit, Outbound, Reply, SendError, Sent, SessionEnd, SharedResponder,
};
use crate::probe::transport::HttpStep;
use crate::views::diag::sanitize;
use crate::vocab::Protocol;
use crate::vocab::http::{EVENT_STREAM, JSON};
use crate::vocab::protocol::header;
use crate::wire::analysis::Media;
use crate::wire::exchange::{BodyEnd, Exchange, Headers, RecordedRequest};
use answer::post_answer;
use client::{Outgoing, Received};
use listen::Listener;
use steps::post_step;

/// The HTTP transport of one revision's run.
pub(crate) struct HttpTransport {
    client: Client,
    p: Protocol,
    /// The endpoint as recorded with each exchange (secrets redacted).
    url: String,
    /// `--header` fields, sent on every request.
    extra: Vec<(String, String)>,
    responder: SharedResponder,
    /// The session id the server issued in answer to `initialize` (2025-11-25).
    session: Option<String>,
    /// The standalone GET stream of a 2025-11-25 session, while it is open.
    listener: Option<Listener>,
    /// The OAuth client that answers authorization challenges, when the probe has one.
    auth: Option<SharedAuth>,
}

impl HttpTransport {
    /// A transport for a run under `p` over `client`; `url` is the endpoint as recorded.
    pub(crate) fn new(
        client: Client,
        p: Protocol,
        url: &str,
        extra: Vec<(String, String)>,
        responder: SharedResponder,
    ) -> HttpTransport {
        HttpTransport {
            client,
            p,
            url: url.to_string(),
            extra,
            responder,
            session: None,
            listener: None,
            auth: None,
        }
    }

    /// Authorizes with `auth` when the server asks for it, and sends its token on every
    /// request.
    pub(crate) fn with_auth(mut self, auth: Option<SharedAuth>) -> HttpTransport {
        self.auth = auth;
        self
    }

    /// Header fields for a POST carrying `method` (and, for tools/call, `name`).
    fn headers(&self, method: &str, name: Option<&str>) -> Vec<(String, String)> {
        let mut h: Vec<(String, String)> = vec![
            ("Content-Type".into(), JSON.into()),
            ("Accept".into(), format!("{JSON}, {EVENT_STREAM}")),
        ];
        match self.p {
            Protocol::V2026_07_28 => {
                h.push((header::PROTOCOL_VERSION.into(), self.p.as_str().into()));
                h.push((header::METHOD.into(), method.into()));
                if let Some(n) = name {
                    h.push((header::NAME.into(), headers::header_value(n)));
                }
            }
            Protocol::V2025_11_25 => {
                if method != "initialize" {
                    if let Some(s) = &self.session {
                        h.push((header::SESSION_ID.into(), s.clone()));
                    }
                    h.push((header::PROTOCOL_VERSION.into(), self.p.as_str().into()));
                }
            }
        }
        h.extend(auth::field(self.auth.as_ref()));
        h.extend(self.extra.iter().cloned());
        h
    }

    /// Header fields for a GET on the endpoint (the standalone stream, a resumption): an
    /// `Accept` listing `text/event-stream` (2025-11-25 basic/transports: "The client **MUST**
    /// include an `Accept` header, listing `text/event-stream` as a supported content type"),
    /// the session id and protocol version, and the `--header` fields.
    fn stream_headers(&self) -> Vec<(String, String)> {
        let mut h: Vec<(String, String)> = vec![("Accept".into(), EVENT_STREAM.into())];
        if let Some(s) = &self.session {
            h.push((header::SESSION_ID.into(), s.clone()));
        }
        h.push((header::PROTOCOL_VERSION.into(), self.p.as_str().into()));
        h.extend(auth::field(self.auth.as_ref()));
        h.extend(self.extra.iter().cloned());
        h
    }

    /// The header fields of a message: the revision's own, the `Mcp-Param-*` fields of a
    /// 2026-07-28 `tools/call`, then the check's edits.
    fn message_headers(&self, out: &Outbound<'_>) -> Vec<(String, String)> {
        let method = out.body.get("method").and_then(Value::as_str).unwrap_or("");
        let params = out.body.get("params");
        let name = (method == "tools/call")
            .then(|| params.and_then(|p| p.get("name")).and_then(Value::as_str))
            .flatten();
        let mut h = self.headers(method, name);
        if self.p == Protocol::V2026_07_28 && method == "tools/call" {
            h.extend(headers::param_headers(
                out.tool.and_then(|t| t.get("inputSchema")),
                params.and_then(|p| p.get("arguments")),
            ));
        }
        for edit in out.edits {
            match edit {
                MetaEdit::Set(name, value) => {
                    for (n, v) in h.iter_mut() {
                        if n.eq_ignore_ascii_case(name) {
                            *v = headers::header_value(value);
                        }
                    }
                }
                MetaEdit::Drop(name) => h.retain(|(n, _)| !n.eq_ignore_ascii_case(name)),
            }
        }
        h
    }

    /// Sends one HTTP request; server requests on its stream are answered as the responder
    /// says (their answers' steps and report lines are added to `steps` and `answered`).
    fn fetch(
        &self,
        out: &Outgoing<'_>,
        steps: &mut Vec<HttpStep>,
        answered: &mut Vec<String>,
    ) -> Result<Received, SendError> {
        let answer_headers = self.headers("response", None);
        let mut extra: Vec<HttpStep> = Vec::new();
        let mut on_message = |msg: &Value| match self.responder.reply(msg) {
            Some(Reply::Decline(line)) => answered.push(line),
            Some(Reply::Answer { response, how }) => {
                let (line, step) = post_answer(&self.client, &answer_headers, msg, &response, &how);
                answered.push(line);
                extra.push(step);
            }
            None => {}
        };
        let res = self.client.send(out, &mut on_message);
        steps.extend(extra);
        res
    }

    /// The exchange as it went over the wire.
    fn exchange(&self, sent: &[(String, String)], body: &Value, r: &Received) -> Exchange {
        Exchange {
            name: None,
            request: RecordedRequest {
                method: Some("POST".into()),
                url: Some(self.url.clone()),
                headers: Headers::new(
                    sent.iter()
                        .map(|(n, v)| (n.as_str(), auth::recorded(n, v, self.auth.as_ref()))),
                ),
                body: Some(body.clone()),
            },
            status: r.status,
            response_headers: r.headers.clone(),
            body: r.body.clone(),
            end: r.end,
            tool: None,
            initialize: None,
            session: None,
            retry: None,
            auth: auth::record(self.auth.as_ref(), sent),
            server: None,
            protocol: Some(vec![self.p]),
            stdio: None,
        }
    }
}

impl super::Transport for HttpTransport {
    fn send(&mut self, out: &Outbound<'_>) -> Sent {
        let mut headers = self.message_headers(out);
        let bytes = serde_json::to_vec(out.body).expect("JSON serializes");
        let rpc_id = out.body.get("id");
        let rpc_method = out.body.get("method").and_then(Value::as_str);
        let tool = (rpc_method == Some("tools/call"))
            .then(|| out.body.pointer("/params/name").and_then(Value::as_str))
            .flatten();
        let mut answered = Vec::new();
        let mut steps = Vec::new();
        // A refusal for want of authorization goes to the OAuth client; once it holds a
        // (new) token the message is sent again.
        let mut auth_note = None;
        let mut retries = 0;
        let res = loop {
            let res = self.post(
                &headers,
                &bytes,
                rpc_id,
                (rpc_method, tool),
                &mut steps,
                &mut answered,
            );
            let Ok(r) = &res else { break res };
            if retries == auth::MAX_RETRIES {
                break res;
            }
            retries += 1;
            match auth::react(self.auth.as_ref(), r) {
                auth::Outcome::NotMine => break res,
                auth::Outcome::Stop(flow, why) => {
                    steps.extend(flow);
                    auth_note = Some(why);
                    break res;
                }
                auth::Outcome::Retry(flow) => {
                    steps.extend(flow);
                    headers = self.message_headers(out);
                }
            }
        };
        let res = match res {
            Ok(r)
                if out.resume
                    && self.p == Protocol::V2025_11_25
                    && rpc_id.is_some()
                    && resume::resumable(&r) =>
            {
                let mut get = |last_id: &str| {
                    let mut headers = self.stream_headers();
                    headers.push(("Last-Event-ID".into(), last_id.to_string()));
                    let out = Outgoing {
                        method: "GET",
                        headers: &headers,
                        body: None,
                        rpc_id,
                        cancel: None,
                        on_head: None,
                    };
                    let mut extra = Vec::new();
                    let res = self.fetch(&out, &mut extra, &mut answered);
                    (res, extra)
                };
                let remaining = || self.client.remaining();
                Ok(resume::resume(
                    r, rpc_method, &remaining, &mut get, &mut steps,
                ))
            }
            other => other,
        };
        let result = res.map(|r| {
            // The session a 2025-11-25 server issues with its answer to `initialize`.
            if rpc_method == Some("initialize")
                && (200..300).contains(&r.status)
                && r.final_message
                    .as_ref()
                    .is_some_and(|m| m.get("result").is_some())
            {
                self.session = r
                    .headers
                    .get(header::SESSION_ID)
                    .map(|s| s.trim().to_string());
            }
            let mut inbound = self.inbound(&headers, out.body, r);
            if let Some(why) = &auth_note {
                inbound.failure = format!("{}; {why}", inbound.failure);
            }
            inbound
        });
        Sent {
            result,
            steps,
            answered,
        }
    }

    fn initialized(&mut self) {
        // The standalone GET stream, for server messages unrelated to a request (see
        // `listen`); a 405 answer means the server offers none.
        self.listener = Some(Listener::open(
            &self.client,
            self.stream_headers(),
            self.headers("response", None),
            self.responder.clone(),
        ));
    }

    fn drain(&mut self) -> Heard {
        self.listener
            .as_ref()
            .map(Listener::drain)
            .unwrap_or_default()
    }

    fn end(&mut self) -> SessionEnd {
        let heard = self
            .listener
            .take()
            .map(Listener::close)
            .unwrap_or_default();
        SessionEnd {
            heard,
            step: self.session.is_some().then(|| self.delete_session()),
            process: None,
        }
    }

    fn remaining(&self) -> Duration {
        self.client.remaining()
    }

    fn session_id(&self) -> Option<&str> {
        self.session.as_deref()
    }

    fn has_metadata_layer(&self) -> bool {
        true
    }

    fn tool_problem(&self, tool: &Value) -> Option<String> {
        // Under 2026-07-28 a tool with invalid x-mcp-header annotations is rejected (see
        // `headers::x_mcp_header_problem`).
        match self.p {
            Protocol::V2026_07_28 => headers::x_mcp_header_problem(tool.get("inputSchema")),
            Protocol::V2025_11_25 => None,
        }
    }
}

impl HttpTransport {
    /// POSTs one message and records its step (and those of the server requests answered on
    /// the way).
    fn post(
        &self,
        headers: &[(String, String)],
        bytes: &[u8],
        rpc_id: Option<&Value>,
        (rpc_method, tool): (Option<&str>, Option<&str>),
        steps: &mut Vec<HttpStep>,
        answered: &mut Vec<String>,
    ) -> Result<Received, SendError> {
        let request = Outgoing {
            method: "POST",
            headers,
            body: Some(bytes),
            rpc_id,
            cancel: None,
            on_head: None,
        };
        let mut extra = Vec::new();
        let res = self.fetch(&request, &mut extra, answered);
        steps.push(post_step(&res, rpc_method.map(str::to_string), tool));
        steps.append(&mut extra);
        res
    }

    fn inbound(&self, sent: &[(String, String)], body: &Value, r: Received) -> Inbound {
        let message = r
            .final_message
            .clone()
            .or_else(|| serde_json::from_slice::<Value>(&r.body).ok());
        Inbound {
            exchange: self.exchange(sent, body, &r),
            unanswered: unanswered(&r),
            failure: describe_failure(&r),
            response: r.final_message,
            message,
            status: Some(r.status),
            end: r.end,
            end_note: r.end_note,
        }
    }

    /// Ends the 2025-11-25 session with DELETE (405 is fine: the server does not let
    /// clients end it).
    fn delete_session(&self) -> HttpStep {
        let mut headers = vec![
            (
                header::SESSION_ID.to_string(),
                self.session.clone().unwrap_or_default(),
            ),
            (
                header::PROTOCOL_VERSION.to_string(),
                self.p.as_str().to_string(),
            ),
        ];
        headers.extend(self.extra.iter().cloned());
        let out = Outgoing {
            method: "DELETE",
            headers: &headers,
            body: None,
            rpc_id: None,
            cancel: None,
            on_head: None,
        };
        let res = self.client.send(&out, &mut |_| {});
        let note = match &res {
            Ok(r) if (200..300).contains(&r.status) || r.status == 405 => None,
            Ok(r) => Some(format!(
                "session termination answered HTTP {} (expected 2xx, or 405 if the server does not allow it)",
                r.status
            )),
            Err(e) => Some(e.to_string()),
        };
        HttpStep {
            post: None,
            http_method: "DELETE".into(),
            rpc_method: None,
            tool: None,
            status: res.as_ref().ok().map(|r| r.status),
            end: res.as_ref().ok().map(|r| r.end),
            stopped: res.as_ref().ok().and_then(|r| r.stop),
            redirect: res.as_ref().ok().and_then(Received::redirect),
            note,
            lines: None,
        }
    }
}

/// Why a response is not a complete answer to its request, when it is not: a redirect, a
/// body that ended (cut, closed, stalled, timed out) before the JSON-RPC response arrived, or
/// an event stream that ended without it.
fn unanswered(r: &Received) -> Option<String> {
    if let Some(to) = r.redirect() {
        return Some(format!(
            "redirected: HTTP {} to {to} (not followed)",
            r.status
        ));
    }
    if r.final_message.is_some() {
        return None;
    }
    if r.end == BodyEnd::Complete {
        let stream = Media::parse(r.headers.get("content-type")) == Media::EventStream;
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

/// Why a setup response is unusable: status, media type, a body excerpt.
fn describe_failure(r: &Received) -> String {
    let ct = r.headers.get("content-type").unwrap_or("(none)");
    let mut s = format!("HTTP {} ({ct}", r.status);
    if let Some(ra) = r.headers.get("retry-after") {
        s.push_str(&format!(", Retry-After: {ra}"));
    }
    s.push(')');
    if matches!(r.status, 401 | 403) {
        return auth::describe_refusal(r);
    }
    if let Some(m) = serde_json::from_slice::<Value>(&r.body)
        .ok()
        .filter(|m| m.get("error").is_some_and(Value::is_object))
    {
        s.push_str(&format!(
            ", JSON-RPC error {}",
            super::error_text(m.get("error"))
        ));
    } else if r.final_message.is_none() {
        s.push_str(", no JSON-RPC response");
        if !r.body.is_empty() {
            s.push_str(&format!(
                ": {}",
                sanitize(&crate::wire::excerpt(&r.body, 120))
            ));
        }
    }
    if let Some(n) = &r.end_note {
        s.push_str(&format!("; {n}"));
    }
    s
}
