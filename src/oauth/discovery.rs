//! Discovery: the protected resource metadata (the challenge's `resource_metadata` first,
//! then the well-known locations in the spec's order), the authorization server it names,
//! and that server's metadata (RFC 8414 and OpenID Connect Discovery locations in the spec's
//! order), each document checked before anything in it is used.

use serde_json::{Map, Value};

use super::http::{HttpRequest, StepKind};
use super::{OAuthClient, OAuthError};
use crate::vocab::auth::{PKCE_S256, asm, prm};
use crate::wire::auth::{
    Challenge, RecordedDocument, authorization_server_metadata_urls,
    protected_resource_metadata_urls, resource_covers, resource_of_metadata_url,
};

/// The largest metadata document read: more is refused.
pub const MAX_DOCUMENT: usize = 256 * 1024;

/// A protected resource metadata document, as used.
#[derive(Clone, Debug)]
pub struct ResourceMetadata {
    /// Where it was read.
    pub url: String,
    /// The document as received.
    pub document: Map<String, Value>,
    /// `resource`, exactly as published (the `resource` parameter sends it verbatim).
    pub resource: String,
    /// `authorization_servers`, in order.
    pub authorization_servers: Vec<String>,
    /// `scopes_supported`, when given.
    pub scopes_supported: Option<Vec<String>>,
}

/// An authorization server's metadata, as used.
#[derive(Clone, Debug)]
pub struct ServerMetadata {
    /// Where it was read.
    pub url: String,
    /// The document as received.
    pub document: Map<String, Value>,
    /// `issuer`, checked against the identifier the URL was built from.
    pub issuer: String,
}

impl ServerMetadata {
    /// A string member.
    pub fn str(&self, name: &str) -> Option<&str> {
        self.document.get(name).and_then(Value::as_str)
    }

    /// A list of strings member (absent: empty).
    pub fn list(&self, name: &str) -> Vec<&str> {
        strings(self.document.get(name))
    }

    /// `true` when the member is JSON `true`.
    pub fn flag(&self, name: &str) -> bool {
        self.document.get(name) == Some(&Value::Bool(true))
    }
}

fn strings(v: Option<&Value>) -> Vec<&str> {
    v.and_then(Value::as_array)
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

impl OAuthClient {
    /// GETs a JSON document; `Ok(None)` for a 404 or other non-success answer (the next
    /// location is tried), an error for what must stop the flow.
    fn get_document(
        &mut self,
        kind: StepKind,
        url: &str,
    ) -> Result<Option<Map<String, Value>>, OAuthError> {
        self.guard
            .check(url, kind.label())
            .map_err(OAuthError::Refused)?;
        let request = HttpRequest {
            method: "GET",
            url: url.to_string(),
            headers: vec![("Accept".into(), "application/json".into())],
            body: None,
            max_body: MAX_DOCUMENT,
        };
        let response = self.send(kind, &request)?;
        if (300..400).contains(&response.status) {
            self.log(kind, &request, Ok(&response), "redirect not followed");
            return Err(OAuthError::Refused(format!(
                "the {} at {url} answered with a redirect (HTTP {}); redirects of discovery documents are not followed",
                kind.label(),
                response.status
            )));
        }
        if response.status != 200 {
            self.log(kind, &request, Ok(&response), "not found here");
            return Ok(None);
        }
        match response.json_object() {
            Some(doc) => {
                self.log(kind, &request, Ok(&response), "read");
                let read = Some(RecordedDocument {
                    url: url.to_string(),
                    document: Value::Object(doc.clone()),
                });
                match kind {
                    StepKind::ResourceMetadata => self.read = (read, None),
                    _ => self.read.1 = read,
                }
                Ok(Some(doc))
            }
            None => {
                self.log(kind, &request, Ok(&response), "not a JSON object");
                Err(OAuthError::Invalid(format!(
                    "the {} at {url} is not a JSON object",
                    kind.label()
                )))
            }
        }
    }

    /// The protected resource metadata of `endpoint`: from the challenge's
    /// `resource_metadata` when it names one, else from the well-known locations in order.
    /// Its `resource` must identify the endpoint (RFC 9728 §3.3) and it must name an
    /// authorization server.
    pub(super) fn discover_resource(
        &mut self,
        endpoint: &str,
        challenge: Option<&Challenge>,
    ) -> Result<ResourceMetadata, OAuthError> {
        let named = challenge.and_then(|c| c.param(crate::vocab::auth::param::RESOURCE_METADATA));
        let candidates: Vec<String> = match named {
            Some(url) => vec![url.to_string()],
            None => protected_resource_metadata_urls(endpoint),
        };
        for url in &candidates {
            let Some(doc) = self.get_document(StepKind::ResourceMetadata, url)? else {
                continue;
            };
            let resource = doc
                .get(prm::RESOURCE)
                .and_then(Value::as_str)
                .ok_or_else(|| {
                    OAuthError::Invalid(format!(
                        "the protected resource metadata at {url} has no `resource`"
                    ))
                })?
                .to_string();
            let matches = match resource_of_metadata_url(url) {
                // Built from the resource identifier: it must be that identifier.
                Some(id) if named.is_none() => {
                    resource == id || resource.trim_end_matches('/') == id.trim_end_matches('/')
                }
                _ => resource_covers(&resource, endpoint),
            };
            if !matches {
                return Err(OAuthError::Refused(format!(
                    "the protected resource metadata at {url} is for `{resource}`, not for the MCP server at {endpoint}: its authorization servers are not used"
                )));
            }
            let authorization_servers: Vec<String> = strings(doc.get(prm::AUTHORIZATION_SERVERS))
                .into_iter()
                .map(str::to_string)
                .collect();
            if authorization_servers.is_empty() {
                return Err(OAuthError::Invalid(format!(
                    "the protected resource metadata at {url} names no authorization server (`authorization_servers`)"
                )));
            }
            let scopes_supported = doc
                .get(prm::SCOPES_SUPPORTED)
                .map(|v| strings(Some(v)).into_iter().map(str::to_string).collect());
            return Ok(ResourceMetadata {
                url: url.clone(),
                document: doc,
                resource,
                authorization_servers,
                scopes_supported,
            });
        }
        Err(OAuthError::Invalid(format!(
            "no protected resource metadata found (tried {}): the server does not say where to authorize",
            candidates.join(", ")
        )))
    }

    /// The metadata of the authorization server `issuer`, from the first location that
    /// answers with a document whose `issuer` is identical to it (RFC 8414 §3.3); a document
    /// claiming another issuer is not used. PKCE with S256 must be advertised when
    /// `needs_pkce`.
    pub(super) fn discover_server(
        &mut self,
        issuer: &str,
        needs_pkce: bool,
    ) -> Result<ServerMetadata, OAuthError> {
        let candidates = authorization_server_metadata_urls(issuer);
        if candidates.is_empty() {
            return Err(OAuthError::Invalid(format!(
                "the authorization server `{issuer}` is not an absolute URL"
            )));
        }
        let mut refused = Vec::new();
        for url in &candidates {
            let Some(doc) = self.get_document(StepKind::ServerMetadata, url)? else {
                continue;
            };
            let claimed = doc.get(asm::ISSUER).and_then(Value::as_str).unwrap_or("");
            if claimed != issuer {
                refused.push(format!(
                    "{url} claims the issuer `{claimed}`, not `{issuer}`"
                ));
                continue;
            }
            let meta = ServerMetadata {
                url: url.clone(),
                issuer: issuer.to_string(),
                document: doc,
            };
            if needs_pkce && !meta.list(asm::CODE_CHALLENGE_METHODS).contains(&PKCE_S256) {
                return Err(OAuthError::Refused(format!(
                    "the authorization server {issuer} does not advertise PKCE with S256 (`{}`: {}): refusing to proceed",
                    asm::CODE_CHALLENGE_METHODS,
                    meta.document
                        .get(asm::CODE_CHALLENGE_METHODS)
                        .map_or("absent".to_string(), Value::to_string)
                )));
            }
            for endpoint in [asm::AUTHORIZATION_ENDPOINT, asm::TOKEN_ENDPOINT] {
                if needs_pkce || endpoint == asm::TOKEN_ENDPOINT {
                    meta.str(endpoint).ok_or_else(|| {
                        OAuthError::Invalid(format!("the metadata of {issuer} has no `{endpoint}`"))
                    })?;
                }
            }
            return Ok(meta);
        }
        Err(if refused.is_empty() {
            OAuthError::Invalid(format!(
                "no authorization server metadata for {issuer} (tried {})",
                candidates.join(", ")
            ))
        } else {
            OAuthError::Refused(format!(
                "no usable authorization server metadata for {issuer}: {}; metadata whose issuer differs is not used",
                refused.join("; ")
            ))
        })
    }
}
