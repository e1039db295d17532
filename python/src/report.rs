//! A context into the report `mentor-context assemble --json` prints, as JSON text.
//!
//! The library's own serialization (serde, camelCase), so the keys cannot drift from the
//! command's. The dict form is built from the same serialization by [`crate::pyser`].

use mentor_context::AssembledContext;
use pyo3::PyResult;

use crate::errors::refused;

/// The report as one line of JSON, as `assemble --json` prints it (without the newline).
pub(crate) fn to_json(context: &AssembledContext<'_>) -> PyResult<String> {
    // Not the input's fault: a report serializes from plain fields.
    serde_json::to_string(context).map_err(|err| refused(format!("cannot write JSON: {err}")))
}
