//! An OAuth 2.1 client as the MCP authorization pages profile it, for any transport that
//! carries HTTP requests: it discovers where to authorize (protected resource metadata, then
//! the authorization server's metadata), registers (pre-registered credentials, a Client ID
//! Metadata Document URL, or dynamic registration), obtains a token (authorization code with
//! PKCE S256, the `resource` parameter and issuer validation; or client credentials),
//! refreshes it, and steps up its scopes when a server says they are insufficient.
//!
//! The client owns no socket: requests go through [`Http`], and every one of them is kept as a
//! [`FlowStep`] with the secrets it carried taken out, for the caller to show, record and
//! judge. Tokens, codes, verifiers and secrets live in memory only.

mod agent;
mod discovery;
mod flow;
mod guard;
mod http;
mod register;
#[cfg(test)]
mod tests;
#[cfg(feature = "probe")]
mod ureq_http;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

pub use discovery::{MAX_DOCUMENT, ResourceMetadata, ServerMetadata};
pub use guard::{Guard, Reach};
pub use http::{FlowStep, Http, HttpError, HttpRequest, HttpResponse, REDACTED, StepKind};
#[cfg(feature = "probe")]
pub use ureq_http::UreqHttp;

use crate::wire::auth::{Challenge, RecordedDocument};
use register::Registration;

/// How the client obtains its tokens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum GrantKind {
    /// The authorization code grant with PKCE, a user agent visiting the authorization
    /// endpoint (for a person, or followed without one).
    #[default]
    AuthorizationCode,
    /// The client credentials grant, for a client acting on its own behalf (needs a client id
    /// and secret).
    ClientCredentials,
}

/// How the user-agent step of the authorization code grant happens.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum UserAgent {
    /// Open the authorization URL in the system browser and wait for the redirect on a
    /// loopback listener.
    #[default]
    Browser,
    /// Follow the authorization endpoint's redirects without a browser, reading the code off
    /// the redirect to the redirect URI (for test servers that authorize without a person).
    Follow,
}

/// What the client is configured with.
#[derive(Clone, Debug)]
pub struct OAuthConfig {
    /// A pre-registered client id.
    pub client_id: Option<String>,
    /// The pre-registered client's secret.
    pub client_secret: Option<String>,
    /// The issuer the pre-registered credentials belong to; another authorization server is
    /// refused rather than sent them. Absent: they are used with whichever server the resource
    /// names.
    pub client_issuer: Option<String>,
    /// The URL of this client's Client ID Metadata Document, used as its client id where the
    /// authorization server supports such documents.
    pub client_metadata_url: Option<String>,
    /// Scopes to request instead of the spec's selection (space-separated).
    pub scope: Option<String>,
    /// The grant.
    pub grant: GrantKind,
    /// The user-agent step.
    pub user_agent: UserAgent,
    /// The redirect URI; absent: a loopback one (`http://127.0.0.1:PORT/callback`).
    pub redirect_uri: Option<String>,
    /// The name registered with the authorization server.
    pub client_name: String,
    /// How many times scopes are stepped up in one session.
    pub max_step_ups: u32,
    /// How long the browser step may take.
    pub browser_timeout: Duration,
}

impl Default for OAuthConfig {
    fn default() -> Self {
        OAuthConfig {
            client_id: None,
            client_secret: None,
            client_issuer: None,
            client_metadata_url: None,
            scope: None,
            grant: GrantKind::default(),
            user_agent: UserAgent::default(),
            redirect_uri: None,
            client_name: "mcp-verdict".into(),
            max_step_ups: 2,
            browser_timeout: Duration::from_secs(300),
        }
    }
}

/// Why the client could not authorize.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OAuthError {
    /// A request got no answer.
    Http(String),
    /// A document or answer is not what the protocol says it must be.
    Invalid(String),
    /// The client refused to go on: a check that protects it failed (a resource or issuer
    /// mismatch, no PKCE, a URL it must not visit, an authorization response that fails
    /// validation).
    Refused(String),
    /// The authorization server said no (`error`, `error_description`).
    Denied(String),
    /// Nothing the client can do: no way to register, a grant it cannot perform, a step-up
    /// it has already tried.
    Unsupported(String),
}

impl fmt::Display for OAuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OAuthError::Http(m) => write!(f, "authorization failed: {m}"),
            OAuthError::Invalid(m) => write!(f, "authorization failed: {m}"),
            OAuthError::Refused(m) => write!(f, "authorization refused by the client: {m}"),
            OAuthError::Denied(m) => write!(f, "the authorization server refused: {m}"),
            OAuthError::Unsupported(m) => write!(f, "cannot authorize: {m}"),
        }
    }
}

impl std::error::Error for OAuthError {}

/// A token and what it was issued for.
#[derive(Clone)]
struct TokenSet {
    access: String,
    refresh: Option<String>,
    /// The issuer that issued it.
    issuer: String,
}

impl fmt::Debug for TokenSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TokenSet({REDACTED}, issuer {})", self.issuer)
    }
}

/// What a refusal led to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reaction {
    /// A new token is held: send the request again.
    Retry,
    /// The client will not try again (its step-ups are spent, or the challenge asks for
    /// nothing new): the refusal stands.
    GiveUp(String),
}

/// The client: configuration, the HTTP it speaks, what it has discovered and registered, and
/// its token.
pub struct OAuthClient {
    config: OAuthConfig,
    http: Arc<dyn Http + Send + Sync>,
    /// The MCP endpoint the tokens are for.
    endpoint: String,
    guard: Guard,
    steps: Vec<FlowStep>,
    registrations: Vec<Registration>,
    resource: Option<ResourceMetadata>,
    server: Option<ServerMetadata>,
    /// The last protected resource metadata and authorization server metadata read, used or
    /// refused (for the record of what the server published).
    read: (Option<RecordedDocument>, Option<RecordedDocument>),
    token: Option<TokenSet>,
    /// Every scope requested so far (step-ups request their union with the challenged ones).
    requested: Vec<String>,
    step_ups: u32,
}

impl OAuthClient {
    /// A client for the MCP server at `endpoint`.
    pub fn new(
        config: OAuthConfig,
        http: Arc<dyn Http + Send + Sync>,
        endpoint: &str,
    ) -> Result<Self, String> {
        if config.grant == GrantKind::ClientCredentials && config.client_id.is_none() {
            return Err("client credentials need a client id (and secret)".into());
        }
        Ok(OAuthClient {
            guard: Guard::for_server(endpoint)?,
            endpoint: endpoint.to_string(),
            config,
            http,
            steps: Vec::new(),
            registrations: Vec::new(),
            resource: None,
            server: None,
            read: (None, None),
            token: None,
            requested: Vec::new(),
            step_ups: 0,
        })
    }

    /// A client whose URL checks assume the server at a given reach (tests).
    pub fn with_guard(mut self, guard: Guard) -> Self {
        self.guard = guard;
        self
    }

    /// The `Authorization` header value to send, once a token is held.
    pub fn authorization(&self) -> Option<String> {
        self.token.as_ref().map(|t| format!("Bearer {}", t.access))
    }

    /// Every request made so far, secrets redacted.
    pub fn steps(&self) -> &[FlowStep] {
        &self.steps
    }

    /// Takes the requests made since the last call.
    pub fn take_steps(&mut self) -> Vec<FlowStep> {
        std::mem::take(&mut self.steps)
    }

    /// The protected resource metadata in use.
    pub fn resource_metadata(&self) -> Option<&ResourceMetadata> {
        self.resource.as_ref()
    }

    /// The last protected resource metadata and authorization server metadata the client read
    /// (whether it used them or refused them), for the record of an exchange.
    pub fn documents(&self) -> (Option<RecordedDocument>, Option<RecordedDocument>) {
        self.read.clone()
    }

    /// The authorization server metadata in use.
    pub fn server_metadata(&self) -> Option<&ServerMetadata> {
        self.server.as_ref()
    }

    /// Sends a request of the flow; an error when no answer came (logged as such).
    fn send(&mut self, kind: StepKind, request: &HttpRequest) -> Result<HttpResponse, OAuthError> {
        let http = Arc::clone(&self.http);
        http.send(request).map_err(|e| {
            self.log(kind, request, Err(&e), "no answer");
            OAuthError::Http(format!("{} at {}: {e}", kind.label(), request.url))
        })
    }

    fn log(
        &mut self,
        kind: StepKind,
        request: &HttpRequest,
        response: Result<&HttpResponse, &HttpError>,
        outcome: &str,
    ) {
        self.steps
            .push(FlowStep::of(kind, request, response, outcome.to_string()));
    }

    /// Reacts to a refusal of a request to the endpoint: a 401 (authorize, or refresh the token
    /// first when one is held) or a 403 whose challenge says `insufficient_scope` (step up).
    /// Any other status is not the client's to fix.
    pub fn react(
        &mut self,
        status: u16,
        challenge: Option<&Challenge>,
    ) -> Result<Reaction, OAuthError> {
        let endpoint = self.endpoint.clone();
        let endpoint = endpoint.as_str();
        let error = challenge.and_then(Challenge::error);
        match status {
            401 => {
                if self.token.is_some() && self.refresh()? {
                    return Ok(Reaction::Retry);
                }
                self.token = None;
                self.authorize(endpoint, challenge)?;
                Ok(Reaction::Retry)
            }
            403 if error == Some(crate::vocab::auth::error::INSUFFICIENT_SCOPE) => {
                let wanted: Vec<String> = challenge
                    .map(|c| c.scopes().into_iter().map(str::to_string).collect())
                    .unwrap_or_default();
                let new: Vec<&String> = wanted
                    .iter()
                    .filter(|s| !self.requested.contains(s))
                    .collect();
                if new.is_empty() {
                    return Ok(Reaction::GiveUp(format!(
                        "the server says the token's scope is insufficient, but its challenge asks for nothing beyond the scopes already requested ({}): authorizing again would not help",
                        self.requested.join(" ")
                    )));
                }
                if self.step_ups >= self.config.max_step_ups {
                    return Ok(Reaction::GiveUp(format!(
                        "the server asks for more scope ({}) after {} step-up(s): treated as a permanent authorization failure",
                        wanted.join(" "),
                        self.step_ups
                    )));
                }
                self.step_ups += 1;
                self.authorize(endpoint, challenge)?;
                Ok(Reaction::Retry)
            }
            _ => Ok(Reaction::GiveUp(format!(
                "HTTP {status} is not an authorization challenge the client can answer"
            ))),
        }
    }
}
