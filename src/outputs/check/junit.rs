//! `--format junit`: JUnit XML valid against the Jenkins JUnit plugin's `junit-10.xsd` (the
//! schema most CI systems' JUnit readers follow).
//!
//! One `<testsuite>` per revision, one `<testcase>` per (file, revision) named after the file,
//! with `classname` the revision and `time` the seconds reading and judging the file took. The
//! schema allows no `file` or `line` attribute on a test case: the file is the test case's
//! name, and every message and detail line starts with `file:line:column:` (the `expect`
//! entry for an expectation, the finding's place for a finding), which annotating readers pick
//! up. A failing expectation or failing findings are a `<failure>` whose message names the
//! outcome and the rules; baselined failures are `<skipped>`; files not judged are `<error>`
//! test cases in a suite of their own; stale baseline entries are failures in a `baseline`
//! suite; with `--coverage`, one test case per rule and revision in a `coverage` suite.
//!
//! Everything but the `time` attributes is a function of the run. Text is escaped for XML,
//! and what came from an exchange first by [`crate::outputs::safe`] (XML 1.0 cannot carry most
//! control characters at all).

use std::fmt::Write as _;
use std::time::Duration;

use crate::outputs::safe;
use crate::run::check::{CheckRun, Coverage, Location, RevisionResult, Status};

/// Escapes text for XML element content and double-quoted attribute values (after
/// [`safe::text`] on each line, so that no character XML 1.0 forbids remains).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in safe::lines(s).chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            // Non-characters XML 1.0 forbids.
            '\u{fffe}' | '\u{ffff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// Element text: like [`escape`], with line breaks kept as they are.
fn escape_text(s: &str) -> String {
    escape(s).replace("&#10;", "\n")
}

/// Seconds with three decimals (the schema's `SUREFIRE_TIME` pattern).
fn secs(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64())
}

fn at(file: &str, l: Option<Location>) -> String {
    match l {
        Some(l) => format!("{file}:{}:{}", l.line, l.column),
        None => file.to_string(),
    }
}

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

/// The place a failure points at first: the `expect` entry for an expectation, else the first
/// failing finding.
fn first_place(file: &str, r: &RevisionResult) -> String {
    if r.diff.is_some() && r.expected_at.is_some() {
        return at(file, r.expected_at);
    }
    let failing: Vec<&str> = r
        .failures
        .iter()
        .filter_map(|x| x.rule.as_deref())
        .collect();
    let l = r
        .findings
        .iter()
        .find(|f| failing.contains(&f.finding.rule.as_str()))
        .and_then(|f| f.location);
    at(file, l)
}

fn details(file: &str, r: &RevisionResult) -> String {
    let mut s = String::new();
    if let Some(d) = &r.diff {
        for line in d.lines(r.decided_by.as_deref()) {
            let _ = writeln!(s, "{}: {line}", at(file, r.expected_at));
        }
    }
    for f in &r.findings {
        s.push_str(&super::text::finding_line(file, f));
        s.push('\n');
    }
    for x in &r.omitted {
        let _ = writeln!(
            s,
            "{}::  {}  [{} {}]",
            safe::text(file),
            x.message,
            x.severity,
            x.rule
        );
    }
    s
}

struct Case {
    name: String,
    classname: String,
    time: Option<Duration>,
    /// (element, type, message, body)
    status: Option<(&'static str, String, String, String)>,
    system_out: Option<String>,
}

impl Case {
    fn write(&self, o: &mut String) {
        let _ = write!(
            o,
            "    <testcase name=\"{}\" classname=\"{}\"",
            escape(&self.name),
            escape(&self.classname)
        );
        if let Some(t) = self.time {
            let _ = write!(o, " time=\"{}\"", secs(t));
        }
        if self.status.is_none() && self.system_out.is_none() {
            o.push_str("/>\n");
            return;
        }
        o.push_str(">\n");
        if let Some((el, ty, msg, body)) = &self.status {
            let _ = write!(
                o,
                "      <{el} type=\"{}\" message=\"{}\"",
                escape(ty),
                escape(msg)
            );
            if body.is_empty() {
                o.push_str("/>\n");
            } else {
                let _ = writeln!(o, ">{}</{el}>", escape_text(body));
            }
        }
        if let Some(out) = &self.system_out {
            let _ = writeln!(o, "      <system-out>{}</system-out>", escape_text(out));
        }
        o.push_str("    </testcase>\n");
    }

    fn kind(&self) -> Option<&'static str> {
        self.status.as_ref().map(|s| s.0)
    }
}

struct Suite {
    name: String,
    cases: Vec<Case>,
}

impl Suite {
    fn count(&self, el: &str) -> usize {
        self.cases.iter().filter(|c| c.kind() == Some(el)).count()
    }

    fn time(&self) -> Duration {
        self.cases.iter().filter_map(|c| c.time).sum()
    }
}

/// Renders the run.
pub fn render(run: &CheckRun, coverage: Option<&Coverage>) -> String {
    let mut suites = Vec::new();
    for p in run.revisions() {
        let mut suite = Suite {
            name: format!("mcp-verdict {p}"),
            cases: Vec::new(),
        };
        for (f, r) in run.results().filter(|(_, r)| r.protocol == p) {
            let status = match r.status {
                Status::Pass | Status::Ok => None,
                Status::Fail | Status::Findings => Some((
                    "failure",
                    if r.status == Status::Fail {
                        "expectation".to_string()
                    } else {
                        "findings".to_string()
                    },
                    format!(
                        "{}: {}",
                        first_place(&f.file, r),
                        failure_message(r, run.fail_on)
                    ),
                    details(&f.file, r),
                )),
                Status::Baselined => Some((
                    "skipped",
                    "baselined".to_string(),
                    format!(
                        "known failure listed in the baseline: {}",
                        failure_message(r, run.fail_on)
                    ),
                    String::new(),
                )),
            };
            let system_out = matches!(r.status, Status::Pass | Status::Ok)
                .then(|| format!("{}: {}\n", r.outcome, r.summary));
            suite.cases.push(Case {
                name: f.file.clone(),
                classname: p.to_string(),
                time: Some(f.elapsed),
                status,
                system_out,
            });
        }
        suites.push(suite);
    }
    let errors: Vec<_> = run.input_errors().collect();
    if !errors.is_empty() {
        let mut suite = Suite {
            name: "mcp-verdict unreadable or invalid files".into(),
            cases: Vec::new(),
        };
        for (f, e) in errors {
            let place = match (e.line, e.column) {
                (Some(l), c) => at(
                    &f.file,
                    Some(Location {
                        line: l,
                        column: c.unwrap_or(1),
                    }),
                ),
                _ => f.file.clone(),
            };
            let ty = match e.kind {
                crate::run::check::InputErrorKind::Unreadable => "unreadable",
                crate::run::check::InputErrorKind::Invalid => "invalid",
                crate::run::check::InputErrorKind::NoRevision => "no-revision",
            };
            suite.cases.push(Case {
                name: f.file.clone(),
                classname: "input".into(),
                time: Some(f.elapsed),
                status: Some((
                    "error",
                    ty.to_string(),
                    format!("{place}: {}", e.message),
                    String::new(),
                )),
                system_out: None,
            });
        }
        suites.push(suite);
    }
    if !run.stale.is_empty() {
        let mut suite = Suite {
            name: "mcp-verdict baseline".into(),
            cases: Vec::new(),
        };
        for e in &run.stale {
            let what = e.what();
            suite.cases.push(Case {
                name: format!("{} {what}", e.file),
                classname: e.protocol.to_string(),
                time: Some(Duration::ZERO),
                status: Some((
                    "failure",
                    "stale".into(),
                    format!(
                        "{}: stale baseline entry: {what} no longer fails under {}; remove the entry",
                        e.file, e.protocol
                    ),
                    String::new(),
                )),
                system_out: None,
            });
        }
        suites.push(suite);
    }
    if let Some(c) = coverage {
        let mut suite = Suite {
            name: "mcp-verdict coverage".into(),
            cases: Vec::new(),
        };
        for rev in &c.revisions {
            for r in &rev.rules {
                let status = (!r.is_complete()).then(|| {
                    (
                        "failure",
                        "coverage".to_string(),
                        r.lacks().join(", "),
                        String::new(),
                    )
                });
                suite.cases.push(Case {
                    name: r.rule.clone(),
                    classname: rev.protocol.to_string(),
                    time: Some(Duration::ZERO),
                    status,
                    system_out: None,
                });
            }
        }
        suites.push(suite);
    }

    let total = |el: &str| suites.iter().map(|s| s.count(el)).sum::<usize>();
    let tests: usize = suites.iter().map(|s| s.cases.len()).sum();
    let time: Duration = suites.iter().map(Suite::time).sum();
    let mut o = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        o,
        "<testsuites name=\"mcp-verdict check\" tests=\"{tests}\" failures=\"{}\" errors=\"{}\" time=\"{}\">",
        total("failure"),
        total("error"),
        secs(time)
    );
    for s in &suites {
        let _ = writeln!(
            o,
            "  <testsuite name=\"{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\" skipped=\"{}\" time=\"{}\">",
            escape(&s.name),
            s.cases.len(),
            s.count("failure"),
            s.count("error"),
            s.count("skipped"),
            secs(s.time())
        );
        for c in &s.cases {
            c.write(&mut o);
        }
        o.push_str("  </testsuite>\n");
    }
    o.push_str("</testsuites>\n");
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_markup_and_controls() {
        assert_eq!(
            escape("<a href=\"x\">&'\u{1b}[2J\n"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&apos;\\u{1b}[2J&#10;"
        );
        assert_eq!(escape_text("a\nb\u{7}"), "a\nb\\u{7}");
        assert_eq!(secs(Duration::from_micros(1_234_567)), "1.235");
    }
}
