//! `serve` judges every `tools/call` answer it sends: the record carries the verdict's outcome,
//! deciding rule, error findings and retry advice, and the outcome is the one the scenario
//! table promises for the revision (`serve --list`), with exactly the error findings the table
//! names for it: one fault per scenario.

use std::time::Duration;

use mcp_verdict::Protocol;
use mcp_verdict::serve::{SCENARIOS, Transport};
use serde_json::json;

use crate::support::serve::*;

/// Scenarios whose answer to a plain `echo` call the table does not word as one outcome: they
/// need a client that answers (input_required, server_request_on_stream), act on the first
/// POST (http_status_sequence's default, rate_limited), need a file (lenient) or a client that
/// authorizes (auth: tests/it/serve_auth.rs drives it with probe's OAuth client). Every other
/// scenario, present and future, is checked.
const NOT_PLAIN: &[&str] = &[
    "input_required",
    "server_request_on_stream",
    "http_status_sequence",
    "rate_limited",
    "lenient",
    "auth",
];

#[test]
fn serve_records_the_verdict_the_table_promises() {
    let mut checked = 0;
    let plain: Vec<_> = SCENARIOS
        .iter()
        .filter(|s| !NOT_PLAIN.contains(&s.name) && s.transports.contains(&Transport::Http))
        .collect();
    assert!(plain.len() >= 16, "{} plain scenarios", plain.len());
    for info in &plain {
        for rev in Protocol::all() {
            let h = start_with(info.example, |c| c.stall_cap = Duration::from_millis(300));
            let sid = setup(h.addr(), rev, json!({}));
            let _ = echo_call(h.addr(), rev, sid.as_deref());
            let rec = settled_records(&h)
                .into_iter()
                .rev()
                .find(|r| r.method.as_deref() == Some("tools/call"))
                .expect("a tools/call record");
            h.shutdown();
            let promised = match rev {
                Protocol::V2025_11_25 => info.verdict_legacy,
                Protocol::V2026_07_28 => info.verdict_modern,
            };
            let outcome = rec
                .outcome
                .unwrap_or_else(|| panic!("{} {rev}: no verdict in the record", info.name));
            assert!(
                promised.starts_with(&outcome),
                "{} {rev}: serve judged what it sent {outcome}, the table promises {promised:?}",
                info.name
            );
            // One fault per scenario: the error findings are exactly the ones it names.
            let named = match rev {
                Protocol::V2025_11_25 => info.findings_legacy,
                Protocol::V2026_07_28 => info.findings_modern,
            };
            let mut want: Vec<&str> = named.to_vec();
            want.sort_unstable();
            let mut got: Vec<&str> = rec.error_findings.iter().map(String::as_str).collect();
            got.sort_unstable();
            assert_eq!(
                got, want,
                "{} {rev}: the error findings of the verdict on what serve sent",
                info.name
            );
            assert!(rec.retry_advice.is_some(), "{} {rev}: no advice", info.name);
            if outcome != "TOOL_SUCCESS" {
                assert!(rec.rule.is_some(), "{} {rev}: no deciding rule", info.name);
            }
            checked += 1;
        }
    }
    assert_eq!(
        checked,
        plain.len() * 2,
        "every plain scenario under both revisions"
    );
}

#[test]
fn a_missing_result_type_is_judged_with_its_error_finding() {
    let h = start("legacy_result");
    let _ = echo_call(h.addr(), Protocol::V2026_07_28, None);
    let rec = settled_records(&h)
        .into_iter()
        .find(|r| r.method.as_deref() == Some("tools/call"))
        .unwrap();
    h.shutdown();
    assert_eq!(rec.outcome.as_deref(), Some("TOOL_SUCCESS"));
    assert_eq!(
        rec.error_findings,
        vec!["base.result-type.required".to_string()]
    );
    let line: serde_json::Value = serde_json::from_str(&rec.to_json_line()).unwrap();
    assert_eq!(line["errorFindings"][0], "base.result-type.required");
    assert_eq!(line["rule"], "tools.result.complete");
}

#[test]
fn other_methods_carry_no_verdict() {
    let h = start("baseline");
    let sid = setup(h.addr(), Protocol::V2025_11_25, json!({}));
    let _ = echo_call(h.addr(), Protocol::V2025_11_25, sid.as_deref());
    let recs = settled_records(&h);
    h.shutdown();
    let init = recs
        .iter()
        .find(|r| r.method.as_deref() == Some("initialize"))
        .unwrap();
    assert_eq!(init.outcome, None);
    assert_eq!(init.rule, None);
    assert!(init.retry_advice.is_none());
}
