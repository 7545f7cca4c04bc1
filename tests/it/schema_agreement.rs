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
//! The official schemas, examples and pages come from the directory named by `MCP_SPEC_DIR`,
//! the research notes from `MCP_RESEARCH_DIR` (see `support::reference`); without them the
//! tests are skipped. The synthesizer, the mutations and the markdown extraction are in
//! `tests/support/`.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use jsonschema::{Draft, ValidatorMap};
use proptest::prelude::*;
use proptest::test_runner::Config as ProptestConfig;
use rstest::rstest;
use serde_json::{Value, json};

use crate::support::markdown::{json_blocks, strip_line_comments};
use crate::support::mutate::{
    DISCRIMINATOR_KEYS, Seg, TAGS, at_mut, mutate, paths, pointer_of, type_representatives,
    value_pool,
};
use crate::support::reference::{self, Reference};
use crate::support::rng::Rng;
use crate::support::synth::synth;

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
        let official_path = spec_path().join(rev.as_str()).join("schema/schema.json");
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

/// The official specification's directory; `None` when it is not given (the calling test is
/// then skipped, which `reference::dir` reports).
fn spec_dir() -> Option<PathBuf> {
    reference::dir(Reference::Spec)
}

/// The same, for reference material loaded once per process, after the test checked it.
fn spec_path() -> PathBuf {
    spec_dir().expect("the calling test checked MCP_SPEC_DIR")
}

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
    spec_path().join("2026-07-28/schema/examples")
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

static DOC_VECTORS: LazyLock<Vec<Vector>> = LazyLock::new(|| {
    let doc = read_json(&Path::new(VECTOR_DIR).join("docs-2025-11-25.json"));
    let docs_dir = spec_path().join("2025-11-25/docs");
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
    if spec_dir().is_none() {
        return;
    }
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
    if spec_dir().is_none() {
        return;
    }
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
    if spec_dir().is_none() {
        return;
    }
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
    if spec_dir().is_none() {
        return;
    }
    let n = check_vectors(&EDGE_VECTORS, rev, "edge-case vectors");
    eprintln!("edge-case vectors checked for {}: {n}", rev.as_str());
    assert!(n > 0);
}

#[test]
fn edge_case_vectors_cover_spec_rules_section_5() {
    // Guard against the §5 table growing without the data file following: every
    // definition named in the table must appear in our vectors for that revision.
    let (Some(_), Some(research)) = (spec_dir(), reference::dir(Reference::Research)) else {
        return;
    };
    let text = fs::read_to_string(research.join("spec-rules.md")).expect("spec-rules.md");
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
    if spec_dir().is_none() {
        return;
    }
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
    if spec_dir().is_none() {
        return;
    }
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
    if spec_dir().is_none() {
        return;
    }
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

/// Every single mutation of a few synthesized seeds of every shared definition: each member
/// dropped, each value swapped for each JSON type, an unknown member added to each object,
/// and each discriminator string retagged with every known tag.
#[rstest]
#[case::r2025(Rev::R2025)]
#[case::r2026(Rev::R2026)]
fn every_single_mutation_agrees(#[case] rev: Rev) {
    if spec_dir().is_none() {
        return;
    }
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
        if spec_dir().is_none() {
            return Ok(());
        }
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
        if spec_dir().is_none() {
            return Ok(());
        }
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
/// union errors into member-level ones, tested in `engine_schema_errors`.)
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
    if spec_dir().is_none() {
        return;
    }
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
    if spec_dir().is_none() {
        return;
    }
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
