//! `serve --scenario auth[:FAULT]` against `probe` as an OAuth client (both in-process, on
//! loopback): the protected baseline is authorized and its calls judged; each fault is named
//! by its rule, refused by the client, or survived as the spec asks (refresh, step-up).

use std::time::Duration;

use mcp_verdict::Protocol;
use mcp_verdict::oauth::{OAuthConfig, StepKind, UserAgent};
use mcp_verdict::probe::{self, CallSpec, ProbeConfig, ProbeReport, Timeouts};
use mcp_verdict::serve::{self, ServeConfig, ServerHandle};
use rstest::rstest;
use serde_json::json;

fn start(scenario: &str) -> ServerHandle {
    serve::start(ServeConfig {
        scenario: scenario.parse().expect("scenario parses"),
        idle_timeout: Duration::from_secs(5),
        ..ServeConfig::default()
    })
    .expect("server starts")
}

/// A probe under `rev` calling `echo` twice; authorizing (following redirects) unless `off`.
fn probe(server: &ServerHandle, rev: Protocol, authorize: bool) -> ProbeReport {
    let mut c = ProbeConfig::new(server.url());
    c.protocols = vec![rev];
    c.auto_calls = false;
    c.calls = vec![
        CallSpec {
            name: "echo".into(),
            arguments: Some(json!({"text": "hi"})),
        },
        CallSpec {
            name: "echo".into(),
            arguments: Some(json!({"text": "again"})),
        },
    ];
    c.timeouts = Timeouts {
        connect: Duration::from_secs(2),
        idle: Duration::from_secs(5),
        total: Duration::from_secs(10),
    };
    c.auth = authorize.then(|| OAuthConfig {
        user_agent: UserAgent::Follow,
        ..OAuthConfig::default()
    });
    probe::run(&c).expect("the server is reachable")
}

/// The report as JSON text (what every output derives from).
fn text(r: &ProbeReport) -> String {
    serde_json::to_string(&r.to_output()).unwrap()
}

fn outcomes(r: &ProbeReport) -> Vec<String> {
    r.exchanges()
        .map(|x| x.verdict().outcome.as_str().to_string())
        .collect()
}

#[rstest]
fn the_protected_baseline_is_authorized_and_its_calls_judged(
    #[values(Protocol::V2025_11_25, Protocol::V2026_07_28)] rev: Protocol,
) {
    let server = start("auth");
    let r = probe(&server, rev, true);
    assert_eq!(
        outcomes(&r),
        ["TOOL_SUCCESS", "TOOL_SUCCESS"],
        "{}",
        text(&r)
    );
    let kinds: Vec<StepKind> = r.authorization.iter().map(|s| s.kind).collect();
    for k in [
        StepKind::ResourceMetadata,
        StepKind::ServerMetadata,
        StepKind::Registration,
        StepKind::Authorization,
        StepKind::Token,
    ] {
        assert!(kinds.contains(&k), "{k:?} missing: {kinds:?}");
    }
    // The discovery documents are judged with every exchange, and found sound.
    let out = text(&r);
    for rule in [
        "transport.auth.prm-",
        "transport.auth.as-",
        "transport.auth.token-",
    ] {
        assert!(!out.contains(rule), "{rule}: {out}");
    }
    // No token, code, verifier or secret anywhere in the report.
    for step in &r.authorization {
        let s = serde_json::to_string(step).unwrap();
        for field in [
            "access_token",
            "refresh_token",
            "client_secret",
            "code_verifier",
        ] {
            if let Some(i) = s.find(&format!("{field}=")) {
                assert!(s[i..].starts_with(&format!("{field}=[REDACTED]")), "{s}");
            }
        }
    }
    for x in r.exchanges() {
        let auth = x
            .exchange
            .request
            .headers
            .get("authorization")
            .unwrap_or("");
        assert!(
            auth.ends_with("[REDACTED]"),
            "the token is recorded redacted: {auth}"
        );
    }
    server.shutdown();
}

#[rstest]
#[case::resource("auth:resource-mismatch", "transport.auth.prm-resource")]
#[case::issuer("auth:issuer-mismatch", "transport.auth.as-issuer")]
#[case::pkce("auth:no-s256", "transport.auth.as-pkce-s256")]
fn the_client_refuses_and_the_finding_names_the_rule(
    #[case] scenario: &str,
    #[case] rule: &str,
    #[values(Protocol::V2025_11_25, Protocol::V2026_07_28)] rev: Protocol,
) {
    let server = start(scenario);
    let r = probe(&server, rev, true);
    let out = text(&r);
    assert!(out.contains("authorization refused by the client"), "{out}");
    assert!(out.contains(rule), "{rule} not named: {out}");
    assert!(
        !r.authorization.iter().any(|s| s.kind == StepKind::Token),
        "a token was requested"
    );
    server.shutdown();
}

#[rstest]
#[case::no_challenge("auth:no-challenge", "transport.auth.401-challenge")]
#[case::no_resource_metadata("auth:no-resource-metadata", "transport.auth.401-resource-metadata")]
#[case::baseline("auth", "transport.auth.401-unauthorized")]
fn a_client_that_does_not_authorize_sees_the_challenge_judged(
    #[case] scenario: &str,
    #[case] rule: &str,
) {
    let server = start(scenario);
    let r = probe(&server, Protocol::V2026_07_28, false);
    let out = text(&r);
    assert!(out.contains(rule), "{rule} not named: {out}");
    assert!(out.contains("the server requires authorization"), "{out}");
    server.shutdown();
}

#[test]
fn an_expired_token_is_refreshed_and_the_call_goes_through() {
    let server = start("auth:token-expiry");
    let r = probe(&server, Protocol::V2026_07_28, true);
    assert_eq!(
        outcomes(&r),
        ["TOOL_SUCCESS", "TOOL_SUCCESS"],
        "{}",
        text(&r)
    );
    let tokens = r
        .authorization
        .iter()
        .filter(|s| s.kind == StepKind::Token)
        .count();
    assert!(tokens >= 2, "no refresh: {:?}", r.authorization);
    assert!(
        r.authorization.iter().any(|s| s
            .request_body
            .as_deref()
            .is_some_and(|b| b.contains("grant_type=refresh_token"))),
        "{:?}",
        r.authorization
    );
    server.shutdown();
}

#[test]
fn a_403_step_up_is_answered_with_the_union_of_scopes() {
    let server = start("auth:step-up");
    let r = probe(&server, Protocol::V2026_07_28, true);
    assert_eq!(
        outcomes(&r),
        ["TOOL_SUCCESS", "TOOL_SUCCESS"],
        "{}",
        text(&r)
    );
    let authorizations: Vec<&str> = r
        .authorization
        .iter()
        .filter(|s| s.kind == StepKind::Authorization)
        .map(|s| s.url.as_str())
        .collect();
    assert_eq!(authorizations.len(), 2, "{authorizations:?}");
    // The union: the scope granted first and the challenged one.
    assert!(
        !authorizations[0].contains("mcp%3Awrite"),
        "{authorizations:?}"
    );
    assert!(
        authorizations[1].contains("mcp%3Atools") && authorizations[1].contains("mcp%3Awrite"),
        "{authorizations:?}"
    );
    server.shutdown();
}

/// The query-token fault serves a request whose token is in the query string; the baseline
/// refuses it. The token comes from a client-credentials grant of the pre-registered client.
#[test]
fn a_token_in_the_query_string_is_accepted_only_under_its_fault() {
    for (scenario, accepted) in [("auth:query-token", true), ("auth", false)] {
        let server = start(scenario);
        let base = server.url();
        let origin = base.trim_end_matches("/mcp");
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .build()
            .new_agent();
        let mut resp = agent
            .post(format!("{origin}/token"))
            .header("Content-Type", "application/x-www-form-urlencoded")
            .send(format!(
                "grant_type=client_credentials&client_id={}&client_secret={}&scope=mcp%3Atools&resource={}",
                serve::auth::CLIENT_ID,
                serve::auth::CLIENT_SECRET,
                url_encode(&base)
            ))
            .unwrap();
        let token: serde_json::Value =
            serde_json::from_reader(resp.body_mut().as_reader()).unwrap();
        let token = token["access_token"].as_str().unwrap().to_string();
        let body = json!({"jsonrpc": "2.0", "id": 1, "method": "server/discover", "params": {"_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {}}}});
        let status = agent
            .post(format!("{base}?access_token={token}"))
            .header("Content-Type", "application/json")
            .header("Accept", "application/json, text/event-stream")
            .header("MCP-Protocol-Version", "2026-07-28")
            .header("Mcp-Method", "server/discover")
            .send(body.to_string())
            .unwrap()
            .status()
            .as_u16();
        assert_eq!(status == 200, accepted, "{scenario}: HTTP {status}");
        server.shutdown();
    }
}

fn url_encode(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
