//! Which calls the probe makes: those named in the configuration, then those it makes on its
//! own (an unknown tool, arguments that violate a listed tool's `inputSchema`).

use serde_json::{Map, Value, json};

use super::config::ProbeConfig;

/// Name used for the unknown-tool call (suffixed if the server happens to list it).
const UNKNOWN_TOOL: &str = "mcp_verdict_probe_no_such_tool";

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

/// The calls of a run, in order: those named in the configuration (arguments `{}` when none
/// were given), then, with [`ProbeConfig::auto_calls`], the [`auto_calls`] for the listed
/// `tools`.
pub(super) fn planned_calls(cfg: &ProbeConfig, tools: &[Value]) -> Vec<PlannedCall> {
    let mut calls: Vec<PlannedCall> = cfg
        .calls
        .iter()
        .map(|c| PlannedCall {
            name: c.name.clone(),
            arguments: Some(c.arguments.clone().unwrap_or_else(|| json!({}))),
            kind: CallKind::Named,
        })
        .collect();
    if cfg.auto_calls {
        calls.extend(auto_calls(tools, cfg.allow_side_effects));
    }
    calls
}

/// Whether a tool's annotations mark it read-only.
pub(crate) fn is_read_only(tool: &Value) -> bool {
    tool.get("annotations")
        .and_then(|a| a.get("readOnlyHint"))
        .and_then(Value::as_bool)
        == Some(true)
}

/// The calls made without being asked: an unknown tool name, then, for each listed tool
/// that is read-only (or every tool, with `allow_side_effects`), one call whose arguments
/// violate its `inputSchema` (a missing required property, else a wrong type).
fn auto_calls(tools: &[Value], allow_side_effects: bool) -> Vec<PlannedCall> {
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

/// Arguments that satisfy `schema` as far as the probe can tell: every required property
/// filled with a plausible value; `None` when one cannot be made up (or the schema is not an
/// object schema the probe reads).
pub(super) fn valid_arguments(schema: Option<&Value>) -> Option<Value> {
    let schema = match schema {
        None => return Some(json!({})),
        Some(s) => s.as_object()?,
    };
    let props = schema.get("properties").and_then(Value::as_object);
    let mut args = Map::new();
    if let Some(required) = schema.get("required").and_then(Value::as_array) {
        for r in required {
            let r = r.as_str()?;
            let value = props.and_then(|p| p.get(r)).and_then(sample_value)?;
            args.insert(r.to_string(), value);
        }
    }
    Some(Value::Object(args))
}

/// A value that satisfies a simple property schema, for filling in the properties the
/// probe does not mean to break.
pub(super) fn sample_value(prop: &Value) -> Option<Value> {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
