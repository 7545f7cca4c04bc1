#![no_main]

//! `serve`'s HTTP request parser on the bytes a client sent.

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = mcp_verdict::fuzzing::serve_request(data);
});
