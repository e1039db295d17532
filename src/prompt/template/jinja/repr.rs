//! How Jinja2 writes a value into the output: Python's `str()` of it, and `repr()` inside a
//! printed list, tuple or dict (`True`, `None`, `1.0`, `['a', 1]`, `(1,)`, `{'a': 1}`).
//!
//! minijinja's own formatter follows Rust (`true`, `none`, tuples as lists) and builds the
//! whole text before the output limit sees a byte; this one pays for the text as it grows
//! ([`Meter`]) and refuses a value nested more than [`MAX_DEPTH`] levels (a namespace that
//! holds itself is infinitely deep).

use minijinja::Error;
use minijinja::value::{Value, ValueKind};

use super::bounds::{MAX_DEPTH, Meter, too_deep};

/// `str(value)` as Jinja2 writes a value into the output: strings as they are, undefined
/// values as nothing, everything else as its `repr`.
///
/// # Errors
///
/// Out of fuel, or a value nested more than [`MAX_DEPTH`] levels.
pub(super) fn write_str(out: &mut Meter<'_>, value: &Value) -> Result<(), Error> {
    match value.kind() {
        ValueKind::Undefined => Ok(()),
        ValueKind::String => out.push_str(value.as_str().unwrap_or_default()),
        _ => write_repr(out, value, 0),
    }
}

/// `repr(value)`.
fn write_repr(out: &mut Meter<'_>, value: &Value, depth: usize) -> Result<(), Error> {
    if depth > MAX_DEPTH {
        return Err(too_deep("repr"));
    }
    match value.kind() {
        ValueKind::Undefined | ValueKind::None => out.push_str("None"),
        ValueKind::Bool => out.push_str(if value.is_true() { "True" } else { "False" }),
        ValueKind::Number => match f64_of_float(value) {
            Some(float) => out.push_str(&float_repr(float)),
            None => out.push_str(&value.to_string()),
        },
        ValueKind::String => string_repr(out, value.as_str().unwrap_or_default()),
        ValueKind::Seq | ValueKind::Iterable => {
            let tuple = value.is_tuple();
            out.push(if tuple { '(' } else { '[' })?;
            let mut count = 0;
            for item in value.try_iter()? {
                if count > 0 {
                    out.push_str(", ")?;
                }
                write_repr(out, &item, depth + 1)?;
                count += 1;
            }
            match (tuple, count) {
                (true, 1) => out.push_str(",)"),
                (true, _) => out.push(')'),
                (false, _) => out.push(']'),
            }
        }
        ValueKind::Map => {
            out.push('{')?;
            for (i, key) in value.try_iter()?.enumerate() {
                if i > 0 {
                    out.push_str(", ")?;
                }
                write_repr(out, &key, depth + 1)?;
                out.push_str(": ")?;
                write_repr(out, &value.get_item(&key).unwrap_or_default(), depth + 1)?;
            }
            out.push('}')
        }
        _ => out.push_str(&value.to_string()),
    }
}

/// The value as a float if it is one (not an integer).
pub(super) fn f64_of_float(value: &Value) -> Option<f64> {
    if value.is_integer() {
        return None;
    }
    f64::try_from(value.clone()).ok()
}

/// `repr(float)`: the shortest digits that read back as the same float, in fixed notation
/// when the exponent is in -4..16 (always with a decimal point), else as `1e+16`, `1.5e-05`.
pub(super) fn float_repr(x: f64) -> String {
    if x.is_nan() {
        return "nan".to_string();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf" } else { "-inf" }.to_string();
    }
    // Rust's `{:e}` gives the shortest round-trip digits: "-1.2345e-7".
    let scientific = format!("{x:e}");
    let (mantissa, exponent) = scientific.split_once('e').unwrap_or((&scientific, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    if (-4..16).contains(&exponent) {
        let point = exponent + 1;
        let body = if point <= 0 {
            let zeros = usize::try_from(-point).unwrap_or(0);
            format!("0.{}{digits}", "0".repeat(zeros))
        } else {
            let point = usize::try_from(point).unwrap_or(0);
            if digits.len() <= point {
                format!("{digits}{}.0", "0".repeat(point - digits.len()))
            } else {
                format!("{}.{}", &digits[..point], &digits[point..])
            }
        };
        format!("{sign}{body}")
    } else {
        let (first, rest) = digits.split_at(1);
        let fraction = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let exp_sign = if exponent < 0 { '-' } else { '+' };
        format!("{sign}{first}{fraction}e{exp_sign}{:02}", exponent.abs())
    }
}

/// `repr(str)`: single quotes unless the text holds a single quote and no double quote;
/// backslashes, the quote, `\n`, `\r`, `\t` and unprintable characters escaped.
fn string_repr(out: &mut Meter<'_>, s: &str) -> Result<(), Error> {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote)?;
    // Runs of characters written as they are go in one piece.
    let mut plain = 0;
    for (at, c) in s.char_indices() {
        let escaped = match c {
            '\\' => "\\\\".to_string(),
            '\n' => "\\n".to_string(),
            '\r' => "\\r".to_string(),
            '\t' => "\\t".to_string(),
            c if c == quote => format!("\\{c}"),
            c if !is_printable(c) => {
                let code = u32::from(c);
                if code < 0x100 {
                    format!("\\x{code:02x}")
                } else if code < 0x1_0000 {
                    format!("\\u{code:04x}")
                } else {
                    format!("\\U{code:08x}")
                }
            }
            _ => continue,
        };
        out.push_str(&s[plain..at])?;
        out.push_str(&escaped)?;
        plain = at + c.len_utf8();
    }
    out.push_str(&s[plain..])?;
    out.push(quote)
}

/// `str.isprintable()` for the characters a chat's text holds: controls, separators other
/// than the space, and the common format characters are not printable. (CPython also counts
/// unassigned and private-use code points as unprintable; they are written as they are here.)
fn is_printable(c: char) -> bool {
    if c == ' ' {
        return true;
    }
    if c.is_control() || c.is_whitespace() {
        return false;
    }
    !matches!(
        c,
        '\u{ad}'
            | '\u{600}'..='\u{605}'
            | '\u{61c}'
            | '\u{6dd}'
            | '\u{70f}'
            | '\u{180e}'
            | '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2064}'
            | '\u{2066}'..='\u{206f}'
            | '\u{feff}'
            | '\u{fff9}'..='\u{fffb}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(value: &Value) -> String {
        let mut out = Meter::new(None);
        write_str(&mut out, value).unwrap();
        out.finish().unwrap()
    }

    #[test]
    fn floats_print_as_python_repr_prints_them() {
        for (x, expected) in [
            (1.0, "1.0"),
            (0.1, "0.1"),
            (-0.0, "-0.0"),
            (1e16, "1e+16"),
            (1.5e-5, "1.5e-05"),
            (0.0001, "0.0001"),
            (123_456.789, "123456.789"),
            (1e15, "1000000000000000.0"),
            (2.5e-300, "2.5e-300"),
            (f64::INFINITY, "inf"),
        ] {
            assert_eq!(float_repr(x), expected, "{x}");
        }
    }

    #[test]
    fn values_print_as_jinja2_prints_them() {
        let out: String = [
            Value::from(true),
            Value::from(()),
            Value::UNDEFINED,
            Value::from(vec![Value::from("it's"), Value::from(1), Value::from(2.0)]),
        ]
        .iter()
        .map(text)
        .collect();
        assert_eq!(out, "TrueNone[\"it's\", 1, 2.0]");
        assert_eq!(
            text(&Value::from(vec![Value::from("a\u{200b}\n'\"")])),
            r#"['a\u200b\n\'"']"#
        );
    }

    /// A value one level under the bound prints; one at the bound is refused, naming it.
    #[test]
    fn repr_refuses_a_value_nested_past_the_bound() {
        let deep = |levels: usize| (0..levels).fold(Value::from(1), |v, _| Value::from(vec![v]));
        assert!(text(&deep(MAX_DEPTH)).starts_with("[[["));
        let mut out = Meter::new(None);
        let err = write_str(&mut out, &deep(MAX_DEPTH + 1)).unwrap_err();
        assert!(
            err.to_string().contains("nested more than 256 levels"),
            "{err}"
        );
    }
}
