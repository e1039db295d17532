//! What the environment calls by name: Python's `str` methods, Jinja2's `string` filter and
//! transformers' `raise_exception`.

use minijinja::value::{Value, ValueKind};
use minijinja::{Error as JinjaError, ErrorKind, State};

use super::python::Side;
use super::{bounds, filters, python, repr, strings};

/// Python's `str` methods, with Python's whitespace; the rest from `minijinja-contrib`.
pub(super) fn python_method(
    state: &mut State,
    value: &Value,
    method: &str,
    args: &[Value],
) -> Result<Value, JinjaError> {
    let Some(s) = value.as_str().filter(|_| value.kind() == ValueKind::String) else {
        return minijinja_contrib::pycompat::unknown_method_callback(state, value, method, args);
    };
    let side = match method {
        "strip" => Some(Side::Both),
        "lstrip" => Some(Side::Start),
        "rstrip" => Some(Side::End),
        _ => None,
    };
    if let Some(side) = side {
        let (chars,): (Option<&str>,) = minijinja::value::from_args(args)?;
        return Ok(Value::from(python::strip(s, chars, side)));
    }
    match method {
        "split" => {
            let (sep, maxsplit): (Option<&str>, Option<i64>) = minijinja::value::from_args(args)?;
            let parts = python::split(s, sep, maxsplit)
                .map_err(|problem| JinjaError::new(ErrorKind::InvalidOperation, problem))?;
            Ok(parts.into_iter().map(Value::from).collect())
        }
        "splitlines" => {
            let (keepends,): (Option<bool>,) = minijinja::value::from_args(args)?;
            Ok(python::splitlines(s, keepends.unwrap_or(false))
                .into_iter()
                .map(Value::from)
                .collect())
        }
        "isspace" => {
            let () = minijinja::value::from_args(args)?;
            Ok(Value::from(
                !s.is_empty() && s.chars().all(python::is_space),
            ))
        }
        "join" => filters::str_join(state, s, args),
        "format" => {
            filters::str_format(state, s, args)?;
            minijinja_contrib::pycompat::unknown_method_callback(state, value, method, args)
        }
        _ => match strings::call(state, s, method, args) {
            Some(answer) => answer,
            None => {
                minijinja_contrib::pycompat::unknown_method_callback(state, value, method, args)
            }
        },
    }
}

/// Jinja2's `string`: `str(value)`, as the formatter writes it (and paid for as it does).
pub(super) fn string_filter(state: &State, value: &Value) -> Result<Value, JinjaError> {
    if value.kind() == ValueKind::String {
        return Ok(value.clone());
    }
    let pay = bounds::fuel_of(state);
    let mut text = bounds::Meter::new(Some(&pay));
    repr::write_str(&mut text, value)?;
    Ok(Value::from(text.finish()?))
}

pub(super) fn raise_exception(message: &str) -> Result<Value, JinjaError> {
    Err(JinjaError::new(
        ErrorKind::InvalidOperation,
        format!("the template raised: {message}"),
    ))
}
