//! The 2026-07-28 dialogue: stateless requests carrying their revision and client
//! capabilities in `params._meta`, validated in a fixed order (required `_meta` fields, the
//! standard headers against the body, protocol version, method: `initialize` is unknown here),
//! then `server/discover`, `tools/list` and `tools/call`.

use std::sync::Arc;

use base64::Engine as _;
use serde_json::{Map, Value, json};

use super::call::CallCtx;
use super::conformance;
use super::exchange::{Exchange, Kind, client_label};
use super::incoming::Incoming;
use super::reply::{
    Reply, decorate_modern, deliver, error_msg, json_reply, result_msg, server_capabilities,
    server_instructions,
};
use super::scenario::{Lenient, Scenario};
use super::shared::Shared;
use super::tools_call::tools_call;
use crate::vocab::Protocol;
use crate::vocab::protocol::{code, header, meta};
use crate::wire::param_headers::{decode_param, mirrored};

/// `supportedVersions`, newest first.
fn supported_versions() -> Value {
    json!([
        Protocol::V2026_07_28.as_str(),
        Protocol::V2025_11_25.as_str()
    ])
}

/// Whether the `lenient` scenario in force gets error path `l` wrong.
fn lenient(shared: &Shared, l: Lenient) -> bool {
    shared.config.scenario == Scenario::Lenient(l)
}

/// Answers a message served as 2026-07-28.
pub(crate) fn handle(
    shared: &Arc<Shared>,
    req: &Incoming<'_>,
    msg: &Map<String, Value>,
    kind: Kind,
    ex: &mut Exchange,
) -> Reply {
    match kind {
        Kind::Response => {
            let m = error_msg(
                None,
                code::INVALID_REQUEST,
                "Invalid Request: 2026-07-28 clients MUST NOT send JSON-RPC responses",
                None,
            );
            return json_reply(400, m, Vec::new());
        }
        Kind::Notification => {
            let m = error_msg(
                None,
                code::INVALID_REQUEST,
                "Invalid Request: 2026-07-28 defines no client notifications over Streamable HTTP",
                None,
            );
            return json_reply(400, m, Vec::new());
        }
        Kind::Request => {}
    }
    let id = &msg["id"];
    let method = msg["method"].as_str().unwrap_or("");
    let params = match msg.get("params") {
        None => None,
        Some(Value::Object(p)) => Some(p),
        Some(_) => {
            let m = error_msg(
                Some(id),
                code::INVALID_PARAMS,
                "Invalid params: params must be an object",
                None,
            );
            return json_reply(400, m, Vec::new());
        }
    };
    let req_meta = params
        .and_then(|p| p.get("_meta"))
        .and_then(Value::as_object);
    let version = req_meta
        .and_then(|m| m.get(meta::PROTOCOL_VERSION))
        .and_then(Value::as_str);
    let no_caps = Map::new();
    let caps = req_meta
        .and_then(|m| m.get(meta::CLIENT_CAPABILITIES))
        .and_then(Value::as_object)
        // lenient:missing_meta serves a request without clientCapabilities.
        .or_else(|| {
            (version.is_some() && lenient(shared, Lenient::MissingMeta)).then_some(&no_caps)
        });
    let (Some(version), Some(caps)) = (version, caps) else {
        let missing: Vec<&str> = [
            (version.is_none(), meta::PROTOCOL_VERSION),
            (caps.is_none(), meta::CLIENT_CAPABILITIES),
        ]
        .iter()
        .filter(|(m, _)| *m)
        .map(|(_, k)| *k)
        .collect();
        let m = error_msg(
            Some(id),
            code::INVALID_PARAMS,
            &format!(
                "Invalid params: params._meta is missing required field(s) {}",
                missing.join(", ")
            ),
            None,
        );
        return json_reply(400, m, Vec::new());
    };
    ex.protocol_version = Some(version.to_string());
    ex.client = client_label(req_meta.and_then(|m| m.get(meta::CLIENT_INFO)));

    // Headers against the body first: a header version that contradicts `_meta` is a header
    // mismatch, whichever of the two names a version this server supports.
    let checked = if req.fields.is_none() {
        // A binding without a header layer (stdio) carries the metadata in the body alone.
        Ok(())
    } else {
        check_headers(shared, req, method, version, params).and_then(|()| {
            // Parameters the called tool mirrors into `Mcp-Param-{Name}` headers.
            match (
                method,
                params.and_then(|p| p.get("name")).and_then(Value::as_str),
            ) {
                ("tools/call", Some(name)) => match conformance::input_schema(shared, name) {
                    Some(_) if lenient(shared, Lenient::ParamHeader) => Ok(()),
                    Some(schema) => check_param_headers(req, &schema, params),
                    None => Ok(()),
                },
                _ => Ok(()),
            }
        })
    };
    if let Err(why) = checked {
        // lenient:version_header answers a version header contradicting _meta as an
        // unsupported version.
        if lenient(shared, Lenient::VersionHeader) && why.starts_with(header::PROTOCOL_VERSION) {
            let m = error_msg(
                Some(id),
                code::UNSUPPORTED_PROTOCOL_VERSION,
                "Unsupported protocol version",
                Some(json!({"supported": supported_versions(), "requested": version})),
            );
            return json_reply(400, m, Vec::new());
        }
        let m = error_msg(
            Some(id),
            code::HEADER_MISMATCH,
            &format!("Header mismatch: {why}"),
            None,
        );
        return json_reply(400, m, Vec::new());
    }
    if version != Protocol::V2026_07_28.as_str() && !lenient(shared, Lenient::Version) {
        let m = error_msg(
            Some(id),
            code::UNSUPPORTED_PROTOCOL_VERSION,
            "Unsupported protocol version",
            Some(json!({"supported": supported_versions(), "requested": version})),
        );
        return json_reply(400, m, Vec::new());
    }
    match method {
        "initialize" if lenient(shared, Lenient::Initialize) => {
            let m = error_msg(
                Some(id),
                code::METHOD_NOT_FOUND,
                "Method not found: initialize",
                None,
            );
            json_reply(200, m, Vec::new())
        }
        "server/discover" => {
            let result = Map::from_iter([
                ("supportedVersions".to_string(), supported_versions()),
                (
                    "capabilities".into(),
                    server_capabilities(shared, Protocol::V2026_07_28),
                ),
                ("instructions".into(), server_instructions(shared)),
                ("ttlMs".into(), json!(60_000)),
                ("cacheScope".into(), json!("public")),
            ]);
            deliver(
                shared,
                Protocol::V2026_07_28,
                200,
                result_msg(id, decorate_modern(result, "complete")),
                Vec::new(),
            )
        }
        "tools/list" => {
            let result = Map::from_iter([
                (
                    "tools".to_string(),
                    conformance::tool_list(shared, Protocol::V2026_07_28),
                ),
                ("ttlMs".into(), json!(60_000)),
                ("cacheScope".into(), json!("public")),
            ]);
            deliver(
                shared,
                Protocol::V2026_07_28,
                200,
                result_msg(id, decorate_modern(result, "complete")),
                Vec::new(),
            )
        }
        "tools/call" => {
            let params = params.expect("_meta was present, so params is");
            let ctx = CallCtx {
                rev: Protocol::V2026_07_28,
                id: id.clone(),
                caps: Value::Object(caps.clone()),
                session: None,
            };
            tools_call(shared, &ctx, params)
        }
        _ => {
            let caps = Value::Object(caps.clone());
            let fx = conformance::MethodCtx {
                rev: Protocol::V2026_07_28,
                id,
                params,
                caps: &caps,
                session: None,
            };
            if let Some(reply) = conformance::handle_method(shared, &fx, method) {
                return reply;
            }
            let m = error_msg(
                Some(id),
                code::METHOD_NOT_FOUND,
                &format!("Method not found: {method}"),
                None,
            );
            json_reply(404, m, Vec::new())
        }
    }
}

/// Validates the standard request headers against the body (2026-07-28).
fn check_headers(
    shared: &Shared,
    req: &Incoming<'_>,
    method: &str,
    version: &str,
    params: Option<&Map<String, Value>>,
) -> Result<(), String> {
    let get = |name: &str| -> Result<Option<String>, String> {
        match req.header_bytes(name) {
            None => Ok(None),
            Some(raw) => {
                if raw
                    .iter()
                    .any(|&b| !(b == b'\t' || (0x20..=0x7e).contains(&b)))
                {
                    // The message names the header in lower case.
                    return Err(format!(
                        "{} header value contains invalid characters",
                        name.to_ascii_lowercase()
                    ));
                }
                Ok(Some(String::from_utf8_lossy(raw).trim().to_string()))
            }
        }
    };
    match get(header::PROTOCOL_VERSION)? {
        None => return Err(missing(header::PROTOCOL_VERSION)),
        Some(v) if v != version => {
            return Err(mismatch(header::PROTOCOL_VERSION, &v, version));
        }
        Some(_) => {}
    }
    match get(header::METHOD)? {
        None => return Err(missing(header::METHOD)),
        Some(v) if v != method && !lenient(shared, Lenient::MethodHeader) => {
            return Err(mismatch(header::METHOD, &v, method));
        }
        Some(_) => {}
    }
    let name_field = match method {
        "tools/call" | "prompts/get" => Some("name"),
        "resources/read" => Some("uri"),
        _ => None,
    };
    if let Some(field) = name_field {
        let body = params.and_then(|p| p.get(field)).and_then(Value::as_str);
        match (get(header::NAME)?, body) {
            (None, _) => return Err(missing(header::NAME)),
            (Some(h), body) => {
                let decoded = decode_sentinel(&h).ok_or_else(|| {
                    format!(
                        "{} header value '{h}' is not valid Base64 sentinel encoding",
                        header::NAME
                    )
                })?;
                if Some(decoded.as_str()) != body && !lenient(shared, Lenient::NameHeader) {
                    return Err(mismatch(header::NAME, &decoded, body.unwrap_or("(absent)")));
                }
            }
        }
    }
    Ok(())
}

/// Validates the `Mcp-Param-{Name}` headers of a `tools/call` against its arguments, for every
/// property the tool's `inputSchema` annotates with `x-mcp-header` (reached through
/// `properties` keys only). The streamable HTTP transport page: "Servers MUST reject requests
/// with a `400 Bad Request` HTTP status and JSON-RPC error code `-32020` (`HeaderMismatch`) if
/// any validation fails", including when the "Client omits header but value is in body".
fn check_param_headers(
    req: &Incoming<'_>,
    schema: &Value,
    params: Option<&Map<String, Value>>,
) -> Result<(), String> {
    let args = params.and_then(|p| p.get("arguments"));
    let mut annotated = Vec::new();
    mirrored(schema, args, &mut annotated);
    for (suffix, body) in annotated {
        let name = format!("{}{suffix}", header::PARAM_PREFIX);
        let body = match body {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(Value::Bool(b)) => Some(b.to_string()),
            Some(Value::Number(n)) => Some(n.to_string()),
            Some(_) => None,
        };
        let raw = req.header_bytes(&name);
        match (raw, body) {
            (None, None) => {}
            (None, Some(_)) => return Err(missing(&name)),
            (Some(raw), body) => {
                if raw
                    .iter()
                    .any(|&b| !(b == b'\t' || (0x20..=0x7e).contains(&b)))
                {
                    return Err(format!("{name} header value contains invalid characters"));
                }
                let value = String::from_utf8_lossy(raw).trim().to_string();
                let decoded = decode_param(&value).ok_or_else(|| {
                    format!("{name} header value '{value}' is not valid Base64 sentinel encoding")
                })?;
                if Some(decoded.as_str()) != body.as_deref() {
                    return Err(mismatch(
                        &name,
                        &decoded,
                        body.as_deref().unwrap_or("(absent)"),
                    ));
                }
            }
        }
    }
    Ok(())
}

fn missing(name: &str) -> String {
    format!("required header {name} is missing")
}

fn mismatch(name: &str, header_value: &str, body_value: &str) -> String {
    format!("{name} header value '{header_value}' does not match body value '{body_value}'")
}

/// Decodes the `=?base64?…?=` sentinel form; plain values pass through.
fn decode_sentinel(value: &str) -> Option<String> {
    match value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    {
        None => Some(value.to_string()),
        Some(inner) => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(inner)
                .or_else(|_| base64::engine::general_purpose::STANDARD_NO_PAD.decode(inner))
                .ok()?;
            String::from_utf8(bytes).ok()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentinel_decoding() {
        assert_eq!(decode_sentinel("echo").as_deref(), Some("echo"));
        assert_eq!(
            decode_sentinel("=?base64?SGVsbG8sIOS4lueVjA==?=").as_deref(),
            Some("Hello, 世界")
        );
        assert_eq!(decode_sentinel("=?base64?!!!?="), None);
        assert_eq!(
            decode_param("=?base64?SGVsbG8=?=").as_deref(),
            Some("Hello")
        );
        assert_eq!(
            decode_param("=?base64?SGVsbG8?="),
            None,
            "padding is required"
        );
        assert_eq!(decode_param("=?base64?SGVs!!!bG8=?="), None);
        assert_eq!(
            decode_param("=?base64?SGVsbG8=").as_deref(),
            Some("=?base64?SGVsbG8=")
        );
    }
}
