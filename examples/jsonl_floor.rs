//! The parse floor of a JSONL stream of exchanges, single-threaded: read each line, parse it as
//! an exchange file, and parse its response body once (JSON, or each SSE event's data). What
//! `classify --jsonl` does beyond this is the judging. Used by `benches/scale.py`.
//!
//!     jsonl_floor FILE

use std::io::BufRead;

use mcp_verdict::ExchangeFile;
use serde_json::Value;

fn main() {
    let path = std::env::args().nth(1).expect("usage: jsonl_floor FILE");
    let reader = std::io::BufReader::new(std::fs::File::open(&path).expect("readable"));
    let (mut lines, mut bodies) = (0usize, 0usize);
    for line in reader.lines() {
        let line = line.expect("a line");
        if line.trim().is_empty() {
            continue;
        }
        lines += 1;
        let Ok(file) = ExchangeFile::from_slice(line.as_bytes()) else {
            continue;
        };
        let Ok(ex) = file.to_exchange() else { continue };
        let sse = ex
            .response_headers
            .get("Content-Type")
            .is_some_and(|c| c.to_ascii_lowercase().starts_with("text/event-stream"));
        if sse {
            for event in mcp_verdict::wire::sse::parse(&ex.body).events {
                bodies += usize::from(serde_json::from_str::<Value>(&event.data).is_ok());
            }
        } else {
            bodies += usize::from(serde_json::from_slice::<Value>(&ex.body).is_ok());
        }
    }
    println!("{lines} lines, {bodies} bodies parsed");
}
