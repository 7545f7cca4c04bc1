//! `--format sarif`: SARIF 2.1.0, for code-scanning uploads (GitHub's `upload-sarif`, which
//! refuses a log that is not valid against the SARIF schema).
//!
//! One `run` per revision judged (`automationDetails.id` = `mcp-verdict/<revision>/`), whose
//! `tool.driver.rules` hold one `reportingDescriptor` per rule of the table that a result of the
//! run names (`helpUri` = the rule's spec URL for the revision; `shortDescription` = title,
//! `fullDescription` = what it checks; `help` = the cited sentence), then those of the tool's
//! own that a result names: `mcp-verdict/expectation` (an expectation not met),
//! `mcp-verdict/invalid-file` (a file not judged) and `mcp-verdict/stale-baseline`. A rule no
//! result names has no descriptor (the table's metadata would be most of the log; `rules ID`
//! and the JSON report hold it).
//!
//! Results are what should be acted on ([`super::actions`]), and nothing else (code scanning
//! shows every result as an alert and ignores `suppressions`): expectations not met (at the
//! `expect` entry, `mcp-verdict/expectation`), findings that fail the run (at the finding, its
//! table rule), files not judged and stale baseline entries. Findings a fixture expects,
//! findings below `--fail-on` and failures listed in the baseline are not results (the other
//! formats show them). Locations are in the exchange file
//! (`region` = where the finding's JSON pointer lands inside `response.body` / `body_json`,
//! else the `response` member); a path below the run's root is a relative URI with
//! `uriBaseId` `%SRCROOT%` (defined in `originalUriBaseIds`), any other an absolute `file:`
//! URI. Each result has a `partialFingerprints` entry (`mcpVerdict/v1`,
//! [`Action::fingerprint`]) computed from the file, revision, rule, kind and JSON pointer, not
//! the line, so an alert survives edits elsewhere in the file. Every message is escaped ([`crate::outputs::safe`]).

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Map, Value, json};

use super::actions::{Action, ActionKind, EXPECTATION, INVALID, STALE, actions};
use crate::outputs::safe;
use crate::run::check::{CheckRun, Location};
use crate::vocab::Protocol;
use crate::vocab::Severity;

/// SARIF version.
pub const VERSION: &str = "2.1.0";
/// The schema URI written into the log.
pub const SCHEMA_URI: &str = "https://json.schemastore.org/sarif-2.1.0.json";
/// The `uriBaseId` of paths relative to the run's root.
pub const SRCROOT: &str = "%SRCROOT%";
/// The key of the fingerprint in `partialFingerprints`.
pub const FINGERPRINT: &str = "mcpVerdict/v1";

/// Percent-encodes a path for a URI (every byte but unreserved characters and `/`).
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

/// A `file:` URI for an absolute path (`/`-separated; a drive letter gets a leading `/`).
fn file_uri(abs: &str) -> String {
    let p = abs.replace('\\', "/");
    let p = if p.starts_with('/') {
        p
    } else {
        format!("/{p}")
    };
    // The drive letter's colon stays as it is.
    let encoded = match p.get(1..3) {
        Some(d) if d.ends_with(':') && d.as_bytes()[0].is_ascii_alphabetic() => {
            format!("/{d}{}", path_uri(&p[3..]))
        }
        _ => path_uri(&p),
    };
    format!("file://{encoded}")
}

fn is_absolute(file: &str) -> bool {
    file.starts_with('/')
        || file.starts_with('\\')
        || (file.len() > 2
            && file.as_bytes()[1] == b':'
            && file.as_bytes()[0].is_ascii_alphabetic())
}

/// The `artifactLocation` of a file as reports name it.
fn artifact(file: &str) -> Value {
    if is_absolute(file) {
        json!({ "uri": file_uri(file) })
    } else {
        json!({ "uri": path_uri(file), "uriBaseId": SRCROOT })
    }
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

fn location(file: &str, at: Option<Location>) -> Value {
    let mut phys = json!({ "artifactLocation": artifact(file) });
    if let Some(l) = at {
        phys["region"] = json!({ "startLine": l.line.max(1), "startColumn": l.column.max(1) });
    }
    json!([{ "physicalLocation": phys }])
}

fn message(text: &str) -> Value {
    json!({ "text": safe::text(text) })
}

fn result(a: &Action<'_>, index: &dyn Fn(&str) -> Option<usize>) -> Value {
    let mut res = json!({
        "ruleId": a.rule,
        "level": level(a.severity),
        "message": message(&a.message),
        "locations": location(a.file, a.location),
        "partialFingerprints": { FINGERPRINT: a.fingerprint() },
    });
    if let Some(i) = index(&a.rule) {
        res["ruleIndex"] = json!(i);
    }
    let mut props = Map::new();
    if let Some(p) = a.protocol {
        props.insert("protocol".into(), json!(p.as_str()));
    }
    if let Some(r) = a.result {
        props.insert("outcome".into(), json!(r.outcome.as_str()));
        props.insert("status".into(), json!(r.status));
    }
    if let Some(f) = a.finding {
        props.insert("pointer".into(), json!(safe::text(&f.finding.pointer)));
        props.insert("path".into(), json!(safe::text(&f.finding.path)));
        if let Some(e) = f.finding.event {
            props.insert("event".into(), json!(e));
        }
        if let Some(l) = f.finding.line {
            props.insert("stdoutLine".into(), json!(l));
        }
    }
    if !a.subject.is_empty() && a.kind == ActionKind::Missing {
        props.insert("rule".into(), json!(a.subject));
    }
    if let Some(e) = a.error {
        props.insert("kind".into(), json!(e.kind));
    }
    res["properties"] = Value::Object(props);
    res
}

fn tool_descriptors() -> Vec<Value> {
    vec![
        json!({
            "id": EXPECTATION,
            "name": "ExpectationNotMet",
            "shortDescription": { "text": "The verdict does not match the exchange file's expectation" },
            "fullDescription": { "text": "The exchange file's `expect` entry for the revision names an outcome, rules that must be cited or found, and rules that must not be found; the verdict differs." },
            "help": { "text": "Fix the responder or the recorded exchange, or correct the file's `expect` entry; `mcp-verdict check FILE` shows the diff." },
            "defaultConfiguration": { "level": "error" }
        }),
        json!({
            "id": INVALID,
            "name": "InvalidExchangeFile",
            "shortDescription": { "text": "The file could not be read or is not a valid exchange file" },
            "fullDescription": { "text": "The file is unreadable, not valid JSON, not a valid exchange file, names an unknown expectation key or rule id, or no protocol revision can be chosen for it." },
            "help": { "text": "The message names the line and column; the exchange file format is in the README and schemas/exchange.schema.json." },
            "defaultConfiguration": { "level": "error" }
        }),
        json!({
            "id": STALE,
            "name": "StaleBaselineEntry",
            "shortDescription": { "text": "A baseline entry lists a failure that no longer occurs" },
            "fullDescription": { "text": "Remove the entry from the baseline so that the failure, should it return, fails the run." },
            "help": { "text": "Remove the entry, or rewrite the baseline with --write-baseline." },
            "defaultConfiguration": { "level": "error" }
        }),
    ]
}

/// A rule's "friendly name": its id in Pascal case (`transport.sse.final-response` →
/// `TransportSseFinalResponse`), distinct from the id as SARIF wants.
fn friendly_name(id: &str) -> String {
    id.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| {
            let mut cs = w.chars();
            cs.next()
                .map(|c| c.to_ascii_uppercase().to_string() + cs.as_str())
                .unwrap_or_default()
        })
        .collect()
}

fn rule_descriptor(r: &crate::run::check::RuleConformance) -> Value {
    let mut d = json!({
        "id": r.rule,
        "name": friendly_name(&r.rule),
        "shortDescription": { "text": r.title },
        "fullDescription": { "text": r.summary },
        "help": {
            "text": format!("{} ({}): \u{201c}{}\u{201d} {}", r.section, r.level, r.quote, r.url),
            "markdown": format!("**{}** ({}): \u{201c}{}\u{201d}\n\n[The specification]({})", r.section, r.level, r.quote, r.url),
        },
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
}

/// Renders the run.
pub fn render(run: &CheckRun) -> String {
    let mut out = Vec::new();
    render_to(run, &mut out).expect("writing to memory cannot fail");
    String::from_utf8(out).expect("SARIF is UTF-8")
}

/// Writes the log to `w` as it is composed: each run's results are serialised one at a time,
/// never held as one document.
pub fn render_to(run: &CheckRun, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let acts = actions(run);
    let mut revisions: Vec<Option<Protocol>> = run.revisions().into_iter().map(Some).collect();
    if revisions.is_empty() {
        revisions.push(None);
    }
    let runs: Vec<RunOut<'_>> = revisions
        .iter()
        .enumerate()
        .map(|(ri, p)| run_out(run, &acts, ri, *p))
        .collect();
    let log = LogOut { runs };
    safe::write_json_pretty(w, &log)?;
    w.write_all(b"\n")
}

/// The log: `$schema`, `runs`, `version` (the order `serde_json` gives an object's keys).
struct LogOut<'a> {
    runs: Vec<RunOut<'a>>,
}

impl Serialize for LogOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(3))?;
        m.serialize_entry("$schema", SCHEMA_URI)?;
        m.serialize_entry("runs", &self.runs)?;
        m.serialize_entry("version", VERSION)?;
        m.end()
    }
}

/// One run: its members but `results` composed, the results written as they are made.
struct RunOut<'a> {
    shell: Map<String, Value>,
    acts: &'a [Action<'a>],
    protocol: Option<Protocol>,
    first: bool,
    index: std::collections::HashMap<String, usize>,
}

impl Serialize for RunOut<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.shell.len() + 1))?;
        let mut results_written = false;
        for (k, v) in &self.shell {
            if !results_written && k.as_str() > "results" {
                m.serialize_entry("results", &ResultsOut(self))?;
                results_written = true;
            }
            m.serialize_entry(k, v)?;
        }
        if !results_written {
            m.serialize_entry("results", &ResultsOut(self))?;
        }
        m.end()
    }
}

struct ResultsOut<'r, 'a>(&'r RunOut<'a>);

impl Serialize for ResultsOut<'_, '_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let r = self.0;
        let index = |id: &str| r.index.get(id).copied();
        let mut seq = s.serialize_seq(None)?;
        for a in r.acts {
            if belongs(a, r.protocol, r.first) {
                seq.serialize_element(&result(a, &index))?;
            }
        }
        seq.end()
    }
}

/// Whether an action is a result of the run for revision `p` (`first`: the log's first run).
fn belongs(a: &Action<'_>, p: Option<Protocol>, first: bool) -> bool {
    match (a.protocol, p) {
        (Some(ap), Some(p)) => ap == p,
        // Files not judged belong to no revision: the first run carries them.
        (None, _) => first,
        (Some(_), None) => false,
    }
}

fn run_out<'a>(
    run: &CheckRun,
    acts: &'a [Action<'a>],
    ri: usize,
    p: Option<Protocol>,
) -> RunOut<'a> {
    let named: std::collections::HashSet<&str> = acts
        .iter()
        .filter(|a| belongs(a, p, ri == 0))
        .map(|a| a.rule.as_str())
        .collect();
    let conf = p.and_then(|p| run.conformance.iter().find(|c| c.protocol == p));
    let mut rules: Vec<Value> = conf
        .map(|c| {
            let mut rs: Vec<&crate::run::check::RuleConformance> = c
                .rules
                .iter()
                .filter(|r| named.contains(r.rule.as_str()))
                .collect();
            rs.sort_by(|a, b| a.rule.cmp(&b.rule));
            rs.into_iter().map(rule_descriptor).collect()
        })
        .unwrap_or_default();
    rules.extend(
        tool_descriptors()
            .into_iter()
            .filter(|d| named.contains(d["id"].as_str().unwrap_or_default())),
    );
    let mut index = std::collections::HashMap::new();
    for (i, d) in rules.iter().enumerate() {
        index
            .entry(d["id"].as_str().unwrap_or_default().to_string())
            .or_insert(i);
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
    if let Some(root) = &run.root {
        let mut uri = file_uri(&root.to_string_lossy());
        if !uri.ends_with('/') {
            uri.push('/');
        }
        run_obj.insert(
            "originalUriBaseIds".into(),
            json!({ SRCROOT: { "uri": uri } }),
        );
    }
    run_obj.insert("columnKind".into(), json!("unicodeCodePoints"));
    if let Some(p) = p {
        run_obj.insert("properties".into(), json!({ "protocol": p.as_str() }));
    }
    RunOut {
        shell: run_obj,
        acts,
        protocol: p,
        first: ri == 0,
        index,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris() {
        assert_eq!(path_uri("a b/ü.json"), "a%20b/%C3%BC.json");
        assert_eq!(file_uri("/tmp/a b.json"), "file:///tmp/a%20b.json");
        assert_eq!(file_uri("C:/x/y.json"), "file:///C:/x/y.json");
        assert_eq!(artifact("t/x.json")["uriBaseId"], SRCROOT);
        assert!(artifact("/t/x.json").get("uriBaseId").is_none());
        assert_eq!(
            friendly_name("transport.sse.final-response"),
            "TransportSseFinalResponse"
        );
    }
}
