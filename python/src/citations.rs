//! `resolve_citations`: which chips of a report an answer cites, through the library's
//! `Resolver`.

use mentor_context::Citation;
use mentor_context::citations::{Resolution, Resolver};
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
        to_char_offsets(&mut resolution, answer);
        resolution
    });
    to_python(py, &resolution)
}

/// Turns the resolution's byte offsets into `answer` into offsets in characters (code
/// points), which is what indexes a Python string.
fn to_char_offsets(resolution: &mut Resolution, answer: &str) {
    let chars = |byte: usize| answer.get(..byte).map_or(0, |head| head.chars().count());
    for chip in &mut resolution.cited {
        for span in &mut chip.spans {
            span.start = chars(span.start);
            span.end = chars(span.end);
        }
    }
    for marker in &mut resolution.unknown {
        marker.at = chars(marker.at);
    }
}
