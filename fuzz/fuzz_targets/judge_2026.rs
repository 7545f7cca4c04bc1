#![no_main]

//! The judge on arbitrary response bytes under revision 2026-07-28.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = mcp_verdict::fuzzing::judge_body(mcp_verdict::Protocol::V2026_07_28, data);
});
