//! Checks on the recorded request. They explain server answers (e.g. a -32020 caused by a
//! missing header) rather than blame the server.

use base64::Engine as _;
use serde_json::Value;

use crate::check_api::{Cx, Eval, Hit, Params};
use crate::vocab::protocol::header;

crate::check_api::declare_checks! {
    "request_version_header" => request_version_header, [], [], HTTP | REQUEST,
        "the recorded request's MCP-Protocol-Version header is missing or differs from `_meta`";
    "request_standard_headers" => request_standard_headers, [], [], HTTP | REQUEST,
        "the recorded request lacks Mcp-Method/Mcp-Name or they differ from the body";
    "log_level_rejected" => log_level_rejected, ["names"], ["names"], REQUEST | RESULT,
        "a result (not a JSON-RPC error) answered a request whose `_meta` `io.modelcontextprotocol/logLevel` is none of `names`";
}

fn modern_request(cx: &Cx<'_>) -> bool {
    cx.an.req.body.is_some() && cx.an.req.method.is_some()
}

fn request_version_header(cx: &Cx<'_>, _: &Params) -> Eval {
    // Header requirements for notification POSTs are not defined by 2026-07-28.
    if !modern_request(cx) || cx.an.req.is_notification {
        return Eval::NotApplicable;
    }
    match version_header_problem(cx) {
        Some(problem) => Eval::hit("", problem),
        None => Eval::Pass,
    }
}

/// What is wrong with the request's `MCP-Protocol-Version` header: missing, or different from
/// its `_meta` protocolVersion (`None`: nothing).
pub(crate) fn version_header_problem(cx: &Cx<'_>) -> Option<String> {
    let req = &cx.an.req;
    match (req.header_version, req.meta_version) {
        (None, _) => Some(format!(
            "the request has no {} header",
            header::PROTOCOL_VERSION
        )),
        (Some(h), Some(m)) if h != m => Some(format!(
            "the request's {} header ({h}) differs from its _meta protocolVersion ({m})",
            header::PROTOCOL_VERSION
        )),
        _ => None,
    }
}

/// Decodes the Base64 sentinel form `=?base64?...?=` of a header value.
pub(crate) fn decode_sentinel(v: &str) -> Option<String> {
    let inner = v.strip_prefix("=?base64?")?.strip_suffix("?=")?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(inner)
        .ok()?;
    String::from_utf8(bytes).ok()
}

fn request_standard_headers(cx: &Cx<'_>, _: &Params) -> Eval {
    if !modern_request(cx) || cx.an.req.is_notification {
        return Eval::NotApplicable;
    }
    Eval::from_hits(
        cx.standard_header_problems(standard_header_problems)
            .iter()
            .map(|p| Hit::new("", p.clone()))
            .collect(),
    )
}

/// A request that asked for log messages at a level the protocol does not have, served with a
/// result: the server should have rejected it (with a JSON-RPC error, e.g. -32602).
fn log_level_rejected(cx: &Cx<'_>, p: &Params) -> Eval {
    let req = &cx.an.req;
    if req.is_notification || cx.members().result.is_none() {
        return Eval::NotApplicable;
    }
    let Some(level) = req
        .meta
        .and_then(|m| m.get(crate::vocab::protocol::meta::LOG_LEVEL))
    else {
        return Eval::NotApplicable;
    };
    if level
        .as_str()
        .is_some_and(|l| p.names.iter().any(|n| n == l))
    {
        return Eval::Pass;
    }
    Eval::hit(
        "",
        format!(
            "the request's _meta {} is {}, which is not a log level ({}), yet the server answered with a result; it should reject the request with a JSON-RPC error (-32602 Invalid params)",
            crate::vocab::protocol::meta::LOG_LEVEL,
            crate::wire::excerpt(level.to_string().as_bytes(), 40),
            p.names.join(", ")
        ),
    )
}

/// What is wrong with the request's `Mcp-Method` and `Mcp-Name` headers: missing, or
/// different from the body (a Base64 sentinel value is decoded first). Checks read it through
/// [`Cx::standard_header_problems`], which finds it once per judgement.
pub(crate) fn standard_header_problems(cx: &Cx<'_>) -> Vec<String> {
    let headers = &cx.an.ex.request.headers;
    let req = &cx.an.req;
    let mut problems = Vec::new();
    let method = req.method.unwrap_or_default();
    match headers.get(header::METHOD) {
        None => problems.push(format!("the request has no {} header", header::METHOD)),
        Some(h) if h.trim() != method => problems.push(format!(
            "the request's {} header ({h}) differs from its method ({method})",
            header::METHOD
        )),
        _ => {}
    }
    let name = req
        .params
        .and_then(|p| p.get("name").or_else(|| p.get("uri")))
        .and_then(Value::as_str);
    // A body without the name has nothing for Mcp-Name to mirror: it is malformed, which the
    // `_meta` and schema rules judge, not the headers.
    if matches!(method, "tools/call" | "resources/read" | "prompts/get") {
        match (headers.get(header::NAME), name) {
            (None, None) => {}
            (None, Some(_)) => problems.push(format!(
                "the {method} request has no {} header",
                header::NAME
            )),
            (Some(h), Some(n)) => {
                let h = h.trim();
                let same = match decode_sentinel(h) {
                    Some(decoded) => decoded == n,
                    None => h == n,
                };
                if !same {
                    problems.push(format!(
                        "the request's {} header ({h}) differs from params.name ({n})",
                        header::NAME
                    ));
                }
            }
            _ => {}
        }
    }
    problems
}

#[cfg(test)]
mod tests {
    use super::decode_sentinel;

    #[test]
    fn sentinel() {
        assert_eq!(
            decode_sentinel("=?base64?SGVsbG8sIOS4lueVjA==?="),
            Some("Hello, 世界".into())
        );
        assert_eq!(decode_sentinel("plain"), None);
    }
}
