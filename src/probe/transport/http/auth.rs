//! Authorization over HTTP: the token the probe's OAuth client holds goes on every request, and
//! a 401 (or an `insufficient_scope` 403) is handed to the client, which authorizes, refreshes
//! or steps up; the request is then sent again. The client's own requests (discovery,
//! registration, authorization, token) appear among the run's steps.

use std::sync::{Arc, Mutex, MutexGuard};

use super::client::Received;
use crate::oauth::{FlowStep, OAuthClient, REDACTED, Reaction};
use crate::probe::transport::HttpStep;
use crate::vocab::auth::header;
use crate::vocab::http::reason_phrase;
use crate::wire::auth::{RecordedAuth, read_challenges, token_challenge};

/// How many times one message is sent again after authorizing: the first authorization, a
/// refresh that did not help, and the step-ups the client allows.
pub(super) const MAX_RETRIES: usize = 4;

/// The OAuth client of a probe, shared by the runs of every revision (one token per server).
pub(crate) type SharedAuth = Arc<Mutex<OAuthClient>>;

fn lock(auth: &SharedAuth) -> MutexGuard<'_, OAuthClient> {
    auth.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// The `Authorization` field to send, once a token is held.
pub(super) fn field(auth: Option<&SharedAuth>) -> Option<(String, String)> {
    let value = lock(auth?).authorization()?;
    Some((header::AUTHORIZATION.to_string(), value))
}

/// The field as recorded: the scheme kept, the token never written anywhere.
pub(super) fn recorded(name: &str, value: &str, auth: Option<&SharedAuth>) -> String {
    let ours = auth.is_some_and(|a| lock(a).authorization().as_deref() == Some(value));
    if ours && name.eq_ignore_ascii_case(header::AUTHORIZATION) {
        let scheme = value.split(' ').next().unwrap_or_default();
        format!("{scheme} {REDACTED}")
    } else {
        value.to_string()
    }
}

/// What the client made of a refusal.
pub(super) enum Outcome {
    /// Not a refusal the client answers (or no client): the answer stands.
    NotMine,
    /// Authorized (or refreshed, or stepped up): send the message again.
    Retry(Vec<HttpStep>),
    /// The client tried and gave up, or failed: the refusal stands, and this says why.
    Stop(Vec<HttpStep>, String),
}

/// One of the client's requests as a step of the run.
fn step(s: &FlowStep) -> HttpStep {
    HttpStep {
        post: None,
        http_method: s.method.to_string(),
        rpc_method: None,
        tool: None,
        status: s.status,
        end: None,
        stopped: None,
        redirect: None,
        lines: None,
        note: Some(format!("oauth {} {}: {}", s.kind.label(), s.url, s.outcome)),
    }
}

/// Hands a 401 or 403 to the OAuth client.
pub(super) fn react(auth: Option<&SharedAuth>, r: &Received) -> Outcome {
    let Some(auth) = auth else {
        return Outcome::NotMine;
    };
    if !matches!(r.status, 401 | 403) {
        return Outcome::NotMine;
    }
    let challenge = read_challenges(&r.headers)
        .and_then(Result::ok)
        .and_then(|l| token_challenge(&l).cloned());
    let mut client = lock(auth);
    let before = client.steps().len();
    let reaction = client.react(r.status, challenge.as_ref());
    let steps: Vec<HttpStep> = client.steps()[before..].iter().map(step).collect();
    match reaction {
        Ok(Reaction::Retry) => Outcome::Retry(steps),
        Ok(Reaction::GiveUp(why)) => Outcome::Stop(steps, why),
        Err(e) => Outcome::Stop(steps, e.to_string()),
    }
}

/// Why a 401 or 403 answered a setup request, for people: the status, what the challenge asks
/// for, and the OAuth error the body gives.
pub(super) fn describe_refusal(r: &Received) -> String {
    let what = if r.status == 401 {
        "the server requires authorization"
    } else {
        "the server refused the request"
    };
    let challenge = match read_challenges(&r.headers) {
        None => format!("no {} challenge", header::WWW_AUTHENTICATE),
        Some(Err(e)) => e.to_string(),
        Some(Ok(list)) => match token_challenge(&list) {
            Some(c) => format!("challenge: {}", c.describe()),
            None => format!("no Bearer challenge in {}", header::WWW_AUTHENTICATE),
        },
    };
    format!(
        "HTTP {} {}: {what} ({challenge})",
        r.status,
        reason_phrase(r.status)
    )
}

/// What the client knew of the server's authorization when it sent a request with the header
/// fields `sent`: whether it carried the client's token, the documents the client read.
pub(super) fn record(auth: Option<&SharedAuth>, sent: &[(String, String)]) -> Option<RecordedAuth> {
    let client = lock(auth?);
    let token = client.authorization();
    let (protected_resource_metadata, authorization_server_metadata) = client.documents();
    let authorized = token.is_some_and(|t| {
        sent.iter()
            .any(|(n, v)| n.eq_ignore_ascii_case(header::AUTHORIZATION) && *v == t)
    });
    if !authorized && protected_resource_metadata.is_none() {
        return None;
    }
    Some(RecordedAuth {
        authorized,
        protected_resource_metadata,
        authorization_server_metadata,
    })
}
