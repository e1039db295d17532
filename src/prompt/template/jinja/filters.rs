//! Jinja2's filters where minijinja's differ, and `join`, which must pay as it grows.
//!
//! `join` (the filter and `str.join`) writes each item as Jinja2 does (`str()`: `True`,
//! `None`) and pays for every byte before appending it: `([s] * 100000) | join('')` is out of
//! fuel after a few megabytes, not 100 GB. `int` reads strings as Python's `int()` does
//! (`" 42 "`, `"1_000"`, `"4.7"`), `truncate` and `wordcount` are Jinja2's, and `pprint`
//! (Python's `pformat`, whose line breaks this engine does not reproduce) is an error naming it.

use std::ops::Not as _;

use minijinja::value::{Kwargs, Rest, Value, ValueKind, ValueOrKwargs};
use minijinja::{Error, ErrorKind, State};

use super::bounds::{BYTES_PER_FUEL, Meter, fuel_of};
use super::python::{Side, strip};
use super::repr::write_str;

/// Jinja2's `join(value, d='', attribute=None)`.
#[allow(clippy::needless_pass_by_value)] // minijinja hands filters their keyword arguments by value
pub(super) fn join(
    state: &State,
    value: &Value,
    separator: Option<&str>,
    kwargs: Kwargs,
) -> Result<Value, Error> {
    let attribute: Option<&str> = kwargs.get("attribute")?;
    kwargs.assert_all_used()?;
    join_items(state, value, separator.unwrap_or(""), attribute)
}

/// `separator.join(items)`, the `str` method.
pub(super) fn str_join(state: &State, separator: &str, args: &[Value]) -> Result<Value, Error> {
    let (items,): (&Value,) = minijinja::value::from_args(args)?;
    join_items(state, items, separator, None)
}

fn join_items(
    state: &State,
    value: &Value,
    separator: &str,
    attribute: Option<&str>,
) -> Result<Value, Error> {
    let pay = fuel_of(state);
    let mut out = Meter::new(Some(&pay));
    if value.kind() == ValueKind::String {
        // A string joins its characters.
        for (i, c) in value.as_str().unwrap_or_default().chars().enumerate() {
            if i > 0 {
                out.push_str(separator)?;
            }
            out.push(c)?;
        }
        return Ok(Value::from(out.finish()?));
    }
    for (i, item) in value.try_iter()?.enumerate() {
        // An item writing nothing still costs a unit, so a lazy list of a hundred million
        // empty strings runs out of fuel too.
        state.consume_fuel(1)?;
        if i > 0 {
            out.push_str(separator)?;
        }
        let item = match attribute {
            Some(attribute) => item.get_attr(attribute)?,
            None => item,
        };
        write_str(&mut out, &item)?;
    }
    Ok(Value::from(out.finish()?))
}

/// `str.format(*args, **kwargs)`, paid for before pycompat formats it: each replacement field
/// can copy the largest argument, and each number in the format string can be a width.
/// Arguments are strings, numbers, booleans and `None` (a list or dict would be written by
/// minijinja's `Display`, neither Python's text nor paid for): anything else is an error.
pub(super) fn str_format(state: &State, s: &str, args: &[Value]) -> Result<Value, Error> {
    let mut largest = 0usize;
    let mut scalar = |value: &Value| match value.kind() {
        ValueKind::Seq | ValueKind::Iterable | ValueKind::Map => Err(Error::new(
            ErrorKind::InvalidOperation,
            "str.format: only strings, numbers, booleans and none are formatted",
        )),
        _ => {
            largest = largest.max(value.as_str().map_or(32, str::len));
            Ok(())
        }
    };
    for arg in args {
        if arg.kind() == ValueKind::Map {
            // Keyword arguments arrive as one map.
            for key in arg.try_iter()? {
                scalar(&arg.get_item(&key)?)?;
            }
        } else {
            scalar(arg)?;
        }
    }
    let fields = s.matches('{').count();
    let widths: usize = s
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|digits| {
            digits
                .parse::<usize>()
                .ok()
                .or((!digits.is_empty()).then_some(usize::MAX))
        })
        .fold(0, usize::saturating_add);
    let bytes = fields
        .saturating_mul(largest)
        .saturating_add(widths)
        .saturating_add(s.len());
    state.consume_fuel(u64::try_from(bytes / BYTES_PER_FUEL).unwrap_or(u64::MAX))?;
    Ok(Value::UNDEFINED)
}

/// Jinja2's `format` filter (`"%s and %s"|format(a, b)`), checked and paid for as
/// [`str_format`] is before minijinja's formats it.
pub(super) fn format_filter(
    state: &mut State,
    format: &Value,
    args: Rest<ValueOrKwargs>,
) -> Result<Value, Error> {
    let values: Vec<Value> = args.iter().map(|arg| Value::clone(arg)).collect();
    str_format(state, format.as_str().unwrap_or_default(), &values)?;
    minijinja::filters::format(state, format, args)
}

/// Jinja2's `sum(iterable, attribute=None, start=0)`. Numbers are minijinja's sum; lists
/// (`start=[]`) are concatenated here, each slot paid for, in one pass: minijinja's adds the
/// lists one by one, copying the whole so far every few items, unpaid, so a long list of
/// lists took minutes.
#[allow(clippy::needless_pass_by_value)] // minijinja hands filters their arguments by value
pub(super) fn sum(
    state: &State,
    values: Value,
    attribute: Option<&str>,
    start: Option<Value>,
    kwargs: Kwargs,
) -> Result<Value, Error> {
    let start = match start {
        Some(start) => Some(start),
        None => kwargs.get::<Option<Value>>("start")?,
    };
    let lists = start
        .as_ref()
        .is_some_and(|start| matches!(start.kind(), ValueKind::Seq | ValueKind::Iterable));
    if !lists {
        return minijinja::filters::sum(state, values, attribute, start, kwargs);
    }
    let attribute = match attribute {
        Some(attribute) => Some(attribute),
        None => kwargs.get::<Option<&str>>("attribute")?,
    };
    kwargs.assert_all_used()?;
    let mut total = Vec::new();
    let mut add = |list: &Value| -> Result<(), Error> {
        if !matches!(list.kind(), ValueKind::Seq | ValueKind::Iterable) {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                format!(
                    "sum: can only concatenate lists to a list, not {}",
                    list.kind()
                ),
            ));
        }
        for item in list.try_iter()? {
            state.consume_fuel(1)?;
            total.push(item);
        }
        Ok(())
    };
    add(start.as_ref().unwrap_or(&Value::UNDEFINED))?;
    for item in values.try_iter()? {
        state.consume_fuel(1)?;
        let item = match attribute {
            Some(attribute) => item.get_attr(attribute)?,
            None => item,
        };
        add(&item)?;
    }
    Ok(Value::from(total))
}

/// Jinja2's `int(value, default=0, base=10)`: Python's `int()` of a string (surrounding
/// whitespace, a sign, `_` between digits, a `0x`/`0o`/`0b` prefix matching the base), then
/// `int(float(value))`, then the default.
#[allow(clippy::needless_pass_by_value)] // minijinja hands filters their keyword arguments by value
pub(super) fn int(
    value: &Value,
    default: Option<Value>,
    base: Option<u32>,
    kwargs: Kwargs,
) -> Result<Value, Error> {
    let default = match default {
        Some(default) => default,
        None => kwargs
            .get::<Option<Value>>("default")?
            .unwrap_or(Value::from(0)),
    };
    let base = match base {
        Some(base) => base,
        None => kwargs.get::<Option<u32>>("base")?.unwrap_or(10),
    };
    kwargs.assert_all_used()?;
    let truncated = |x: f64| {
        // In range, so the cast is exact after `trunc`.
        #[allow(clippy::cast_possible_truncation)]
        let n = x.trunc() as i64;
        Value::from(n)
    };
    Ok(match value.kind() {
        ValueKind::Bool => Value::from(i64::from(value.is_true())),
        ValueKind::Number => match i64::try_from(value.clone()) {
            Ok(n) => Value::from(n),
            Err(_) => f64::try_from(value.clone())
                .ok()
                .filter(|x| x.is_finite() && x.abs() < 9.2e18)
                .map_or(default, truncated),
        },
        ValueKind::String => {
            let text = strip(value.as_str().unwrap_or_default(), None, Side::Both);
            match parse_int(text, base) {
                Some(n) => Value::from(n),
                None => parse_float(text)
                    .filter(|x| x.abs() < 9.2e18)
                    .map_or(default, truncated),
            }
        }
        _ => default,
    })
}

/// Python's `int(text, base)` for a stripped string: a sign, a prefix matching the base (any
/// for base 0), digits with single `_` between them.
fn parse_int(text: &str, base: u32) -> Option<i64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let lower = digits.get(..2).map(str::to_ascii_lowercase);
    let prefixed = match lower.as_deref() {
        Some("0x") => Some(16),
        Some("0o") => Some(8),
        Some("0b") => Some(2),
        _ => None,
    };
    let (base, digits) = match (base, prefixed) {
        (0, Some(radix)) => (radix, &digits[2..]),
        (base, Some(radix)) if base == radix => (base, &digits[2..]),
        // Base 0 without a prefix is decimal, and refuses leading zeros.
        (0, None)
            if digits.len() > 1
                && digits.starts_with('0')
                && digits.trim_start_matches(['0', '_']).is_empty().not() =>
        {
            return None;
        }
        (0, None) => (10, digits),
        (base, _) => (base, digits),
    };
    if !(2..=36).contains(&base) {
        return None;
    }
    let digits = digits
        .strip_prefix('_')
        .filter(|_| prefixed.is_some())
        .unwrap_or(digits);
    if digits.is_empty()
        || digits.starts_with('_')
        || digits.ends_with('_')
        || digits.contains("__")
    {
        return None;
    }
    let digits: String = digits.chars().filter(|&c| c != '_').collect();
    let n = i64::from_str_radix(&digits, base).ok()?;
    Some(if negative { -n } else { n })
}

/// Python's `float(text)` for a stripped string: decimal notation, `inf` and `nan` excluded
/// (`int()` of them fails, so the default is used).
fn parse_float(text: &str) -> Option<f64> {
    let plain = text.trim_start_matches(['+', '-']);
    if plain.is_empty() || !plain.starts_with(|c: char| c.is_ascii_digit() || c == '.') {
        return None;
    }
    let bytes = text.as_bytes();
    let lone_underscores = bytes.iter().enumerate().all(|(i, &b)| {
        b != b'_'
            || (i > 0
                && bytes[i - 1].is_ascii_digit()
                && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
    });
    if !lone_underscores {
        return None;
    }
    text.replace('_', "")
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
}

/// Jinja2's `truncate(s, length=255, killwords=False, end='...', leeway=5)` (`leeway` by
/// keyword).
#[allow(clippy::needless_pass_by_value)] // minijinja hands filters their keyword arguments by value
pub(super) fn truncate(
    value: &Value,
    length: Option<usize>,
    killwords: Option<bool>,
    end: Option<&str>,
    kwargs: Kwargs,
) -> Result<Value, Error> {
    let s = value.to_string();
    let s = value.as_str().unwrap_or(&s);
    let length = length.or(kwargs.get("length")?).unwrap_or(255);
    let killwords = killwords.or(kwargs.get("killwords")?);
    let end = end.or(kwargs.get("end")?).unwrap_or("...");
    // minijinja takes five parameters at most: `leeway` by keyword only.
    let leeway = kwargs.get::<Option<usize>>("leeway")?.unwrap_or(5);
    kwargs.assert_all_used()?;
    let end_len = end.chars().count();
    if length < end_len {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("truncate: expected length >= {end_len}, got {length}"),
        ));
    }
    if s.chars().count() <= length.saturating_add(leeway) {
        return Ok(Value::from(s));
    }
    let keep: String = s.chars().take(length - end_len).collect();
    let kept = if killwords.unwrap_or(false) {
        keep.as_str()
    } else {
        keep.rsplit_once(' ')
            .map_or(keep.as_str(), |(head, _)| head)
    };
    Ok(Value::from(format!("{kept}{end}")))
}

/// Jinja2's `wordcount`: the matches of Python's `\w+` (letters, digits and `_`).
pub(super) fn wordcount(value: &Value) -> Value {
    let s = value.to_string();
    let s = value.as_str().unwrap_or(&s);
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut count = 0;
    let mut in_word = false;
    for c in s.chars() {
        if word(c) && !in_word {
            count += 1;
        }
        in_word = word(c);
    }
    Value::from(count)
}

/// Jinja2's `trim`: `str.strip(chars)` of the value's `str()`.
pub(super) fn trim(state: &State, value: &Value, chars: Option<&str>) -> Result<Value, Error> {
    if let Some(s) = value.as_str() {
        return Ok(Value::from(strip(s, chars, Side::Both)));
    }
    let pay = fuel_of(state);
    let mut text = Meter::new(Some(&pay));
    write_str(&mut text, value)?;
    Ok(Value::from(strip(&text.finish()?, chars, Side::Both)))
}

/// `pprint` is Python's `pformat`, whose line breaks (at 80 columns, by its own rules) are
/// not reproduced here: an error naming it rather than another text.
pub(super) fn pprint(_value: &Value) -> Result<Value, Error> {
    Err(Error::new(
        ErrorKind::InvalidOperation,
        "the pprint filter is not supported in chat templates",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_reads_strings_as_python_does() {
        for (text, expected) in [
            (" 42 ", Value::from(42)),
            ("1_000", Value::from(1000)),
            ("-4.7", Value::from(-4)),
            ("1__0", Value::from(0)),
            ("abc", Value::from(0)),
            ("+7", Value::from(7)),
        ] {
            let got = int(
                &Value::from(text),
                None,
                None,
                Kwargs::from_iter(Vec::<(&str, Value)>::new()),
            )
            .unwrap();
            assert_eq!(got, expected, "{text:?}");
        }
    }
}
