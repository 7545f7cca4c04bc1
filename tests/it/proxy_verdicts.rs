//! What the proxy judges is what `serve` judged it sent and what `classify` says of the
//! proxy's own recordings: every plain fault scenario of `serve`, under both revisions, is
//! called through a proxy (setup, `tools/list`, an `echo` call); the proxy's log record of the
//! call carries `serve`'s outcome and deciding rule, and each exchange file it recorded,
//! judged again by `mcp-verdict classify`, gives the verdicts of its log record, byte for byte.

use std::path::Path;
use std::time::Duration;

use mcp_verdict::Protocol;
use mcp_verdict::proxy::{self, ProxyConfig};
use mcp_verdict::serve::{SCENARIOS, Transport};
use serde_json::{Value, json};

use crate::support::cli::{bin, run};
use crate::support::serve::*;
use crate::support::temp::temp_dir;

/// As in `serve_verdicts`: scenarios whose answer to a plain `echo` call is not one outcome;
/// and `auth`, which answers nothing to a client without a token.
const NOT_PLAIN: &[&str] = &[
    "auth",
    "input_required",
    "server_request_on_stream",
    "http_status_sequence",
    "rate_limited",
    "lenient",
];

fn log_records(path: &Path) -> Vec<Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `classify FILE --format json` of each recorded exchange, by its number.
fn classified(dir: &Path) -> Vec<(usize, Value)> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|f| {
            let n: usize = f.file_name().unwrap().to_str().unwrap()[..4]
                .parse()
                .unwrap();
            let out = run(
                bin().arg("classify").arg(&f).args(["--format", "json"]),
                None,
            );
            let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
                panic!(
                    "{}: {e}: {}",
                    f.display(),
                    String::from_utf8_lossy(&out.stderr)
                )
            });
            (n, v)
        })
        .collect()
}

fn list_tools(addr: std::net::SocketAddr, rev: Protocol, sid: Option<&str>) {
    let (headers, body) = match rev {
        Protocol::V2026_07_28 => (
            modern_headers("tools/list", None),
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list",
                   "params": {"_meta": modern_meta(json!({}))}}),
        ),
        Protocol::V2025_11_25 => (
            legacy_headers(sid.unwrap()),
            json!({"jsonrpc": "2.0", "id": 3, "method": "tools/list"}),
        ),
    };
    let r = post(addr, &headers, &body);
    assert_eq!(r.status, 200, "{}", r.text());
}

#[test]
fn the_proxy_judges_as_serve_did_and_as_classify_does_on_its_recordings() {
    let plain: Vec<_> = SCENARIOS
        .iter()
        .filter(|s| !NOT_PLAIN.contains(&s.name) && s.transports.contains(&Transport::Http))
        .collect();
    assert!(plain.len() >= 16, "{} plain scenarios", plain.len());
    let mut checked = 0;
    for info in &plain {
        for rev in Protocol::all() {
            let what = format!("{} {rev}", info.name);
            let server = start_with(info.example, |c| c.stall_cap = Duration::from_millis(300));
            let dir = temp_dir("proxy-verdicts");
            let mut config = ProxyConfig::new(&server.url());
            config.log = Some(dir.join("log.jsonl"));
            config.record = Some(dir.join("rec"));
            let p = proxy::start(config).unwrap();
            let sid = setup(p.addr(), rev, json!({}));
            list_tools(p.addr(), rev, sid.as_deref());
            let _ = echo_call(p.addr(), rev, sid.as_deref());
            let served = settled_records(&server)
                .into_iter()
                .rev()
                .find(|r| r.method.as_deref() == Some("tools/call"))
                .expect("a tools/call record");
            server.shutdown();
            let summary = p.stop();
            assert_eq!(summary.calls, 1, "{what}: {summary:?}");
            let records = log_records(&dir.join("log.jsonl"));
            let call = records
                .iter()
                .find(|r| {
                    r["exchange"]
                        .as_str()
                        .is_some_and(|e| e.contains("tools/call"))
                })
                .unwrap_or_else(|| panic!("{what}: no call in the log {records:?}"));
            let verdict = &call["verdicts"][0];
            assert_eq!(verdict["protocol"], rev.as_str(), "{what}");
            assert_eq!(
                verdict["outcome"].as_str(),
                served.outcome.as_deref(),
                "{what}: the proxy and serve disagree"
            );
            let decided = verdict["cites"]
                .as_array()
                .and_then(|c| c.first())
                .and_then(|c| c["id"].as_str());
            assert_eq!(decided, served.rule.as_deref(), "{what}: deciding rule");
            // The setup answers were judged too, and every record has its recording.
            let setup_methods: Vec<&str> = records
                .iter()
                .filter_map(|r| r["exchange"].as_str())
                .filter(|e| !e.contains("tools/call"))
                .collect();
            let want_setup = match rev {
                Protocol::V2025_11_25 => 2,
                Protocol::V2026_07_28 => 1,
            };
            assert_eq!(setup_methods.len(), want_setup, "{what}: {setup_methods:?}");
            let again = classified(&dir.join("rec"));
            assert_eq!(again.len(), records.len(), "{what}");
            for (n, doc) in again {
                let logged = records
                    .iter()
                    .find(|r| r["line"] == n)
                    .unwrap_or_else(|| panic!("{what}: no log record {n}"));
                assert_eq!(
                    doc["verdicts"], logged["verdicts"],
                    "{what}: classify on recording {n} disagrees with the log"
                );
            }
            checked += 1;
        }
    }
    assert_eq!(checked, plain.len() * 2);
}
