//! Python's string semantics where a chat template can see them: which characters are
//! whitespace (for `strip`, `split`, `trim`), which end a line (`splitlines`), and how `str()`
//! and `repr()` print a value when a template writes it with `{{ }}`.
//!
//! Templates are written against Jinja2 on CPython; minijinja's defaults follow Rust instead
//! (`char::is_whitespace`, `str::lines`, `true` and `none`). The differences are small, and each
//! would make our prompt differ from the one `transformers` renders.

use minijinja::value::{Value, ValueKind};

/// `str.isspace()` for one character: Rust's `White_Space` plus the four ASCII information
/// separators U+001C..U+001F, which CPython counts as whitespace (their bidirectional class is
/// `B` or `S`).
pub(super) fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\u{1c}'..='\u{1f}').contains(&c)
}

/// `str.splitlines()`'s line boundaries.
fn is_line_break(c: char) -> bool {
    matches!(
        c,
        '\n' | '\r'
            | '\u{0b}'
            | '\u{0c}'
            | '\u{1c}'
            | '\u{1d}'
            | '\u{1e}'
            | '\u{85}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

/// Which end of a string `strip` works on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Side {
    Both,
    Start,
    End,
}

/// `str.strip(chars)`, `lstrip` and `rstrip`: `None` strips Python's whitespace.
pub(super) fn strip<'a>(s: &'a str, chars: Option<&str>, side: Side) -> &'a str {
    let remove = |c: char| match chars {
        Some(chars) => chars.contains(c),
        None => is_space(c),
    };
    match side {
        Side::Both => s.trim_matches(remove),
        Side::Start => s.trim_start_matches(remove),
        Side::End => s.trim_end_matches(remove),
    }
}

/// `str.split(sep, maxsplit)`.
///
/// # Errors
///
/// An empty separator, as Python raises `ValueError: empty separator`.
pub(super) fn split<'a>(
    s: &'a str,
    sep: Option<&str>,
    maxsplit: Option<i64>,
) -> Result<Vec<&'a str>, String> {
    let limit = match maxsplit {
        Some(n) if n >= 0 => usize::try_from(n).unwrap_or(usize::MAX),
        _ => usize::MAX,
    };
    match sep {
        Some("") => Err("empty separator".to_string()),
        Some(sep) => {
            let mut parts = Vec::new();
            let mut rest = s;
            while parts.len() < limit {
                match rest.find(sep) {
                    Some(at) => {
                        parts.push(&rest[..at]);
                        rest = &rest[at + sep.len()..];
                    }
                    None => break,
                }
            }
            parts.push(rest);
            Ok(parts)
        }
        None => {
            // Runs of whitespace separate; no empty strings; after `maxsplit` splits the rest
            // is kept with its leading whitespace removed.
            let mut parts = Vec::new();
            let mut rest = s.trim_start_matches(is_space);
            while !rest.is_empty() {
                if parts.len() == limit {
                    parts.push(rest);
                    break;
                }
                match rest.find(is_space) {
                    Some(at) => {
                        parts.push(&rest[..at]);
                        rest = rest[at..].trim_start_matches(is_space);
                    }
                    None => {
                        parts.push(rest);
                        break;
                    }
                }
            }
            Ok(parts)
        }
    }
}

/// `str.splitlines(keepends)`.
pub(super) fn splitlines(s: &str, keepends: bool) -> Vec<&str> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut chars = s.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if !is_line_break(c) {
            continue;
        }
        let mut end = at + c.len_utf8();
        if c == '\r' && chars.peek().is_some_and(|&(_, next)| next == '\n') {
            chars.next();
            end += 1;
        }
        lines.push(if keepends {
            &s[start..end]
        } else {
            &s[start..at]
        });
        start = end;
    }
    if start < s.len() {
        lines.push(&s[start..]);
    }
    lines
}

/// `str(value)` as Jinja2 writes a value into the output: `True`, `None`, `1.0`, and lists and
/// dicts in Python's `repr`. Undefined values write nothing.
pub(super) fn write_str(out: &mut String, value: &Value) {
    match value.kind() {
        ValueKind::Undefined => {}
        ValueKind::String => out.push_str(value.as_str().unwrap_or_default()),
        _ => write_repr(out, value),
    }
}

/// `repr(value)`, for values inside a printed list or dict.
fn write_repr(out: &mut String, value: &Value) {
    match value.kind() {
        ValueKind::Undefined | ValueKind::None => out.push_str("None"),
        ValueKind::Bool => out.push_str(if value.is_true() { "True" } else { "False" }),
        ValueKind::Number => match f64_of_float(value) {
            Some(float) => out.push_str(&float_repr(float)),
            None => out.push_str(&value.to_string()),
        },
        ValueKind::String => string_repr(out, value.as_str().unwrap_or_default()),
        ValueKind::Seq | ValueKind::Iterable => {
            out.push('[');
            if let Ok(items) = value.try_iter() {
                for (i, item) in items.enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write_repr(out, &item);
                }
            }
            out.push(']');
        }
        ValueKind::Map => {
            out.push('{');
            if let Ok(keys) = value.try_iter() {
                for (i, key) in keys.enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    write_repr(out, &key);
                    out.push_str(": ");
                    write_repr(out, &value.get_item(&key).unwrap_or_default());
                }
            }
            out.push('}');
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
fn string_repr(out: &mut String, s: &str) {
    let quote = if s.contains('\'') && !s.contains('"') {
        '"'
    } else {
        '\''
    };
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if !is_printable(c) => {
                let code = u32::from(c);
                if code < 0x100 {
                    out.push_str(&format!("\\x{code:02x}"));
                } else if code < 0x1_0000 {
                    out.push_str(&format!("\\u{code:04x}"));
                } else {
                    out.push_str(&format!("\\U{code:08x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push(quote);
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

    #[test]
    fn whitespace_is_pythons() {
        assert_eq!(strip("\u{1c} a \u{1f}\n", None, Side::Both), "a");
        assert_eq!(strip("xxaxx", Some("x"), Side::Start), "axx");
        assert_eq!(strip("\n\nabc\n", Some("\n"), Side::End), "\n\nabc");
        assert_eq!(
            split("  a  b\u{1d}c ", None, None).unwrap(),
            ["a", "b", "c"]
        );
        assert_eq!(split("a b  c", None, Some(1)).unwrap(), ["a", "b  c"]);
        assert_eq!(
            split("a</think>b</think>", Some("</think>"), None).unwrap(),
            ["a", "b", ""]
        );
        assert_eq!(split("", Some(","), None).unwrap(), [""]);
        assert!(split("", None, None).unwrap().is_empty());
        assert!(split("a", Some(""), None).is_err());
        assert_eq!(splitlines("a\r\nb\u{2028}c\n", false), ["a", "b", "c"]);
        assert_eq!(splitlines("a\r\nb\n\n", true), ["a\r\n", "b\n", "\n"]);
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
        let mut out = String::new();
        write_str(&mut out, &Value::from(true));
        write_str(&mut out, &Value::from(()));
        write_str(&mut out, &Value::UNDEFINED);
        write_str(
            &mut out,
            &Value::from(vec![Value::from("it's"), Value::from(1), Value::from(2.0)]),
        );
        assert_eq!(out, "TrueNone[\"it's\", 1, 2.0]");
        let mut out = String::new();
        write_str(&mut out, &Value::from(vec![Value::from("a\u{200b}\n'\"")]));
        assert_eq!(out, r#"['a\u200b\n\'"']"#);
    }
}
