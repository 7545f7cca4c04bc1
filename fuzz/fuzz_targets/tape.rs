#![no_main]

//! The tape reader against `serde_json`, and the fast schema check on the tape against the
//! same check on the parsed value.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = mcp_verdict::fuzzing::tape(data);
});
