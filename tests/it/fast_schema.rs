//! The specialised validity check (`mcp_verdict::fast_schema`) agrees with the `jsonschema`
//! validator on every definition of both shipped schemas: on every message, result, error,
//! content block and member value of the fixture corpus and the edge-case vectors, and on
//! random mutations of them (proptest). The same check walking the instance read onto a
//! `wire::tape` (its text, compact and pretty) gives the same answer. Every definition must compile to the fast form, so a
//! schema change that needs a keyword outside its subset is noticed here rather than as a
//! silent slowdown.

use std::path::Path;
use std::sync::LazyLock;

use mcp_verdict::schema::FastValidator;
use mcp_verdict::wire::deep;
use mcp_verdict::wire::tape::{self, Tape};
use mcp_verdict::{ExchangeFile, Protocol};
use proptest::prelude::*;
use serde_json::{Value, json};

use crate::support::corpus::fixture_files;

/// The JSON messages a body carries: the body itself, or each SSE event's data.
fn messages(body: &[u8]) -> Vec<Value> {
    if let Ok(v) = serde_json::from_slice::<Value>(body) {
        return vec![v];
    }
    let text = String::from_utf8_lossy(body);
    text.split("\n\n")
        .filter_map(|block| {
            let data: Vec<&str> = block
                .lines()
                .filter_map(|l| l.strip_prefix("data:"))
                .map(|d| d.strip_prefix(' ').unwrap_or(d))
                .collect();
            serde_json::from_str(&data.join("\n")).ok()
        })
        .collect()
}

/// Candidate instances: each message, the values two levels below it, and each element of
/// every array met there (content blocks, input requests, ...).
fn candidates(v: &Value, depth: usize, out: &mut Vec<Value>) {
    out.push(v.clone());
    if depth == 0 {
        return;
    }
    match v {
        Value::Object(m) => m.values().for_each(|x| candidates(x, depth - 1, out)),
        Value::Array(a) => a.iter().for_each(|x| candidates(x, depth - 1, out)),
        _ => {}
    }
}

static CORPUS: LazyLock<Vec<Value>> = LazyLock::new(|| {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for p in &fixture_files() {
        let Ok(f) = ExchangeFile::from_slice(&std::fs::read(p).unwrap()) else {
            continue;
        };
        let Ok(ex) = f.to_exchange() else { continue };
        for m in messages(&ex.body) {
            candidates(&m, 4, &mut out);
        }
        if let Some(r) = &ex.request.body {
            candidates(r, 2, &mut out);
        }
    }
    let vectors: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("tests/vectors/edge-cases.json")).unwrap(),
    )
    .unwrap();
    candidates(&vectors, 6, &mut out);
    out.sort_by_key(Value::to_string);
    out.dedup();
    out
});

struct Def {
    protocol: Protocol,
    name: String,
    fast: FastValidator,
}

static DEFS: LazyLock<Vec<Def>> = LazyLock::new(|| {
    let mut defs = Vec::new();
    let mut unsupported = Vec::new();
    for p in Protocol::all() {
        let root: Value = serde_json::from_str(mcp_verdict::schema::source(p)).unwrap();
        for name in root["$defs"].as_object().unwrap().keys() {
            match FastValidator::compile(&root, name) {
                Ok(fast) => defs.push(Def {
                    protocol: p,
                    name: name.clone(),
                    fast,
                }),
                Err(e) => unsupported.push(format!("{p} {name}: {}", e.0)),
            }
        }
    }
    assert!(
        unsupported.is_empty(),
        "definitions without a fast validator: {unsupported:#?}"
    );
    defs
});

/// Where `jsonschema`, the fast check on the `Value` and the fast check on a tape read from
/// the instance's text (compact and pretty) do not all give the same answer.
fn disagreements(instance: &Value) -> Vec<String> {
    let compact = serde_json::to_string(instance).unwrap();
    let pretty = serde_json::to_string_pretty(instance).unwrap();
    let tapes: Vec<Tape<'_>> = [&compact, &pretty]
        .into_iter()
        .filter_map(|t| Tape::read(t))
        .collect();
    // The corpus's deep-JSON bodies are past the tape's depth; everything else is read.
    assert!(
        tapes.len() == 2 || deep::deeper_than(instance, tape::MAX_DEPTH - 1),
        "not read onto a tape: {compact}"
    );
    DEFS.iter()
        .filter_map(|d| {
            let full = mcp_verdict::schema::for_revision(d.protocol)
                .def(&d.name)
                .unwrap()
                .is_valid(instance);
            let fast = d.fast.is_valid(instance);
            let on_tape: Vec<bool> = tapes
                .iter()
                .map(|t| d.fast.is_valid_tape(t.root()))
                .collect();
            (full != fast || on_tape.iter().any(|&t| t != fast)).then(|| {
                format!(
                    "{} {}: jsonschema {full}, fast {fast}, on tapes {on_tape:?}: {instance}",
                    d.protocol, d.name
                )
            })
        })
        .collect()
}

#[test]
fn every_definition_compiles_and_agrees_on_the_corpus() {
    assert!(CORPUS.len() > 500, "corpus too small: {}", CORPUS.len());
    let mut bad = Vec::new();
    let mut valid_somewhere = 0;
    for v in CORPUS.iter() {
        bad.extend(disagreements(v));
        valid_somewhere += usize::from(DEFS.iter().any(|d| d.fast.is_valid(v)));
    }
    assert!(
        bad.is_empty(),
        "{} disagreements:\n{}",
        bad.len(),
        bad.join("\n")
    );
    // Both answers occur, so agreement is not agreement on "always invalid".
    assert!(
        valid_somewhere > 100,
        "only {valid_somewhere} instances valid anywhere"
    );
}

/// A 2026-07-28 definition's fast validator.
fn def_2026(name: &str) -> &'static Def {
    DEFS.iter()
        .find(|d| d.protocol == Protocol::V2026_07_28 && d.name == name)
        .unwrap()
}

#[test]
fn the_hot_definition_accepts_a_conformant_result_and_rejects_broken_ones() {
    let d = def_2026("CallToolResult");
    let ok = json!({"resultType": "complete", "content": [
        {"type": "text", "text": "hi", "annotations": {"audience": ["user"], "priority": 0.5}},
        {"type": "resource_link", "uri": "https://example.com/x", "name": "x"},
        {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"}]});
    assert!(d.fast.is_valid(&ok));
    for (pointer, bad) in [
        ("/content/0/text", json!(1)),
        ("/content/0/type", json!("txt")),
        ("/content/0/annotations/priority", json!(2)),
        ("/content/0/annotations/audience/0", json!("robot")),
        ("/content/1/uri", json!("not a uri")),
        ("/content/2/data", json!("!!")),
        ("/resultType", json!(7)),
        ("/content", json!({})),
    ] {
        let mut v = ok.clone();
        *v.pointer_mut(pointer).unwrap() = bad;
        assert!(!d.fast.is_valid(&v), "{pointer}: {v}");
        assert!(disagreements(&v).is_empty(), "{v}");
    }
    let mut v = ok.clone();
    v.as_object_mut().unwrap().remove("content");
    assert!(!d.fast.is_valid(&v));
}

#[test]
fn keywords_outside_the_subset_are_not_compiled() {
    for schema in [
        json!({"$defs": {"A": {"type": "string", "pattern": "^a"}}}),
        json!({"$defs": {"A": {"$ref": "#/$defs/A"}}}),
        json!({"$defs": {"A": {"allOf": [{"$ref": "#/$defs/B"}]}, "B": {"anyOf": [{"$ref": "#/$defs/A"}]}}}),
        json!({"$defs": {"A": {"$ref": "https://example.com/schema"}}}),
        json!({"$defs": {"A": {"properties": {"x": {"minLength": 1}}}}}),
        json!({"$defs": {"A": {"type": []}}}),
    ] {
        assert!(FastValidator::compile(&schema, "A").is_err(), "{schema}");
    }
    // A format is whatever a `jsonschema` validator of that format alone says, so an unknown
    // one is treated as the full validator treats it.
    let unknown = json!({"$defs": {"A": {"format": "no-such-format"}}});
    let v = FastValidator::compile(&unknown, "A").unwrap();
    let full = jsonschema::options()
        .should_validate_formats(true)
        .build(&json!({"format": "no-such-format"}))
        .unwrap();
    assert_eq!(v.is_valid(&json!("x")), full.is_valid(&json!("x")));
    // Recursion that descends into the instance is fine.
    let tree =
        json!({"$defs": {"A": {"type": "object", "properties": {"child": {"$ref": "#/$defs/A"}}}}});
    let v = FastValidator::compile(&tree, "A").unwrap();
    assert!(v.is_valid(&json!({"child": {"child": {}}})));
    assert!(!v.is_valid(&json!({"child": {"child": 1}})));
}

#[test]
fn a_union_that_is_not_told_apart_by_its_type_constant_is_tried_branch_by_branch() {
    // The second branch is not an object schema: a string passes it, which dispatching on
    // `type` alone would miss.
    let s = json!({"$defs": {
        "U": {"anyOf": [{"$ref": "#/$defs/T"}, {"type": "string"}]},
        "T": {"type": "object", "required": ["type"], "properties": {"type": {"const": "t"}}}}});
    let v = FastValidator::compile(&s, "U").unwrap();
    assert!(v.is_valid(&json!("a string")));
    assert!(v.is_valid(&json!({"type": "t"})));
    assert!(!v.is_valid(&json!({"type": "u"})));
    // All branches told apart: a block naming no branch fails, a block naming one is checked
    // against that one only.
    let s = json!({"$defs": {
        "U": {"anyOf": [{"$ref": "#/$defs/T"}, {"$ref": "#/$defs/W"}]},
        "T": {"type": "object", "required": ["type", "t"], "properties": {"type": {"const": "t"}}},
        "W": {"type": "object", "required": ["type"], "properties": {"type": {"const": "w"}, "n": {"type": "integer"}}}}});
    let v = FastValidator::compile(&s, "U").unwrap();
    assert!(v.is_valid(&json!({"type": "w", "n": 2.0})));
    assert!(!v.is_valid(&json!({"type": "w", "n": 2.5})));
    assert!(!v.is_valid(&json!({"type": "t"})));
    assert!(!v.is_valid(&json!({"type": 1})));
    assert!(!v.is_valid(&json!("t")));
}

const REPLACEMENTS: &[&str] = &[
    "null",
    "true",
    "0",
    "-1",
    "1.5",
    "2.0",
    "\"\"",
    "\"text\"",
    "\"image\"",
    "\"resource_link\"",
    "\"complete\"",
    "\"input_required\"",
    "\"https://example.com/a\"",
    "\"aGVsbG8=\"",
    "[]",
    "{}",
    "[\"user\"]",
    "{\"type\":\"text\",\"text\":\"x\"}",
];

/// Every location in `v`, as JSON pointers.
fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                let p = format!("{at}/{}", k.replace('~', "~0").replace('/', "~1"));
                out.push(p.clone());
                pointers(x, p, out);
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                let p = format!("{at}/{i}");
                out.push(p.clone());
                pointers(x, p, out);
            }
        }
        _ => {}
    }
}

/// Applies one mutation: replace, delete, or add a member next to the chosen location.
pub(crate) fn mutate(v: &mut Value, at: usize, op: u8, with: usize) {
    let mut ps = Vec::new();
    pointers(v, String::new(), &mut ps);
    let replacement: Value = serde_json::from_str(REPLACEMENTS[with % REPLACEMENTS.len()]).unwrap();
    if ps.is_empty() {
        *v = replacement;
        return;
    }
    let p = &ps[at % ps.len()];
    let (parent, last) = p.rsplit_once('/').unwrap();
    match op % 3 {
        0 => *v.pointer_mut(p).unwrap() = replacement,
        1 => match v.pointer_mut(parent).unwrap() {
            Value::Object(m) => {
                m.remove(&last.replace("~1", "/").replace("~0", "~"));
            }
            Value::Array(a) => {
                a.remove(last.parse::<usize>().unwrap());
            }
            _ => {}
        },
        _ => match v.pointer_mut(parent).unwrap() {
            Value::Object(m) => {
                m.insert(format!("extra{with}"), replacement);
            }
            Value::Array(a) => a.push(replacement),
            _ => {}
        },
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn mutants_of_the_corpus_get_the_same_answer(
        pick in any::<usize>(),
        steps in proptest::collection::vec((any::<usize>(), any::<u8>(), any::<usize>()), 1..4),
    ) {
        // Objects only: mutating scalars says little.
        let objects: Vec<&Value> = CORPUS.iter().filter(|v| v.is_object()).collect();
        let mut v = objects[pick % objects.len()].clone();
        for (at, op, with) in steps {
            mutate(&mut v, at, op, with);
        }
        let bad = disagreements(&v);
        prop_assert!(bad.is_empty(), "{}", bad.join("\n"));
    }
}

#[test]
fn integer_is_decided_on_a_tape_as_jsonschema_decides_it() {
    // `Error.code` is an `integer`: every way of writing a number, with and without a
    // fraction or an exponent, is accepted or refused on a tape as `jsonschema` does on the
    // `Value` read from the same text.
    let d = def_2026("Error");
    let full = mcp_verdict::schema::for_revision(d.protocol)
        .def(&d.name)
        .unwrap();
    let (mut integers, mut others) = (0, 0);
    for n in [
        "0",
        "-0",
        "5",
        "-5",
        "5.0",
        "5.00",
        "-5.0",
        "5.5",
        "0.5",
        "-0.0",
        "0.0001",
        "5e0",
        "5E2",
        "5e+2",
        "5e-1",
        "50e-1",
        "5.5e1",
        "5.55e1",
        "1.0e-1",
        "9223372036854775807",
        "9223372036854775808",
        "18446744073709551616",
        "-9223372036854775809",
        "1.000000000000000000001",
        "100000000000000000000.0",
    ] {
        let text = format!(r#"{{"code": {n}, "message": "m"}}"#);
        let value: Value = serde_json::from_str(&text).unwrap();
        let tape = Tape::read(&text).unwrap();
        let want = full.is_valid(&value);
        assert_eq!(d.fast.is_valid_tape(tape.root()), want, "{n}");
        assert_eq!(d.fast.is_valid(&value), want, "{n}");
        if want {
            integers += 1;
        } else {
            others += 1;
        }
    }
    assert!(
        integers > 10 && others > 5,
        "{integers} integers, {others} others"
    );
}
