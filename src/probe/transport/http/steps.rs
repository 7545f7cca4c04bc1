//! What the probe's HTTP steps record: shared by the transport (POSTs and their resumptions)
//! and the standalone GET stream's listener.

use super::client::Received;
use crate::probe::transport::HttpStep;
use crate::probe::transport::SendError;

/// The step of a POST and what came of it.
pub(super) fn post_step(
    res: &Result<Received, SendError>,
    rpc_method: Option<String>,
    tool: Option<&str>,
) -> HttpStep {
    HttpStep {
        post: None,
        http_method: "POST".into(),
        rpc_method,
        tool: tool.map(str::to_string),
        status: res.as_ref().ok().map(|r| r.status),
        end: res.as_ref().ok().map(|r| r.end),
        stopped: res.as_ref().ok().and_then(|r| r.stop),
        redirect: res.as_ref().ok().and_then(Received::redirect),
        note: match res {
            Ok(r) => match (r.redirect(), &r.end_note) {
                (Some(to), None) => Some(format!(
                    "redirected to {to}; the probe does not follow redirects"
                )),
                (_, n) => n.clone(),
            },
            Err(e) => Some(e.to_string()),
        },
        lines: None,
    }
}

/// The step of a GET (a resumption or the standalone stream) and what came of it.
pub(super) fn get_step(res: &Result<Received, SendError>) -> HttpStep {
    HttpStep {
        http_method: "GET".into(),
        ..post_step(res, None, None)
    }
}
