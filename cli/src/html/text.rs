//! Strings from the input, as a page shows them: cut to a size with their length said, and
//! with the characters a reader would not see (controls, bidirectional overrides, zero-width
//! characters) shown as their code points, so a page cannot hide or reorder what the model
//! was sent.
//!
//! A [`Text`] is a list of runs the template writes one by one, each escaped: plain text, or
//! one character shown as `U+XXXX` with its code point in `data-cp` (so a test can rebuild the
//! exact string from the page).

use serde::Serialize;

use crate::output::breaks_line;

/// How many bytes of a field (a title, a URL, a metadata value, an id, an error) a page
/// shows: a 16 MiB title is shown cut, with its length, rather than embedded.
pub(crate) const FIELD_BYTES: usize = 300;

/// A string as a page shows it.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Text<'a> {
    runs: Vec<Run<'a>>,
    /// Whether only a prefix is shown.
    cut: bool,
    /// The whole string's length in bytes (UTF-8), said beside a cut one.
    bytes: usize,
}

/// A stretch shown as it is, or one character shown by its code point.
#[derive(Debug, Clone, Serialize)]
struct Run<'a> {
    text: &'a str,
    /// The code point in hexadecimal, for a character shown as `U+XXXX`.
    #[serde(skip_serializing_if = "Option::is_none")]
    cp: Option<String>,
}

impl<'a> Text<'a> {
    /// The text that was sent, whole: line breaks and tabs stay as they are.
    pub(crate) fn sent(text: &'a str) -> Text<'a> {
        Text::of(text, text.len(), Lines::Keep)
    }

    /// A field, shown on one line, cut after [`FIELD_BYTES`].
    pub(crate) fn field(text: &'a str) -> Text<'a> {
        Text::of(text, FIELD_BYTES, Lines::Show)
    }

    /// A longer text (an answer, an error), line breaks kept, cut after `max` bytes.
    pub(crate) fn long(text: &'a str, max: usize) -> Text<'a> {
        Text::of(text, max, Lines::Keep)
    }

    /// A field of which only `start` was kept, `bytes` long in all.
    pub(crate) fn prefix(start: &'a str, bytes: usize) -> Text<'a> {
        let mut text = Text::field(start);
        text.cut |= start.len() < bytes;
        text.bytes = bytes.max(start.len());
        text
    }

    fn of(text: &'a str, max: usize, lines: Lines) -> Text<'a> {
        let shown = &text[..text.floor_char_boundary(max.min(text.len()))];
        let mut runs = Vec::new();
        let mut start = 0;
        for (at, c) in shown.char_indices() {
            if hidden(c, lines) {
                if start < at {
                    runs.push(Run {
                        text: &shown[start..at],
                        cp: None,
                    });
                }
                runs.push(Run {
                    text: "",
                    cp: Some(format!("{:04X}", u32::from(c))),
                });
                start = at + c.len_utf8();
            }
        }
        if start < shown.len() {
            runs.push(Run {
                text: &shown[start..],
                cp: None,
            });
        }
        Text {
            runs,
            cut: shown.len() < text.len(),
            bytes: text.len(),
        }
    }

    /// Whether only a prefix is shown.
    #[cfg(test)]
    pub(crate) fn is_cut(&self) -> bool {
        self.cut
    }

    /// The string the runs stand for: what a test rebuilds from the page.
    #[cfg(test)]
    pub(crate) fn rebuilt(&self) -> String {
        self.runs
            .iter()
            .map(|run| match &run.cp {
                Some(cp) => char::from_u32(u32::from_str_radix(cp, 16).unwrap())
                    .unwrap()
                    .to_string(),
                None => run.text.to_string(),
            })
            .collect()
    }
}

/// Whether line breaks and tabs are shown as they are (text sent, answers) or as code points
/// (fields, which a page shows on one line, as the prompt does).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lines {
    Keep,
    Show,
}

/// Whether `c` is shown by its code point: a reader would not see it, or it would change how
/// the text around it reads.
fn hidden(c: char, lines: Lines) -> bool {
    if matches!(c, '\n' | '\t') {
        return lines == Lines::Show;
    }
    breaks_line(c)
        || matches!(
            c,
            '\u{00AD}'
                | '\u{034F}'
                | '\u{115F}'
                | '\u{1160}'
                | '\u{17B4}'
                | '\u{17B5}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200D}'
                | '\u{2060}'..='\u{2064}'
                | '\u{3164}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{FEFF}'
                | '\u{FFA0}'
                | '\u{FFF9}'..='\u{FFFB}'
                | '\u{E0000}'..='\u{E007F}'
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_characters_are_shown_and_the_string_can_be_rebuilt() {
        let text = "a\u{202E}b\u{200B}c\nd\te\u{7}";
        let sent = Text::sent(text);
        assert_eq!(sent.rebuilt(), text);
        let codes: Vec<&str> = sent.runs.iter().filter_map(|r| r.cp.as_deref()).collect();
        assert_eq!(codes, ["202E", "200B", "0007"]);
        let field = Text::field(text);
        let codes: Vec<&str> = field.runs.iter().filter_map(|r| r.cp.as_deref()).collect();
        assert_eq!(codes, ["202E", "200B", "000A", "0009", "0007"]);
        assert_eq!(field.rebuilt(), text);
    }

    #[test]
    fn a_long_field_is_cut_on_a_character_boundary_with_its_length() {
        let title = "é".repeat(10_000);
        let field = Text::field(&title);
        assert!(field.is_cut());
        assert_eq!(field.bytes, 20_000);
        assert_eq!(field.rebuilt(), "é".repeat(FIELD_BYTES / 2));
        assert!(!Text::field("short").is_cut());
    }
}
