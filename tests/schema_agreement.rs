//! Agreement between the project's JSON Schemas (`schemas/<rev>/mcp-tools-call.schema.json`)
//! and the official MCP `schema.json` of the same revision.
//!
//! Both documents are compiled with the same engine, the same draft (2020-12), offline and
//! with format assertion off, so both sides are compared as plain JSON Schema. A definition
//! of ours must accept exactly the instances the official definition of the same name
//! accepts. A check fails if any comparison disagrees, and its message lists every
//! disagreement with revision, definition, instance origin, the instance and both
//! verdicts (plus what each side reported).
//!
//! Instances compared: the official 2026-07-28 example files, the edge-case vectors of
//! `tests/vectors/edge-cases.json` (spec-rules.md §5 plus project cases), the inline
//! 2025-11-25 doc examples selected by `tests/vectors/docs-2025-11-25.json`, all of those
//! against every shared definition, instances synthesized from the official schema, every
//! single mutation of those, and random multi-step mutants (proptest).
//!
//! Reference material lives outside the repository, at `../shared/spec` and
//! `../shared/research` relative to the crate root.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use jsonschema::{Draft, ValidatorMap};
use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use rstest::rstest;
use serde_json::{Map, Value, json};

const SPEC_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/spec");
const RESEARCH_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/research");
const OUR_SCHEMA_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/schemas");
const VECTOR_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/vectors");

/// Definitions both revisions must provide under `#/$defs/` (the engine's contract).
const CONTRACT_BOTH: &[&str] = &[
    "RequestId",
    "Error",
    "JSONRPCResultResponse",
    "JSONRPCErrorResponse",
    "JSONRPCResponse",
    "JSONRPCNotification",
    "JSONRPCRequest",
    "Result",
    "CallToolResult",
    "ContentBlock",
    "TextContent",
    "ImageContent",
    "AudioContent",
    "ResourceLink",
    "EmbeddedResource",
    "TextResourceContents",
    "BlobResourceContents",
    "Annotations",
    "Role",
    "Icon",
    "Implementation",
    "ProgressNotification",
    "LoggingMessageNotification",
    "CancelledNotification",
    "Tool",
    "ToolAnnotations",
];

/// Additional contract definitions of 2026-07-28.
const CONTRACT_2026: &[&str] = &[
    "ResultMetaObject",
    "MetaObject",
    "InputRequiredResult",
    "InputRequests",
    "InputRequest",
    "ElicitRequest",
    "ElicitRequestParams",
    "ElicitRequestFormParams",
    "ElicitRequestURLParams",
    "PrimitiveSchemaDefinition",
    "CreateMessageRequest",
    "CreateMessageRequestParams",
    "SamplingMessage",
    "SamplingMessageContentBlock",
    "ToolUseContent",
    "ToolResultContent",
    "ModelPreferences",
    "ToolChoice",
    "ListRootsRequest",
    "ClientCapabilities",
    "CallToolResultResponse",
    "HeaderMismatchError",
    "MissingRequiredClientCapabilityError",
    "UnsupportedProtocolVersionError",
    "ParseError",
    "InvalidRequestError",
    "MethodNotFoundError",
    "InvalidParamsError",
    "InternalError",
];

/// Additional contract definitions of 2025-11-25.
const CONTRACT_2025: &[&str] = &[
    "URLElicitationRequiredError",
    "ElicitRequestURLParams",
    "CreateTaskResult",
    "Task",
    "ServerRequest",
    "PingRequest",
    "CreateMessageRequest",
    "ListRootsRequest",
    "ElicitRequest",
    "GetTaskRequest",
    "GetTaskPayloadRequest",
    "CancelTaskRequest",
    "ListTasksRequest",
];

/// Definitions of ours that have no official counterpart: shared pieces the official
/// schema spells out inline. They are exercised through the definitions that use them.
const HELPERS_2025: &[&str] = &[
    "ToolObjectSchema",
    "RequestParamsMeta",
    "TaskIdParams",
    "TitledEnumOption",
];
const HELPERS_2026: &[&str] = &["TitledEnumOption"];

/// Definitions the mutation property test concentrates on (in addition to the sweep over
/// every shared definition).
const FOCUS_2025: &[&str] = &[
    "CallToolResult",
    "ContentBlock",
    "TextContent",
    "ImageContent",
    "AudioContent",
    "ResourceLink",
    "EmbeddedResource",
    "Error",
    "JSONRPCResponse",
    "URLElicitationRequiredError",
    "CreateTaskResult",
];
const FOCUS_2026: &[&str] = &[
    "CallToolResult",
    "CallToolResultResponse",
    "ContentBlock",
    "TextContent",
    "ImageContent",
    "AudioContent",
    "ResourceLink",
    "EmbeddedResource",
    "InputRequiredResult",
    "Error",
    "JSONRPCResponse",
    "HeaderMismatchError",
    "MissingRequiredClientCapabilityError",
    "UnsupportedProtocolVersionError",
    "ParseError",
    "InvalidRequestError",
    "MethodNotFoundError",
    "InvalidParamsError",
    "InternalError",
];

// ---------------------------------------------------------------------------------------
// Compiled schema pairs
// ---------------------------------------------------------------------------------------

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Rev {
    R2025,
    R2026,
}

impl Rev {
    fn as_str(self) -> &'static str {
        match self {
            Rev::R2025 => "2025-11-25",
            Rev::R2026 => "2026-07-28",
        }
    }

    fn parse(s: &str) -> Rev {
        match s {
            "2025-11-25" => Rev::R2025,
            "2026-07-28" => Rev::R2026,
            other => panic!("unknown revision {other:?}"),
        }
    }

    fn contract(self) -> Vec<&'static str> {
        let extra = match self {
            Rev::R2025 => CONTRACT_2025,
            Rev::R2026 => CONTRACT_2026,
        };
        CONTRACT_BOTH.iter().chain(extra).copied().collect()
    }

    fn helpers(self) -> &'static [&'static str] {
        match self {
            Rev::R2025 => HELPERS_2025,
            Rev::R2026 => HELPERS_2026,
        }
    }

    fn focus(self) -> &'static [&'static str] {
        match self {
            Rev::R2025 => FOCUS_2025,
            Rev::R2026 => FOCUS_2026,
        }
    }
}

struct Pair {
    rev: Rev,
    ours_doc: Value,
    official_doc: Value,
    ours: ValidatorMap,
    official: ValidatorMap,
    /// Definitions present in both documents, sorted.
    shared: Vec<String>,
}

fn read_json(path: &Path) -> Value {
    let text =
        fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("invalid JSON in {}: {e}", path.display()))
}

fn compile(doc: &Value, what: &str) -> ValidatorMap {
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .should_validate_formats(false)
        .offline()
        .build_map(doc)
        .unwrap_or_else(|e| panic!("{what} does not compile: {e}"))
}

fn def_names(doc: &Value) -> BTreeSet<String> {
    doc["$defs"]
        .as_object()
        .expect("$defs object")
        .keys()
        .cloned()
        .collect()
}

impl Pair {
    fn load(rev: Rev) -> Pair {
        let ours_path = Path::new(OUR_SCHEMA_DIR)
            .join(rev.as_str())
            .join("mcp-tools-call.schema.json");
        let official_path = Path::new(SPEC_DIR)
            .join(rev.as_str())
            .join("schema/schema.json");
        let ours_doc = read_json(&ours_path);
        let official_doc = read_json(&official_path);
        let ours = compile(&ours_doc, &format!("our {} schema", rev.as_str()));
        let official = compile(&official_doc, &format!("official {} schema", rev.as_str()));
        let official_names = def_names(&official_doc);
        let shared = def_names(&ours_doc)
            .into_iter()
            .filter(|n| official_names.contains(n))
            .collect();
        Pair {
            rev,
            ours_doc,
            official_doc,
            ours,
            official,
            shared,
        }
    }

    fn has_ours(&self, def: &str) -> bool {
        self.ours_doc["$defs"].get(def).is_some()
    }

    /// Verdicts (ours, official) of `instance` against `#/$defs/<def>`.
    fn verdicts(&self, def: &str, instance: &Value) -> (bool, bool) {
        let key = format!("#/$defs/{def}");
        let ours = self
            .ours
            .get(&key)
            .unwrap_or_else(|| panic!("[{}] our schema has no {key}", self.rev.as_str()));
        let official = self
            .official
            .get(&key)
            .unwrap_or_else(|| panic!("[{}] official schema has no {key}", self.rev.as_str()));
        (ours.is_valid(instance), official.is_valid(instance))
    }

    /// Compares the two verdicts; on disagreement returns a message naming revision, def,
    /// instance, both verdicts and what our schema reported.
    fn agree(&self, def: &str, instance: &Value, origin: &str) -> Result<bool, String> {
        let (ours, official) = self.verdicts(def, instance);
        if ours == official {
            return Ok(ours);
        }
        let key = format!("#/$defs/{def}");
        let mut reasons = String::new();
        for err in self.ours[&key].iter_errors(instance).take(5) {
            let _ = write!(reasons, "\n    ours: {} at {}", err, err.instance_path());
        }
        for err in self.official[&key].iter_errors(instance).take(5) {
            let _ = write!(
                reasons,
                "\n    official: {} at {}",
                err,
                err.instance_path()
            );
        }
        Err(format!(
            "DISAGREEMENT rev={} def={} origin={}\n  ours={} official={}\n  instance={}{}",
            self.rev.as_str(),
            def,
            origin,
            verdict(ours),
            verdict(official),
            instance,
            reasons
        ))
    }
}

fn verdict(valid: bool) -> &'static str {
    if valid { "valid" } else { "invalid" }
}

static PAIR_2025: LazyLock<Pair> = LazyLock::new(|| Pair::load(Rev::R2025));
static PAIR_2026: LazyLock<Pair> = LazyLock::new(|| Pair::load(Rev::R2026));

fn pair(rev: Rev) -> &'static Pair {
    match rev {
        Rev::R2025 => &PAIR_2025,
        Rev::R2026 => &PAIR_2026,
    }
}

/// Collects failures so one run reports all of them, then fails once.
#[derive(Default)]
struct Failures(Vec<String>);

impl Failures {
    fn push(&mut self, msg: String) {
        self.0.push(msg);
    }

    fn check(self, what: &str) {
        assert!(
            self.0.is_empty(),
            "{what}: {} failure(s)\n\n{}",
            self.0.len(),
            self.0.join("\n\n")
        );
    }
}

// ---------------------------------------------------------------------------------------
// Reference instances
// ---------------------------------------------------------------------------------------

/// One official example file: (definition folder, file name, instance).
struct Example {
    def: String,
    file: String,
    instance: Value,
}

fn examples_dir() -> PathBuf {
    Path::new(SPEC_DIR).join("2026-07-28/schema/examples")
}

static EXAMPLES: LazyLock<Vec<Example>> = LazyLock::new(|| {
    let mut out = Vec::new();
    let dir = examples_dir();
    let mut folders: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    for folder in folders {
        let def = folder.file_name().unwrap().to_string_lossy().into_owned();
        let mut files: Vec<_> = fs::read_dir(&folder)
            .expect("example folder")
            .map(|e| e.expect("dir entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .collect();
        files.sort();
        for file in files {
            out.push(Example {
                def: def.clone(),
                file: file.file_name().unwrap().to_string_lossy().into_owned(),
                instance: read_json(&file),
            });
        }
    }
    out
});

fn example(rel: &str) -> Value {
    read_json(&examples_dir().join(rel))
}

struct Vector {
    rev: Rev,
    def: String,
    instance: Value,
    expect_valid: bool,
    label: String,
}

fn expect_flag(v: &Value) -> bool {
    match v.as_str() {
        Some("valid") => true,
        Some("invalid") => false,
        other => panic!("expect must be \"valid\" or \"invalid\", got {other:?}"),
    }
}

static EDGE_VECTORS: LazyLock<Vec<Vector>> = LazyLock::new(|| {
    let doc = read_json(&Path::new(VECTOR_DIR).join("edge-cases.json"));
    doc["vectors"]
        .as_array()
        .expect("vectors array")
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let instance = match (row.get("instance"), row.get("example")) {
                (Some(v), None) => v.clone(),
                (None, Some(Value::String(rel))) => example(rel),
                _ => panic!("edge-case row {i} needs exactly one of instance/example"),
            };
            Vector {
                rev: Rev::parse(row["rev"].as_str().expect("rev")),
                def: row["def"].as_str().expect("def").to_owned(),
                instance,
                expect_valid: expect_flag(&row["expect"]),
                label: format!(
                    "edge-cases.json row {i} ({}: {})",
                    row["source"].as_str().unwrap_or("?"),
                    row["note"].as_str().unwrap_or("")
                ),
            }
        })
        .collect()
});

/// Removes `//` line comments that sit outside JSON strings (the spec pages annotate a few
/// examples that way).
fn strip_line_comments(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    for line in src.lines() {
        let mut in_str = false;
        let mut escaped = false;
        let mut cut = line.len();
        let bytes = line.as_bytes();
        for (i, &b) in bytes.iter().enumerate() {
            if in_str {
                if escaped {
                    escaped = false;
                } else if b == b'\\' {
                    escaped = true;
                } else if b == b'"' {
                    in_str = false;
                }
            } else if b == b'"' {
                in_str = true;
            } else if b == b'/' && bytes.get(i + 1) == Some(&b'/') {
                cut = i;
                break;
            }
        }
        out.push_str(&line[..cut]);
        out.push('\n');
    }
    out
}

/// The ```json fenced blocks of a spec page, raw.
fn json_blocks(page: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in page.lines() {
        let trimmed = line.trim();
        match current.as_mut() {
            None if trimmed == "```json" => current = Some(String::new()),
            None => {}
            Some(_) if trimmed == "```" => blocks.push(current.take().unwrap()),
            Some(buf) => {
                buf.push_str(line);
                buf.push('\n');
            }
        }
    }
    blocks
}

static DOC_VECTORS: LazyLock<Vec<Vector>> = LazyLock::new(|| {
    let doc = read_json(&Path::new(VECTOR_DIR).join("docs-2025-11-25.json"));
    let docs_dir = Path::new(SPEC_DIR).join("2025-11-25/docs");
    doc["vectors"]
        .as_array()
        .expect("vectors array")
        .iter()
        .enumerate()
        .map(|(i, row)| {
            let page_rel = row["doc"].as_str().expect("doc");
            let needle = row["contains"].as_str().expect("contains");
            let page = fs::read_to_string(docs_dir.join(page_rel))
                .unwrap_or_else(|e| panic!("cannot read docs page {page_rel}: {e}"));
            let hits: Vec<String> = json_blocks(&page)
                .into_iter()
                .filter(|b| b.contains(needle))
                .collect();
            assert_eq!(
                hits.len(),
                1,
                "docs row {i}: {needle:?} must match exactly one ```json block of {page_rel}"
            );
            let whole: Value = serde_json::from_str(&strip_line_comments(&hits[0]))
                .unwrap_or_else(|e| panic!("docs row {i}: block in {page_rel} is not JSON: {e}"));
            let pointer = row["pointer"].as_str().expect("pointer");
            let instance = whole
                .pointer(pointer)
                .unwrap_or_else(|| panic!("docs row {i}: pointer {pointer:?} not found"))
                .clone();
            Vector {
                rev: Rev::R2025,
                def: row["def"].as_str().expect("def").to_owned(),
                instance,
                expect_valid: expect_flag(&row["expect"]),
                label: format!(
                    "docs-2025-11-25.json row {i} ({page_rel}{pointer}: {})",
                    row["note"].as_str().unwrap_or("")
                ),
            }
        })
        .collect()
});

// ---------------------------------------------------------------------------------------
// Contract and structure of our documents
// ---------------------------------------------------------------------------------------

fn collect_refs(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                if k == "$ref" {
                    if let Value::String(s) = x {
                        out.push(s.clone());
                    }
                } else {
                    collect_refs(x, out);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| collect_refs(x, out)),
        _ => {}
    }
}

/// Every `format` used, keyed by the property name it applies to: `(property, format)`.
fn collect_formats(v: &Value, parent_key: &str, out: &mut BTreeSet<(String, String)>) {
    match v {
        Value::Object(m) => {
            if let Some(Value::String(f)) = m.get("format") {
                out.insert((parent_key.to_owned(), f.clone()));
            }
            for (k, x) in m {
                // Inside `properties`, the keys are property names; elsewhere keep the parent.
                if let Value::Object(props) = x
                    && k == "properties"
                {
                    for (pname, psch) in props {
                        collect_formats(psch, pname, out);
                    }
                    continue;
                }
                if k != "format" {
                    collect_formats(x, parent_key, out);
                }
            }
        }
        Value::Array(a) => a.iter().for_each(|x| collect_formats(x, parent_key, out)),
        _ => {}
    }
}

/// True when `additionalProperties: false` or `unevaluatedProperties: false` occurs.
fn has_closed_object(v: &Value) -> bool {
    match v {
        Value::Object(m) => {
            m.get("additionalProperties") == Some(&Value::Bool(false))
                || m.get("unevaluatedProperties") == Some(&Value::Bool(false))
                || m.values().any(has_closed_object)
        }
        Value::Array(a) => a.iter().any(has_closed_object),
        _ => false,
    }
}

#[rstest]
#[case::r2025(Rev::R2025)]
#[case::r2026(Rev::R2026)]
fn contract_and_references(#[case] rev: Rev) {
    let p = pair(rev);
    let doc = &p.ours_doc;
    let mut f = Failures::default();

    if doc["$schema"] != json!("https://json-schema.org/draft/2020-12/schema") {
        f.push("$schema must be the 2020-12 meta-schema".into());
    }
    if doc.get("$id").is_some() {
        f.push("our schema must not carry $id".into());
    }
    for key in ["title", "description"] {
        let text = doc[key].as_str().unwrap_or("");
        if !text.contains(rev.as_str()) {
            f.push(format!(
                "top-level {key} must name revision {}",
                rev.as_str()
            ));
        }
    }
    if doc.get("definitions").is_some() {
        f.push("definitions belong under $defs".into());
    }

    // Names are a contract.
    for name in rev.contract() {
        if !p.has_ours(name) {
            f.push(format!("missing contract def {name}"));
        }
        if p.ours.get(&format!("#/$defs/{name}")).is_none() {
            f.push(format!(
                "#/$defs/{name} is not addressable in the compiled map"
            ));
        }
    }

    // Every $ref is local and resolves.
    let mut refs = Vec::new();
    collect_refs(doc, &mut refs);
    assert!(!refs.is_empty());
    for r in &refs {
        match r.strip_prefix('#') {
            Some(ptr) if doc.pointer(ptr).is_some() => {}
            _ => f.push(format!("$ref {r:?} does not resolve inside our document")),
        }
    }

    // Every def is the official def of the same name, or a declared helper.
    let official_names = def_names(&p.official_doc);
    let helpers: BTreeSet<&str> = rev.helpers().iter().copied().collect();
    for name in def_names(doc) {
        let is_helper = helpers.contains(name.as_str());
        if official_names.contains(&name) == is_helper {
            f.push(format!(
                "def {name}: must be either an official def name or a declared helper (helper={is_helper})"
            ));
        }
        // Own words: a description is present and differs from the official one.
        let ours_desc = doc["$defs"][&name]["description"].as_str().unwrap_or("");
        if ours_desc.len() < 10 {
            f.push(format!("def {name}: needs a description"));
        }
        if let Some(theirs) = p.official_doc["$defs"][&name]["description"].as_str() {
            // No sentence of 40+ characters may be lifted from the official text.
            let lifted: Vec<&str> = theirs
                .split(['.', '\n'])
                .map(str::trim)
                .filter(|s| s.len() >= 40 && ours_desc.contains(s))
                .collect();
            if theirs.trim() == ours_desc.trim() || !lifted.is_empty() {
                f.push(format!(
                    "def {name}: description copies the official text: {lifted:?}"
                ));
            }
        }
    }
    for helper in rev.helpers() {
        if !p.has_ours(helper) {
            f.push(format!("declared helper {helper} is not defined"));
        }
    }

    // Openness: the official schema never closes an object, neither may we.
    if has_closed_object(doc) {
        f.push("additionalProperties/unevaluatedProperties false found".into());
    }

    // Formats: same (property, format) pairs as the official defs we model.
    let mut ours_formats = BTreeSet::new();
    collect_formats(&doc["$defs"], "", &mut ours_formats);
    let mut official_formats = BTreeSet::new();
    for name in &p.shared {
        collect_formats(&p.official_doc["$defs"][name], "", &mut official_formats);
    }
    if ours_formats != official_formats {
        f.push(format!(
            "format annotations differ: ours={ours_formats:?} official={official_formats:?}"
        ));
    }

    f.check(&format!("contract check for {}", rev.as_str()));
}

// ---------------------------------------------------------------------------------------
// Official examples
// ---------------------------------------------------------------------------------------

#[test]
fn official_examples_agree_and_are_valid_in_2026() {
    let p = pair(Rev::R2026);
    let mut f = Failures::default();
    let mut compared = 0;
    for ex in EXAMPLES.iter().filter(|ex| p.has_ours(&ex.def)) {
        compared += 1;
        let origin = format!("example {}/{}", ex.def, ex.file);
        match p.agree(&ex.def, &ex.instance, &origin) {
            Ok(true) => {}
            Ok(false) => f.push(format!(
                "rev=2026-07-28 def={} {origin}: both schemas reject an official example\n  instance={}",
                ex.def, ex.instance
            )),
            Err(msg) => f.push(msg),
        }
    }
    eprintln!(
        "2026 examples compared: {compared} of {} files",
        EXAMPLES.len()
    );
    assert!(compared >= 60, "too few examples found ({compared})");
    f.check("official 2026 examples");
}

#[test]
fn official_examples_agree_under_2025() {
    let p = pair(Rev::R2025);
    let mut f = Failures::default();
    let mut compared = 0;
    let mut invalid = Vec::new();
    for ex in EXAMPLES.iter().filter(|ex| p.has_ours(&ex.def)) {
        compared += 1;
        let origin = format!("2026 example {}/{}", ex.def, ex.file);
        match p.agree(&ex.def, &ex.instance, &origin) {
            Ok(true) => {}
            Ok(false) => invalid.push(format!("{}/{}", ex.def, ex.file)),
            Err(msg) => f.push(msg),
        }
    }
    eprintln!(
        "2026 examples compared under 2025-11-25: {compared}; invalid under both: {invalid:?}"
    );
    assert!(compared >= 40, "too few examples found ({compared})");
    f.check("official 2026 examples under 2025-11-25");
}

// ---------------------------------------------------------------------------------------
// Vectors with expected verdicts
// ---------------------------------------------------------------------------------------

fn check_vectors(vectors: &[Vector], rev: Rev, what: &str) -> usize {
    let p = pair(rev);
    let mut f = Failures::default();
    let mut n = 0;
    for v in vectors.iter().filter(|v| v.rev == rev) {
        n += 1;
        match p.agree(&v.def, &v.instance, &v.label) {
            Ok(got) if got == v.expect_valid => {}
            Ok(got) => f.push(format!(
                "UNEXPECTED VERDICT rev={} def={} origin={}\n  expected={} ours={} official={}\n  instance={}",
                rev.as_str(),
                v.def,
                v.label,
                verdict(v.expect_valid),
                verdict(got),
                verdict(got),
                v.instance
            )),
            Err(msg) => f.push(msg),
        }
    }
    f.check(&format!("{what} ({})", rev.as_str()));
    n
}

#[rstest]
#[case::r2025(Rev::R2025)]
#[case::r2026(Rev::R2026)]
fn edge_case_vectors(#[case] rev: Rev) {
    let n = check_vectors(&EDGE_VECTORS, rev, "edge-case vectors");
    eprintln!("edge-case vectors checked for {}: {n}", rev.as_str());
    assert!(n > 0);
}

#[test]
fn edge_case_vectors_cover_spec_rules_section_5() {
    // Guard against the §5 table growing without the data file following: every
    // definition named in the table must appear in our vectors for that revision.
    let text =
        fs::read_to_string(Path::new(RESEARCH_DIR).join("spec-rules.md")).expect("spec-rules.md");
    let section = text
        .split("## 5.")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .expect("§5 in spec-rules.md");
    let mut missing = Vec::new();
    let mut rows = 0;
    for line in section
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains('`'))
    {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        if cells.len() < 4 || cells[1] == "Version" {
            continue;
        }
        rows += 1;
        let revs: Vec<Rev> = cells[1]
            .split('/')
            .map(str::trim)
            .filter_map(|v| match v {
                "25" => Some(Rev::R2025),
                "26" => Some(Rev::R2026),
                _ => None,
            })
            .collect();
        for def in cells[2].split('/').map(|d| d.trim().trim_matches('`')) {
            if def.is_empty() || def == "various" {
                continue;
            }
            for &rev in &revs {
                let present = EDGE_VECTORS
                    .iter()
                    .any(|v| v.rev == rev && v.def == def && v.label.contains("§5"));
                if !present {
                    missing.push(format!("{} {def}", rev.as_str()));
                }
            }
        }
    }
    assert!(rows >= 25, "§5 table not found or shrunk ({rows} rows)");
    assert!(missing.is_empty(), "§5 rows without vectors: {missing:?}");
}

#[test]
fn docs_2025_examples() {
    let n = check_vectors(&DOC_VECTORS, Rev::R2025, "2025-11-25 docs examples");
    eprintln!("2025-11-25 docs vectors checked: {n}");
    assert!(n >= 30);
}

// ---------------------------------------------------------------------------------------
// Cross product: every reference instance against every shared definition
// ---------------------------------------------------------------------------------------

#[rstest]
#[case::r2025(Rev::R2025)]
#[case::r2026(Rev::R2026)]
fn every_reference_instance_against_every_shared_def(#[case] rev: Rev) {
    let p = pair(rev);
    let mut instances: Vec<(String, &Value)> = Vec::new();
    for ex in EXAMPLES.iter() {
        instances.push((format!("example {}/{}", ex.def, ex.file), &ex.instance));
    }
    for v in EDGE_VECTORS.iter().chain(DOC_VECTORS.iter()) {
        instances.push((v.label.clone(), &v.instance));
    }
    let mut f = Failures::default();
    let mut n = 0usize;
    for def in &p.shared {
        for (origin, inst) in &instances {
            n += 1;
            if let Err(msg) = p.agree(def, inst, origin) {
                f.push(msg);
            }
        }
    }
    eprintln!(
        "cross product {}: {} instances x {} shared defs = {n} comparisons",
        rev.as_str(),
        instances.len(),
        p.shared.len()
    );
    f.check(&format!("cross product ({})", rev.as_str()));
}

// ---------------------------------------------------------------------------------------
// Instance synthesis from the official schema, and mutation
// ---------------------------------------------------------------------------------------

/// Small deterministic PRNG (splitmix64) so a proptest case fully determines its instance.
/// `full` makes the synthesizer keep every optional member (within its depth limit).
struct Rng {
    state: u64,
    full: bool,
}

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng {
            state: seed,
            full: seed.is_multiple_of(4),
        }
    }

    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

fn deep_merge(into: &mut Value, from: Value) {
    match (into, from) {
        (Value::Object(a), Value::Object(b)) => {
            for (k, v) in b {
                match a.get_mut(&k) {
                    Some(slot) => deep_merge(slot, v),
                    None => {
                        a.insert(k, v);
                    }
                }
            }
        }
        (slot, v) => *slot = v,
    }
}

/// Builds an instance that the official `schema` probably accepts, filling most optional
/// members, choosing union branches and enum values with `rng`. Only the keywords the
/// official MCP schemas use are understood.
fn synth(root: &Value, schema: &Value, depth: usize, rng: &mut Rng) -> Value {
    let Value::Object(s) = schema else {
        return json!({"any": 1});
    };
    if depth > 12 {
        return json!({});
    }
    if let Some(Value::String(r)) = s.get("$ref") {
        let target = root
            .pointer(r.trim_start_matches('#'))
            .unwrap_or_else(|| panic!("official $ref {r} unresolved"));
        return synth(root, target, depth + 1, rng);
    }
    if let Some(Value::Array(parts)) = s.get("allOf") {
        let mut acc = Value::Null;
        for part in parts {
            let v = synth(root, part, depth + 1, rng);
            if acc.is_null() {
                acc = v;
            } else {
                deep_merge(&mut acc, v);
            }
        }
        return acc;
    }
    if let Some(Value::Array(branches)) = s.get("anyOf") {
        let pick = rng.below(branches.len());
        return synth(root, &branches[pick], depth + 1, rng);
    }
    if let Some(c) = s.get("const") {
        return c.clone();
    }
    if let Some(Value::Array(values)) = s.get("enum") {
        return values[rng.below(values.len())].clone();
    }
    let ty = match s.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(ts)) => ts[rng.below(ts.len())]
            .as_str()
            .unwrap_or("string")
            .to_owned(),
        _ if s.contains_key("properties") || s.contains_key("additionalProperties") => {
            "object".into()
        }
        _ => {
            let pool = [
                json!("free"),
                json!(7),
                json!({"k": [1, "v"]}),
                json!([true]),
            ];
            return pool[rng.below(pool.len())].clone();
        }
    };
    match ty.as_str() {
        "object" => {
            let mut out = Map::new();
            let required: BTreeSet<&str> = s
                .get("required")
                .and_then(Value::as_array)
                .map(|a| a.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            if let Some(Value::Object(props)) = s.get("properties") {
                for (name, sub) in props {
                    let keep = required.contains(name.as_str())
                        || (depth < 7 && (rng.full || rng.below(5) != 0));
                    if keep {
                        out.insert(name.clone(), synth(root, sub, depth + 1, rng));
                    }
                }
            }
            match s.get("additionalProperties") {
                Some(ap @ Value::Object(m)) if !m.is_empty() && depth < 6 => {
                    out.insert("extraKey".into(), synth(root, ap, depth + 1, rng));
                }
                Some(Value::Bool(false)) => {}
                _ if rng.below(3) == 0 => {
                    out.insert("x-unlisted".into(), json!("u"));
                }
                _ => {}
            }
            Value::Object(out)
        }
        "array" => {
            let n = if depth > 7 { 0 } else { 1 + rng.below(2) };
            let items = s.get("items").cloned().unwrap_or(json!({}));
            Value::Array(
                (0..n)
                    .map(|_| synth(root, &items, depth + 1, rng))
                    .collect(),
            )
        }
        "string" => match s.get("format").and_then(Value::as_str) {
            Some("uri") => json!("https://example.com/r"),
            Some("byte") => json!("aGVsbG8="),
            _ => json!("text"),
        },
        "integer" => json!(3),
        "number" => {
            if s.contains_key("maximum") {
                json!(0.5)
            } else {
                json!(2.5)
            }
        }
        "boolean" => json!(rng.below(2) == 0),
        "null" => Value::Null,
        other => panic!("unexpected type {other}"),
    }
}

/// Replacement values for mutations: wrong types, edge numbers, near-miss shapes.
fn value_pool() -> Vec<Value> {
    vec![
        Value::Null,
        json!(true),
        json!(false),
        json!(0),
        json!(1),
        json!(-1),
        json!(1.5),
        json!(2.0),
        json!(-32602),
        json!(-32602.0),
        json!(-32020),
        json!(-32042),
        json!(""),
        json!("x"),
        json!("2.0"),
        json!("complete"),
        json!("input_required"),
        json!("https://example.com/p"),
        json!([]),
        json!({}),
        json!([1, "a", null]),
        json!([{"type": "text", "text": "t"}]),
        json!({"type": "text", "text": "t"}),
        json!({"type": "text"}),
        json!({"type": "image", "data": "AA==", "mimeType": "image/png"}),
        json!({"type": "resource", "resource": {"uri": "u", "blob": "AA=="}}),
        json!({"type": "tool_result", "toolUseId": "1", "content": []}),
        json!({"resultType": "complete"}),
        json!({"resultType": "input_required", "requestState": "s"}),
        json!({"code": -32603, "message": "m"}),
        json!({"method": "roots/list"}),
        json!({"method": "elicitation/create", "params": {"mode": "url", "message": "m", "url": "u"}}),
        json!({"name": "n", "version": "1"}),
        json!({"requestedSchema": {"type": "object", "properties": {}}, "message": "m"}),
        json!({"a": 1.5}),
        json!({"a": null}),
        json!({"a": {"b": [1, true, "s"]}}),
    ]
}

/// Strings that flip discriminators (`type`, `resultType`, `method`, `mode`, `jsonrpc`).
const TAGS: &[&str] = &[
    "text",
    "image",
    "audio",
    "resource_link",
    "resource",
    "tool_use",
    "tool_result",
    "video",
    "complete",
    "input_required",
    "banana",
    "sampling/createMessage",
    "roots/list",
    "elicitation/create",
    "ping",
    "tasks/get",
    "tools/call",
    "notifications/progress",
    "url",
    "form",
    "2.0",
    "1.0",
    "object",
    "string",
    "array",
    "number",
    "integer",
    "boolean",
    "working",
    "user",
    "",
];

/// Member names to add: unknown ones and ones with meaning somewhere in the schemas.
const KEYS: &[&str] = &[
    "extra",
    "type",
    "resultType",
    "content",
    "structuredContent",
    "isError",
    "_meta",
    "code",
    "message",
    "data",
    "id",
    "jsonrpc",
    "result",
    "error",
    "method",
    "params",
    "inputRequests",
    "requestState",
    "mode",
    "url",
    "elicitationId",
    "io.modelcontextprotocol/serverInfo",
    "io.modelcontextprotocol/subscriptionId",
    "text",
    "blob",
    "uri",
    "name",
    "annotations",
    "resource",
    "requiredCapabilities",
    "task",
    "ttl",
    "properties",
    "outputSchema",
];

const DISCRIMINATOR_KEYS: &[&str] = &["type", "resultType", "method", "mode", "jsonrpc"];

#[derive(Clone, Debug)]
enum Seg {
    Key(String),
    Idx(usize),
}

fn paths(v: &Value, prefix: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    out.push(prefix.clone());
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                prefix.push(Seg::Key(k.clone()));
                paths(x, prefix, out);
                prefix.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                prefix.push(Seg::Idx(i));
                paths(x, prefix, out);
                prefix.pop();
            }
        }
        _ => {}
    }
}

fn at_mut<'a>(v: &'a mut Value, path: &[Seg]) -> &'a mut Value {
    path.iter().fold(v, |cur, seg| match seg {
        Seg::Key(k) => cur.get_mut(k.as_str()).expect("path key"),
        Seg::Idx(i) => cur.get_mut(*i).expect("path index"),
    })
}

/// Applies one mutation chosen by `kind`, `where_` and `what` (all reduced modulo the
/// available choices) and describes it.
fn mutate(v: &mut Value, kind: u8, where_: usize, what: usize, pool: &[Value]) -> String {
    let mut all = Vec::new();
    paths(v, &mut Vec::new(), &mut all);
    let pick = |filter: &dyn Fn(&Value, &[Seg]) -> bool, v: &Value| -> Option<Vec<Seg>> {
        let cands: Vec<&Vec<Seg>> = all
            .iter()
            .filter(|p| {
                let mut cur = v;
                for seg in p.iter() {
                    cur = match seg {
                        Seg::Key(k) => &cur[k.as_str()],
                        Seg::Idx(i) => &cur[*i],
                    };
                }
                filter(cur, p)
            })
            .collect();
        (!cands.is_empty()).then(|| cands[where_ % cands.len()].clone())
    };
    let show = |p: &[Seg]| -> String {
        p.iter()
            .map(|s| match s {
                Seg::Key(k) => format!("/{k}"),
                Seg::Idx(i) => format!("/{i}"),
            })
            .collect()
    };
    match kind % 7 {
        // Drop a member.
        0 => match pick(&|x, _| x.as_object().is_some_and(|m| !m.is_empty()), v) {
            Some(p) => {
                let obj = at_mut(v, &p).as_object_mut().unwrap();
                let key = obj.keys().nth(what % obj.len()).unwrap().clone();
                obj.remove(&key);
                format!("drop {}/{key}", show(&p))
            }
            None => "drop (none)".into(),
        },
        // Replace a value (changes its type or value).
        1 => {
            let p = pick(&|_, _| true, v).unwrap();
            *at_mut(v, &p) = pool[what % pool.len()].clone();
            format!("replace {} with {}", show(&p), pool[what % pool.len()])
        }
        // Add a member (unknown or meaningful).
        2 => match pick(&|x, _| x.is_object(), v) {
            Some(p) => {
                let key = KEYS[what % KEYS.len()];
                let val = pool[(what / KEYS.len()) % pool.len()].clone();
                let shown = val.to_string();
                at_mut(v, &p)
                    .as_object_mut()
                    .unwrap()
                    .insert(key.into(), val);
                format!("add {}/{key} = {shown}", show(&p))
            }
            None => "add (none)".into(),
        },
        // Change a discriminator string (type/resultType/method/mode/jsonrpc), or any string.
        3 => {
            let disc = pick(
                &|x, p| {
                    x.is_string()
                        && matches!(p.last(), Some(Seg::Key(k)) if DISCRIMINATOR_KEYS.contains(&k.as_str()))
                },
                v,
            );
            match disc.or_else(|| pick(&|x, _| x.is_string(), v)) {
                Some(p) => {
                    let tag = TAGS[what % TAGS.len()];
                    *at_mut(v, &p) = json!(tag);
                    format!("retag {} = {tag:?}", show(&p))
                }
                None => "retag (none)".into(),
            }
        }
        // Nest a value into an array or an object.
        4 => {
            let p = pick(&|_, _| true, v).unwrap();
            let slot = at_mut(v, &p);
            let inner = slot.take();
            if what.is_multiple_of(2) {
                *slot = json!([inner]);
                format!("wrap {} in array", show(&p))
            } else {
                *slot = json!({ "value": inner });
                format!("wrap {} in object", show(&p))
            }
        }
        // Edit an array: empty it, duplicate an element, or append a pool value.
        5 => match pick(&|x, _| x.is_array(), v) {
            Some(p) => {
                let arr = at_mut(v, &p).as_array_mut().unwrap();
                match what % 3 {
                    0 => {
                        arr.clear();
                        format!("empty {}", show(&p))
                    }
                    1 if !arr.is_empty() => {
                        let dup = arr[what % arr.len()].clone();
                        arr.push(dup);
                        format!("duplicate an element of {}", show(&p))
                    }
                    _ => {
                        arr.push(pool[what % pool.len()].clone());
                        format!("append {} to {}", pool[what % pool.len()], show(&p))
                    }
                }
            }
            None => "array edit (none)".into(),
        },
        // Nudge a number: non-integer, float spelling, negative, out of 0..1.
        _ => match pick(&|x, _| x.is_number(), v) {
            Some(p) => {
                let slot = at_mut(v, &p);
                let n = slot.as_f64().unwrap_or(0.0);
                let new = match what % 4 {
                    0 => json!(n + 0.5),
                    1 => json!(n.trunc()),
                    2 => json!(-n - 1.0),
                    _ => json!(n + 1.0),
                };
                let shown = new.to_string();
                *slot = new;
                format!("number {} = {shown}", show(&p))
            }
            None => "number (none)".into(),
        },
    }
}

fn seed_instance(p: &Pair, def: &str, seed: u64) -> Value {
    let mut rng = Rng::new(seed);
    let schema = &p.official_doc["$defs"][def];
    synth(&p.official_doc, schema, 0, &mut rng)
}

#[rstest]
#[case::r2025(Rev::R2025)]
#[case::r2026(Rev::R2026)]
fn synthesized_seeds_agree(#[case] rev: Rev) {
    // Seeds built from the official schema with every optional member filled in most of
    // the time: the starting points of the mutation test, checked on their own first.
    let p = pair(rev);
    let mut f = Failures::default();
    let mut n = 0;
    let mut no_valid_seed = Vec::new();
    for def in &p.shared {
        let mut any_valid = false;
        for seed in 0..16u64 {
            let inst = seed_instance(p, def, seed);
            n += 1;
            match p.agree(def, &inst, &format!("synthesized seed {seed}")) {
                Ok(valid) => any_valid |= valid,
                Err(msg) => f.push(msg),
            }
        }
        if !any_valid {
            no_valid_seed.push(def.clone());
        }
    }
    eprintln!(
        "synthesized seeds {}: {n} compared; defs without an officially valid seed: {no_valid_seed:?}",
        rev.as_str()
    );
    if !no_valid_seed.is_empty() {
        f.push(format!(
            "the generator produced no valid seed for {no_valid_seed:?}; mutation coverage would be weak"
        ));
    }
    f.check(&format!("synthesized seeds ({})", rev.as_str()));
}

/// Values that stand for "a member of another JSON type".
fn type_representatives() -> Vec<Value> {
    vec![
        Value::Null,
        json!(true),
        json!(0),
        json!(-2),
        json!(1.5),
        json!("x"),
        json!([]),
        json!({}),
    ]
}

/// Every single mutation of a few synthesized seeds of every shared definition: each member
/// dropped, each value swapped for each JSON type, an unknown member added to each object,
/// and each discriminator string retagged with every known tag.
#[rstest]
#[case::r2025(Rev::R2025)]
#[case::r2026(Rev::R2026)]
fn every_single_mutation_agrees(#[case] rev: Rev) {
    let p = pair(rev);
    let reps = type_representatives();
    let mut f = Failures::default();
    let mut n = 0usize;
    for def in &p.shared {
        for seed in 0..5u64 {
            let base = seed_instance(p, def, seed);
            let mut all = Vec::new();
            paths(&base, &mut Vec::new(), &mut all);
            let mut mutants: Vec<(String, Value)> = Vec::new();
            for path in &all {
                let here = base.pointer(&pointer_of(path)).expect("path").clone();
                for rep in &reps {
                    if rep != &here {
                        let mut m = base.clone();
                        *at_mut(&mut m, path) = rep.clone();
                        mutants.push((format!("{} = {rep}", pointer_of(path)), m));
                    }
                }
                if let (Some(Seg::Key(k)), Value::String(_)) = (path.last(), &here)
                    && DISCRIMINATOR_KEYS.contains(&k.as_str())
                {
                    for tag in TAGS {
                        let mut m = base.clone();
                        *at_mut(&mut m, path) = json!(tag);
                        mutants.push((format!("{} = {tag:?}", pointer_of(path)), m));
                    }
                }
                if let Value::Object(obj) = &here {
                    for key in obj.keys() {
                        let mut m = base.clone();
                        at_mut(&mut m, path).as_object_mut().unwrap().remove(key);
                        mutants.push((format!("drop {}/{key}", pointer_of(path)), m));
                    }
                    let mut m = base.clone();
                    at_mut(&mut m, path)
                        .as_object_mut()
                        .unwrap()
                        .insert("unknownMember".into(), json!({"z": 1}));
                    mutants.push((format!("add {}/unknownMember", pointer_of(path)), m));
                }
            }
            for (what, m) in mutants {
                n += 1;
                if let Err(msg) = p.agree(def, &m, &format!("seed {seed}, {what}")) {
                    f.push(msg);
                }
            }
        }
    }
    eprintln!("single mutations {}: {n} compared", rev.as_str());
    f.check(&format!("single mutations ({})", rev.as_str()));
}

fn pointer_of(path: &[Seg]) -> String {
    path.iter()
        .map(|s| match s {
            Seg::Key(k) => format!("/{}", k.replace('~', "~0").replace('/', "~1")),
            Seg::Idx(i) => format!("/{i}"),
        })
        .collect()
}

/// One mutation step as drawn by proptest: (kind, where, what).
fn steps() -> impl Strategy<Value = Vec<(u8, usize, usize)>> {
    prop::collection::vec((0u8..7, 0usize..1000, 0usize..10_000), 1..4)
}

fn run_mutant(p: &Pair, def: &str, seed: u64, steps: &[(u8, usize, usize)]) -> Result<(), String> {
    let pool = value_pool();
    let mut inst = seed_instance(p, def, seed);
    let mut log = Vec::new();
    for &(kind, where_, what) in steps {
        log.push(mutate(&mut inst, kind, where_, what, &pool));
    }
    p.agree(
        def,
        &inst,
        &format!("mutant of seed {seed}: {}", log.join("; ")),
    )
    .map(|_| ())
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Focus definitions (results, content blocks, errors, error envelopes), one def per case.
    #[test]
    fn mutants_of_focus_defs_agree(
        is_2026 in any::<bool>(),
        def_pick in 0usize..64,
        seed in 0u64..64,
        steps in steps(),
    ) {
        let rev = if is_2026 { Rev::R2026 } else { Rev::R2025 };
        let p = pair(rev);
        let focus = rev.focus();
        let def = focus[def_pick % focus.len()];
        if let Err(msg) = run_mutant(p, def, seed, &steps) {
            prop_assert!(false, "{}", msg);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 64,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// Every shared definition of both revisions, each mutated the same way per case.
    #[test]
    fn mutants_of_every_shared_def_agree(seed in 0u64..64, steps in steps()) {
        for rev in [Rev::R2025, Rev::R2026] {
            let p = pair(rev);
            for def in &p.shared {
                if let Err(msg) = run_mutant(p, def, seed, &steps) {
                    prop_assert!(false, "{}", msg);
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Error locality of the dispatching definitions
// ---------------------------------------------------------------------------------------

/// Our discriminator dispatch must report the problem inside the intended member, where
/// a bare `anyOf` would only say that no branch matched. (`ContentBlock` is kept a plain
/// `anyOf` so the validator can dispatch on its `type` constant quickly; the engine turns its
/// union errors into member-level ones, tested in `tests/engine_schema_errors.rs`.)
#[rstest]
#[case::url_elicitation_without_url(
    Rev::R2026, "ElicitRequest",
    json!({"method": "elicitation/create", "params": {"mode": "url", "message": "m"}}),
    "/params", "\"url\" is a required property"
)]
fn dispatch_errors_point_at_the_member(
    #[case] rev: Rev,
    #[case] def: &str,
    #[case] instance: Value,
    #[case] at: &str,
    #[case] says: &str,
) {
    let p = pair(rev);
    let (ours, official) = p.verdicts(def, &instance);
    assert!(!ours && !official, "both must reject {instance}");
    let key = format!("#/$defs/{def}");
    let errors: Vec<(String, String)> = p.ours[&key]
        .iter_errors(&instance)
        .map(|e| (e.instance_path().to_string(), e.to_string()))
        .collect();
    assert!(
        errors
            .iter()
            .any(|(path, msg)| path == at && msg.contains(says)),
        "[{}] {def}: expected an error at {at} containing {says:?}, got {errors:?}",
        rev.as_str()
    );
}

// ---------------------------------------------------------------------------------------
// Summary of what is compared (informational; run with --nocapture)
// ---------------------------------------------------------------------------------------

#[test]
fn summary_counts() {
    let mut by_rev: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    for rev in [Rev::R2025, Rev::R2026] {
        let p = pair(rev);
        by_rev.insert(rev.as_str(), (def_names(&p.ours_doc).len(), p.shared.len()));
    }
    eprintln!("defs (ours, shared with official): {by_rev:?}");
    eprintln!(
        "official example files: {}; edge-case vectors: {}; docs vectors: {}",
        EXAMPLES.len(),
        EDGE_VECTORS.len(),
        DOC_VECTORS.len()
    );
}
