//! Authorization checks on one exchange: what a 401 or 403 tells the client (the tool did not
//! run; authorize, or step up, and retry), the `WWW-Authenticate` challenge a server must send
//! and the parameters it should carry, the pairing of a challenge's error code with its
//! status, and an access token sent in a URL's query string.

use crate::check_api::{Cx, Eval, Params};
use crate::vocab::auth::{ACCESS_TOKEN_QUERY, header, param};
use crate::vocab::http::reason_phrase;
use crate::wire::auth::{
    Challenge, read_challenges, resource_of_metadata_url, token_challenge, token_in_query,
};
use crate::wire::excerpt;

crate::check_api::declare_checks! {
    "auth_refused" => auth_refused, ["status", "value"], ["status"], HTTP,
        "the answer is HTTP `status` (and, with `value`, its Bearer or DPoP challenge has that `error`): the request was refused for want of authorization";
    "challenge_given" => challenge_given, ["status"], ["status"], HTTP,
        "an HTTP `status` answer carries no WWW-Authenticate challenge, or one that cannot be parsed";
    "challenge_param" => challenge_param, ["status", "value", "names"], ["status", "value"], HTTP | CHALLENGE,
        "the Bearer or DPoP challenge of an HTTP `status` answer (with `names`: one whose `error` is among them) lacks the auth-param `value`";
    "challenge_error_status" => challenge_error_status, ["status", "value"], ["status", "value"], HTTP | CHALLENGE,
        "a Bearer or DPoP challenge with `error` `value` came with an HTTP status other than `status`";
    "token_in_query" => query_token, [], [], HTTP,
        "the request URL carries an access token in its query string (`access_token`)";
    "offline_access_listed" => offline_access_listed, ["value"], ["value"], HTTP,
        "the scope `value` names is in the answer's Bearer or DPoP challenge `scope`, or in the `scopes_supported` of the protected resource metadata the exchange records";
}

/// A scope a protected resource should not ask for: the challenge's `scope` or the recorded
/// protected resource metadata's `scopes_supported` names it.
fn offline_access_listed(cx: &Cx<'_>, p: &Params) -> Eval {
    let Some(scope) = p.value.as_deref() else {
        return Eval::NotApplicable;
    };
    let mut seen = false;
    let mut hits = Vec::new();
    if let Some(list) = challenges(cx)
        && let Some(c) = token_challenge(&list)
        && let Some(v) = c.param(param::SCOPE)
    {
        seen = true;
        if v.split_ascii_whitespace().any(|s| s == scope) {
            hits.push(crate::check_api::Hit::new(
                "",
                format!(
                    "the challenge of the HTTP {} answer asks for `{scope}` ({}); refresh tokens are no requirement of the resource",
                    cx.an.status(),
                    excerpt(c.describe().as_bytes(), 300)
                ),
            ));
        }
    }
    if let Some(d) = cx
        .an
        .ex
        .auth
        .as_ref()
        .and_then(|a| a.protected_resource_metadata.as_ref())
        && let Some(listed) = d
            .document
            .get("scopes_supported")
            .and_then(|v| v.as_array())
    {
        seen = true;
        if listed.iter().any(|s| s.as_str() == Some(scope)) {
            hits.push(crate::check_api::Hit::new(
                "",
                format!(
                    "the protected resource metadata ({}) lists `{scope}` in scopes_supported; refresh tokens are no requirement of the resource",
                    excerpt(d.url.as_bytes(), 200)
                ),
            ));
        }
    }
    if !seen {
        return Eval::NotApplicable;
    }
    Eval::from_hits(hits)
}

/// The challenges of the answer, when it has a readable `WWW-Authenticate`.
fn challenges(cx: &Cx<'_>) -> Option<Vec<Challenge>> {
    read_challenges(&cx.an.ex.response_headers)?.ok()
}

/// `HTTP 401 Unauthorized`.
fn status_text(status: u16) -> String {
    format!("HTTP {status} {}", reason_phrase(status))
}

/// What the answer's token challenge says, for a message: `Bearer scope="x", ...`, or that
/// there is none.
fn challenge_text(cx: &Cx<'_>) -> String {
    match read_challenges(&cx.an.ex.response_headers) {
        None => format!("no {} challenge", header::WWW_AUTHENTICATE),
        Some(Err(e)) => e.to_string(),
        Some(Ok(list)) => match token_challenge(&list) {
            Some(c) => format!("challenge: {}", excerpt(c.describe().as_bytes(), 300)),
            None if list.is_empty() => format!("an empty {}", header::WWW_AUTHENTICATE),
            None => format!(
                "no Bearer or DPoP challenge, only {}",
                list.iter()
                    .map(|c| c.scheme.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        },
    }
}

/// The request was refused for want of authorization: a 401, or a 403 whose challenge says the
/// token's scope is insufficient. The tool did not run.
fn auth_refused(cx: &Cx<'_>, p: &Params) -> Eval {
    let Some(status) = p.status else {
        return Eval::NotApplicable;
    };
    if cx.an.status() != status {
        return Eval::Pass;
    }
    let error =
        challenges(cx).and_then(|l| token_challenge(&l).and_then(|c| c.error().map(String::from)));
    if let Some(want) = &p.value
        && error.as_deref() != Some(want.as_str())
    {
        return Eval::Pass;
    }
    Eval::hit(
        "",
        format!(
            "{}: the tool did not run ({})",
            status_text(status),
            challenge_text(cx)
        ),
    )
}

/// RFC 9110 §15.5.2: "The server generating a 401 response MUST send a WWW-Authenticate
/// header field (Section 11.6.1) containing at least one challenge applicable to the target
/// resource."
fn challenge_given(cx: &Cx<'_>, p: &Params) -> Eval {
    let Some(status) = p.status else {
        return Eval::NotApplicable;
    };
    if cx.an.status() != status {
        return Eval::NotApplicable;
    }
    match read_challenges(&cx.an.ex.response_headers) {
        Some(Ok(list)) if !list.is_empty() => Eval::Pass,
        Some(Ok(_)) => Eval::hit(
            "",
            format!(
                "{} with an empty {}: no challenge tells the client how to authorize",
                status_text(status),
                header::WWW_AUTHENTICATE
            ),
        ),
        Some(Err(e)) => Eval::hit(
            "",
            format!("{}: {e}; no client can act on it", status_text(status)),
        ),
        None => Eval::hit(
            "",
            format!(
                "{} without a {} field: the client cannot tell how to authorize",
                status_text(status),
                header::WWW_AUTHENTICATE
            ),
        ),
    }
}

/// The token challenge lacks a parameter the spec asks for (`resource_metadata`, `scope`).
fn challenge_param(cx: &Cx<'_>, p: &Params) -> Eval {
    let (Some(status), Some(name)) = (p.status, p.value.as_deref()) else {
        return Eval::NotApplicable;
    };
    if cx.an.status() != status {
        return Eval::NotApplicable;
    }
    // The other discovery mechanism: the client found the metadata at a well-known URL.
    let well_known = cx
        .an
        .ex
        .auth
        .as_ref()
        .and_then(|a| a.protected_resource_metadata.as_ref())
        .is_some_and(|d| resource_of_metadata_url(&d.url).is_some());
    if name == param::RESOURCE_METADATA && well_known {
        return Eval::NotApplicable;
    }
    let Some(list) = challenges(cx) else {
        return Eval::NotApplicable;
    };
    let Some(c) = token_challenge(&list) else {
        return if list.is_empty() || !p.names.is_empty() {
            Eval::NotApplicable
        } else {
            Eval::hit(
                "",
                format!(
                    "{} carries no Bearer or DPoP challenge, so no `{name}` parameter ({})",
                    status_text(status),
                    challenge_text(cx)
                ),
            )
        };
    };
    if !p.names.is_empty() && !c.error().is_some_and(|e| p.names.iter().any(|n| n == e)) {
        return Eval::NotApplicable;
    }
    if c.param(name).is_some_and(|v| !v.trim().is_empty()) {
        return Eval::Pass;
    }
    let consequence = match name {
        param::RESOURCE_METADATA => {
            "the client must find the protected resource metadata at a well-known URL instead"
        }
        param::SCOPE => {
            "the client cannot tell which scopes the request needs and falls back to the resource metadata's scopes_supported"
        }
        _ => "the client has less to act on",
    };
    Eval::hit(
        "",
        format!(
            "the challenge of the {} names no `{name}`: {consequence} ({})",
            status_text(status),
            excerpt(c.describe().as_bytes(), 300)
        ),
    )
}

/// A challenge's error code paired with the wrong status (RFC 6750 §3.1: `invalid_token` with
/// 401, `insufficient_scope` with 403, as the authorization pages restate).
fn challenge_error_status(cx: &Cx<'_>, p: &Params) -> Eval {
    let (Some(status), Some(code)) = (p.status, p.value.as_deref()) else {
        return Eval::NotApplicable;
    };
    let Some(list) = challenges(cx) else {
        return Eval::NotApplicable;
    };
    let Some(c) = token_challenge(&list).filter(|c| c.error() == Some(code)) else {
        return Eval::NotApplicable;
    };
    let got = cx.an.status();
    if got == status {
        return Eval::Pass;
    }
    Eval::hit(
        "",
        format!(
            "the challenge says `{code}` with {}; it goes with {} ({})",
            status_text(got),
            status_text(status),
            excerpt(c.describe().as_bytes(), 300)
        ),
    )
}

/// "Access tokens MUST NOT be included in the URI query string": URLs end up in logs, browser
/// history and Referer headers.
fn query_token(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(url) = cx.an.ex.request.url.as_deref() else {
        return Eval::NotApplicable;
    };
    // A URL without `?` has no query to carry a token (the parse that finds the query is
    // skipped, not the check: it still passes).
    if url.contains('?') && token_in_query(url) {
        Eval::hit(
            "",
            format!(
                "the request URL carries an access token in its query (`{ACCESS_TOKEN_QUERY}`); send it in the {} header",
                header::AUTHORIZATION
            ),
        )
    } else {
        Eval::Pass
    }
}
