//! Obtaining a token: scope selection in the spec's priority order, the authorization code
//! grant with PKCE S256 (RFC 7636), a `state` value and the `resource` parameter (RFC 8707),
//! validation of the authorization response (state; `iss` per RFC 9207 §2.4, before the code
//! goes anywhere), the token request, refresh, and the client credentials grant.
//!
//! Verifiers and states come from the operating system's CSPRNG (`getrandom`); the challenge is
//! SHA-256 (`sha2`) in unpadded base64url.

use base64::Engine as _;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::agent::{Callback, Listener};
use super::discovery::{MAX_DOCUMENT, ServerMetadata};
use super::http::{HttpRequest, StepKind};
use super::register::{Registration, describe_error, form_body};
use super::{GrantKind, OAuthClient, OAuthError, TokenSet, UserAgent};
use crate::vocab::auth::{OFFLINE_ACCESS, PKCE_S256, asm, scheme};
use crate::wire::auth::Challenge;

/// The redirect URI when nothing listens (the follower reads the code off the redirect).
const FOLLOW_REDIRECT_URI: &str = "http://127.0.0.1/callback";

/// `n` random bytes in unpadded base64url.
fn random(n: usize) -> Result<String, OAuthError> {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes)
        .map_err(|e| OAuthError::Unsupported(format!("no randomness for PKCE: {e}")))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

/// The S256 challenge of a verifier (RFC 7636 §4.2).
pub fn s256(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

fn value<'a>(cb: &'a Callback, name: &str) -> Option<&'a str> {
    cb.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
}

/// Adds scopes not yet in `to`, keeping order.
fn union(to: &mut Vec<String>, more: impl IntoIterator<Item = String>) {
    for s in more {
        if !s.is_empty() && !to.contains(&s) {
            to.push(s);
        }
    }
}

impl OAuthClient {
    /// Obtains a token for the MCP server at `endpoint`, after a refusal carrying `challenge`
    /// (or none): discovery afresh (the server may have moved to another authorization
    /// server), registration, then the configured grant.
    pub(super) fn authorize(
        &mut self,
        endpoint: &str,
        challenge: Option<&Challenge>,
    ) -> Result<(), OAuthError> {
        let resource = self.discover_resource(endpoint, challenge)?;
        let issuer = resource.authorization_servers[0].clone();
        let code = self.config.grant == GrantKind::AuthorizationCode;
        let server = self.discover_server(&issuer, code)?;
        let scopes = self.select_scopes(challenge, &resource.scopes_supported, &server);
        self.resource = Some(resource.clone());
        self.server = Some(server.clone());
        let token = if code {
            self.authorization_code(&server, &resource.resource, &scopes)?
        } else {
            let reg = self.registration(&server, FOLLOW_REDIRECT_URI)?;
            let mut fields = vec![("grant_type".into(), "client_credentials".into())];
            if !scopes.is_empty() {
                fields.push(("scope".into(), scopes.join(" ")));
            }
            fields.push(("resource".into(), resource.resource.clone()));
            self.token_request(&server, &reg, fields)?
        };
        union(&mut self.requested, scopes);
        self.token = Some(token);
        Ok(())
    }

    /// The scopes to request: configured ones, else the challenge's, else all of the
    /// resource's `scopes_supported`, else none (the parameter is left out); with what was
    /// requested before (a step-up keeps earlier grants), and `offline_access` when the
    /// authorization server lists it (to get a refresh token).
    fn select_scopes(
        &self,
        challenge: Option<&Challenge>,
        supported: &Option<Vec<String>>,
        server: &ServerMetadata,
    ) -> Vec<String> {
        let mut scopes = self.requested.clone();
        let chosen: Vec<String> = if let Some(s) = &self.config.scope {
            s.split(' ').map(str::to_string).collect()
        } else {
            match challenge.map(Challenge::scopes).filter(|s| !s.is_empty()) {
                Some(s) => s.into_iter().map(str::to_string).collect(),
                None => supported.clone().unwrap_or_default(),
            }
        };
        union(&mut scopes, chosen);
        if self.config.grant == GrantKind::AuthorizationCode
            && !scopes.is_empty()
            && server.list(asm::SCOPES_SUPPORTED).contains(&OFFLINE_ACCESS)
        {
            union(&mut scopes, [OFFLINE_ACCESS.to_string()]);
        }
        scopes
    }

    /// The authorization code grant: registration, the user agent's visit with PKCE and
    /// state, validation of the answer, then the token request.
    fn authorization_code(
        &mut self,
        server: &ServerMetadata,
        resource: &str,
        scopes: &[String],
    ) -> Result<TokenSet, OAuthError> {
        let listener = match (&self.config.redirect_uri, self.config.user_agent) {
            (None, UserAgent::Browser) => Some(Listener::bind()?),
            _ => None,
        };
        let redirect_uri = match (&self.config.redirect_uri, &listener) {
            (Some(r), _) => r.clone(),
            (None, Some(l)) => l.redirect_uri.clone(),
            (None, None) => FOLLOW_REDIRECT_URI.to_string(),
        };
        let reg = self.registration(server, &redirect_uri)?;
        let verifier = random(32)?;
        let state = random(16)?;
        let endpoint = server.str(asm::AUTHORIZATION_ENDPOINT).unwrap_or_default();
        self.guard
            .check(endpoint, "the authorization endpoint")
            .map_err(OAuthError::Refused)?;
        let mut url = url::Url::parse(endpoint).map_err(|e| {
            OAuthError::Invalid(format!("the authorization endpoint `{endpoint}`: {e}"))
        })?;
        {
            let mut q = url.query_pairs_mut();
            q.append_pair("response_type", "code")
                .append_pair("client_id", &reg.client_id)
                .append_pair("redirect_uri", &redirect_uri)
                .append_pair("code_challenge", &s256(&verifier))
                .append_pair("code_challenge_method", PKCE_S256)
                .append_pair("state", &state)
                .append_pair("resource", resource);
            if !scopes.is_empty() {
                q.append_pair("scope", &scopes.join(" "));
            }
        }
        let callback = self.visit(url.as_str(), &redirect_uri, listener.as_ref())?;
        let code = self.validate_callback(&callback, &state, server)?;
        let fields = vec![
            ("grant_type".into(), "authorization_code".into()),
            ("code".into(), code),
            ("redirect_uri".into(), redirect_uri),
            ("code_verifier".into(), verifier),
            ("resource".into(), resource.to_string()),
        ];
        self.token_request(server, &reg, fields)
    }

    /// Checks the authorization response before anything in it is used: the state, then the
    /// issuer (RFC 9207 §2.4, as the 2026-07-28 authorization page tabulates it: a present
    /// `iss` must equal the recorded issuer by simple string comparison; an absent one is
    /// rejected only when the server advertises `iss`), then an error, then the code.
    fn validate_callback(
        &self,
        cb: &Callback,
        state: &str,
        server: &ServerMetadata,
    ) -> Result<String, OAuthError> {
        if value(cb, "state") != Some(state) {
            return Err(OAuthError::Refused(
                "the authorization response does not carry the state this client sent: discarded"
                    .into(),
            ));
        }
        match value(cb, "iss") {
            Some(iss) if iss != server.issuer => {
                return Err(OAuthError::Refused(format!(
                    "the authorization response comes from the issuer `{iss}`, not from `{}` whose metadata this client used: the code is not sent anywhere (RFC 9207)",
                    server.issuer
                )));
            }
            None if server.flag(asm::ISS_PARAMETER_SUPPORTED) => {
                return Err(OAuthError::Refused(format!(
                    "the authorization response has no `iss` although {} advertises {}: rejected (RFC 9207)",
                    server.issuer,
                    asm::ISS_PARAMETER_SUPPORTED
                )));
            }
            _ => {}
        }
        if let Some(error) = value(cb, "error") {
            return Err(OAuthError::Denied(match value(cb, "error_description") {
                Some(d) => format!("{error} ({d})"),
                None => error.to_string(),
            }));
        }
        value(cb, "code")
            .filter(|c| !c.is_empty())
            .map(str::to_string)
            .ok_or_else(|| OAuthError::Invalid("the authorization response carries no code".into()))
    }

    /// POSTs a token request and reads the token.
    fn token_request(
        &mut self,
        server: &ServerMetadata,
        reg: &Registration,
        mut fields: Vec<(String, String)>,
    ) -> Result<TokenSet, OAuthError> {
        let endpoint = server
            .str(asm::TOKEN_ENDPOINT)
            .unwrap_or_default()
            .to_string();
        self.guard
            .check(&endpoint, "the token endpoint")
            .map_err(OAuthError::Refused)?;
        let mut headers = vec![
            (
                "Content-Type".to_string(),
                "application/x-www-form-urlencoded".to_string(),
            ),
            ("Accept".to_string(), "application/json".to_string()),
        ];
        reg.authenticate(&mut headers, &mut fields);
        let request = HttpRequest {
            method: "POST",
            url: endpoint.clone(),
            headers,
            body: Some(form_body(&fields)),
            max_body: MAX_DOCUMENT,
        };
        let response = self.send(StepKind::Token, &request)?;
        let doc = response.json_object().filter(|_| response.status == 200);
        let access = doc
            .as_ref()
            .and_then(|d| d.get("access_token"))
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty());
        let token_type = doc
            .as_ref()
            .and_then(|d| d.get("token_type"))
            .and_then(Value::as_str)
            .unwrap_or("");
        let Some(access) = access else {
            self.log(StepKind::Token, &request, Ok(&response), "no token");
            return Err(OAuthError::Denied(format!(
                "the token endpoint {endpoint} answered HTTP {}{}",
                response.status,
                describe_error(&response.body)
            )));
        };
        if !token_type.eq_ignore_ascii_case(scheme::BEARER) {
            self.log(
                StepKind::Token,
                &request,
                Ok(&response),
                "not a bearer token",
            );
            return Err(OAuthError::Unsupported(format!(
                "the token endpoint issued a `{token_type}` token; this client presents Bearer tokens only"
            )));
        }
        let token = TokenSet {
            access: access.to_string(),
            refresh: doc
                .as_ref()
                .and_then(|d| d.get("refresh_token"))
                .and_then(Value::as_str)
                .map(str::to_string),
            issuer: server.issuer.clone(),
        };
        self.log(StepKind::Token, &request, Ok(&response), "token issued");
        Ok(token)
    }

    /// Refreshes the token held, at the server that issued it; `Ok(false)` when there is no
    /// refresh token or the server refuses it (the caller then authorizes afresh).
    pub(super) fn refresh(&mut self) -> Result<bool, OAuthError> {
        let Some(old) = self.token.clone() else {
            return Ok(false);
        };
        let (Some(refresh), Some(server), Some(resource)) = (
            old.refresh.clone(),
            self.server.clone().filter(|s| s.issuer == old.issuer),
            self.resource.clone(),
        ) else {
            return Ok(false);
        };
        let Some(reg) = self
            .registrations
            .iter()
            .find(|r| r.issuer == server.issuer)
            .cloned()
        else {
            return Ok(false);
        };
        let fields = vec![
            ("grant_type".into(), "refresh_token".into()),
            ("refresh_token".into(), refresh.clone()),
            ("resource".into(), resource.resource.clone()),
        ];
        match self.token_request(&server, &reg, fields) {
            Ok(mut t) => {
                // A server that does not rotate refresh tokens leaves the old one valid.
                t.refresh = t.refresh.or(Some(refresh));
                self.token = Some(t);
                Ok(true)
            }
            Err(OAuthError::Denied(_)) => Ok(false),
            Err(e) => Err(e),
        }
    }
}
