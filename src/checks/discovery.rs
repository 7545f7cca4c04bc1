//! Discovery checks: what a client learns before it calls a tool. The tool names a `tools/list`
//! result lists, and the protocol versions a `server/discover` result says the server supports
//! set against the version the request was made under. The results' shapes are judged by the
//! generic schema check (targets `list_tools_result`, `discover_result`, `initialize_result`).

use serde_json::Value;

use super::meta::valid_meta_key;
use crate::check_api::{Cx, Eval, Hit, Params};

crate::check_api::declare_checks! {
    "tool_names" => tool_names, ["value", "max"], ["value"], RESULT,
        "a tool name in a `tools/list` result breaks the naming guidance `value` names: `length` (not 1 to `max` characters), `characters` (a character other than ASCII letters, digits, `_`, `-` and `.`) or `unique` (the same name, compared case-sensitively, as an earlier tool of the list)";
    "discover_version_supported" => discover_version_supported, [], [], RESULT,
        "a `server/discover` result's `supportedVersions` does not list the protocol version the request was made under (its `_meta` version, else its MCP-Protocol-Version header)";
    "extension_ids" => extension_ids, [], [], RESULT,
        "a key of `capabilities.extensions` in a `server/discover` result is not a `_meta` key name with a prefix";
}

/// At most this many characters of a name are quoted in a message.
const SHOWN: usize = 60;

fn shown(name: &str) -> String {
    let mut s: String = name.chars().take(SHOWN).collect();
    if s.len() < name.len() {
        s.push('…');
    }
    s
}

/// Whether a character is one tool names should be limited to.
fn allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

fn tool_names(cx: &Cx<'_>, p: &Params) -> Eval {
    let Some(tools) = cx.listed_tools() else {
        return Eval::NotApplicable;
    };
    // Names that are not strings are schema errors of the list, judged there.
    let names: Vec<(usize, &str)> = tools
        .iter()
        .enumerate()
        .filter_map(|(i, t)| Some((i, t.get("name")?.as_str()?)))
        .collect();
    if names.is_empty() {
        return Eval::NotApplicable;
    }
    let at = |i: usize| format!("/result/tools/{i}/name");
    let hits: Vec<Hit> = match p.value.as_deref() {
        Some("length") => {
            let Some(max) = p.max.and_then(|m| usize::try_from(m).ok()) else {
                return Eval::NotApplicable;
            };
            names
                .iter()
                .filter_map(|&(i, name)| {
                    let n = name.chars().count();
                    (n == 0 || n > max).then(|| {
                        Hit::new(
                            at(i),
                            if n == 0 {
                                format!(
                                    "a listed tool's name is empty; tool names should be 1 to {max} characters long"
                                )
                            } else {
                                format!(
                                    "the tool name \"{}\" is {n} characters long; tool names should be 1 to {max} characters long",
                                    shown(name)
                                )
                            },
                        )
                    })
                })
                .collect()
        }
        Some("characters") => names
            .iter()
            .filter_map(|&(i, name)| {
                let mut bad: Vec<char> = name.chars().filter(|&c| !allowed(c)).collect();
                if bad.is_empty() {
                    return None;
                }
                bad.sort_unstable();
                bad.dedup();
                let listed: Vec<String> = bad
                    .iter()
                    .take(8)
                    .map(|c| match c {
                        ' ' => "space".to_string(),
                        ',' => "comma".to_string(),
                        c if c.is_control() || c.is_whitespace() => {
                            format!("U+{:04X}", u32::from(*c))
                        }
                        c => format!("`{c}`"),
                    })
                    .collect();
                let more = if bad.len() > 8 { ", …" } else { "" };
                Some(Hit::new(
                    at(i),
                    format!(
                        "the tool name \"{}\" contains {}{more}; tool names should use only ASCII letters, digits, `_`, `-` and `.`",
                        shown(name),
                        listed.join(", ")
                    ),
                ))
            })
            .collect(),
        Some("unique") => {
            let mut first: std::collections::HashMap<&str, usize> =
                std::collections::HashMap::with_capacity(names.len());
            names
                .iter()
                .filter_map(|&(i, name)| match first.get(name) {
                    Some(&earlier) => Some(Hit::new(
                        at(i),
                        format!(
                            "the tool name \"{}\" is also the name of tool {earlier} of the list; tool names should be unique within a server",
                            shown(name)
                        ),
                    )),
                    None => {
                        first.insert(name, i);
                        None
                    }
                })
                .collect()
        }
        _ => return Eval::NotApplicable,
    };
    Eval::from_hits(hits)
}

fn discover_version_supported(cx: &Cx<'_>, _: &Params) -> Eval {
    let Some(result) = cx.final_result_value_of("server/discover") else {
        return Eval::NotApplicable;
    };
    let req = &cx.an.req;
    let Some(requested) = req.meta_version.or(req.header_version) else {
        return Eval::NotApplicable;
    };
    // A supportedVersions that is not a list of strings is a schema error, judged there.
    let Some(supported) = result
        .get("supportedVersions")
        .and_then(Value::as_array)
        .and_then(|a| a.iter().map(Value::as_str).collect::<Option<Vec<&str>>>())
    else {
        return Eval::NotApplicable;
    };
    if supported.contains(&requested) {
        return Eval::Pass;
    }
    let listed = if supported.is_empty() {
        "none".to_string()
    } else {
        supported
            .iter()
            .take(10)
            .map(|v| format!("\"{}\"", shown(v)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    Eval::hit(
        "/result/supportedVersions",
        format!(
            "the request was made under protocol version \"{}\" and the server answered it with a result whose supportedVersions ({listed}) does not list that version; a server that does not implement the requested version must answer with an UnsupportedProtocolVersionError instead",
            shown(requested)
        ),
    )
}

fn extension_ids(cx: &Cx<'_>, _: &Params) -> Eval {
    // Capabilities or extensions that are not objects are schema errors, judged there.
    let Some(extensions) = cx
        .final_result_value_of("server/discover")
        .and_then(|r| r.get("capabilities"))
        .and_then(|c| c.get("extensions"))
        .and_then(Value::as_object)
    else {
        return Eval::NotApplicable;
    };
    if extensions.is_empty() {
        return Eval::NotApplicable;
    }
    let hits: Vec<Hit> = extensions
        .keys()
        .filter(|k| !(k.contains('/') && valid_meta_key(k)))
        .map(|k| {
            let why = if k.contains('/') {
                "does not follow the `_meta` key naming rules"
            } else {
                "has no prefix (such as `com.example/`)"
            };
            Hit::new(
                format!(
                    "/result/capabilities/extensions/{}",
                    k.replace('~', "~0").replace('/', "~1")
                ),
                format!(
                    "the extension identifier \"{}\" {why}; extension identifiers must be `_meta` key names with a prefix",
                    shown(k)
                ),
            )
        })
        .collect();
    Eval::from_hits(hits)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn allowed_characters() {
        assert!("getUser".chars().all(allowed));
        assert!("DATA_EXPORT_v2".chars().all(allowed));
        assert!("admin.tools.list".chars().all(allowed));
        assert!("a-b".chars().all(allowed));
        assert!(!"get user".chars().all(allowed));
        assert!(!"a,b".chars().all(allowed));
        assert!(!"café".chars().all(allowed));
        assert!(!"a/b".chars().all(allowed));
    }

    #[test]
    fn shown_cuts_long_names() {
        let long = "x".repeat(200);
        assert_eq!(shown(&long).chars().count(), SHOWN + 1);
        assert_eq!(shown("short"), "short");
    }
}
