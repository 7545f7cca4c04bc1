//! The rules judged from the context an exchange file records (`session`, `retry`): what the
//! recorder knew and one exchange does not show. Each check applies only where its context
//! says so, leaves transient answers unjudged, and the file format rejects unknown context
//! fields.

use mcp_verdict::judge::EvalStatus;
use mcp_verdict::wire::exchange::{RecordedRetry, RecordedSession};
use mcp_verdict::{Engine, Exchange, ExchangeFile, Headers, Protocol};
use serde_json::{Value, json};

use crate::support::judge::judge_under;

const L: Protocol = Protocol::V2025_11_25;
const M: Protocol = Protocol::V2026_07_28;
const SID: &str = "sid-1";
const MISSING: &str = "transport.http.400-missing-session";
const ENDED: &str = "transport.http.404-ended-session";
const ASK: &str = "mrtr.missing-input-asked-again";

/// (method, session id header, recorded session, status, body, the rule's status)
type LeftOut = (
    &'static str,
    Option<&'static str>,
    Option<RecordedSession>,
    u16,
    Value,
    EvalStatus,
);
/// (session id header, recorded session, status, body, the rule's status)
type Ended = (
    Option<&'static str>,
    Option<RecordedSession>,
    u16,
    Value,
    EvalStatus,
);
/// (inputResponses, state altered, status, body, the rule's status)
type Retry = (Option<Value>, bool, u16, Value, EvalStatus);

fn status_of(ex: &Exchange, p: Protocol, rule: &str) -> EvalStatus {
    let j = judge_under(ex, std::slice::from_ref(&p));
    let table = Engine::builtin().table();
    let i = table
        .active(p)
        .iter()
        .position(|a| table.rule_of(a).id == rule)
        .unwrap_or_else(|| panic!("{rule} not active under {p}"));
    j.verdicts[0].evaluations[i]
}

fn json_response(status: u16, body: Value) -> (u16, Headers, Vec<u8>) {
    (
        status,
        Headers::new([("Content-Type", "application/json")]),
        serde_json::to_vec(&body).unwrap(),
    )
}

fn error(code: i64) -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "error": {"code": code, "message": "no"}})
}

fn served() -> Value {
    json!({"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": false}})
}

/// A 2025-11-25 request (with or without a session id header) in a recorded session.
fn legacy(
    method: &str,
    header: Option<&str>,
    session: Option<RecordedSession>,
    status: u16,
    body: Value,
) -> Exchange {
    let (s, h, b) = json_response(status, body);
    let mut headers = Headers::new([("MCP-Protocol-Version", "2025-11-25")]);
    if let Some(id) = header {
        headers.push("Mcp-Session-Id", id);
    }
    let mut builder = Exchange::builder(s, h, b)
        .request(json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": {"name": "echo"}}))
        .request_headers(headers);
    if let Some(session) = session {
        builder = builder.session(session);
    }
    builder.build()
}

fn session(ended: bool) -> Option<RecordedSession> {
    Some(RecordedSession {
        id: SID.into(),
        ended,
    })
}

#[test]
fn a_left_out_session_id_is_judged_only_on_a_rejection() {
    use EvalStatus::*;
    let cases: Vec<LeftOut> = vec![
        (
            "tools/call",
            None,
            session(false),
            400,
            error(-32600),
            Passed,
        ),
        (
            "tools/call",
            None,
            session(false),
            404,
            error(-32600),
            Triggered,
        ),
        // A JSON-RPC error in a 200 is a rejection too.
        (
            "tools/call",
            None,
            session(false),
            200,
            error(-32600),
            Triggered,
        ),
        // Served: the server does not require the id.
        (
            "tools/call",
            None,
            session(false),
            200,
            served(),
            NotApplicable,
        ),
        // Transient: says nothing.
        (
            "tools/call",
            None,
            session(false),
            503,
            error(-32603),
            NotApplicable,
        ),
        // initialize carries no session id.
        (
            "initialize",
            None,
            session(false),
            404,
            error(-32600),
            NotApplicable,
        ),
        // The id was sent, or no session is recorded.
        (
            "tools/call",
            Some(SID),
            session(false),
            404,
            error(-32600),
            NotApplicable,
        ),
        ("tools/call", None, None, 404, error(-32600), NotApplicable),
    ];
    for (i, (method, header, session, status, body, want)) in cases.into_iter().enumerate() {
        let ex = legacy(method, header, session, status, body);
        assert_eq!(status_of(&ex, L, MISSING), want, "case {i}");
    }
}

#[test]
fn an_ended_session_is_judged_for_its_own_id() {
    use EvalStatus::*;
    let cases: Vec<Ended> = vec![
        (Some(SID), session(true), 404, error(-32600), Passed),
        (Some(SID), session(true), 200, served(), Triggered),
        (Some(SID), session(true), 400, error(-32600), Triggered),
        (Some(SID), session(true), 429, error(-32603), NotApplicable),
        // Another session's id, a session not ended, no id at all.
        (Some("other"), session(true), 200, served(), NotApplicable),
        (Some(SID), session(false), 200, served(), NotApplicable),
        (None, session(true), 200, served(), NotApplicable),
    ];
    for (i, (header, session, status, body, want)) in cases.into_iter().enumerate() {
        let ex = legacy("tools/call", header, session, status, body);
        assert_eq!(status_of(&ex, L, ENDED), want, "case {i}");
    }
    // Not a 2026-07-28 rule.
    let table = Engine::builtin().table();
    assert!(table.active_rule(M, ENDED).is_none());
    assert!(table.active_rule(M, MISSING).is_none());
}

/// A 2026-07-28 retry with the given `inputResponses` of a recorded input_required result.
fn retry(responses: Option<Value>, altered: bool, status: u16, body: Value) -> Exchange {
    let (s, h, b) = json_response(status, body);
    let mut params = json!({
        "name": "confirm_action",
        "arguments": {},
        "requestState": "st",
        "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {"elicitation": {}}
        }
    });
    if let Some(r) = responses {
        params["inputResponses"] = r;
    }
    let requests = json!({"confirm": {"method": "elicitation/create", "params": {"message": "ok?", "requestedSchema": {"type": "object"}}}});
    Exchange::builder(s, h, b)
        .request(json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}))
        .request_headers(Headers::new([
            ("MCP-Protocol-Version", "2026-07-28"),
            ("Mcp-Method", "tools/call"),
            ("Mcp-Name", "confirm_action"),
        ]))
        .retry(RecordedRetry {
            input_requests: requests.as_object().cloned(),
            request_state_altered: altered,
        })
        .build()
}

#[test]
fn a_retry_without_the_input_is_judged_unless_the_state_was_altered() {
    use EvalStatus::*;
    let asked_again = json!({"jsonrpc": "2.0", "id": 1, "result": {
        "resultType": "input_required",
        "inputRequests": {"confirm": {"method": "elicitation/create", "params": {"message": "ok?", "requestedSchema": {"type": "object"}}}}
    }});
    let other = Some(json!({"other": {"action": "cancel"}}));
    let cases: Vec<Retry> = vec![
        (other.clone(), false, 200, asked_again, Passed),
        (other.clone(), false, 400, error(-32602), Triggered),
        // No inputResponses at all answers none either.
        (None, false, 200, error(-32602), Triggered),
        // A final result: the input was not necessary.
        (other.clone(), false, 200, served(), NotApplicable),
        (other.clone(), false, 503, error(-32603), NotApplicable),
        // The state was altered: an error may be about the state.
        (other.clone(), true, 400, error(-32602), NotApplicable),
        // The requested input was answered.
        (
            Some(json!({"confirm": {"action": "accept"}})),
            false,
            400,
            error(-32602),
            NotApplicable,
        ),
    ];
    for (i, (responses, altered, status, body, want)) in cases.into_iter().enumerate() {
        let ex = retry(responses, altered, status, body);
        assert_eq!(status_of(&ex, M, ASK), want, "case {i}");
    }
}

#[test]
fn the_context_is_read_strictly() {
    let ok = br#"{"response":{"status":200},"session":{"id":"s","ended":true},"retry":{"inputRequests":{"a":{}},"requestStateAltered":true}}"#;
    let ex = ExchangeFile::from_slice(ok).unwrap().to_exchange().unwrap();
    assert_eq!(
        ex.session,
        Some(RecordedSession {
            id: "s".into(),
            ended: true
        })
    );
    assert!(ex.retry.as_ref().unwrap().request_state_altered);
    for bad in [
        &br#"{"response":{"status":200},"session":{"id":"s","closed":true}}"#[..],
        br#"{"response":{"status":200},"session":{"ended":true}}"#,
        br#"{"response":{"status":200},"retry":{"input_requests":{}}}"#,
        br#"{"response":{"status":200},"retry":{"inputRequests":[]}}"#,
    ] {
        assert!(
            ExchangeFile::from_slice(bad).is_err(),
            "{}",
            String::from_utf8_lossy(bad)
        );
    }
}
