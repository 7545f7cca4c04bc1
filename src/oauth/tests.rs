//! The flow against a scripted resource and authorization server (no socket): each test
//! changes one thing the server does and checks what the client sends, or that it refuses.

use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

use super::*;
use crate::wire::auth::parse_challenges;

const MCP: &str = "http://localhost:3000/mcp";
const AS: &str = "http://localhost:4000";
const PRM: &str = "http://localhost:3000/.well-known/oauth-protected-resource/mcp";
const REDIRECT: &str = "http://127.0.0.1/callback";

/// What the scripted servers do.
struct Script {
    resource: String,
    scopes_supported: Option<Vec<&'static str>>,
    issuer_claimed: String,
    pkce: Option<Vec<&'static str>>,
    iss_supported: Option<bool>,
    /// `iss` in the redirect: `None` leaves it out.
    iss_sent: Option<String>,
    auth_methods: Vec<&'static str>,
    registration: bool,
    cimd: bool,
    refresh_token: bool,
    /// Redirect the authorization request to another host first.
    foreign_redirect: bool,
}

impl Default for Script {
    fn default() -> Self {
        Script {
            resource: MCP.into(),
            scopes_supported: None,
            issuer_claimed: AS.into(),
            pkce: Some(vec!["S256"]),
            iss_supported: None,
            iss_sent: None,
            auth_methods: vec!["client_secret_basic", "client_secret_post", "none"],
            registration: true,
            cimd: false,
            refresh_token: true,
            foreign_redirect: false,
        }
    }
}

/// The scripted servers and what they received.
struct Fake {
    script: Script,
    seen: Mutex<Vec<HttpRequest>>,
    tokens: Mutex<u32>,
}

fn ok(body: Value) -> HttpResponse {
    HttpResponse {
        status: 200,
        headers: Headers::new([("Content-Type", "application/json")]),
        body: body.to_string().into_bytes(),
    }
}

fn status(code: u16) -> HttpResponse {
    HttpResponse {
        status: code,
        headers: Headers::default(),
        body: Vec::new(),
    }
}

use crate::wire::exchange::Headers;

fn form_of(r: &HttpRequest) -> Vec<(String, String)> {
    url::form_urlencoded::parse(r.body.as_deref().unwrap_or_default())
        .into_owned()
        .collect()
}

fn field<'a>(f: &'a [(String, String)], name: &str) -> Option<&'a str> {
    f.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
}

impl Fake {
    fn new(script: Script) -> Arc<Fake> {
        Arc::new(Fake {
            script,
            seen: Mutex::new(Vec::new()),
            tokens: Mutex::new(0),
        })
    }

    fn requests_to(&self, path: &str) -> Vec<HttpRequest> {
        self.seen
            .lock()
            .unwrap()
            .iter()
            .filter(|r| r.url.split('?').next().unwrap().ends_with(path))
            .cloned()
            .collect()
    }
}

impl Http for Fake {
    fn send(&self, r: &HttpRequest) -> Result<HttpResponse, HttpError> {
        self.seen.lock().unwrap().push(r.clone());
        let s = &self.script;
        let path = r.url.split('?').next().unwrap();
        Ok(match path {
            PRM => {
                let mut d = json!({"resource": s.resource, "authorization_servers": [AS]});
                if let Some(sc) = &s.scopes_supported {
                    d["scopes_supported"] = json!(sc);
                }
                ok(d)
            }
            p if p == format!("{AS}/.well-known/oauth-authorization-server") => {
                let mut d = json!({
                    "issuer": s.issuer_claimed,
                    "authorization_endpoint": format!("{AS}/authorize"),
                    "token_endpoint": format!("{AS}/token"),
                    "response_types_supported": ["code"],
                    "token_endpoint_auth_methods_supported": s.auth_methods,
                    "scopes_supported": ["mcp", "offline_access"],
                });
                if s.registration {
                    d["registration_endpoint"] = json!(format!("{AS}/register"));
                }
                if let Some(p) = &s.pkce {
                    d["code_challenge_methods_supported"] = json!(p);
                }
                if let Some(i) = s.iss_supported {
                    d["authorization_response_iss_parameter_supported"] = json!(i);
                }
                if s.cimd {
                    d["client_id_metadata_document_supported"] = json!(true);
                }
                ok(d)
            }
            p if p == format!("{AS}/register") => ok(json!({
                "client_id": "dyn-client", "client_secret": "dyn-secret"
            })),
            p if p == format!("{AS}/authorize") => {
                let q: Vec<(String, String)> = url::Url::parse(&r.url)
                    .unwrap()
                    .query_pairs()
                    .into_owned()
                    .collect();
                if s.foreign_redirect {
                    let mut h = status(302);
                    h.headers = Headers::new([("Location", "https://login.elsewhere.example/")]);
                    return Ok(h);
                }
                let mut to = url::Url::parse(field(&q, "redirect_uri").unwrap()).unwrap();
                to.query_pairs_mut()
                    .append_pair("code", "the-code")
                    .append_pair("state", field(&q, "state").unwrap());
                if let Some(iss) = &s.iss_sent {
                    to.query_pairs_mut().append_pair("iss", iss);
                }
                let mut h = status(302);
                h.headers = Headers::new([("Location", to.as_str())]);
                h
            }
            p if p == format!("{AS}/token") => {
                let n = {
                    let mut t = self.tokens.lock().unwrap();
                    *t += 1;
                    *t
                };
                let mut d = json!({"access_token": format!("token-{n}"), "token_type": "Bearer", "expires_in": 60});
                if s.refresh_token {
                    d["refresh_token"] = json!(format!("refresh-{n}"));
                }
                ok(d)
            }
            _ => status(404),
        })
    }
}

fn challenge(text: &str) -> Challenge {
    parse_challenges(text).unwrap().remove(0)
}

fn config() -> OAuthConfig {
    OAuthConfig {
        user_agent: UserAgent::Follow,
        ..OAuthConfig::default()
    }
}

fn authorize(
    fake: &Arc<Fake>,
    cfg: OAuthConfig,
    ch: &str,
) -> (Result<Reaction, OAuthError>, Option<String>) {
    let mut c = OAuthClient::new(cfg, fake.clone(), MCP)
        .unwrap()
        .with_guard(Guard::at(Reach::Loopback));
    let r = c.react(401, Some(&challenge(ch)));
    (r, c.authorization())
}

const CHALLENGE: &str = r#"Bearer resource_metadata="http://localhost:3000/.well-known/oauth-protected-resource/mcp", scope="mcp""#;

#[test]
fn the_whole_flow_sends_what_the_spec_asks() {
    let fake = Fake::new(Script::default());
    let (r, auth) = authorize(&fake, config(), CHALLENGE);
    assert_eq!(r, Ok(Reaction::Retry));
    assert_eq!(auth.as_deref(), Some("Bearer token-1"));
    let reg = &fake.requests_to("/register")[0];
    let body: Value = serde_json::from_slice(reg.body.as_deref().unwrap()).unwrap();
    assert_eq!(body["application_type"], "native");
    assert_eq!(body["redirect_uris"], json!([REDIRECT]));
    assert_eq!(body["token_endpoint_auth_method"], "none");
    let authz = url::Url::parse(&fake.requests_to("/authorize")[0].url).unwrap();
    let q: Vec<(String, String)> = authz.query_pairs().into_owned().collect();
    assert_eq!(field(&q, "resource"), Some(MCP));
    assert_eq!(field(&q, "code_challenge_method"), Some("S256"));
    assert_eq!(field(&q, "scope"), Some("mcp offline_access"));
    assert_eq!(field(&q, "client_id"), Some("dyn-client"));
    let token = form_of(&fake.requests_to("/token")[0]);
    assert_eq!(field(&token, "resource"), Some(MCP));
    assert_eq!(field(&token, "code"), Some("the-code"));
    let verifier = field(&token, "code_verifier").unwrap();
    assert_eq!(
        Some(flow::s256(verifier).as_str()),
        field(&q, "code_challenge")
    );
    assert!(verifier.len() >= 43);
    // A public client: no secret travels, the id is in the form.
    assert_eq!(field(&token, "client_id"), Some("dyn-client"));
    assert_eq!(field(&token, "client_secret"), None);
}

#[test]
fn steps_never_show_tokens_codes_or_verifiers() {
    let fake = Fake::new(Script::default());
    let mut c = OAuthClient::new(config(), fake.clone(), MCP)
        .unwrap()
        .with_guard(Guard::at(Reach::Loopback));
    c.react(401, Some(&challenge(CHALLENGE))).unwrap();
    let token = form_of(&fake.requests_to("/token")[0]);
    let verifier = field(&token, "code_verifier").unwrap().to_string();
    let text = serde_json::to_string(c.steps()).unwrap();
    for secret in [
        "the-code",
        "token-1",
        "refresh-1",
        verifier.as_str(),
        "dyn-secret",
    ] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    assert_eq!(c.steps().len(), 5, "{text}");
}

#[test]
fn scopes_come_from_the_challenge_then_the_metadata_then_nowhere() {
    let fake = Fake::new(Script {
        scopes_supported: Some(vec!["a", "b"]),
        ..Script::default()
    });
    let (r, _) = authorize(
        &fake,
        config(),
        &format!(r#"Bearer resource_metadata="{PRM}""#),
    );
    assert_eq!(r, Ok(Reaction::Retry));
    let q = fake.requests_to("/authorize")[0].url.clone();
    assert!(q.contains("scope=a+b+offline_access"), "{q}");
    let fake = Fake::new(Script::default());
    let (r, _) = authorize(
        &fake,
        config(),
        &format!(r#"Bearer resource_metadata="{PRM}""#),
    );
    assert_eq!(r, Ok(Reaction::Retry));
    let q = fake.requests_to("/authorize")[0].url.clone();
    assert!(!q.contains("scope="), "{q}");
}

#[test]
fn step_up_requests_the_union_and_stops_when_nothing_new_is_asked() {
    let fake = Fake::new(Script::default());
    let mut c = OAuthClient::new(config(), fake.clone(), MCP)
        .unwrap()
        .with_guard(Guard::at(Reach::Loopback));
    c.react(401, Some(&challenge(CHALLENGE))).unwrap();
    let more = challenge(&format!(
        r#"Bearer error="insufficient_scope", scope="write", resource_metadata="{PRM}""#
    ));
    assert_eq!(c.react(403, Some(&more)), Ok(Reaction::Retry));
    let q = fake.requests_to("/authorize")[1].url.clone();
    assert!(q.contains("scope=mcp+offline_access+write"), "{q}");
    assert!(matches!(c.react(403, Some(&more)), Ok(Reaction::GiveUp(_))));
    assert_eq!(fake.requests_to("/authorize").len(), 2);
}

#[test]
fn an_expired_token_is_refreshed_before_authorizing_again() {
    let fake = Fake::new(Script::default());
    let mut c = OAuthClient::new(config(), fake.clone(), MCP)
        .unwrap()
        .with_guard(Guard::at(Reach::Loopback));
    c.react(401, Some(&challenge(CHALLENGE))).unwrap();
    let expired = challenge(r#"Bearer error="invalid_token""#);
    assert_eq!(c.react(401, Some(&expired)), Ok(Reaction::Retry));
    assert_eq!(c.authorization().as_deref(), Some("Bearer token-2"));
    let refresh = form_of(&fake.requests_to("/token")[1]);
    assert_eq!(field(&refresh, "grant_type"), Some("refresh_token"));
    assert_eq!(field(&refresh, "refresh_token"), Some("refresh-1"));
    assert_eq!(field(&refresh, "resource"), Some(MCP));
    assert_eq!(fake.requests_to("/authorize").len(), 1);
}

#[test]
fn pre_registered_credentials_use_the_method_the_server_supports() {
    for (methods, basic) in [
        (vec!["client_secret_basic"], true),
        (vec!["client_secret_post"], false),
    ] {
        let fake = Fake::new(Script {
            auth_methods: methods,
            registration: false,
            ..Script::default()
        });
        let cfg = OAuthConfig {
            client_id: Some("pre id".into()),
            client_secret: Some("pre:secret".into()),
            ..config()
        };
        assert_eq!(authorize(&fake, cfg, CHALLENGE).0, Ok(Reaction::Retry));
        let t = &fake.requests_to("/token")[0];
        let form = form_of(t);
        let header = t.headers.iter().find(|(n, _)| n == "Authorization");
        if basic {
            // RFC 6749 §2.3.1: id and secret form-encoded before base64.
            let expected = base64::Engine::encode(
                &base64::engine::general_purpose::STANDARD,
                "pre+id:pre%3Asecret",
            );
            assert_eq!(
                header.map(|(_, v)| v.clone()),
                Some(format!("Basic {expected}"))
            );
            assert_eq!(field(&form, "client_secret"), None);
        } else {
            assert!(header.is_none());
            assert_eq!(field(&form, "client_secret"), Some("pre:secret"));
        }
        assert!(fake.requests_to("/register").is_empty());
    }
}

#[test]
fn a_client_id_metadata_document_url_is_the_client_id_where_supported() {
    let fake = Fake::new(Script {
        cimd: true,
        ..Script::default()
    });
    let cfg = OAuthConfig {
        client_metadata_url: Some("https://client.example/meta.json".into()),
        ..config()
    };
    assert_eq!(authorize(&fake, cfg, CHALLENGE).0, Ok(Reaction::Retry));
    assert!(fake.requests_to("/register").is_empty());
    assert!(
        fake.requests_to("/authorize")[0]
            .url
            .contains("client_id=https%3A%2F%2Fclient.example%2Fmeta.json")
    );
}

#[test]
fn the_client_refuses_what_would_hurt_it() {
    let cases: Vec<(Script, &str)> = vec![
        (
            Script {
                resource: "https://evil.example.com/mcp".into(),
                ..Script::default()
            },
            "not for the MCP server",
        ),
        (
            Script {
                issuer_claimed: "https://attacker.example.com".into(),
                ..Script::default()
            },
            "metadata whose issuer differs is not used",
        ),
        (
            Script {
                pkce: None,
                ..Script::default()
            },
            "PKCE",
        ),
        (
            Script {
                pkce: Some(vec!["plain"]),
                ..Script::default()
            },
            "PKCE",
        ),
        (
            Script {
                iss_supported: Some(true),
                iss_sent: Some("https://evil.example.com".into()),
                ..Script::default()
            },
            "RFC 9207",
        ),
        (
            Script {
                iss_supported: Some(true),
                ..Script::default()
            },
            "has no `iss`",
        ),
        (
            Script {
                iss_sent: Some(format!("{AS}/")),
                ..Script::default()
            },
            "RFC 9207",
        ),
        (
            Script {
                foreign_redirect: true,
                ..Script::default()
            },
            "another host",
        ),
    ];
    for (script, why) in cases {
        let fake = Fake::new(script);
        let (r, auth) = authorize(&fake, config(), CHALLENGE);
        let e = r.unwrap_err().to_string();
        assert!(e.contains(why), "{why}: {e}");
        assert!(auth.is_none());
        assert!(
            fake.requests_to("/token").is_empty(),
            "{why}: a code went out"
        );
    }
    // Advertised and matching, or neither: accepted.
    for (supported, sent) in [
        (Some(true), Some(AS.to_string())),
        (None, None),
        (Some(false), None),
    ] {
        let fake = Fake::new(Script {
            iss_supported: supported,
            iss_sent: sent,
            ..Script::default()
        });
        assert_eq!(authorize(&fake, config(), CHALLENGE).0, Ok(Reaction::Retry));
    }
}

#[test]
fn a_public_server_cannot_point_the_client_inward() {
    let fake = Fake::new(Script::default());
    let mut c = OAuthClient::new(config(), fake.clone(), MCP)
        .unwrap()
        .with_guard(Guard::at(Reach::Public));
    let e = c.react(401, Some(&challenge(CHALLENGE))).unwrap_err();
    assert!(matches!(e, OAuthError::Refused(_)), "{e}");
    assert!(e.to_string().contains("loopback"), "{e}");
    assert!(fake.seen.lock().unwrap().is_empty(), "a request went out");
}

#[test]
fn client_credentials_need_no_user_agent() {
    let fake = Fake::new(Script::default());
    let cfg = OAuthConfig {
        grant: GrantKind::ClientCredentials,
        client_id: Some("svc".into()),
        client_secret: Some("svc-secret".into()),
        ..config()
    };
    assert_eq!(authorize(&fake, cfg, CHALLENGE).0, Ok(Reaction::Retry));
    assert!(fake.requests_to("/authorize").is_empty());
    let t = form_of(&fake.requests_to("/token")[0]);
    assert_eq!(field(&t, "grant_type"), Some("client_credentials"));
    assert_eq!(field(&t, "scope"), Some("mcp"));
    assert_eq!(field(&t, "resource"), Some(MCP));
}

#[test]
fn well_known_locations_are_tried_in_order_without_a_challenge_url() {
    let fake = Fake::new(Script::default());
    let mut c = OAuthClient::new(config(), fake.clone(), MCP)
        .unwrap()
        .with_guard(Guard::at(Reach::Loopback));
    c.react(401, None).unwrap();
    let first = &fake.seen.lock().unwrap()[0].url;
    assert_eq!(first, PRM);
}

/// A loopback server answering every connection with `response`, until the test ends.
#[cfg(feature = "probe")]
fn serve_once(response: Vec<u8>) -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/doc", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        if let Ok((mut s, _)) = listener.accept() {
            let mut buf = [0u8; 4096];
            let _ = s.read(&mut buf);
            let _ = s.write_all(&response);
        }
    });
    url
}

#[cfg(feature = "probe")]
#[test]
fn oversized_documents_and_redirects_are_refused_over_a_socket() {
    let http = UreqHttp::new(
        "test",
        std::time::Duration::from_secs(5),
        std::time::Duration::from_secs(10),
    );
    let big = vec![b'x'; MAX_DOCUMENT + 1];
    let mut response = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        big.len()
    )
    .into_bytes();
    response.extend_from_slice(&big);
    let url = serve_once(response);
    let request = HttpRequest {
        method: "GET",
        url,
        headers: Vec::new(),
        body: None,
        max_body: MAX_DOCUMENT,
    };
    let e = http.send(&request).unwrap_err();
    assert!(e.0.contains("larger than"), "{e}");
    let url = serve_once(
        b"HTTP/1.1 302 Found\r\nLocation: http://169.254.169.254/\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".to_vec(),
    );
    let r = http.send(&HttpRequest { url, ..request }).unwrap();
    assert_eq!(r.status, 302, "the redirect is returned, not followed");
}
