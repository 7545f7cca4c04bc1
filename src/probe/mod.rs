//! `probe`: a Streamable HTTP MCP client that exercises a live server under each protocol
//! revision, records every `tools/call` exchange exactly as received, and judges it with
//! the engine.
//!
//! Under **2026-07-28** every request is stateless: `params._meta` carries
//! `io.modelcontextprotocol/protocolVersion`, `clientCapabilities` (what `--answers` can
//! satisfy) and `clientInfo`; the headers `MCP-Protocol-Version`, `Mcp-Method` and, for
//! `tools/call`, `Mcp-Name` mirror the body (Base64 sentinel when the name is not
//! header-safe; `x-mcp-header` tool parameters become `Mcp-Param-*`). The probe asks
//! `server/discover` first, lists the tools (following `nextCursor`), then calls. An
//! `input_required` result is followed up, when the answers file covers every input request,
//! with a new JSON-RPC id, `inputResponses` keyed like `inputRequests`, the echoed
//! `requestState` and the same name and arguments, up to [`ProbeConfig::max_rounds`].
//!
//! Under **2025-11-25** the probe sends `initialize`, then `notifications/initialized`, and
//! then carries `MCP-Session-Id` (when the server assigned one) and `MCP-Protocol-Version` on
//! every request. A server request arriving on a `tools/call` SSE stream (`ping`,
//! `elicitation/create`, `roots/list`, ...) is answered with a POSTed JSON-RPC response: a
//! `ping` with an empty result, others from the answers file, or an error response when
//! there is no answer (-32601 for a method it has no answer for, -32602 for an elicitation
//! mode it did not declare); an accepted form elicitation keeps the requested schema's
//! `default` for every field the answer leaves out. After `initialize` the probe opens the
//! standalone GET stream (`Accept: text/event-stream`) and answers the server requests that
//! arrive there the same way, for as long as the session lasts; a 405 means the server offers
//! no such stream, which the transport allows. A response stream the server closes before
//! the response, after an event id, is resumed with GET and `Last-Event-ID` once the stream's
//! `retry` has passed (1 s without one), up to 20 times within the deadline, and the exchange
//! is judged as the one stream it is (the POST's head, every segment's events in order). The
//! session is DELETEd at the end (405 is fine).
//!
//! A 2026-07-28 request answered UnsupportedProtocolVersion (-32022) by a server whose
//! `supported` list names 2026-07-28 is sent once more; a server that lists only 2025-11-25
//! (or rejects `initialize` listing only 2026-07-28) gets a run under the listed revision as
//! well, when it was not asked for.
//!
//! Every `tools/call` carries `_meta.progressToken` (`mcp-verdict-probe-<id>`), so servers
//! may stream progress notifications.
//!
//! **Bounds.** Each request has connect, idle and total timeouts ([`Timeouts`]); each response
//! keeps at most [`Limits::body_bytes`] bytes and [`Limits::events`] SSE events; the whole
//! probe ends by [`Limits::deadline`] (requests due after it are not sent). A call whose
//! response did not complete (cut at a cap, closed, stalled, timed out, redirected) is
//! labelled with what happened ([`CallExchange::unanswered`]) and makes the exit status 1.
//!
//! Each `tools/call` exchange becomes an [`Exchange`](crate::Exchange) built from the bytes
//! as received and is judged under the revision probed; nothing is retried on its own beyond
//! the stream resumption and the version retry above.
//! Secrets in header values (`Authorization`, cookies, `*-Api-Key`, `*token*`, session ids)
//! are replaced by `[REDACTED]` before they reach an exchange, a record, a log line or the
//! output.
//!
//! With [`ProbeConfig::active`] (`--active`) each run also sends the requests of [`active`]:
//! one per error path, each judged and compared with what its rule says the server must
//! answer ([`ActiveCheck`], in [`RevisionRun::active`]).
//!
//! This module holds the entry point, [`run`], which sets up each revision's run (`session`),
//! makes the planned calls (`plan`, `call`) and the active checks (`active`), and gathers a
//! [`ProbeReport`] (`report`), rendered by `crate::outputs::probe`. That client logic is
//! written against a transport (`transport`: what it asks of one, and the HTTP transport,
//! which owns the header fields, the session id, stream resumption, the standalone GET
//! stream and DELETE); what to answer to a server request is the client's (`answers`), how
//! the answer travels is the transport's.
//!
//! ```no_run
//! use mcp_verdict::probe::{self, CallSpec, ProbeConfig};
//! use mcp_verdict::Protocol;
//!
//! let mut config = ProbeConfig::new("http://127.0.0.1:3000/mcp");
//! config.protocols = vec![Protocol::V2026_07_28];
//! config.calls.push(CallSpec { name: "echo".into(), arguments: Some(serde_json::json!({"text": "hi"})) });
//! let report = probe::run(&config).expect("server reachable");
//! for x in report.exchanges() {
//!     println!("{} {}", x.label, x.verdict().outcome);
//! }
//! std::process::exit(report.exit_code().into());
//! ```

pub mod active;
mod answers;
mod call;
mod config;
pub(crate) mod plan;
mod report;
mod runner;
mod session;
pub(crate) mod transport;

pub use active::{ActiveCheck, ActiveFinding, ActiveResult, Expected};
pub(crate) use config::CLIENT_NAME;
pub use config::{CallSpec, ProbeConfig};
pub use plan::{CallKind, PlannedCall};
pub use report::{CallExchange, ProbeReport, RevisionRun, RunStatus, SetupExchange};
pub use transport::{
    DEFAULT_DEADLINE, DEFAULT_MAX_BODY, DEFAULT_MAX_EVENTS, HttpStep, Limits, ReadStop, STDIN,
    ServerProcess, StdioCommand, Timeouts,
};

use std::sync::Arc;
use std::time::Instant;

use crate::views::diag::sanitize;
use crate::vocab::Protocol;
use answers::Answers;
use runner::Runner;
use transport::Transport;
use transport::http::{Client, HttpTransport, SharedAuth};
use transport::stdio::StdioTransport;

/// Why a probe could not run at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ProbeError {
    /// The configuration cannot work (bad URL, https without TLS support).
    #[error("{0}")]
    Config(String),
    /// No request reached the server.
    #[error("cannot reach the MCP server at {url}: {reason}")]
    Unreachable {
        /// The endpoint (secrets in it redacted).
        url: String,
        /// Why.
        reason: String,
    },
}

/// Probes the server under each configured revision.
pub fn run(config: &ProbeConfig) -> Result<ProbeReport, ProbeError> {
    let client = match &config.stdio {
        None => Some(
            Client::new(&config.url, CLIENT_NAME, config.timeouts, config.limits)
                .map_err(ProbeError::Config)?,
        ),
        Some(c) if c.command.is_empty() => {
            return Err(ProbeError::Config(
                "no server command given: probe -- COMMAND ARGS...".into(),
            ));
        }
        Some(_) => None,
    };
    let deadline = Instant::now() + config.limits.deadline;
    let url = sanitize(&config.url);
    let auth = oauth_client(config)?;
    let mut runs: Vec<RevisionRun> = Vec::new();
    let mut todo: Vec<Protocol> = config.protocols.clone();
    todo.reverse();
    while let Some(p) = todo.pop() {
        let answers = Arc::new(Answers {
            p,
            answers: config.answers.clone(),
        });
        let mut transport: Box<dyn Transport> = match (&client, &config.stdio) {
            (Some(c), _) => Box::new(
                HttpTransport::new(c.clone(), p, &url, config.headers.clone(), answers)
                    .with_auth(auth.clone()),
            ),
            (None, Some(command)) => Box::new(StdioTransport::new(
                command,
                p,
                answers,
                config.timeouts,
                config.limits,
                deadline,
            )),
            (None, None) => unreachable!("a client is made unless a stdio command is given"),
        };
        let mut runner = Runner::new(config, transport.as_mut(), p);
        // Set up, call, check; then end the session (and check what the server does with a
        // request in a session it ended).
        if runner.set_up() {
            runner.calls();
            runner.active_checks();
        }
        if runner.end_session() {
            runner.active_after_delete();
        }
        // A server that rejects the revision as unsupported and lists one the probe speaks
        // gets a run under that one too (once), unless it is already planned or done.
        if let Some(q) = runner.fallback
            && !config.protocols.contains(&q)
            && !runs.iter().any(|r| r.protocol == q)
        {
            todo.push(q);
        }
        runs.push(runner.run);
    }
    if let Some(first) = runs.first()
        && runs.iter().all(|r| r.unreachable.is_some())
    {
        let reason = first.unreachable.clone().unwrap_or_default();
        return Err(ProbeError::Unreachable { url, reason });
    }
    let authorization = auth
        .map(|a| {
            a.lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
                .steps()
                .to_vec()
        })
        .unwrap_or_default();
    Ok(ProbeReport {
        url,
        runs,
        authorization,
    })
}

/// The OAuth client of the probe, unless it does not authorize, speaks stdio, or the
/// `--header` fields carry credentials of their own.
fn oauth_client(config: &ProbeConfig) -> Result<Option<SharedAuth>, ProbeError> {
    // Authorization is for HTTP: a stdio server takes its credentials from the environment.
    let (Some(auth), None) = (config.auth.clone(), &config.stdio) else {
        return Ok(None);
    };
    if config
        .headers
        .iter()
        .any(|(n, _)| n.eq_ignore_ascii_case(crate::vocab::auth::header::AUTHORIZATION))
    {
        return Ok(None);
    }
    let http = crate::oauth::UreqHttp::new(
        &format!("{CLIENT_NAME}/{}", env!("CARGO_PKG_VERSION")),
        config.timeouts.connect,
        config.timeouts.total,
    );
    let client = crate::oauth::OAuthClient::new(auth, Arc::new(http), &config.url)
        .map_err(ProbeError::Config)?;
    Ok(Some(Arc::new(std::sync::Mutex::new(client))))
}
