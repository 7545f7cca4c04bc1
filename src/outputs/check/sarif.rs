//! `--format sarif`: SARIF 2.1.0, for code-scanning uploads.
//!
//! One `run` per revision judged (`automationDetails.id` = `mcp-verdict/<revision>/`), whose
//! `tool.driver.rules` hold one `reportingDescriptor` per rule active under that revision
//! (`helpUri` = the rule's spec URL for the revision; `shortDescription` = title,
//! `fullDescription` = what it checks; `help` = the cited sentence), then three descriptors of
//! the tool itself: `mcp-verdict/expectation` (an expectation not met),
//! `mcp-verdict/invalid-file` (a file not judged) and `mcp-verdict/stale-baseline`.
//!
//! Results: every finding (level from its severity), located in the exchange file
//! (`artifactLocation.uri` = the file's path; `region` = where the finding's JSON pointer lands
//! inside `response.body` / `body_json`, else the `response` member), with `properties`
//! `protocol`, `outcome`, `pointer`, `path`; findings the fixture expects are suppressed
//! (`inSource`), findings listed in the baseline too (`external`). Then one result per
//! expectation failure, per file not judged, and per stale baseline entry.

use serde_json::{Map, Value, json};

use crate::run::check::{CheckRun, FailureKind, Location, RevisionResult};
use crate::vocab::Protocol;
use crate::vocab::Severity;

/// SARIF version.
pub const VERSION: &str = "2.1.0";
/// The schema URI written into the log.
pub const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";

const EXPECTATION: &str = "mcp-verdict/expectation";
const INVALID: &str = "mcp-verdict/invalid-file";
const STALE: &str = "mcp-verdict/stale-baseline";

/// Percent-encodes a relative path for `artifactLocation.uri`.
pub fn path_uri(path: &str) -> String {
    let mut out = String::new();
    for b in path.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

fn location(file: &str, at: Option<Location>) -> Value {
    let mut phys = json!({ "artifactLocation": { "uri": path_uri(file) } });
    if let Some(l) = at {
        phys["region"] = json!({ "startLine": l.line, "startColumn": l.column });
    }
    json!([{ "physicalLocation": phys }])
}

fn tool_descriptors() -> Vec<Value> {
    vec![
        json!({
            "id": EXPECTATION,
            "name": "ExpectationNotMet",
            "shortDescription": { "text": "The verdict does not match the exchange file's expectation" },
            "fullDescription": { "text": "The exchange file's `expect` entry for the revision names an outcome, rules that must be cited or found, and rules that must not be found; the verdict differs." },
            "defaultConfiguration": { "level": "error" }
        }),
        json!({
            "id": INVALID,
            "name": "InvalidExchangeFile",
            "shortDescription": { "text": "The file could not be read or is not a valid exchange file" },
            "fullDescription": { "text": "The file is unreadable, not valid JSON, not a valid exchange file, names an unknown expectation key or rule id, or no protocol revision can be chosen for it." },
            "defaultConfiguration": { "level": "error" }
        }),
        json!({
            "id": STALE,
            "name": "StaleBaselineEntry",
            "shortDescription": { "text": "A baseline entry lists a failure that no longer occurs" },
            "fullDescription": { "text": "Remove the entry from the baseline so that the failure, should it return, fails the run." },
            "defaultConfiguration": { "level": "error" }
        }),
    ]
}

/// An expectation failure is located at the file's `expect` entry it was judged against.
fn expectation_location(file: &str, r: &RevisionResult) -> Value {
    location(file, r.expected_at)
}

/// Renders the run.
pub fn render(run: &CheckRun) -> String {
    let mut revisions: Vec<Option<Protocol>> = run.revisions().into_iter().map(Some).collect();
    if revisions.is_empty() {
        revisions.push(None);
    }
    let mut runs = Vec::new();
    for (ri, p) in revisions.iter().enumerate() {
        let conf = p.and_then(|p| run.conformance.iter().find(|c| c.protocol == p));
        let mut rules: Vec<Value> = conf
            .map(|c| {
                let mut rs: Vec<&crate::run::check::RuleConformance> = c.rules.iter().collect();
                rs.sort_by(|a, b| a.rule.cmp(&b.rule));
                rs.iter()
                    .map(|r| {
                        let mut d = json!({
                            "id": r.rule,
                            "name": r.rule,
                            "shortDescription": { "text": r.title },
                            "fullDescription": { "text": r.summary },
                            "help": { "text": format!("{} ({}): \u{201c}{}\u{201d} {}", r.section, r.level, r.quote, r.url) },
                            "helpUri": r.url,
                            "properties": {
                                "level": r.level.as_ref(),
                                "layer": r.layer.as_ref(),
                                "effect": r.effect,
                            }
                        });
                        if let Some(s) = r.severity {
                            d["defaultConfiguration"] = json!({ "level": level(s) });
                        }
                        d
                    })
                    .collect()
            })
            .unwrap_or_default();
        rules.extend(tool_descriptors());
        let index = |id: &str| rules.iter().position(|d| d["id"] == id);
        let mut results = Vec::new();
        if let Some(p) = p {
            for (f, r) in run.results().filter(|(_, r)| r.protocol == *p) {
                for x in &r.findings {
                    let fd = &x.finding;
                    let mut res = json!({
                        "ruleId": fd.rule,
                        "level": level(fd.severity),
                        "message": { "text": format!("{}: {}", fd.path, fd.message) },
                        "locations": location(&f.file, x.location),
                        "properties": {
                            "protocol": p.as_str(),
                            "outcome": r.outcome.as_str(),
                            "pointer": fd.pointer,
                            "path": fd.path,
                            "status": r.status,
                        }
                    });
                    if let Some(i) = index(&fd.rule) {
                        res["ruleIndex"] = json!(i);
                    }
                    if let Some(e) = fd.event {
                        res["properties"]["event"] = json!(e);
                    }
                    let baselined = r
                        .failures
                        .iter()
                        .any(|y| y.baselined && y.rule.as_deref() == Some(fd.rule.as_str()));
                    if x.expected {
                        res["suppressions"] = json!([{ "kind": "inSource", "justification": "the exchange file expects this rule (expect.rules)" }]);
                    } else if baselined {
                        res["suppressions"] = json!([{ "kind": "external", "justification": "listed in the baseline" }]);
                    }
                    results.push(res);
                }
                for x in r.failures.iter().filter(|x| x.kind != FailureKind::Finding) {
                    let text = match x.kind {
                        FailureKind::Outcome => {
                            let expected = r
                                .expected
                                .as_ref()
                                .map(|e| e.outcome.to_string())
                                .unwrap_or_default();
                            format!("expected outcome {expected}, got {}", r.outcome)
                        }
                        FailureKind::Missing => format!(
                            "expected rule {} to be cited or found; it is not",
                            x.rule.as_deref().unwrap_or_default()
                        ),
                        FailureKind::Unexpected => format!(
                            "rule {} is listed in absent but found",
                            x.rule.as_deref().unwrap_or_default()
                        ),
                        FailureKind::Unlisted => format!(
                            "rule {} is found but not listed in rules",
                            x.rule.as_deref().unwrap_or_default()
                        ),
                        FailureKind::Finding => unreachable!(),
                    };
                    let mut res = json!({
                        "ruleId": EXPECTATION,
                        "ruleIndex": index(EXPECTATION),
                        "level": "error",
                        "message": { "text": format!("{p}: {text}") },
                        "locations": expectation_location(&f.file, r),
                        "properties": {
                            "protocol": p.as_str(),
                            "outcome": r.outcome.as_str(),
                            "pointer": "",
                            "status": r.status,
                        }
                    });
                    if let Some(rule) = &x.rule {
                        res["properties"]["rule"] = json!(rule);
                    }
                    if x.baselined {
                        res["suppressions"] = json!([{ "kind": "external", "justification": "listed in the baseline" }]);
                    }
                    results.push(res);
                }
            }
            for e in run.stale.iter().filter(|e| e.protocol == *p) {
                let what = e
                    .rule
                    .clone()
                    .map(|r| format!("rule {r}"))
                    .or(e.outcome.map(|o| format!("outcome {o}")))
                    .unwrap_or_default();
                results.push(json!({
                    "ruleId": STALE,
                    "ruleIndex": index(STALE),
                    "level": "error",
                    "message": { "text": format!("stale baseline entry: {what} no longer fails under {p}; remove the entry") },
                    "locations": location(&e.file, None),
                    "properties": { "protocol": p.as_str() }
                }));
            }
        }
        if ri == 0 {
            for (f, e) in run.input_errors() {
                let at = e.line.map(|l| Location {
                    line: l,
                    column: e.column.unwrap_or(1),
                });
                results.push(json!({
                    "ruleId": INVALID,
                    "ruleIndex": index(INVALID),
                    "level": "error",
                    "message": { "text": e.message },
                    "locations": location(&f.file, at),
                    "properties": { "kind": e.kind }
                }));
            }
        }
        let category = match p {
            Some(p) => format!("mcp-verdict/{p}/"),
            None => "mcp-verdict/".to_string(),
        };
        let mut run_obj = Map::new();
        run_obj.insert(
            "tool".into(),
            json!({ "driver": {
                "name": env!("CARGO_PKG_NAME"),
                "version": env!("CARGO_PKG_VERSION"),
                "semanticVersion": env!("CARGO_PKG_VERSION"),
                "rules": rules,
            }}),
        );
        run_obj.insert("automationDetails".into(), json!({ "id": category }));
        run_obj.insert("columnKind".into(), json!("unicodeCodePoints"));
        run_obj.insert("results".into(), Value::Array(results));
        if let Some(p) = p {
            run_obj.insert("properties".into(), json!({ "protocol": p.as_str() }));
        }
        runs.push(Value::Object(run_obj));
    }
    let log = json!({ "$schema": SCHEMA_URI, "version": VERSION, "runs": runs });
    let mut s = serde_json::to_string_pretty(&log).expect("SARIF serializes");
    s.push('\n');
    s
}
