//! The HTML report in a real browser: headless Chromium, driven over WebDriver by
//! `chromedriver` on loopback (started and stopped here), renders the report of a failing
//! corpus at 1400 and 390 CSS pixels wide and checks what a person would: the failures are on
//! the first screen, the filter hides and shows rows, nothing scrolls sideways on a phone,
//! every rule link points at the spec. Screenshots go to `target/tmp/report-browser/`.
//!
//! Skipped, with a message, when Chromium or chromedriver is not installed (Debian:
//! `apt-get install chromium chromium-driver`); `MCP_VERDICT_REQUIRE_BROWSER=1` makes that a
//! failure.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use mcp_verdict::outputs::check::html;
use mcp_verdict::run::check::{self as report, CheckOptions};
use serde_json::json;

use crate::support::browser::{Driver, Session, browser};

/// Where the page and the screenshots go.
fn out_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-browser");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// The report of a failing corpus: the small corpus (a mismatch, failing findings, a baseline
/// with a stale entry, files not judged) with the shipped fixtures under every revision.
fn failing_report() -> PathBuf {
    let baseline = crate::support::corpus::listed_and_stale_baseline();
    let options = CheckOptions {
        baseline: Some(baseline),
        protocols: Some(mcp_verdict::Protocol::all().collect()),
        ..CheckOptions::default()
    };
    let run = report::run_check(&["tests/data/check/corpus", "tests/fixtures"], &options).unwrap();
    assert!(run.exit_code(true) != 0, "a failing corpus");
    let cov = report::coverage(&run.files);
    let page = out_dir().join("report.html");
    std::fs::write(&page, html::render(&run, Some(&cov))).unwrap();
    page
}

/// Rows of the failures table currently shown.
const VISIBLE_ROWS: &str = "return Array.from(document.querySelectorAll('#failures tr[data-status]')).filter(r => r.offsetParent !== null).length;";

#[test]
fn the_report_reads_in_a_browser() {
    let Some((chromium, chromedriver)) = browser() else {
        return;
    };
    let page = failing_report();
    let size = std::fs::metadata(&page).unwrap().len();
    in_browser(&chromium, &chromedriver, &page, report_in);
    eprintln!("report: {} ({size} bytes)", page.display());
}

/// Opens a browser session (with a fresh profile) and hands it the page's URL.
fn in_browser(
    chromium: &Path,
    chromedriver: &Path,
    page: &Path,
    f: impl FnOnce(&Session<'_>, &str),
) {
    let profile = crate::support::temp::temp_dir("chromium-profile");
    let driver = Driver::start(chromedriver, &out_dir());
    let s = Session::open(&driver, chromium, &profile);
    f(&s, &format!("file://{}", page.display()));
}

fn report_in(s: &Session<'_>, url: &str) {
    // A desktop window: the failures are on the first screen, with their reasons.
    s.viewport(1400, 900, false);
    s.cmd("POST", "/url", Some(json!({"url": url})));
    let first = s.js(
        "const r = document.querySelector('#failures tr[data-status]').getBoundingClientRect(); return [r.top, r.bottom, window.innerHeight];",
    );
    let (top, height) = (first[0].as_f64().unwrap(), first[2].as_f64().unwrap());
    assert!(
        top > 0.0 && top < height,
        "the first failure at {top}px of {height}px"
    );
    let why = s.js("return document.querySelector('#failures tr[data-status] td[data-label=\"Why\"]').innerText;");
    assert!(why.as_str().unwrap().len() > 20, "{why}");
    s.screenshot("desktop-1400.png");

    // The filter: a rule hides the other rows; "Show all" brings them back.
    let all = s.js(VISIBLE_ROWS).as_u64().unwrap();
    assert!(all >= 3, "{all} failure rows");
    let rule = "transport.http.400-missing-meta";
    s.click(
        "xpath",
        &format!("//form[@id='filter']//select[@name='rule']/option[text()='{rule}']"),
    );
    let expected = s
        .js(&format!(
            "return document.querySelectorAll('#failures tr[data-rules~=\"{rule}\"]').length;"
        ))
        .as_u64()
        .unwrap();
    let shown = s.js(VISIBLE_ROWS).as_u64().unwrap();
    assert!(
        expected >= 1 && shown == expected && shown < all,
        "{shown} of {all} shown, {expected} expected"
    );
    let counter = s.js("return document.getElementById('shown').innerText;");
    assert_eq!(counter, json!(format!("{shown} of {all} shown")));
    s.screenshot("desktop-1400-filtered.png");
    s.click("css selector", "#filter button[type=\"reset\"]");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(s.js(VISIBLE_ROWS).as_u64().unwrap(), all, "Show all");

    // Every rule link points at the spec sentence of a rule of the table.
    let table = mcp_verdict::Engine::builtin().table();
    let spec: BTreeSet<String> = mcp_verdict::Protocol::all()
        .flat_map(|p| table.active(p).iter().map(|a| a.cite.url.clone()))
        .collect();
    let links = s.js("return Array.from(document.querySelectorAll('a.rule')).map(a => a.href);");
    let links = links.as_array().unwrap();
    assert!(links.len() > 50, "{} rule links", links.len());
    for l in links {
        let l = l.as_str().unwrap();
        assert!(
            l.starts_with("https://") && spec.contains(l),
            "{l} is not the citation of a rule"
        );
    }

    // A phone: nothing wider than the screen, even with every section opened.
    s.viewport(390, 844, true);
    s.cmd("POST", "/url", Some(json!({"url": url})));
    let overflow = "return [document.documentElement.scrollWidth, window.innerWidth];";
    let w = s.js(overflow);
    assert!(
        w[0].as_u64() <= w[1].as_u64(),
        "page {} px wide at {} px",
        w[0],
        w[1]
    );
    let failures_top = s
        .js("return document.getElementById('failures').getBoundingClientRect().top;")
        .as_f64()
        .unwrap();
    assert!(
        failures_top < 844.0,
        "the failures start at {failures_top}px"
    );
    s.screenshot("phone-390.png");
    s.js("document.getElementById('failures').scrollIntoView(); return 0;");
    s.screenshot("phone-390-failures.png");
    s.js("document.querySelectorAll('details').forEach(d => d.open = true); return 0;");
    let w = s.js(overflow);
    assert!(
        w[0].as_u64() <= w[1].as_u64(),
        "opened: page {} px wide at {} px",
        w[0],
        w[1]
    );
    s.js("document.getElementById('conformance-2026-07-28').scrollIntoView(); return 0;");
    s.screenshot("phone-390-conformance.png");
}

/// A client matrix of four clients over three scenarios, with differences and skipped cells.
fn client_matrix_page() -> PathBuf {
    use mcp_verdict::clients::{Agreement, Cell, Conclusion, ServerVerdict};
    let mut cells = Vec::new();
    for (scenario, outcome) in [
        ("sse_close_early", "DELIVERY_UNKNOWN"),
        ("jsonrpc_error:-32602", "JSONRPC_ERROR"),
        ("wrong_id", "INVALID_ENVELOPE"),
    ] {
        for revision in ["2025-11-25", "2026-07-28"] {
            for (client, version, modern) in [
                ("ts-sdk-v2", "2.4.0", true),
                ("ts-sdk-v1", "1.32.2", false),
                ("python-sdk", "2.3.0", true),
                ("inspector-cli", "1.0.3", false),
            ] {
                let skipped = revision == "2026-07-28" && !modern;
                let hung = outcome != "JSONRPC_ERROR" && client != "python-sdk";
                let (agreement, summary) = match (skipped, hung) {
                    (true, _) => (Agreement::Skipped, String::new()),
                    (false, true) => (Agreement::Differs, "hung 10 s".to_string()),
                    (false, false) => (Agreement::Agrees, "threw McpError -32602".to_string()),
                };
                let verdict = format!("{outcome} (reissue with new id)");
                cells.push(Cell {
                    scenario: scenario.into(),
                    transport: Default::default(),
                    revision: revision.into(),
                    client: client.into(),
                    version: (!skipped).then(|| version.to_string()),
                    agreement,
                    concluded: (!skipped).then(|| Conclusion {
                        kind: if hung { "hung" } else { "threw" }.into(),
                        summary: summary.clone(),
                    }),
                    verdict: (!skipped).then(|| ServerVerdict {
                        outcome: Some(outcome.into()),
                        rule: Some("transport.sse.final-response".into()),
                        action: Some("reissue_with_new_id".into()),
                        error_findings: Vec::new(),
                        summary: verdict.clone(),
                    }),
                    difference: (agreement == Agreement::Differs)
                        .then(|| format!("{summary} vs {verdict}")),
                    rule: (agreement == Agreement::Differs)
                        .then(|| "transport.sse.final-response".to_string()),
                    posts: Vec::new(),
                    note: skipped.then(|| format!("{client} does not speak {revision}")),
                    driver: None,
                    elapsed_ms: 0,
                });
            }
        }
    }
    let page = out_dir().join("client-matrix.html");
    let html = mcp_verdict::outputs::clients::html(&cells, mcp_verdict::Engine::builtin().table());
    std::fs::write(&page, html).unwrap();
    page
}

#[test]
fn the_client_matrix_reads_in_a_browser() {
    let Some((chromium, chromedriver)) = browser() else {
        return;
    };
    let page = client_matrix_page();
    in_browser(&chromium, &chromedriver, &page, client_matrix_in);
}

fn client_matrix_in(s: &Session<'_>, url: &str) {
    // A desktop window: a column per client and version, every difference linked to a note
    // that cites the rule and links the spec.
    s.viewport(1400, 900, false);
    s.cmd("POST", "/url", Some(json!({"url": url})));
    let heads =
        s.js("return Array.from(document.querySelectorAll('table th')).map(t => t.innerText);");
    assert_eq!(
        heads,
        json!([
            "scenario",
            "revision",
            "verdict on what serve sent",
            "ts-sdk-v2 2.4.0",
            "ts-sdk-v1 1.32.2",
            "python-sdk 2.3.0",
            "inspector-cli 1.0.3"
        ])
    );
    let links = s.js("return Array.from(document.querySelectorAll('td.differs sup a')).map(a => a.getAttribute('href'));");
    let links = links.as_array().unwrap();
    assert_eq!(links.len(), 8, "{links:?}");
    for l in links {
        let id = l.as_str().unwrap().trim_start_matches('#');
        let note = s.js(&format!(
            "const n = document.getElementById('{id}'); return n ? n.innerText : null;"
        ));
        assert!(
            note.as_str()
                .is_some_and(|t| t.contains("Rule transport.sse.final-response (SHOULD)")),
            "{id}: {note}"
        );
    }
    let spec = s.js("return Array.from(document.querySelectorAll('ol.notes a')).map(a => a.href);");
    for l in spec.as_array().unwrap() {
        assert!(
            l.as_str()
                .unwrap()
                .starts_with("https://modelcontextprotocol.io/specification/"),
            "{l}"
        );
    }
    s.click("css selector", "td.differs sup a");
    std::thread::sleep(Duration::from_millis(200));
    let hash = s.js("return window.location.hash;");
    assert_eq!(hash, json!("#note-1"));
    s.screenshot("client-matrix-1400.png");

    // A phone: the table stacks, nothing is wider than the screen.
    s.viewport(390, 844, true);
    s.cmd("POST", "/url", Some(json!({"url": url})));
    let w = s.js("return [document.documentElement.scrollWidth, window.innerWidth];");
    assert!(
        w[0].as_u64() <= w[1].as_u64(),
        "page {} px wide at {} px",
        w[0],
        w[1]
    );
    let label = s.js("return getComputedStyle(document.querySelector('td[data-label=\"revision\"]'), '::before').content;");
    assert_eq!(label, json!("\"revision: \""));
    s.screenshot("client-matrix-390.png");
}
