//! Custom parameter headers (`Mcp-Param-{Name}`, 2026-07-28): which arguments a tool mirrors
//! into headers (its `x-mcp-header` annotations) and how a header value is read back (literal,
//! or the `=?base64?…?=` sentinel). The server's check and the fault server both read them so.

use base64::Engine as _;
use serde_json::Value;

/// The `x-mcp-header` names in `schema` (through `properties` only) with the argument value at
/// each annotated property's path.
pub fn mirrored<'a>(
    schema: &Value,
    args: Option<&'a Value>,
    out: &mut Vec<(String, Option<&'a Value>)>,
) {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (key, sub) in props {
        let value = args.and_then(|a| a.get(key));
        if let Some(h) = sub.get("x-mcp-header").and_then(Value::as_str) {
            out.push((h.to_string(), value));
        }
        mirrored(sub, value, out);
    }
}

/// Decodes an `Mcp-Param-{Name}` value: the `=?base64?…?=` sentinel form must hold canonical,
/// padded Base64 (RFC 4648) of UTF-8 text; any other value is taken literally.
pub fn decode_param(value: &str) -> Option<String> {
    match value
        .strip_prefix("=?base64?")
        .and_then(|v| v.strip_suffix("?="))
    {
        None => Some(value.to_string()),
        Some(inner) => {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(inner)
                .ok()?;
            String::from_utf8(bytes).ok()
        }
    }
}
