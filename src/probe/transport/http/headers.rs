//! The `Mcp-Param-*` headers a 2026-07-28 request carries for tool parameters annotated with
//! `x-mcp-header`, with values that cannot travel as plain header text Base64-encoded.

use base64::Engine as _;
use serde_json::Value;

use crate::vocab::protocol::header;

/// Whether a value can travel as a plain HTTP header value under 2026-07-28's rules:
/// visible ASCII and spaces/tabs only, no leading or trailing whitespace, and not itself
/// shaped like the Base64 sentinel.
fn header_safe(value: &str) -> bool {
    let visible = value
        .bytes()
        .all(|b| b == b' ' || b == b'\t' || (0x21..=0x7e).contains(&b));
    let padded = value.starts_with([' ', '\t']) || value.ends_with([' ', '\t']);
    let sentinel = value.starts_with("=?base64?") && value.ends_with("?=");
    !value.is_empty() && visible && !padded && !sentinel
}

/// A header value: the text itself when header-safe, else `=?base64?…?=`.
pub(super) fn header_value(value: &str) -> String {
    if header_safe(value) {
        value.to_string()
    } else {
        format!(
            "=?base64?{}?=",
            base64::engine::general_purpose::STANDARD.encode(value.as_bytes())
        )
    }
}

/// `Mcp-Param-{Name}` headers for the properties of `input_schema` annotated with
/// `x-mcp-header`, read from `arguments` at the property's exact path; absent and `null`
/// values get no header.
pub(super) fn param_headers(
    input_schema: Option<&Value>,
    arguments: Option<&Value>,
) -> Vec<(String, String)> {
    let mut out = Vec::new();
    if let (Some(schema), Some(args)) = (input_schema, arguments) {
        collect_param_headers(schema, args, &mut out);
    }
    out
}

fn collect_param_headers(schema: &Value, value: &Value, out: &mut Vec<(String, String)>) {
    let Some(props) = schema.get("properties").and_then(Value::as_object) else {
        return;
    };
    for (key, prop) in props {
        let Some(v) = value.get(key) else { continue };
        if let Some(name) = prop.get("x-mcp-header").and_then(Value::as_str) {
            let text = match v {
                Value::String(s) => Some(s.clone()),
                Value::Bool(b) => Some(b.to_string()),
                Value::Number(n) => Some(n.to_string()),
                _ => None,
            };
            if let Some(text) = text {
                out.push((
                    format!("{}{name}", header::PARAM_PREFIX),
                    header_value(&text),
                ));
            }
        }
        if v.is_object() {
            collect_param_headers(prop, v, out);
        }
    }
}

/// Why a tool definition's `x-mcp-header` annotations are invalid, when they are (the rule
/// `tools.list.x-mcp-header` judges a listed tool with the same reading).
pub(super) use crate::checks::param_headers::x_mcp_header_problem;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn invalid_x_mcp_header_annotations_are_named() {
        let bad = |schema: Value| x_mcp_header_problem(Some(&schema));
        let prop = |p: Value| json!({"type": "object", "properties": {"a": p}});
        assert_eq!(
            bad(prop(json!({"type": "string", "x-mcp-header": "Region"}))),
            None
        );
        assert_eq!(
            bad(
                json!({"type": "object", "properties": {"o": {"type": "object", "properties": {
                "n": {"type": "integer", "x-mcp-header": "N"}}}}})
            ),
            None
        );
        assert!(bad(prop(json!({"type": "string", "x-mcp-header": ""}))).is_some());
        assert!(bad(prop(json!({"type": "string", "x-mcp-header": "a b"}))).is_some());
        assert!(bad(prop(json!({"type": "string", "x-mcp-header": "a:b"}))).is_some());
        assert!(bad(prop(json!({"type": "string", "x-mcp-header": "é"}))).is_some());
        assert!(bad(prop(json!({"type": "string", "x-mcp-header": "a\nb"}))).is_some());
        assert!(bad(prop(json!({"type": "number", "x-mcp-header": "N"}))).is_some());
        assert!(bad(prop(json!({"type": "object", "x-mcp-header": "N"}))).is_some());
        assert!(bad(prop(json!({"x-mcp-header": "N"}))).is_some());
        assert!(bad(prop(json!({"type": "string", "x-mcp-header": 3}))).is_some());
        assert!(
            bad(json!({"type": "object", "properties": {
                "a": {"type": "string", "x-mcp-header": "Dup"},
                "b": {"type": "string", "x-mcp-header": "dup"}}}))
            .is_some()
        );
        assert!(
            bad(
                json!({"type": "object", "properties": {"l": {"type": "array",
                "items": {"type": "string", "x-mcp-header": "I"}}}})
            )
            .is_some()
        );
        assert!(
            bad(json!({"type": "object", "anyOf": [{"properties": {
                "a": {"type": "string", "x-mcp-header": "A"}}}]}))
            .is_some()
        );
        // Data is not schema.
        assert_eq!(
            bad(json!({"type": "object", "default": {"x-mcp-header": ""}})),
            None
        );
    }

    #[test]
    fn sentinel_encoding_follows_the_spec_examples() {
        assert_eq!(header_value("us-west1"), "us-west1");
        assert_eq!(
            header_value("Hello, 世界"),
            "=?base64?SGVsbG8sIOS4lueVjA==?="
        );
        assert_eq!(header_value(" padded "), "=?base64?IHBhZGRlZCA=?=");
        assert_eq!(header_value("line1\nline2"), "=?base64?bGluZTEKbGluZTI=?=");
        assert_eq!(
            header_value("=?base64?literal?="),
            "=?base64?PT9iYXNlNjQ/bGl0ZXJhbD89?="
        );
        assert_eq!(header_value("get weather"), "get weather");
    }

    #[test]
    fn param_headers_follow_annotated_paths() {
        let schema = json!({"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "opts": {"type": "object", "properties": {"n": {"type": "integer", "x-mcp-header": "N"}}},
            "flag": {"type": "boolean", "x-mcp-header": "Flag"},
            "q": {"type": "string"}
        }});
        let args = json!({"region": "eu", "opts": {"n": 42}, "flag": null, "q": "x"});
        let mut h = param_headers(Some(&schema), Some(&args));
        h.sort();
        assert_eq!(
            h,
            vec![
                ("Mcp-Param-N".to_string(), "42".to_string()),
                ("Mcp-Param-Region".to_string(), "eu".to_string())
            ]
        );
    }
}
