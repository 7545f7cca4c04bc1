//! The `x-mcp-header` annotations of a tool's `inputSchema` (2026-07-28): the constraints a
//! value must meet for the parameter to travel as an `Mcp-Param-*` header. The probe reads a
//! listed tool with [`x_mcp_header_problem`] before it calls it; `tools.list.x-mcp-header`
//! judges a `tools/list` result with it.

use serde_json::Value;

use crate::check_api::{Cx, Eval, Hit, Params};
use crate::wire::param_headers::{decode_param, mirrored};

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

/// What is wrong with the `Mcp-Param-{Name}` headers of a recorded `tools/call` whose tool
/// definition the exchange records (`tool`): for each property its `inputSchema` annotates
/// with `x-mcp-header` (reached through `properties` keys only), a value in the arguments
/// without its header, a header whose value has characters a header value may not carry or
/// is a broken Base64 sentinel, or one that differs from the argument once decoded (integers
/// compare numerically). A tool whose annotations are invalid is one a client must drop, so
/// its headers are not judged.
///
/// 2026-07-28 basic/transports/streamable-http, Server Behavior for Custom Headers: "Any
/// server that processes the message body **MUST** validate that encoded header values, after
/// decoding if Base64-encoded, match the corresponding values in the request body."
pub(crate) fn param_header_problems(cx: &Cx<'_>) -> Vec<String> {
    let req = &cx.an.req;
    let Some(tool) = cx.an.ex.tool.as_ref() else {
        return Vec::new();
    };
    if req.method != Some("tools/call") || tool.get("name").and_then(Value::as_str) != req.tool_name
    {
        return Vec::new();
    }
    let schema = tool.get("inputSchema");
    if schema.is_none() || x_mcp_header_problem(schema).is_some() {
        return Vec::new();
    }
    let args = req.params.and_then(|p| p.get("arguments"));
    let mut annotated = Vec::new();
    mirrored(schema.unwrap_or(&Value::Null), args, &mut annotated);
    let headers = &cx.an.ex.request.headers;
    let mut problems = Vec::new();
    for (suffix, body) in annotated {
        let name = format!("{}{suffix}", crate::vocab::protocol::header::PARAM_PREFIX);
        let body = body.filter(|v| v.is_string() || v.is_number() || v.is_boolean());
        let Some(raw) = headers.get(&name) else {
            if let Some(v) = body {
                problems.push(format!(
                    "the request has no {name} header, though its argument is {}",
                    crate::wire::excerpt(v.to_string().as_bytes(), 40)
                ));
            }
            continue;
        };
        if raw.chars().any(|c| c != '\t' && !(' '..='~').contains(&c)) {
            problems.push(format!(
                "the request's {name} header has characters a header value may not carry (only visible ASCII, spaces and tabs; other text is Base64-encoded)"
            ));
            continue;
        }
        let value = raw.trim();
        let Some(decoded) = decode_param(value) else {
            problems.push(format!(
                "the request's {name} header ({}) is not a valid Base64 sentinel value",
                crate::wire::excerpt(value.as_bytes(), 40)
            ));
            continue;
        };
        let Some(body) = body else {
            // Absent or null in the arguments: the client should not have sent the header,
            // which the request rules, not the server's validation, would judge.
            continue;
        };
        let same = match body {
            Value::String(s) => *s == decoded,
            Value::Bool(b) => decoded == b.to_string(),
            Value::Number(n) => {
                n.to_string() == decoded
                    || decoded
                        .parse::<f64>()
                        .ok()
                        .zip(n.as_f64())
                        .is_some_and(|(a, b)| a == b)
            }
            _ => true,
        };
        if !same {
            problems.push(format!(
                "the request's {name} header ({}) differs from its argument ({})",
                crate::wire::excerpt(decoded.as_bytes(), 40),
                crate::wire::excerpt(body.to_string().as_bytes(), 40)
            ));
        }
    }
    problems
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
