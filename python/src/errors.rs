//! The one exception of the package, and the library's errors turned into it.

use pyo3::PyErr;
use pyo3::exceptions::PyValueError;

pyo3::create_exception!(
    mentor_context,
    MentorContextError,
    PyValueError,
    "A configuration or input that mentor-context refuses. Its message is the library's \
     one-line message. A subclass of ValueError."
);

/// `message` as a [`MentorContextError`].
pub(crate) fn refused(message: impl Into<String>) -> PyErr {
    MentorContextError::new_err(message.into())
}

/// A library error as a [`MentorContextError`] with the library's message.
pub(crate) fn from_library(err: &mentor_context::Error) -> PyErr {
    refused(err.to_string())
}
