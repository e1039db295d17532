//! Python's `str` methods that `minijinja-contrib`'s pycompat lacks or answers as Rust would:
//! `title` and `istitle` (a word is a run of cased characters, so `"x1y".title()` is `X1Y`),
//! `swapcase`, `isalpha` and `isalnum` (letters are the `L` categories, so `Ⅻ` is no letter),
//! `rsplit`, `index`, `rindex`, `zfill`, `center`, `ljust`, `rjust`.
//!
//! Padding methods pay for their width in fuel before they allocate it: `'x'.center(10**12)`
//! is out of fuel, not a terabyte.

use std::sync::LazyLock;

use minijinja::value::{Value, from_args};
use minijinja::{Error, ErrorKind, State};
use regex_automata::meta::Regex;

use super::bounds::BYTES_PER_FUEL;
use super::python::is_space;

/// Python's `str.isalpha()`: every character in a letter category (`Lu`, `Ll`, `Lt`, `Lm`,
/// `Lo`).
static LETTERS: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"\A\p{L}+\z").ok());

/// A letter, as `isalpha` counts one.
fn is_letter(c: char) -> bool {
    LETTERS
        .as_ref()
        .is_some_and(|letters| letters.is_match(c.encode_utf8(&mut [0; 4]) as &str))
}

/// Python's `str.isdigit()` for one character: decimal digits (`Nd`) and the digits of
/// `Numeric_Type=Digit` (superscripts, subscripts, circled and parenthesized digits), not
/// other numerals (`Ⅻ`, `½`).
fn is_digit(c: char) -> bool {
    DECIMALS
        .as_ref()
        .is_some_and(|decimals| decimals.is_match(c.encode_utf8(&mut [0; 4]) as &str))
        || matches!(c, '\u{b2}' | '\u{b3}' | '\u{b9}' | '\u{2070}' | '\u{2074}'..='\u{2079}' | '\u{2080}'..='\u{2089}' | '\u{2460}'..='\u{2468}' | '\u{2474}'..='\u{247c}' | '\u{2488}'..='\u{2490}' | '\u{24ea}' | '\u{24f5}'..='\u{24fd}' | '\u{24ff}' | '\u{2776}'..='\u{277e}' | '\u{2780}'..='\u{2788}' | '\u{278a}'..='\u{2792}' | '\u{1369}'..='\u{1371}' | '\u{1f100}'..='\u{1f10a}')
}

/// Decimal digits (`Nd`), Python's `str.isdecimal()`.
static DECIMALS: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"\A\p{Nd}+\z").ok());

/// The titlecase letters (`Lt`), which Rust's `char` has no test for.
fn is_titlecase(c: char) -> bool {
    matches!(c, '\u{1c5}' | '\u{1c8}' | '\u{1cb}' | '\u{1f2}' | '\u{1f88}'..='\u{1f8f}' | '\u{1f98}'..='\u{1f9f}' | '\u{1fa8}'..='\u{1faf}' | '\u{1fbc}' | '\u{1fcc}' | '\u{1ffc}')
}

/// Python's "cased": uppercase, lowercase or titlecase.
fn is_cased(c: char) -> bool {
    c.is_uppercase() || c.is_lowercase() || is_titlecase(c)
}

/// Python's titlecase mapping: the digraphs have their own; otherwise the uppercase's first
/// character and the rest lowercased (`ß` is `Ss`, `ﬁ` is `Fi`).
fn push_title(out: &mut String, c: char) {
    let digraph = match c {
        '\u{1c4}'..='\u{1c6}' => Some('\u{1c5}'),
        '\u{1c7}'..='\u{1c9}' => Some('\u{1c8}'),
        '\u{1ca}'..='\u{1cc}' => Some('\u{1cb}'),
        '\u{1f1}'..='\u{1f3}' => Some('\u{1f2}'),
        _ => None,
    };
    if let Some(title) = digraph {
        out.push(title);
        return;
    }
    for (i, upper) in c.to_uppercase().enumerate() {
        if i == 0 {
            out.push(upper);
        } else {
            out.extend(upper.to_lowercase());
        }
    }
}

/// `str.title()`.
pub(super) fn title(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut previous_cased = false;
    for c in s.chars() {
        if previous_cased {
            out.extend(c.to_lowercase());
        } else {
            push_title(&mut out, c);
        }
        previous_cased = is_cased(c);
    }
    out
}

/// `str.istitle()`.
pub(super) fn istitle(s: &str) -> bool {
    let mut cased = false;
    let mut previous_cased = false;
    for c in s.chars() {
        if c.is_uppercase() || is_titlecase(c) {
            if previous_cased {
                return false;
            }
            previous_cased = true;
            cased = true;
        } else if c.is_lowercase() {
            if !previous_cased {
                return false;
            }
            previous_cased = true;
            cased = true;
        } else {
            previous_cased = false;
        }
    }
    cased
}

/// `str.swapcase()`.
pub(super) fn swapcase(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c.is_uppercase() {
            out.extend(c.to_lowercase());
        } else if c.is_lowercase() {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// `str.rsplit(sep, maxsplit)`.
///
/// # Errors
///
/// An empty separator, as Python raises `ValueError: empty separator`.
pub(super) fn rsplit<'a>(
    s: &'a str,
    sep: Option<&str>,
    maxsplit: Option<i64>,
) -> Result<Vec<&'a str>, String> {
    let limit = super::python::split_limit(maxsplit);
    let mut parts = Vec::new();
    match sep {
        Some("") => return Err("empty separator".to_string()),
        Some(sep) => {
            let mut rest = s;
            while parts.len() < limit {
                match rest.rfind(sep) {
                    Some(at) => {
                        parts.push(&rest[at + sep.len()..]);
                        rest = &rest[..at];
                    }
                    None => break,
                }
            }
            parts.push(rest);
        }
        None => {
            let mut rest = s.trim_end_matches(is_space);
            while !rest.is_empty() {
                if parts.len() == limit {
                    parts.push(rest);
                    break;
                }
                match rest.rfind(is_space) {
                    Some(at) => {
                        let space = rest[at..].chars().next().map_or(1, char::len_utf8);
                        parts.push(&rest[at + space..]);
                        rest = rest[..at].trim_end_matches(is_space);
                    }
                    None => {
                        parts.push(rest);
                        break;
                    }
                }
            }
        }
    }
    parts.reverse();
    Ok(parts)
}

/// Python's slice bounds `[start:end]` in characters, as byte offsets of `s`.
fn char_range(s: &str, start: Option<i64>, end: Option<i64>) -> (usize, usize) {
    let len = i64::try_from(s.chars().count()).unwrap_or(i64::MAX);
    let clamp = |i: i64| if i < 0 { (len + i).max(0) } else { i.min(len) };
    let start = clamp(start.unwrap_or(0));
    let end = clamp(end.unwrap_or(len));
    let byte = |chars: i64| {
        s.char_indices()
            .nth(usize::try_from(chars).unwrap_or(0))
            .map_or(s.len(), |(at, _)| at)
    };
    (byte(start), byte(end).max(byte(start)))
}

/// `str.index(sub, start, end)` and `rindex`: the character offset, or Python's `ValueError`.
fn index(s: &str, args: &[Value], from_end: bool) -> Result<Value, Error> {
    let (sub, start, end): (&str, Option<i64>, Option<i64>) = from_args(args)?;
    let (from, to) = char_range(s, start, end);
    let window = &s[from..to];
    let found = if from_end {
        window.rfind(sub)
    } else {
        window.find(sub)
    };
    match found {
        Some(at) => Ok(Value::from(s[..from + at].chars().count())),
        None => Err(Error::new(
            ErrorKind::InvalidOperation,
            "substring not found",
        )),
    }
}

/// Pays for `width` characters of padding (at most four bytes each) before they exist.
fn pay_width(state: &State, width: usize) -> Result<(), Error> {
    let bytes = width.saturating_mul(4);
    state.consume_fuel(u64::try_from(bytes / BYTES_PER_FUEL).unwrap_or(u64::MAX))
}

/// `center`, `ljust`, `rjust`: `s` in `width` characters, padded with `fill`.
fn pad(state: &State, s: &str, args: &[Value], method: &str) -> Result<Value, Error> {
    let (width, fill): (i64, Option<&str>) = from_args(args)?;
    let mut fill_chars = fill.unwrap_or(" ").chars();
    let (Some(fill), None) = (fill_chars.next(), fill_chars.next()) else {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            format!("{method}: the fill character must be exactly one character long"),
        ));
    };
    let len = s.chars().count();
    let width = usize::try_from(width).unwrap_or(0);
    if width <= len {
        return Ok(Value::from(s));
    }
    pay_width(state, width)?;
    let margin = width - len;
    let left = match method {
        // CPython's rule: the odd character goes left when the width is odd.
        "center" => margin / 2 + (margin & width & 1),
        "rjust" => margin,
        _ => 0,
    };
    let mut out = String::with_capacity(s.len() + margin * fill.len_utf8());
    out.extend(std::iter::repeat_n(fill, left));
    out.push_str(s);
    out.extend(std::iter::repeat_n(fill, margin - left));
    Ok(Value::from(out))
}

/// `str.zfill(width)`: zeros after the sign.
fn zfill(state: &State, s: &str, args: &[Value]) -> Result<Value, Error> {
    let (width,): (i64,) = from_args(args)?;
    let len = s.chars().count();
    let width = usize::try_from(width).unwrap_or(0);
    if width <= len {
        return Ok(Value::from(s));
    }
    pay_width(state, width)?;
    let (sign, digits) = match s.strip_prefix(['+', '-']) {
        Some(rest) => (&s[..1], rest),
        None => ("", s),
    };
    Ok(Value::from(format!(
        "{sign}{}{digits}",
        "0".repeat(width - len)
    )))
}

/// The methods of this file, or `None` for a method it does not answer.
pub(super) fn call(
    state: &State,
    s: &str,
    method: &str,
    args: &[Value],
) -> Option<Result<Value, Error>> {
    let no_args = |answer: Value| from_args::<()>(args).map(|()| answer);
    Some(match method {
        "title" => no_args(Value::from(title(s))),
        "istitle" => no_args(Value::from(istitle(s))),
        "swapcase" => no_args(Value::from(swapcase(s))),
        "isalpha" => no_args(Value::from(!s.is_empty() && s.chars().all(is_letter))),
        "isalnum" => no_args(Value::from(
            !s.is_empty() && s.chars().all(|c| is_letter(c) || c.is_numeric()),
        )),
        "isdigit" => no_args(Value::from(!s.is_empty() && s.chars().all(is_digit))),
        "isdecimal" => no_args(Value::from(
            !s.is_empty()
                && DECIMALS
                    .as_ref()
                    .is_some_and(|decimals| decimals.is_match(s)),
        )),
        "rsplit" => from_args::<(Option<&str>, Option<i64>)>(args).and_then(|(sep, maxsplit)| {
            rsplit(s, sep, maxsplit)
                .map(|parts| parts.into_iter().map(Value::from).collect())
                .map_err(|problem| Error::new(ErrorKind::InvalidOperation, problem))
        }),
        "index" => index(s, args, false),
        "rindex" => index(s, args, true),
        "center" | "ljust" | "rjust" => pad(state, s, args, method),
        "zfill" => zfill(state, s, args),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cased_runs_make_words() {
        assert_eq!(title("x1y hello_wORLD ǆx ß"), "X1Y Hello_World ǅx Ss");
        assert!(istitle("Hello World 1A"));
        assert!(!istitle("Hello world"));
        assert!(!istitle("123"));
        assert_eq!(swapcase("aBc ß"), "AbC SS");
        assert!(!is_letter('Ⅻ'));
        assert!(is_letter('é'));
        assert_eq!(rsplit("a b  c ", None, Some(1)).unwrap(), ["a b", "c"]);
        assert_eq!(rsplit("a,b,c", Some(","), Some(1)).unwrap(), ["a,b", "c"]);
        assert_eq!(rsplit("", None, None).unwrap(), Vec::<&str>::new());
    }
}
