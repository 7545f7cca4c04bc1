//! An exchange written back as an exchange file (`probe --record`, `proxy --record`): the
//! bytes as received, secrets redacted, the revision it was judged under in `protocol`, and
//! what the recorder knew beside the bytes (tool definition, `initialize`, session, retry).

use base64::Engine as _;

use crate::views::redact;
use crate::vocab::Protocol;
use crate::wire::exchange::{
    Exchange, ExchangeFile, ProtocolField, RecordedRequest, RecordedResponse, RecordedRetry,
    TransportName,
};

/// A label made safe for a file name: ASCII letters, digits, `-` and `_`, at most 60.
pub(crate) fn file_safe(label: &str) -> String {
    label
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .take(60)
        .collect()
}

/// The exchange file for an exchange judged under `protocol`: `protocol` set, no `expect`,
/// secret header values, body strings and request values redacted.
pub(crate) fn exchange_file(
    ex: &Exchange,
    protocol: Protocol,
    description: String,
) -> ExchangeFile {
    let (body, body_base64) = match std::str::from_utf8(&ex.body) {
        Ok(_) if ex.body.is_empty() => (None, None),
        // Redacted text stays JSON (or SSE) where it was: only string contents are replaced.
        Ok(t) => (Some(redact::text(t).into_owned()), None),
        Err(_) => (
            None,
            Some(base64::engine::general_purpose::STANDARD.encode(&ex.body)),
        ),
    };
    // Header values are redacted on a copy (a probe's exchange has been already: the
    // redaction of a redacted value is itself).
    let mut heads = Exchange::new(None, ex.status, ex.response_headers.clone(), Vec::new());
    heads.request.headers = ex.request.headers.clone();
    heads.session = ex.session.clone();
    redact::exchange_headers(&mut heads);
    ExchangeFile {
        schema: None,
        name: ex.name.clone(),
        description: Some(description),
        protocol: Some(ProtocolField::One(protocol)),
        request: RecordedRequest {
            body: ex.request.body.as_ref().map(redact::value),
            headers: heads.request.headers,
            url: ex
                .request
                .url
                .as_deref()
                .map(|u| redact::url(u).into_owned()),
            method: ex.request.method.clone(),
        },
        transport: ex.stdio.is_some().then_some(TransportName::Stdio),
        response: ex.stdio.is_none().then_some(RecordedResponse {
            status: ex.status,
            headers: heads.response_headers,
            body,
            body_base64,
            body_json: None,
            end: ex.end,
        }),
        stdio: ex.stdio.as_ref().map(|s| {
            let mut r = s.to_recorded(ex.request.body.as_ref());
            // Redacted as a body is: only string contents are replaced.
            for text in [&mut r.stdin, &mut r.stdout, &mut r.stderr]
                .into_iter()
                .flatten()
            {
                *text = redact::text(text).into_owned();
            }
            r
        }),
        tool: ex.tool.as_ref().map(redact::value),
        initialize: ex.initialize.clone(),
        session: heads.session,
        retry: ex.retry.as_ref().map(|r| RecordedRetry {
            input_requests: r.input_requests.as_ref().map(|m| {
                m.iter()
                    .map(|(k, v)| (k.clone(), redact::value(v)))
                    .collect()
            }),
            ..r.clone()
        }),
        auth: ex.auth.clone(),
        server: ex.server.clone(),
        expect: Default::default(),
    }
}
