//! What the proxy learned from the traffic it relayed, as a client that recorded it would know
//! it: per 2025-11-25 session (`MCP-Session-Id`), what `initialize` negotiated, the tools
//! `tools/list` listed and whether the session was ended; for traffic without a session (every
//! 2026-07-28 request, and servers that issue no session id), the same once for the upstream;
//! and the `InputRequiredResult`s a 2026-07-28 retry answers, by their `requestState`.
//!
//! Bounded: at most [`MAX_SESSIONS`] sessions (the least recently used goes first) and
//! [`MAX_PENDING_INPUTS`] input-required results.

use std::collections::{HashMap, VecDeque};

use serde_json::{Map, Value};

use crate::vocab::Protocol;
use crate::wire::exchange::{Negotiated, RecordedRetry, RecordedSession};

/// Most sessions remembered.
pub(crate) const MAX_SESSIONS: usize = 1000;
/// Most input-required results remembered.
pub(crate) const MAX_PENDING_INPUTS: usize = 256;
/// Most tools remembered per session.
const MAX_TOOLS: usize = 10_000;

/// What one session (or the session-less traffic) established.
#[derive(Debug, Default, Clone)]
pub(crate) struct Session {
    pub negotiated: Option<Negotiated>,
    pub tools: Vec<Value>,
    pub ended: bool,
    last_used: u64,
}

/// Everything the proxy knows about the upstream's sessions.
#[derive(Debug, Default)]
pub(crate) struct Sessions {
    by_id: HashMap<String, Session>,
    none: Session,
    clock: u64,
    inputs: VecDeque<(String, Map<String, Value>)>,
}

impl Sessions {
    fn get_mut(&mut self, id: Option<&str>) -> &mut Session {
        self.clock += 1;
        let clock = self.clock;
        let s = match id {
            None => &mut self.none,
            Some(id) => {
                if !self.by_id.contains_key(id)
                    && self.by_id.len() >= MAX_SESSIONS
                    && let Some(oldest) = self
                        .by_id
                        .iter()
                        .min_by_key(|(_, s)| s.last_used)
                        .map(|(k, _)| k.clone())
                {
                    self.by_id.remove(&oldest);
                }
                self.by_id.entry(id.to_string()).or_default()
            }
        };
        s.last_used = clock;
        s
    }

    fn get(&self, id: Option<&str>) -> Option<&Session> {
        match id {
            None => Some(&self.none),
            Some(id) => self.by_id.get(id),
        }
    }

    /// An `initialize` was answered: `request` is its params, `result` the result, `id` the
    /// session the server issued (if any).
    pub(crate) fn initialized(&mut self, id: Option<&str>, params: &Value, result: &Value) {
        let negotiated = Negotiated {
            client_capabilities: params
                .get("capabilities")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
            protocol_version: result
                .get("protocolVersion")
                .and_then(Value::as_str)
                .map(str::to_string),
            client_info: params.get("clientInfo").cloned(),
            server_capabilities: result.get("capabilities").cloned(),
            server_info: result.get("serverInfo").cloned(),
        };
        let s = self.get_mut(id);
        *s = Session {
            negotiated: Some(negotiated),
            last_used: s.last_used,
            ..Session::default()
        };
    }

    /// A `tools/list` page was answered: the first page (no `cursor`) starts the list anew.
    pub(crate) fn listed(&mut self, id: Option<&str>, first_page: bool, result: &Value) {
        let s = self.get_mut(id);
        if first_page {
            s.tools.clear();
        }
        if let Some(tools) = result.get("tools").and_then(Value::as_array) {
            for t in tools {
                if s.tools.len() >= MAX_TOOLS {
                    break;
                }
                s.tools.push(t.clone());
            }
        }
    }

    /// The session was ended by a `DELETE` the server accepted.
    pub(crate) fn ended(&mut self, id: &str) {
        self.get_mut(Some(id)).ended = true;
    }

    /// What `initialize` negotiated for requests in session `id`.
    pub(crate) fn negotiated(&self, id: Option<&str>) -> Option<&Negotiated> {
        self.get(id)?.negotiated.as_ref()
    }

    /// The revision the session negotiated, when `initialize` was seen: `Ok(None)` when it was
    /// not, an error naming a version this tool does not judge.
    pub(crate) fn revision(&self, id: Option<&str>) -> Result<Option<Protocol>, String> {
        match self
            .negotiated(id)
            .and_then(|n| n.protocol_version.as_deref())
        {
            None => Ok(None),
            Some(v) => Protocol::parse(v).map(Some).ok_or_else(|| {
                format!(
                    "the session negotiated protocol version `{v}`, which this tool does not judge (it knows {})",
                    Protocol::names()
                )
            }),
        }
    }

    /// The definition of tool `name` as the session's `tools/list` gave it (else as the
    /// session-less one did).
    pub(crate) fn tool(&self, id: Option<&str>, name: &str) -> Option<Value> {
        let named = |s: &Session| {
            s.tools
                .iter()
                .rev()
                .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
                .cloned()
        };
        self.get(id).and_then(named).or_else(|| named(&self.none))
    }

    /// The session a request in session `id` belongs to, as an exchange records it.
    pub(crate) fn recorded(&self, id: Option<&str>) -> Option<RecordedSession> {
        let id = id?;
        Some(RecordedSession {
            id: id.to_string(),
            ended: self.get(Some(id)).is_some_and(|s| s.ended),
        })
    }

    /// An `InputRequiredResult` was answered with this `requestState`.
    pub(crate) fn input_required(&mut self, state: &str, requests: Option<&Map<String, Value>>) {
        if self.inputs.len() >= MAX_PENDING_INPUTS {
            self.inputs.pop_front();
        }
        self.inputs
            .push_back((state.to_string(), requests.cloned().unwrap_or_default()));
    }

    /// The input-required result a retry carrying `state` answers, when the proxy saw it.
    pub(crate) fn retry_of(&self, state: &str) -> Option<RecordedRetry> {
        self.inputs
            .iter()
            .rev()
            .find(|(s, _)| s == state)
            .map(|(_, requests)| RecordedRetry {
                input_requests: (!requests.is_empty()).then(|| requests.clone()),
                request_state_altered: false,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_session_keeps_what_it_negotiated_and_listed() {
        let mut s = Sessions::default();
        s.initialized(
            Some("a"),
            &json!({"capabilities": {"elicitation": {}}, "clientInfo": {"name": "c"}}),
            &json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}}}),
        );
        s.listed(Some("a"), true, &json!({"tools": [{"name": "echo"}]}));
        s.listed(None, true, &json!({"tools": [{"name": "other"}]}));
        assert_eq!(s.revision(Some("a")), Ok(Some(Protocol::V2025_11_25)));
        assert_eq!(s.revision(None), Ok(None));
        assert!(s.tool(Some("a"), "echo").is_some());
        assert!(
            s.tool(Some("a"), "other").is_some(),
            "falls back to the session-less list"
        );
        assert!(s.tool(Some("b"), "echo").is_none());
        assert!(!s.recorded(Some("a")).unwrap().ended);
        s.ended("a");
        assert!(s.recorded(Some("a")).unwrap().ended);
        s.initialized(
            Some("z"),
            &json!({}),
            &json!({"protocolVersion": "2024-11-05"}),
        );
        assert!(s.revision(Some("z")).unwrap_err().contains("2024-11-05"));
    }

    #[test]
    fn sessions_and_inputs_stay_bounded() {
        let mut s = Sessions::default();
        for i in 0..MAX_SESSIONS + 10 {
            s.ended(&i.to_string());
        }
        assert_eq!(s.by_id.len(), MAX_SESSIONS);
        assert!(
            s.get(Some("0")).is_none(),
            "the least recently used went first"
        );
        for i in 0..MAX_PENDING_INPUTS + 10 {
            s.input_required(&i.to_string(), None);
        }
        assert_eq!(s.inputs.len(), MAX_PENDING_INPUTS);
        assert!(s.retry_of("0").is_none());
        assert!(s.retry_of(&(MAX_PENDING_INPUTS + 9).to_string()).is_some());
    }
}
