//! Python's string semantics where a chat template can see them: which characters are
//! whitespace (for `strip`, `split`, `trim`), which end a line (`splitlines`), and how `str()`
//! and `repr()` print a value when a template writes it with `{{ }}`.
//!
//! Templates are written against Jinja2 on CPython; minijinja's defaults follow Rust instead
//! (`char::is_whitespace`, `str::lines`, `true` and `none`). The differences are small, and each
//! would make our prompt differ from the one `transformers` renders.

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

/// How many splits Python's `maxsplit` allows: a negative or missing one, all of them.
pub(super) fn split_limit(maxsplit: Option<i64>) -> usize {
    match maxsplit {
        Some(n) if n >= 0 => usize::try_from(n).unwrap_or(usize::MAX),
        _ => usize::MAX,
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
    let limit = split_limit(maxsplit);
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
}
