//! Session checks (2025-11-25): what the server may send within what `initialize` negotiated,
//! when the exchange file records it.

use super::mrtr::missing_capability;
use crate::check_api::{Cx, Eval, Hit, Params};
use crate::wire::analysis::MessageKind;

crate::check_api::declare_checks! {
    "server_request_negotiated" => server_request_negotiated, ["methods"], ["methods"], STREAM,
        "a server request on the response stream needs a client capability the client did not declare in `initialize` (as recorded in the exchange's `initialize`)";
    "active_only" => active_only, ["code", "status"], [], NONE,
        "never on one exchange: what the rule asks depends on what the client did before (e.g. ended the session); `probe --active`, which knows, judges it";
}

/// Rules about a server's answer to a request whose meaning depends on the client's earlier
/// requests (a session it ended, a session id it left out on purpose) cannot be judged from
/// the exchange alone; `probe --active` judges them against its own record.
fn active_only(_: &Cx<'_>, _: &Params) -> Eval {
    Eval::NotApplicable
}

fn server_request_negotiated(cx: &Cx<'_>, p: &Params) -> Eval {
    let (Some(negotiated), Some(stream)) = (cx.an.ex.initialize.as_ref(), cx.an.stream()) else {
        return Eval::NotApplicable;
    };
    let caps = &negotiated.client_capabilities;
    let hits: Vec<Hit> = stream
        .messages
        .iter()
        .filter(|m| matches!(m.kind, MessageKind::Request))
        .filter_map(|m| {
            let method = m.method()?;
            let params = m.value.as_ref().and_then(|v| v.get("params"));
            let needed = missing_capability(caps, &p.methods, method, params)?;
            let declared = if caps.is_empty() {
                "none".to_string()
            } else {
                caps.keys()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            };
            Some(Hit::in_event(
                m.event,
                "",
                format!(
                    "event {} is a server request `{method}` that needs the client capability `{needed}`, which the client did not declare in `initialize` (declared: {declared})",
                    m.event
                ),
            ))
        })
        .collect();
    Eval::from_hits(hits)
}
