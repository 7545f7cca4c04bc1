#![no_main]

//! The SSE parser, the whole input at once and in chunks.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = mcp_verdict::fuzzing::sse(data);
});
