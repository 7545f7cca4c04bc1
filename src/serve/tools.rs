//! The well-behaved tools the server offers.

use std::sync::atomic::{AtomicU64, Ordering};

use serde_json::{Map, Value, json};

/// Names of the tools, in `tools/list` order.
pub(crate) const TOOL_NAMES: [&str; 5] = ["echo", "add", "count", "create_order", "confirm_action"];

/// One tool: its definition and compiled input validator.
pub(crate) struct Tool {
    pub name: &'static str,
    pub definition: Value,
    validator: jsonschema::Validator,
}

impl Tool {
    fn new(definition: Value) -> Self {
        let name = TOOL_NAMES
            .iter()
            .copied()
            .find(|n| definition["name"] == *n)
            .expect("tool name is listed");
        let validator = jsonschema::validator_for(&definition["inputSchema"])
            .expect("built-in inputSchema compiles");
        Self {
            name,
            definition,
            validator,
        }
    }

    /// Input-schema violations, as readable lines (empty when valid).
    pub fn validate(&self, args: &Value) -> Vec<String> {
        self.validator
            .iter_errors(args)
            .map(|e| {
                let path = e.instance_path().to_string();
                if path.is_empty() {
                    e.to_string()
                } else {
                    format!("{path}: {e}")
                }
            })
            .collect()
    }

    /// Whether this tool needs user confirmation (elicitation) before running.
    pub fn needs_confirmation(&self) -> bool {
        self.name == "confirm_action"
    }
}

/// The tool catalogue.
pub(crate) fn catalogue() -> Vec<Tool> {
    vec![
        Tool::new(json!({
            "name": "echo",
            "title": "Echo",
            "description": "Returns the given text unchanged. Read-only and safe to retry.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "text": {"type": "string", "description": "Text to echo back"}
                },
                "required": ["text"],
                "additionalProperties": false
            },
            "annotations": {
                "title": "Echo",
                "readOnlyHint": true,
                "idempotentHint": true,
                "openWorldHint": false
            }
        })),
        Tool::new(json!({
            "name": "add",
            "title": "Add two numbers",
            "description": "Adds a and b. Returns structured content {sum} and a text mirror. \
                            Read-only and idempotent.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "a": {"type": "number"},
                    "b": {"type": "number"}
                },
                "required": ["a", "b"],
                "additionalProperties": false
            },
            "outputSchema": {
                "type": "object",
                "properties": {"sum": {"type": "number"}},
                "required": ["sum"],
                "additionalProperties": false
            },
            "annotations": {
                "title": "Add",
                "readOnlyHint": true,
                "idempotentHint": true,
                "openWorldHint": false
            }
        })),
        Tool::new(json!({
            "name": "count",
            "title": "Count with progress",
            "description": "Counts from 1 to `to` (default 3). When the request carries \
                            _meta.progressToken the answer is an SSE stream with one \
                            notifications/progress per step before the result.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "to": {"type": "integer", "minimum": 1, "maximum": 20, "default": 3}
                },
                "additionalProperties": false
            },
            "annotations": {
                "title": "Count",
                "readOnlyHint": true,
                "idempotentHint": true,
                "openWorldHint": false
            }
        })),
        Tool::new(json!({
            "name": "create_order",
            "title": "Create an order",
            "description": "Creates an order (a side effect: every successful call creates a \
                            new order). Not idempotent: replaying a call that may have \
                            succeeded creates a duplicate order.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "item": {"type": "string", "minLength": 1},
                    "quantity": {"type": "integer", "minimum": 1, "maximum": 1000}
                },
                "required": ["item", "quantity"],
                "additionalProperties": false
            },
            "outputSchema": {
                "type": "object",
                "properties": {
                    "orderId": {"type": "string"},
                    "item": {"type": "string"},
                    "quantity": {"type": "integer"}
                },
                "required": ["orderId", "item", "quantity"],
                "additionalProperties": false
            },
            "annotations": {
                "title": "Create order",
                "readOnlyHint": false,
                "destructiveHint": true,
                "idempotentHint": false,
                "openWorldHint": false
            }
        })),
        Tool::new(json!({
            "name": "confirm_action",
            "title": "Confirm an action",
            "description": "Asks the user to confirm `action` through a form elicitation before \
                            completing (2026-07-28: input_required + requestState; 2025-11-25: \
                            elicitation/create on the response stream). Needs the client's \
                            elicitation capability.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "action": {"type": "string", "minLength": 1}
                },
                "required": ["action"],
                "additionalProperties": false
            },
            "annotations": {
                "title": "Confirm action",
                "readOnlyHint": false,
                "destructiveHint": false,
                "idempotentHint": true,
                "openWorldHint": false
            }
        })),
    ]
}

/// The `tools` array of a `tools/list` result.
pub(crate) fn definitions(tools: &[Tool]) -> Value {
    Value::Array(tools.iter().map(|t| t.definition.clone()).collect())
}

/// A plain successful tool result (no `resultType`; callers decorate per revision).
pub(crate) fn text_result(text: impl Into<String>, is_error: bool) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert(
        "content".into(),
        json!([{"type": "text", "text": text.into()}]),
    );
    m.insert("isError".into(), Value::Bool(is_error));
    m
}

/// Runs a tool whose arguments already passed validation (and, for
/// `confirm_action`, whose confirmation was granted). `orders` counts side effects.
pub(crate) fn execute(name: &str, args: &Value, orders: &AtomicU64) -> Map<String, Value> {
    match name {
        "echo" => text_result(args["text"].as_str().unwrap_or_default(), false),
        "add" => {
            let a = &args["a"];
            let b = &args["b"];
            let sum = match (a.as_i64(), b.as_i64()) {
                (Some(x), Some(y)) if x.checked_add(y).is_some() => json!(x + y),
                _ => json!(a.as_f64().unwrap_or(0.0) + b.as_f64().unwrap_or(0.0)),
            };
            let structured = json!({ "sum": sum });
            let mut m = text_result(structured.to_string(), false);
            m.insert("structuredContent".into(), structured);
            m
        }
        "count" => {
            let to = args["to"].as_u64().unwrap_or(3);
            text_result(format!("counted to {to}"), false)
        }
        "create_order" => {
            let n = orders.fetch_add(1, Ordering::SeqCst) + 1;
            let order_id = format!("ord-{n:06}");
            let item = args["item"].as_str().unwrap_or_default();
            let quantity = args["quantity"].as_u64().unwrap_or(0);
            let structured = json!({"orderId": order_id, "item": item, "quantity": quantity});
            let mut m = text_result(
                format!("Created order {order_id}: {quantity} x {item}"),
                false,
            );
            m.insert("structuredContent".into(), structured);
            m
        }
        "confirm_action" => text_result(
            format!("Confirmed: {}", args["action"].as_str().unwrap_or_default()),
            false,
        ),
        other => text_result(format!("Unknown tool: {other}"), true),
    }
}

/// How many steps `count` streams for these arguments.
pub(crate) fn count_steps(args: &Value) -> u64 {
    args["to"].as_u64().unwrap_or(3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_is_complete_and_validates() {
        let tools = catalogue();
        let names: Vec<&str> = tools.iter().map(|t| t.name).collect();
        assert_eq!(names, TOOL_NAMES);
        let add = &tools[1];
        assert!(add.validate(&json!({"a": 1, "b": 2.5})).is_empty());
        let errs = add.validate(&json!({"a": "x"}));
        assert_eq!(errs.len(), 2, "{errs:?}");
        let orders = AtomicU64::new(0);
        let r = execute("add", &json!({"a": 1, "b": 2}), &orders);
        assert_eq!(r["structuredContent"], json!({"sum": 3}));
        assert_eq!(r["content"][0]["text"], "{\"sum\":3}");
        let r = execute(
            "create_order",
            &json!({"item": "x", "quantity": 2}),
            &orders,
        );
        assert_eq!(r["structuredContent"]["orderId"], "ord-000001");
        assert_eq!(orders.load(Ordering::SeqCst), 1);
    }
}
