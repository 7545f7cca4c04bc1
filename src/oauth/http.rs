//! The HTTP the OAuth client speaks, as a narrow trait ([`Http`]) so that the flow knows no
//! socket (the probe gives it a `ureq` agent, tests a scripted server), and the record of every
//! request it made ([`FlowStep`]), with the secrets it handles taken out as it is written.

use std::fmt;

use serde::Serialize;
use serde_json::Value;

use crate::vocab::auth::header;
use crate::wire::auth::{query_decode, split_url};
use crate::wire::exchange::Headers;

/// Written in place of a secret.
pub const REDACTED: &str = "[REDACTED]";

/// Form fields and JSON members the flow sends or receives that are secrets: codes, PKCE
/// verifiers, tokens, client secrets and assertions. `state` is a one-time value too.
const SECRET_FIELDS: [&str; 10] = [
    "code",
    "code_verifier",
    "access_token",
    "refresh_token",
    "id_token",
    "client_secret",
    "client_assertion",
    "assertion",
    "subject_token",
    "state",
];

/// One request the flow makes.
#[derive(Clone, Debug)]
pub struct HttpRequest {
    /// `GET` or `POST`.
    pub method: &'static str,
    /// The absolute URL.
    pub url: String,
    /// Header fields to send.
    pub headers: Vec<(String, String)>,
    /// The body (a form or JSON), if any.
    pub body: Option<Vec<u8>>,
    /// The largest response body accepted; a larger one is an error.
    pub max_body: usize,
}

/// What came back. Redirects are never followed: a 3xx is returned as it is.
#[derive(Clone, Debug)]
pub struct HttpResponse {
    /// The status code.
    pub status: u16,
    /// The header fields.
    pub headers: Headers,
    /// The body, at most the request's `max_body` bytes.
    pub body: Vec<u8>,
}

impl HttpResponse {
    /// The body as JSON, when it is a JSON object.
    pub fn json_object(&self) -> Option<serde_json::Map<String, Value>> {
        match serde_json::from_slice::<Value>(&self.body).ok()? {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }
}

/// Why a request got no response.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HttpError(pub String);

impl fmt::Display for HttpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Sends one request and reads the response, following no redirect and reading no more than
/// `max_body` bytes (more is an error naming the limit).
pub trait Http {
    /// The response, or why there is none.
    fn send(&self, request: &HttpRequest) -> Result<HttpResponse, HttpError>;
}

/// What a request of the flow was for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepKind {
    /// Protected resource metadata (RFC 9728).
    ResourceMetadata,
    /// Authorization server metadata (RFC 8414, OpenID Connect Discovery).
    ServerMetadata,
    /// Dynamic client registration (RFC 7591).
    Registration,
    /// The authorization endpoint, as the user agent visits it.
    Authorization,
    /// The token endpoint: a code, a refresh token, client credentials or an assertion
    /// exchanged for a token.
    Token,
}

impl StepKind {
    /// For people.
    pub fn label(self) -> &'static str {
        match self {
            StepKind::ResourceMetadata => "protected resource metadata",
            StepKind::ServerMetadata => "authorization server metadata",
            StepKind::Registration => "client registration",
            StepKind::Authorization => "authorization request",
            StepKind::Token => "token request",
        }
    }
}

/// One request of the flow and its answer, secrets taken out.
#[derive(Clone, Debug, Serialize)]
pub struct FlowStep {
    /// What it was for.
    pub kind: StepKind,
    /// `GET` or `POST`.
    pub method: &'static str,
    /// The URL, secret query parameters redacted.
    pub url: String,
    /// The request's header fields, credentials redacted.
    pub request_headers: Headers,
    /// The request body, secret fields redacted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub request_body: Option<String>,
    /// The status, when a response came.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    /// The response's header fields (a redirect's `Location` redacted as a URL).
    pub response_headers: Headers,
    /// The response body, secret members redacted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub response_body: Option<String>,
    /// What the client concluded from it: accepted, or why not.
    pub outcome: String,
}

impl FlowStep {
    /// The record of `request` and its `response` (or the error), secrets redacted.
    pub fn of(
        kind: StepKind,
        request: &HttpRequest,
        response: Result<&HttpResponse, &HttpError>,
        outcome: impl Into<String>,
    ) -> FlowStep {
        let (status, response_headers, response_body) = match response {
            Ok(r) => (
                Some(r.status),
                Headers::new(r.headers.iter().map(|(n, v)| {
                    let v = if n.eq_ignore_ascii_case(header::LOCATION) {
                        redact_url(v)
                    } else {
                        v.to_string()
                    };
                    (n.to_string(), v)
                })),
                (!r.body.is_empty()).then(|| redact_body(&r.body)),
            ),
            Err(_) => (None, Headers::default(), None),
        };
        FlowStep {
            kind,
            method: request.method,
            url: redact_url(&request.url),
            request_headers: Headers::new(request.headers.iter().map(|(n, v)| {
                let v = if n.eq_ignore_ascii_case(header::AUTHORIZATION)
                    || n.eq_ignore_ascii_case(header::DPOP)
                {
                    redact_credentials(v)
                } else {
                    v.clone()
                };
                (n.clone(), v)
            })),
            request_body: request.body.as_deref().map(redact_body),
            status,
            response_headers,
            response_body,
            outcome: match response {
                Err(e) => format!("{}; {}", e, outcome.into()),
                Ok(_) => outcome.into(),
            },
        }
    }
}

fn is_secret_field(name: &str) -> bool {
    SECRET_FIELDS.iter().any(|s| name.eq_ignore_ascii_case(s))
}

/// `Bearer abc` -> `Bearer [REDACTED]`.
fn redact_credentials(v: &str) -> String {
    match v.split_once(' ') {
        Some((scheme, _)) => format!("{scheme} {REDACTED}"),
        None => REDACTED.to_string(),
    }
}

/// A URL with the values of secret query parameters replaced.
pub fn redact_url(url: &str) -> String {
    let Some(parts) = split_url(url) else {
        return url.to_string();
    };
    let Some(query) = parts.query else {
        return url.to_string();
    };
    let redacted: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((n, _)) if is_secret_field(&query_decode(n)) => format!("{n}={REDACTED}"),
            _ => pair.to_string(),
        })
        .collect();
    let fragment = parts.fragment.map(|f| format!("#{f}")).unwrap_or_default();
    format!(
        "{}{}?{}{fragment}",
        parts.origin,
        parts.path,
        redacted.join("&")
    )
}

/// A form or JSON body with secret fields replaced; anything else is kept as text.
fn redact_body(body: &[u8]) -> String {
    if let Ok(mut v) = serde_json::from_slice::<Value>(body) {
        redact_json(&mut v);
        return v.to_string();
    }
    let text = String::from_utf8_lossy(body);
    if text.contains('=') && !text.contains(char::is_whitespace) {
        return text
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((n, _)) if is_secret_field(&query_decode(n)) => format!("{n}={REDACTED}"),
                _ => pair.to_string(),
            })
            .collect::<Vec<_>>()
            .join("&");
    }
    text.into_owned()
}

fn redact_json(v: &mut Value) {
    match v {
        Value::Object(m) => {
            for (k, v) in m.iter_mut() {
                if is_secret_field(k) {
                    *v = Value::String(REDACTED.into());
                } else {
                    redact_json(v);
                }
            }
        }
        Value::Array(a) => a.iter_mut().for_each(redact_json),
        _ => {}
    }
}

/// `application/x-www-form-urlencoded` serialisation of name/value pairs.
pub fn form(pairs: &[(&str, &str)]) -> Vec<u8> {
    url::form_urlencoded::Serializer::new(String::new())
        .extend_pairs(pairs)
        .finish()
        .into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_keep_no_secret() {
        let req = HttpRequest {
            method: "POST",
            url: "https://as.example/token?code=abcabc&x=1".into(),
            headers: vec![("Authorization".into(), "Basic Y2xpZW50OnNlY3JldA==".into())],
            body: Some(form(&[
                ("grant_type", "authorization_code"),
                ("code", "the-code"),
                ("code_verifier", "the-verifier"),
                ("client_secret", "the-secret"),
            ])),
            max_body: 1024,
        };
        let resp = HttpResponse {
            status: 302,
            headers: Headers::new([("Location", "http://127.0.0.1/cb?code=c2c2&state=s2s2&iss=x")]),
            body: br#"{"access_token":"tok-123","refresh_token":"ref-456","token_type":"Bearer"}"#
                .to_vec(),
        };
        let step = FlowStep::of(StepKind::Token, &req, Ok(&resp), "accepted");
        let text = serde_json::to_string(&step).unwrap();
        for secret in [
            "abcabc",
            "Y2xpZW50",
            "the-code",
            "the-verifier",
            "the-secret",
            "c2c2",
            "s2s2",
            "tok-123",
            "ref-456",
        ] {
            assert!(!text.contains(secret), "{secret} in {text}");
        }
        assert!(text.contains("grant_type=authorization_code"), "{text}");
        assert!(text.contains("iss=x"), "{text}");
    }
}
