//! The conformance fixture set (`--scenario baseline:tools=conformance`): the tools, prompts,
//! resources, completions and logging that the official MCP conformance suite calls on a
//! server, served honestly under both revisions on top of the five baseline tools.
//!
//! - Content tools return real content: a 1x1 PNG, a short WAV tone, embedded resources.
//! - `test_tool_with_progress` streams `notifications/progress` with the request's
//!   `progressToken`; the logging tools stream `notifications/message` at level `info` when the
//!   client asked for that level (2025-11-25: `logging/setLevel`, default `info`; 2026-07-28:
//!   `_meta` `io.modelcontextprotocol/logLevel`, none without it).
//! - Tools that need the client (sampling, elicitation, roots) ask through the revision's
//!   own machinery: 2025-11-25 sends the server request on the `tools/call` SSE stream and
//!   finishes once the client has POSTed its answer; 2026-07-28 answers `input_required` with
//!   `inputRequests` (and, for the multi-round fixtures, a sealed `requestState`) and
//!   finishes on the retry that carries `inputResponses`.

use std::time::Duration;

use serde_json::Value;

mod asking;
mod calls;
mod content;
mod methods;
mod rounds;

pub(crate) use calls::call_tool;
pub(crate) use methods::{MethodCtx, handle_method};

use super::shared::Shared;
use super::tools;
use crate::vocab::Protocol;

/// How long a progress or logging fixture works between two notifications.
const STEP: Duration = Duration::from_millis(50);

/// Caching hints on cacheable 2026-07-28 results.
const TTL_MS: u64 = 60_000;

/// Log levels, least severe first (RFC 5424 order as MCP uses it).
const LOG_LEVELS: [&str; 8] = [
    "debug",
    "info",
    "notice",
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
];

/// The `tools` array of `tools/list`: the baseline tools, then the fixtures of `rev`.
pub(crate) fn tool_list(shared: &Shared, rev: Protocol) -> Value {
    let mut list = match tools::definitions(&shared.tools) {
        Value::Array(a) => a,
        _ => Vec::new(),
    };
    if let Some(f) = &shared.fixtures {
        list.extend(
            f.tools
                .iter()
                .filter(|t| t.revs.has(rev))
                .map(|t| t.definition.clone()),
        );
    }
    Value::Array(list)
}

/// The `inputSchema` of a tool offered under 2026-07-28 (baseline or fixture).
pub(crate) fn input_schema(shared: &Shared, name: &str) -> Option<Value> {
    if let Some(t) = shared.tools.iter().find(|t| t.name == name) {
        return Some(t.definition["inputSchema"].clone());
    }
    let t = shared
        .fixtures
        .as_ref()?
        .tool(name, Protocol::V2026_07_28)?;
    Some(t.definition["inputSchema"].clone())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::methods::{read_resource, template_id};
    use super::*;
    use crate::serve::suite_tools::Fixtures;

    #[test]
    fn fixtures_compile_and_templates_match() {
        let f = Fixtures::new();
        assert!(f.tool("test_simple_text", Protocol::V2025_11_25).is_some());
        assert!(
            f.tool(
                "test_input_required_result_elicitation",
                Protocol::V2025_11_25
            )
            .is_none()
        );
        let js = f
            .tool("json_schema_2020_12_tool", Protocol::V2026_07_28)
            .unwrap();
        assert!(js.validator.is_valid(&json!({"email": "a@b.c"})));
        assert!(
            !js.validator
                .is_valid(&json!({"contactMethod": "phone", "email": "a@b.c"}))
        );
        assert_eq!(template_id("test://template/123/data"), Some("123"));
        assert_eq!(template_id("test://template//data"), None);
        assert!(read_resource("test://nope").is_none());
    }
}
