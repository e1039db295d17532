//! Python bindings of `mentor-context`: the module `mentor_context._native`, which the
//! `mentor_context` package re-exports.
//!
//! Everything here is a thin layer over the library: keyword arguments are the library's
//! `Settings`, read through serde and checked by it; results are read by the library's own
//! serde rules (`deserialize_request`); reports are the library's own serialization. The
//! modules: [`depythonize`] (a serde reader of Python objects), [`settings`] (keyword arguments into `Settings`), [`results`] (Python
//! objects into results), [`reuse`] (the buffers requests are read into), [`report`] (a context into JSON or a dict), [`pyser`] (a serde writer of Python objects), [`assembler`] (the `Assembler`
//! class, with [`follow_up`] for its next turns), [`citations`] (`resolve_citations`),
//! [`tool_content`] (`mistral_tool_content`, `cohere_tool_content`: a tool message's content),
//! [`stream`] (`Resolver` and its `CitationStream`), [`prompt`] (`PromptAssembler`, the whole
//! prompt) and [`errors`] (the exception).
#![deny(missing_docs)]

mod assembler;
mod citations;
mod depythonize;
mod dialects;
mod errors;
mod follow_up;
mod many;
mod prompt;
mod pyser;
mod report;
mod results;
mod reuse;
mod settings;
mod stream;
mod tool_content;

use pyo3::prelude::*;

/// The extension module. Its name is the one `pyproject.toml` gives maturin.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add(
        "MentorContextError",
        m.py().get_type::<errors::MentorContextError>(),
    )?;
    m.add_class::<assembler::PyAssembler>()?;
    m.add_class::<prompt::PyPromptAssembler>()?;
    m.add_class::<dialects::PyResponseStream>()?;
    m.add_function(wrap_pyfunction!(citations::resolve_citations, m)?)?;
    m.add_function(wrap_pyfunction!(tool_content::mistral_tool_content, m)?)?;
    m.add_function(wrap_pyfunction!(tool_content::cohere_tool_content, m)?)?;
    m.add_class::<stream::PyResolver>()?;
    m.add_class::<stream::PyCitationStream>()?;
    m.add_function(wrap_pyfunction!(assembler::_time_rust_assemble, m)?)?;
    #[cfg(feature = "bench")]
    m.add_function(wrap_pyfunction!(assembler::_assemble_pythonize, m)?)?;
    #[cfg(feature = "bench")]
    m.add_class::<assembler::ReadReport>()?;
    m.add_function(wrap_pyfunction!(assembler::_kept_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(settings::_settings_names, m)?)?;
    m.add_function(wrap_pyfunction!(settings::_error_codes, m)?)?;
    m.add_function(wrap_pyfunction!(settings::_settings_choices, m)?)?;
    Ok(())
}
