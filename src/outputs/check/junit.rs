//! `--format junit`: JUnit XML (written with `quick-junit`). One `<testsuite>` per revision,
//! one `<testcase>` per (file, revision) named after the file, with `classname` the revision.
//! A failing expectation or failing findings are a `<failure>` whose message names the outcome
//! and the rules; baselined failures are `<skipped>`; files not judged are `<error>` test cases
//! in a suite of their own; stale baseline entries are failures in a `baseline` suite.
//! No timestamps or durations, so the same run gives the same bytes.

use quick_junit::{NonSuccessKind, Report, TestCase, TestCaseStatus, TestSuite};

use crate::run::check::{CheckRun, Coverage, RevisionResult, Status};

fn failure_message(r: &RevisionResult, fail_on: crate::run::check::FailOn) -> String {
    let mut parts = Vec::new();
    if let Some(d) = &r.diff {
        if let Some(o) = &d.outcome {
            parts.push(format!("outcome {} (expected {})", o.actual, o.expected));
        }
        if !d.missing.is_empty() {
            parts.push(format!("missing rule {}", d.missing.join(", ")));
        }
        if !d.unexpected.is_empty() {
            parts.push(format!("unexpected rule {}", d.unexpected.join(", ")));
        }
        if !d.unlisted.is_empty() {
            parts.push(format!("unlisted finding {}", d.unlisted.join(", ")));
        }
    } else {
        let rules: Vec<&str> = r
            .failures
            .iter()
            .filter_map(|x| x.rule.as_deref())
            .collect();
        parts.push(format!(
            "outcome {}; findings at or above {}: {}",
            r.outcome,
            fail_on.as_str(),
            rules.join(", ")
        ));
    }
    parts.join("; ")
}

fn details(file: &str, r: &RevisionResult) -> String {
    let mut s = String::new();
    if let Some(d) = &r.diff {
        for line in d.lines(r.decided_by.as_deref()) {
            s.push_str(&line);
            s.push('\n');
        }
    }
    for f in &r.findings {
        s.push_str(&super::text::finding_line(file, f));
        s.push('\n');
    }
    s
}

/// Renders the run.
pub fn render(run: &CheckRun, coverage: Option<&Coverage>) -> String {
    let mut report = Report::new("mcp-verdict check");
    for p in run.revisions() {
        let mut suite = TestSuite::new(format!("mcp-verdict {p}"));
        for (f, r) in run.results().filter(|(_, r)| r.protocol == p) {
            let status = match r.status {
                Status::Pass | Status::Ok => TestCaseStatus::success(),
                Status::Fail | Status::Findings => {
                    let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    st.set_message(failure_message(r, run.fail_on));
                    st.set_type(if r.status == Status::Fail {
                        "expectation"
                    } else {
                        "findings"
                    });
                    st.set_description(details(&f.file, r));
                    st
                }
                Status::Baselined => {
                    let mut st = TestCaseStatus::skipped();
                    st.set_message(format!(
                        "known failure listed in the baseline: {}",
                        failure_message(r, run.fail_on)
                    ));
                    st
                }
            };
            let mut case = TestCase::new(f.file.clone(), status);
            case.set_classname(p.to_string());
            if r.status == Status::Pass || r.status == Status::Ok {
                case.set_system_out(format!("{}: {}\n", r.outcome, r.summary));
            }
            suite.add_test_case(case);
        }
        report.add_test_suite(suite);
    }
    let errors: Vec<_> = run.input_errors().collect();
    if !errors.is_empty() {
        let mut suite = TestSuite::new("mcp-verdict unreadable or invalid files");
        for (f, e) in errors {
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Error);
            let pos = match (e.line, e.column) {
                (Some(l), Some(c)) => format!("line {l}, column {c}: "),
                (Some(l), None) => format!("line {l}: "),
                _ => String::new(),
            };
            st.set_message(format!("{pos}{}", e.message));
            st.set_type(match e.kind {
                crate::run::check::InputErrorKind::Unreadable => "unreadable",
                crate::run::check::InputErrorKind::Invalid => "invalid",
                crate::run::check::InputErrorKind::NoRevision => "no-revision",
            });
            let mut case = TestCase::new(f.file.clone(), st);
            case.set_classname("input");
            suite.add_test_case(case);
        }
        report.add_test_suite(suite);
    }
    if !run.stale.is_empty() {
        let mut suite = TestSuite::new("mcp-verdict baseline");
        for e in &run.stale {
            let what = e
                .rule
                .clone()
                .map(|r| format!("rule {r}"))
                .or(e.outcome.map(|o| format!("outcome {o}")))
                .unwrap_or_default();
            let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
            st.set_message(format!(
                "stale baseline entry: {what} no longer fails under {}; remove the entry",
                e.protocol
            ));
            st.set_type("stale");
            let mut case = TestCase::new(format!("{} {what}", e.file), st);
            case.set_classname(e.protocol.to_string());
            suite.add_test_case(case);
        }
        report.add_test_suite(suite);
    }
    if let Some(c) = coverage {
        let mut suite = TestSuite::new("mcp-verdict coverage");
        for rev in &c.revisions {
            for r in &rev.rules {
                let status = if r.is_complete() {
                    TestCaseStatus::success()
                } else {
                    let mut st = TestCaseStatus::non_success(NonSuccessKind::Failure);
                    st.set_message(r.lacks().join(", "));
                    st.set_type("coverage");
                    st
                };
                let mut case = TestCase::new(r.rule.clone(), status);
                case.set_classname(rev.protocol.to_string());
                suite.add_test_case(case);
            }
        }
        report.add_test_suite(suite);
    }
    report.to_string().expect("JUnit XML serializes")
}
