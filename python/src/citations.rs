//! `resolve_citations`: which chips of a report an answer cites, through the library's
//! `Resolver`.

use mentor_context::Citation;
use mentor_context::citations::Resolver;
use pyo3::prelude::*;
use serde::Deserialize;

use crate::depythonize::PyDeserializer;
use crate::errors::refused;
use crate::pyser::to_python;

/// Reads `answer` against the chips of `report` (a dict from `Assembler.assemble`, or its
/// `citations` list): the cited chips in order of first citation, with how often and where;
/// the markers that point at no chip; with `renumber`, the answer renumbered 1..k.
///
/// Offsets (`spans`, `at`) are Python string indices, so `answer[span["start"]:span["end"]]`
/// is the marker; the library's own are UTF-8 byte offsets.
#[pyfunction]
#[pyo3(signature = (report, answer, *, renumber=false))]
pub(crate) fn resolve_citations<'py>(
    py: Python<'py>,
    report: &Bound<'py, PyAny>,
    answer: &str,
    renumber: bool,
) -> PyResult<Bound<'py, PyAny>> {
    let chips = match report.get_item("citations") {
        Ok(chips) => chips,
        Err(_) => report.clone(),
    };
    let chips = Vec::<Citation>::deserialize(PyDeserializer(&chips)).map_err(|err| {
        refused(format!(
            "report: expected a report of Assembler.assemble or its citations: {err}"
        ))
    })?;
    let resolution = py.detach(|| {
        let mut resolution = Resolver::new(&chips).renumber(renumber).resolve(answer);
        crate::dialects::to_char_offsets(&mut resolution, answer);
        resolution
    });
    to_python(py, &resolution)
}
