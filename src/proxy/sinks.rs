//! Where the judging thread's verdicts go, each a [`Sink`]: one line per exchange on stderr,
//! the `classify --jsonl` record per exchange in a log file, an exchange file per exchange in
//! a folder (which `classify` and `check` read back), the running summary, the live page.
//! Every sink redacts its own copy of what it writes ([`crate::views::redact`]).

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use super::judged::{Judged, Kind, Unjudged};
use crate::outputs::jsonl::JsonLines;
use crate::outputs::style::Style;
use crate::run::stream::LineFormat;

/// What receives the judging thread's results.
pub(crate) trait Sink: Send {
    /// An exchange was judged.
    fn judged(&mut self, j: &Judged);
    /// An answer could not be judged.
    fn unjudged(&mut self, u: &Unjudged);
    /// Something the proxy could not do on a connection (the relay goes on).
    fn trouble(&mut self, _why: &str) {}
    /// The proxy stops.
    fn finish(&mut self) {}
}

/// One line per exchange on stderr: number, method and tool, outcome, deciding rule, latency,
/// and the error findings' rules.
pub(crate) struct StderrLines {
    pub style: Style,
    /// The stderr the stdio form shares with the server's (`None`: this process's own).
    pub shared: Option<std::sync::Arc<super::shared_stderr::SharedStderr>>,
}

impl StderrLines {
    fn write(&self, line: &str) {
        match &self.shared {
            Some(s) => s.line(&format!("mcp-verdict proxy: {line}")),
            None => eprintln!("mcp-verdict proxy: {line}"),
        }
    }
}

/// The line [`StderrLines`] writes for a judged exchange (without colour when `style` has
/// none).
pub(crate) fn line(j: &Judged, style: Style) -> String {
    let v = &j.judgement.verdicts[0];
    let mut s = format!(
        "[{:04}] {} {} {}",
        j.seq,
        crate::outputs::safe::text(&crate::views::redact::text(&j.label())),
        style.outcome(v),
        style.dim(&format!("({})", v.protocol)),
    );
    if let Some(rule) = j.deciding_rule() {
        let _ = write!(s, " by {rule}");
    }
    let _ = write!(s, " {:.1} ms", j.latency.as_secs_f64() * 1000.0);
    let errors = crate::views::diag::error_findings(v);
    if !errors.is_empty() {
        let _ = write!(s, "; errors: {}", errors.join(", "));
    }
    for n in &j.notes {
        let _ = write!(s, "; {n}");
    }
    s
}

impl Sink for StderrLines {
    fn judged(&mut self, j: &Judged) {
        if j.kind == Kind::Setup && j.judgement.verdicts[0].findings.is_empty() {
            // A clean setup answer is shown as such, briefly.
            self.write(&line(j, self.style).replace(" NOT_A_TOOL_CALL", " ok"));
            return;
        }
        self.write(&line(j, self.style));
    }

    fn unjudged(&mut self, u: &Unjudged) {
        self.write(&unjudged_line(u));
    }

    fn trouble(&mut self, why: &str) {
        self.write(&crate::outputs::safe::text(&crate::views::redact::text(
            why,
        )));
    }
}

/// The line for an answer that was not judged.
pub(crate) fn unjudged_line(u: &Unjudged) -> String {
    let what = match (&u.method, &u.tool) {
        (Some(m), Some(t)) => format!("{m} {t}"),
        (Some(m), None) => m.clone(),
        _ => "a request".to_string(),
    };
    crate::outputs::safe::text(&crate::views::redact::text(&format!(
        "[{:04}] {what} not judged: {}",
        u.seq, u.why
    )))
    .into_owned()
}

/// `--log FILE.jsonl`: the `classify --jsonl` record of each exchange (`line` is its
/// number), or `{"line": N, "error": ...}` for one not judged.
pub(crate) struct Log {
    out: BufWriter<File>,
    path: PathBuf,
    failed: bool,
}

impl Log {
    pub(crate) fn create(path: &Path) -> std::io::Result<Log> {
        Ok(Log {
            out: BufWriter::new(File::create(path)?),
            path: path.to_path_buf(),
            failed: false,
        })
    }

    fn write(&mut self, line: &str) {
        if self.failed {
            return;
        }
        // Flushed per record: the log is read while the proxy runs.
        if let Err(e) = writeln!(self.out, "{line}").and_then(|()| self.out.flush()) {
            self.failed = true;
            eprintln!(
                "mcp-verdict proxy: cannot write the log {}: {e} (the relay goes on; no more records are logged)",
                self.path.display()
            );
        }
    }
}

impl Sink for Log {
    fn judged(&mut self, j: &Judged) {
        let line = JsonLines.judged(j.seq, &j.judgement, j.exchange.name.clone());
        self.write(&line);
    }

    fn unjudged(&mut self, u: &Unjudged) {
        let line = JsonLines.error(u.seq, &unjudged_line(u));
        self.write(&line);
    }
}

/// `--record DIR`: each judged exchange as an exchange file, `NNNN-REVISION-LABEL.json`.
pub(crate) struct Records {
    dir: PathBuf,
    upstream: String,
    failed: bool,
}

impl Records {
    pub(crate) fn create(dir: &Path, upstream: &str) -> std::io::Result<Records> {
        std::fs::create_dir_all(dir)?;
        Ok(Records {
            dir: dir.to_path_buf(),
            upstream: crate::views::diag::sanitize(upstream),
            failed: false,
        })
    }
}

impl Sink for Records {
    fn judged(&mut self, j: &Judged) {
        if self.failed {
            return;
        }
        let p = j.judgement.verdicts[0].protocol;
        let path = self.dir.join(format!(
            "{:04}-{p}-{}.json",
            j.seq,
            crate::outputs::record::file_safe(&j.label())
        ));
        let description = format!(
            "Recorded by mcp-verdict proxy from {}: {}",
            self.upstream,
            j.label()
        );
        let file = crate::outputs::record::exchange_file(&j.exchange, p, description);
        let text = serde_json::to_string_pretty(&file).expect("exchange files serialize");
        if let Err(e) = std::fs::write(&path, text + "\n") {
            self.failed = true;
            eprintln!(
                "mcp-verdict proxy: cannot write the record {}: {e} (the relay goes on; nothing more is recorded)",
                path.display()
            );
        }
    }

    fn unjudged(&mut self, _: &Unjudged) {}
}
