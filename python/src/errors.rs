//! The one exception of the package, and the library's errors turned into it, each with the
//! library's stable code.

use mentor_context::ErrorKind;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

pyo3::create_exception!(
    mentor_context,
    MentorContextError,
    PyValueError,
    "A configuration or input that mentor-context refuses. Its message is the library's \
     one-line message; `code` is the library's stable code of its kind (`UNKNOWN_SETTING`, \
     `HEADER_OVER_BUDGET`, ...), `reason` why a previous report was refused (`SEAL_MISMATCH`, \
     `EDITED_BLOCK`, ...) or None, `block` the block an `EDITED_BLOCK` names, and \
     `template_kind` what a `CHAT_TEMPLATE` error is (`RAISED`, `OUT_OF_FUEL`, `TOO_DEEP`, \
     `OUTPUT_TOO_LARGE`, `SYNTAX`, ...) or None. A subclass of ValueError."
);

/// `message` as a [`MentorContextError`] of `kind`.
pub(crate) fn refused_as(kind: ErrorKind, message: impl Into<String>) -> PyErr {
    with_attributes(message.into(), kind, None, None)
}

/// `message` as a [`MentorContextError`] about an argument of the wrong type or shape.
pub(crate) fn refused(message: impl Into<String>) -> PyErr {
    refused_as(ErrorKind::InvalidArgument, message)
}

/// A library error as a [`MentorContextError`] with the library's message and code.
pub(crate) fn from_library(err: &mentor_context::Error) -> PyErr {
    with_attributes(
        err.to_string(),
        err.kind(),
        err.previous_turn_reason(),
        err.template_error()
            .map(mentor_context::TemplateError::kind),
    )
}

/// `message` as a [`MentorContextError`] with the attributes of `err`, one: a request's
/// error said of the request among many.
pub(crate) fn like(py: Python<'_>, err: &PyErr, message: String) -> PyErr {
    let value = err.value(py);
    let new = MentorContextError::new_err(message);
    let copy = new.value(py);
    for name in ["code", "reason", "block", "template_kind"] {
        if let Ok(attribute) = value.getattr(name) {
            let _ = copy.setattr(name, attribute);
        }
    }
    new
}

fn with_attributes(
    message: String,
    kind: ErrorKind,
    reason: Option<mentor_context::PreviousTurnReason>,
    template_kind: Option<mentor_context::TemplateErrorKind>,
) -> PyErr {
    let err = MentorContextError::new_err(message);
    Python::attach(|py| {
        let value = err.value(py);
        // Setting an attribute on a new exception object fails only without memory, and
        // then the exception is still raised, without them.
        let _ = value.setattr("code", kind.code());
        let _ = value.setattr(
            "reason",
            reason.map(mentor_context::PreviousTurnReason::code),
        );
        let _ = value.setattr(
            "block",
            reason.and_then(mentor_context::PreviousTurnReason::block),
        );
        let _ = value.setattr(
            "template_kind",
            template_kind.map(mentor_context::TemplateErrorKind::code),
        );
    });
    err
}
