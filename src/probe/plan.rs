//! What the probe sends: header values (Base64 sentinel, `x-mcp-header` mirroring), the
//! calls it makes on its own (an unknown tool, arguments that violate a listed tool's
//! `inputSchema`), client capabilities derived from `--answers`, and secret redaction.

use base64::Engine as _;
use serde_json::{Map, Value, json};

use crate::diag::REDACTED;

/// Name used for the unknown-tool call (suffixed if the server happens to list it).
pub const UNKNOWN_TOOL: &str = "mcp_verdict_probe_no_such_tool";

/// Why the probe makes a call.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case", tag = "kind")]
pub enum CallKind {
    /// Named on the command line (`--tool`).
    Named,
    /// A tool name the server did not list.
    UnknownTool,
    /// Arguments that break the tool's `inputSchema`.
    InvalidArguments {
        /// What is wrong with them.
        violation: String,
    },
}

/// One tools/call the probe makes.
#[derive(Debug, Clone)]
pub struct PlannedCall {
    /// Tool name.
    pub name: String,
    /// Arguments (`None`: the `arguments` member is omitted).
    pub arguments: Option<Value>,
    /// Why.
    pub kind: CallKind,
}

impl PlannedCall {
    /// A short label for reports and file names, e.g. `echo`, `unknown-tool`, `add:invalid-args`.
    pub fn label(&self) -> String {
        match &self.kind {
            CallKind::Named => self.name.clone(),
            CallKind::UnknownTool => "unknown-tool".into(),
            CallKind::InvalidArguments { .. } => format!("{}:invalid-args", self.name),
        }
    }
}

/// Whether a tool's annotations mark it read-only.
pub fn is_read_only(tool: &Value) -> bool {
    tool.get("annotations")
        .and_then(|a| a.get("readOnlyHint"))
        .and_then(Value::as_bool)
        == Some(true)
}

/// The calls made without being asked: an unknown tool name, then, for each listed tool
/// that is read-only (or every tool, with `allow_side_effects`), one call whose arguments
/// violate its `inputSchema` (a missing required property, else a wrong type).
pub fn auto_calls(tools: &[Value], allow_side_effects: bool) -> Vec<PlannedCall> {
    let names: Vec<&str> = tools
        .iter()
        .filter_map(|t| t.get("name").and_then(Value::as_str))
        .collect();
    let mut unknown = UNKNOWN_TOOL.to_string();
    let mut n = 2;
    while names.contains(&unknown.as_str()) {
        unknown = format!("{UNKNOWN_TOOL}_{n}");
        n += 1;
    }
    let mut calls = vec![PlannedCall {
        name: unknown,
        arguments: Some(json!({})),
        kind: CallKind::UnknownTool,
    }];
    for tool in tools {
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            continue;
        };
        if !allow_side_effects && !is_read_only(tool) {
            continue;
        }
        if let Some((arguments, violation)) = schema_violation(tool.get("inputSchema")) {
            calls.push(PlannedCall {
                name: name.to_string(),
                arguments: Some(arguments),
                kind: CallKind::InvalidArguments { violation },
            });
        }
    }
    calls
}

/// Arguments that break `schema`, with a description; `None` when the schema constrains
/// nothing the probe can break safely.
fn schema_violation(schema: Option<&Value>) -> Option<(Value, String)> {
    let schema = schema?.as_object()?;
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    if let Some(first) = required.first() {
        // Fill the other required properties with plausible values so that only one
        // thing is wrong.
        let props = schema.get("properties").and_then(Value::as_object);
        let mut args = Map::new();
        for r in required.iter().skip(1) {
            let value = props
                .and_then(|p| p.get(*r))
                .and_then(sample_value)
                .unwrap_or(Value::Null);
            if !value.is_null() {
                args.insert((*r).to_string(), value);
            }
        }
        return Some((
            Value::Object(args),
            format!("required property `{first}` is missing"),
        ));
    }
    let props = schema.get("properties")?.as_object()?;
    for (name, prop) in props {
        let Some(ty) = prop.get("type").and_then(Value::as_str) else {
            continue;
        };
        let wrong = match ty {
            "string" => json!(12345),
            "number" | "integer" => json!("not-a-number"),
            "boolean" => json!("not-a-boolean"),
            "object" | "array" => json!("not-an-object-or-array"),
            _ => continue,
        };
        let shown = wrong.to_string();
        return Some((
            json!({ name.clone(): wrong }),
            format!("property `{name}` should be of type {ty}, is {shown}"),
        ));
    }
    None
}

/// A value that satisfies a simple property schema, for filling in the properties the
/// probe does not mean to break.
fn sample_value(prop: &Value) -> Option<Value> {
    if let Some(v) = prop.get("default") {
        return Some(v.clone());
    }
    if let Some(v) = prop
        .get("enum")
        .and_then(Value::as_array)
        .and_then(|e| e.first())
    {
        return Some(v.clone());
    }
    if let Some(v) = prop.get("const") {
        return Some(v.clone());
    }
    let min = prop.get("minimum").and_then(Value::as_f64);
    match prop.get("type").and_then(Value::as_str)? {
        "string" => Some(json!("probe")),
        "integer" => Some(json!(min.map_or(1, |m| m.ceil() as i64))),
        "number" => Some(prop.get("minimum").cloned().unwrap_or(json!(1))),
        "boolean" => Some(json!(false)),
        "array" => Some(json!([])),
        "object" => Some(json!({})),
        _ => None,
    }
}

/// Whether a value can travel as a plain HTTP header value under 2026-07-28's rules:
/// visible ASCII and spaces/tabs only, no leading or trailing whitespace, and not itself
/// shaped like the Base64 sentinel.
pub fn header_safe(value: &str) -> bool {
    let visible = value
        .bytes()
        .all(|b| b == b' ' || b == b'\t' || (0x21..=0x7e).contains(&b));
    let padded = value.starts_with([' ', '\t']) || value.ends_with([' ', '\t']);
    let sentinel = value.starts_with("=?base64?") && value.ends_with("?=");
    !value.is_empty() && visible && !padded && !sentinel
}

/// A header value: the text itself when header-safe, else `=?base64?…?=`.
pub fn header_value(value: &str) -> String {
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
pub fn param_headers(
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
                out.push((format!("Mcp-Param-{name}"), header_value(&text)));
            }
        }
        if v.is_object() {
            collect_param_headers(prop, v, out);
        }
    }
}

/// Client capabilities the answers file can satisfy: a method key names the capability
/// directly; an input-request key is recognised by the shape of its answer (`action` →
/// elicitation, `roots` → roots, `role` + `content` → sampling).
pub fn capabilities_for(answers: &Map<String, Value>) -> Value {
    let mut caps = Map::new();
    for (key, answer) in answers {
        let cap = match key.as_str() {
            "elicitation/create" => Some("elicitation"),
            "sampling/createMessage" => Some("sampling"),
            "roots/list" => Some("roots"),
            _ => {
                if answer.get("action").is_some() {
                    Some("elicitation")
                } else if answer.get("roots").is_some() {
                    Some("roots")
                } else if answer.get("role").is_some() && answer.get("content").is_some() {
                    Some("sampling")
                } else {
                    None
                }
            }
        };
        match cap {
            Some("elicitation") => {
                caps.insert("elicitation".into(), json!({"form": {}}));
            }
            Some(c) => {
                caps.insert(c.into(), json!({}));
            }
            None => {}
        }
    }
    Value::Object(caps)
}

/// The answer for an input request: by its key first, then by its method.
pub fn answer_for<'a>(
    answers: &'a Map<String, Value>,
    key: &str,
    method: Option<&str>,
) -> Option<&'a Value> {
    answers
        .get(key)
        .or_else(|| method.and_then(|m| answers.get(m)))
}

/// Whether a header carries a secret: `Authorization`, `Proxy-Authorization`, `Cookie`,
/// `Set-Cookie`, `*-Api-Key`, anything with `token`, `secret` or `session-id` in its name.
pub fn is_secret_header(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n == "authorization"
        || n == "proxy-authorization"
        || n == "cookie"
        || n == "set-cookie"
        || n == "api-key"
        || n.ends_with("-api-key")
        || n.contains("token")
        || n.contains("secret")
        || n.contains("session-id")
}

/// Header fields with secret values replaced by `[REDACTED]`.
pub fn redact_headers<'a, I>(headers: I) -> Vec<(String, String)>
where
    I: IntoIterator<Item = (&'a str, &'a str)>,
{
    headers
        .into_iter()
        .map(|(n, v)| {
            let v = if is_secret_header(n) {
                REDACTED.to_string()
            } else {
                v.to_string()
            };
            (n.to_string(), v)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn auto_calls_break_read_only_tools_only() {
        let tools = vec![
            json!({"name": "echo", "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}, "annotations": {"readOnlyHint": true}}),
            json!({"name": "add", "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number", "minimum": 2}}, "required": ["a", "b"]}, "annotations": {"readOnlyHint": true}}),
            json!({"name": "count", "inputSchema": {"type": "object", "properties": {"to": {"type": "integer"}}}, "annotations": {"readOnlyHint": true}}),
            json!({"name": "create_order", "inputSchema": {"type": "object", "properties": {"item": {"type": "string"}}, "required": ["item"]}}),
        ];
        let calls = auto_calls(&tools, false);
        let labels: Vec<String> = calls.iter().map(PlannedCall::label).collect();
        assert_eq!(
            labels,
            [
                "unknown-tool",
                "echo:invalid-args",
                "add:invalid-args",
                "count:invalid-args"
            ]
        );
        assert_eq!(calls[1].arguments, Some(json!({})));
        assert_eq!(calls[2].arguments, Some(json!({"b": 2})));
        assert_eq!(calls[3].arguments, Some(json!({"to": "not-a-number"})));
        assert_eq!(auto_calls(&tools, true).len(), 5);
        let clash = vec![json!({"name": UNKNOWN_TOOL})];
        assert_eq!(
            auto_calls(&clash, false)[0].name,
            format!("{UNKNOWN_TOOL}_2")
        );
    }

    #[test]
    fn capabilities_come_from_answers() {
        let answers: Map<String, Value> = serde_json::from_value(json!({
            "confirm": {"action": "accept", "content": {"confirm": true}},
            "roots/list": {"roots": []}
        }))
        .unwrap();
        assert_eq!(
            capabilities_for(&answers),
            json!({"elicitation": {"form": {}}, "roots": {}})
        );
        assert_eq!(
            answer_for(&answers, "x", Some("roots/list")),
            Some(&json!({"roots": []}))
        );
        assert_eq!(answer_for(&answers, "x", Some("ping")), None);
    }

    #[test]
    fn secret_headers_are_redacted() {
        let h = redact_headers([
            ("Authorization", "Bearer abc"),
            ("X-Api-Key", "k"),
            ("X-Auth-Token", "t"),
            ("Mcp-Session-Id", "s"),
            ("Set-Cookie", "a=b"),
            ("Accept", "application/json"),
        ]);
        let values: Vec<&str> = h.iter().map(|(_, v)| v.as_str()).collect();
        assert_eq!(
            values,
            [
                REDACTED,
                REDACTED,
                REDACTED,
                REDACTED,
                REDACTED,
                "application/json"
            ]
        );
    }
}
