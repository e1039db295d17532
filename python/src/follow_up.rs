//! `Assembler.assemble_follow_up`: the next turn of a conversation, through the library's
//! `assemble_follow_up`.
//!
//! The previous report is what `assemble` returned (a dict), or its JSON text as a backend
//! stores it. A dict is written as JSON by Python's `json` and read back by the library's
//! own `Deserialize`, as the command reads `--previous`: the same rules, the same checks.

use mentor_context::{AssembledContext, Assembler};
use pyo3::prelude::*;
use pyo3::types::PyString;

use mentor_context::ErrorKind;

use crate::errors::{from_library, refused_as};

/// The previous report: JSON text as it is, a dict through `json.dumps`.
pub(crate) fn read_previous(previous: &Bound<'_, PyAny>) -> PyResult<AssembledContext<'static>> {
    let (text, given_as_text) =
        match previous.cast::<PyString>() {
            Ok(text) => (text.to_str()?.to_string(), true),
            Err(_) => {
                let json = previous.py().import("json")?;
                let text = json.call_method1("dumps", (previous,)).map_err(|err| {
                refused_as(ErrorKind::InvalidReport, format!(
                    "previous_report: expected a report of Assembler.assemble (a dict) or its \
                     JSON text: {}",
                    err.value(previous.py())
                ))
            })?;
                (text.extract::<String>()?, false)
            }
        };
    let trimmed = text.trim_start_matches('\u{feff}').trim_start();
    if trimmed.is_empty() {
        return Err(refused_as(
            ErrorKind::InvalidReport,
            "previous_report: empty; expected a report of Assembler.assemble",
        ));
    }
    if trimmed.starts_with('[') {
        return Err(refused_as(
            ErrorKind::InvalidReport,
            "previous_report: a list; expected a report of Assembler.assemble (a dict)",
        ));
    }
    serde_json::from_str(trimmed).map_err(|err| {
        // Positions mean something in text the caller gave, not in text made from a dict.
        let err = mentor_context::Error::from(err);
        match (&err, given_as_text) {
            (mentor_context::Error::Json { message, .. }, false) => refused_as(
                ErrorKind::InvalidReport,
                format!("previous_report: {message}"),
            ),
            _ => refused_as(ErrorKind::InvalidReport, format!("previous_report: {err}")),
        }
    })
}

/// The next turn after `previous`, for `results`: the library's error on a previous report
/// that this assembler did not write, that was edited, or whose blocks fill the budget.
pub(crate) fn assemble_follow_up<'r>(
    py: Python<'_>,
    assembler: &Assembler,
    previous: &AssembledContext<'_>,
    results: &'r [mentor_context::MentorRagResult],
) -> PyResult<AssembledContext<'r>> {
    py.detach(|| assembler.assemble_follow_up(previous, results))
        .map_err(|err| from_library(&err))
}
