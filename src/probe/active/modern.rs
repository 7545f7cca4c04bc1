//! The active checks of a 2026-07-28 run: an unsupported version, a header version that
//! contradicts `_meta`, `_meta` without `clientCapabilities`, `initialize`, header fields that
//! name another method, tool or argument than the body, and the retries of an
//! `input_required` result (see the parent module).

use serde_json::{Map, Value, json};

use super::{BOGUS_VERSION, Kind, Probe, Skip, TAMPERED_STATE};
use crate::probe::runner::Runner;
use crate::probe::transport::MetaEdit;
use crate::vocab::Protocol;
use crate::vocab::protocol::{code, header, meta};
use crate::wire::exchange::RecordedRetry;

/// `state` with one character changed (the middle one, to another letter or digit).
fn alter(state: &str) -> String {
    let mut chars: Vec<char> = state.chars().collect();
    let i = chars.len() / 2;
    chars[i] = match chars[i] {
        'A' => 'B',
        '0' => '1',
        _ => 'A',
    };
    chars.into_iter().collect()
}

/// Whether a tool may be called by a check: read-only, or, with `--allow-side-effects`,
/// marked `destructiveHint: false` (2026-07-28 server/tools, ToolAnnotations: destructiveHint
/// defaults to true, so a tool that does not say otherwise may be destructive).
fn callable(tool: &Value, allow_side_effects: bool) -> bool {
    if crate::probe::plan::is_read_only(tool) {
        return true;
    }
    let destructive = tool
        .get("annotations")
        .and_then(|a| a.get("destructiveHint"))
        .and_then(Value::as_bool);
    allow_side_effects && destructive == Some(false)
}

impl Runner<'_> {
    pub(super) fn modern_probes(&mut self) -> Vec<Result<Probe, Skip>> {
        let mut out = Vec::new();
        let list = |r: &mut Self, meta: Value| json!({"jsonrpc": "2.0", "id": r.id(), "method": "tools/list", "params": {"_meta": meta}});
        let set = |name: &str, value: &str| vec![MetaEdit::Set(name.into(), value.into())];

        // An unsupported version: header and _meta agree on a version no server implements.
        // 2026-07-28 basic/transports/streamable-http, Protocol Version Header: "If the server
        // does not implement the requested protocol version ... it MUST respond with 400 Bad
        // Request and an UnsupportedProtocolVersionError listing its supported versions."
        let mut m = self.meta();
        m[meta::PROTOCOL_VERSION] = json!(BOGUS_VERSION);
        let body = list(self, m);
        let edits = set(header::PROTOCOL_VERSION, BOGUS_VERSION);
        out.push(Ok(Probe {
            check: "unsupported-version",
            rule: "transport.http.400-unsupported-version",
            sent: format!(
                "tools/list with MCP-Protocol-Version and _meta protocolVersion {BOGUS_VERSION}"
            ),
            body,
            edits,
            ..Probe::default()
        }));

        // The header's version contradicts _meta: "If the values do not match, the server
        // MUST reject the request with 400 Bad Request and a HeaderMismatch JSON-RPC error".
        // The header names 2025-11-25; when the server does not support that version either,
        // an UnsupportedProtocolVersion answer is as right.
        let supported = self.supported_versions();
        let legacy = Protocol::V2025_11_25.as_str();
        let body = list(self, self.meta());
        let edits = set(header::PROTOCOL_VERSION, legacy);
        let also = if supported.iter().any(|v| v == legacy) {
            Vec::new()
        } else {
            vec![code::UNSUPPORTED_PROTOCOL_VERSION]
        };
        out.push(Ok(Probe {
            check: "version-header-mismatch",
            rule: "transport.http.header-mismatch-rejected",
            sent: format!(
                "tools/list with MCP-Protocol-Version {legacy} and _meta protocolVersion {}",
                Protocol::V2026_07_28
            ),
            body,
            edits,
            also,
            ..Probe::default()
        }));

        // Required _meta missing: 2026-07-28 basic, _meta: "A request missing any required
        // field is malformed; the server MUST reject it with JSON-RPC error code -32602".
        // Only clientCapabilities is left out, so that the headers still match the body.
        let mut m = self.meta();
        if let Some(o) = m.as_object_mut() {
            o.remove(meta::CLIENT_CAPABILITIES);
        }
        let body = list(self, m);
        out.push(Ok(Probe {
            check: "missing-meta",
            rule: "transport.http.400-missing-meta",
            sent: format!("tools/list whose _meta lacks {}", meta::CLIENT_CAPABILITIES),
            body,
            ..Probe::default()
        }));

        // initialize, which 2026-07-28 does not have: "If the server does not implement the
        // requested RPC method, it MUST respond with 404 Not Found and a JSON-RPC error with
        // code -32601". A dual-era server may let initialize select legacy semantics
        // (basic/versioning: "An initialize request selects legacy semantics"), so only a
        // modern-only server's answer is held to that.
        let dual = supported.iter().any(|v| {
            crate::vocab::protocol::INITIALIZE_ERA_VERSIONS.contains(&v.as_str())
                || v.as_str() < Protocol::V2026_07_28.as_str()
        });
        let body = json!({"jsonrpc": "2.0", "id": self.id(), "method": "initialize",
                          "params": {"_meta": self.meta()}});
        out.push(Ok(Probe {
            check: "initialize",
            rule: "transport.http.404-method-not-found",
            sent: "initialize with 2026-07-28 headers and _meta".into(),
            body,
            lenient_2xx: Some(if dual {
                format!(
                    "the server also supports {} (supportedVersions {supported:?}); a dual-era server may answer initialize under legacy semantics",
                    supported
                        .iter()
                        .filter(|v| v.as_str() < Protocol::V2026_07_28.as_str())
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            } else {
                "the server implements initialize after all (basic/versioning lets a server that also serves legacy clients answer it under legacy semantics, whatever its supportedVersions say)".into()
            }),
            strict: !dual,
            ..Probe::default()
        }));

        // Mcp-Method naming another method than the body: "Servers that process the request
        // body MUST reject requests where the values specified in the headers do not match
        // the corresponding values in the request body." The body is a tools/list, which a
        // server that wrongly accepts runs without side effects.
        let body = list(self, self.meta());
        let edits = set(header::METHOD, "prompts/list");
        out.push(Ok(Probe {
            check: "method-header",
            rule: "transport.http.header-mismatch-rejected",
            sent: "tools/list with Mcp-Method: prompts/list".into(),
            body,
            edits,
            ..Probe::default()
        }));

        // Mcp-Name naming another tool than the body: sent only for a tool the probe may call,
        // since a server that wrongly accepts runs the body's tool.
        out.push(self.name_header_probe());
        out.push(self.param_header_probe());
        out.extend(self.mrtr_probes());
        out
    }

    /// A listed tool the probe may call (and has not rejected) that `pick` accepts, with
    /// arguments: those given with `--tool`, else made up from the `inputSchema`.
    fn callable_tool(&self, pick: impl Fn(&Value) -> bool) -> Option<(String, Value, Value)> {
        // Read-only tools first.
        let (ro, rest): (Vec<&Value>, Vec<&Value>) = self
            .run
            .tools
            .iter()
            .filter(|t| callable(t, self.cfg.allow_side_effects) && pick(t))
            .partition(|t| crate::probe::plan::is_read_only(t));
        ro.into_iter().chain(rest).find_map(|t| {
            let name = t.get("name").and_then(Value::as_str)?;
            if self.run.rejected_tools.iter().any(|(r, _)| r == name) {
                return None;
            }
            let args = self
                .cfg
                .calls
                .iter()
                .find(|c| c.name == name)
                .map(|c| c.arguments.clone().unwrap_or_else(|| json!({})))
                .or_else(|| crate::probe::plan::valid_arguments(t.get("inputSchema")))?;
            Some((name.to_string(), args, t.clone()))
        })
    }

    fn no_callable_tool(&self, what: &str) -> String {
        if self.cfg.allow_side_effects {
            format!(
                "no listed tool{what} marked readOnlyHint: true or destructiveHint: false whose arguments the probe can fill in"
            )
        } else {
            format!(
                "no listed tool{what} marked readOnlyHint: true whose arguments the probe can fill in (--allow-side-effects also allows tools marked destructiveHint: false)"
            )
        }
    }

    /// An `Mcp-Param-{Name}` header whose value differs from the argument it mirrors, for a
    /// tool that declares `x-mcp-header` on a top-level property. 2026-07-28
    /// basic/transports/streamable-http, Server Behavior for Custom Headers: "Servers MUST
    /// reject requests with a 400 Bad Request HTTP status and JSON-RPC error code -32020
    /// (HeaderMismatch) if any validation fails."
    fn param_header_probe(&mut self) -> Result<Probe, Skip> {
        let check = "param-header";
        let rule = "transport.http.400-header-mismatch";
        let annotated = |t: &Value| -> Option<(String, String, Value)> {
            let props = t.pointer("/inputSchema/properties")?.as_object()?;
            props.iter().find_map(|(k, p)| {
                let h = p.get("x-mcp-header")?.as_str()?;
                Some((k.clone(), h.to_string(), p.clone()))
            })
        };
        let Some((name, mut args, tool)) = self.callable_tool(|t| annotated(t).is_some()) else {
            let any = self.run.tools.iter().any(|t| annotated(t).is_some());
            return Err(Skip::new(
                check,
                rule,
                if any {
                    self.no_callable_tool(" declaring x-mcp-header")
                } else {
                    "no listed tool declares x-mcp-header on a top-level property".into()
                },
            ));
        };
        let (key, suffix, prop) = annotated(&tool).expect("picked for it");
        if args.get(&key).is_none_or(Value::is_null)
            && let (Some(v), Some(o)) = (
                crate::probe::plan::sample_value(&prop),
                args.as_object_mut(),
            )
        {
            o.insert(key.clone(), v);
        }
        let other = match args.get(&key) {
            Some(Value::String(s)) => format!("{s}-mismatch"),
            Some(Value::Bool(b)) => (!b).to_string(),
            Some(Value::Number(n)) => match n.as_i64() {
                Some(i) => i.wrapping_add(1).to_string(),
                None => format!("{}", n.as_f64().unwrap_or(0.0) + 1.0),
            },
            _ => {
                return Err(Skip::new(
                    check,
                    rule,
                    format!(
                        "no value for the annotated property `{}` of {}",
                        crate::views::diag::sanitize(&key),
                        crate::views::diag::sanitize(&name)
                    ),
                ));
            }
        };
        let header_name = format!("{}{suffix}", header::PARAM_PREFIX);
        let edits = vec![MetaEdit::Set(header_name.clone(), other.clone())];
        let body = json!({"jsonrpc": "2.0", "id": self.id(), "method": "tools/call",
                          "params": {"name": name, "arguments": args, "_meta": self.meta()}});
        Ok(Probe {
            check,
            rule,
            sent: format!(
                "tools/call {} with {header_name}: {} while the argument `{}` says otherwise",
                crate::views::diag::sanitize(&name),
                crate::views::diag::sanitize(&other),
                crate::views::diag::sanitize(&key)
            ),
            body,
            tool: Some(tool),
            edits,
            ..Probe::default()
        })
    }

    /// The retries of an `input_required` result a call got during the run (never made-up
    /// state): one with the `requestState` altered, one whose `inputResponses` answer none of
    /// the `inputRequests`. Only for a tool the probe may call, since an accepted retry runs
    /// it.
    fn mrtr_probes(&mut self) -> Vec<Result<Probe, Skip>> {
        let tampered = (TAMPERED_STATE, "");
        let unmatched = (
            "unmatched-input-responses",
            "mrtr.missing-input-asked-again",
        );
        let skip_both = |why: String| {
            vec![
                Err(Skip::new(tampered.0, tampered.1, why.clone())),
                Err(Skip::new(unmatched.0, unmatched.1, why)),
            ]
        };
        let allow = self.cfg.allow_side_effects;
        let found = self.run.exchanges.iter().find_map(|x| {
            if x.verdict().outcome != crate::vocab::Outcome::InputRequired {
                return None;
            }
            let tool =
                self.run.tools.iter().find(|t| {
                    t.get("name").and_then(Value::as_str) == Some(x.call.name.as_str())
                })?;
            if !callable(tool, allow) {
                return None;
            }
            let an = crate::wire::analysis::Analysis::new(&x.exchange);
            let result = an.message_value()?.get("result")?.clone();
            let params = x.exchange.request.body.as_ref()?.get("params")?.clone();
            Some((x.call.name.clone(), params, result))
        });
        let Some((name, params, result)) = found else {
            let any = self
                .run
                .exchanges
                .iter()
                .any(|x| x.verdict().outcome == crate::vocab::Outcome::InputRequired);
            return skip_both(if any {
                self.no_callable_tool(" that answered input_required")
                    .replace(
                        "whose arguments the probe can fill in",
                        "(an accepted retry runs it)",
                    )
            } else {
                "no call got an input_required result during the run (name one with --tool)".into()
            });
        };
        let requests = result.get("inputRequests").and_then(Value::as_object);
        let state = result.get("requestState").cloned();
        let retry = |r: &mut Self, extra: Map<String, Value>| {
            let mut p = params.as_object().cloned().unwrap_or_default();
            p.remove("inputResponses");
            p.remove("requestState");
            p.insert("_meta".into(), r.meta());
            p.extend(extra);
            json!({"jsonrpc": "2.0", "id": r.id(), "method": "tools/call", "params": p})
        };
        let tool_def = self
            .run
            .tools
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(name.as_str()))
            .cloned();
        let shown = crate::views::diag::sanitize(&name);
        let mut out = Vec::new();

        // 2026-07-28 basic/patterns/mrtr, Server Requirements: "servers MUST treat
        // requestState as an attacker-controlled input. If requestState influences
        // authorization, resource access, or business logic, servers MUST protect its
        // integrity ... and MUST reject state that fails verification." Whether it does
        // cannot be seen from outside, so a served retry is not judged.
        match (&state, requests) {
            (Some(Value::String(st)), reqs) if !st.is_empty() => {
                let mut responses = Map::new();
                let mut missing = false;
                for (key, req) in reqs.into_iter().flatten() {
                    let method = req.get("method").and_then(Value::as_str);
                    match crate::probe::answers::answer_for(&self.cfg.answers, key, method) {
                        Some(a) => {
                            responses.insert(
                                key.clone(),
                                crate::probe::answers::with_defaults(a, method, req.get("params")),
                            );
                        }
                        None => missing = true,
                    }
                }
                if missing {
                    out.push(Err(Skip::new(
                        tampered.0,
                        tampered.1,
                        "--answers does not answer every input request, so a retry would differ in more than the state",
                    )));
                } else {
                    let mut extra = Map::new();
                    if reqs.is_some() {
                        extra.insert("inputResponses".into(), Value::Object(responses));
                    }
                    extra.insert("requestState".into(), json!(alter(st)));
                    let body = retry(self, extra);
                    out.push(Ok(Probe {
                        check: tampered.0,
                        rule: tampered.1,
                        sent: format!("the retry of tools/call {shown} with its requestState altered"),
                        body,
                        tool: tool_def.clone(),
                        kind: Kind::Rejection(
                            "the server took the altered requestState; integrity protection is required only where the state influences authorization, resource access or business logic, which cannot be seen from outside".into(),
                        ),
                        retry: Some(RecordedRetry {
                            input_requests: reqs.cloned(),
                            request_state_altered: true,
                        }),
                        ..Probe::default()
                    }));
                }
            }
            _ => out.push(Err(Skip::new(
                tampered.0,
                tampered.1,
                "the input_required result carries no requestState",
            ))),
        }

        // Error Handling: "If the client fails to send all the information requested in a
        // previous InputRequests, and the missing information is necessary for the server to
        // process the request, the server SHOULD respond with a new InputRequiredResult
        // requesting the missing information again, rather than returning an error."
        match requests {
            Some(reqs) if !reqs.is_empty() => {
                let mut key = "mcp_verdict_probe_unrequested".to_string();
                while reqs.contains_key(&key) {
                    key.push('_');
                }
                let mut extra = Map::new();
                extra.insert(
                    "inputResponses".into(),
                    json!({ key: {"action": "cancel"} }),
                );
                if let Some(st) = &state {
                    extra.insert("requestState".into(), st.clone());
                }
                let body = retry(self, extra);
                out.push(Ok(Probe {
                    check: unmatched.0,
                    rule: unmatched.1,
                    sent: format!(
                        "the retry of tools/call {shown} with its requestState and inputResponses answering none of its inputRequests"
                    ),
                    body,
                    tool: tool_def.clone(),
                    kind: Kind::AskAgain,
                    retry: Some(RecordedRetry {
                        input_requests: Some(reqs.clone()),
                        request_state_altered: false,
                    }),
                    ..Probe::default()
                }));
            }
            _ => out.push(Err(Skip::new(
                unmatched.0,
                unmatched.1,
                "the input_required result carries no inputRequests",
            ))),
        }
        out
    }

    fn name_header_probe(&mut self) -> Result<Probe, Skip> {
        let check = "name-header";
        let rule = "transport.http.header-mismatch-rejected";
        let Some((name, args, tool)) = self.callable_tool(|_| true) else {
            return Err(Skip::new(check, rule, self.no_callable_tool("")));
        };
        let names: Vec<&str> = self
            .run
            .tools
            .iter()
            .filter_map(|t| t.get("name").and_then(Value::as_str))
            .collect();
        let mut other = format!("{name}_mismatch");
        while names.contains(&other.as_str()) {
            other.push('_');
        }
        let body = json!({"jsonrpc": "2.0", "id": self.id(), "method": "tools/call",
                          "params": {"name": name, "arguments": args, "_meta": self.meta()}});
        let edits = vec![MetaEdit::Set(header::NAME.into(), other.clone())];
        Ok(Probe {
            check,
            rule,
            sent: format!(
                "tools/call {} with Mcp-Name: {}",
                crate::views::diag::sanitize(&name),
                crate::views::diag::sanitize(&other)
            ),
            body,
            tool: Some(tool),
            edits,
            ..Probe::default()
        })
    }

    /// `supportedVersions` of the server/discover result, when there was one.
    fn supported_versions(&self) -> Vec<String> {
        self.run
            .server
            .as_ref()
            .and_then(|s| s.get("supportedVersions"))
            .and_then(Value::as_array)
            .map(|v| {
                v.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    }
}
