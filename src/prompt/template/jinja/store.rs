//! What `{% set ns.attr = value %}` may store: a namespace is the only value a template can
//! change, so it is the only way to carry a value from one loop iteration to the next, and
//! the only way to make a cycle (`{% set ns.me = ns %}`). minijinja walks values recursively
//! when it prints (`~`), compares or drops them, and a cycle or a value nested level by level
//! over a long loop would overflow any stack.
//!
//! So the template's source is rewritten: `{% set ns.attr = EXPR %}` becomes
//! `{% set ns.attr = __mentor_store((EXPR)) %}`, and [`store`] checks what EXPR gave before
//! it is stored: nested at most [`MAX_DEPTH`] levels, and holding no namespace. (Jinja2 allows
//! a namespace in a namespace; no chat template stores one, and a clear error is better than
//! an abort.) The walk pays one fuel per item it visits.

use minijinja::value::{Value, ValueKind};
use minijinja::{Error, ErrorKind, State};

use super::bounds::{MAX_DEPTH, too_deep};

/// The function the rewritten `set` calls.
pub(super) const STORE: &str = "__mentor_store";

/// Rewrites every `{% set NAME.ATTR = EXPR %}` to pass EXPR through [`STORE`]. Text,
/// comments, `{% raw %}` blocks, string literals and every other tag are left as they are.
pub(super) fn rewrite_namespace_sets(source: &str) -> String {
    let mut out = String::with_capacity(source.len());
    let mut rest = source;
    while let Some(at) = rest.find('{') {
        out.push_str(&rest[..at]);
        let tag = &rest[at..];
        let end = if tag.starts_with("{#") {
            tag.find("#}").map_or(tag.len(), |end| end + 2)
        } else if tag.starts_with("{{") {
            tag_end(tag, "}}")
        } else if tag.starts_with("{%") {
            if let Some((head, expr, tail)) = namespace_set(tag) {
                out.push_str(head);
                out.push_str(STORE);
                out.push_str("((");
                out.push_str(expr);
                out.push_str("))");
                out.push_str(tail);
                rest = &tag[head.len() + expr.len() + tail.len()..];
                continue;
            }
            let end = tag_end(tag, "%}");
            if tag_name(&tag[..end]) == Some("raw") {
                raw_end(tag, end)
            } else {
                end
            }
        } else {
            1
        };
        out.push_str(&tag[..end]);
        rest = &tag[end..];
    }
    out.push_str(rest);
    out
}

/// The inside of a whole `{% ... %}` tag, its whitespace control and spaces trimmed.
fn tag_name(tag: &str) -> Option<&str> {
    let inner = tag.strip_prefix("{%")?.strip_suffix("%}")?;
    Some(inner.trim_matches(['-', '+']).trim())
}

/// Where a `{% raw %}` block that opened at the start of `tag`, its tag `opening` bytes long,
/// ends: after its `{% endraw %}` tag (the word alone inside the block is text), or at the end
/// of the source.
fn raw_end(tag: &str, opening: usize) -> usize {
    let mut from = opening;
    while let Some(at) = tag[from..].find("{%").map(|at| from + at) {
        let close = tag[at..].find("%}").map_or(tag.len(), |end| at + end + 2);
        if tag_name(&tag[at..close]) == Some("endraw") {
            return close;
        }
        from = at + 2;
    }
    tag.len()
}

/// Where a tag opened at the start of `tag` ends: after the first `close` outside a string
/// literal, or at the end of the source.
fn tag_end(tag: &str, close: &str) -> usize {
    outside_strings(tag, 2, close).map_or(tag.len(), |at| at + close.len())
}

/// The first `close` in `text` from byte `from` on that is outside a string literal.
fn outside_strings(text: &str, from: usize, close: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut quote = None;
    let mut j = from;
    while j < bytes.len() {
        let b = bytes[j];
        match quote {
            Some(_) if b == b'\\' => j += 1,
            Some(q) if b == q => quote = None,
            Some(_) => {}
            None if b == b'\'' || b == b'"' => quote = Some(b),
            None if bytes[j..].starts_with(close.as_bytes()) => return Some(j),
            None => {}
        }
        j += 1;
    }
    None
}

/// For a tag starting `{% set a.b =`, its head (through `=`), expression and closing
/// (`-%}`, `%}`, with the whitespace before it).
fn namespace_set(tag: &str) -> Option<(&str, &str, &str)> {
    let mut i = 2;
    let bytes = tag.as_bytes();
    if matches!(bytes.get(i), Some(b'-' | b'+')) {
        i += 1;
    }
    let skip_space = |mut i: usize| {
        while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
            i += 1;
        }
        i
    };
    let ident = |mut i: usize| {
        let start = i;
        while bytes
            .get(i)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            i += 1;
        }
        (i > start).then_some(i)
    };
    i = skip_space(i);
    i = tag[i..].starts_with("set").then_some(i + 3)?;
    let after_set = i;
    i = skip_space(i);
    if i == after_set {
        return None;
    }
    i = ident(i)?;
    i = skip_space(i);
    i = (bytes.get(i) == Some(&b'.')).then_some(i + 1)?;
    i = skip_space(i);
    i = ident(i)?;
    i = skip_space(i);
    i = (bytes.get(i) == Some(&b'=') && bytes.get(i + 1) != Some(&b'=')).then_some(i + 1)?;
    let head = &tag[..i];
    // The expression ends at the first `%}` outside a string literal.
    let j = outside_strings(tag, i, "%}")?;
    let mut end = j;
    if end > i && matches!(bytes[end - 1], b'-' | b'+') {
        end -= 1;
    }
    let expr = tag[i..end].trim_end();
    let tail_start = i + expr.len();
    (!expr.trim().is_empty()).then(|| (head, expr, &tag[tail_start..j + 2]))
}

/// The function: `value`, if it may be stored.
///
/// # Errors
///
/// A value nested more than [`MAX_DEPTH`] levels, one holding a namespace, or out of fuel.
pub(super) fn store(state: &State, value: Value) -> Result<Value, Error> {
    check(state, &value, 0)?;
    Ok(value)
}

fn check(state: &State, value: &Value, depth: usize) -> Result<(), Error> {
    if depth > MAX_DEPTH {
        return Err(too_deep("set"));
    }
    match value.kind() {
        ValueKind::Seq | ValueKind::Iterable => {
            for item in value.try_iter()? {
                state.consume_fuel(1)?;
                check(state, &item, depth + 1)?;
            }
        }
        ValueKind::Map => {
            if !is_plain_map(value) {
                return Err(Error::new(
                    ErrorKind::InvalidOperation,
                    "set: a namespace (or another object) cannot be stored in a namespace",
                ));
            }
            for key in value.try_iter()? {
                state.consume_fuel(1)?;
                check(state, &value.get_item(&key)?, depth + 1)?;
            }
        }
        _ => {}
    }
    Ok(())
}

/// A dict literal or a message, not a namespace: minijinja's own map type.
fn is_plain_map(value: &Value) -> bool {
    value
        .downcast_object_ref::<indexmap::IndexMap<Value, Value>>()
        .is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_namespace_sets_are_rewritten() {
        assert_eq!(
            rewrite_namespace_sets("{%- set ns.a = x ~ '%}' -%}{% set b = 1 %}{%set ns.c=[1, 2]%}"),
            "{%- set ns.a =__mentor_store(( x ~ '%}')) -%}{% set b = 1 %}{%set ns.c=__mentor_store(([1, 2]))%}"
        );
        assert_eq!(
            rewrite_namespace_sets("{% set ns.a %}x{% endset %}"),
            "{% set ns.a %}x{% endset %}"
        );
        assert_eq!(
            rewrite_namespace_sets("{% settle ns.a = 1 %}"),
            "{% settle ns.a = 1 %}"
        );
        // A comparison, or a name left out, is no assignment: the template's own syntax
        // error, not one naming ours.
        for text in [
            "{% set ns.a == 1 %}",
            "{% set ns. = 1 %}",
            "{% set .a = 1 %}",
        ] {
            assert_eq!(rewrite_namespace_sets(text), text);
        }
        assert_eq!(
            rewrite_namespace_sets("{% set ns.a = 'x"),
            "{% set ns.a = 'x"
        );
        // Bytes are scanned, never a slice inside a character.
        assert_eq!(
            rewrite_namespace_sets("{% set ns.a = € %}"),
            "{% set ns.a =__mentor_store(( €)) %}"
        );
        // Comments, raw blocks and string literals hold text, not tags.
        for text in [
            "{# {% set ns.a = 1 %} #}",
            "{# {% set ns.a = it's %} #}{% set b = 1 %}",
            "{% raw %}{% set ns.a = 1 %}{% endraw %}",
            "{% raw %}endraw {% set ns.a = 1 %}{%- endraw -%}",
            "{%- raw +%}{% endraw{% set ns.a = 1 %}",
            "{{ '{% set ns.a = 1 %}' }}",
            "{% if x == '{% set ns.a = 1 %}' %}{% endif %}",
            "{%€",
            "{{ '€",
        ] {
            assert_eq!(rewrite_namespace_sets(text), text);
        }
        // A comment or a raw block ends where its closing tag does: a set right after is one.
        // A string literal ends at its own quote, not an escaped one or the other kind.
        for (text, rewritten) in [
            (
                r"{% set ns.a = 'it\'s %}' %}",
                r"{% set ns.a =__mentor_store(( 'it\'s %}')) %}",
            ),
            (
                r#"{% set ns.a = "a'b %}" ~ 'c"d %}' %}"#,
                r#"{% set ns.a =__mentor_store(( "a'b %}" ~ 'c"d %}')) %}"#,
            ),
            (
                "{#{{#}{% set ns.a = 1 %}}}",
                "{#{{#}{% set ns.a =__mentor_store(( 1)) %}}}",
            ),
            (
                "{% raw %}x{%- endraw -%}{% set ns.a = 1 %}",
                "{% raw %}x{%- endraw -%}{% set ns.a =__mentor_store(( 1)) %}",
            ),
            (
                "{% raw %}{% x %}{% endraw %}{% set ns.a = 1 %}",
                "{% raw %}{% x %}{% endraw %}{% set ns.a =__mentor_store(( 1)) %}",
            ),
        ] {
            assert_eq!(rewrite_namespace_sets(text), rewritten);
        }
    }
}
