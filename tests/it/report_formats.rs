//! Every report format produced from one run over `tests/data/check/corpus/`, each checked against a
//! schema or its structural contract.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use mcp_verdict::outputs::check::{html, json, junit, markdown, sarif, text};
use mcp_verdict::run::check::{self as report, CheckOptions, CheckRun, Coverage, Status};
use serde_json::Value;

const D: &str = "tests/data/check/corpus";

/// One run over every fixture, with a baseline holding one listed failure and one stale entry.
static RUN: LazyLock<(CheckRun, Coverage)> = LazyLock::new(|| {
    let baseline = crate::support::corpus::listed_and_stale_baseline();
    let options = CheckOptions {
        baseline: Some(baseline),
        ..CheckOptions::default()
    };
    let run = report::run_check(&[D], &options).unwrap();
    let cov = report::coverage(&run.files);
    (run, cov)
});

fn run() -> &'static CheckRun {
    &RUN.0
}

fn cov() -> &'static Coverage {
    &RUN.1
}

#[test]
fn the_run_has_every_kind_of_result() {
    let r = run();
    let statuses: Vec<(&str, &str, Status)> = r
        .results()
        .map(|(f, x)| (f.file.as_str(), x.protocol.as_str(), x.status))
        .collect();
    assert_eq!(
        statuses,
        [
            (
                "tests/data/check/corpus/conformance/clean-2025.json",
                "2025-11-25",
                Status::Ok
            ),
            (
                "tests/data/check/corpus/conformance/missing-result-type.json",
                "2026-07-28",
                Status::Findings
            ),
            (
                "tests/data/check/corpus/fail/mismatch.json",
                "2025-11-25",
                Status::Fail
            ),
            (
                "tests/data/check/corpus/ok/http-500.json",
                "2025-11-25",
                Status::Pass
            ),
            (
                "tests/data/check/corpus/ok/success-2025.json",
                "2025-11-25",
                Status::Pass
            ),
            (
                "tests/data/check/corpus/ok/tool-error-both.json",
                "2025-11-25",
                Status::Pass
            ),
            (
                "tests/data/check/corpus/ok/tool-error-both.json",
                "2026-07-28",
                Status::Pass
            ),
        ]
    );
    // missing-result-type: one of its two failing rules is baselined, the other is not.
    let (_, m) = r
        .results()
        .find(|(f, _)| f.file.ends_with("missing-result-type.json"))
        .unwrap();
    let baselined: Vec<(&str, bool)> = m
        .failures
        .iter()
        .map(|x| (x.rule.as_deref().unwrap(), x.baselined))
        .collect();
    assert_eq!(
        baselined,
        [
            ("transport.http.400-missing-meta", false),
            ("base.result-type.required", true)
        ]
    );
    assert_eq!(r.stale.len(), 1);
    assert_eq!(r.input_errors().count(), 3);
    assert_eq!(r.exit_code(false), 3);
}

#[test]
fn conformance_counts_and_never_calls_unexercised_rules_passed() {
    let c = &run().conformance;
    assert_eq!(c.len(), 2);
    let v2025 = &c[0];
    assert_eq!(v2025.exchanges, 5);
    let by_id: BTreeMap<&str, &report::RuleConformance> =
        v2025.rules.iter().map(|r| (r.rule.as_str(), r)).collect();
    let complete = by_id["tools.result.complete"];
    // The two TOOL_SUCCESS exchanges at least trigger it; counts agree with the evaluations.
    assert!(complete.triggered >= 2, "{}", complete.triggered);
    assert_eq!(complete.state, report::RuleState::Triggered);
    let triggered = run()
        .results()
        .filter(|(_, r)| r.protocol == v2025.protocol)
        .filter(|(_, r)| {
            r.evaluations.iter().any(|e| {
                e.rule == "tools.result.complete"
                    && e.status == mcp_verdict::judge::EvalStatus::Triggered
            })
        })
        .count();
    assert_eq!(complete.triggered, triggered);
    let http = by_id["http.status.non-2xx"];
    assert_eq!(
        (http.passed, http.triggered, http.not_applicable),
        (4, 1, 0)
    );
    for r in &v2025.rules {
        assert_eq!(r.passed + r.triggered + r.not_applicable, 5, "{}", r.rule);
        if r.passed + r.triggered == 0 {
            assert_eq!(r.state, report::RuleState::NotExercised, "{}", r.rule);
        }
    }
    // Grouped: error findings, warnings, infos, then outcome/default-only rules.
    let sev: Vec<u8> = v2025
        .rules
        .iter()
        .map(|r| r.severity.map_or(0, |s| s as u8 + 1))
        .collect();
    assert!(sev.windows(2).all(|w| w[0] >= w[1]), "{sev:?}");
}

#[test]
fn json_report_matches_its_committed_schema() {
    let generated = serde_json::to_string_pretty(&json::schema()).unwrap() + "\n";
    let path = "schemas/check-report.schema.json";
    if std::env::var_os("UPDATE_SCHEMAS").is_some() {
        std::fs::write(path, &generated).unwrap();
    }
    let committed = std::fs::read_to_string(path).unwrap_or_default();
    assert!(
        committed == generated,
        "{path} differs from the report types; regenerate with `UPDATE_SCHEMAS=1 cargo test --test it report_formats::`"
    );
    let schema: Value = serde_json::from_str(&committed).unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let doc: Value = serde_json::from_str(&json::render(run(), Some(cov()))).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&doc)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    assert_eq!(doc["version"], 1);
    assert_eq!(doc["exit_code"], 3);
    assert_eq!(doc["summary"]["invalid_files"], 3);
    assert_eq!(doc["summary"]["results"], 7);
    assert_eq!(
        doc["revisions"],
        serde_json::json!(["2025-11-25", "2026-07-28"])
    );
    let mismatch = doc["files"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["file"] == "tests/data/check/corpus/fail/mismatch.json")
        .unwrap();
    assert_eq!(
        mismatch["results"][0]["diff"],
        serde_json::json!({
            "outcome": {"expected": "TOOL_SUCCESS", "actual": "INVALID_TOOL_RESULT"},
            "missing": ["tools.result.is-error"],
            "unexpected": ["content.block.fields"]
        })
    );
    let finding = &mismatch["results"][0]["findings"][0];
    assert_eq!(finding["rule"], "content.block.fields");
    assert_eq!(finding["pointer"], "/result/content/0/text");
    assert_eq!(finding["location"]["line"], 10);
    assert_eq!(finding["excerpt"]["target"], "{\"type\":\"text\"}");
    // A document without coverage validates too.
    let doc: Value = serde_json::from_str(&json::render(run(), None)).unwrap();
    assert!(validator.is_valid(&doc));
    assert!(doc.get("coverage").is_none());
}

#[test]
fn ndjson_has_one_record_per_file_and_revision() {
    let out = json::ndjson(run(), None);
    let records: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<&str> = records
        .iter()
        .map(|r| r["record"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "result", "result", "result", "result", "result", "result", "result", "error", "error",
            "error", "stale", "summary"
        ]
    );
    assert_eq!(
        records[6]["file"],
        "tests/data/check/corpus/ok/tool-error-both.json"
    );
    assert_eq!(records[6]["protocol"], "2026-07-28");
    assert_eq!(records[6]["status"], "pass");
    assert_eq!(records[7]["kind"], "invalid");
    assert_eq!(records[7]["line"], 4);
    assert_eq!(records[11]["exit_code"], 3);
}

#[test]
fn markdown_has_summary_failures_and_linked_rule_tables() {
    let md = markdown::render(run(), Some(cov()));
    assert!(md.starts_with("## ❌ mcp-verdict check\n"), "{md}");
    assert!(md.contains("| Failed (expectation not met) | 1 |"), "{md}");
    assert!(md.contains(
        "#### FAIL <code>tests/data/check/corpus/fail/mismatch.json</code> — 2025-11-25 — <code>INVALID_TOOL_RESULT</code>\n\n```diff\n- outcome TOOL_SUCCESS\n+ outcome INVALID_TOOL_RESULT (decided by content.block.fields)\n"
    ), "{md}");
    assert!(md.contains("### Unreadable or invalid files (not judged)"));
    assert!(
        md.contains("| <code>tests/data/check/corpus/invalid/syntax.json</code> | 4 | 3 |"),
        "{md}"
    );
    assert!(md.contains("### Stale baseline entries"));
    assert!(md.contains("### Conformance 2026-07-28"));
    assert!(md.contains(
        "| [<code>tools.result.complete</code>](https://modelcontextprotocol.io/specification/2025-11-25/"
    ), "{md}");
    // Only the triggered rules have a row; the others are counted.
    assert!(
        md.contains("<summary>Rules some exchange triggered</summary>"),
        "{md}"
    );
    assert!(md.contains(" only satisfied, "), "{md}");
    assert!(
        !md.contains("| [<code>transport.http.404-ended-session</code>]"),
        "{md}"
    );
    assert!(md.contains("### Rule coverage"));
    assert!(!md.contains("This report was cut"), "{md}");
    // Table cells never break: every table row has the same number of cells as its header.
    let mut cols = None;
    for line in md.lines() {
        if line.starts_with('|') {
            let n = line.replace("\\|", "").matches('|').count();
            match cols {
                None => cols = Some(n),
                Some(c) => assert_eq!(c, n, "{line}"),
            }
        } else {
            cols = None;
        }
    }
}

#[test]
fn a_markdown_report_too_long_for_a_comment_is_cut_with_a_note() {
    let mut big = run().clone();
    let failing = big
        .files
        .iter()
        .find(|f| f.file.ends_with("fail/mismatch.json"))
        .unwrap()
        .clone();
    for i in 0..2000 {
        let mut f = failing.clone();
        f.file = format!("many/mismatch-{i:04}.json");
        big.files.push(f);
    }
    let whole: usize = big.files.len();
    let md = markdown::render(&big, Some(cov()));
    assert!(md.chars().count() < markdown::LIMIT, "{}", md.len());
    assert!(md.len() < markdown::LIMIT);
    assert!(md.starts_with("## ❌ mcp-verdict check\n"));
    assert!(
        md.contains("| Failed (expectation not met) | 2001 |"),
        "{md}"
    );
    // Failures first: the first failing results are there, in order, each whole.
    assert!(md.contains("#### FAIL <code>many/mismatch-0000.json</code>"));
    let shown = md.matches("#### ").count();
    assert!(shown > 10 && shown < whole, "{shown}");
    let note = md.rsplit("\n---\n").next().unwrap();
    assert!(
        note.contains("**This report was cut to stay under 65536 characters**"),
        "{note}"
    );
    assert!(note.contains("failing results"), "{note}");
    assert!(note.contains("conformance tables"), "{note}");
    assert!(
        note.contains("run `mcp-verdict check` again with `--format html"),
        "{note}"
    );
    // With the full report's place given, the note names it.
    let named = markdown::render_with(
        &big,
        None,
        &markdown::Options {
            full_report: Some("mcp-verdict.html".into()),
            ..Default::default()
        },
    );
    assert!(named.contains("the full report is <code>mcp-verdict.html</code>"));
    assert!(named.len() < markdown::LIMIT);
}

/// A parsed XML element.
#[derive(Debug, Default)]
struct El {
    name: String,
    attrs: BTreeMap<String, String>,
    children: Vec<El>,
    text: String,
}

fn parse_xml(xml: &str) -> El {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut stack: Vec<El> = vec![El::default()];
    let open = |e: &quick_xml::events::BytesStart<'_>| {
        let mut el = El {
            name: String::from_utf8(e.name().as_ref().to_vec()).unwrap(),
            ..El::default()
        };
        for a in e.attributes() {
            let a = a.expect("well-formed attribute");
            let v = a
                .normalized_value(quick_xml::XmlVersion::Explicit1_0)
                .expect("attribute value unescapes");
            let k = String::from_utf8(a.key.as_ref().to_vec()).unwrap();
            assert!(
                el.attrs.insert(k, v.into_owned()).is_none(),
                "duplicate attribute"
            );
        }
        el
    };
    loop {
        match reader.read_event().expect("well-formed XML") {
            Event::Start(e) => stack.push(open(&e)),
            Event::Empty(e) => {
                let el = open(&e);
                stack.last_mut().unwrap().children.push(el);
            }
            Event::End(e) => {
                let el = stack.pop().unwrap();
                assert_eq!(el.name.as_bytes(), e.name().as_ref(), "mismatched end tag");
                stack.last_mut().unwrap().children.push(el);
            }
            Event::Text(t) => stack
                .last_mut()
                .unwrap()
                .text
                .push_str(&t.decode().unwrap()),
            Event::CData(t) => stack
                .last_mut()
                .unwrap()
                .text
                .push_str(&t.decode().unwrap()),
            Event::GeneralRef(_) => stack.last_mut().unwrap().text.push('&'),
            Event::Eof => break,
            _ => {}
        }
    }
    assert_eq!(stack.len(), 1, "unclosed elements");
    let mut doc = stack.pop().unwrap();
    assert_eq!(doc.children.len(), 1, "one root element");
    doc.children.pop().unwrap()
}

fn check_structure(el: &El, spec: &Value) {
    let s = &spec["elements"][&el.name];
    assert!(s.is_object(), "element <{}> is not allowed", el.name);
    let list = |k: &str| -> Vec<&str> {
        s[k].as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect()
    };
    for r in list("required") {
        assert!(el.attrs.contains_key(r), "<{}> lacks {r}", el.name);
    }
    let allowed: Vec<&str> = list("required")
        .into_iter()
        .chain(list("optional"))
        .collect();
    for k in el.attrs.keys() {
        assert!(
            allowed.contains(&k.as_str()),
            "<{}> has unexpected attribute {k}",
            el.name
        );
    }
    if !s["text"].as_bool().unwrap() {
        assert!(
            el.text.trim().is_empty(),
            "<{}> has text {:?}",
            el.name,
            el.text
        );
    }
    let children = list("children");
    for c in &el.children {
        assert!(
            children.contains(&c.name.as_str()),
            "<{}> inside <{}>",
            c.name,
            el.name
        );
        check_structure(c, spec);
    }
}

fn count(el: &El, name: &str) -> usize {
    el.children.iter().filter(|c| c.name == name).count()
}

#[test]
fn junit_is_well_formed_and_structured() {
    let xml = junit::render(run(), Some(cov()));
    let spec: Value = serde_json::from_str(
        &std::fs::read_to_string("tests/data/check/junit-structure.json").unwrap(),
    )
    .unwrap();
    let root = parse_xml(&xml);
    assert_eq!(root.name, spec["root"]);
    check_structure(&root, &spec);
    let num = |el: &El, k: &str| el.attrs.get(k).map_or(0, |v| v.parse::<usize>().unwrap());
    let (mut tests, mut failures, mut errors) = (0, 0, 0);
    for suite in &root.children {
        let cases: Vec<&El> = suite
            .children
            .iter()
            .filter(|c| c.name == "testcase")
            .collect();
        let f = cases.iter().filter(|c| count(c, "failure") == 1).count();
        let e = cases.iter().filter(|c| count(c, "error") == 1).count();
        let s = cases.iter().filter(|c| count(c, "skipped") == 1).count();
        for c in &cases {
            assert!(count(c, "failure") + count(c, "error") + count(c, "skipped") <= 1);
        }
        assert_eq!(num(suite, "tests"), cases.len(), "{}", suite.attrs["name"]);
        assert_eq!(num(suite, "failures"), f);
        assert_eq!(num(suite, "errors"), e);
        assert_eq!(num(suite, "skipped"), s);
        tests += cases.len();
        failures += f;
        errors += e;
        for c in &cases {
            let t: f64 = c.attrs["time"].parse().unwrap();
            assert!(t >= 0.0 && c.attrs["time"].split('.').nth(1).unwrap().len() == 3);
        }
    }
    assert_eq!(num(&root, "tests"), tests);
    assert_eq!(num(&root, "failures"), failures);
    assert_eq!(num(&root, "errors"), errors);
    assert!(
        !root.attrs.contains_key("skipped"),
        "junit-10.xsd has no `skipped` on <testsuites>"
    );

    let suite = |name: &str| {
        root.children
            .iter()
            .find(|s| s.attrs["name"] == name)
            .unwrap()
    };
    let s2025 = suite("mcp-verdict 2025-11-25");
    assert_eq!(
        count(s2025, "testcase"),
        5,
        "one test case per file and revision"
    );
    let case = s2025
        .children
        .iter()
        .find(|c| c.attrs["name"] == "tests/data/check/corpus/fail/mismatch.json")
        .unwrap();
    assert_eq!(case.attrs["classname"], "2025-11-25");
    let failure = &case.children[0];
    assert_eq!(failure.name, "failure");
    assert_eq!(
        failure.attrs["message"],
        "tests/data/check/corpus/fail/mismatch.json:13:19: outcome INVALID_TOOL_RESULT (expected TOOL_SUCCESS); missing rule tools.result.is-error; unexpected rule content.block.fields",
        "the place first (the expect entry), then what differs"
    );
    assert!(
        failure
            .text
            .contains("tests/data/check/corpus/fail/mismatch.json:10:"),
        "the finding's line and column: {}",
        failure.text
    );
    assert_eq!(count(suite("mcp-verdict 2026-07-28"), "testcase"), 2);
    assert_eq!(
        count(suite("mcp-verdict unreadable or invalid files"), "testcase"),
        3
    );
    assert_eq!(count(suite("mcp-verdict baseline"), "testcase"), 1);
    assert!(
        xml.contains("&lt;b&gt;500&lt;/b&gt;") || !xml.contains("<b>500"),
        "names are escaped"
    );
}

#[test]
fn sarif_validates_against_the_sarif_schema() {
    let out = sarif::render(run());
    let log: Value = serde_json::from_str(&out).unwrap();
    let schema: Value = serde_json::from_str(
        &std::fs::read_to_string("tests/data/check/sarif-2.1.0-subset.schema.json").unwrap(),
    )
    .unwrap();
    let validator = jsonschema::validator_for(&schema).unwrap();
    let errors: Vec<String> = validator
        .iter_errors(&log)
        .map(|e| format!("{}: {e}", e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let runs = log["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2, "one run per revision");
    for r in runs {
        let rules = r["tool"]["driver"]["rules"].as_array().unwrap();
        let protocol = r["properties"]["protocol"].as_str().unwrap();
        let table = mcp_verdict::Engine::builtin().table();
        let p = mcp_verdict::Protocol::parse(protocol).unwrap();
        // One descriptor per rule a result of the run names, and no other.
        let named: std::collections::BTreeSet<&str> = r["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|res| res["ruleId"].as_str().unwrap())
            .collect();
        let described: std::collections::BTreeSet<&str> =
            rules.iter().map(|d| d["id"].as_str().unwrap()).collect();
        assert_eq!(named, described, "{protocol}");
        assert!(rules.len() < table.active(p).len(), "{protocol}");
        for d in rules
            .iter()
            .filter(|d| !d["id"].as_str().unwrap().starts_with("mcp-verdict/"))
        {
            let a = table.active_rule(p, d["id"].as_str().unwrap()).unwrap();
            assert_eq!(d["helpUri"], a.cite.url.as_str());
        }
        for res in r["results"].as_array().unwrap() {
            let i = res["ruleIndex"].as_u64().unwrap() as usize;
            assert_eq!(rules[i]["id"], res["ruleId"], "ruleIndex points at ruleId");
        }
    }
    // Only what should be acted on is a result: no suppressions, a fingerprint on each.
    let results: Vec<&Value> = runs
        .iter()
        .flat_map(|r| r["results"].as_array().unwrap())
        .collect();
    let mut prints = std::collections::BTreeSet::new();
    for r in &results {
        assert!(r.get("suppressions").is_none(), "{r}");
        let fp = r["partialFingerprints"]["mcpVerdict/v1"].as_str().unwrap();
        assert!(
            prints.insert(fp.to_string()),
            "fingerprints are unique: {r}"
        );
        let loc = &r["locations"][0]["physicalLocation"];
        let uri = loc["artifactLocation"]["uri"].as_str().unwrap();
        assert!(!uri.starts_with('/'), "{uri}");
        assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%", "{uri}");
        if let Some(region) = loc.get("region") {
            assert!(region["startLine"].as_u64().unwrap() >= 1);
            assert!(region["startColumn"].as_u64().unwrap() >= 1);
        }
    }
    for run in runs {
        let base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"]
            .as_str()
            .unwrap();
        assert!(
            base.starts_with("file:///") && base.ends_with('/'),
            "{base}"
        );
    }
    let find = |file: &str, rule: &str, protocol: &str| {
        results
            .iter()
            .filter(|r| {
                r["ruleId"] == rule
                    && r["properties"]["protocol"] == protocol
                    && r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == file
            })
            .copied()
            .collect::<Vec<&Value>>()
    };
    assert!(
        find(
            "tests/data/check/corpus/ok/tool-error-both.json",
            "base.result-type.required",
            "2026-07-28",
        )
        .is_empty(),
        "a finding the fixture expects is no result"
    );
    // A rule listed in `absent` that is found: at the finding, in the body literal's line.
    let r = find(
        "tests/data/check/corpus/fail/mismatch.json",
        "content.block.fields",
        "2025-11-25",
    );
    assert_eq!(r.len(), 1);
    assert_eq!(
        r[0]["locations"][0]["physicalLocation"]["region"]["startLine"], 10,
        "the body line"
    );
    assert_eq!(r[0]["level"], "error");
    // The outcome and the missing rule: at the expect entry.
    let r = find(
        "tests/data/check/corpus/fail/mismatch.json",
        "mcp-verdict/expectation",
        "2025-11-25",
    );
    assert_eq!(r.len(), 2, "{r:#?}");
    for x in &r {
        assert_eq!(
            x["locations"][0]["physicalLocation"]["region"]["startLine"], 13,
            "the expect entry"
        );
    }
    // A failing finding of a file without expectations: at the `response` member.
    let r = find(
        "tests/data/check/corpus/conformance/missing-result-type.json",
        "transport.http.400-missing-meta",
        "2026-07-28",
    );
    assert_eq!(
        r[0]["locations"][0]["physicalLocation"]["region"]["startLine"], 7,
        "the response member"
    );
    assert!(
        find(
            "tests/data/check/corpus/conformance/missing-result-type.json",
            "base.result-type.required",
            "2026-07-28",
        )
        .is_empty(),
        "a failure listed in the baseline is no result"
    );
    let count = |rule: &str| results.iter().filter(|r| r["ruleId"] == rule).count();
    assert_eq!(count("mcp-verdict/invalid-file"), 3);
    assert_eq!(count("mcp-verdict/stale-baseline"), 1);
    assert_eq!(
        results.len(),
        2 + 1 + 1 + 3 + 1,
        "expectation (2), unexpected finding, failing finding, invalid files, stale entry"
    );
}

#[test]
fn html_is_self_contained_and_escaped() {
    let page = html::render(run(), Some(cov()));
    assert!(page.starts_with("<!DOCTYPE html>"));
    // No external assets: no src, no <link>, no url(), no @import; one inline script; hrefs are
    // in-page anchors or spec links on <a>; a policy that forbids loading anything.
    let lower = page.to_ascii_lowercase();
    for banned in ["src=", "<link", "url(", "@import", "<iframe", "<img"] {
        assert!(!lower.contains(banned), "{banned}");
    }
    assert_eq!(lower.matches("<script").count(), 1);
    assert!(
        lower.contains("<script>\n(function(){"),
        "inline, no attributes"
    );
    assert!(page.contains(
        "content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\""
    ));
    let table = mcp_verdict::Engine::builtin().table();
    let spec_urls: std::collections::BTreeSet<String> = mcp_verdict::Protocol::all()
        .flat_map(|p| {
            table
                .active(p)
                .iter()
                .map(|a| a.cite.url.replace('&', "&amp;"))
        })
        .collect();
    let ids: std::collections::BTreeSet<&str> = page
        .split("id=\"")
        .skip(1)
        .map(|s| &s[..s.find('"').unwrap()])
        .collect();
    let mut rest = page.as_str();
    let mut spec_links = 0;
    while let Some(i) = rest.find("href=\"") {
        let before = &rest[..i];
        let tag_start = before.rfind('<').unwrap();
        assert!(before[tag_start..].starts_with("<a "), "href outside <a>");
        let url = &rest[i + 6..];
        let url = &url[..url.find('"').unwrap()];
        if url.starts_with("http") {
            assert!(
                spec_urls.contains(url),
                "{url} is not a spec URL of the rule table"
            );
            spec_links += 1;
        } else {
            let target = url.strip_prefix('#').unwrap_or_else(|| panic!("{url}"));
            assert!(ids.contains(target), "#{target} points at no element");
        }
        rest = &rest[i + 6..];
    }
    assert!(spec_links > 50);
    // The fixture's name and body carry markup; it is shown, not rendered.
    assert!(
        page.contains("HTML error page &lt;b&gt;500&lt;/b&gt; &amp; friends"),
        "escaped name"
    );
    assert!(
        page.contains("<mark>{&quot;type&quot;:&quot;text&quot;}</mark>"),
        "excerpt around the pointer"
    );
    assert!(page.contains("not exercised"));
    assert!(page.contains("id=\"conformance-2025-11-25\""));
    // The failures come before the details, the conformance tables after them, collapsed.
    let at = |s: &str| page.find(s).unwrap_or_else(|| panic!("{s}"));
    assert!(at("id=\"failures\"") < at("id=\"files\""));
    assert!(at("id=\"files\"") < at("id=\"conformance-2025-11-25\""));
    assert!(
        page[at("id=\"conformance-2025-11-25\"")..].contains("<details><summary>Per-rule table")
    );
    // A failure says why: the message, the rule linked to the spec, the sentence quoted.
    let failures = &page[at("id=\"failures\"")..at("id=\"files\"")];
    let row = failures
        .lines()
        .find(|l| l.contains("mismatch.json") && l.starts_with("<tr "))
        .unwrap();
    assert!(
        row.contains("<code>$.result.content[0].text</code>"),
        "{row}"
    );
    assert!(row.contains("is a required property"), "{row}");
    assert!(row.contains("<a class=\"rule\" href=\"https://"), "{row}");
    assert!(row.contains("<blockquote>"), "{row}");
    assert!(
        row.contains("data-status=\"FAIL\" data-rev=\"2025-11-25\""),
        "{row}"
    );
    assert!(
        row.contains(
            "href=\"#f-tests_2fdata_2fcheck_2fcorpus_2ffail_2fmismatch_2ejson--2025-11-25\""
        ),
        "{row}"
    );
    // Code spans are code, not backticks.
    assert!(!failures.contains('`'), "raw Markdown in the failures");
    // The filter offers the failures' own values.
    assert!(failures.contains("<select name=\"rule\">"), "{failures}");
    assert!(failures.contains("<option>content.block.fields</option>"));
}

#[test]
fn text_report_lists_failures_and_sections() {
    let t = text::render(run(), None, text::TextOptions::default());
    assert!(t.contains("FINDINGS  tests/data/check/corpus/conformance/missing-result-type.json  [2026-07-28]  TOOL_SUCCESS"), "{t}");
    assert!(
        t.contains("listed in the baseline: base.result-type.required"),
        "{t}"
    );
    assert!(
        t.contains(
            "STALE tests/data/check/corpus/ok/success-2025.json [2025-11-25] outcome TOOL_ERROR"
        ),
        "{t}"
    );
    assert!(t.contains("conformance 2025-11-25: 5 exchanges;"), "{t}");
    assert!(!t.contains("PASS "), "passing results only with verbose");
    assert!(t.ends_with(
        "check failed: 9 files, 7 results: 4 passed, 1 failed, 1 ok, 1 with findings; 1 stale baseline entry; 3 unreadable or invalid files\n"
    ), "{t}");
    let v = text::render(
        run(),
        None,
        text::TextOptions {
            verbose: true,
            ..Default::default()
        },
    );
    assert!(
        v.contains("PASS      tests/data/check/corpus/ok/http-500.json  [2025-11-25]  HTTP_ERROR"),
        "{v}"
    );
}

#[test]
fn reports_on_the_shipped_fixture_corpus_validate() {
    // The project's own corpus (tests/fixtures), with SSE bodies and every rule exercised.
    let run = report::run_check(&["tests/fixtures"], &CheckOptions::default()).unwrap();
    assert_eq!(run.input_errors().count(), 0);
    let cov = report::coverage(&run.files);
    let check = |schema_path: &str, doc: &str| {
        let schema: Value =
            serde_json::from_str(&std::fs::read_to_string(schema_path).unwrap()).unwrap();
        let validator = jsonschema::validator_for(&schema).unwrap();
        let doc: Value = serde_json::from_str(doc).unwrap();
        let errors: Vec<String> = validator
            .iter_errors(&doc)
            .take(5)
            .map(|e| format!("{}: {e}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{schema_path}: {errors:#?}");
    };
    check(
        "schemas/check-report.schema.json",
        &json::render(&run, Some(&cov)),
    );
    check(
        "tests/data/check/sarif-2.1.0-subset.schema.json",
        &sarif::render(&run),
    );
    // A passing run has nothing to act on: no SARIF result at all.
    let log: Value = serde_json::from_str(&sarif::render(&run)).unwrap();
    assert_eq!(run.exit_code(false), 0);
    for r in log["runs"].as_array().unwrap() {
        assert_eq!(r["results"], serde_json::json!([]), "{}", r["properties"]);
    }
    // Findings in stream events are located inside the body literal, with an excerpt.
    let located = run
        .results()
        .flat_map(|(_, r)| &r.findings)
        .filter(|f| f.finding.event.is_some() && !f.finding.pointer.is_empty())
        .filter(|f| f.excerpt.is_some() && f.location.is_some())
        .count();
    assert!(located > 0);
}
