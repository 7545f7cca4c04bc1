//! The `x-mcp-header` annotations of a tool's `inputSchema` (2026-07-28): the constraints a
//! value must meet for the parameter to travel as an `Mcp-Param-*` header. The probe reads a
//! listed tool with [`x_mcp_header_problem`] before it calls it; `tools.list.x-mcp-header`
//! judges a `tools/list` result with it.

use serde_json::Value;

use crate::check_api::{Cx, Eval, Hit, Params};

crate::check_api::declare_checks! {
    "x_mcp_header_annotations" => x_mcp_header_annotations, [], [], RESULT,
        "a tool of a `tools/list` result has an `x-mcp-header` annotation that is not a non-empty HTTP token on a statically reachable integer, string or boolean property, or repeats another case-insensitively";
}

fn x_mcp_header_annotations(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(tools) = cx.listed_tools() else {
        return Eval::NotApplicable;
    };
    let hits: Vec<Hit> = tools
        .iter()
        .enumerate()
        .filter_map(|(i, tool)| {
            let problem = x_mcp_header_problem(tool.get("inputSchema"))?;
            let name = tool.get("name").and_then(Value::as_str).unwrap_or("?");
            Some(Hit::new(
                format!("/result/tools/{i}/inputSchema"),
                format!(
                    "tool {}: {problem}; a client over Streamable HTTP must leave the tool out of its list",
                    crate::wire::excerpt(name.as_bytes(), 60)
                ),
            ))
        })
        .collect();
    Eval::from_hits(hits)
}

/// Why a tool definition's `x-mcp-header` annotations are invalid, when they are: a value
/// that is not a non-empty HTTP token, one on a property whose type is not integer, string or
/// boolean, two values equal but for case, or an annotation that is not on a property
/// statically reachable from the schema root (a chain of `properties` keys only).
///
/// 2026-07-28 server/tools, x-mcp-header: "Clients using the Streamable HTTP transport
/// **MUST** reject tool definitions where any `x-mcp-header` value violates these
/// constraints. Rejection means the client **MUST** exclude the invalid tool from the result
/// of `tools/list`. Clients **SHOULD** log a warning when rejecting a tool definition,
/// including the tool name and the reason for rejection."
pub(crate) fn x_mcp_header_problem(input_schema: Option<&Value>) -> Option<String> {
    let schema = input_schema?;
    let mut seen: Vec<String> = Vec::new();
    let mut problem = None;
    walk(schema, "", false, &mut seen, &mut problem);
    problem
}

/// Keywords whose values are data, not schemas.
const DATA_KEYWORDS: [&str; 5] = ["const", "default", "enum", "examples", "example"];

fn walk(
    schema: &Value,
    path: &str,
    reachable: bool,
    seen: &mut Vec<String>,
    problem: &mut Option<String>,
) {
    if problem.is_some() {
        return;
    }
    let Some(obj) = schema.as_object() else {
        if let Some(items) = schema.as_array() {
            for v in items {
                walk(v, path, false, seen, problem);
            }
        }
        return;
    };
    if let Some(v) = obj.get("x-mcp-header") {
        let at = if path.is_empty() {
            "the schema root"
        } else {
            path
        };
        let name = v.as_str().unwrap_or("");
        let ty = obj.get("type").and_then(Value::as_str);
        let tchar = |b: u8| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b);
        *problem = if !v.is_string() {
            Some(format!("x-mcp-header at {at} is not a string"))
        } else if path.is_empty() || !reachable {
            Some(format!(
                "x-mcp-header {name:?} at {at} is not on a property reachable through `properties` alone"
            ))
        } else if name.is_empty() {
            Some(format!("x-mcp-header at {at} is empty"))
        } else if !name.bytes().all(tchar) {
            Some(format!(
                "x-mcp-header {name:?} at {at} is not an HTTP token (letters, digits and !#$%&'*+-.^_`|~ only)"
            ))
        } else if !matches!(ty, Some("string" | "integer" | "boolean")) {
            Some(format!(
                "x-mcp-header {name:?} at {at} is on a property of type {}, not integer, string or boolean",
                ty.map_or_else(|| "(none)".to_string(), |t| format!("{t:?}"))
            ))
        } else if seen.iter().any(|s| s.eq_ignore_ascii_case(name)) {
            Some(format!(
                "x-mcp-header {name:?} at {at} repeats another (case-insensitively)"
            ))
        } else {
            seen.push(name.to_string());
            None
        };
        if problem.is_some() {
            return;
        }
    }
    for (key, v) in obj {
        if DATA_KEYWORDS.contains(&key.as_str()) {
            continue;
        }
        if key == "properties"
            && let Some(props) = v.as_object()
        {
            for (name, prop) in props {
                let p = format!("{path}/{name}");
                walk(prop, &p, reachable || path.is_empty(), seen, problem);
            }
        } else if v.is_object() || v.is_array() {
            walk(v, &format!("{path}/{key}"), false, seen, problem);
        }
    }
}
