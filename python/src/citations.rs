//! `resolve_citations`: which chips of a report an answer cites, through the library's
//! `Resolver`.

use pyo3::prelude::*;

use crate::pyser::to_python;
use crate::stream::read_resolver;

/// Reads `answer` against the chips of `report` (a dict from `Assembler.assemble`, its JSON
/// text, or its `citations` list): the cited chips in order of first citation, with how often
/// and where; the markers that point at no chip; with `renumber`, the answer renumbered 1..k.
/// Given a whole report, each quote before a `[n]` marker is checked against the content of
/// the block it cites, read back from the report in the layout it records (`unverified`
/// counts those not found), as `mentor-context cite` checks it.
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
    let resolver = read_resolver(report)?.renumber(renumber);
    let resolution = py.detach(|| {
        let mut resolution = resolver.resolve(answer);
        crate::dialects::to_char_offsets(&mut resolution, answer);
        resolution
    });
    to_python(py, &resolution)
}
