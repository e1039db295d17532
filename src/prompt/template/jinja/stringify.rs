//! Every place where minijinja itself would turn a container into text goes through us.
//!
//! minijinja formats a list or a dict with its `Display`, which builds the whole text before
//! anything is charged for it: `'' ~ ([messages[0].content] * 10**9)` would ask for a
//! gigabyte per byte of the first message, and a lazily repeated list costs nothing to
//! make. That happens in three places, and each is taken over here:
//!
//! - **the `~` operator**: the source is rewritten so that `A ~ B` becomes
//!   `__mentor_concat(A, B)`, which writes Python's `str()` of both sides through a
//!   [`Meter`], paid for before it is written;
//! - **`in` with a string on the right**: `A in B` becomes `__mentor_in(A, B)`, which refuses a
//!   non-string on the left as Python does (`'in <string>' requires string as left operand`)
//!   and otherwise asks minijinja's own `in` test; `not in` keeps its `not`. A chain of
//!   comparisons holding `in` (`a < b in c`) is refused when the template is loaded: no chat
//!   template writes one, and splitting the chain would change what it means;
//! - **the filters and tests that take text** (`upper`, `lower`, `title`, `capitalize`,
//!   `replace`, `indent`, `safe`, `escape`, `e`, `startingwith`, `endingwith`, and the test
//!   `in`): a container given to one is written first as Python's `str()` of it, paid for,
//!   then minijinja's own filter runs on that text (so `[1]|upper` is `'[1]'` upper-cased, as
//!   in Jinja2).
//!
//! The rewrite reads minijinja's own syntax tree (`unstable_machinery`): the operators' spans
//! say exactly where each operand starts and ends, whatever parentheses, filters or
//! precedence surround them, and a parse that agrees with the compiler's cannot be fooled by
//! a `~` inside a string literal.

use std::borrow::Cow;

use minijinja::value::{Rest, Value, ValueKind};
use minijinja::{Environment, Error, ErrorKind, State};

use super::bounds::{Meter, fuel_of};
use super::repr;

/// The function `A ~ B` becomes.
const CONCAT: &str = "__mentor_concat";

/// Bytes of a string minijinja makes, or searches, per fuel.
const STRING_BYTES_PER_FUEL: usize = 64;

/// The function `A in B` becomes.
const CONTAINS: &str = "__mentor_in";

/// The builtin filters that turn their arguments into text (`urlencode` is not built in).
fn text_filters() -> [(&'static str, Value); 9] {
    use minijinja::filters;
    let escape = Value::from_function(filters::escape);
    [
        ("upper", Value::from_function(filters::upper)),
        ("lower", Value::from_function(filters::lower)),
        ("title", Value::from_function(filters::title)),
        ("capitalize", Value::from_function(filters::capitalize)),
        ("replace", Value::from_function(filters::replace)),
        ("indent", Value::from_function(filters::indent)),
        ("safe", Value::from_function(filters::safe)),
        ("escape", escape.clone()),
        ("e", escape),
    ]
}

/// The builtin tests that turn their arguments into text.
fn text_tests() -> [(&'static str, Value); 2] {
    use minijinja::tests;
    [
        ("startingwith", Value::from_function(tests::is_startingwith)),
        ("endingwith", Value::from_function(tests::is_endingwith)),
    ]
}

/// Registers the functions the rewritten source calls, and takes over the filters and tests
/// that turn their arguments into text: each writes a container argument as Python's `str()`
/// of it, paid for, then calls minijinja's own.
pub(super) fn install(env: &mut Environment<'_>) {
    env.add_function(CONCAT, concat);
    env.add_function(CONTAINS, contains);
    env.add_test("in", contains);
    for (name, builtin) in text_filters() {
        env.add_filter(name, move |state: &mut State, args: Rest<Value>| {
            let args = as_text(state, &args)?;
            builtin.call(state, &args)
        });
    }
    for (name, builtin) in text_tests() {
        env.add_test(name, move |state: &mut State, args: Rest<Value>| {
            let args = as_text(state, &args)?;
            Ok::<_, Error>(builtin.call(state, &args)?.is_true())
        });
    }
}

/// Each argument that is a container, written as Python's `str()` of it; the others as they
/// are (a keyword-argument map included).
fn as_text(state: &State, args: &[Value]) -> Result<Vec<Value>, Error> {
    args.iter()
        .map(|arg| {
            if is_container(arg) && !arg.is_kwargs() {
                str_of(state, arg).map(Value::from)
            } else {
                Ok(arg.clone())
            }
        })
        .collect()
}

fn is_container(value: &Value) -> bool {
    matches!(
        value.kind(),
        ValueKind::Seq | ValueKind::Map | ValueKind::Iterable | ValueKind::Plain
    )
}

/// Python's `str(value)`, paid for as it is written.
fn str_of(state: &State, value: &Value) -> Result<String, Error> {
    let pay = fuel_of(state);
    let mut text = Meter::new(Some(&pay));
    repr::write_str(&mut text, value)?;
    text.finish()
}

/// `a ~ b ~ ...`: `str(a) + str(b) + ...`, as Jinja2 writes it. Strings and numbers are
/// paid for as minijinja pays for the strings it makes, before the text is made; a container
/// is written through a [`Meter`], as the formatter writes it.
fn concat(state: &State, parts: &[Value]) -> Result<Value, Error> {
    let text = if parts.iter().any(is_container) {
        let pay = fuel_of(state);
        let mut text = Meter::new(Some(&pay));
        for part in parts {
            repr::write_str(&mut text, part)?;
        }
        text.finish()?
    } else {
        let scalars: Vec<Cow<'_, str>> = parts.iter().map(scalar_str).collect();
        let bytes = scalars
            .iter()
            .map(|s| s.len())
            .fold(0, usize::saturating_add);
        state.consume_fuel(fuel_for_bytes(bytes))?;
        scalars.concat()
    };
    Ok(if parts.iter().all(Value::is_safe) {
        Value::from_safe_string(text)
    } else {
        Value::from(text)
    })
}

/// Python's `str()` of a value that is not a container: a few bytes, or a string as it is.
fn scalar_str(value: &Value) -> Cow<'_, str> {
    match value.kind() {
        ValueKind::String => Cow::Borrowed(value.as_str().unwrap_or_default()),
        _ => {
            let mut text = Meter::new(None);
            // Nothing to nest and nothing to pay: `write_str` cannot fail here.
            let _ = repr::write_str(&mut text, value);
            Cow::Owned(text.finish().unwrap_or_default())
        }
    }
}

/// `needle in haystack`, as minijinja's own `in` decides it, except that a container is never
/// written out to be looked for in a string: Python refuses that, and so do we.
fn contains(state: &State, needle: &Value, haystack: &Value) -> Result<bool, Error> {
    match haystack.kind() {
        ValueKind::Undefined => Ok(false),
        ValueKind::String => {
            let text = haystack.as_str().unwrap_or_default();
            state.consume_fuel(fuel_for_bytes(text.len()))?;
            match needle.kind() {
                ValueKind::String => Ok(text.contains(needle.as_str().unwrap_or_default())),
                // Python refuses anything else, a number or none as much as a list; minijinja
                // would look for a number's text.
                _ => Err(Error::new(
                    ErrorKind::InvalidOperation,
                    format!(
                        "'in <string>' requires string as left operand, not {}",
                        needle.kind()
                    ),
                )),
            }
        }
        ValueKind::Map => Ok(haystack
            .as_object()
            .and_then(|map| map.get_value(needle))
            .is_some()),
        ValueKind::Seq | ValueKind::Iterable => {
            for item in haystack.try_iter()? {
                state.consume_fuel(1)?;
                if item == *needle {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        ValueKind::Plain => Ok(false),
        _ => Err(Error::new(
            ErrorKind::InvalidOperation,
            "cannot perform a containment check on this value",
        )),
    }
}

fn fuel_for_bytes(bytes: usize) -> u64 {
    u64::try_from(bytes.div_ceil(STRING_BYTES_PER_FUEL)).unwrap_or(u64::MAX)
}

mod operators;

pub(super) use operators::rewrite_operators;

#[cfg(test)]
mod tests;
