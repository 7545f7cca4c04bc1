#![no_main]

//! The judge on arbitrary response bytes under revision 2025-11-25.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = mcp_verdict::fuzzing::judge_body(mcp_verdict::Protocol::V2025_11_25, data);
});
