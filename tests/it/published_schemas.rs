//! The JSON Schemas published under `schemas/` are generated from the Rust types; these tests
//! fail when a committed file drifts from its types. Regenerate with
//! `MCP_VERDICT_BLESS=1 cargo test --test it published_schemas::`.

use std::path::Path;

use mcp_verdict::ExchangeFile;
use serde_json::Value;

use crate::support::corpus::fixture_files;
use crate::support::judge::judge_under;

fn check(file: &str, generated: Value) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("schemas")
        .join(file);
    let text = serde_json::to_string_pretty(&generated).unwrap() + "\n";
    if std::env::var_os("MCP_VERDICT_BLESS").is_some() {
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e}; generate it with MCP_VERDICT_BLESS=1 cargo test --test it published_schemas::",
            path.display()
        )
    });
    assert!(
        committed == text,
        "{} drifted from the types; regenerate with MCP_VERDICT_BLESS=1 cargo test --test it published_schemas::",
        path.display()
    );
}

#[test]
fn exchange_schema_is_current() {
    check(
        "exchange.schema.json",
        mcp_verdict::wire::exchange::exchange_json_schema(),
    );
}

#[test]
fn stdio_transcript_entry_schema_is_current() {
    check(
        "stdio-transcript-entry.schema.json",
        mcp_verdict::wire::stdio::transcript::entry_json_schema(),
    );
}

/// The exchange schema says which members each transport needs, as the reader does.
#[test]
fn the_exchange_schema_tells_the_transports_apart() {
    let schema = mcp_verdict::wire::exchange::exchange_json_schema();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let response = serde_json::json!({"status": 200});
    let stdio = serde_json::json!({"stdout": "{}\n"});
    for (file, valid) in [
        (serde_json::json!({"response": response}), true),
        (serde_json::json!({"stdio": stdio}), true),
        (
            serde_json::json!({"transport": "stdio", "stdio": stdio}),
            true,
        ),
        (
            serde_json::json!({"transport": "http", "response": response}),
            true,
        ),
        (serde_json::json!({}), false),
        (serde_json::json!({"transport": "stdio"}), false),
        (
            serde_json::json!({"transport": "stdio", "response": response}),
            false,
        ),
        (
            serde_json::json!({"transport": "http", "stdio": stdio}),
            false,
        ),
        (
            serde_json::json!({"response": response, "stdio": stdio}),
            false,
        ),
    ] {
        assert_eq!(validator.is_valid(&file), valid, "{file}");
        let read = ExchangeFile::from_slice(file.to_string().as_bytes())
            .and_then(ExchangeFile::into_exchange);
        assert_eq!(read.is_ok(), valid, "{file}: {read:?}");
    }
}

#[test]
fn classify_output_schema_is_current() {
    check(
        "classify-output.schema.json",
        mcp_verdict::views::classify_output_json_schema(),
    );
}

#[test]
fn compact_record_schema_is_current() {
    check(
        "classify-compact.schema.json",
        mcp_verdict::outputs::compact::compact_record_json_schema(),
    );
}

/// Every shipped fixture validates against the published exchange schema, so editors that use
/// the `$schema` reference see the same format the engine reads.
#[test]
fn fixtures_validate_against_the_exchange_schema() {
    let schema = mcp_verdict::wire::exchange::exchange_json_schema();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let mut n = 0;
    for p in fixture_files() {
        let v: Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
        let errors: Vec<String> = validator.iter_errors(&v).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{}: {errors:?}", p.display());
        n += 1;
    }
    assert!(n > 100, "only {n} fixtures found");
}

/// `classify --format json` output validates against its published schema.
#[test]
fn classify_output_validates_against_its_schema() {
    let schema = mcp_verdict::views::classify_output_json_schema();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/both/stream");
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let file = mcp_verdict::ExchangeFile::from_slice(&std::fs::read(&p).unwrap()).unwrap();
        let ex = file.to_exchange().unwrap();
        let all: Vec<mcp_verdict::Protocol> = mcp_verdict::Protocol::all().collect();
        let j = judge_under(&ex, &all);
        let out = serde_json::to_value(mcp_verdict::views::JudgementOut::of(
            &j,
            Some(p.display().to_string()),
        ))
        .unwrap();
        let errors: Vec<String> = validator.iter_errors(&out).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{}: {errors:?}", p.display());
    }
}
