//! `run::stream::run` with the JSON Lines format: order, bad lines, blank lines, bounded memory on a long generated stream.

use std::io::{self, BufRead, Read, Write};

use mcp_verdict::outputs::jsonl::JsonLines;
use mcp_verdict::run::stream::{self, JsonlOptions};
use mcp_verdict::{Options, Protocol};
use serde_json::{Value, json};

/// An exchange line whose request id and name encode `n`, with outcomes that vary with `n`
/// (so judging costs differ and workers finish out of order).
fn exchange_line(n: usize) -> String {
    let body = match n % 4 {
        0 => json!({"jsonrpc": "2.0", "id": n, "result": {"content": [{"type": "text", "text": "ok"}]}}).to_string(),
        1 => json!({"jsonrpc": "2.0", "id": n, "error": {"code": -32602, "message": "Unknown tool"}}).to_string(),
        2 => json!({"jsonrpc": "2.0", "id": n, "result": {"content": [{"type": "text", "text": "no"}], "isError": true}}).to_string(),
        _ => "<html>502</html>".to_string(),
    };
    let ct = if n % 4 == 3 {
        "text/html"
    } else {
        "application/json"
    };
    let status = if n % 4 == 3 { 502 } else { 200 };
    json!({
        "name": format!("ex-{n}"),
        "request": {"headers": {"MCP-Protocol-Version": "2025-11-25"},
                    "body": {"jsonrpc": "2.0", "id": n, "method": "tools/call", "params": {"name": "t", "arguments": {}}}},
        "response": {"status": status, "headers": {"Content-Type": ct}, "body": body}
    })
    .to_string()
}

fn options(threads: usize, max_in_flight: usize) -> JsonlOptions<'static> {
    JsonlOptions {
        threads,
        max_in_flight,
        ..JsonlOptions::default()
    }
}

fn run_str(input: &str, opts: &JsonlOptions<'_>) -> (Vec<Value>, stream::Summary) {
    let mut out = Vec::new();
    let summary = stream::run(
        io::Cursor::new(input.as_bytes().to_vec()),
        &mut out,
        opts,
        &JsonLines,
    )
    .unwrap();
    let records = String::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    (records, summary)
}

#[test]
fn order_is_preserved_with_many_lines_and_threads() {
    let n = 1500;
    let input: String = (0..n).map(|i| exchange_line(i) + "\n").collect();
    let opts = options(4, 16);
    let (records, summary) = run_str(&input, &opts);
    assert_eq!(records.len(), n);
    for (i, r) in records.iter().enumerate() {
        assert_eq!(r["line"], i + 1);
        assert_eq!(r["exchange"], format!("ex-{i}"));
        assert_eq!(r["verdicts"][0]["facts"]["request_id"], i);
        let want = ["TOOL_SUCCESS", "JSONRPC_ERROR", "TOOL_ERROR", "HTTP_ERROR"][i % 4];
        assert_eq!(r["verdicts"][0]["outcome"], want, "line {}", i + 1);
    }
    assert_eq!(summary.threads, 4);
    assert_eq!((summary.lines, summary.judged, summary.errors), (n, n, 0));
    assert!(summary.peak_in_flight <= 16, "{summary:?}");
    assert!(summary.peak_reorder <= 16, "{summary:?}");
}

#[test]
fn a_bad_line_in_the_middle_gives_an_error_record_and_the_stream_goes_on() {
    let lines = [
        exchange_line(0),
        "{\"request\": {}, \"response\": {\"status\": 200,".to_string(),
        exchange_line(4),
        "{\"response\": {\"status\": 200}, \"surprise\": true}".to_string(),
        "[1, 2]".to_string(),
        json!({"request": {"body": {"jsonrpc": "2.0", "id": 1, "method": "tools/call"}},
               "response": {"status": 200}}).to_string(),
        json!({"request": {"headers": {"MCP-Protocol-Version": "1999-01-01"}},
               "response": {"status": 200}}).to_string(),
        json!({"protocol": "2025-11-25", "response": {"status": 200, "body": "{}", "body_json": {}}}).to_string(),
        exchange_line(8),
    ];
    let input = lines.join("\n");
    let (records, summary) = run_str(&input, &options(3, 8));
    assert_eq!(records.len(), 9);
    let lines_seen: Vec<u64> = records
        .iter()
        .map(|r| r["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines_seen, (1..=9).collect::<Vec<_>>());
    let err = |i: usize| {
        records[i]["error"]
            .as_str()
            .unwrap_or_else(|| panic!("{}", records[i]))
    };
    assert!(err(1).starts_with("not JSON at column "), "{}", err(1));
    assert!(err(1).contains("column"), "{}", err(1));
    assert!(
        err(3).starts_with("not an exchange at column ") && err(3).contains("surprise"),
        "{}",
        err(3)
    );
    assert!(
        err(4).starts_with("not an exchange at column "),
        "{}",
        err(4)
    );
    assert!(
        err(5).contains("cannot tell which protocol revision"),
        "{}",
        err(5)
    );
    assert!(err(6).contains("1999-01-01"), "{}", err(6));
    assert!(err(7).contains("only one"), "{}", err(7));
    for i in [1, 3, 4, 5, 6, 7] {
        assert_eq!(
            records[i].as_object().unwrap().len(),
            2,
            "error records are {{line, error}}"
        );
    }
    for i in [0, 2, 8] {
        assert_eq!(records[i]["verdicts"][0]["outcome"], "TOOL_SUCCESS");
    }
    assert_eq!((summary.judged, summary.errors), (3, 6));
    assert!(summary.failed());
}

#[test]
fn blank_lines_are_skipped_and_counted_and_crlf_is_accepted() {
    let input = format!(
        "\n{}\r\n   \r\n\t\n{}\n\n{}",
        exchange_line(0),
        exchange_line(4),
        exchange_line(8)
    );
    let (records, summary) = run_str(&input, &options(2, 4));
    let lines_seen: Vec<u64> = records
        .iter()
        .map(|r| r["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines_seen, [2, 5, 7]);
    assert_eq!((summary.lines, summary.blank, summary.judged), (7, 4, 3));
    assert!(!summary.failed());

    let (records, summary) = run_str("", &options(2, 4));
    assert!(records.is_empty());
    assert_eq!(summary.lines, 0);
    // A byte order mark before the first line is not part of the exchange.
    let (records, _) = run_str(&format!("\u{feff}{}\n", exchange_line(0)), &options(1, 4));
    assert_eq!(records[0]["verdicts"][0]["outcome"], "TOOL_SUCCESS");
}

#[test]
fn revision_from_options() {
    let line = json!({"request": {"body": {"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "t"}}},
                      "response": {"status": 200, "body_json": {"jsonrpc": "2.0", "id": 1, "result": {"content": []}}}})
    .to_string();
    let all: Vec<Protocol> = Protocol::all().collect();
    let opts = JsonlOptions {
        judge: Options {
            protocols: Some(&all),
            ..Options::default()
        },
        ..options(2, 8)
    };
    let (records, summary) = run_str(&line, &opts);
    assert_eq!(records[0]["verdicts"].as_array().unwrap().len(), 2);
    assert_eq!(summary.errors, 0);
}

#[test]
fn overlong_lines_are_rejected_without_being_held() {
    let long = format!(
        "{{\"name\": \"{}\", \"response\": {{\"status\": 200}}}}",
        "x".repeat(10_000)
    );
    let input = format!("{}\n{long}\n{}\n", exchange_line(0), exchange_line(4));
    let opts = JsonlOptions {
        max_line_bytes: 4096,
        ..options(2, 8)
    };
    let (records, summary) = run_str(&input, &opts);
    assert_eq!(records.len(), 3);
    let e = records[1]["error"].as_str().unwrap();
    assert!(
        e.contains(&long.len().to_string()) && e.contains("4096"),
        "{e}"
    );
    assert_eq!(records[2]["verdicts"][0]["outcome"], "TOOL_SUCCESS");
    assert!(summary.peak_in_flight_bytes <= 4096 * 8, "{summary:?}");
}

/// Produces `total` lines on the fly; the input never exists in memory as a whole.
struct Generated {
    next: usize,
    total: usize,
    pending: Vec<u8>,
    pos: usize,
}

impl Generated {
    fn line(n: usize) -> String {
        // Every 50th line is a real exchange; the rest are cheap bad lines and blanks, so the
        // test stays fast while every kind of line flows through the pipeline.
        match n % 50 {
            0 => exchange_line(n),
            7 => String::new(),
            _ => format!("{{\"seq\": {n}, \"padding\": \"{}\"}}", "p".repeat(n % 97)),
        }
    }
}

impl Read for Generated {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.pos == self.pending.len() {
            if self.next == self.total {
                return Ok(0);
            }
            self.pending = (Self::line(self.next) + "\n").into_bytes();
            self.pos = 0;
            self.next += 1;
        }
        let n = buf.len().min(self.pending.len() - self.pos);
        buf[..n].copy_from_slice(&self.pending[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

/// Checks each output record's line number as it arrives; keeps only the current record.
struct Checker {
    partial: Vec<u8>,
    expect: usize,
    records: usize,
    max_partial: usize,
}

impl Checker {
    fn record(&mut self, rec: &[u8]) {
        // Skip the blank lines the generator made (every 50th line, offset 7).
        while self.expect % 50 == 7 {
            self.expect += 1;
        }
        let want = format!("{{\"line\":{},", self.expect + 1);
        assert!(
            rec.starts_with(want.as_bytes()),
            "expected {want}, got {}",
            String::from_utf8_lossy(&rec[..rec.len().min(80)])
        );
        self.expect += 1;
        self.records += 1;
    }
}

impl Write for Checker {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        for &b in buf {
            if b == b'\n' {
                let rec = std::mem::take(&mut self.partial);
                self.record(&rec);
            } else {
                self.partial.push(b);
                self.max_partial = self.max_partial.max(self.partial.len());
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_100k_line_stream_runs_in_bounded_memory_and_order() {
    let total = 100_000;
    let reader = io::BufReader::with_capacity(
        8 << 10,
        Generated {
            next: 0,
            total,
            pending: Vec::new(),
            pos: 0,
        },
    );
    let mut checker = Checker {
        partial: Vec::new(),
        expect: 0,
        records: 0,
        max_partial: 0,
    };
    let opts = JsonlOptions {
        threads: 3,
        max_in_flight: 64,
        max_in_flight_bytes: 16 << 10,
        ..JsonlOptions::default()
    };
    let summary = stream::run(reader, &mut checker, &opts, &JsonLines).unwrap();
    let blank = total / 50;
    let judged = total / 50;
    assert_eq!(summary.lines, total);
    assert_eq!(summary.blank, blank);
    assert_eq!(summary.judged, judged);
    assert_eq!(summary.errors, total - blank - judged);
    assert_eq!(checker.records, total - blank);
    // The bound: never more than `max_in_flight` lines or `max_in_flight_bytes` input bytes
    // between reading and writing, whatever the input length.
    assert!(summary.peak_in_flight <= 64, "{summary:?}");
    assert!(summary.peak_in_flight_bytes <= 16 << 10, "{summary:?}");
    assert!(summary.peak_reorder <= 64, "{summary:?}");
    assert!(summary.peak_in_flight >= 1);
}

#[test]
fn the_reader_may_fail() {
    struct Failing(usize);
    impl Read for Failing {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0 == 0 {
                return Err(io::Error::other("disk on fire"));
            }
            self.0 -= 1;
            let line = exchange_line(0) + "\n";
            buf[..line.len()].copy_from_slice(line.as_bytes());
            Ok(line.len())
        }
    }
    let mut out = Vec::new();
    let err = stream::run(
        io::BufReader::with_capacity(64 << 10, Failing(2)),
        &mut out,
        &options(2, 4),
        &JsonLines,
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("reading input: disk on fire"),
        "{err}"
    );
    // What was read before the error is still judged and written, in order.
    assert_eq!(out.lines().count(), 2);
}

#[test]
fn the_writer_may_fail_without_hanging() {
    struct Closed;
    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from(io::ErrorKind::BrokenPipe))
        }
        fn flush(&mut self) -> io::Result<()> {
            Err(io::Error::from(io::ErrorKind::BrokenPipe))
        }
    }
    let input: String = (0..2000).map(|i| exchange_line(i * 4) + "\n").collect();
    let err = stream::run(
        io::Cursor::new(input.into_bytes()),
        Closed,
        &options(2, 8),
        &JsonLines,
    )
    .unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::BrokenPipe);
}
