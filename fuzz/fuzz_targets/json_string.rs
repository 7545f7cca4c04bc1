#![no_main]

//! The hand-written decoder of a large `response.body` literal, against `serde_json`.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = mcp_verdict::fuzzing::json_string(data);
});
