//! What a probe leaves behind: the `--format json` document, the text report, exchange
//! files (`--record`) and diagnostic records (`--log`).

use std::fmt::Write as _;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::{self as outputs, Style};
use crate::probe::{
    CallExchange, CallKind, HttpStep, ProbeReport, ReadStop, RevisionRun, RunStatus, SetupExchange,
};
use crate::views::diag::{DiagRecord, Side, sanitize, sanitize_value};
use crate::views::{JudgementOut, redact};
use crate::vocab::Protocol;
use crate::wire::exchange::{BodyEnd, ExchangeFile};

/// The `probe --format json` document.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbeOut {
    /// The endpoint probed (secrets redacted).
    pub url: String,
    /// One entry per revision probed.
    pub runs: Vec<RunOut>,
    /// The exit status the command returns for this report.
    pub exit_code: u8,
}

/// One revision's run in output form.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunOut {
    /// The revision.
    pub protocol: Protocol,
    /// `probed`, `unsupported` or `failed`, with a `reason` for the latter two.
    #[serde(flatten)]
    pub status: RunStatus,
    /// What the server said about itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server: Option<Value>,
    /// Tools listed.
    pub tools: Vec<ToolOut>,
    /// The setup's discovery exchanges (`initialize`, `server/discover`, `tools/list`), judged
    /// by the discovery rules, in order.
    pub discovery: Vec<DiscoveryOut>,
    /// Messages sent (POSTs over HTTP, lines over stdio).
    pub posts: u32,
    /// Every message in order: each HTTP request with its status, or each line written to a
    /// stdio server with how its answer ended.
    pub http: Vec<HttpStep>,
    /// Judged `tools/call` exchanges.
    pub exchanges: Vec<ExchangeOut>,
    /// Calls that got no HTTP response to judge.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub failures: Vec<FailureOut>,
    /// Messages that arrived on the standalone GET stream (2025-11-25) and what the probe did.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub stream_messages: Vec<String>,
    /// Listed tools the probe rejected and did not call (invalid `x-mcp-header`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub rejected_tools: Vec<RejectedOut>,
    /// The active checks (`--active`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub active: Vec<super::probe_active::ActiveOut>,
    /// Over stdio: what the server process did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub process: Option<ProcessOut>,
}

/// A stdio server process in output form.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProcessOut {
    /// The command (redacted).
    pub command: String,
    /// How the run ended it.
    pub ending: String,
    /// Whether it needed a signal to stop once its stdin was closed.
    pub needed_signal: bool,
    /// What it wrote on stderr (redacted).
    pub stderr: String,
}

/// A judged discovery exchange in output form.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiscoveryOut {
    /// The request: `initialize`, `server/discover`, `tools/list` (`tools/list page 2`, ...).
    pub label: String,
    /// HTTP status of the answer.
    pub status: u16,
    /// The engine's verdict (the `classify --format json` object): outcome `NOT_A_TOOL_CALL`,
    /// with the discovery rules' findings.
    pub judgement: JudgementOut,
}

/// A listed tool the probe rejected.
#[derive(Debug, Clone, Serialize)]
pub struct RejectedOut {
    /// Tool name.
    pub name: String,
    /// Why.
    pub reason: String,
}

/// A listed tool, briefly.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolOut {
    /// Tool name.
    pub name: String,
    /// Whether its annotations say `readOnlyHint: true`.
    pub read_only: bool,
}

/// A judged exchange in output form.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExchangeOut {
    /// Label of the call.
    pub label: String,
    /// Why the call was made.
    pub call: CallKind,
    /// JSON-RPC method (always `tools/call`).
    pub method: String,
    /// Tool name sent.
    pub tool: String,
    /// Arguments sent (secret-looking values redacted).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub arguments: Option<Value>,
    /// Round (1 = first request; more for input-required follow-ups).
    pub round: u32,
    /// POSTs the run had sent when this exchange ended.
    pub posts: u32,
    /// POSTs sent for this call so far.
    pub call_posts: u32,
    /// HTTP statuses of this call's POSTs so far.
    pub statuses: Vec<u16>,
    /// How the body ended.
    pub end: BodyEnd,
    /// Why, when it did not simply complete.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end_note: Option<String>,
    /// Why the probe stopped reading the body, when it did not simply complete.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stopped: Option<ReadStop>,
    /// Why the call got no complete response, when it did not (the exit status is then 1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unanswered: Option<String>,
    /// Server requests seen on the stream and how they were answered.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub server_requests: Vec<String>,
    /// Why an input-required result was not followed up.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub follow_up: Option<String>,
    /// The engine's verdict (the `classify --format json` object).
    pub judgement: JudgementOut,
}

/// A call that got no HTTP response.
#[derive(Debug, Clone, Serialize)]
pub struct FailureOut {
    /// Label of the call.
    pub label: String,
    /// Why.
    pub error: String,
}

impl ProbeReport {
    /// The `--format json` document.
    pub fn to_output(&self) -> ProbeOut {
        ProbeOut {
            url: self.url.clone(),
            runs: self.runs.iter().map(run_out).collect(),
            exit_code: self.exit_code(),
        }
    }

    /// One diagnostic record per judged exchange (side `probe`).
    pub fn diag_records(&self) -> Vec<DiagRecord> {
        self.runs
            .iter()
            .flat_map(|r| r.exchanges.iter().map(diag_record))
            .collect()
    }

    /// Writes each judged exchange as an exchange file into `dir` (created if needed) and
    /// returns the paths written: the tool calls (`001-<revision>-<label>.json`, ...) first,
    /// then the `--active` checks' (numbered on), then each run's discovery exchanges
    /// (`setup-<revision>-01-<method>.json`, ...); the OAuth client's requests, when it made
    /// any, go first, into `authorization.json`.
    /// `classify` re-judges them to the same verdicts.
    pub fn write_records(&self, dir: &Path) -> io::Result<Vec<PathBuf>> {
        std::fs::create_dir_all(dir)?;
        let mut paths = Vec::new();
        if !self.authorization.is_empty() {
            // The OAuth client's requests, in order, with tokens, codes, verifiers, states
            // and secrets already taken out (whatever --no-redact says).
            let path = dir.join("authorization.json");
            let text = serde_json::to_string_pretty(&self.authorization)
                .expect("authorization steps serialize");
            std::fs::write(&path, crate::views::redact::text(&text).into_owned() + "\n")?;
            paths.push(path);
        }
        for (i, x) in self.exchanges().enumerate() {
            let p = x.verdict().protocol;
            let mut stem = format!("{:03}-{}-{}", i + 1, p, super::record::file_safe(&x.label));
            if x.round > 1 {
                stem.push_str(&format!("-round{}", x.round));
            }
            let path = dir.join(format!("{stem}.json"));
            let file = exchange_file(x, &self.url);
            let text = serde_json::to_string_pretty(&file).expect("exchange files serialize");
            std::fs::write(&path, text + "\n")?;
            paths.push(path);
        }
        let mut i = paths.len();
        for r in &self.runs {
            for (stem, ex, what) in super::probe_active::active_exchanges(r) {
                i += 1;
                let path = dir.join(format!("{i:03}-{}.json", super::record::file_safe(&stem)));
                let description =
                    format!("Recorded by mcp-verdict probe from {}: {what}", self.url);
                let file = super::record::exchange_file(ex, r.protocol, description);
                let text = serde_json::to_string_pretty(&file).expect("exchange files serialize");
                std::fs::write(&path, text + "\n")?;
                paths.push(path);
            }
        }
        for r in &self.runs {
            if let Some(process) = &r.process {
                // The session as it went, for `classify --transcript` (secrets redacted as in
                // any string of JSON).
                let path = dir.join(format!("transcript-{}.jsonl", r.protocol));
                let text = String::from_utf8_lossy(&process.transcript);
                std::fs::write(&path, redact::text(&text).as_bytes())?;
                paths.push(path);
            }
            for (i, x) in r.discovery.iter().enumerate() {
                let stem = format!(
                    "setup-{}-{:02}-{}",
                    r.protocol,
                    i + 1,
                    super::record::file_safe(&x.label)
                );
                let path = dir.join(format!("{stem}.json"));
                let description = format!(
                    "Recorded by mcp-verdict probe from {}: {}, a discovery request of the setup",
                    self.url, x.label
                );
                let file = super::record::exchange_file(&x.exchange, r.protocol, description);
                let text = serde_json::to_string_pretty(&file).expect("exchange files serialize");
                std::fs::write(&path, text + "\n")?;
                paths.push(path);
            }
        }
        Ok(paths)
    }

    /// Appends the diagnostic records to `path` as JSON lines.
    pub fn append_log(&self, path: &Path) -> io::Result<()> {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        for r in self.diag_records() {
            writeln!(f, "{}", r.to_json_line())?;
        }
        f.flush()
    }
}

fn run_out(r: &RevisionRun) -> RunOut {
    RunOut {
        protocol: r.protocol,
        status: match &r.status {
            RunStatus::Probed => RunStatus::Probed,
            RunStatus::Unsupported(why) => RunStatus::Unsupported(shown(why)),
            RunStatus::Failed(why) => RunStatus::Failed(shown(why)),
        },
        server: r.server.as_ref().map(redact::value),
        tools: r
            .tools
            .iter()
            .map(|t| ToolOut {
                name: t
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("?")
                    .to_string(),
                read_only: crate::probe::plan::is_read_only(t),
            })
            .collect(),
        discovery: r
            .discovery
            .iter()
            .map(|x| DiscoveryOut {
                label: x.label.clone(),
                status: x.exchange.status,
                judgement: JudgementOut::of(&x.judgement, x.exchange.name.clone()),
            })
            .collect(),
        posts: r.post_count(),
        http: r
            .steps
            .iter()
            .map(|s| HttpStep {
                redirect: s.redirect.as_deref().map(shown),
                note: s.note.as_deref().map(shown),
                ..s.clone()
            })
            .collect(),
        exchanges: r
            .exchanges
            .iter()
            .map(|x| ExchangeOut {
                label: x.label.clone(),
                call: x.call.kind.clone(),
                method: "tools/call".into(),
                tool: x.call.name.clone(),
                arguments: x.call.arguments.as_ref().map(sanitize_value),
                round: x.round,
                posts: posts_until(r, x),
                call_posts: x.call_posts,
                statuses: x.call_statuses.clone(),
                end: x.exchange.end,
                end_note: x.end_note.as_deref().map(shown),
                stopped: r.steps[..x.steps_so_far]
                    .iter()
                    .rev()
                    .find(|s| s.rpc_method.as_deref() == Some("tools/call"))
                    .and_then(|s| s.stopped),
                unanswered: x.unanswered.as_deref().map(shown),
                server_requests: x.server_requests.iter().map(|q| shown(q)).collect(),
                follow_up: x.follow_up.as_deref().map(shown),
                judgement: crate::views::JudgementOut::of(&x.judgement, x.exchange.name.clone()),
            })
            .collect(),
        failures: r
            .failures
            .iter()
            .map(|(label, error)| FailureOut {
                label: label.clone(),
                error: shown(error),
            })
            .collect(),
        stream_messages: r.stream_messages.iter().map(|m| shown(m)).collect(),
        rejected_tools: r
            .rejected_tools
            .iter()
            .map(|(name, why)| RejectedOut {
                name: shown(name),
                reason: shown(why),
            })
            .collect(),
        active: super::probe_active::active_out(r),
        process: r.process.as_ref().map(|p| ProcessOut {
            command: shown(&p.command),
            ending: shown(&p.ending),
            needed_signal: p.needed_signal,
            stderr: shown(&p.stderr),
        }),
    }
}

/// What the server (or the connection) said, as shown: redacted ([`redact`]).
fn shown(s: &str) -> String {
    redact::text(s).into_owned()
}

/// Text for the text report: redacted ([`redact`]), then escaped ([`super::safe`]).
fn esc(s: &str) -> std::borrow::Cow<'_, str> {
    match redact::text(s) {
        std::borrow::Cow::Borrowed(b) => super::safe::text(b),
        std::borrow::Cow::Owned(o) => std::borrow::Cow::Owned(super::safe::text(&o).into_owned()),
    }
}

fn posts_until(r: &RevisionRun, x: &CallExchange) -> u32 {
    r.steps[..x.steps_so_far]
        .iter()
        .filter(|s| s.post.is_some())
        .count() as u32
}

/// The exchange file for a judged exchange: `protocol` set, no `expect`.
pub(super) fn exchange_file(x: &CallExchange, url: &str) -> ExchangeFile {
    let what = match &x.call.kind {
        CallKind::Named => "a tool named on the command line".to_string(),
        CallKind::UnknownTool => "a tool name the server did not list".to_string(),
        CallKind::InvalidArguments { violation } => format!("invalid arguments: {violation}"),
    };
    let description = format!(
        "Recorded by mcp-verdict probe from {url}: tools/call {} ({what}), round {}",
        x.call.name, x.round
    );
    super::record::exchange_file(&x.exchange, x.verdict().protocol, description)
}

fn diag_record(x: &CallExchange) -> DiagRecord {
    let mut r = crate::views::diag::record(&x.exchange, x.verdict(), Side::Probe);
    r.client = Some(sanitize(&format!(
        "{}@{}",
        crate::probe::CLIENT_NAME,
        env!("CARGO_PKG_VERSION")
    )));
    r.post_count = u64::from(x.call_posts);
    r.http_statuses = x.call_statuses.clone();
    r
}

/// The text report: per revision, its setup; per exchange, the HTTP requests so far with
/// their statuses, then the verdict as `classify` renders it. What the server sent (tool names,
/// server info, notes) is redacted ([`redact`]) and escaped ([`super::safe`]).
pub fn render_text(report: &ProbeReport, style: Style) -> String {
    render_text_with(report, style, false)
}

/// [`render_text`], with what a stdio server wrote on stderr when `show_stderr`.
pub fn render_text_with(report: &ProbeReport, style: Style, show_stderr: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{} {}", style.bold("probe"), esc(&report.url));
    for r in &report.runs {
        let _ = writeln!(out);
        let status = match &r.status {
            RunStatus::Probed => "probed".to_string(),
            RunStatus::Unsupported(why) => format!("not supported by the server: {}", esc(why)),
            RunStatus::Failed(why) => format!("setup failed: {}", esc(why)),
        };
        let _ = writeln!(
            out,
            "{} {}",
            style.bold(&format!("== {}", r.protocol)),
            status
        );
        if let Some(info) = server_label(r) {
            let _ = writeln!(out, "   server: {}", esc(&info));
        }
        if !r.tools.is_empty() {
            let names: Vec<std::borrow::Cow<'_, str>> = r
                .tools
                .iter()
                .filter_map(|t| t.get("name").and_then(Value::as_str))
                .map(esc)
                .collect();
            let _ = writeln!(out, "   tools ({}): {}", names.len(), names.join(", "));
        }
        for (name, why) in &r.rejected_tools {
            let _ = writeln!(
                out,
                "   {} {}: {}",
                style.bold("tool rejected:"),
                esc(name),
                esc(why)
            );
        }
        let first_call = r
            .exchanges
            .first()
            .map_or(r.steps.len(), |x| first_step_of(r, x));
        for s in &r.steps[..first_call] {
            step_line(&mut out, s, style);
        }
        if !matches!(r.status, RunStatus::Unsupported(_)) {
            discovery_lines(&mut out, &r.discovery, style);
        }
        let mut shown = first_call;
        for x in &r.exchanges {
            let _ = writeln!(out);
            let round = if x.round > 1 {
                format!(" (round {})", x.round)
            } else {
                String::new()
            };
            let what = match &x.call.kind {
                CallKind::Named => String::new(),
                CallKind::UnknownTool => " — unknown tool".to_string(),
                CallKind::InvalidArguments { violation } => format!(" — {}", esc(violation)),
            };
            let _ = writeln!(
                out,
                "{}",
                style.bold(&format!("-- tools/call {}{round}{what}", esc(&x.call.name)))
            );
            // The requests this call made (its own, answers, rounds), one line each: what
            // came before is above, not repeated.
            for s in &r.steps[shown.min(x.steps_so_far)..x.steps_so_far] {
                step_line(&mut out, s, style);
            }
            shown = shown.max(x.steps_so_far);
            for q in &x.server_requests {
                let _ = writeln!(out, "   server request: {}", esc(q));
            }
            let label = x.exchange.name.clone().unwrap_or_else(|| x.label.clone());
            for line in outputs::verdict::judgement(&x.judgement, &label, style).lines() {
                let _ = writeln!(out, "   {line}");
            }
            if let Some(f) = &x.follow_up {
                let _ = writeln!(out, "   {}", esc(f));
            }
            if let Some(why) = &x.unanswered {
                let _ = writeln!(
                    out,
                    "   {} {}",
                    style.bold("no complete response:"),
                    esc(why)
                );
            }
        }
        // Steps after the last exchange (e.g. the session DELETE).
        if !r.exchanges.is_empty() {
            let _ = writeln!(out);
        }
        for s in &r.steps[shown.min(r.steps.len())..] {
            step_line(&mut out, s, style);
        }
        for (label, why) in &r.failures {
            let _ = writeln!(
                out,
                "   {} {}: {}",
                style.bold("no response"),
                esc(label),
                esc(why)
            );
        }
        for m in &r.stream_messages {
            let _ = writeln!(out, "   {}", esc(m));
        }
        if let Some(p) = &r.process {
            process_lines(&mut out, p, style, show_stderr);
        }
        super::probe_active::render_active(&mut out, r, style);
    }
    let _ = writeln!(out);
    let setup_errors = report
        .runs
        .iter()
        .flat_map(|r| r.discovery.iter())
        .filter(|x| x.has_error_finding())
        .count();
    if setup_errors > 0 {
        let _ = writeln!(
            out,
            "{setup_errors} discovery exchange(s) with error findings"
        );
    }
    let n = report.exchanges().count();
    let errors = report.exchanges().filter(|x| x.has_error_finding()).count();
    let unanswered = report.unanswered().count();
    let unsent: usize = report.runs.iter().map(|r| r.failures.len()).sum();
    let _ = writeln!(
        out,
        "{n} exchange(s) judged, {errors} with error findings, {unanswered} without a complete response, {unsent} call(s) without any response{}; exit {}",
        super::probe_active::summary(report),
        report.exit_code()
    );
    out
}

/// How a stdio server process ended and, on request, what it wrote on stderr.
fn process_lines(
    out: &mut String,
    p: &crate::probe::ServerProcess,
    style: Style,
    show_stderr: bool,
) {
    let label = if p.needed_signal {
        style.bold("server process (needed a signal):")
    } else {
        "server process:".to_string()
    };
    let _ = writeln!(out, "   {label} {}", esc(&p.ending));
    let lines: Vec<&str> = p.stderr.lines().collect();
    if lines.is_empty() {
        return;
    }
    if show_stderr {
        let _ = writeln!(out, "   stderr ({} line(s)):", lines.len());
        for l in lines {
            let _ = writeln!(out, "     {}", style.dim(&esc(l)));
        }
    } else {
        let _ = writeln!(
            out,
            "   stderr: {} line(s), not errors by themselves (--show-stderr shows them)",
            lines.len()
        );
    }
}

/// The discovery verdicts, briefly: one line per exchange, then its findings with the rule and
/// where the rule is written.
fn discovery_lines(out: &mut String, discovery: &[SetupExchange], style: Style) {
    for x in discovery {
        let v = x.verdict();
        let n = v.findings.len() + v.omitted.iter().map(|o| o.count).sum::<usize>();
        let what = match n {
            0 => "no findings".to_string(),
            1 => "1 finding".to_string(),
            n => format!("{n} findings"),
        };
        let _ = writeln!(
            out,
            "   {} {} → {}: {what}",
            style.bold("judged"),
            esc(&x.label),
            x.exchange.status
        );
        for f in &v.findings {
            let path = crate::vocab::pointer::json_path(&f.pointer);
            let _ = writeln!(
                out,
                "     {} {}  {}: {}",
                style.severity(f.severity),
                f.rule.id,
                esc(&path),
                esc(&f.message)
            );
            let _ = writeln!(out, "       {}", style.dim(&f.active.cite.url));
        }
        for o in &v.omitted {
            let _ = writeln!(
                out,
                "     {} {}  {}",
                style.severity(o.severity),
                o.rule.id,
                crate::views::omitted_message(o.count, &o.rule.id)
            );
        }
    }
}

fn first_step_of(r: &RevisionRun, x: &CallExchange) -> usize {
    // The exchange's own POST and any answers precede steps_so_far; find the tools/call
    // step that started it.
    r.steps[..x.steps_so_far]
        .iter()
        .rposition(|s| s.rpc_method.as_deref() == Some("tools/call"))
        .unwrap_or(x.steps_so_far)
}

fn step_line(out: &mut String, s: &HttpStep, style: Style) {
    let _ = writeln!(out, "   {}", esc(&s.describe()));
    if let Some(n) = &s.note {
        let _ = writeln!(out, "     {}", style.dim(&esc(n)));
    }
}

fn server_label(r: &RevisionRun) -> Option<String> {
    let s = r.server.as_ref()?;
    let info = s.get("serverInfo")?;
    let name = info.get("name").and_then(Value::as_str).unwrap_or("?");
    let version = info.get("version").and_then(Value::as_str).unwrap_or("?");
    let mut out = format!("{name} {version}");
    if let Some(v) = s.get("protocolVersion").and_then(Value::as_str) {
        out.push_str(&format!(", protocolVersion {v}"));
    }
    if let Some(v) = s.get("supportedVersions") {
        out.push_str(&format!(", supportedVersions {v}"));
    }
    Some(out)
}
