//! Keeping a title, URL or metadata entry on one line of its own.
//!
//! These fields come from retrieved documents and are untrusted: a line break inside a title
//! could start a forged block of its own. Everything here writes them so they cannot.

use super::misleading_chars::{first_visible, is_invisible, opens_markup};

/// Writes `text` on one line: each run of line breaks, control characters and bidirectional
/// controls becomes one space, and leading and trailing whitespace is dropped. Titles, URLs
/// and metadata go through this, so none of them can start a line of their own.
///
/// ```
/// let mut out = String::new();
/// mentor_context::format::push_line(&mut out, " Price list\n[7] Forged\t title ");
/// assert_eq!(out, "Price list [7] Forged title");
/// ```
pub fn push_line(out: &mut String, text: &str) {
    push_line_with(out, text, String::push_str);
}

/// [`push_line`], writing each stretch between breaks with `push` (which may escape it).
pub(super) fn push_line_with(out: &mut String, text: &str, push: impl Fn(&mut String, &str)) {
    let text = collapse(text);
    if is_plain_ascii(text) {
        // Nothing to collapse: the search below looks at one char at a time, this at bytes,
        // and most titles, URLs and metadata are plain ASCII.
        push(out, text);
        return;
    }
    let mut rest = text;
    while let Some(at) = rest.find(breaks_line) {
        push(out, &rest[..at]);
        let after = rest[at..].trim_start_matches(|c: char| breaks_line(c) || c == ' ');
        if !out.ends_with(' ') {
            out.push(' ');
        }
        rest = after;
    }
    push(out, rest);
}

/// Writes one `key: value` line (`key:` alone when the value is blank), each part on one
/// line through `push`. The key starts a line, so one whose first visible character could
/// read as a block marker or a fence (`[`, a look-alike bracket, `` ` ``, `~`) gets a `\`
/// before it, as in markdown.
pub(super) fn push_metadata_line(
    out: &mut String,
    key: &str,
    value: &str,
    push: impl Fn(&mut String, &str),
) {
    if first_visible(key).is_some_and(opens_markup) {
        out.push('\\');
    }
    push(out, key);
    out.push(':');
    if !collapse(value).is_empty() {
        out.push(' ');
        push(out, value);
    }
    out.push('\n');
}

/// The text without what a reader cannot see at its ends: whitespace, line-breaking
/// characters and invisible (default-ignorable) ones. What is left starts and ends with what
/// a reader sees first and last.
pub(super) fn collapse(text: &str) -> &str {
    let bytes = text.as_bytes();
    if bytes.first().is_some_and(u8::is_ascii_graphic)
        && bytes.last().is_some_and(u8::is_ascii_graphic)
    {
        // Both ends are visible already: the trim below would stop at once, but only after
        // a test of each end against every class of character it drops.
        return text;
    }
    text.trim_matches(|c: char| c.is_whitespace() || breaks_line(c) || is_invisible(c))
}

/// `text`, unless a reader would see nothing of it.
pub(super) fn visible(text: Option<&str>) -> Option<&str> {
    text.filter(|text| !collapse(text).is_empty())
}

/// Whether `text` is printable ASCII only (space to `~`): no line breaks, no controls, nothing
/// invisible.
fn is_plain_ascii(text: &str) -> bool {
    text.bytes().all(|b| matches!(b, b' '..=b'~'))
}

/// Characters that could start a new line, or reorder one, in what a reader sees: control
/// characters, line and paragraph separators, and every bidirectional control
/// (`Bidi_Control`: U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069).
fn breaks_line(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}'
                | '\u{2029}'
                | '\u{061C}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
        )
}

/// Ends the content's last line, so what follows starts a line of its own.
pub(super) fn end_line(out: &mut String, content: &str) {
    if !content.is_empty() && !content.ends_with('\n') {
        out.push('\n');
    }
}

/// Writes `n` in decimal without allocating.
pub(super) fn push_decimal(out: &mut String, n: usize) {
    use std::fmt::Write;
    let _ = write!(out, "{n}");
}

/// Whether a reader would see nothing of `text` written on one line: it is empty, or only
/// whitespace, line-breaking, control or invisible characters.
pub(crate) fn renders_empty(text: &str) -> bool {
    collapse(text).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::tests::written;

    #[test]
    fn line_breaks_and_controls_collapse() {
        assert_eq!(
            written(push_line, "a\r\n\r\nb\u{202E}c\u{0007}d  e"),
            "a b c d  e"
        );
        // DEL is a control character too, though it sorts just after the printable ASCII.
        assert_eq!(written(push_line, "a\u{7F}b"), "a b");
    }

    #[test]
    fn either_end_alone_invisible_is_trimmed() {
        for (text, expected) in [
            (" a", "a"),
            ("a ", "a"),
            ("a\u{200B}", "a"),
            ("\u{FEFF}a b", "a b"),
            ("a\n", "a"),
            ("[a]", "[a]"),
            ("~", "~"),
        ] {
            assert_eq!(written(push_line, text), expected, "{text:?}");
            assert_eq!(collapse(text), expected, "{text:?}");
        }
    }

    #[test]
    fn blank_metadata_values_write_the_key_alone() {
        let mut out = String::new();
        push_metadata_line(&mut out, "k", " \n ", push_line);
        push_metadata_line(&mut out, "k", "v", push_line);
        assert_eq!(out, "k:\nk: v\n");
    }

    #[test]
    fn content_lines_are_ended_once() {
        for (content, expected) in [("", ""), ("a", "\n"), ("a\n", "")] {
            let mut out = String::new();
            end_line(&mut out, content);
            assert_eq!(out, expected, "{content:?}");
        }
    }
}
