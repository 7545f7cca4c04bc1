#![no_main]

//! A HAR capture, read, judged and rendered as `classify --har` does.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = mcp_verdict::fuzzing::har(data);
});
