//! `--format html`: one self-contained page (inline CSS, no scripts, no external assets), readable
//! offline: summary, failures, files not judged, stale baseline entries, per-revision per-rule
//! conformance tables with spec links, coverage gaps, and per-file detail with a body excerpt
//! around each finding's value. Every piece of text is escaped; the only links are `https://`
//! spec URLs from the rule table and in-page anchors.

use std::fmt::Write as _;

use crate::run::check::{CheckRun, Coverage, FileResult, RevisionResult, RuleState, Status};

/// Escapes text for HTML element content and double-quoted attribute values.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A link to a spec URL; anything but a plain `https://` URL is shown as text.
fn spec_link(text: &str, url: &str) -> String {
    if url.starts_with("https://")
        && !url.contains(|c: char| c.is_whitespace() || "\"'<>`".contains(c))
    {
        format!(
            "<a href=\"{}\" rel=\"noreferrer\">{}</a>",
            escape(url),
            escape(text)
        )
    } else {
        escape(text)
    }
}

fn anchor(file: &str) -> String {
    let mut s = String::from("f-");
    for b in file.bytes() {
        if b.is_ascii_alphanumeric() {
            s.push(b as char);
        } else {
            let _ = write!(s, "_{b:02x}");
        }
    }
    s
}

const STYLE: &str = r#"
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:2rem auto;max-width:72rem;padding:0 1rem;color:#1f2328;line-height:1.45}
h1{font-size:1.6rem}h2{font-size:1.3rem;margin-top:2rem;border-bottom:1px solid #d0d7de}h3{font-size:1.05rem}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.9rem}th,td{border:1px solid #d0d7de;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.n{text-align:right}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.85rem}
pre{background:#f6f8fa;padding:.5rem;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
mark{background:#ffd8b5;padding:0 .1rem}
.pass,.ok{color:#1a7f37}.fail,.findings{color:#cf222e;font-weight:600}.baselined{color:#9a6700}
.del{color:#cf222e}.add{color:#1a7f37}.ne{color:#9a6700;font-weight:600}
details{margin:.25rem 0}summary{cursor:pointer}
.sev-error{color:#cf222e}.sev-warning{color:#9a6700}.sev-info{color:#0969da}
"#;

/// Renders the run.
pub fn render(run: &CheckRun, coverage: Option<&Coverage>) -> String {
    let s = run.summary();
    let code = run.exit_code(coverage.is_some());
    let mut o = String::new();
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>mcp-verdict check: {}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n",
        if code == 0 { "passed" } else { "failed" }
    );
    let _ = writeln!(
        o,
        "<h1>mcp-verdict check: <span class=\"{}\">{}</span></h1>\n<p>{}</p>",
        if code == 0 { "pass" } else { "fail" },
        if code == 0 { "passed" } else { "failed" },
        escape(&super::text::summary_line(run))
    );
    let _ = writeln!(o, "<h2 id=\"summary\">Summary</h2>\n<table>");
    for (label, n) in [
        ("Files", s.files),
        ("Results (file × revision)", s.results),
        ("Passed (expectation met)", s.passed),
        ("Failed (expectation not met)", s.failed),
        ("OK (no expectation, no failing finding)", s.ok),
        ("With findings (no expectation)", s.with_findings),
        ("Baselined (known failures)", s.baselined),
        ("Stale baseline entries", s.stale),
        ("Unreadable or invalid files", s.invalid_files),
    ] {
        let _ = writeln!(
            o,
            "<tr><th>{}</th><td class=\"n\">{n}</td></tr>",
            escape(label)
        );
    }
    let _ = writeln!(
        o,
        "</table>\n<p>Findings at or above <code>{}</code> fail files without expectations{}. Exit status {code}.</p>",
        run.fail_on.as_str(),
        if run.strict {
            "; strict: unlisted findings fail files with expectations"
        } else {
            ""
        }
    );

    let failing: Vec<_> = run
        .results()
        .filter(|(_, r)| r.status != Status::Pass && r.status != Status::Ok)
        .collect();
    if !failing.is_empty() {
        let _ = writeln!(
            o,
            "<h2 id=\"failures\">Failures</h2>\n<table>\n<tr><th>Status</th><th>File</th><th>Revision</th><th>Outcome</th><th>Differences</th></tr>"
        );
        for (f, r) in failing {
            let diff = r
                .diff
                .as_ref()
                .map(|d| diff_html(&d.lines(r.decided_by.as_deref())))
                .unwrap_or_else(|| {
                    let rules: Vec<String> = r
                        .failures
                        .iter()
                        .filter_map(|x| x.rule.as_deref().map(escape))
                        .collect();
                    format!("findings: {}", rules.join(", "))
                });
            let _ = writeln!(
                o,
                "<tr><td class=\"{}\">{}</td><td><a href=\"#{}\">{}</a></td><td>{}</td><td><code>{}</code></td><td>{diff}</td></tr>",
                status_class(r.status),
                r.status.label(),
                anchor(&f.file),
                escape(&f.file),
                r.protocol,
                r.outcome
            );
        }
        let _ = writeln!(o, "</table>");
    }

    let errors: Vec<_> = run.input_errors().collect();
    if !errors.is_empty() {
        let _ = writeln!(
            o,
            "<h2 id=\"invalid\">Unreadable or invalid files (not judged)</h2>\n<table>\n<tr><th>File</th><th>Line</th><th>Column</th><th>Problem</th></tr>"
        );
        for (f, e) in errors {
            let _ = writeln!(
                o,
                "<tr><td><code>{}</code></td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td></tr>",
                escape(&f.file),
                e.line.map_or(String::new(), |l| l.to_string()),
                e.column.map_or(String::new(), |c| c.to_string()),
                escape(&e.message)
            );
        }
        let _ = writeln!(o, "</table>");
    }

    if !run.stale.is_empty() {
        let _ = writeln!(
            o,
            "<h2 id=\"stale\">Stale baseline entries</h2>\n<p>The listed failure no longer occurs: remove the entry.</p>\n<table>\n<tr><th>File</th><th>Revision</th><th>Rule or outcome</th></tr>"
        );
        for e in &run.stale {
            let what = e
                .rule
                .clone()
                .or(e.outcome.map(|o| o.to_string()))
                .unwrap_or_default();
            let _ = writeln!(
                o,
                "<tr><td><code>{}</code></td><td>{}</td><td><code>{}</code></td></tr>",
                escape(&e.file),
                e.protocol,
                escape(&what)
            );
        }
        let _ = writeln!(o, "</table>");
    }

    for c in &run.conformance {
        let count = |st: RuleState| c.rules.iter().filter(|r| r.state == st).count();
        let _ = writeln!(
            o,
            "<h2 id=\"conformance-{p}\">Conformance {p}</h2>\n<p>{} exchanges; {} rules: {} triggered, {} satisfied, {} not exercised. Counts are exchanges.</p>\n<table>\n<tr><th>Rule</th><th>Level</th><th>Severity</th><th>Layer</th><th>Satisfied</th><th>Triggered</th><th>Not applicable</th><th>State</th></tr>",
            c.exchanges,
            c.rules.len(),
            count(RuleState::Triggered),
            count(RuleState::Satisfied),
            count(RuleState::NotExercised),
            p = c.protocol,
        );
        for r in &c.rules {
            let _ = writeln!(
                o,
                "<tr><td>{}<br><small>{}</small></td><td>{}</td><td>{}</td><td>{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"n\">{}</td><td class=\"{}\">{}</td></tr>",
                spec_link(&r.rule, &r.url),
                escape(&r.title),
                escape(r.level.as_ref()),
                r.severity.map_or("—".to_string(), |s| s.to_string()),
                r.layer,
                r.passed,
                r.triggered,
                r.not_applicable,
                if r.state == RuleState::NotExercised {
                    "ne"
                } else {
                    ""
                },
                r.state.label()
            );
        }
        let _ = writeln!(o, "</table>");
    }

    if let Some(cov) = coverage {
        let gaps: Vec<_> = cov.gaps().collect();
        let _ = writeln!(o, "<h2 id=\"coverage\">Rule coverage</h2>");
        if gaps.is_empty() {
            let _ = writeln!(
                o,
                "<p>Every rule of every judged revision has a triggering and a satisfying fixture.</p>"
            );
        } else {
            let _ = writeln!(
                o,
                "<table>\n<tr><th>Revision</th><th>Rule</th><th>Triggered by</th><th>Satisfied by</th><th>Lacks</th></tr>"
            );
            for (p, r) in gaps {
                let _ = writeln!(
                    o,
                    "<tr><td>{p}</td><td><code>{}</code></td><td class=\"n\">{}</td><td class=\"n\">{}</td><td>{}</td></tr>",
                    escape(&r.rule),
                    r.triggered_by.len(),
                    r.satisfied_by.len(),
                    escape(&r.lacks().join(", "))
                );
            }
            let _ = writeln!(o, "</table>");
        }
    }

    let _ = writeln!(o, "<h2 id=\"files\">Files</h2>");
    for f in &run.files {
        file_detail(&mut o, f, run);
    }
    let _ = writeln!(o, "</body>\n</html>");
    o
}

fn status_class(s: Status) -> &'static str {
    match s {
        Status::Pass => "pass",
        Status::Ok => "ok",
        Status::Fail => "fail",
        Status::Findings => "findings",
        Status::Baselined => "baselined",
    }
}

fn diff_html(lines: &[String]) -> String {
    let mut s = String::from("<pre>");
    for l in lines {
        let class = if l.starts_with('-') { "del" } else { "add" };
        let _ = writeln!(s, "<span class=\"{class}\">{}</span>", escape(l));
    }
    s.push_str("</pre>");
    s
}

fn file_detail(o: &mut String, f: &FileResult, run: &CheckRun) {
    let worst = f
        .results
        .iter()
        .map(|r| r.status)
        .find(|s| s.is_failure())
        .or_else(|| {
            f.results
                .iter()
                .map(|r| r.status)
                .find(|s| *s == Status::Baselined)
        });
    let open = if worst.is_some() || f.error.is_some() {
        " open"
    } else {
        ""
    };
    let badge: Vec<String> = f
        .results
        .iter()
        .map(|r| {
            format!(
                "<span class=\"{}\">{} {}</span>",
                status_class(r.status),
                r.protocol,
                r.status.label()
            )
        })
        .collect();
    let _ = writeln!(
        o,
        "<details id=\"{}\"{open}><summary><code>{}</code>{} {}</summary>",
        anchor(&f.file),
        escape(&f.file),
        f.name
            .as_deref()
            .map(|n| format!(" — {}", escape(n)))
            .unwrap_or_default(),
        if f.error.is_some() {
            "<span class=\"fail\">NOT JUDGED</span>".to_string()
        } else {
            badge.join(" · ")
        }
    );
    if let Some(e) = &f.error {
        let pos = match (e.line, e.column) {
            (Some(l), Some(c)) => format!("line {l}, column {c}: "),
            (Some(l), None) => format!("line {l}: "),
            _ => String::new(),
        };
        let _ = writeln!(
            o,
            "<p class=\"fail\">{}</p>",
            escape(&format!("{pos}{}", e.message))
        );
    }
    for r in &f.results {
        revision_detail(o, r, run);
    }
    let _ = writeln!(o, "</details>");
}

fn revision_detail(o: &mut String, r: &RevisionResult, run: &CheckRun) {
    let _ = writeln!(
        o,
        "<h3>{} <span class=\"{}\">{}</span> <code>{}</code></h3>\n<p>{}{}</p>",
        r.protocol,
        status_class(r.status),
        r.status.label(),
        r.outcome,
        escape(&r.summary),
        r.decided_by
            .as_deref()
            .map(|d| format!(" Decided by <code>{}</code>.", escape(d)))
            .unwrap_or_default()
    );
    if let Some(e) = &r.expected {
        let mut s = format!("expected outcome <code>{}</code>", e.outcome);
        if !e.rules.is_empty() {
            let _ = write!(s, "; rules <code>{}</code>", escape(&e.rules.join(", ")));
        }
        if !e.absent.is_empty() {
            let _ = write!(s, "; absent <code>{}</code>", escape(&e.absent.join(", ")));
        }
        let _ = writeln!(o, "<p>{s}</p>");
    }
    if let Some(d) = &r.diff {
        let _ = writeln!(o, "{}", diff_html(&d.lines(r.decided_by.as_deref())));
    }
    if r.findings.is_empty() {
        return;
    }
    let _ = writeln!(
        o,
        "<table>\n<tr><th>Severity</th><th>Rule</th><th>Where</th><th>Message</th></tr>"
    );
    for x in &r.findings {
        let fd = &x.finding;
        let mut where_ = format!("<code>{}</code>", escape(&fd.path));
        if let Some(e) = fd.event {
            let _ = write!(where_, " (event {e})");
        }
        if let Some(l) = x.location {
            let _ = write!(
                where_,
                "<br><small>line {}, column {}</small>",
                l.line, l.column
            );
        }
        let mut msg = escape(&fd.message);
        if x.expected {
            msg.push_str(" <small>(expected by the file)</small>");
        } else if r.expected.is_none() && !run.fail_on.fails(fd.severity) {
            msg.push_str(" <small>(below --fail-on)</small>");
        }
        if let Some(ex) = &x.excerpt {
            let _ = write!(
                msg,
                "<pre>{}<mark>{}</mark>{}</pre>",
                escape(&ex.before),
                escape(&ex.target),
                escape(&ex.after)
            );
        }
        let _ = writeln!(
            o,
            "<tr><td class=\"sev-{sev}\">{sev}</td><td>{}</td><td>{where_}</td><td>{msg}</td></tr>",
            spec_link(&fd.rule, &fd.url),
            sev = fd.severity,
        );
    }
    let _ = writeln!(o, "</table>");
}
