//! `--format html`: one self-contained page (inline CSS and one small inline script, no external
//! assets, a Content-Security-Policy that forbids loading any), readable offline and on a phone:
//!
//! 1. a heading with the verdict and a line of counts, and a table of contents;
//! 2. the failures, first: per failing (file, revision) the status, the outcome and why, with
//!    each reason's message, its rule linked to the spec sentence, and that sentence quoted;
//!    above it a filter by status, revision, rule and layer (it also filters the details);
//! 3. files not judged, stale baseline entries;
//! 4. the files: every file with a failure in full (per revision an anchor `#f-…--REVISION`,
//!    the expectation, the diff, each finding with a body excerpt around its value), then the
//!    other files in one compact, collapsed table (the first [`PASSING_LISTED`] of them);
//! 5. per revision the per-rule conformance table and the coverage gaps, collapsed.
//!
//! Every piece of text is escaped (what came from an exchange first by
//! [`crate::outputs::safe`]); Markdown code spans in rule texts and messages are shown as code.
//! The only links are `https://` spec URLs from the rule table and in-page anchors. A status is
//! shown as `OK` only when the help's definition holds (no finding at or above `--fail-on`): an
//! `ok` result under a revision its file's `expect` does not name, with such findings, is shown
//! as `NOT TARGETED` (its findings do not fail the run).
//!
//! It stays one file past the house's ~600 lines: the page is one document written in order,
//! and its sections share the escaping, citing and anchoring helpers above; a file per section
//! would import those helpers back from here (a circle) or move them apart from the page.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use crate::outputs::safe;
use crate::run::check::{
    CheckRun, Coverage, FailureKind, FileResult, RevisionResult, RuleConformance, RuleState, Status,
};
use crate::vocab::Protocol;

/// Files without a failure beyond this many are counted, not listed (the JSON report lists
/// every file).
pub const PASSING_LISTED: usize = 1000;

/// Reasons shown per row of the failures table before "and N more".
const REASONS_SHOWN: usize = 4;

/// Escapes text for HTML element content and double-quoted attribute values (after
/// [`safe::text`]: no control or bidi character survives).
pub fn escape(s: &str) -> String {
    let s = safe::text(s);
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

/// Escaped text with Markdown code spans (`` `x` ``) shown as `<code>`.
pub fn inline(s: &str) -> String {
    let parts: Vec<&str> = s.split('`').collect();
    if parts.len() < 3 || parts.len().is_multiple_of(2) {
        return escape(s);
    }
    let mut out = String::with_capacity(s.len() + 16);
    for (i, p) in parts.iter().enumerate() {
        if i % 2 == 1 {
            let _ = write!(out, "<code>{}</code>", escape(p));
        } else {
            out.push_str(&escape(p));
        }
    }
    out
}

/// Whether a URL may become a link: a plain `https://` URL.
fn linkable(url: &str) -> bool {
    url.starts_with("https://")
        && !url.contains(|c: char| c.is_whitespace() || c.is_control() || "\"'<>`".contains(c))
}

/// A link to a spec URL; anything but a plain `https://` URL is shown as text.
fn spec_link(text: &str, url: &str) -> String {
    if linkable(url) {
        format!(
            "<a class=\"rule\" href=\"{}\" rel=\"noreferrer\"><code>{}</code></a>",
            escape(url),
            escape(text)
        )
    } else {
        format!("<code>{}</code>", escape(text))
    }
}

/// A file path, escaped, with a line-break opportunity after each `/`.
fn path_html(file: &str) -> String {
    escape(file).replace('/', "/<wbr>")
}

/// The anchor of a file's section.
pub fn anchor(file: &str) -> String {
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

/// The anchor of a file's result under a revision.
pub fn revision_anchor(file: &str, p: Protocol) -> String {
    format!("{}--{p}", anchor(file))
}

/// The label and CSS class a result is shown with.
pub fn shown_status(run: &CheckRun, r: &RevisionResult) -> (&'static str, &'static str) {
    match r.status {
        Status::Ok
            if r.findings
                .iter()
                .any(|f| run.fail_on.fails(f.finding.severity)) =>
        {
            ("NOT TARGETED", "nt")
        }
        s => (s.label(), status_class(s)),
    }
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

pub(crate) const STYLE: &str = r#"
*{box-sizing:border-box}
body{font-family:system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;max-width:80rem;padding:.75rem 1rem 3rem;color:#1f2328;line-height:1.4;overflow-wrap:break-word}
h1{font-size:1.35rem;margin:.25rem 0}h2{font-size:1.15rem;margin:1.5rem 0 .5rem;border-bottom:1px solid #d0d7de}h3{font-size:1rem;margin:.75rem 0 .25rem}
p{margin:.3rem 0}
nav.toc{font-size:.9rem;margin:.25rem 0 .5rem}nav.toc a{margin-right:.9rem;white-space:nowrap}
.counts{display:flex;flex-wrap:wrap;gap:.35rem;margin:.4rem 0;padding:0;list-style:none;font-size:.9rem}
.counts li{border:1px solid #d0d7de;border-radius:6px;padding:.1rem .5rem}.counts b{font-size:1rem}
table{border-collapse:collapse;margin:.4rem 0 1rem;font-size:.88rem;width:100%}
th,td{border:1px solid #d0d7de;padding:.25rem .45rem;text-align:left;vertical-align:top}
th{background:#f6f8fa;white-space:nowrap}td.n{text-align:right}
td.st,td.n,td.oc code{white-space:nowrap}td.file{min-width:14rem}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.84em}
code{background:#eff1f3;border-radius:4px;padding:0 .2em}a code{background:none;padding:0}
pre{background:#f6f8fa;padding:.4rem;margin:.3rem 0;white-space:pre-wrap;word-break:break-all}
blockquote{margin:.2rem 0 .1rem;padding:0 .6rem;border-left:3px solid #d0d7de;color:#57606a;font-size:.85rem}
mark{background:#ffd8b5;padding:0 .1rem}
.pass,.ok{color:#1a7f37}.fail,.findings{color:#cf222e;font-weight:600}.baselined{color:#9a6700}.nt{color:#57606a;font-weight:600}
.del{color:#cf222e}.add{color:#1a7f37}.ne{color:#9a6700;font-weight:600}
.why{margin:.1rem 0 .45rem}.why:last-child{margin-bottom:0}
.sev-error{color:#cf222e}.sev-warning{color:#9a6700}.sev-info{color:#0969da}
details{margin:.25rem 0}summary{cursor:pointer}details.file{border-top:1px solid #eaeef2;padding-top:.25rem}
form.filter{display:flex;flex-wrap:wrap;gap:.4rem .8rem;align-items:center;font-size:.88rem;margin:.3rem 0}
form.filter label{display:flex;gap:.3rem;align-items:center}form.filter select{max-width:16rem;font:inherit}
.muted{color:#57606a;font-size:.85rem}
@media (max-width:700px){
 body{padding:.5rem .6rem 2rem}
 table.stack,table.stack tbody,table.stack tr,table.stack td{display:block;width:100%}
 table.stack tr:first-child{display:none}
 table.stack tr{border:1px solid #d0d7de;border-radius:6px;margin:.4rem 0;padding:.2rem .3rem}
 table.stack td{border:0;padding:.15rem .2rem}
 table.stack td[data-label]::before{content:attr(data-label) ": ";font-weight:600;color:#57606a}
 td.file{min-width:0}td.oc code{white-space:normal}
 table.stack td.st,table.stack td.oc,table.stack td.n,table.stack td.sm{display:inline-block;width:auto;text-align:left;margin-right:.6rem}
 form.filter select{max-width:100%}
}
"#;

const SCRIPT: &str = r#"
(function(){
var f=document.getElementById('filter');if(!f)return;
function sel(n){return f.elements[n].value;}
function apply(){
 var st=sel('status'),rv=sel('revision'),ru=sel('rule'),ly=sel('layer'),shown=0,all=0;
 document.querySelectorAll('[data-status]').forEach(function(e){
  var ok=(!st||e.dataset.status===st)&&(!rv||e.dataset.rev===rv)&&(!ru||(' '+e.dataset.rules+' ').indexOf(' '+ru+' ')>=0)&&(!ly||(' '+e.dataset.layers+' ').indexOf(' '+ly+' ')>=0);
  e.hidden=!ok;if(e.tagName==='TR'){all++;if(ok)shown++;}
 });
 document.querySelectorAll('details.file').forEach(function(d){
  var bs=d.querySelectorAll('[data-status]');if(!bs.length)return;
  var any=false;bs.forEach(function(b){if(!b.hidden)any=true;});d.hidden=!any;
 });
 document.getElementById('shown').textContent=shown+' of '+all+' shown';
}
f.addEventListener('change',apply);f.addEventListener('reset',function(){setTimeout(apply,0);});apply();
})();
"#;

/// The rule texts of the run's revisions, by (revision, rule id).
type RuleIndex<'a> = BTreeMap<(Protocol, &'a str), &'a RuleConformance>;

fn rule_index(run: &CheckRun) -> RuleIndex<'_> {
    run.conformance
        .iter()
        .flat_map(|c| {
            c.rules
                .iter()
                .map(move |r| ((c.protocol, r.rule.as_str()), r))
        })
        .collect()
}

/// `<rule link> level: “quote”` for a rule under a revision.
fn cite(rules: &RuleIndex<'_>, p: Protocol, rule: &str, fallback_url: &str) -> String {
    match rules.get(&(p, rule)) {
        Some(r) => format!(
            "{} <span class=\"muted\">{} · {}</span><blockquote>{}</blockquote>",
            spec_link(rule, &r.url),
            escape(r.level.as_ref()),
            inline(&r.section),
            inline(&r.quote)
        ),
        None => spec_link(rule, fallback_url),
    }
}

/// Why a (file, revision) fails: one entry per failure (findings of a failing rule with their
/// messages), each with its rule, the rule's spec link and quoted sentence.
fn reasons(r: &RevisionResult, run: &CheckRun, rules: &RuleIndex<'_>) -> Vec<String> {
    let p = r.protocol;
    let mut out = Vec::new();
    for x in &r.failures {
        let listed = if x.baselined {
            " <span class=\"baselined\">(listed in the baseline)</span>"
        } else {
            ""
        };
        match x.kind {
            FailureKind::Outcome => {
                let expected = r
                    .expected
                    .as_ref()
                    .map(|e| e.outcome.to_string())
                    .unwrap_or_default();
                let mut s = format!(
                    "<div class=\"why\">Outcome <code>{}</code>, expected <code>{expected}</code>{listed}",
                    r.outcome
                );
                if let Some(d) = &r.decided_by {
                    let _ = write!(s, "; decided by {}", cite(rules, p, d, ""));
                }
                s.push_str("</div>");
                out.push(s);
            }
            FailureKind::Missing => {
                let rule = x.rule.as_deref().unwrap_or_default();
                out.push(format!(
                    "<div class=\"why\">Expected rule neither cited nor found{listed}: {}</div>",
                    cite(rules, p, rule, "")
                ));
            }
            FailureKind::Unexpected | FailureKind::Unlisted | FailureKind::Finding => {
                let rule = x.rule.as_deref().unwrap_or_default();
                let why = match x.kind {
                    FailureKind::Unexpected => " (the file lists this rule in <code>absent</code>)",
                    FailureKind::Unlisted => " (not listed in the file's <code>rules</code>)",
                    _ => "",
                };
                let found: Vec<_> = r
                    .findings
                    .iter()
                    .filter(|f| f.finding.rule == rule)
                    .filter(|f| {
                        x.kind != FailureKind::Finding || run.fail_on.fails(f.finding.severity)
                    })
                    .collect();
                let Some(first) = found.first() else {
                    continue;
                };
                let fd = &first.finding;
                let more = if found.len() > 1 {
                    format!(" <span class=\"muted\">(+{} more)</span>", found.len() - 1)
                } else {
                    String::new()
                };
                out.push(format!(
                    "<div class=\"why\"><span class=\"sev-{sev}\">{sev}</span> <code>{}</code>: {}{why}{more}{listed}<br>{}</div>",
                    escape(&fd.path),
                    inline(&fd.message),
                    cite(rules, p, rule, &fd.url),
                    sev = fd.severity,
                ));
            }
        }
    }
    out
}

/// Space-separated values for a `data-` attribute.
fn words<'a>(it: impl IntoIterator<Item = &'a str>) -> String {
    let set: BTreeSet<&str> = it.into_iter().collect();
    escape(&set.into_iter().collect::<Vec<_>>().join(" "))
}

fn failing_rules(r: &RevisionResult) -> Vec<&str> {
    let mut v: Vec<&str> = r
        .failures
        .iter()
        .filter_map(|x| x.rule.as_deref())
        .collect();
    v.extend(r.decided_by.as_deref());
    v
}

fn failing_layers(r: &RevisionResult) -> Vec<&str> {
    let rules = failing_rules(r);
    let mut v: Vec<&str> = r
        .findings
        .iter()
        .filter(|f| rules.contains(&f.finding.rule.as_str()))
        .map(|f| f.finding.layer.as_ref())
        .collect();
    v.push(r.layer.as_ref());
    v
}

fn data_attrs(run: &CheckRun, r: &RevisionResult) -> String {
    format!(
        "data-status=\"{}\" data-rev=\"{}\" data-rules=\"{}\" data-layers=\"{}\"",
        shown_status(run, r).0,
        r.protocol,
        words(failing_rules(r)),
        words(failing_layers(r))
    )
}

fn is_problem(r: &RevisionResult) -> bool {
    r.status != Status::Pass && r.status != Status::Ok
}

/// Renders the run.
pub fn render(run: &CheckRun, coverage: Option<&Coverage>) -> String {
    let mut out = Vec::new();
    render_to(run, coverage, &mut out).expect("writing to memory cannot fail");
    String::from_utf8(out).expect("the page is UTF-8")
}

/// Writes the page to `w` as it is composed, a section of a file at a time: the page is never
/// held whole.
pub fn render_to(
    run: &CheckRun,
    coverage: Option<&Coverage>,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let s = run.summary();
    let code = run.exit_code(coverage.is_some());
    let rules = rule_index(run);
    let verdict = if code == 0 { "passed" } else { "failed" };
    let mut o = String::new();
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n<title>mcp-verdict check: {verdict}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n"
    );
    let _ = writeln!(
        o,
        "<header id=\"top\"><h1>mcp-verdict check: <span class=\"{}\">{verdict}</span></h1>\n<p>{}. Exit status {code}.</p>",
        if code == 0 { "pass" } else { "fail" },
        escape(&super::text::summary_line(run))
    );
    let failing: Vec<(&FileResult, &RevisionResult)> =
        run.results().filter(|(_, r)| is_problem(r)).collect();
    let errors: Vec<_> = run.input_errors().collect();

    // Table of contents.
    let mut toc = vec![format!(
        "<a href=\"#failures\">Failures ({})</a>",
        failing.len()
    )];
    if !errors.is_empty() {
        toc.push(format!(
            "<a href=\"#invalid\">Not judged ({})</a>",
            errors.len()
        ));
    }
    if !run.stale.is_empty() {
        toc.push(format!(
            "<a href=\"#stale\">Stale baseline ({})</a>",
            run.stale.len()
        ));
    }
    toc.push(format!(
        "<a href=\"#files\">Files ({})</a>",
        run.files.len()
    ));
    for c in &run.conformance {
        toc.push(format!(
            "<a href=\"#conformance-{p}\">Conformance {p}</a>",
            p = c.protocol
        ));
    }
    if coverage.is_some() {
        toc.push("<a href=\"#coverage\">Coverage</a>".into());
    }
    let _ = writeln!(
        o,
        "<nav class=\"toc\" aria-label=\"Contents\">{}</nav>",
        toc.join(" ")
    );
    let _ = writeln!(o, "<ul class=\"counts\" id=\"summary\">");
    let not_targeted = run
        .results()
        .filter(|(_, r)| shown_status(run, r).0 == "NOT TARGETED")
        .count();
    for (label, n, class) in [
        ("failed (expectation not met)", s.failed, "fail"),
        (
            "with findings (no expectation)",
            s.with_findings,
            "findings",
        ),
        ("not judged", s.invalid_files, "fail"),
        ("stale baseline entries", s.stale, "fail"),
        ("baselined", s.baselined, "baselined"),
        ("passed", s.passed, "pass"),
        ("ok", s.ok - not_targeted, "ok"),
        ("not targeted", not_targeted, "nt"),
        ("files", s.files, ""),
        ("results (file × revision)", s.results, ""),
    ] {
        if n > 0 || matches!(label, "files" | "passed") {
            let title = if class == "nt" {
                " title=\"ok results under a revision the file's expect does not name, with findings at or above --fail-on: shown, they do not fail the run\""
            } else {
                ""
            };
            let _ = writeln!(o, "<li{title}><b class=\"{class}\">{n}</b> {label}</li>");
        }
    }
    let _ = writeln!(
        o,
        "</ul>\n<p class=\"muted\">Findings at or above <code>{}</code> fail files without expectations{}; a file with an expectation fails when its verdict differs from it.</p>\n</header>",
        run.fail_on.as_str(),
        if run.strict {
            "; strict: unlisted findings fail files with expectations"
        } else {
            ""
        }
    );

    // Failures first.
    let _ = writeln!(o, "<section id=\"failures\">\n<h2>Failures</h2>");
    if failing.is_empty() {
        let _ = writeln!(o, "<p class=\"pass\">No (file, revision) fails.</p>");
    } else {
        filter_form(&mut o, run, &failing);
        let _ = writeln!(
            o,
            "<table class=\"stack\">\n<tr><th>Status</th><th>File and revision</th><th>Outcome</th><th>Why</th></tr>"
        );
        for (f, r) in &failing {
            let (label, class) = shown_status(run, r);
            let mut why = reasons(r, run, &rules);
            if why.len() > REASONS_SHOWN {
                let more = why.len() - REASONS_SHOWN;
                why.truncate(REASONS_SHOWN);
                why.push(format!(
                    "<div class=\"why muted\">and {more} more: see <a href=\"#{}\">the file</a></div>",
                    revision_anchor(&f.file, r.protocol)
                ));
            }
            let _ = writeln!(
                o,
                "<tr {}><td data-label=\"Status\" class=\"st {class}\">{label}</td><td data-label=\"File\" class=\"file\"><a href=\"#{}\"><code>{}</code></a> <span class=\"muted\">{}</span></td><td data-label=\"Outcome\" class=\"oc\"><code>{}</code></td><td data-label=\"Why\">{}</td></tr>",
                data_attrs(run, r),
                revision_anchor(&f.file, r.protocol),
                path_html(&f.file),
                r.protocol,
                r.outcome,
                why.join("")
            );
            spill(&mut o, w)?;
        }
        let _ = writeln!(o, "</table>");
    }
    let _ = writeln!(o, "</section>");

    if !errors.is_empty() {
        let _ = writeln!(
            o,
            "<section id=\"invalid\">\n<h2>Unreadable or invalid files (not judged)</h2>\n<table class=\"stack\">\n<tr><th>File</th><th>Line</th><th>Column</th><th>Problem</th></tr>"
        );
        for (f, e) in &errors {
            let _ = writeln!(
                o,
                "<tr id=\"{}\"><td data-label=\"File\" class=\"file\"><code>{}</code></td><td data-label=\"Line\" class=\"n\">{}</td><td data-label=\"Column\" class=\"n\">{}</td><td data-label=\"Problem\">{}</td></tr>",
                anchor(&f.file),
                path_html(&f.file),
                e.line.map_or(String::new(), |l| l.to_string()),
                e.column.map_or(String::new(), |c| c.to_string()),
                inline(&e.message)
            );
        }
        let _ = writeln!(o, "</table>\n</section>");
    }

    if !run.stale.is_empty() {
        let _ = writeln!(
            o,
            "<section id=\"stale\">\n<h2>Stale baseline entries</h2>\n<p>The listed failure no longer occurs: remove the entry.</p>\n<table class=\"stack\">\n<tr><th>File</th><th>Revision</th><th>Rule or outcome</th></tr>"
        );
        for e in &run.stale {
            let what = e
                .rule
                .clone()
                .or(e.outcome.map(|o| o.to_string()))
                .unwrap_or_default();
            let _ = writeln!(
                o,
                "<tr><td data-label=\"File\"><code>{}</code></td><td data-label=\"Revision\">{}</td><td data-label=\"Rule or outcome\"><code>{}</code></td></tr>",
                escape(&e.file),
                e.protocol,
                escape(&what)
            );
        }
        let _ = writeln!(o, "</table>\n</section>");
    }

    // The files: those with a problem in full, then the others in brief.
    let _ = writeln!(o, "<section id=\"files\">\n<h2>Files</h2>");
    let (problem, others): (Vec<&FileResult>, Vec<&FileResult>) = run
        .files
        .iter()
        .filter(|f| f.error.is_none())
        .partition(|f| f.results.iter().any(is_problem));
    if !problem.is_empty() {
        let _ = writeln!(
            o,
            "<p class=\"muted\">{} with a failure, in full; then {} without, in brief.</p>",
            problem.len(),
            others.len()
        );
    }
    for f in &problem {
        file_detail(&mut o, f, run, &rules);
        spill(&mut o, w)?;
    }
    if !others.is_empty() {
        let _ = writeln!(
            o,
            "<details id=\"passing\"><summary>{} {} without a failure</summary>\n<table class=\"stack\">\n<tr><th>File</th><th>Results</th></tr>",
            others.len(),
            super::text::plural(others.len(), "file", "files")
        );
        for f in others.iter().take(PASSING_LISTED) {
            let badges: Vec<String> = f
                .results
                .iter()
                .map(|r| {
                    let (label, class) = shown_status(run, r);
                    format!(
                        "<span class=\"{class}\">{} {label}</span> <code>{}</code>",
                        r.protocol, r.outcome
                    )
                })
                .collect();
            let _ = writeln!(
                o,
                "<tr id=\"{}\"><td data-label=\"File\" class=\"file\"><code>{}</code>{}</td><td data-label=\"Results\">{}</td></tr>",
                anchor(&f.file),
                path_html(&f.file),
                f.name
                    .as_deref()
                    .map(|n| format!(" <span class=\"muted\">{}</span>", escape(n)))
                    .unwrap_or_default(),
                badges.join("<br>")
            );
            spill(&mut o, w)?;
        }
        let _ = writeln!(o, "</table>");
        if others.len() > PASSING_LISTED {
            let _ = writeln!(
                o,
                "<p class=\"muted\">… and {} more files without a failure (the JSON report lists every file).</p>",
                others.len() - PASSING_LISTED
            );
        }
        let _ = writeln!(o, "</details>");
    }
    let _ = writeln!(o, "</section>");

    // Conformance and coverage last, collapsed.
    for c in &run.conformance {
        let _ = writeln!(
            o,
            "<section id=\"conformance-{p}\">\n<h2>Conformance {p}</h2>\n<p>{}. Counts are exchanges.</p>\n<details><summary>Per-rule table ({} rules)</summary>\n<table class=\"stack\">\n<tr><th>Rule</th><th>Level</th><th>Severity</th><th>Layer</th><th>Satisfied</th><th>Triggered</th><th>Not applicable</th><th>State</th></tr>",
            escape(&super::text::conformance_line(c)),
            c.rules.len(),
            p = c.protocol,
        );
        for r in &c.rules {
            let _ = writeln!(
                o,
                "<tr><td data-label=\"Rule\">{}<br><small>{}</small></td><td data-label=\"Level\" class=\"sm\">{}</td><td data-label=\"Severity\" class=\"sm\">{}</td><td data-label=\"Layer\" class=\"sm\">{}</td><td data-label=\"Satisfied\" class=\"n\">{}</td><td data-label=\"Triggered\" class=\"n\">{}</td><td data-label=\"Not applicable\" class=\"n\">{}</td><td data-label=\"State\" class=\"sm {}\">{}</td></tr>",
                spec_link(&r.rule, &r.url),
                inline(&r.title),
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
        let _ = writeln!(o, "</table>\n</details>\n</section>");
    }

    if let Some(cov) = coverage {
        let gaps: Vec<_> = cov.gaps().collect();
        let _ = writeln!(o, "<section id=\"coverage\">\n<h2>Rule coverage</h2>");
        if gaps.is_empty() {
            let _ = writeln!(
                o,
                "<p>Every rule of every judged revision has a triggering and a satisfying fixture.</p>"
            );
        } else {
            let _ = writeln!(
                o,
                "<details><summary>{} {} lack a triggering or a satisfying fixture</summary>\n<table class=\"stack\">\n<tr><th>Revision</th><th>Rule</th><th>Triggered by</th><th>Satisfied by</th><th>Lacks</th></tr>",
                gaps.len(),
                super::text::plural(gaps.len(), "rule", "rules")
            );
            for (p, r) in gaps {
                let _ = writeln!(
                    o,
                    "<tr><td data-label=\"Revision\">{p}</td><td data-label=\"Rule\"><code>{}</code></td><td data-label=\"Triggered by\" class=\"n\">{}</td><td data-label=\"Satisfied by\" class=\"n\">{}</td><td data-label=\"Lacks\">{}</td></tr>",
                    escape(&r.rule),
                    r.triggered_by.len(),
                    r.satisfied_by.len(),
                    escape(&r.lacks().join(", "))
                );
            }
            let _ = writeln!(o, "</table>\n</details>");
        }
        let _ = writeln!(o, "</section>");
    }
    let _ = writeln!(
        o,
        "<p class=\"muted\"><a href=\"#top\">Back to the top</a></p>\n<script>{SCRIPT}</script>\n</body>\n</html>"
    );
    w.write_all(o.as_bytes())
}

/// Writes what is composed so far once it is large enough.
fn spill(o: &mut String, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    if o.len() >= 64 << 10 {
        w.write_all(o.as_bytes())?;
        o.clear();
    }
    Ok(())
}

/// The filter above the failures table: status, revision, rule, layer, from the failures'
/// own values.
fn filter_form(o: &mut String, run: &CheckRun, failing: &[(&FileResult, &RevisionResult)]) {
    let mut statuses = BTreeSet::new();
    let mut revisions = BTreeSet::new();
    let mut rule_ids = BTreeSet::new();
    let mut layers = BTreeSet::new();
    for (_, r) in failing {
        statuses.insert(shown_status(run, r).0);
        revisions.insert(r.protocol.as_str());
        rule_ids.extend(failing_rules(r));
        layers.extend(failing_layers(r));
    }
    let select = |name: &str, label: &str, values: &BTreeSet<&str>| {
        let mut s =
            format!("<label>{label} <select name=\"{name}\"><option value=\"\">all</option>");
        for v in values {
            let _ = write!(s, "<option>{}</option>", escape(v));
        }
        s.push_str("</select></label>");
        s
    };
    let _ = writeln!(
        o,
        "<form class=\"filter\" id=\"filter\">{}{}{}{}<button type=\"reset\">Show all</button><span class=\"muted\" id=\"shown\" aria-live=\"polite\"></span></form>",
        select("status", "Status", &statuses),
        select("revision", "Revision", &revisions),
        select("rule", "Rule", &rule_ids),
        select("layer", "Layer", &layers),
    );
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

fn file_detail(o: &mut String, f: &FileResult, run: &CheckRun, rules: &RuleIndex<'_>) {
    let badge: Vec<String> = f
        .results
        .iter()
        .map(|r| {
            let (label, class) = shown_status(run, r);
            format!(
                "<a href=\"#{}\" class=\"{class}\">{} {label}</a>",
                revision_anchor(&f.file, r.protocol),
                r.protocol
            )
        })
        .collect();
    let _ = writeln!(
        o,
        "<details class=\"file\" id=\"{}\" open><summary><code>{}</code>{} {}</summary>",
        anchor(&f.file),
        path_html(&f.file),
        f.name
            .as_deref()
            .map(|n| format!(" — {}", escape(n)))
            .unwrap_or_default(),
        badge.join(" · ")
    );
    for r in &f.results {
        revision_detail(o, f, r, run, rules);
    }
    let _ = writeln!(o, "</details>");
}

fn revision_detail(
    o: &mut String,
    f: &FileResult,
    r: &RevisionResult,
    run: &CheckRun,
    rules: &RuleIndex<'_>,
) {
    let (label, class) = shown_status(run, r);
    let _ = writeln!(
        o,
        "<div {}>\n<h3 id=\"{}\">{} <span class=\"{class}\">{label}</span> <code>{}</code></h3>\n<p>{}{}</p>",
        data_attrs(run, r),
        revision_anchor(&f.file, r.protocol),
        r.protocol,
        r.outcome,
        inline(&r.summary),
        r.decided_by
            .as_deref()
            .map(|d| format!(
                " Decided by {}.",
                spec_link(
                    d,
                    rules.get(&(r.protocol, d)).map_or("", |c| c.url.as_str())
                )
            ))
            .unwrap_or_default()
    );
    if let Some(e) = &r.expected {
        let mut s = format!("Expected outcome <code>{}</code>", e.outcome);
        if !e.rules.is_empty() {
            let _ = write!(s, "; rules <code>{}</code>", escape(&e.rules.join(", ")));
        }
        if !e.absent.is_empty() {
            let _ = write!(s, "; absent <code>{}</code>", escape(&e.absent.join(", ")));
        }
        if let Some(l) = r.expected_at {
            let _ = write!(
                s,
                " <span class=\"muted\">(line {}, column {})</span>",
                l.line, l.column
            );
        }
        let _ = writeln!(o, "<p>{s}.</p>");
    }
    if let Some(d) = &r.diff {
        let _ = writeln!(o, "{}", diff_html(&d.lines(r.decided_by.as_deref())));
    }
    if !r.findings.is_empty() {
        let _ = writeln!(
            o,
            "<table class=\"stack\">\n<tr><th>Severity</th><th>Rule</th><th>Where</th><th>Message</th></tr>"
        );
        for x in &r.findings {
            let fd = &x.finding;
            let mut where_ = format!("<code>{}</code>", escape(&fd.path));
            if let Some(e) = fd.event {
                let _ = write!(where_, " (event {e})");
            }
            if let Some(l) = fd.line {
                let _ = write!(where_, " (stdout line {l})");
            }
            if let Some(l) = x.location {
                let _ = write!(
                    where_,
                    "<br><small>line {}, column {}</small>",
                    l.line, l.column
                );
            }
            let mut msg = inline(&fd.message);
            if x.expected {
                msg.push_str(" <small class=\"muted\">(expected by the file)</small>");
            } else if r.expected.is_none() && !run.fail_on.fails(fd.severity) {
                msg.push_str(" <small class=\"muted\">(below --fail-on)</small>");
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
                "<tr><td data-label=\"Severity\" class=\"sev-{sev}\">{sev}</td><td data-label=\"Rule\">{}</td><td data-label=\"Where\">{where_}</td><td data-label=\"Message\">{msg}</td></tr>",
                spec_link(&fd.rule, &fd.url),
                sev = fd.severity,
            );
        }
        for x in &r.omitted {
            let _ = writeln!(
                o,
                "<tr class=\"omitted\"><td data-label=\"Severity\" class=\"sev-{sev}\">{sev}</td><td data-label=\"Rule\"><code>{}</code></td><td data-label=\"Where\"></td><td data-label=\"Message\">{}</td></tr>",
                escape(&x.rule),
                escape(&x.message),
                sev = x.severity,
            );
        }
        let _ = writeln!(o, "</table>");
    }
    let _ = writeln!(o, "</div>");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_and_escapes() {
        assert_eq!(
            inline("`resultType` is <b>"),
            "<code>resultType</code> is &lt;b&gt;"
        );
        assert_eq!(inline("odd ` tick"), "odd ` tick");
        assert_eq!(escape("\u{1b}]0;x\u{7}"), "\\u{1b}]0;x\\u{7}");
        assert!(!linkable("https://x/\u{1b}"));
    }
}
