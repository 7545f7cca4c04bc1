#![no_main]

//! An exchange file, read, judged and rendered as `classify FILE` does.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = mcp_verdict::fuzzing::exchange_file(data);
});
