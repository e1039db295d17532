//! The `Assembler` class: a validated configuration that assembles requests, with the GIL
//! released while it does.

use mentor_context::machinery::{MAX_WORKERS_PER_CORE, max_workers};
use mentor_context::wire::ParsedResults;
use mentor_context::{Assembler, MentorRagResult};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};

use crate::dialects;
use crate::errors::{from_library, refused};
use crate::follow_up;
use crate::many;
use crate::pyser::to_python;
use crate::report::to_json;
use crate::results::{read_request, read_request_into};
use crate::reuse::{Reused, trim};
use crate::settings::{self, SealKey};

/// Assembles ranked retrieval results into the context block of a prompt, within an exact
/// token budget. Configure once (every option is checked here, and a bad one raises
/// `MentorContextError` with the library's message); then `assemble` per request, from any
/// number of threads: the GIL is released while it works.
#[pyclass(name = "Assembler", module = "mentor_context", frozen)]
pub(crate) struct PyAssembler {
    assembler: Assembler,
    strict: bool,
    /// `cache_control=`: `entries` marks the turn's prompt-cache breakpoints.
    cache_control: bool,
    /// The last request's results, read into by the next: see `reuse`.
    reused: Reused,
}

#[pymethods]
impl PyAssembler {
    /// Every setting of the library's `Settings` is a keyword, under its name there
    /// (`max_blocks=8`); `seal_key` is a key given as bytes or text.
    #[new]
    #[pyo3(signature = (budget=None, *, seal_key=None, **settings))]
    fn new(
        py: Python<'_>,
        budget: Option<&Bound<'_, PyAny>>,
        seal_key: Option<SealKey>,
        settings: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Self> {
        let settings = settings::read(py, &[("budget", budget)], settings, seal_key)?;
        // Building loads the encoding's tables (up to a few hundred ms the first time): no
        // reason to hold the GIL for it.
        let assembler = py
            .detach(|| settings.assembler())
            .map_err(|err| from_library(&err))?;
        Ok(PyAssembler {
            assembler,
            strict: settings.strict,
            cache_control: settings.cache_control,
            reused: Reused::default(),
        })
    }

    /// The report of one request as a dict, with the keys of `mentor-context assemble
    /// --json`: context, tokenCount, budget, encoding, citations, omitted (and window,
    /// headroom with a model window).
    fn assemble<'py>(
        &self,
        py: Python<'py>,
        results: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let assembler = &self.assembler;
        self.with_results(results, |results| {
            let context = py.detach(|| assembler.assemble(results));
            to_python(py, &context)
        })?
    }

    /// The same report as one line of JSON text (no newline): what `assemble --json`
    /// prints, byte for byte. Cheaper than `assemble` when the report is written out.
    fn assemble_json(&self, py: Python<'_>, results: &Bound<'_, PyAny>) -> PyResult<String> {
        let assembler = &self.assembler;
        self.with_results(results, |results| {
            py.detach(|| to_json(&assembler.assemble(results)))
        })?
    }

    /// The next turn of a conversation: `previous_report` is the report of the turn before
    /// (a dict from `assemble` or this method, or its JSON text). Its text starts the new
    /// text byte for byte and its chips keep their numbers; new blocks follow within the
    /// budget. A report this assembler did not write, or that was edited, is refused,
    /// naming the block (see `follow_up`).
    fn assemble_follow_up<'py>(
        &self,
        py: Python<'py>,
        previous_report: &Bound<'py, PyAny>,
        results: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let previous = follow_up::read_previous(previous_report)?;
        let assembler = &self.assembler;
        self.with_results(results, |results| {
            let context = follow_up::assemble_follow_up(py, assembler, &previous, results)?;
            to_python(py, &context)
        })?
    }

    /// The reports of many requests (each a list of results), in the order of `requests`.
    /// Each is exactly what `assemble` returns for it. `threads` threads share the work, the
    /// calling thread among them (default: one per core; at most 8 per core); the others only
    /// assemble, and the calling thread releases the GIL while it assembles.
    #[pyo3(signature = (requests, *, threads=None))]
    fn assemble_many<'py>(
        &self,
        py: Python<'py>,
        requests: &Bound<'py, PyAny>,
        threads: Option<i64>,
    ) -> PyResult<Bound<'py, PyList>> {
        let threads = match threads {
            None => std::thread::available_parallelism().map_or(1, usize::from),
            Some(threads) => usize::try_from(threads)
                .ok()
                .filter(|n| (1..=max_workers()).contains(n))
                .ok_or_else(|| {
                    refused(format!(
                        "threads: {threads}; expected at least 1 and at most {} here \
                         ({MAX_WORKERS_PER_CORE} per core)",
                        max_workers()
                    ))
                })?,
        };
        many::assemble_many(py, &self.assembler, self.strict, requests, threads)
    }

    /// The entries of `report` in this assembler's dialect: the list to put in the model
    /// API's request, one per citation. With `cache_control=True`, the last entry carries a
    /// prompt-cache breakpoint, and in a follow-up turn so does the last of `previous`'s (the
    /// report of the turn before), as `assemble --cache-control --previous` marks them.
    #[pyo3(signature = (report, previous=None))]
    fn entries<'py>(
        &self,
        py: Python<'py>,
        report: &Bound<'py, PyAny>,
        previous: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        dialects::entries(py, &self.assembler, report, previous, self.cache_control)
    }

    /// The content of each block of `report` as the model saw it, read back from its text.
    fn contents(&self, py: Python<'_>, report: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
        dialects::contents(py, &self.assembler, report)
    }

    /// A model API's whole response (its message JSON, its events as JSON Lines, or the raw
    /// server-sent events) read against `report`: the resolution of `resolve_citations`,
    /// each quote checked against the entry it cites.
    fn resolve_response<'py>(
        &self,
        py: Python<'py>,
        report: &Bound<'py, PyAny>,
        response: &str,
    ) -> PyResult<Bound<'py, PyAny>> {
        dialects::resolve_response(py, &self.assembler, report, response)
    }

    /// A reader of a streamed response against `report`, event by event.
    fn response_stream(&self, report: &Bound<'_, PyAny>) -> PyResult<dialects::PyResponseStream> {
        dialects::PyResponseStream::new(&self.assembler, report)
    }

    /// The same configuration with another budget (a request that sets its own, say).
    fn with_budget(&self, py: Python<'_>, budget: i64) -> PyResult<Self> {
        let budget = usize::try_from(budget)
            .map_err(|_| refused("budget: negative; expected a whole number, 0 or more"))?;
        let base = &self.assembler;
        let assembler = py
            .detach(|| base.with_budget(budget))
            .map_err(|err| from_library(&err))?;
        Ok(PyAssembler {
            assembler,
            strict: self.strict,
            cache_control: self.cache_control,
            reused: Reused::default(),
        })
    }

    /// The budget in tokens (from the model's window, when one was given).
    #[getter]
    fn budget(&self) -> usize {
        self.assembler.budget()
    }

    /// The name of the encoding that counts tokens, such as `"o200k_base"`.
    #[getter]
    fn encoding(&self) -> String {
        self.assembler.tokenizer_name().to_string()
    }

    /// The name of the block format, `"plain"` or `"xml"`.
    #[getter]
    fn format(&self) -> String {
        self.assembler.format().name().to_string()
    }

    /// Whether an unknown property in a result is an error (else a warning).
    #[getter]
    fn strict(&self) -> bool {
        self.strict
    }

    fn __repr__(&self) -> String {
        format!(
            "Assembler(budget={}, encoding='{}', format='{}')",
            self.budget(),
            self.encoding(),
            self.format()
        )
    }
}

impl PyAssembler {
    /// Reads `results` (into the last request's buffers when no other call holds them) and
    /// hands them to `use_them`.
    fn with_results<T>(
        &self,
        results: &Bound<'_, PyAny>,
        use_them: impl FnOnce(&[MentorRagResult]) -> T,
    ) -> PyResult<T> {
        let mut reused = self.reused.take();
        let mut own = ParsedResults::default();
        let parsed = reused.as_deref_mut().unwrap_or(&mut own);
        let used =
            read_request_into(results, self.strict, parsed).map(|()| use_them(&parsed.results));
        // On every way out: a refused request (or a warning raised as an error) may have
        // grown the buffers as much as one that was assembled.
        trim(parsed);
        used
    }
}

/// For `python/benches/measure.py`: reads `results` once, then times `repeat` calls of the
/// Rust `assemble` alone (no conversion, no report) and returns each call's nanoseconds. The
/// benchmark alternates this with the Python calls, so both meet the same machine load.
#[pyfunction]
pub(crate) fn _time_rust_assemble(
    py: Python<'_>,
    assembler: &PyAssembler,
    results: &Bound<'_, PyAny>,
    repeat: usize,
) -> PyResult<Vec<u64>> {
    let parsed = read_request(results, assembler.strict)?;
    let assembler = &assembler.assembler;
    Ok(py.detach(|| {
        (0..repeat)
            .map(|_| {
                let start = std::time::Instant::now();
                std::hint::black_box(assembler.assemble(&parsed.results));
                u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX)
            })
            .collect()
    }))
}

/// For the tests: about the bytes `assembler` keeps from its last request (`reuse::kept_bytes`),
/// or `None` while a call holds them.
#[pyfunction]
pub(crate) fn _kept_bytes(assembler: &PyAssembler) -> Option<usize> {
    assembler.reused.kept_bytes()
}

/// For `python/benches/measure.py` (issue 34): `assemble`, with the report built by
/// `pythonize` instead of `pyser`, so both are timed in the same run. Not the same dict:
/// `pythonize` writes an `f32` score as its `f64`; the benchmark prints where they differ.
#[cfg(feature = "bench")]
#[pyfunction]
pub(crate) fn _assemble_pythonize<'py>(
    py: Python<'py>,
    assembler: &PyAssembler,
    results: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let inner = &assembler.assembler;
    assembler.with_results(results, |results| {
        let context = py.detach(|| inner.assemble(results));
        pythonize::pythonize(py, &context).map_err(PyErr::from)
    })?
}

/// For `python/benches/measure.py` (issue 34): a report read once from its JSON text, built
/// as Python objects by either writer, to time the building alone.
#[cfg(feature = "bench")]
#[pyclass(name = "_Report", module = "mentor_context", frozen)]
pub(crate) struct ReadReport(mentor_context::AssembledContext<'static>);

#[cfg(feature = "bench")]
#[pymethods]
impl ReadReport {
    #[new]
    fn new(json: &str) -> PyResult<Self> {
        serde_json::from_str(json)
            .map(ReadReport)
            .map_err(|err| refused(format!("not a report: {err}")))
    }

    fn pyser<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_python(py, &self.0)
    }

    fn pythonize<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        pythonize::pythonize(py, &self.0).map_err(PyErr::from)
    }
}
