//! The `tojson` filter as `transformers` gives it to chat templates: Python's
//! `json.dumps(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False)`.
//!
//! That is not minijinja's `tojson` (compact, with `<`, `>`, `&` and `'` escaped for HTML), nor
//! `serde_json`'s: Python separates with `", "` and `": "`, keeps non-ASCII text as it is, writes
//! floats as `repr` does (`1.0`, `1e+16`) and keeps a dict's keys in insertion order. A tool
//! call's arguments written another way tokenize differently, so the count would be wrong.

use minijinja::value::{Kwargs, Value, ValueKind};
use minijinja::{Error, ErrorKind, State};

use super::bounds::{BYTES_PER_FUEL, MAX_DEPTH, Meter, Pay, fuel_of, too_deep};
use super::repr::{f64_of_float, float_repr};

/// How `json.dumps` was asked to write.
struct Style {
    indent: Option<String>,
    item_separator: String,
    key_separator: String,
    sort_keys: bool,
    ensure_ascii: bool,
}

/// The filter: `value | tojson`, `tojson(indent=2)`, `tojson(separators=(",", ":"))`, ...
#[allow(clippy::needless_pass_by_value)] // minijinja hands filters their keyword arguments by value
pub(super) fn tojson_filter(state: &State, value: &Value, kwargs: Kwargs) -> Result<Value, Error> {
    tojson(value, &kwargs, Some(&fuel_of(state)))
}

/// `json.dumps(value, **kwargs)`, its text paid through `pay`.
pub(super) fn tojson(value: &Value, kwargs: &Kwargs, pay: Option<Pay<'_>>) -> Result<Value, Error> {
    let indent: Option<Value> = kwargs.get("indent")?;
    let separators: Option<Value> = kwargs.get("separators")?;
    let sort_keys: Option<bool> = kwargs.get("sort_keys")?;
    let ensure_ascii: Option<bool> = kwargs.get("ensure_ascii")?;
    kwargs.assert_all_used()?;
    // minijinja hands `none` (and a missing keyword) over as `None`, as Python's default.
    let indent = match indent {
        None => None,
        Some(v) if v.kind() == ValueKind::String => {
            Some(v.as_str().unwrap_or_default().to_string())
        }
        Some(v) => {
            let n =
                i64::try_from(v).map_err(|_| invalid("indent must be an integer or a string"))?;
            // Any width, as Python writes it; paid for before it is allocated.
            let n = usize::try_from(n).unwrap_or(0);
            if let Some(pay) = pay {
                pay(u64::try_from(n / BYTES_PER_FUEL).unwrap_or(u64::MAX))?;
            }
            Some(" ".repeat(n))
        }
    };
    let (item_separator, key_separator) = match separators {
        Some(v) => {
            let items: Vec<Value> = v
                .try_iter()
                .map_err(|_| invalid("separators must be a pair of strings"))?
                .collect();
            match items.as_slice() {
                [item, key] if item.as_str().is_some() && key.as_str().is_some() => (
                    item.as_str().unwrap_or_default().to_string(),
                    key.as_str().unwrap_or_default().to_string(),
                ),
                _ => return Err(invalid("separators must be a pair of strings")),
            }
        }
        // Python's defaults: no spaces at line ends when indenting.
        _ if indent.is_some() => (",".to_string(), ": ".to_string()),
        _ => (", ".to_string(), ": ".to_string()),
    };
    let style = Style {
        indent,
        item_separator,
        key_separator,
        sort_keys: sort_keys.unwrap_or(false),
        ensure_ascii: ensure_ascii.unwrap_or(false),
    };
    let mut out = Meter::new(pay);
    write(&mut out, value, &style, 0)?;
    Ok(Value::from(out.finish()?))
}

/// `json.dumps(value, ensure_ascii=False)` for the code that writes JSON as Python would
/// outside a template (Mistral's tool calls and results, as `mistral-common` writes them).
///
/// # Errors
///
/// A value JSON cannot hold, or one nested deeper than the bound.
pub(crate) fn dumps(value: &Value) -> Result<String, String> {
    let style = Style {
        indent: None,
        item_separator: ", ".to_string(),
        key_separator: ": ".to_string(),
        sort_keys: false,
        ensure_ascii: false,
    };
    let mut out = Meter::new(None);
    write(&mut out, value, &style, 0).map_err(|e| e.to_string())?;
    out.finish().map_err(|e| e.to_string())
}

fn invalid(message: &str) -> Error {
    Error::new(ErrorKind::InvalidOperation, format!("tojson: {message}"))
}

fn write(out: &mut Meter<'_>, value: &Value, style: &Style, depth: usize) -> Result<(), Error> {
    if depth > MAX_DEPTH {
        return Err(too_deep("tojson"));
    }
    match value.kind() {
        ValueKind::None => out.push_str("null"),
        ValueKind::Bool => out.push_str(if value.is_true() { "true" } else { "false" }),
        ValueKind::Number => match f64_of_float(value) {
            Some(x) if x.is_nan() => out.push_str("NaN"),
            Some(x) if x.is_infinite() => out.push_str(if x.is_sign_positive() {
                "Infinity"
            } else {
                "-Infinity"
            }),
            Some(x) => out.push_str(&float_repr(x)),
            None => out.push_str(&value.to_string()),
        },
        ValueKind::String => {
            write_string(out, value.as_str().unwrap_or_default(), style.ensure_ascii)
        }
        ValueKind::Seq | ValueKind::Iterable => {
            // Item by item: a repeated list is lazy, and collecting it would allocate before
            // anything is paid.
            let mut items = Container::open(out, style, depth, '[')?;
            for item in value.try_iter()? {
                items.item(out)?;
                write(out, &item, style, depth + 1)?;
            }
            items.close(out, ']')
        }
        ValueKind::Map => {
            let mut keys: Vec<Value> = value.try_iter()?.collect();
            if style.sort_keys {
                keys.sort_by_cached_key(ToString::to_string);
            }
            let mut entries = Container::open(out, style, depth, '{')?;
            for key in &keys {
                entries.item(out)?;
                write_key(out, key, style)?;
                out.push_str(&style.key_separator)?;
                write(out, &value.get_item(key)?, style, depth + 1)?;
            }
            entries.close(out, '}')
        }
        kind => Err(invalid(&format!(
            "a value of type {kind} is not JSON serializable"
        ))),
    }
}

/// A list or dict being written: its separators and, with `indent`, its lines.
struct Container<'s> {
    style: &'s Style,
    depth: usize,
    items: usize,
}

impl<'s> Container<'s> {
    fn open(
        out: &mut Meter<'_>,
        style: &'s Style,
        depth: usize,
        open: char,
    ) -> Result<Container<'s>, Error> {
        out.push(open)?;
        Ok(Container {
            style,
            depth,
            items: 0,
        })
    }

    /// Before each item: the separator, then the new line and its indent.
    fn item(&mut self, out: &mut Meter<'_>) -> Result<(), Error> {
        if self.items > 0 {
            out.push_str(&self.style.item_separator)?;
        }
        self.items += 1;
        self.new_line(out, self.depth + 1)
    }

    fn new_line(&self, out: &mut Meter<'_>, depth: usize) -> Result<(), Error> {
        if let Some(indent) = &self.style.indent {
            out.push('\n')?;
            for _ in 0..depth {
                out.push_str(indent)?;
            }
        }
        Ok(())
    }

    fn close(self, out: &mut Meter<'_>, close: char) -> Result<(), Error> {
        if self.items > 0 {
            self.new_line(out, self.depth)?;
        }
        out.push(close)
    }
}

/// Keys as Python writes them: strings as they are; `True`, `None` and numbers as their JSON
/// text in quotes.
fn write_key(out: &mut Meter<'_>, key: &Value, style: &Style) -> Result<(), Error> {
    match key.kind() {
        ValueKind::String => {
            write_string(out, key.as_str().unwrap_or_default(), style.ensure_ascii)?;
        }
        ValueKind::None | ValueKind::Bool | ValueKind::Number => {
            let mut text = Meter::new(None);
            write(&mut text, key, style, 0)?;
            write_string(out, &text.finish()?, style.ensure_ascii)?;
        }
        kind => {
            return Err(invalid(&format!(
                "keys must be str, int, float, bool or None, not {kind}"
            )));
        }
    }
    Ok(())
}

/// A JSON string as Python writes it: `"` and `\` escaped, `\n`, `\r`, `\t`, `\b`, `\f` by
/// name, other controls below U+0020 as `\u00XX`; everything else as it is, unless
/// `ensure_ascii` asks for `\uXXXX` (surrogate pairs above U+FFFF).
fn write_string(out: &mut Meter<'_>, s: &str, ensure_ascii: bool) -> Result<(), Error> {
    out.push('"')?;
    let mut plain = 0;
    for (at, c) in s.char_indices() {
        let mut escaped = String::new();
        match c {
            '"' => escaped.push_str("\\\""),
            '\\' => escaped.push_str("\\\\"),
            '\n' => escaped.push_str("\\n"),
            '\r' => escaped.push_str("\\r"),
            '\t' => escaped.push_str("\\t"),
            '\u{8}' => escaped.push_str("\\b"),
            '\u{c}' => escaped.push_str("\\f"),
            c if u32::from(c) < 0x20 => escaped.push_str(&format!("\\u{:04x}", u32::from(c))),
            c if ensure_ascii && !c.is_ascii() => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    escaped.push_str(&format!("\\u{unit:04x}"));
                }
            }
            _ => continue,
        }
        out.push_str(&s[plain..at])?;
        out.push_str(&escaped)?;
        plain = at + c.len_utf8();
    }
    out.push_str(&s[plain..])?;
    out.push('"')
}
