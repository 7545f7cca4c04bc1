//! Discovery answers through the library's entry point: an exchange whose request is
//! `tools/list`, `server/discover` or `initialize` is judged with [`mcp_verdict::judge`] like
//! any other; it ends NOT_A_TOOL_CALL and carries the findings of the discovery rules, and its
//! answer is never read as a tool result. The official 2026-07-28 examples of those answers
//! (under `MCP_SPEC_DIR`) draw no finding.

use mcp_verdict::{Exchange, Headers, Outcome, Protocol, Verdict};
use serde_json::{Value, json};

use crate::support::judge::judge_under;
use crate::support::reference::{self, Reference};

const L: Protocol = Protocol::V2025_11_25;
const M: Protocol = Protocol::V2026_07_28;

/// A recorded exchange: `request` POSTed under `protocol` (header and `_meta` for 2026-07-28;
/// `initialize` carries neither), answered 200 with `{"jsonrpc":"2.0","id":1,"result":result}`.
fn exchange(method: &str, protocol: Protocol, result: Value) -> Exchange {
    let mut params = json!({});
    let mut headers = vec![("Content-Type", "application/json".to_string())];
    if method == "initialize" {
        params = json!({"protocolVersion": protocol.as_str(), "capabilities": {},
                        "clientInfo": {"name": "c", "version": "1"}});
    } else {
        headers.push(("MCP-Protocol-Version", protocol.as_str().to_string()));
        headers.push(("Mcp-Method", method.to_string()));
        if protocol == M {
            params = json!({"_meta": {
                "io.modelcontextprotocol/protocolVersion": protocol.as_str(),
                "io.modelcontextprotocol/clientInfo": {"name": "c", "version": "1"},
                "io.modelcontextprotocol/clientCapabilities": {}}});
        }
    }
    let body = json!({"jsonrpc": "2.0", "id": 1, "result": result}).to_string();
    Exchange::builder(
        200,
        Headers::new([("Content-Type", "application/json")]),
        body.into_bytes(),
    )
    .request(json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params}))
    .request_headers(Headers::new(headers.iter().map(|(k, v)| (*k, v.as_str()))))
    .build()
}

fn found<'t>(v: &Verdict<'t>) -> Vec<&'t str> {
    let mut ids: Vec<&str> = v.findings.iter().map(|f| f.rule.id.as_str()).collect();
    ids.dedup();
    ids
}

fn list_result(tools: Value) -> Value {
    json!({"resultType": "complete", "tools": tools, "ttlMs": 0, "cacheScope": "private",
           "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}})
}

#[test]
fn a_clean_tools_list_is_not_a_tool_call_and_has_no_findings() {
    let tools = json!([{"name": "get_weather", "inputSchema": {"type": "object"}}]);
    for p in [L, M] {
        let ex = exchange("tools/list", p, list_result(tools.clone()));
        let ps = [p];
        let j = judge_under(&ex, &ps);
        let v = &j.verdicts[0];
        assert_eq!(v.outcome, Outcome::NotAToolCall, "{p}");
        assert!(v.findings.is_empty(), "{p}: {:?}", found(v));
        // Never read as a tool result: no default isError, no CallToolResult rule.
        assert!(v.defaults.is_empty(), "{p}");
    }
}

#[test]
fn tools_list_findings_cite_their_rules() {
    let tools = json!([
        {"name": "get weather", "inputSchema": {"type": "object"}},
        {"name": "get weather", "inputSchema": {"$schema": "https://example.com/x", "type": "object"}},
        {"name": "x".repeat(129), "inputSchema": {"type": "object"},
         "outputSchema": {"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}}}
    ]);
    for p in [L, M] {
        let ex = exchange("tools/list", p, list_result(tools.clone()));
        let ps = [p];
        let j = judge_under(&ex, &ps);
        let v = &j.verdicts[0];
        assert_eq!(v.outcome, Outcome::NotAToolCall);
        let ids = found(v);
        for want in [
            "tools.list.name-characters",
            "tools.list.name-unique",
            "tools.list.name-length",
            "tools.list.input-schema.dialect",
            "tools.output-schema.ref",
        ] {
            assert!(ids.contains(&want), "{p}: {want} not in {ids:?}");
        }
        let unique = v
            .findings
            .iter()
            .find(|f| f.rule.id == "tools.list.name-unique")
            .unwrap();
        assert_eq!(unique.pointer, "/result/tools/1/name");
        assert!(unique.active.cite.url.ends_with("server/tools#tool-names"));
        assert!(
            v.findings
                .iter()
                .all(|f| !f.rule.id.starts_with("tools.result."))
        );
    }
}

#[test]
fn cache_hints_are_required_under_2026_07_28_only() {
    let result = json!({"resultType": "complete", "tools": []});
    let j = judge_under(&exchange("tools/list", M, result.clone()), &[M]);
    assert_eq!(
        found(&j.verdicts[0]),
        ["base.meta.server-info", "tools.list.cache-hints"]
    );
    let j = judge_under(&exchange("tools/list", L, result), &[L]);
    assert!(j.verdicts[0].findings.is_empty());
}

#[test]
fn discover_must_list_the_version_it_was_asked_under() {
    let result = |versions: Value| {
        json!({"resultType": "complete", "supportedVersions": versions, "capabilities": {},
               "ttlMs": 0, "cacheScope": "public",
               "_meta": {"io.modelcontextprotocol/serverInfo": {"name": "s", "version": "1"}}})
    };
    let ok = judge_under(
        &exchange("server/discover", M, result(json!(["2026-07-28"]))),
        &[M],
    );
    assert_eq!(ok.verdicts[0].outcome, Outcome::NotAToolCall);
    assert!(
        ok.verdicts[0].findings.is_empty(),
        "{:?}",
        found(&ok.verdicts[0])
    );
    let bad = judge_under(
        &exchange("server/discover", M, result(json!(["2025-11-25"]))),
        &[M],
    );
    assert_eq!(
        found(&bad.verdicts[0]),
        ["lifecycle.discover.requested-version"]
    );
    // A list that is not strings is a schema error only; the version rule cannot decide.
    let odd = judge_under(&exchange("server/discover", M, result(json!([5]))), &[M]);
    assert_eq!(found(&odd.verdicts[0]), ["lifecycle.discover.schema"]);
}

#[test]
fn initialize_is_judged_under_the_version_it_asks_for() {
    let ex = exchange(
        "initialize",
        L,
        json!({"protocolVersion": "2025-11-25", "capabilities": {}, "serverInfo": {"name": "s"}}),
    );
    // No header and no _meta: the revision comes from params.protocolVersion.
    assert_eq!(mcp_verdict::judge::revisions_of(&ex).unwrap(), [L]);
    let j = mcp_verdict::judge(&ex, &mcp_verdict::Options::default()).unwrap();
    let v = &j.verdicts[0];
    assert_eq!(v.outcome, Outcome::NotAToolCall);
    assert_eq!(found(v), ["lifecycle.initialize.schema"]);
    assert_eq!(v.findings[0].pointer, "/result/serverInfo/version");
}

#[test]
fn official_discovery_examples_draw_no_finding() {
    let Some(spec) = reference::dir(Reference::Spec) else {
        return;
    };
    let examples = spec.join("2026-07-28/schema/examples");
    let cases = [
        ("ListToolsResult", "tools/list", false),
        ("ListToolsResultResponse", "tools/list", true),
        ("DiscoverResult", "server/discover", false),
        ("DiscoverResultResponse", "server/discover", true),
    ];
    let mut judged = 0;
    for (dir, method, envelope) in cases {
        for entry in std::fs::read_dir(examples.join(dir)).unwrap() {
            let path = entry.unwrap().path();
            let value: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
            let result = if envelope {
                value["result"].clone()
            } else {
                value
            };
            let ex = exchange(method, M, result);
            let j = judge_under(&ex, &[M]);
            let v = &j.verdicts[0];
            assert_eq!(v.outcome, Outcome::NotAToolCall, "{}", path.display());
            // The examples leave out serverInfo, which results SHOULD carry.
            let ids: Vec<&str> = found(v)
                .into_iter()
                .filter(|id| *id != "base.meta.server-info")
                .collect();
            assert!(ids.is_empty(), "{}: {ids:?}", path.display());
            judged += 1;
        }
    }
    assert!(judged >= 4, "only {judged} examples");
}
