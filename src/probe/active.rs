//! `--active`: requests that exercise a server's error paths. Each check sends one request
//! with exactly one thing wrong, records the exchange and judges it with the engine under the
//! run's revision like any other, and compares the answer with what the rule table says the
//! server must answer (the rule's HTTP status and JSON-RPC error code). A check either passes,
//! citing its rule, or carries findings: the engine's (server rules only; what the probe got
//! wrong on purpose is no finding) and, when the engine has nothing to say about an answer
//! that still breaks the rule, one the probe states itself, citing that rule.
//!
//! Under **2026-07-28**, after the calls: an unsupported protocol version (`tools/list`
//! naming `2000-01-01` in the header and `_meta`), a header version contradicting `_meta`,
//! `_meta` without `clientCapabilities`, `initialize` (a method the revision does not have),
//! an `Mcp-Method` header naming another method, and an `Mcp-Name` header naming another tool
//! than the body, and an `Mcp-Param-*` header contradicting its argument (both sent only
//! against a tool the probe may call: `readOnlyHint: true`, or, with `--allow-side-effects`,
//! `destructiveHint: false`); and, when a call got an `input_required` result during the run,
//! its retry with the `requestState` altered and one whose `inputResponses` answer none of the
//! `inputRequests`. Under **2025-11-25**, in the session: a `tools/list` whose `MCP-Protocol-Version` header names a
//! version older than every MCP revision, one without the session id the server issued, and,
//! once the server has answered the probe's DELETE, one in the session it ended.
//!
//! What the probe knows and one exchange does not show is recorded with the exchange, so that
//! the engine judges it there (and again from a `--record` file): the session the server
//! issued and whether the probe's DELETE ended it (`session`), the `input_required` result a
//! retry answers and whether its `requestState` was altered (`retry`). The altered-state retry
//! tests no rule of the table: the spec binds only a server whose state "influences
//! authorization, resource access, or business logic", which no exchange shows, so a rejection
//! passes and a retry the server took is not judged; the check cites the spec sentence itself
//! ([`ActiveCheck::cite`]).
//!
//! A check that cannot apply is reported as skipped, with why; an answer the spec leaves open
//! (a dual-era server answering `initialize`, a transient 429 or 5xx) is reported as not
//! judged, never as a finding.

use serde::Serialize;
use serde_json::{Map, Value, json};

use super::http::{Outgoing, Received};
use super::runner::Runner;
use super::steps::post_step;
use crate::judge::{Engine, Judgement, Options, judge};
use crate::rules::Cite;
use crate::vocab::protocol::{code, header, meta};
use crate::vocab::{Actor, Level, Protocol, Severity};
use crate::wire::exchange::{Exchange, Headers, RecordedRequest, RecordedRetry, RecordedSession};

/// A protocol version no MCP server implements: it precedes the first revision (2024-11-05).
pub const BOGUS_VERSION: &str = "2000-01-01";

/// The check that sends back an altered `requestState` (2026-07-28).
const TAMPERED_STATE: &str = "tampered-state";

/// What `tampered-state` tests: 2026-07-28 basic/patterns/mrtr, Server Requirements. It is no
/// rule of the table: the sentence binds only a server whose state "influences authorization,
/// resource access, or business logic", which no exchange shows, so a server that takes an
/// altered state is not known to break it and only a rejection is judged (passed).
const STATE_VERIFIED: (&str, &str) = (
    "basic/patterns/mrtr#server-requirements-basic-workflow",
    "If requestState influences authorization, resource access, or business logic, servers MUST protect its integrity (e.g. HMAC or AEAD) and MUST reject state that fails verification.",
);

/// What a check expects: an HTTP status and, for 2026-07-28, a JSON-RPC error code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Expected {
    /// HTTP status.
    pub status: u16,
    /// JSON-RPC error code, when the rule names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<i64>,
}

impl std::fmt::Display for Expected {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.code {
            Some(c) => write!(f, "HTTP {} with error {c}", self.status),
            None => write!(f, "HTTP {}", self.status),
        }
    }
}

/// A finding of an active check: the rule it breaks under the run's revision, with the
/// rule's level, citation and what was found.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActiveFinding {
    /// Rule id.
    pub rule: String,
    /// The rule's level (MUST, SHOULD, ...).
    pub level: Level,
    /// How serious.
    pub severity: Severity,
    /// The spec page cited.
    pub url: String,
    /// The spec text cited.
    pub quote: String,
    /// What was found.
    pub message: String,
    /// Whether the engine found it in the exchange (`false`: the probe, which knows what it
    /// sent, states it).
    pub by_engine: bool,
}

/// How a check came out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "result", content = "reason")]
pub enum ActiveResult {
    /// The server answered as the rule says.
    Passed,
    /// The answer breaks a rule (see the findings).
    Findings,
    /// The answer is one the spec leaves open, or says nothing about this check.
    NotJudged(String),
    /// Not sent.
    Skipped(String),
}

/// One active check of a run.
#[derive(Debug, Clone)]
pub struct ActiveCheck {
    /// Short name (`unsupported-version`, `method-header`, ...).
    pub check: &'static str,
    /// What was sent.
    pub sent: String,
    /// The rule whose expectation the check tests; empty for a check that tests a spec
    /// sentence no rule encodes (see [`ActiveCheck::cite`]).
    pub rule: &'static str,
    /// What the rule says the server must answer.
    pub expected: Option<Expected>,
    /// What the server answered (`HTTP 400 with error -32022`), when it did.
    pub got: Option<String>,
    /// Whether the answer had the status and code the rule names (findings may still come
    /// of other rules, e.g. a malformed error object).
    pub as_expected: bool,
    /// How it came out.
    pub result: ActiveResult,
    /// Findings (engine's and the probe's).
    pub findings: Vec<ActiveFinding>,
    /// The exchange and its judgement, when a response arrived (recorded with `--record`).
    pub exchange: Option<(Exchange, Judgement<'static>)>,
}

impl ActiveCheck {
    fn skipped(check: &'static str, rule: &'static str, why: impl Into<String>) -> ActiveCheck {
        ActiveCheck {
            check,
            sent: String::new(),
            rule,
            expected: None,
            got: None,
            as_expected: false,
            result: ActiveResult::Skipped(why.into()),
            findings: Vec::new(),
            exchange: None,
        }
    }

    /// The spec sentence the check tests under `p`: its rule's citation, or, for a check that
    /// tests no rule of the table (`tampered-state`), the sentence itself.
    pub fn cite(&self, p: Protocol) -> Option<Cite> {
        if let Some(a) = Engine::builtin().table().active_rule(p, self.rule) {
            return Some(a.cite.clone());
        }
        let (page, quote) = match self.check {
            TAMPERED_STATE => STATE_VERIFIED,
            _ => return None,
        };
        let docs = &Engine::builtin().table().profile(p).docs;
        Some(Cite {
            url: format!("{docs}/{page}"),
            section: format!("{p} {page}"),
            quote: quote.to_string(),
        })
    }

    /// The rule the check tests, or, for a check that tests no rule, the section it cites.
    pub fn cited(&self, p: Protocol) -> String {
        if self.rule.is_empty() {
            self.cite(p).map(|c| c.section).unwrap_or_default()
        } else {
            self.rule.to_string()
        }
    }

    /// Whether a finding of error severity came of it (the exit status is then 1).
    pub fn has_error_finding(&self) -> bool {
        self.findings.iter().any(|f| f.severity == Severity::Error)
    }
}

/// A check not sent, and why.
struct Skip(&'static str, &'static str, String);

impl Skip {
    fn new(check: &'static str, rule: &'static str, why: impl Into<String>) -> Skip {
        Skip(check, rule, why.into())
    }
}

/// One request of a check: the body, the header changes, what it is.
struct Probe {
    check: &'static str,
    rule: &'static str,
    sent: String,
    body: Value,
    headers: Vec<(String, String)>,
    /// Answers the spec leaves open: a 2xx is not judged (dual-era `initialize`).
    lenient_2xx: Option<String>,
    /// Codes besides the expected one that also satisfy the spec here (with 400).
    also: Vec<i64>,
    /// Whether any answer but the expected one is left unjudged (dual-era `initialize`).
    strict: bool,
    /// How the answer is judged.
    kind: Kind,
    /// Whether the request is sent in the session the server ended (2025-11-25): recorded as
    /// `session.ended` with the exchange.
    ended: bool,
    /// The `input_required` result the request answers (2026-07-28), recorded as `retry`.
    retry: Option<RecordedRetry>,
}

/// The base of a check's request: judged against its rule's status and code, strictly, with
/// no other code accepted.
impl Default for Probe {
    fn default() -> Self {
        Self {
            check: "",
            rule: "",
            sent: String::new(),
            body: Value::Null,
            headers: Vec::new(),
            lenient_2xx: None,
            also: Vec::new(),
            strict: true,
            kind: Kind::Expect,
            ended: false,
            retry: None,
        }
    }
}

/// How a check's answer is judged.
enum Kind {
    /// Against the rule's status and code.
    Expect,
    /// Any rejection (a JSON-RPC error, a 4xx) passes; a served request is not judged, for
    /// the reason given.
    Rejection(String),
    /// As the engine judges the retry (its rule reads the exchange's `retry`): a new
    /// `input_required` result passes, a JSON-RPC error is a finding; anything else is not
    /// judged.
    AskAgain,
}

/// The expectation a rule states under `p`: its `status` and `code` parameters.
fn expected_of(p: Protocol, rule: &str) -> Option<Expected> {
    let a = Engine::builtin().table().active_rule(p, rule)?;
    Some(Expected {
        status: a.params.status?,
        code: a.params.code,
    })
}

/// A finding the probe states: the rule under `p` with its citation.
fn probe_finding(p: Protocol, rule: &str, message: String) -> Option<ActiveFinding> {
    let table = Engine::builtin().table();
    let a = table.active_rule(p, rule)?;
    let severity = a.severity.unwrap_or(match a.level {
        Level::Should | Level::ShouldNot | Level::May => Severity::Warning,
        _ => Severity::Error,
    });
    Some(ActiveFinding {
        rule: rule.to_string(),
        level: a.level,
        severity,
        url: a.cite.url.clone(),
        quote: a.cite.quote.clone(),
        message,
        by_engine: false,
    })
}

/// The JSON-RPC error code of a response, when it is an error (JSON body or SSE message).
fn error_code(r: &Received) -> Option<i64> {
    let msg = r
        .final_message
        .clone()
        .or_else(|| serde_json::from_slice::<Value>(&r.body).ok())?;
    msg.get("error")?.get("code")?.as_i64()
}

fn got_text(r: &Received) -> String {
    match error_code(r) {
        Some(c) => format!("HTTP {} with error {c}", r.status),
        None if (200..300).contains(&r.status) && r.final_message.is_some() => {
            match r
                .final_message
                .as_ref()
                .and_then(|m| m.pointer("/result/resultType"))
                .and_then(Value::as_str)
            {
                Some(t) => format!(
                    "HTTP {} with a result (resultType {})",
                    r.status,
                    crate::views::diag::sanitize(t)
                ),
                None => format!("HTTP {} with a result", r.status),
            }
        }
        None => format!("HTTP {} without a JSON-RPC error", r.status),
    }
}

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
    if super::plan::is_read_only(tool) {
        return true;
    }
    let destructive = tool
        .get("annotations")
        .and_then(|a| a.get("destructiveHint"))
        .and_then(Value::as_bool);
    allow_side_effects && destructive == Some(false)
}

impl Runner<'_> {
    /// Runs the active checks of this run's revision (after the calls).
    pub(super) fn active_checks(&mut self) {
        if !self.cfg.active || self.run.unreachable.is_some() {
            return;
        }
        let probes = match self.p {
            Protocol::V2026_07_28 => self.modern_probes(),
            Protocol::V2025_11_25 => self.legacy_probes(),
        };
        for probe in probes {
            let c = match probe {
                Ok(probe) => self.active_send(probe),
                Err(Skip(check, rule, why)) => ActiveCheck::skipped(check, rule, why),
            };
            self.run.active.push(c);
            if self.run.unreachable.is_some() {
                return;
            }
        }
    }

    fn modern_probes(&mut self) -> Vec<Result<Probe, Skip>> {
        let mut out = Vec::new();
        let list = |r: &mut Self, meta: Value| json!({"jsonrpc": "2.0", "id": r.id(), "method": "tools/list", "params": {"_meta": meta}});
        let set = |h: &mut Vec<(String, String)>, name: &str, value: &str| {
            for (n, v) in h.iter_mut() {
                if n.eq_ignore_ascii_case(name) {
                    *v = value.to_string();
                }
            }
        };

        // An unsupported version: header and _meta agree on a version no server implements.
        // 2026-07-28 basic/transports/streamable-http, Protocol Version Header: "If the server
        // does not implement the requested protocol version ... it MUST respond with 400 Bad
        // Request and an UnsupportedProtocolVersionError listing its supported versions."
        let mut m = self.meta();
        m[meta::PROTOCOL_VERSION] = json!(BOGUS_VERSION);
        let body = list(self, m);
        let mut h = self.headers("tools/list", None);
        set(&mut h, header::PROTOCOL_VERSION, BOGUS_VERSION);
        out.push(Ok(Probe {
            check: "unsupported-version",
            rule: "transport.http.400-unsupported-version",
            sent: format!(
                "tools/list with MCP-Protocol-Version and _meta protocolVersion {BOGUS_VERSION}"
            ),
            body,
            headers: h,
            ..Probe::default()
        }));

        // The header's version contradicts _meta: "If the values do not match, the server
        // MUST reject the request with 400 Bad Request and a HeaderMismatch JSON-RPC error".
        // The header names 2025-11-25; when the server does not support that version either,
        // an UnsupportedProtocolVersion answer is as right.
        let supported = self.supported_versions();
        let legacy = Protocol::V2025_11_25.as_str();
        let body = list(self, self.meta());
        let mut h = self.headers("tools/list", None);
        set(&mut h, header::PROTOCOL_VERSION, legacy);
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
            headers: h,
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
            headers: self.headers("tools/list", None),
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
            headers: self.headers("initialize", None),
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
        let mut h = self.headers("tools/list", None);
        set(&mut h, header::METHOD, "prompts/list");
        out.push(Ok(Probe {
            check: "method-header",
            rule: "transport.http.header-mismatch-rejected",
            sent: "tools/list with Mcp-Method: prompts/list".into(),
            body,
            headers: h,
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
            .partition(|t| super::plan::is_read_only(t));
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
                .or_else(|| super::plan::valid_arguments(t.get("inputSchema")))?;
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
            && let (Some(v), Some(o)) = (super::plan::sample_value(&prop), args.as_object_mut())
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
        let mut h = self.headers("tools/call", Some(&name));
        h.extend(
            super::headers::param_headers(tool.get("inputSchema"), Some(&args))
                .into_iter()
                .map(|(n, v)| {
                    if n.eq_ignore_ascii_case(&header_name) {
                        (n, super::headers::header_value(&other))
                    } else {
                        (n, v)
                    }
                }),
        );
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
            headers: h,
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
        let arguments = params.get("arguments").cloned();
        let tool_def = self
            .run
            .tools
            .iter()
            .find(|t| t.get("name").and_then(Value::as_str) == Some(name.as_str()))
            .cloned();
        let headers = |r: &Self| {
            let mut h = r.headers("tools/call", Some(&name));
            h.extend(super::headers::param_headers(
                tool_def.as_ref().and_then(|t| t.get("inputSchema")),
                arguments.as_ref(),
            ));
            h
        };
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
                    match super::answers::answer_for(&self.cfg.answers, key, method) {
                        Some(a) => {
                            responses.insert(
                                key.clone(),
                                super::answers::with_defaults(a, method, req.get("params")),
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
                        headers: headers(self),
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
                    headers: headers(self),
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
        let mut h = self.headers("tools/call", Some(&other));
        h.extend(super::headers::param_headers(
            tool.get("inputSchema"),
            Some(&args),
        ));
        Ok(Probe {
            check,
            rule,
            sent: format!(
                "tools/call {} with Mcp-Name: {}",
                crate::views::diag::sanitize(&name),
                crate::views::diag::sanitize(&other)
            ),
            body,
            headers: h,
            ..Probe::default()
        })
    }

    fn legacy_probes(&mut self) -> Vec<Result<Probe, Skip>> {
        let mut out = Vec::new();
        let check = "unsupported-version";
        let rule = "transport.http.400-unsupported-version-header";
        if self.negotiated.is_none() {
            out.push(Err(Skip::new(check, rule, "no session was set up")));
            return out;
        }
        let list = |r: &mut Self| json!({"jsonrpc": "2.0", "id": r.id(), "method": "tools/list"});
        // 2025-11-25 basic/transports, Protocol Version Header: "If the server receives a
        // request with an invalid or unsupported MCP-Protocol-Version, it MUST respond with
        // 400 Bad Request."
        let body = list(self);
        let mut h = self.headers("tools/list", None);
        for (n, v) in h.iter_mut() {
            if n.eq_ignore_ascii_case(header::PROTOCOL_VERSION) {
                *v = BOGUS_VERSION.to_string();
            }
        }
        out.push(Ok(Probe {
            check,
            rule,
            sent: format!("tools/list in the session with MCP-Protocol-Version {BOGUS_VERSION}"),
            body,
            headers: h,
            ..Probe::default()
        }));

        // basic/transports, Session Management: "Servers that require a session ID SHOULD
        // respond to requests without an MCP-Session-Id header (other than initialization)
        // with HTTP 400 Bad Request." A server that serves the request does not require one.
        let check = "missing-session";
        let rule = "transport.http.400-missing-session";
        if self.session.is_none() {
            out.push(Err(Skip::new(
                check,
                rule,
                "the server issued no session id",
            )));
            out.push(Err(Skip::new(
                "ended-session",
                "transport.http.404-ended-session",
                "the server issued no session id",
            )));
            return out;
        }
        let body = list(self);
        let h: Vec<(String, String)> = self
            .headers("tools/list", None)
            .into_iter()
            .filter(|(n, _)| !n.eq_ignore_ascii_case(header::SESSION_ID))
            .collect();
        out.push(Ok(Probe {
            check,
            rule,
            sent: "tools/list without the MCP-Session-Id the server issued".into(),
            body,
            headers: h,
            lenient_2xx: Some(
                "the server served the request without its session id, so it does not require one, which the spec allows".into(),
            ),
            ..Probe::default()
        }));
        out
    }

    /// The check run once the session is over (2025-11-25): a request in the session the
    /// server ended when it answered the probe's DELETE. basic/transports, Session Management:
    /// "The server MAY terminate the session at any time, after which it MUST respond to
    /// requests containing that session ID with HTTP 404 Not Found."
    pub(super) fn active_after_delete(&mut self) {
        if !self.cfg.active || self.run.unreachable.is_some() || self.session.is_none() {
            return;
        }
        let check = "ended-session";
        let rule = "transport.http.404-ended-session";
        let deleted = self
            .run
            .steps
            .iter()
            .rev()
            .find(|s| s.http_method == "DELETE")
            .map(|s| s.status);
        let c = match deleted {
            Some(Some(st)) if (200..300).contains(&st) => {
                let body = json!({"jsonrpc": "2.0", "id": self.id(), "method": "tools/list"});
                let headers = self.headers("tools/list", None);
                self.active_send(Probe {
                    check,
                    rule,
                    sent: format!(
                        "tools/list with the MCP-Session-Id of the session the server ended (DELETE answered {st})"
                    ),
                    body,
                    headers,
                    ended: true,
                    ..Probe::default()
                })
            }
            Some(Some(405)) => ActiveCheck::skipped(
                check,
                rule,
                "the server does not let clients end the session (DELETE answered 405)",
            ),
            Some(Some(st)) => ActiveCheck::skipped(
                check,
                rule,
                format!("the DELETE got HTTP {st}; no session is known to have ended"),
            ),
            _ => ActiveCheck::skipped(
                check,
                rule,
                "the DELETE got no response; no session is known to have ended",
            ),
        };
        self.run.active.push(c);
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

    /// Sends a check's request (once: no version retry, no resumption), judges the exchange
    /// and compares the answer with the rule's expectation.
    fn active_send(&mut self, probe: Probe) -> ActiveCheck {
        let expected = expected_of(self.p, probe.rule);
        let mut c = ActiveCheck {
            check: probe.check,
            sent: probe.sent.clone(),
            rule: probe.rule,
            expected,
            got: None,
            as_expected: false,
            result: ActiveResult::NotJudged(String::new()),
            findings: Vec::new(),
            exchange: None,
        };
        if expected.is_none() && matches!(probe.kind, Kind::Expect) {
            c.result = ActiveResult::Skipped(format!(
                "the rule table has no {} expectation for {}",
                probe.rule, self.p
            ));
            return c;
        }
        if self.t.remaining().is_zero() {
            c.result = ActiveResult::Skipped("the probe's deadline has passed".into());
            return c;
        }
        self.drain_listener();
        let bytes = serde_json::to_vec(&probe.body).expect("JSON serializes");
        let rpc_method = probe
            .body
            .get("method")
            .and_then(Value::as_str)
            .map(str::to_string);
        let tool = probe
            .body
            .pointer("/params/name")
            .and_then(Value::as_str)
            .map(str::to_string);
        let out = Outgoing {
            method: "POST",
            headers: &probe.headers,
            body: Some(&bytes),
            rpc_id: probe.body.get("id"),
            cancel: None,
            on_head: None,
        };
        let mut answered = Vec::new();
        let (res, extra) = self.fetch(&out, &mut answered);
        let mut step = post_step(&res, rpc_method, tool.as_deref());
        step.note = Some(match step.note.take() {
            Some(n) => format!("active check {}; {n}", probe.check),
            None => format!("active check {}", probe.check),
        });
        self.push_step(step);
        for s in extra {
            self.push_step(s);
        }
        let r = match res {
            Ok(r) => r,
            Err(e) => {
                if let super::http::SendError::Unreachable(why) = &e
                    && self.run.steps.len() == 1
                {
                    self.run.unreachable = Some(why.clone());
                }
                c.result = ActiveResult::NotJudged(format!("no response: {e}"));
                return c;
            }
        };
        let got = got_text(&r);
        c.got = Some(got.clone());
        let exchange = Exchange {
            name: Some(format!("probe {} active {}", self.p, probe.check)),
            request: RecordedRequest {
                method: Some("POST".into()),
                url: Some(self.url.to_string()),
                headers: Headers::new(probe.headers.iter().map(|(n, v)| (n.as_str(), v.as_str()))),
                body: Some(probe.body.clone()),
            },
            status: r.status,
            response_headers: r.headers.clone(),
            body: r.body.clone(),
            end: r.end,
            tool: None,
            initialize: self.negotiated.clone(),
            // What the probe knows and one exchange does not show: the session the server
            // issued (and whether it ended), the result a retry answers.
            session: self.session.clone().map(|id| RecordedSession {
                id,
                ended: probe.ended,
            }),
            retry: probe.retry.clone(),
            protocol: Some(vec![self.p]),
        };
        let judgement = judge(
            &exchange,
            &Options {
                protocols: Some(match self.p {
                    Protocol::V2025_11_25 => &[Protocol::V2025_11_25],
                    Protocol::V2026_07_28 => &[Protocol::V2026_07_28],
                }),
                ..Options::default()
            },
        )
        .expect("the revision is given explicitly");
        // The engine's findings on the server (the probe's own deliberate fault in the request
        // is what `request.*` rules report; those are no findings here).
        for f in &judgement.verdicts[0].findings {
            if f.rule.actor != Actor::Server || f.severity == Severity::Info {
                continue;
            }
            c.findings.push(ActiveFinding {
                rule: f.rule.id.clone(),
                level: f.active.level,
                severity: f.severity,
                url: f.active.cite.url.clone(),
                quote: f.active.cite.quote.clone(),
                message: crate::views::diag::sanitize(&f.message),
                by_engine: true,
            });
        }
        // The check's own rule first (as the probe listed its own finding first).
        c.findings.sort_by_key(|f| f.rule != probe.rule);
        let mut exchange = exchange;
        super::call::redact_headers(&mut exchange);
        c.exchange = Some((exchange, judgement));

        let code = error_code(&r);
        let transient = matches!(r.status, 408 | 429 | 502 | 503 | 504)
            || r.final_message.is_none() && r.end != crate::wire::exchange::BodyEnd::Complete;
        if transient {
            c.result = ActiveResult::NotJudged(format!(
                "{got}: a transient answer, which says nothing about this check"
            ));
            return self.conclude(c);
        }
        let result_type = r
            .final_message
            .as_ref()
            .and_then(|m| m.pointer("/result/resultType"))
            .and_then(Value::as_str);
        match &probe.kind {
            Kind::Expect => {}
            Kind::Rejection(why) => {
                let rejected = code.is_some() || (400..500).contains(&r.status);
                if !rejected && c.findings.is_empty() {
                    c.result = ActiveResult::NotJudged(format!("{got}: {why}"));
                }
                return self.conclude(c);
            }
            Kind::AskAgain => {
                // The engine judged the retry (the exchange records what it answers): an error
                // is its finding; a final result is not judged.
                if result_type != Some("input_required") && c.findings.is_empty() {
                    c.result = ActiveResult::NotJudged(
                        if code.is_none() && (200..300).contains(&r.status) {
                            format!(
                                "{got}: the server did without the input it had asked for, so it was not necessary"
                            )
                        } else {
                            format!(
                                "{got}: neither a JSON-RPC error nor a new input_required result"
                            )
                        },
                    );
                }
                return self.conclude(c);
            }
        }
        let Some(expected) = expected else {
            return self.conclude(c);
        };
        let status_ok = r.status == expected.status;
        let code_ok = match expected.code {
            None => true,
            Some(want) => code == Some(want) || code.is_some_and(|g| probe.also.contains(&g)),
        };
        if status_ok && code_ok {
            // Right answer; engine findings (a malformed error object) still count.
            c.as_expected = true;
        } else if (200..300).contains(&r.status) && code.is_none() && probe.lenient_2xx.is_some() {
            c.result = ActiveResult::NotJudged(format!(
                "{got}: {}",
                probe.lenient_2xx.unwrap_or_default()
            ));
            return self.conclude(c);
        } else if !probe.strict {
            if c.findings.is_empty() {
                c.result = ActiveResult::NotJudged(format!(
                    "{got}: {}",
                    probe.lenient_2xx.unwrap_or_default()
                ));
            }
            return self.conclude(c);
        } else if !c.findings.iter().any(|f| f.rule == probe.rule) {
            let message = format!(
                "{}: expected {expected}{}, got {got}",
                probe.sent,
                if probe.also.is_empty() {
                    String::new()
                } else {
                    format!(
                        " (or error {})",
                        probe
                            .also
                            .iter()
                            .map(i64::to_string)
                            .collect::<Vec<_>>()
                            .join(", ")
                    )
                }
            );
            if let Some(f) = probe_finding(self.p, probe.rule, message) {
                c.findings.insert(0, f);
            }
        }
        self.conclude(c)
    }

    fn conclude(&self, mut c: ActiveCheck) -> ActiveCheck {
        if !c.findings.is_empty() {
            c.result = ActiveResult::Findings;
        } else if matches!(&c.result, ActiveResult::NotJudged(w) if w.is_empty()) {
            c.result = ActiveResult::Passed;
        }
        c
    }
}
