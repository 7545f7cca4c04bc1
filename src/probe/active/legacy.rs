//! The active checks of a 2025-11-25 session: a `tools/list` whose protocol version header
//! names a version older than every MCP revision, one without the session id the server
//! issued, and, once the server has answered the probe's DELETE, one in the session it ended
//! (see the parent module).

use serde_json::json;

use super::{ActiveCheck, BOGUS_VERSION, Probe, Skip};
use crate::probe::runner::Runner;
use crate::probe::transport::MetaEdit;
use crate::vocab::protocol::header;

impl Runner<'_> {
    pub(super) fn legacy_probes(&mut self) -> Vec<Result<Probe, Skip>> {
        let mut out = Vec::new();
        let check = "unsupported-version";
        let rule = "transport.http.400-unsupported-version-header";
        if self.negotiated.is_none() {
            out.push(Err(Skip::new(check, rule, "no session was set up")));
            return out;
        }
        let list = |r: &mut Self| json!({"jsonrpc": "2.0", "id": r.id(), "method": "tools/list"});
        // 2025-11-25 basic/transports, Protocol Version Header: "If the server receives a
        // request with an invalid or unsupported MCP-Protocol-Version, it MUST respond with
        // 400 Bad Request."
        let body = list(self);
        out.push(Ok(Probe {
            check,
            rule,
            sent: format!("tools/list in the session with MCP-Protocol-Version {BOGUS_VERSION}"),
            body,
            edits: vec![MetaEdit::Set(
                header::PROTOCOL_VERSION.into(),
                BOGUS_VERSION.into(),
            )],
            ..Probe::default()
        }));

        // basic/transports, Session Management: "Servers that require a session ID SHOULD
        // respond to requests without an MCP-Session-Id header (other than initialization)
        // with HTTP 400 Bad Request." A server that serves the request does not require one.
        let check = "missing-session";
        let rule = "transport.http.400-missing-session";
        if self.t.session_id().is_none() {
            out.push(Err(Skip::new(
                check,
                rule,
                "the server issued no session id",
            )));
            out.push(Err(Skip::new(
                "ended-session",
                "transport.http.404-ended-session",
                "the server issued no session id",
            )));
            return out;
        }
        let body = list(self);
        out.push(Ok(Probe {
            check,
            rule,
            sent: "tools/list without the MCP-Session-Id the server issued".into(),
            body,
            edits: vec![MetaEdit::Drop(header::SESSION_ID.into())],
            lenient_2xx: Some(
                "the server served the request without its session id, so it does not require one, which the spec allows".into(),
            ),
            ..Probe::default()
        }));
        out
    }

    /// The check run once the session is over (2025-11-25): a request in the session the
    /// server ended when it answered the probe's DELETE. basic/transports, Session Management:
    /// "The server MAY terminate the session at any time, after which it MUST respond to
    /// requests containing that session ID with HTTP 404 Not Found."
    pub(in crate::probe) fn active_after_delete(&mut self) {
        if !self.cfg.active || self.run.unreachable.is_some() || self.t.session_id().is_none() {
            return;
        }
        let check = "ended-session";
        let rule = "transport.http.404-ended-session";
        let deleted = self
            .run
            .steps
            .iter()
            .rev()
            .find(|s| s.http_method == "DELETE")
            .map(|s| s.status);
        let c = match deleted {
            Some(Some(st)) if (200..300).contains(&st) => {
                let body = json!({"jsonrpc": "2.0", "id": self.id(), "method": "tools/list"});
                self.active_send(Probe {
                    check,
                    rule,
                    sent: format!(
                        "tools/list with the MCP-Session-Id of the session the server ended (DELETE answered {st})"
                    ),
                    body,
                    ended: true,
                    ..Probe::default()
                })
            }
            Some(Some(405)) => ActiveCheck::skipped(
                check,
                rule,
                "the server does not let clients end the session (DELETE answered 405)",
            ),
            Some(Some(st)) => ActiveCheck::skipped(
                check,
                rule,
                format!("the DELETE got HTTP {st}; no session is known to have ended"),
            ),
            _ => ActiveCheck::skipped(
                check,
                rule,
                "the DELETE got no response; no session is known to have ended",
            ),
        };
        self.run.active.push(c);
    }
}
