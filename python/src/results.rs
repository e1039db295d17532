//! Python objects into the library's results, read by the library's own rules.
//!
//! A result is a dict in the .NET wire form (`content`, `score`, `sourceUrl`, `title`,
//! `metadata`; names in any letter case, a score may be a numeric string; `source_url`, as
//! Python code spells it, is read as `sourceUrl`), read through
//! `mentor_context::wire::deserialize_request`, so it means exactly what the same JSON means to
//! `parse_request` and the command. Any other object is read by its attributes (`content`,
//! `score`, `title`, `source_url` or `sourceUrl`, `metadata`), as a dataclass or a
//! framework's document would carry them.

use mentor_context::ErrorKind;
use mentor_context::machinery::deserialize_request_into;
use mentor_context::wire::{
    ParsedResults, UnknownProperties, UnknownProperty, deserialize_request,
};
use pyo3::exceptions::{PyTypeError, PyUserWarning};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyMapping, PyString, PyTuple};

use crate::depythonize::PyDeserializer;
use crate::errors::refused_as;

/// The attributes an object result is read by, and the wire name each becomes. The first
/// attribute of a pair that the object has wins.
const ATTRIBUTES: [(&str, &str); 6] = [
    ("content", "content"),
    ("score", "score"),
    ("title", "title"),
    ("source_url", "sourceUrl"),
    ("sourceUrl", "sourceUrl"),
    ("metadata", "metadata"),
];

/// The snake_case spellings Python code gives a wire property in a dict, read as that
/// property (an object's attributes are read by [`ATTRIBUTES`]). A dict that has both
/// spellings is left as it is, and the wire reader names the one it does not know.
const SNAKE_CASE: [(&str, &str); 1] = [("source_url", "sourceUrl")];

/// Reads one request: a list or tuple of results. With `strict`, an unknown property is an
/// error; otherwise each distinct one gets a `UserWarning`, as the command warns.
pub(crate) fn read_request(request: &Bound<'_, PyAny>, strict: bool) -> PyResult<ParsedResults> {
    let mut parsed = ParsedResults::default();
    read_request_into(request, strict, &mut parsed)?;
    Ok(parsed)
}

/// [`read_request`] into `parsed`, reusing the buffers of the request read there before.
pub(crate) fn read_request_into(
    request: &Bound<'_, PyAny>,
    strict: bool,
    parsed: &mut ParsedResults,
) -> PyResult<()> {
    let policy = if strict {
        UnknownProperties::Reject
    } else {
        UnknownProperties::Report
    };
    let request = as_records(request)?;
    if let Err(err) = deserialize_request_into(PyDeserializer(&request), policy, parsed) {
        return Err(locate(&request, policy, &err.to_string()));
    }
    if !parsed.unknown_properties.is_empty() {
        warn_unknown(
            request.py(),
            &parsed.unknown_properties,
            parsed.results.len(),
        )?;
    }
    Ok(())
}

/// `request` with every result a mapping: the same object when they all are (the common
/// case costs no copy), else a new list with object results read into dicts.
fn as_records<'py>(request: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    let items = if let Ok(list) = request.cast::<PyList>() {
        list.as_sequence().clone()
    } else if let Ok(tuple) = request.cast::<PyTuple>() {
        tuple.as_sequence().clone()
    } else {
        let kind = request.get_type().name()?;
        let hint = if request.is_instance_of::<PyString>() {
            " (parse JSON text first, with json.loads)"
        } else if request.cast::<PyMapping>().is_ok() {
            " (a single result? wrap it in [ ])"
        } else {
            ""
        };
        return Err(PyTypeError::new_err(format!(
            "results: expected a list of results (dicts in the .NET wire form, or objects \
             with content and score attributes), got {kind}{hint}"
        )));
    };
    let mut as_given = true;
    for item in items.try_iter()? {
        let item = item?;
        if !is_mapping(&item) || snake_cased(&item)? {
            as_given = false;
            break;
        }
    }
    if as_given {
        return Ok(request.clone());
    }
    let records = PyList::empty(request.py());
    for item in items.try_iter()? {
        let item = item?;
        if !is_mapping(&item) {
            records.append(from_attributes(&item)?)?;
        } else if snake_cased(&item)? {
            records.append(with_wire_names(&item)?)?;
        } else {
            records.append(item)?;
        }
    }
    Ok(records.into_any())
}

fn is_mapping(item: &Bound<'_, PyAny>) -> bool {
    item.is_instance_of::<PyDict>() || item.cast::<PyMapping>().is_ok()
}

/// Whether a mapping spells a wire property only as [`SNAKE_CASE`] has it.
fn snake_cased(item: &Bound<'_, PyAny>) -> PyResult<bool> {
    for (snake, wire) in SNAKE_CASE {
        if item.contains(snake)? && !item.contains(wire)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// A copy of a mapping with each [`SNAKE_CASE`] key under its wire name.
fn with_wire_names<'py>(item: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let record = PyDict::new(item.py());
    for key in item.try_iter()? {
        let key = key?;
        let value = item.get_item(&key)?;
        let wire = key.extract::<String>().ok().and_then(|name| {
            SNAKE_CASE
                .iter()
                .find(|(snake, wire)| *snake == name && !item.contains(*wire).unwrap_or(true))
                .map(|(_, wire)| *wire)
        });
        match wire {
            Some(wire) => record.set_item(wire, value)?,
            None => record.set_item(key, value)?,
        }
    }
    Ok(record)
}

/// An object result as a dict of its wire properties, from the attributes it has.
fn from_attributes<'py>(item: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
    let record = PyDict::new(item.py());
    for (attribute, wire) in ATTRIBUTES {
        if !record.contains(wire)? && item.hasattr(attribute)? {
            record.set_item(wire, item.getattr(attribute)?)?;
        }
    }
    Ok(record)
}

/// The error for a request the library refused, at the result it refused: each result is
/// read alone until one fails (only on the error path, so it costs nothing otherwise).
fn locate(request: &Bound<'_, PyAny>, policy: UnknownProperties, problem: &str) -> PyErr {
    if let Ok(items) = request.try_iter() {
        for (at, item) in items.enumerate() {
            let Ok(item) = item else { break };
            let Ok(alone) = PyList::new(request.py(), [item]) else {
                break;
            };
            if let Err(err) = deserialize_request(PyDeserializer(&alone), policy) {
                return refused_as(ErrorKind::InvalidResult, format!("results[{at}]: {err}"));
            }
        }
    }
    refused_as(ErrorKind::InvalidResult, format!("results: {problem}"))
}

/// One `UserWarning` per distinct unknown property, worded as the command's warning.
fn warn_unknown(py: Python<'_>, unknown: &[UnknownProperty], results: usize) -> PyResult<()> {
    let category = py.get_type::<PyUserWarning>();
    for property in unknown {
        let message = format!(
            "{property}, ignored in {} of {results} results (strict=True makes this an error)",
            property.count
        );
        // A NUL cannot cross into C; the property name is the only part that could hold one.
        let message = std::ffi::CString::new(message.replace('\0', "\\0")).unwrap_or_default();
        // Level 1: the Python line that called `assemble`, the frame on top of the stack.
        PyErr::warn(py, &category, &message, 1)?;
    }
    Ok(())
}
