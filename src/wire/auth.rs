//! The authorization layer as the wire shows it: the challenges of a `WWW-Authenticate` field
//! (RFC 9110 §11.6.1, RFC 6750 §3) and the URLs discovery derives from one another (the
//! well-known locations of RFC 9728 §3.1 and RFC 8414 §3.1 with OpenID Connect Discovery, the
//! resource and issuer identifiers a metadata URL was built from, a token in a query string).
//!
//! Challenges are parsed by the `http-auth` crate, which follows the RFC's grammar (several
//! challenges in one field, auth-params with tokens or quoted strings and their escapes).
//! Its refusals are kept as they are: a challenge this parser cannot read is one a client
//! cannot act on. URLs are split by hand rather than with a URL library because the judge
//! compares identifiers as written (RFC 9728 and RFC 8414 ask for identical strings, and a
//! parser that normalises, e.g. adds `/` to a pathless URL, would hide the difference), and
//! because the judge compiles without the client's dependencies.

use std::fmt;

use super::exchange::Headers;
use super::origin::WebOrigin;
use crate::vocab::auth::{ACCESS_TOKEN_QUERY, header, param, scheme, well_known};

pub use super::auth_record::{RecordedAuth, RecordedDocument};

/// One challenge: a scheme and its auth-params, values unquoted and unescaped.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Challenge {
    /// The authentication scheme as sent (compare case-insensitively).
    pub scheme: String,
    /// The auth-params in the order sent, names as sent (compare case-insensitively).
    pub params: Vec<(String, String)>,
}

impl Challenge {
    /// The value of a parameter (names compare case-insensitively).
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Whether the scheme is one OAuth access tokens are presented with (Bearer, DPoP).
    pub fn is_token_scheme(&self) -> bool {
        self.scheme.eq_ignore_ascii_case(scheme::BEARER)
            || self.scheme.eq_ignore_ascii_case(scheme::DPOP)
    }

    /// The `error` parameter.
    pub fn error(&self) -> Option<&str> {
        self.param(param::ERROR)
    }

    /// The scopes of the `scope` parameter (space-delimited, RFC 6749 §3.3), without empties.
    pub fn scopes(&self) -> Vec<&str> {
        self.param(param::SCOPE)
            .map(|s| s.split(' ').filter(|s| !s.is_empty()).collect())
            .unwrap_or_default()
    }

    /// The challenge as a reader sees it: `Bearer scope="a b", error="insufficient_scope"`.
    pub fn describe(&self) -> String {
        let mut s = self.scheme.clone();
        for (i, (n, v)) in self.params.iter().enumerate() {
            s.push_str(if i == 0 { " " } else { ", " });
            s.push_str(&format!("{n}=\"{v}\""));
        }
        s
    }
}

/// Why a `WWW-Authenticate` field could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChallengeError {
    /// Which field (1-based) when the response repeats it.
    pub field: usize,
    /// The parser's account: what, at which byte, with the field marked there.
    pub detail: String,
}

impl fmt::Display for ChallengeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} field {} is not a list of challenges: {}",
            header::WWW_AUTHENTICATE,
            self.field,
            self.detail
        )
    }
}

impl std::error::Error for ChallengeError {}

/// Parses one `WWW-Authenticate` field value.
pub fn parse_challenges(value: &str) -> Result<Vec<Challenge>, String> {
    let parsed = http_auth::parse_challenges(value).map_err(|e| e.to_string())?;
    Ok(parsed
        .into_iter()
        .map(|c| Challenge {
            scheme: c.scheme.to_string(),
            params: c
                .params
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_unescaped()))
                .collect(),
        })
        .collect())
}

/// The challenges of a response's `WWW-Authenticate` fields, in order; `None` when it has none.
pub fn read_challenges(headers: &Headers) -> Option<Result<Vec<Challenge>, ChallengeError>> {
    let mut fields = headers.get_all(header::WWW_AUTHENTICATE).peekable();
    fields.peek()?;
    let mut all = Vec::new();
    for (i, value) in fields.enumerate() {
        match parse_challenges(value) {
            Ok(list) => all.extend(list),
            Err(detail) => {
                return Some(Err(ChallengeError {
                    field: i + 1,
                    detail,
                }));
            }
        }
    }
    Some(Ok(all))
}

/// The challenge an OAuth client acts on: the first Bearer or DPoP challenge.
pub fn token_challenge(challenges: &[Challenge]) -> Option<&Challenge> {
    challenges.iter().find(|c| c.is_token_scheme())
}

/// An absolute URL split as written: `scheme://authority`, the path (empty or starting with
/// `/`), the query and the fragment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UrlParts<'a> {
    /// `scheme://authority`, as written.
    pub origin: &'a str,
    /// The path, as written (percent-encoding kept).
    pub path: &'a str,
    /// The query, without its `?`.
    pub query: Option<&'a str>,
    /// The fragment, without its `#`.
    pub fragment: Option<&'a str>,
}

/// Splits an absolute `scheme://authority...` URL; `None` for anything else.
pub fn split_url(url: &str) -> Option<UrlParts<'_>> {
    let scheme_end = url.find("://")?;
    WebOrigin::of_url(url)?;
    let after = scheme_end + 3;
    let authority_end = url[after..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |i| after + i);
    if authority_end == after {
        return None;
    }
    let (rest, fragment) = match url[authority_end..].split_once('#') {
        Some((r, f)) => (r, Some(f)),
        None => (&url[authority_end..], None),
    };
    let (path, query) = match rest.split_once('?') {
        Some((p, q)) => (p, Some(q)),
        None => (rest, None),
    };
    Some(UrlParts {
        origin: &url[..authority_end],
        path,
        query,
        fragment,
    })
}

/// Decodes `%XX` escapes and `+` (form encoding) in a query component; bytes that are not
/// UTF-8 after decoding are replaced.
pub fn query_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' => match (
                b.get(i + 1).and_then(|c| (*c as char).to_digit(16)),
                b.get(i + 2).and_then(|c| (*c as char).to_digit(16)),
            ) {
                (Some(h), Some(l)) => {
                    out.push((h * 16 + l) as u8);
                    i += 2;
                }
                _ => out.push(b'%'),
            },
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The decoded `name=value` pairs of a URL's query.
pub fn query_pairs(url: &str) -> Vec<(String, String)> {
    let Some(query) = split_url(url).and_then(|p| p.query) else {
        return Vec::new();
    };
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| {
            let (n, v) = p.split_once('=').unwrap_or((p, ""));
            (query_decode(n), query_decode(v))
        })
        .collect()
}

/// Whether a URL's query carries an access token (`access_token`, RFC 6750 §2.3).
pub fn token_in_query(url: &str) -> bool {
    query_pairs(url)
        .iter()
        .any(|(n, _)| n == ACCESS_TOKEN_QUERY)
}

/// `origin` + `/.well-known/<suffix>` + `path` with its terminating `/` removed (RFC 9728
/// §3.1, RFC 8414 §3.1: the well-known string goes between the host and the path).
fn insert_well_known(origin: &str, suffix: &str, path: &str) -> String {
    format!(
        "{origin}{}{suffix}{}",
        well_known::PREFIX,
        path.trim_end_matches('/')
    )
}

/// Where a client looks for the protected resource metadata of an MCP endpoint when the
/// challenge names none, in the spec's order: at the endpoint's path, then at the root (the
/// first is left out when the endpoint is the root). The query is not part of the location.
pub fn protected_resource_metadata_urls(endpoint: &str) -> Vec<String> {
    let Some(u) = split_url(endpoint) else {
        return Vec::new();
    };
    let mut urls = Vec::new();
    if !u.path.trim_end_matches('/').is_empty() {
        urls.push(insert_well_known(
            u.origin,
            well_known::PROTECTED_RESOURCE,
            u.path,
        ));
    }
    urls.push(insert_well_known(
        u.origin,
        well_known::PROTECTED_RESOURCE,
        "",
    ));
    urls
}

/// Where a client looks for an authorization server's metadata, in the spec's order: for an
/// issuer with a path, RFC 8414 with the path inserted, OpenID Connect Discovery with the path
/// inserted, then appended; for one without, RFC 8414, then OpenID Connect Discovery.
pub fn authorization_server_metadata_urls(issuer: &str) -> Vec<String> {
    let Some(u) = split_url(issuer) else {
        return Vec::new();
    };
    let path = u.path.trim_end_matches('/');
    let mut urls = vec![
        insert_well_known(u.origin, well_known::AUTHORIZATION_SERVER, path),
        insert_well_known(u.origin, well_known::OPENID_CONFIGURATION, path),
    ];
    if !path.is_empty() {
        urls.push(format!(
            "{}{path}{}{}",
            u.origin,
            well_known::PREFIX,
            well_known::OPENID_CONFIGURATION
        ));
    }
    urls
}

/// The resource identifier a well-known protected resource metadata URL was built from
/// (RFC 9728 §3.1 run backwards); `None` when the URL is not a well-known one (a
/// `resource_metadata` URL may point anywhere).
pub fn resource_of_metadata_url(url: &str) -> Option<String> {
    let u = split_url(url)?;
    let rest = u
        .path
        .strip_prefix(well_known::PREFIX)?
        .strip_prefix(well_known::PROTECTED_RESOURCE)?;
    (rest.is_empty() || rest.starts_with('/')).then(|| format!("{}{rest}", u.origin))
}

/// The issuer identifier an authorization server metadata URL was built from, by each of the
/// three constructions the spec lists; `None` when the URL is none of them.
pub fn issuer_of_metadata_url(url: &str) -> Option<String> {
    let u = split_url(url)?;
    for suffix in [
        well_known::AUTHORIZATION_SERVER,
        well_known::OPENID_CONFIGURATION,
    ] {
        if let Some(rest) = u
            .path
            .strip_prefix(well_known::PREFIX)
            .and_then(|p| p.strip_prefix(suffix))
            && (rest.is_empty() || rest.starts_with('/'))
        {
            return Some(format!("{}{rest}", u.origin));
        }
    }
    let appended = format!("{}{}", well_known::PREFIX, well_known::OPENID_CONFIGURATION);
    let path = u.path.strip_suffix(appended.as_str())?;
    Some(format!("{}{path}", u.origin))
}

/// Whether a resource identifier covers an endpoint: the same origin (scheme, host, port) and
/// a path that is the endpoint's or one of its ancestors, segment by segment. A server at
/// `https://example.com/mcp` may name itself `https://example.com` or `.../mcp`, not `.../other`.
pub fn resource_covers(resource: &str, endpoint: &str) -> bool {
    let (Some(r), Some(e)) = (split_url(resource), split_url(endpoint)) else {
        return false;
    };
    if r.fragment.is_some() || WebOrigin::of_url(resource) != WebOrigin::of_url(endpoint) {
        return false;
    }
    let rp = r.path.trim_end_matches('/');
    let ep = e.path.trim_end_matches('/');
    rp.is_empty() || ep == rp || ep.starts_with(rp) && ep[rp.len()..].starts_with('/')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenges_are_read_per_rfc_grammar() {
        let list = parse_challenges(
            r#"Bearer resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource", scope="files:read files:write", Basic realm="x\"y""#,
        )
        .unwrap();
        assert_eq!(list.len(), 2);
        let bearer = token_challenge(&list).unwrap();
        assert_eq!(bearer.scopes(), ["files:read", "files:write"]);
        assert_eq!(
            bearer.param("RESOURCE_METADATA"),
            Some("https://mcp.example.com/.well-known/oauth-protected-resource")
        );
        assert_eq!(list[1].param("realm"), Some("x\"y"));
        let e = parse_challenges("Bearer scope=\"unterminated").unwrap_err();
        assert!(e.contains("byte"), "{e}");
        assert!(
            parse_challenges("Bearer error=invalid_token")
                .unwrap()
                .first()
                .is_some_and(|c| c.error() == Some("invalid_token"))
        );
    }

    #[test]
    fn fields_are_read_in_order_and_a_bad_one_is_named() {
        let h = Headers::new([
            ("WWW-Authenticate", "Basic realm=\"a\""),
            ("www-authenticate", "DPoP error=\"use_dpop_nonce\""),
        ]);
        let list = read_challenges(&h).unwrap().unwrap();
        assert_eq!(token_challenge(&list).unwrap().scheme, "DPoP");
        let h = Headers::new([("WWW-Authenticate", "Bearer"), ("WWW-Authenticate", "=")]);
        assert_eq!(read_challenges(&h).unwrap().unwrap_err().field, 2);
        assert!(read_challenges(&Headers::default()).is_none());
    }

    #[test]
    fn well_known_locations_follow_the_spec_order() {
        assert_eq!(
            protected_resource_metadata_urls("https://example.com/public/mcp?x=1"),
            [
                "https://example.com/.well-known/oauth-protected-resource/public/mcp",
                "https://example.com/.well-known/oauth-protected-resource"
            ]
        );
        assert_eq!(
            protected_resource_metadata_urls("http://localhost:3000/"),
            ["http://localhost:3000/.well-known/oauth-protected-resource"]
        );
        assert_eq!(
            authorization_server_metadata_urls("https://auth.example.com/tenant1"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/tenant1",
                "https://auth.example.com/.well-known/openid-configuration/tenant1",
                "https://auth.example.com/tenant1/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            authorization_server_metadata_urls("https://auth.example.com"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration"
            ]
        );
    }

    #[test]
    fn identifiers_are_recovered_from_metadata_urls() {
        for issuer in ["https://auth.example.com/tenant1", "https://a.example"] {
            for url in authorization_server_metadata_urls(issuer) {
                assert_eq!(
                    issuer_of_metadata_url(&url).as_deref(),
                    Some(issuer),
                    "{url}"
                );
            }
        }
        assert_eq!(issuer_of_metadata_url("https://a.example/meta.json"), None);
        assert_eq!(
            resource_of_metadata_url(
                "https://example.com/.well-known/oauth-protected-resource/public/mcp"
            )
            .as_deref(),
            Some("https://example.com/public/mcp")
        );
        assert_eq!(
            resource_of_metadata_url("https://example.com/.well-known/oauth-protected-resource")
                .as_deref(),
            Some("https://example.com")
        );
        assert_eq!(
            resource_of_metadata_url("https://example.com/.well-known/oauth-protected-resourcex"),
            None
        );
    }

    #[test]
    fn resources_cover_their_endpoint_and_its_ancestors_only() {
        let ep = "https://Example.com:443/mcp/v1";
        assert!(resource_covers("https://example.com", ep));
        assert!(resource_covers("https://example.com/mcp", ep));
        assert!(resource_covers("https://example.com/mcp/v1/", ep));
        assert!(!resource_covers("https://example.com/mc", ep));
        assert!(!resource_covers("https://evil.example.com/mcp", ep));
        assert!(!resource_covers("http://example.com/mcp", ep));
        assert!(!resource_covers("https://example.com/mcp#f", ep));
        assert!(!resource_covers("mcp.example.com", ep));
    }

    #[test]
    fn query_tokens_are_found_decoded() {
        assert!(token_in_query("https://x.example/mcp?a=1&access_token=abc"));
        assert!(token_in_query("https://x.example/mcp?access%5Ftoken=abc"));
        assert!(!token_in_query(
            "https://x.example/mcp?token=abc#access_token=x"
        ));
        assert_eq!(query_decode("a%20b+c%zz%4"), "a b c%zz%4");
    }
}
