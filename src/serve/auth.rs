//! A protected server for client authors (`--scenario auth[:FAULT]`): the MCP endpoint is an
//! OAuth 2.1 resource server, and the same origin serves its protected resource metadata and a
//! small authorization server (metadata, dynamic registration, a pre-registered client, an
//! authorization endpoint that approves at once, a token endpoint checking PKCE S256 and the
//! `resource`, refresh tokens, client credentials). Tokens are bound to the endpoint: one
//! issued for another resource is refused. Each fault changes exactly one thing.
//!
//! Codes, tokens and secrets are random (the OS's CSPRNG) and live in memory only.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use base64::Engine as _;
use serde_json::{Value, json};

use crate::vocab::auth::{PKCE_S256, error, header, param, scheme, well_known};

/// The pre-registered client's id (its secret is [`CLIENT_SECRET`]).
pub const CLIENT_ID: &str = "mcp-verdict-client";
/// The pre-registered client's secret.
pub const CLIENT_SECRET: &str = "mcp-verdict-secret";
/// The scope every MCP request needs.
pub const SCOPE_BASIC: &str = "mcp:tools";
/// The scope `tools/call` needs under the `step-up` fault.
pub const SCOPE_WRITE: &str = "mcp:write";
/// How many requests a token serves under the `token-expiry` fault.
pub const EXPIRING_USES: u32 = 3;
const TOKEN_LIFETIME: Duration = Duration::from_secs(3600);
const CODE_LIFETIME: Duration = Duration::from_secs(120);

/// The one thing a protected scenario gets wrong (or the condition it puts a client in).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthFault {
    /// A 401 without `WWW-Authenticate`.
    NoChallenge,
    /// A challenge without `resource_metadata` (the metadata stays at its well-known URL).
    NoResourceMetadata,
    /// The protected resource metadata names another resource.
    ResourceMismatch,
    /// The authorization server metadata claims another issuer.
    IssuerMismatch,
    /// The authorization server metadata advertises no PKCE method.
    NoS256,
    /// A token stops working after [`EXPIRING_USES`] requests (refresh works).
    TokenExpiry,
    /// `tools/call` needs [`SCOPE_WRITE`] besides the challenged scope: a 403 step-up.
    StepUp,
    /// A token in the query string (`access_token`) is accepted.
    QueryToken,
}

impl AuthFault {
    /// Every fault, with its parameter name.
    pub const ALL: [(&'static str, AuthFault); 8] = [
        ("no-challenge", AuthFault::NoChallenge),
        ("no-resource-metadata", AuthFault::NoResourceMetadata),
        ("resource-mismatch", AuthFault::ResourceMismatch),
        ("issuer-mismatch", AuthFault::IssuerMismatch),
        ("no-s256", AuthFault::NoS256),
        ("token-expiry", AuthFault::TokenExpiry),
        ("step-up", AuthFault::StepUp),
        ("query-token", AuthFault::QueryToken),
    ];

    /// The parameter naming the fault.
    pub fn name(self) -> &'static str {
        AuthFault::ALL
            .iter()
            .find(|(_, f)| *f == self)
            .map_or("", |(n, _)| n)
    }

    /// The fault a parameter names.
    pub fn parse(name: &str) -> Option<AuthFault> {
        AuthFault::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, f)| *f)
    }
}

struct Client {
    secret: Option<String>,
    redirect_uris: Vec<String>,
}

struct Code {
    client_id: String,
    redirect_uri: String,
    challenge: String,
    resource: String,
    scope: String,
    until: Instant,
}

struct Token {
    resource: String,
    scopes: Vec<String>,
    until: Instant,
    uses: u32,
}

struct Refresh {
    client_id: String,
    resource: String,
    scope: String,
}

/// The authorization server's and resource server's memory.
#[derive(Default)]
pub(crate) struct AuthState {
    clients: Mutex<HashMap<String, Client>>,
    codes: Mutex<HashMap<String, Code>>,
    tokens: Mutex<HashMap<String, Token>>,
    refresh: Mutex<HashMap<String, Refresh>>,
}

/// An answer of the authorization layer: status, header fields, body.
pub(crate) struct Answer {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

fn json_answer(status: u16, body: Value) -> Answer {
    Answer {
        status,
        headers: vec![
            ("Content-Type".into(), "application/json".into()),
            ("Cache-Control".into(), "no-store".into()),
        ],
        body: body.to_string().into_bytes(),
    }
}

fn oauth_error(status: u16, code: &str, description: &str) -> Answer {
    json_answer(
        status,
        json!({"error": code, "error_description": description}),
    )
}

fn random() -> String {
    let mut b = [0u8; 24];
    // The OS's CSPRNG; a server that cannot get randomness cannot mint codes.
    getrandom::fill(&mut b).expect("the operating system provides randomness");
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b)
}

fn mutex<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The decoded `name=value` pairs of a query or form body.
fn pairs(text: &[u8]) -> HashMap<String, String> {
    url::form_urlencoded::parse(text).into_owned().collect()
}

/// Where things are, for one request: the origin the client used (its `Host`), the endpoint.
pub(crate) struct Site<'a> {
    /// `http://HOST:PORT` as the client addressed the server.
    pub origin: String,
    /// The MCP endpoint's path.
    pub path: &'a str,
    pub fault: Option<AuthFault>,
}

impl Site<'_> {
    /// The endpoint: the resource identifier tokens are bound to.
    pub fn resource(&self) -> String {
        format!("{}{}", self.origin, self.path)
    }

    fn issuer(&self) -> String {
        self.origin.clone()
    }

    fn metadata_url(&self) -> String {
        format!(
            "{}{}{}{}",
            self.origin,
            well_known::PREFIX,
            well_known::PROTECTED_RESOURCE,
            self.path
        )
    }

    /// The protected resource metadata (RFC 9728).
    fn resource_metadata(&self) -> Answer {
        let resource = match self.fault {
            Some(AuthFault::ResourceMismatch) => "https://other.example/mcp".to_string(),
            _ => self.resource(),
        };
        json_answer(
            200,
            json!({
                "resource": resource,
                "authorization_servers": [self.issuer()],
                "scopes_supported": [SCOPE_BASIC],
                "bearer_methods_supported": ["header"],
            }),
        )
    }

    /// The authorization server metadata (RFC 8414).
    fn server_metadata(&self) -> Answer {
        let o = &self.origin;
        let issuer = match self.fault {
            Some(AuthFault::IssuerMismatch) => "https://issuer.example".to_string(),
            _ => self.issuer(),
        };
        let mut doc = json!({
            "issuer": issuer,
            "authorization_endpoint": format!("{o}/authorize"),
            "token_endpoint": format!("{o}/token"),
            "registration_endpoint": format!("{o}/register"),
            "response_types_supported": ["code"],
            "grant_types_supported": ["authorization_code", "refresh_token", "client_credentials"],
            "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post", "none"],
            "scopes_supported": [SCOPE_BASIC, SCOPE_WRITE, crate::vocab::auth::OFFLINE_ACCESS],
            "authorization_response_iss_parameter_supported": true,
        });
        if self.fault != Some(AuthFault::NoS256) {
            doc["code_challenge_methods_supported"] = json!([PKCE_S256]);
        }
        json_answer(200, doc)
    }

    /// The challenge of a refusal.
    fn challenge(&self, error: &str, scope: &str) -> Vec<(String, String)> {
        if self.fault == Some(AuthFault::NoChallenge) {
            return Vec::new();
        }
        let mut c = format!("{} {}=\"{error}\"", scheme::BEARER, param::ERROR);
        if self.fault != Some(AuthFault::NoResourceMetadata) {
            c.push_str(&format!(
                ", {}=\"{}\"",
                param::RESOURCE_METADATA,
                self.metadata_url()
            ));
        }
        c.push_str(&format!(", {}=\"{scope}\"", param::SCOPE));
        vec![(header::WWW_AUTHENTICATE.into(), c)]
    }
}

impl AuthState {
    /// Answers the authorization layer's own paths (metadata, authorize, token, register);
    /// `None` for any other path.
    pub(crate) fn route(
        &self,
        site: &Site<'_>,
        method: &str,
        path: &str,
        query: &str,
        headers: &[(String, Vec<u8>)],
        body: &[u8],
    ) -> Option<Answer> {
        let prm = format!(
            "{}{}{}",
            well_known::PREFIX,
            well_known::PROTECTED_RESOURCE,
            site.path
        );
        let asm = format!("{}{}", well_known::PREFIX, well_known::AUTHORIZATION_SERVER);
        Some(match (method, path) {
            ("GET", p) if p == prm => site.resource_metadata(),
            ("GET", p) if p == asm => site.server_metadata(),
            ("GET", "/authorize") => self.authorize(site, query),
            ("POST", "/token") => self.token(site, headers, body),
            ("POST", "/register") => self.register(body),
            _ => return None,
        })
    }

    fn client_secret(&self, id: &str) -> Option<Option<String>> {
        if id == CLIENT_ID {
            return Some(Some(CLIENT_SECRET.into()));
        }
        mutex(&self.clients).get(id).map(|c| c.secret.clone())
    }

    fn register(&self, body: &[u8]) -> Answer {
        let Ok(Value::Object(req)) = serde_json::from_slice::<Value>(body) else {
            return oauth_error(
                400,
                "invalid_client_metadata",
                "the body is not a JSON object",
            );
        };
        let redirect_uris: Vec<String> = req
            .get("redirect_uris")
            .and_then(Value::as_array)
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default();
        if redirect_uris.is_empty() {
            return oauth_error(400, "invalid_redirect_uri", "redirect_uris is required");
        }
        let method = req
            .get("token_endpoint_auth_method")
            .and_then(Value::as_str)
            .unwrap_or("client_secret_basic")
            .to_string();
        let id = random();
        let secret = (method != "none").then(random);
        let mut answer = json!({
            "client_id": id,
            "redirect_uris": redirect_uris,
            "token_endpoint_auth_method": method,
            "grant_types": ["authorization_code", "refresh_token"],
        });
        if let Some(s) = &secret {
            answer["client_secret"] = json!(s);
        }
        mutex(&self.clients).insert(
            id,
            Client {
                secret,
                redirect_uris,
            },
        );
        json_answer(201, answer)
    }

    fn redirect_allowed(&self, client_id: &str, uri: &str) -> bool {
        let loopback = |u: &str| {
            u.starts_with("http://127.0.0.1")
                || u.starts_with("http://localhost")
                || u.starts_with("http://[::1]")
        };
        if client_id == CLIENT_ID {
            return loopback(uri);
        }
        let clients = mutex(&self.clients);
        let Some(c) = clients.get(client_id) else {
            return false;
        };
        // RFC 8252 §7.3: any port for a loopback redirect URI.
        let strip_port = |u: &str| -> String {
            url::Url::parse(u)
                .map(|mut p| {
                    if loopback(u) {
                        let _ = p.set_port(None);
                    }
                    p.to_string()
                })
                .unwrap_or_else(|_| u.to_string())
        };
        c.redirect_uris
            .iter()
            .any(|r| r == uri || strip_port(r) == strip_port(uri))
    }

    /// The authorization endpoint: approves at once (no person to ask) and redirects back with
    /// a code, the state and `iss`; refuses without PKCE S256, a known client, a registered
    /// redirect URI and the `resource` of this server.
    fn authorize(&self, site: &Site<'_>, query: &str) -> Answer {
        let q = pairs(query.as_bytes());
        let get = |k: &str| q.get(k).map(String::as_str).unwrap_or("");
        let (client_id, redirect_uri) = (get("client_id"), get("redirect_uri"));
        if self.client_secret(client_id).is_none()
            || !self.redirect_allowed(client_id, redirect_uri)
        {
            return oauth_error(
                400,
                "invalid_request",
                "unknown client_id or unregistered redirect_uri",
            );
        }
        let refuse = |code: &str, why: &str| {
            let mut to = url::Url::parse(redirect_uri).expect("a registered redirect URI parses");
            to.query_pairs_mut()
                .append_pair("error", code)
                .append_pair("error_description", why)
                .append_pair("state", get("state"))
                .append_pair("iss", &site.issuer());
            redirect(to.as_str())
        };
        if get("response_type") != "code" {
            return refuse("unsupported_response_type", "response_type must be code");
        }
        if get("code_challenge").is_empty() || get("code_challenge_method") != PKCE_S256 {
            return refuse("invalid_request", "PKCE with S256 is required");
        }
        if get("resource") != site.resource() {
            return refuse("invalid_target", "resource must be this MCP server's URI");
        }
        let code = random();
        mutex(&self.codes).insert(
            code.clone(),
            Code {
                client_id: client_id.into(),
                redirect_uri: redirect_uri.into(),
                challenge: get("code_challenge").into(),
                resource: get("resource").into(),
                scope: get("scope").into(),
                until: Instant::now() + CODE_LIFETIME,
            },
        );
        let mut to = url::Url::parse(redirect_uri).expect("a registered redirect URI parses");
        to.query_pairs_mut()
            .append_pair("code", &code)
            .append_pair("state", get("state"))
            .append_pair("iss", &site.issuer());
        redirect(to.as_str())
    }

    /// Who the token request comes from: Basic credentials, or the form's client_id (and
    /// secret); `None` when the credentials do not check out.
    fn authenticate(
        &self,
        headers: &[(String, Vec<u8>)],
        form: &HashMap<String, String>,
    ) -> Option<String> {
        let basic = headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(header::AUTHORIZATION))
            .and_then(|(_, v)| std::str::from_utf8(v).ok())
            .and_then(|v| v.strip_prefix("Basic "))
            .and_then(|b| {
                base64::engine::general_purpose::STANDARD
                    .decode(b.trim())
                    .ok()
            })
            .and_then(|b| String::from_utf8(b).ok());
        let decode = |s: &str| {
            pairs(format!("x={s}").as_bytes())
                .remove("x")
                .unwrap_or_default()
        };
        let (id, secret) = match &basic {
            Some(pair) => {
                let (i, s) = pair.split_once(':')?;
                (decode(i), Some(decode(s)))
            }
            None => (
                form.get("client_id")?.clone(),
                form.get("client_secret").cloned(),
            ),
        };
        match self.client_secret(&id)? {
            Some(expected) if secret.as_deref() == Some(expected.as_str()) => Some(id),
            None if secret.is_none() => Some(id),
            _ => None,
        }
    }

    fn token(&self, site: &Site<'_>, headers: &[(String, Vec<u8>)], body: &[u8]) -> Answer {
        let form = pairs(body);
        let Some(client) = self.authenticate(headers, &form) else {
            return oauth_error(401, "invalid_client", "client authentication failed");
        };
        let get = |k: &str| form.get(k).map(String::as_str).unwrap_or("");
        let (scope, refresh_of) = match get("grant_type") {
            "authorization_code" => {
                let Some(code) = mutex(&self.codes).remove(get("code")) else {
                    return oauth_error(400, "invalid_grant", "unknown or used code");
                };
                let verifier = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(
                    <sha2::Sha256 as sha2::Digest>::digest(get("code_verifier").as_bytes()),
                );
                if code.client_id != client
                    || code.until < Instant::now()
                    || code.redirect_uri != get("redirect_uri")
                    || verifier != code.challenge
                    || get("resource") != code.resource
                {
                    return oauth_error(
                        400,
                        "invalid_grant",
                        "the code, its verifier, redirect_uri or resource do not match",
                    );
                }
                (code.scope, true)
            }
            "refresh_token" => {
                let Some(r) = mutex(&self.refresh).remove(get("refresh_token")) else {
                    return oauth_error(400, "invalid_grant", "unknown refresh token");
                };
                if r.client_id != client
                    || (!get("resource").is_empty() && get("resource") != r.resource)
                {
                    return oauth_error(
                        400,
                        "invalid_grant",
                        "the refresh token belongs to another client or resource",
                    );
                }
                (r.scope, true)
            }
            "client_credentials" if self.client_secret(&client).is_some_and(|s| s.is_some()) => {
                (get("scope").to_string(), false)
            }
            _ => {
                return oauth_error(
                    400,
                    "unsupported_grant_type",
                    "authorization_code, refresh_token, or client_credentials for a confidential client",
                );
            }
        };
        let resource = match get("resource") {
            "" => site.resource(),
            r => r.to_string(),
        };
        let access = random();
        mutex(&self.tokens).insert(
            access.clone(),
            Token {
                resource: resource.clone(),
                scopes: scope
                    .split(' ')
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect(),
                until: Instant::now() + TOKEN_LIFETIME,
                uses: 0,
            },
        );
        let mut answer = json!({
            "access_token": access,
            "token_type": scheme::BEARER,
            "expires_in": TOKEN_LIFETIME.as_secs(),
        });
        if !scope.is_empty() {
            answer["scope"] = json!(scope);
        }
        if refresh_of {
            let r = random();
            mutex(&self.refresh).insert(
                r.clone(),
                Refresh {
                    client_id: client,
                    resource,
                    scope,
                },
            );
            answer["refresh_token"] = json!(r);
        }
        json_answer(200, answer)
    }

    /// The resource server's gate: `None` lets the request through; otherwise the refusal
    /// (401 with a challenge, or a 403 step-up under that fault).
    pub(crate) fn gate(
        &self,
        site: &Site<'_>,
        authorization: Option<&str>,
        query: &str,
        rpc_method: Option<&str>,
    ) -> Option<Answer> {
        let bearer = authorization
            .and_then(|v| v.split_once(' '))
            .filter(|(s, _)| s.eq_ignore_ascii_case(scheme::BEARER))
            .map(|(_, t)| t.trim().to_string());
        let from_query = (site.fault == Some(AuthFault::QueryToken))
            .then(|| pairs(query.as_bytes()).remove(crate::vocab::auth::ACCESS_TOKEN_QUERY))
            .flatten();
        let refuse = |why: &str| {
            let mut a = oauth_error(401, error::INVALID_TOKEN, why);
            a.headers
                .extend(site.challenge(error::INVALID_TOKEN, SCOPE_BASIC));
            Some(a)
        };
        let Some(token) = bearer.or(from_query) else {
            return refuse("an access token is required");
        };
        let mut tokens = mutex(&self.tokens);
        let Some(t) = tokens.get_mut(&token) else {
            return refuse("unknown access token");
        };
        t.uses += 1;
        if t.until < Instant::now()
            || (site.fault == Some(AuthFault::TokenExpiry) && t.uses > EXPIRING_USES)
        {
            return refuse("the access token expired");
        }
        if t.resource != site.resource() {
            return refuse("the access token was issued for another resource");
        }
        let needed: &[&str] = match (site.fault, rpc_method) {
            (Some(AuthFault::StepUp), Some("tools/call")) => &[SCOPE_BASIC, SCOPE_WRITE],
            _ => &[SCOPE_BASIC],
        };
        if needed.iter().all(|s| t.scopes.iter().any(|g| g == s)) {
            return None;
        }
        if needed.len() > 1 && t.scopes.iter().any(|g| g == SCOPE_BASIC) {
            let mut a = oauth_error(403, error::INSUFFICIENT_SCOPE, "tools/call needs mcp:write");
            a.headers
                .extend(site.challenge(error::INSUFFICIENT_SCOPE, &needed.join(" ")));
            return Some(a);
        }
        refuse("the access token lacks the scope mcp:tools")
    }
}

fn redirect(to: &str) -> Answer {
    Answer {
        status: 302,
        headers: vec![(header::LOCATION.into(), to.to_string())],
        body: Vec::new(),
    }
}
