//! The proxy's live page in a real browser (headless Chromium over WebDriver): it lists the
//! calls as the proxy judges them, newest first, without a reload; the filter by outcome and
//! by tool hides the others; a call opens to its verdict with the deciding rule linked to the
//! spec and its sentence quoted; on a 390-pixel phone screen nothing scrolls sideways.
//! Screenshots go to `target/tmp/proxy-page/`. Skipped, with a message, without Chromium.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mcp_verdict::Protocol;
use mcp_verdict::proxy::{self, ProxyConfig};
use serde_json::{Value, json};

use crate::support::browser::{Driver, Session, browser};
use crate::support::serve::{call_request, post, start_with};

fn out_dir() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("proxy-page");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Waits until `script` returns `want`.
fn until(s: &Session<'_>, script: &str, want: Value) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let got = s.js(script);
        if got == want {
            return;
        }
        assert!(Instant::now() < deadline, "{script}: {got}, not {want}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

const ROWS: &str = "return Array.from(document.querySelectorAll('#calls > li')).filter(r => !r.hidden).map(r => r.dataset.tool + ' ' + r.dataset.outcome);";

#[test]
fn the_live_page_lists_calls_as_they_are_judged() {
    let Some((chromium, chromedriver)) = browser() else {
        return;
    };
    // add with a string argument breaks its inputSchema: a TOOL_ERROR beside the successes.
    let server = start_with("baseline", |_| {});
    let mut config = ProxyConfig::new(&server.url());
    config.ui = Some("127.0.0.1:0".parse().unwrap());
    let p = proxy::start(config).unwrap();
    let ui = p.ui_url().unwrap();
    let call = |id: u32, tool: &str, args: Value| {
        let (h, b) = call_request(
            Protocol::V2026_07_28,
            None,
            json!(id),
            tool,
            args,
            json!({}),
        );
        post(p.addr(), &h, &b)
    };
    call(1, "echo", json!({"text": "before the page opened"}));

    let profile = crate::support::temp::temp_dir("chromium-profile");
    let driver = Driver::start(&chromedriver, &out_dir());
    let s = Session::open(&driver, &chromium, &profile);
    s.viewport(1400, 900, false);
    s.cmd("POST", "/url", Some(json!({"url": ui})));
    // The call made before the page opened is listed; the next ones arrive without a reload.
    until(&s, ROWS, json!(["echo TOOL_SUCCESS"]));
    s.js("window.__marker = 1; return 0;");
    call(2, "add", json!({"a": "one", "b": 2}));
    // The proxy numbers a call when the judge is told its answer ended, which the relay does
    // after writing the answer to the client: a next call may overtake it. Call 3 waits for
    // call 2's row, so that the order asserted is the page's, not that race's.
    until(&s, ROWS, json!(["add TOOL_ERROR", "echo TOOL_SUCCESS"]));
    call(3, "echo", json!({"text": "after"}));
    until(
        &s,
        ROWS,
        json!(["echo TOOL_SUCCESS", "add TOOL_ERROR", "echo TOOL_SUCCESS"]),
    );
    assert_eq!(s.js("return window.__marker;"), json!(1), "no reload");
    // The newest is first, on the first screen.
    let first = s.js("const r = document.querySelector('#calls > li').getBoundingClientRect(); return [r.top, window.innerHeight];");
    assert!(first[0].as_f64().unwrap() < first[1].as_f64().unwrap());
    assert_eq!(
        s.js("return document.querySelector('#calls > li').id;"),
        json!("call-3")
    );
    s.screenshot("desktop-1400.png");

    // Filter by outcome, then by tool; the reset shows all again.
    s.click(
        "xpath",
        "//form[@id='filter']//select[@name='outcome']/option[text()='TOOL_ERROR']",
    );
    until(&s, ROWS, json!(["add TOOL_ERROR"]));
    s.click("css selector", "#filter button[type=\"reset\"]");
    until(
        &s,
        "return document.querySelectorAll('#calls > li:not([hidden])').length;",
        json!(3),
    );
    s.click(
        "xpath",
        "//form[@id='filter']//select[@name='tool']/option[text()='echo']",
    );
    until(&s, ROWS, json!(["echo TOOL_SUCCESS", "echo TOOL_SUCCESS"]));
    s.click("css selector", "#filter button[type=\"reset\"]");

    // The error call opens to its verdict: the deciding rule linked to the spec, its sentence.
    s.click("css selector", "#call-2 summary");
    let detail = s.js("const d = document.querySelector('#call-2 .detail'); const a = d.querySelector('a'); return [d.offsetParent !== null, a ? a.href : '', d.querySelector('blockquote') ? d.querySelector('blockquote').innerText : ''];");
    assert_eq!(detail[0], json!(true), "{detail}");
    assert!(
        detail[1]
            .as_str()
            .unwrap()
            .starts_with("https://modelcontextprotocol.io/"),
        "{detail}"
    );
    assert!(detail[2].as_str().unwrap().len() > 20, "{detail}");
    s.screenshot("desktop-1400-open.png");

    // A phone: 390 CSS pixels, nothing wider than the screen.
    s.viewport(390, 844, true);
    let widths = s.js("return [document.documentElement.scrollWidth, window.innerWidth];");
    assert!(
        widths[0].as_u64().unwrap() <= widths[1].as_u64().unwrap(),
        "the page scrolls sideways at 390 px: {widths}"
    );
    s.screenshot("phone-390.png");
    drop(s);
    drop(driver);
    p.stop();
    server.shutdown();
}
