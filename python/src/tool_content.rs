//! `mistral_tool_content` and `cohere_tool_content`: the content of the `tool` message that
//! sends a report's entries as the result of the model's tool call, through the library's
//! functions of the same names.
//!
//! The entries come back as Python values, so each is read as the dialect's entry exactly as
//! `Assembler.entries` wrote it (the library's `machinery` hooks): another dialect's entries,
//! or an entry with a field added, raise rather than send something else than was given.

use mentor_context::ErrorKind;
use pyo3::prelude::*;
use serde::Deserialize;
use serde_json::Value;

use crate::depythonize::PyDeserializer;
use crate::errors::refused_as;
use crate::pyser::to_python;

/// The content of the `tool` message that sends `entries` (of an assembler with
/// `dialect="mistral"`, as `Assembler.entries` returned them) to Mistral: the JSON object
/// keyed `"0"`, `"1"`, ..., as Mistral's citations guide shows it, so that reference id `i`
/// is citation `i + 1`. Byte for byte what `assemble --dialect mistral` prints (without the
/// newline).
#[pyfunction]
pub(crate) fn mistral_tool_content(entries: &Bound<'_, PyAny>) -> PyResult<String> {
    let values = read_values(entries)?;
    mentor_context::machinery::mistral_tool_content_of(&values, PyDeserializer(entries))
        .map_err(refused)
}

/// The content of the `tool` message that sends `entries` (of an assembler with
/// `dialect="cohere"`) to Cohere v2: each entry as a `{"type": "document", "document": ...}`
/// block, in order. Cohere cites document `N` of a tool result as
/// `{"type": "tool", "id": "CALL_ID:N"}`, which `resolve_response` reads as citation `N + 1`.
#[pyfunction]
pub(crate) fn cohere_tool_content<'py>(
    py: Python<'py>,
    entries: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let values = read_values(entries)?;
    let content =
        mentor_context::machinery::cohere_tool_content_of(&values, PyDeserializer(entries))
            .map_err(refused)?;
    to_python(py, &content)
}

/// `entries` as JSON values, for the library's checks: a list (or tuple) of anything JSON
/// holds. The library reads `entries` again for the keys' order, which a JSON value loses.
fn read_values(entries: &Bound<'_, PyAny>) -> PyResult<Vec<Value>> {
    Vec::<Value>::deserialize(PyDeserializer(entries)).map_err(|err| {
        refused(format!(
            "entries: expected the list Assembler.entries returns: {err}"
        ))
    })
}

/// `message` as the error of an argument of the wrong shape.
fn refused(message: String) -> PyErr {
    refused_as(ErrorKind::InvalidArgument, message)
}
