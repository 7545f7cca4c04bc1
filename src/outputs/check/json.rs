//! `--format json` (one document; its JSON Schema is `schemas/check-report.schema.json`,
//! generated from [`CheckReport`]) and `--format ndjson` (one record per line).
//!
//! Characters that would act on a terminal are written as `\uXXXX` escapes
//! ([`crate::outputs::safe::json`]): the documents parse to the same values.
//!
//! NDJSON records carry a `record` tag:
//! - `result`: one per (file, revision): `file`, `name`, then the fields of a
//!   [`crate::run::check::RevisionResult`] (`protocol`, `status`, `expected`, `outcome`,
//!   `diff`, `failures`, `findings`, ...);
//! - `error`: one per file that could not be judged: `file` and the fields of an
//!   [`crate::run::check::InputError`];
//! - `stale`: one per stale baseline entry;
//! - `summary`: last, the run's [`Summary`] and `exit_code`.

use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

use crate::run::check::{
    BaselineEntry, CheckRun, Coverage, FailOn, FileResult, InputError, RevisionConformance,
    RevisionResult, Summary,
};
use crate::vocab::Protocol;

/// The version of the report format; bumped on incompatible changes.
pub const REPORT_VERSION: u32 = 1;

/// `mcp-verdict check --format json`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(
    title = "mcp-verdict check report",
    description = "The result of `mcp-verdict check`: per exchange file and protocol revision, the verdict compared with the file's expectations; files that could not be judged; stale baseline entries; per-rule conformance of the recorded exchanges; and, with --coverage, rule coverage."
)]
pub struct CheckReport<'a> {
    /// Report format version.
    pub version: u32,
    /// The tool that wrote the report.
    pub tool: Tool,
    /// The exit status of the run (0 ok, 1 failures, 3 unreadable or invalid files).
    pub exit_code: u8,
    /// Counts.
    pub summary: Summary,
    /// Settings that decide pass and fail.
    pub settings: Settings,
    /// Revisions judged, oldest first.
    pub revisions: Vec<Protocol>,
    /// One entry per file, sorted by path.
    pub files: &'a [FileResult],
    /// Stale baseline entries.
    pub stale_baseline: &'a [BaselineEntry],
    /// Per revision and active rule: how the recorded exchanges fared.
    pub conformance: &'a [RevisionConformance],
    /// Rule coverage (with `--coverage`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coverage: Option<&'a Coverage>,
}

/// Tool name and version.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Tool {
    /// `mcp-verdict`.
    pub name: String,
    /// Crate version.
    pub version: String,
}

impl Tool {
    /// This build.
    pub fn this() -> Tool {
        Tool {
            name: env!("CARGO_PKG_NAME").to_string(),
            version: env!("CARGO_PKG_VERSION").to_string(),
        }
    }
}

/// Settings that decide pass and fail.
#[derive(Clone, Debug, Serialize, JsonSchema)]
pub struct Settings {
    /// `--fail-on`.
    pub fail_on: FailOn,
    /// `--strict`.
    pub strict: bool,
    /// `--coverage`.
    pub coverage: bool,
}

/// The report document.
pub fn report<'a>(run: &'a CheckRun, coverage: Option<&'a Coverage>) -> CheckReport<'a> {
    CheckReport {
        version: REPORT_VERSION,
        tool: Tool::this(),
        exit_code: run.exit_code(coverage.is_some()),
        summary: run.summary(),
        settings: Settings {
            fail_on: run.fail_on,
            strict: run.strict,
            coverage: coverage.is_some(),
        },
        revisions: run.revisions(),
        files: &run.files,
        stale_baseline: &run.stale,
        conformance: &run.conformance,
        coverage,
    }
}

/// Renders `--format json` (pretty, with a final newline).
pub fn render(run: &CheckRun, coverage: Option<&Coverage>) -> String {
    let mut s = crate::outputs::safe::json(
        serde_json::to_string_pretty(&report(run, coverage)).expect("report serializes"),
    );
    s.push('\n');
    s
}

/// Writes `--format json` to `w` as it is serialised (the report is never held as text).
pub fn render_to(
    run: &CheckRun,
    coverage: Option<&Coverage>,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    crate::outputs::safe::write_json_pretty(w, &report(run, coverage))?;
    w.write_all(b"\n")
}

/// Writes `--format ndjson` to `w`, a record at a time.
pub fn ndjson_to(
    run: &CheckRun,
    coverage: Option<&Coverage>,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let mut push = |r: &Record<'_>| -> std::io::Result<()> {
        crate::outputs::safe::write_json_compact(w, r)?;
        w.write_all(b"\n")
    };
    for (f, r) in run.results() {
        push(&Record::Result {
            file: &f.file,
            name: f.name.as_deref(),
            result: r,
        })?;
    }
    for (f, e) in run.input_errors() {
        push(&Record::Error {
            file: &f.file,
            error: e,
        })?;
    }
    for e in &run.stale {
        push(&Record::Stale { entry: e })?;
    }
    push(&Record::Summary {
        summary: run.summary(),
        exit_code: run.exit_code(coverage.is_some()),
    })
}

/// The JSON Schema of [`CheckReport`], as committed in `schemas/check-report.schema.json`.
pub fn schema() -> Value {
    let generator = schemars::generate::SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    serde_json::to_value(generator.into_root_schema_for::<CheckReport<'static>>())
        .expect("schema serializes")
}

#[derive(Serialize)]
#[serde(tag = "record", rename_all = "snake_case")]
enum Record<'a> {
    Result {
        file: &'a str,
        #[serde(skip_serializing_if = "Option::is_none")]
        name: Option<&'a str>,
        #[serde(flatten)]
        result: &'a RevisionResult,
    },
    Error {
        file: &'a str,
        #[serde(flatten)]
        error: &'a InputError,
    },
    Stale {
        #[serde(flatten)]
        entry: &'a BaselineEntry,
    },
    Summary {
        #[serde(flatten)]
        summary: Summary,
        exit_code: u8,
    },
}

/// Renders `--format ndjson`: `result` records (sorted by file, then revision), `error`
/// records, `stale` records, then one `summary` record.
pub fn ndjson(run: &CheckRun, coverage: Option<&Coverage>) -> String {
    let mut out = String::new();
    let mut push = |r: &Record<'_>| {
        out.push_str(&crate::outputs::safe::json(
            serde_json::to_string(r).expect("records serialize"),
        ));
        out.push('\n');
    };
    for (f, r) in run.results() {
        push(&Record::Result {
            file: &f.file,
            name: f.name.as_deref(),
            result: r,
        });
    }
    for (f, e) in run.input_errors() {
        push(&Record::Error {
            file: &f.file,
            error: e,
        });
    }
    for e in &run.stale {
        push(&Record::Stale { entry: e });
    }
    push(&Record::Summary {
        summary: run.summary(),
        exit_code: run.exit_code(coverage.is_some()),
    });
    out
}
