//! The client matrix as a report: Markdown (for a README or a docs page) and a self-contained
//! HTML page with the `check` report's look. A row per scenario and revision, a column per
//! client and version (so runs with two releases of one client sit side by side), each cell
//! what the client concluded and whether that agrees with the verdict on what it was sent,
//! and a footnote per difference citing the rule the verdict rests on.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::clients::{Agreement, Cell};
use crate::outputs::check::html::{STYLE, escape};
use crate::outputs::check::markdown;
use crate::rules::RuleTable;
use crate::vocab::Protocol;

/// A column: a client at one version.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Column {
    client: String,
    version: Option<String>,
}

impl Column {
    fn label(&self) -> String {
        match &self.version {
            Some(v) => format!("{} {v}", self.client),
            None => self.client.clone(),
        }
    }
}

/// A difference's footnote: the line, and the rule's level, URL and quote when known.
struct Note {
    text: String,
    rule: Option<String>,
    level: Option<String>,
    url: Option<String>,
    quote: Option<String>,
}

/// The matrix laid out: columns, rows, each cell's index, the footnotes.
struct Layout<'c> {
    columns: Vec<Column>,
    /// (scenario, revision) in first-seen order.
    rows: Vec<(String, String)>,
    cells: &'c [Cell],
    notes: Vec<Note>,
    /// Footnote number (1-based) of each differing cell, by cell index.
    note_of: BTreeMap<usize, usize>,
}

fn layout<'c>(cells: &'c [Cell], table: &RuleTable) -> Layout<'c> {
    let mut columns: Vec<Column> = Vec::new();
    for c in cells.iter().filter(|c| c.agreement != Agreement::Skipped) {
        let col = Column {
            client: c.client.clone(),
            version: c.version.clone(),
        };
        if !columns.contains(&col) {
            columns.push(col);
        }
    }
    // A client that only has skipped cells still gets its column.
    for c in cells {
        if !columns.iter().any(|k| k.client == c.client) {
            columns.push(Column {
                client: c.client.clone(),
                version: None,
            });
        }
    }
    let mut rows: Vec<(String, String)> = Vec::new();
    for c in cells {
        let key = (c.row_label(), c.revision.clone());
        if !rows.contains(&key) {
            rows.push(key);
        }
    }
    let mut notes: Vec<Note> = Vec::new();
    let mut note_of = BTreeMap::new();
    for (i, c) in cells.iter().enumerate() {
        let Some(text) = c.difference.clone() else {
            continue;
        };
        let n = match notes
            .iter()
            .position(|n| n.text == text && n.rule == c.rule)
        {
            Some(k) => k + 1,
            None => {
                let active = c.rule.as_deref().and_then(|id| {
                    let p = Protocol::parse(&c.revision)?;
                    table.active_rule(p, id)
                });
                notes.push(Note {
                    text,
                    rule: c.rule.clone(),
                    level: active.map(|a| a.level.to_string()),
                    url: active.map(|a| a.cite.url.clone()),
                    quote: active.map(|a| a.cite.quote.clone()),
                });
                notes.len()
            }
        };
        note_of.insert(i, n);
    }
    Layout {
        columns,
        rows,
        cells,
        notes,
        note_of,
    }
}

impl Layout<'_> {
    /// The cell of a row and column: the run cell, or the client's skipped cell.
    fn find(&self, row: &(String, String), col: &Column) -> Option<(usize, &Cell)> {
        let same_row = |c: &Cell| c.row_label() == row.0 && c.revision == row.1;
        self.cells
            .iter()
            .enumerate()
            .find(|(_, c)| {
                same_row(c)
                    && c.client == col.client
                    && c.version == col.version
                    && c.agreement != Agreement::Skipped
            })
            .or_else(|| {
                self.cells.iter().enumerate().find(|(_, c)| {
                    same_row(c) && c.client == col.client && c.agreement == Agreement::Skipped
                })
            })
    }

    /// The verdicts of a row's run cells, distinct, in words.
    fn verdicts(&self, row: &(String, String)) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for c in self.cells.iter().filter(|c| {
            c.row_label() == row.0
                && c.revision == row.1
                && matches!(c.agreement, Agreement::Agrees | Agreement::Differs)
        }) {
            if let Some(v) = &c.verdict
                && !out.contains(&v.summary)
            {
                out.push(v.summary.clone());
            }
        }
        out
    }

    fn counts(&self) -> [(Agreement, usize); 4] {
        let n = |a| self.cells.iter().filter(|c| c.agreement == a).count();
        [
            (Agreement::Agrees, n(Agreement::Agrees)),
            (Agreement::Differs, n(Agreement::Differs)),
            (Agreement::Skipped, n(Agreement::Skipped)),
            (Agreement::Failed, n(Agreement::Failed)),
        ]
    }
}

fn agreement_word(a: Agreement) -> &'static str {
    match a {
        Agreement::Agrees => "agrees",
        Agreement::Differs => "differs",
        Agreement::Skipped => "skipped",
        Agreement::Failed => "failed",
    }
}

/// A scenario inside a Markdown code span of a table cell: no character leaves the span or the
/// cell (Markdown escapes would show literally inside the span).
fn in_code(s: &str) -> String {
    crate::outputs::safe::text(s)
        .replace('`', "'")
        .replace('|', "\\|")
        .replace(['\n', '\r'], " ")
}

/// The matrix in Markdown: counts, the table, the footnotes.
pub fn markdown(cells: &[Cell], table: &RuleTable) -> String {
    let l = layout(cells, table);
    let mut o = String::new();
    let _ = writeln!(
        o,
        "## What MCP clients conclude under `serve`'s scenarios\n"
    );
    let counts = l.counts();
    let _ = writeln!(
        o,
        "mcp-verdict {}; {} cells: {}.\n",
        env!("CARGO_PKG_VERSION"),
        cells.len(),
        counts
            .iter()
            .map(|(a, n)| format!("{n} {}", agreement_word(*a)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let _ = writeln!(
        o,
        "Each cell is what the client concluded; **differs** marks a conclusion (or a retry) \
other than the one the verdict on what `serve` sent calls for, with a footnote citing the rule; \
`-` is a revision the client does not speak.\n"
    );
    let _ = write!(o, "| scenario | revision | verdict on what serve sent |");
    for c in &l.columns {
        let _ = write!(o, " {} |", markdown::escape(&c.label()));
    }
    let _ = write!(o, "\n|---|---|---|");
    for _ in &l.columns {
        o.push_str("---|");
    }
    o.push('\n');
    for row in &l.rows {
        let _ = write!(
            o,
            "| `{}` | {} | {} |",
            in_code(&row.0),
            row.1,
            markdown::escape(&l.verdicts(row).join(" / "))
        );
        for col in &l.columns {
            let text = match l.find(row, col) {
                None => String::new(),
                Some((_, c)) if c.agreement == Agreement::Skipped => "-".into(),
                Some((i, c)) => {
                    let what = c
                        .concluded
                        .as_ref()
                        .map(|k| markdown::escape(&k.summary))
                        .unwrap_or_default();
                    match (c.agreement, l.note_of.get(&i)) {
                        (Agreement::Differs, Some(n)) => format!("**differs**: {what} [^{n}]"),
                        (Agreement::Failed, _) => format!("failed: {what}"),
                        _ => what,
                    }
                }
            };
            let _ = write!(o, " {text} |");
        }
        o.push('\n');
    }
    if !l.notes.is_empty() {
        o.push('\n');
    }
    for (i, n) in l.notes.iter().enumerate() {
        let _ = write!(o, "[^{}]: {}", i + 1, markdown::escape(&n.text));
        if let Some(rule) = &n.rule {
            let _ = write!(o, ". Rule `{rule}`");
            if let Some(level) = &n.level {
                let _ = write!(o, " ({level})");
            }
            if let (Some(url), Some(quote)) = (&n.url, &n.quote) {
                let _ = write!(o, ": [\"{}\"]({url})", markdown::escape(quote));
            }
        }
        o.push('\n');
    }
    o
}

/// The matrix as a self-contained HTML page with the `check` report's look.
pub fn html(cells: &[Cell], table: &RuleTable) -> String {
    let l = layout(cells, table);
    let mut o = String::with_capacity(16 * 1024);
    o.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    o.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    o.push_str("<title>mcp-verdict client matrix</title>\n<style>");
    o.push_str(STYLE);
    o.push_str(
        "td.differs{background:#fff5f5}td.agrees{background:#f4fbf6}td.skipped{color:#57606a}\
td.failed{background:#fff8e5}td.rev{white-space:nowrap}sup a{text-decoration:none}\
ol.notes li{margin:.35rem 0}",
    );
    o.push_str("</style>\n</head>\n<body>\n<h1>What MCP clients conclude under <code>serve</code>'s scenarios</h1>\n");
    let _ = writeln!(
        o,
        "<p class=\"muted\">mcp-verdict {}: {} clients, {} scenario and revision rows.</p>",
        env!("CARGO_PKG_VERSION"),
        l.columns.len(),
        l.rows.len()
    );
    o.push_str("<ul class=\"counts\">");
    for (a, n) in l.counts() {
        let _ = write!(o, "<li><b>{n}</b> {}</li>", agreement_word(a));
    }
    o.push_str("</ul>\n");
    o.push_str(
        "<p>Each cell is what the client concluded; <span class=\"fail\">differs</span> marks a \
conclusion (or a retry) other than the one the verdict on what <code>serve</code> sent calls for, \
with a footnote citing the rule; <code>-</code> is a revision the client does not speak.</p>\n",
    );
    o.push_str(
        "<table class=\"stack\">\n<tr><th>scenario</th><th>revision</th><th>verdict on what serve sent</th>",
    );
    for c in &l.columns {
        let _ = write!(o, "<th>{}</th>", escape(&c.label()));
    }
    o.push_str("</tr>\n");
    for row in &l.rows {
        let _ = write!(
            o,
            "<tr><td data-label=\"scenario\"><code>{}</code></td><td class=\"rev\" data-label=\"revision\">{}</td><td data-label=\"verdict\">{}</td>",
            escape(&row.0),
            escape(&row.1),
            escape(&l.verdicts(row).join(" / "))
        );
        for col in &l.columns {
            match l.find(row, col) {
                None => o.push_str("<td></td>"),
                Some((_, c)) if c.agreement == Agreement::Skipped => {
                    let _ = write!(
                        o,
                        "<td class=\"skipped\" data-label=\"{}\" title=\"{}\">-</td>",
                        escape(&col.label()),
                        escape(c.note.as_deref().unwrap_or(""))
                    );
                }
                Some((i, c)) => {
                    let what = c
                        .concluded
                        .as_ref()
                        .map(|k| escape(&k.summary))
                        .unwrap_or_default();
                    let class = agreement_word(c.agreement);
                    let note = match l.note_of.get(&i) {
                        Some(n) => format!(" <sup><a href=\"#note-{n}\">[{n}]</a></sup>"),
                        None => String::new(),
                    };
                    let _ = write!(
                        o,
                        "<td class=\"{class}\" data-label=\"{}\"><span class=\"{}\">{class}</span><br>{what}{note}</td>",
                        escape(&col.label()),
                        if c.agreement == Agreement::Agrees {
                            "ok"
                        } else {
                            "fail"
                        }
                    );
                }
            }
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</table>\n");
    if !l.notes.is_empty() {
        o.push_str("<h2>Differences</h2>\n<ol class=\"notes\">\n");
        for (i, n) in l.notes.iter().enumerate() {
            let _ = write!(o, "<li id=\"note-{}\">{}", i + 1, escape(&n.text));
            if let Some(rule) = &n.rule {
                let _ = write!(o, ". Rule <code>{}</code>", escape(rule));
                if let Some(level) = &n.level {
                    let _ = write!(o, " ({})", escape(level));
                }
                if let Some(quote) = &n.quote {
                    let _ = write!(o, "<blockquote>{}", escape(quote));
                    if let Some(url) = n.url.as_deref().filter(|u| u.starts_with("https://")) {
                        let _ = write!(o, " <a href=\"{}\">spec</a>", escape(url));
                    }
                    o.push_str("</blockquote>");
                }
            }
            o.push_str("</li>\n");
        }
        o.push_str("</ol>\n");
    }
    o.push_str("</body>\n</html>\n");
    o
}
