//! Python's keyword arguments into the library's `Settings`: read by the library through
//! serde, under the settings' one name (`max_blocks`), so `Assembler` and `PromptAssembler`
//! accept exactly the settings the command and Node accept, refused in the same words with
//! the same codes. A seal key given as bytes, which no settings file holds, is the one
//! keyword of the bindings' own.

use mentor_context::settings::{Settings, Spelling};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::depythonize::PyDeserializer;
use crate::errors::from_library;

/// `seal_key=`: bytes as they are, or a string as its UTF-8.
#[derive(Debug, FromPyObject)]
pub(crate) enum SealKey {
    Bytes(Vec<u8>),
    Text(String),
}

impl SealKey {
    pub(crate) fn into_bytes(self) -> Vec<u8> {
        match self {
            SealKey::Bytes(bytes) => bytes,
            SealKey::Text(text) => text.into_bytes(),
        }
    }
}

/// The settings of `keywords`, with `positional` (a constructor's positional arguments, by
/// name; `None` unset) among them, and `seal_key`.
pub(crate) fn read(
    py: Python<'_>,
    positional: &[(&str, Option<&Bound<'_, PyAny>>)],
    keywords: Option<&Bound<'_, PyDict>>,
    seal_key: Option<SealKey>,
) -> PyResult<Settings> {
    let all = PyDict::new(py);
    for (name, value) in positional {
        if let Some(value) = value {
            all.set_item(name, value)?;
        }
    }
    if let Some(keywords) = keywords {
        all.update(keywords.as_mapping())?;
    }
    let settings = Settings::deserialize_spelled(PyDeserializer(all.as_any()), Spelling::Snake)
        .map_err(|err| from_library(&err))?;
    Ok(match seal_key {
        Some(key) => settings.with_seal_key(key.into_bytes()),
        None => settings,
    })
}

/// For the tests: every setting's name, from the library's serde description.
#[pyfunction]
pub(crate) fn _settings_names() -> Vec<&'static str> {
    Settings::names().to_vec()
}

/// For the tests: the names each named choice's value may take, by setting.
#[pyfunction]
pub(crate) fn _settings_choices() -> Vec<(&'static str, Vec<&'static str>)> {
    Settings::names()
        .iter()
        .filter_map(|&name| Settings::choices(name).map(|choices| (name, choices)))
        .collect()
}

/// For the tests: every error code, from the library's `ErrorKind`.
#[pyfunction]
pub(crate) fn _error_codes() -> Vec<&'static str> {
    mentor_context::ErrorKind::ALL
        .iter()
        .map(|kind| kind.code())
        .collect()
}
