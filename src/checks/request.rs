//! Checks on the recorded request. They explain server answers (e.g. a -32020 caused by a
//! missing header) rather than blame the server.

use base64::Engine as _;
use serde_json::Value;

use crate::check_api::{Cx, Eval, Hit, Params};

crate::check_api::declare_checks! {
    "request_version_header" => request_version_header, [], [], REQUEST,
        "the recorded request's MCP-Protocol-Version header is missing or differs from `_meta`";
    "request_standard_headers" => request_standard_headers, [], [], REQUEST,
        "the recorded request lacks Mcp-Method/Mcp-Name or they differ from the body";
}

fn modern_request(cx: &Cx<'_>) -> bool {
    cx.an.req.body.is_some() && cx.an.req.method.is_some()
}

fn request_version_header(cx: &Cx<'_>, _: &Params) -> Eval {
    // Header requirements for notification POSTs are not defined by 2026-07-28.
    if !modern_request(cx) || cx.an.req.is_notification {
        return Eval::NotApplicable;
    }
    let req = &cx.an.req;
    match (req.header_version, req.meta_version) {
        (None, _) => Eval::hit("", "the request has no MCP-Protocol-Version header"),
        (Some(h), Some(m)) if h != m => Eval::hit(
            "",
            format!(
                "the request's MCP-Protocol-Version header ({h}) differs from its _meta protocolVersion ({m})"
            ),
        ),
        _ => Eval::Pass,
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
    let headers = &cx.an.ex.request.headers;
    let req = &cx.an.req;
    let mut hits = Vec::new();
    let method = req.method.unwrap_or_default();
    match headers.get("Mcp-Method") {
        None => hits.push(Hit::new("", "the request has no Mcp-Method header")),
        Some(h) if h.trim() != method => hits.push(Hit::new(
            "",
            format!("the request's Mcp-Method header ({h}) differs from its method ({method})"),
        )),
        _ => {}
    }
    let name = req
        .params
        .and_then(|p| p.get("name").or_else(|| p.get("uri")))
        .and_then(Value::as_str);
    if matches!(method, "tools/call" | "resources/read" | "prompts/get") {
        match (headers.get("Mcp-Name"), name) {
            (None, _) => hits.push(Hit::new(
                "",
                format!("the {method} request has no Mcp-Name header"),
            )),
            (Some(h), Some(n)) => {
                let h = h.trim();
                let same = match decode_sentinel(h) {
                    Some(decoded) => decoded == n,
                    None => h == n,
                };
                if !same {
                    hits.push(Hit::new(
                        "",
                        format!(
                            "the request's Mcp-Name header ({h}) differs from params.name ({n})"
                        ),
                    ));
                }
            }
            _ => {}
        }
    }
    Eval::from_hits(hits)
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
