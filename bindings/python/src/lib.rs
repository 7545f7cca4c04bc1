//! The Python binding of `mcp-verdict`: `judge`, `judge_many`, `rules` and `explain`, with
//! errors raised as Python exceptions that carry the position in the exchange file format.
//!
//! Python objects are read and built while attached to the interpreter; parsing and judging
//! run detached from it (the GIL is released), so other Python threads run meanwhile.

use std::panic::AssertUnwindSafe;

use mcp_verdict::outputs::Style;
use mcp_verdict::outputs::rules::rule_explain;
use mcp_verdict::{
    Engine, Exchange, ExchangeError, ExchangeFile, JudgeError, JudgementOut, Options, Protocol,
    judge as judge_exchange,
};
use pyo3::exceptions::{PyRuntimeError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyList, PyString};
use pythonize::Depythonizer;
use serde::Serialize;

/// The exception classes, as `mcp_verdict.VerdictError` and its subclasses.
mod exc {
    use pyo3::create_exception;
    use pyo3::exceptions::PyValueError;

    create_exception!(
        mcp_verdict,
        VerdictError,
        PyValueError,
        "Base class of the errors `mcp_verdict` raises for an exchange it cannot judge."
    );
    create_exception!(
        mcp_verdict,
        ExchangeError,
        VerdictError,
        "The input is not an exchange in the exchange file format (not JSON, a missing or \
         misspelt field, two bodies, bad base64). Attributes: `message`, `line` and `column` \
         (1-based, in the text given; None for a dict or when the fault is not at one place), \
         `path` (the field, e.g. `response.status`; None when not known) and `index` (the position \
         in the batch, for `judge_many`; None for `judge`)."
    );
    create_exception!(
        mcp_verdict,
        RevisionError,
        VerdictError,
        "The protocol revision cannot be chosen: `protocol` was not given and the exchange names no \
         revision it can be judged under. Attributes: `message`, `reason` (what is wrong, without how \
         to fix it) and `index` (as for `ExchangeError`)."
    );
}

/// An exchange as handed in: text to parse, or a file already read from a dict.
enum Input {
    Text(Vec<u8>),
    File(Box<ExchangeFile>),
}

/// Why one exchange could not be judged.
enum Failure {
    Exchange {
        error: ExchangeError,
        path: Option<String>,
    },
    Revision(JudgeError),
    Panic,
}

impl Failure {
    fn message(&self) -> String {
        match self {
            Failure::Exchange { error, .. } => format!("not a valid exchange: {error}"),
            Failure::Revision(e) => format!(
                "{}; pass protocol= (\"2025-11-25\", \"2026-07-28\" or \"all\") or set \"protocol\" in the exchange",
                e.reason()
            ),
            Failure::Panic => "internal error: the engine panicked on this exchange".into(),
        }
    }

    fn type_name(&self) -> &'static str {
        match self {
            Failure::Exchange { .. } => "ExchangeError",
            Failure::Revision(_) => "RevisionError",
            Failure::Panic => "VerdictError",
        }
    }

    /// `(line, column, path, reason)` as Python attributes.
    fn details(&self) -> (Option<usize>, Option<usize>, Option<&str>, Option<String>) {
        match self {
            Failure::Exchange { error, path } => (error.line, error.column, path.as_deref(), None),
            Failure::Revision(e) => (None, None, None, Some(e.reason())),
            Failure::Panic => (None, None, None, None),
        }
    }

    /// The exception, with its attributes set.
    fn to_err(&self, py: Python<'_>, index: Option<usize>) -> PyErr {
        let message = self.message();
        let err = match self {
            Failure::Exchange { .. } => exc::ExchangeError::new_err(message.clone()),
            Failure::Revision(_) => exc::RevisionError::new_err(message.clone()),
            Failure::Panic => exc::VerdictError::new_err(message.clone()),
        };
        let (line, column, path, reason) = self.details();
        let value = err.value(py);
        let set = || -> PyResult<()> {
            value.setattr("message", message)?;
            value.setattr("index", index)?;
            match self {
                Failure::Revision(_) => value.setattr("reason", reason)?,
                _ => {
                    value.setattr("line", line)?;
                    value.setattr("column", column)?;
                    value.setattr("path", path)?;
                }
            }
            Ok(())
        };
        match set() {
            Ok(()) => err,
            Err(e) => e,
        }
    }

    /// The record `judge_many(..., errors="record")` puts in place of a verdict document.
    fn record<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("error", self.message())?;
        d.set_item("type", self.type_name())?;
        let (line, column, path, reason) = self.details();
        if let Some(l) = line {
            d.set_item("line", l)?;
        }
        if let Some(c) = column {
            d.set_item("column", c)?;
        }
        if let Some(p) = path {
            d.set_item("path", p)?;
        }
        if let Some(r) = reason {
            d.set_item("reason", r)?;
        }
        Ok(d)
    }
}

/// The field a deserialisation error is about, as `response.status`; None at the top level.
fn path_of(path: &serde_path_to_error::Path) -> Option<String> {
    let p = path.to_string();
    (p != "." && !p.is_empty()).then_some(p)
}

/// Reads an exchange from a dict (attached: the dict is Python's).
fn file_from_dict(obj: &Bound<'_, PyAny>) -> Result<ExchangeFile, Failure> {
    serde_path_to_error::deserialize(&mut Depythonizer::from_object(obj)).map_err(|e| {
        let path = path_of(e.path());
        Failure::Exchange {
            error: ExchangeError {
                line: None,
                column: None,
                message: e.into_inner().to_string(),
            },
            path,
        }
    })
}

/// Takes what is handed in: a dict (read now), or `bytes`, `bytearray` or `str` (copied, parsed
/// later without the GIL).
fn input_of(obj: &Bound<'_, PyAny>) -> PyResult<Result<Input, Failure>> {
    if let Ok(b) = obj.cast::<PyBytes>() {
        return Ok(Ok(Input::Text(b.as_bytes().to_vec())));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Ok(Input::Text(s.to_str()?.as_bytes().to_vec())));
    }
    if let Ok(b) = obj.cast::<PyByteArray>() {
        return Ok(Ok(Input::Text(b.to_vec())));
    }
    if obj.cast::<PyDict>().is_ok() {
        return Ok(file_from_dict(obj).map(|f| Input::File(Box::new(f))));
    }
    Err(PyTypeError::new_err(format!(
        "an exchange is a dict, bytes or str in the exchange file format, not {}",
        obj.get_type().name()?
    )))
}

/// Parses text as an exchange file; on failure, the error with its line, column and field.
fn parse_text(bytes: &[u8]) -> Result<ExchangeFile, Failure> {
    ExchangeFile::from_slice(bytes).map_err(|error| {
        // Only on failure: parse again to learn which field was wrong.
        let mut de = serde_json::Deserializer::from_slice(bytes);
        let path = match serde_path_to_error::deserialize::<_, ExchangeFile>(&mut de) {
            Err(e) => path_of(e.path()),
            Ok(_) => None,
        };
        Failure::Exchange { error, path }
    })
}

/// The revisions of the `protocol` argument: None, a revision, `"all"`, or a list of revisions.
fn protocols_arg(protocol: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Vec<Protocol>>> {
    let Some(p) = protocol else { return Ok(None) };
    if p.is_none() {
        return Ok(None);
    }
    let one = |s: &str| -> PyResult<Vec<Protocol>> {
        if s.trim() == "all" {
            return Ok(Protocol::all().collect());
        }
        Protocol::parse(s).map(|p| vec![p]).ok_or_else(|| {
            PyValueError::new_err(format!(
                "unknown protocol revision `{s}`; use {} or \"all\"",
                Protocol::names()
            ))
        })
    };
    if let Ok(s) = p.cast::<PyString>() {
        return one(s.to_str()?).map(Some);
    }
    let mut all = Vec::new();
    for item in p.try_iter()? {
        let item = item?;
        let s = item.cast::<PyString>().map_err(|_| {
            PyTypeError::new_err(
                "protocol is a revision name, \"all\", or a list of revision names",
            )
        })?;
        all.extend(one(s.to_str()?)?);
    }
    all.sort();
    all.dedup();
    if all.is_empty() {
        return Err(PyValueError::new_err(
            "protocol is an empty list; name at least one revision, or pass None",
        ));
    }
    Ok(Some(all))
}

/// Parses (if needed), judges and views one exchange. Runs detached from the interpreter.
fn judge_one(
    input: Input,
    protocols: Option<&[Protocol]>,
    name: Option<String>,
) -> Result<JudgementOut, Failure> {
    let file = match input {
        Input::Text(bytes) => parse_text(&bytes)?,
        Input::File(f) => *f,
    };
    let ex: Exchange = file
        .into_exchange()
        .map_err(|error| Failure::Exchange { error, path: None })?;
    let options = Options {
        protocols,
        engine: Engine::builtin(),
    };
    let judged = std::panic::catch_unwind(AssertUnwindSafe(|| {
        judge_exchange(&ex, &options).map(|j| JudgementOut::of(&j, name.or(ex.name.clone())))
    }));
    match judged {
        Ok(Ok(out)) => Ok(out),
        Ok(Err(e)) => Err(Failure::Revision(e)),
        Err(_) => Err(Failure::Panic),
    }
}

/// The verdict as Python data, by way of its JSON text and Python's `json` module: the crate's
/// numbers keep the text they were written with (serde_json's `arbitrary_precision`), which a
/// generic serializer such as `pythonize` sees as a private one-member map; Python's `json`
/// reads an integer of any size exactly, as `classify --format json | json.loads` does.
/// `json.loads` is looked up once per interpreter, not once per verdict.
fn to_py<'py, T: Serialize>(py: Python<'py>, value: &T) -> PyResult<Bound<'py, PyAny>> {
    static LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();
    let text = serde_json::to_string(value)
        .map_err(|e| PyRuntimeError::new_err(format!("the verdict does not serialize: {e}")))?;
    LOADS.import(py, "json", "loads")?.call1((text,))
}

/// Judges one MCP `tools/call` exchange.
///
/// `exchange` is one exchange in the exchange file format: a dict (as `json.load` gives), or
/// the file's text as `bytes` or `str`. `protocol` is a revision (`"2025-11-25"`,
/// `"2026-07-28"`), `"all"`, or a list of revisions; None takes the revision from the
/// exchange (its `protocol` field, else the request's `MCP-Protocol-Version` header, else its
/// `_meta`). `name` sets the document's `exchange` field (default: the exchange's `name`).
///
/// Returns the document `mcp-verdict classify --format json` prints:
/// `{"exchange"?, "verdicts": [...], "differences": [...]}`.
///
/// Raises `ExchangeError` when the input is not an exchange (with `line`, `column` and
/// `path`), `RevisionError` when the revision cannot be chosen, `TypeError`/`ValueError` for a
/// bad argument. The GIL is released while the exchange is parsed and judged.
#[pyfunction]
#[pyo3(signature = (exchange, protocol=None, *, name=None))]
fn judge<'py>(
    py: Python<'py>,
    exchange: &Bound<'py, PyAny>,
    protocol: Option<&Bound<'py, PyAny>>,
    name: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let protocols = protocols_arg(protocol)?;
    let input = match input_of(exchange)? {
        Ok(i) => i,
        Err(f) => return Err(f.to_err(py, None)),
    };
    let out = py.detach(|| judge_one(input, protocols.as_deref(), name));
    match out {
        Ok(out) => to_py(py, &out),
        Err(f) => Err(f.to_err(py, None)),
    }
}

/// Judges a batch of exchanges in one call, in order.
///
/// `exchanges` is any iterable of exchanges as `judge` takes them (dicts, `bytes` or `str`,
/// e.g. the lines of a JSON Lines capture); it is read whole, so hand in batches of a size that
/// fits in memory. `protocol` applies to each, as in `judge`.
///
/// Returns a list with one `classify --format json` document per exchange. With
/// `errors="raise"` (the default) the first exchange that cannot be judged raises its
/// `ExchangeError` or `RevisionError`, with `index` set to its position; with
/// `errors="record"` it is replaced by a record `{"error": message, "type": class name,
/// "line"?, "column"?, "path"?, "reason"?}` and the batch goes on (as `classify --jsonl`
/// writes an error record for a bad line). The GIL is released once for the whole batch.
#[pyfunction]
#[pyo3(signature = (exchanges, protocol=None, *, errors="raise"))]
fn judge_many<'py>(
    py: Python<'py>,
    exchanges: &Bound<'py, PyAny>,
    protocol: Option<&Bound<'py, PyAny>>,
    errors: &str,
) -> PyResult<Bound<'py, PyList>> {
    let record = match errors {
        "raise" => false,
        "record" => true,
        other => {
            return Err(PyValueError::new_err(format!(
                "errors is \"raise\" or \"record\", not {other:?}"
            )));
        }
    };
    let protocols = protocols_arg(protocol)?;
    let mut inputs: Vec<Result<Input, Failure>> = Vec::new();
    for item in exchanges.try_iter()? {
        inputs.push(input_of(&item?)?);
    }
    let results: Vec<Result<JudgementOut, Failure>> = py.detach(|| {
        inputs
            .into_iter()
            .map(|i| i.and_then(|i| judge_one(i, protocols.as_deref(), None)))
            .collect()
    });
    if !record && let Some((i, Err(f))) = results.iter().enumerate().find(|(_, r)| r.is_err()) {
        return Err(f.to_err(py, Some(i)));
    }
    let list = PyList::empty(py);
    for r in &results {
        match r {
            Ok(out) => list.append(to_py(py, out)?)?,
            Err(f) => list.append(f.record(py)?)?,
        }
    }
    Ok(list)
}

/// The built-in rule table, in table order: one dict per rule, as `mcp-verdict rules --format
/// json` prints it (`id`, `title`, `summary`, `why`, `example`, `actor`, `layer`, `check`, and
/// per revision its `level`, `outcome`, `precedence`, `severity`, `default`, `url`, `quote`).
/// `protocol` keeps only the rules that apply under that revision.
#[pyfunction]
#[pyo3(signature = (protocol=None))]
fn rules<'py>(py: Python<'py>, protocol: Option<&str>) -> PyResult<Bound<'py, PyAny>> {
    let only = match protocol {
        None => None,
        Some(s) => Some(Protocol::parse(s).ok_or_else(|| {
            PyValueError::new_err(format!(
                "unknown protocol revision `{s}`; use {}",
                Protocol::names()
            ))
        })?),
    };
    let table = Engine::builtin().table();
    let out = mcp_verdict::views::rule_views(
        table,
        table
            .rules()
            .iter()
            .filter(|r| only.is_none_or(|p| r.revisions.contains(&p))),
    );
    to_py(py, &out)
}

/// One rule explained as text, as `mcp-verdict rules ID` prints it: what it checks, why, its
/// effect and citation per revision, an example. Raises `KeyError` for an unknown id.
#[pyfunction]
fn explain(rule_id: &str) -> PyResult<String> {
    let table = Engine::builtin().table();
    let rule = table
        .rule(rule_id)
        .ok_or_else(|| pyo3::exceptions::PyKeyError::new_err(rule_id.to_string()))?;
    Ok(rule_explain(table, rule, Style::default()))
}

/// Judges MCP `tools/call` responses per protocol revision and cites the spec rule behind
/// every verdict.
#[pymodule]
fn _mcp_verdict(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_function(wrap_pyfunction!(judge, m)?)?;
    m.add_function(wrap_pyfunction!(judge_many, m)?)?;
    m.add_function(wrap_pyfunction!(rules, m)?)?;
    m.add_function(wrap_pyfunction!(explain, m)?)?;
    m.add("VerdictError", py.get_type::<exc::VerdictError>())?;
    m.add("ExchangeError", py.get_type::<exc::ExchangeError>())?;
    m.add("RevisionError", py.get_type::<exc::RevisionError>())?;
    let protocols: Vec<&str> = Protocol::all().map(Protocol::as_str).collect();
    m.add("PROTOCOLS", pyo3::types::PyTuple::new(py, protocols)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
