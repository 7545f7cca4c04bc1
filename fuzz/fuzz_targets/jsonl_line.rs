#![no_main]

//! JSON Lines, judged and written as `classify --jsonl` does.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = mcp_verdict::fuzzing::jsonl(data);
});
