//! The integration tests, in one binary (one link of the crate instead of one per file): one
//! module per area, the shared helpers in `tests/support/`.
//!
//! Run one area with `cargo test --test it check_cli::`, one test with its full path.

#[path = "../support/mod.rs"]
mod support;

mod body_tape;
mod capped_judge;
mod check_accept;
mod check_cli;
mod check_library;
mod check_memory;
mod check_stdio;
mod cite_quotes;
mod classify_cli;
mod cli_conventions;
mod clients;
mod context_checks;
mod deep_json;
mod diag_record;
mod discovery;
mod doc_blocks;
mod engine_props;
mod engine_schema_errors;
mod exact_numbers;
mod fast_schema;
mod fixtures;
mod fuzz_corpora;
mod har_cli;
mod har_read;
mod hostile_corpus;
mod hostile_strings;
mod input_encoding;
mod interop_peers;
mod interop_stdio;
mod jsonl_cli;
mod jsonl_run;
mod loop_scenarios;
mod mirror_equality;
mod official_examples;
mod probe_active;
mod probe_bounds;
mod probe_client;
mod probe_record;
mod probe_stdio;
mod probe_wire;
mod proxy_wire;
mod published_schemas;
mod report_browser;
mod report_consumers;
mod report_formats;
mod retry_advice;
mod rule_table;
mod rules_cli;
mod schema_agreement;
mod schema_test_suite;
mod secrets;
mod serve_auth;
mod serve_cli;
mod serve_conformance_fixtures;
mod serve_http;
mod serve_legacy;
mod serve_limits;
mod serve_modern;
mod serve_scenarios;
mod serve_soak;
mod serve_stdio;
mod serve_verdicts;
mod settings;
mod spec_inventory;
mod sse_props;
mod sse_twins;
mod stdio_twins;
mod stream_digest;
mod transcript_cli;
mod verdict_bytes;
