//! Client registration in the spec's priority order (pre-registered credentials, a Client ID
//! Metadata Document URL where the server supports them, dynamic registration per RFC 7591),
//! bound to the issuer that registered the client, and how the client authenticates at the
//! token endpoint (RFC 6749 §2.3.1: `client_secret_basic`, `client_secret_post`, or `none`
//! for a public client).

use base64::Engine as _;
use serde_json::{Value, json};

use super::discovery::{MAX_DOCUMENT, ServerMetadata};
use super::http::{HttpRequest, StepKind, form};
use super::{GrantKind, OAuthClient, OAuthError};
use crate::vocab::auth::{asm, header, scheme};

/// How the client authenticates at the token endpoint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AuthMethod {
    /// `client_secret_basic`: HTTP Basic with the form-encoded id and secret.
    Basic,
    /// `client_secret_post`: id and secret in the form.
    Post,
    /// `none`: a public client; the id in the form.
    None,
}

impl AuthMethod {
    fn name(self) -> &'static str {
        match self {
            AuthMethod::Basic => "client_secret_basic",
            AuthMethod::Post => "client_secret_post",
            AuthMethod::None => "none",
        }
    }

    fn parse(name: &str) -> Option<AuthMethod> {
        [AuthMethod::Basic, AuthMethod::Post, AuthMethod::None]
            .into_iter()
            .find(|m| m.name() == name)
    }
}

/// A client id and how to authenticate with it, at one authorization server.
#[derive(Clone)]
pub struct Registration {
    /// The issuer it belongs to.
    pub issuer: String,
    pub client_id: String,
    secret: Option<String>,
    pub method: AuthMethod,
}

impl Registration {
    /// Adds the client's authentication to a token request: a header, or form fields.
    pub fn authenticate(
        &self,
        headers: &mut Vec<(String, String)>,
        fields: &mut Vec<(String, String)>,
    ) {
        match (self.method, &self.secret) {
            (AuthMethod::Basic, Some(secret)) => {
                let enc = |s: &str| {
                    url::form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>()
                };
                let pair = format!("{}:{}", enc(&self.client_id), enc(secret));
                headers.push((
                    header::AUTHORIZATION.into(),
                    format!(
                        "{} {}",
                        scheme::BASIC,
                        base64::engine::general_purpose::STANDARD.encode(pair)
                    ),
                ));
            }
            (AuthMethod::Post, Some(secret)) => {
                fields.push(("client_id".into(), self.client_id.clone()));
                fields.push(("client_secret".into(), secret.clone()));
            }
            _ => fields.push(("client_id".into(), self.client_id.clone())),
        }
    }
}

/// The method a client with (or without) a secret uses, from what the server supports
/// (absent: `client_secret_basic`, RFC 8414 §2). A public client prefers `none`.
fn choose_method(meta: &ServerMetadata, has_secret: bool) -> AuthMethod {
    let supported = meta.list(asm::TOKEN_AUTH_METHODS);
    let ok = |m: AuthMethod| {
        if supported.is_empty() {
            m == AuthMethod::Basic
        } else {
            supported.contains(&m.name())
        }
    };
    let order: &[AuthMethod] = if has_secret {
        &[AuthMethod::Basic, AuthMethod::Post, AuthMethod::None]
    } else {
        &[AuthMethod::None, AuthMethod::Basic, AuthMethod::Post]
    };
    order
        .iter()
        .copied()
        .find(|m| ok(*m))
        .unwrap_or(if has_secret {
            AuthMethod::Basic
        } else {
            AuthMethod::None
        })
}

impl OAuthClient {
    /// The registration to use with the server `meta`: the one made with it before, else
    /// pre-registered credentials, else the Client ID Metadata Document URL (where supported),
    /// else dynamic registration. Credentials are never carried from one issuer to another.
    pub(super) fn registration(
        &mut self,
        meta: &ServerMetadata,
        redirect_uri: &str,
    ) -> Result<Registration, OAuthError> {
        if let Some(r) = self.registrations.iter().find(|r| r.issuer == meta.issuer) {
            return Ok(r.clone());
        }
        let reg = if let Some(id) = self.config.client_id.clone() {
            if let Some(bound) = &self.config.client_issuer
                && bound != &meta.issuer
            {
                return Err(OAuthError::Refused(format!(
                    "the pre-registered client id belongs to {bound}, but the resource now names the authorization server {}: its credentials are not sent there",
                    meta.issuer
                )));
            }
            let secret = self.config.client_secret.clone();
            Registration {
                issuer: meta.issuer.clone(),
                method: choose_method(meta, secret.is_some()),
                client_id: id,
                secret,
            }
        } else if let Some(url) = self.config.client_metadata_url.clone()
            && meta.flag(asm::CLIENT_ID_METADATA_DOCUMENT_SUPPORTED)
        {
            Registration {
                issuer: meta.issuer.clone(),
                client_id: url,
                secret: None,
                method: AuthMethod::None,
            }
        } else if let Some(endpoint) = meta.str(asm::REGISTRATION_ENDPOINT).map(str::to_string) {
            self.register(meta, &endpoint, redirect_uri)?
        } else {
            return Err(OAuthError::Unsupported(format!(
                "the authorization server {} offers no dynamic registration{}: pass a pre-registered client id",
                meta.issuer,
                if self.config.client_metadata_url.is_some() {
                    " and does not support Client ID Metadata Documents"
                } else {
                    ""
                }
            )));
        };
        self.registrations.push(reg.clone());
        Ok(reg)
    }

    /// Dynamic client registration (RFC 7591 §3.1) as a native application.
    fn register(
        &mut self,
        meta: &ServerMetadata,
        endpoint: &str,
        redirect_uri: &str,
    ) -> Result<Registration, OAuthError> {
        self.guard
            .check(endpoint, "the registration endpoint")
            .map_err(OAuthError::Refused)?;
        let method = choose_method(meta, false);
        let grant_types = match self.config.grant {
            GrantKind::AuthorizationCode => json!(["authorization_code", "refresh_token"]),
            GrantKind::ClientCredentials => json!(["client_credentials"]),
        };
        let body = json!({
            "client_name": self.config.client_name,
            "redirect_uris": [redirect_uri],
            "grant_types": grant_types,
            "response_types": ["code"],
            "token_endpoint_auth_method": method.name(),
            "application_type": "native",
        });
        let request = HttpRequest {
            method: "POST",
            url: endpoint.to_string(),
            headers: vec![
                ("Content-Type".into(), "application/json".into()),
                ("Accept".into(), "application/json".into()),
            ],
            body: Some(body.to_string().into_bytes()),
            max_body: MAX_DOCUMENT,
        };
        let response = self.send(StepKind::Registration, &request)?;
        let doc = response.json_object();
        let client_id = doc
            .as_ref()
            .and_then(|d| d.get("client_id"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let (Some(doc), Some(client_id), true) =
            (doc, client_id, (200..300).contains(&response.status))
        else {
            self.log(StepKind::Registration, &request, Ok(&response), "rejected");
            return Err(OAuthError::Denied(format!(
                "dynamic registration at {endpoint} answered HTTP {}{}",
                response.status,
                describe_error(&response.body)
            )));
        };
        self.log(
            StepKind::Registration,
            &request,
            Ok(&response),
            "registered",
        );
        let secret = doc
            .get("client_secret")
            .and_then(Value::as_str)
            .map(str::to_string);
        let method = doc
            .get("token_endpoint_auth_method")
            .and_then(Value::as_str)
            .and_then(AuthMethod::parse)
            .unwrap_or(method);
        Ok(Registration {
            issuer: meta.issuer.clone(),
            client_id,
            secret: secret.filter(|_| method != AuthMethod::None),
            method,
        })
    }
}

/// `: error (description)` from an OAuth error body, or nothing.
pub fn describe_error(body: &[u8]) -> String {
    let Ok(Value::Object(m)) = serde_json::from_slice::<Value>(body) else {
        return String::new();
    };
    let get = |k| m.get(k).and_then(Value::as_str);
    match (get("error"), get("error_description")) {
        (Some(e), Some(d)) => format!(": {e} ({d})"),
        (Some(e), None) => format!(": {e}"),
        _ => String::new(),
    }
}

/// Form fields as borrowed pairs.
pub fn pairs(fields: &[(String, String)]) -> Vec<(&str, &str)> {
    fields
        .iter()
        .map(|(n, v)| (n.as_str(), v.as_str()))
        .collect()
}

/// A form body.
pub fn form_body(fields: &[(String, String)]) -> Vec<u8> {
    form(&pairs(fields))
}
