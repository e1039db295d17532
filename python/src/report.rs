//! A context into the report `mentor-context assemble --json` prints, as JSON text or as a
//! Python dict.
//!
//! The dict is made by the library's own serialization (serde, camelCase) read back by
//! Python's `json.loads`, not by writing keys by hand here: the keys cannot drift from the
//! command's, and scores read back as the command prints them (an `f32` written shortest,
//! `0.91`, not `0.9100000262260437`).

use mentor_context::AssembledContext;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;

use crate::errors::refused;

/// `json.loads`, looked up once per interpreter.
static JSON_LOADS: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// The report as one line of JSON, as `assemble --json` prints it (without the newline).
pub(crate) fn to_json(context: &AssembledContext<'_>) -> PyResult<String> {
    // Not the input's fault: a report serializes from plain fields.
    serde_json::to_string(context).map_err(|err| refused(format!("cannot write JSON: {err}")))
}

/// JSON text read into Python objects by `json.loads`.
pub(crate) fn loads<'py>(py: Python<'py>, json: &str) -> PyResult<Bound<'py, PyAny>> {
    let loads = JSON_LOADS.get_or_try_init(py, || {
        py.import("json")?.getattr("loads").map(Bound::unbind)
    })?;
    loads.bind(py).call1((json,))
}
