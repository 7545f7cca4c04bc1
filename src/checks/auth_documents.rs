//! Authorization checks that need what the client knew (the exchange's `auth`): the discovery
//! documents it read (the protected resource metadata's `resource` and
//! `authorization_servers`; the authorization server metadata's `issuer`, PKCE methods and
//! `iss` support), a request that left out the token the client held, and a server that
//! served a request whose token came in the query string.

use serde_json::Value;

use crate::check_api::{Cx, Eval, Params};
use crate::vocab::auth::{PKCE_S256, asm, header, prm};
use crate::wire::auth::{
    RecordedAuth, RecordedDocument, issuer_of_metadata_url, resource_covers,
    resource_of_metadata_url, token_in_query,
};
use crate::wire::excerpt;

crate::check_api::declare_checks! {
    "token_left_out" => token_left_out, [], [], AUTH_RECORD,
        "the client held an access token for the server (the exchange's `auth.authorized`) and sent the request without an Authorization header (nor a token in the query)";
    "query_token_served" => query_token_served, [], [], AUTH_RECORD,
        "the server served (2xx without a JSON-RPC error) a request whose only token came in the query string, while the exchange records the server's authorization (`auth`)";
    "prm_authorization_servers" => prm_authorization_servers, [], [], AUTH_RECORD,
        "the recorded protected resource metadata has no `authorization_servers` listing at least one authorization server";
    "prm_resource" => prm_resource, [], [], AUTH_RECORD,
        "the recorded protected resource metadata's `resource` is not the identifier its well-known URL was built from, or (for another URL) does not identify the endpoint of `request.url`";
    "as_issuer" => as_issuer, [], [], AUTH_RECORD,
        "the recorded authorization server metadata's `issuer` is not identical to the issuer identifier its well-known URL was built from";
    "as_pkce_s256" => as_pkce_s256, [], [], AUTH_RECORD,
        "the recorded authorization server metadata does not list S256 in `code_challenge_methods_supported`";
    "as_iss_parameter" => as_iss_parameter, [], [], AUTH_RECORD,
        "the recorded authorization server metadata does not set `authorization_response_iss_parameter_supported` to true";
}

fn auth<'a>(cx: &Cx<'a>) -> Option<&'a RecordedAuth> {
    cx.an.ex.auth.as_ref()
}

fn resource_metadata<'a>(cx: &Cx<'a>) -> Option<&'a RecordedDocument> {
    auth(cx)?.protected_resource_metadata.as_ref()
}

fn server_metadata<'a>(cx: &Cx<'a>) -> Option<&'a RecordedDocument> {
    auth(cx)?.authorization_server_metadata.as_ref()
}

/// Whether the request carried credentials in a header.
fn has_credentials(cx: &Cx<'_>) -> bool {
    let h = &cx.an.ex.request.headers;
    h.get(header::AUTHORIZATION).is_some() || h.get(header::DPOP).is_some()
}

/// "Note that authorization MUST be included in every HTTP request from client to server."
fn token_left_out(cx: &Cx<'_>, _: &Params) -> Eval {
    if !auth(cx).is_some_and(|a| a.authorized) || cx.an.ex.request.headers.is_empty() {
        return Eval::NotApplicable;
    }
    let in_query = cx.an.ex.request.url.as_deref().is_some_and(token_in_query);
    if has_credentials(cx) || in_query {
        return Eval::Pass;
    }
    Eval::hit(
        "",
        format!(
            "the client held an access token for this server but sent the request without an {} header",
            header::AUTHORIZATION
        ),
    )
}

/// A server that accepts a token from the query string invites clients to put it there.
fn query_token_served(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(url) = cx.an.ex.request.url.as_deref() else {
        return Eval::NotApplicable;
    };
    if auth(cx).is_none() || !token_in_query(url) || has_credentials(cx) {
        return Eval::NotApplicable;
    }
    if cx.an.is_2xx() && cx.error_code().is_none() {
        Eval::hit(
            "",
            format!(
                "the server served a request whose only access token was in the query string (HTTP {}); it should have refused it as unauthorized",
                cx.an.status()
            ),
        )
    } else {
        Eval::Pass
    }
}

fn prm_authorization_servers(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(doc) = resource_metadata(cx) else {
        return Eval::NotApplicable;
    };
    let servers = doc
        .document
        .get(prm::AUTHORIZATION_SERVERS)
        .and_then(Value::as_array);
    if servers.is_some_and(|a| !a.is_empty() && a.iter().all(Value::is_string)) {
        return Eval::Pass;
    }
    Eval::hit(
        "",
        format!(
            "the protected resource metadata at {} names no authorization server (`{}`: {})",
            doc.url,
            prm::AUTHORIZATION_SERVERS,
            doc.document
                .get(prm::AUTHORIZATION_SERVERS)
                .map_or("absent".to_string(), |v| excerpt(
                    v.to_string().as_bytes(),
                    120
                ))
        ),
    )
}

/// RFC 9728 §3.3: the `resource` is identical to the identifier a well-known URL was built
/// from. For a URL the challenge named, the resource must identify the endpoint: the endpoint
/// itself or one of its ancestors on the same origin (as the SDKs accept).
fn prm_resource(cx: &Cx<'_>, _: &Params) -> Eval {
    let (Some(doc), Some(endpoint)) = (resource_metadata(cx), cx.an.ex.request.url.as_deref())
    else {
        return Eval::NotApplicable;
    };
    let Some(resource) = doc.str(prm::RESOURCE) else {
        return Eval::hit(
            "",
            format!(
                "the protected resource metadata at {} has no `{}`",
                doc.url,
                prm::RESOURCE
            ),
        );
    };
    let (ok, expected) = match resource_of_metadata_url(&doc.url) {
        Some(id) => (
            resource == id || resource.trim_end_matches('/') == id.trim_end_matches('/'),
            id,
        ),
        None => (resource_covers(resource, endpoint), endpoint.to_string()),
    };
    if ok {
        return Eval::Pass;
    }
    Eval::hit(
        "",
        format!(
            "the protected resource metadata at {} is for `{}`, not for `{expected}`: a client must not use it",
            doc.url,
            excerpt(resource.as_bytes(), 200)
        ),
    )
}

fn as_issuer(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(doc) = server_metadata(cx) else {
        return Eval::NotApplicable;
    };
    let Some(expected) = issuer_of_metadata_url(&doc.url) else {
        return Eval::NotApplicable;
    };
    if doc.str(asm::ISSUER) == Some(expected.as_str()) {
        return Eval::Pass;
    }
    Eval::hit(
        "",
        format!(
            "the authorization server metadata at {} claims the issuer {}, not `{expected}` whose well-known URL it was read from: a client must not use it",
            doc.url,
            doc.str(asm::ISSUER)
                .map_or("(none)".to_string(), |i| format!(
                    "`{}`",
                    excerpt(i.as_bytes(), 200)
                ))
        ),
    )
}

fn as_pkce_s256(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(doc) = server_metadata(cx) else {
        return Eval::NotApplicable;
    };
    let methods = doc.document.get(asm::CODE_CHALLENGE_METHODS);
    let s256 = methods
        .and_then(Value::as_array)
        .is_some_and(|a| a.iter().any(|m| m.as_str() == Some(PKCE_S256)));
    if s256 {
        return Eval::Pass;
    }
    Eval::hit(
        "",
        format!(
            "the authorization server metadata at {} does not advertise PKCE with {PKCE_S256} (`{}`: {}): MCP clients refuse to proceed",
            doc.url,
            asm::CODE_CHALLENGE_METHODS,
            methods.map_or("absent".to_string(), |v| excerpt(
                v.to_string().as_bytes(),
                120
            ))
        ),
    )
}

fn as_iss_parameter(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(doc) = server_metadata(cx) else {
        return Eval::NotApplicable;
    };
    if doc.document.get(asm::ISS_PARAMETER_SUPPORTED) == Some(&Value::Bool(true)) {
        return Eval::Pass;
    }
    Eval::hit(
        "",
        format!(
            "the authorization server metadata at {} does not set `{}` to true: its authorization responses carry no `iss` a client could check against mix-up attacks",
            doc.url,
            asm::ISS_PARAMETER_SUPPORTED
        ),
    )
}
