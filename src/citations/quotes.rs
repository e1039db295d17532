//! Quotes in answers, checked as far as each dialect allows.
//!
//! A citation that is believed without a check is how a chat UI shows a source that says
//! something else. A quoted span in straight or curly quotes just before a `[n]` marker, and
//! an Anthropic `cited_text`, are looked for in the content of the block they cite. A Cohere
//! citation quotes the answer, not the document: its `text` is checked against the span of
//! the answer it marks, which shows the offsets were read right, not that the document says
//! it.
//!
//! A quote is verified only where it starts and ends on word boundaries of one text (a
//! block's content, one text block of a search result, the stretch of a document a
//! citation gives), after [`normalize_into`]: "safe" is not in "unsafe", nor "12" in "120";
//! `prepared.rs` says how numbers are bounded.

use serde::{Deserialize, Serialize};

/// The most bytes of answer text kept before a marker to find a quote in: a quote that
/// starts further back is not looked for.
pub(crate) const MAX_QUOTE_BYTES: usize = 4096;

/// A quote an answer attributes to a citation, and whether the citation's content holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Quote {
    /// The quote, as the answer or the provider gives it.
    pub text: String,
    /// Whether the check its kind allows held: a `[n]` quote or an Anthropic `cited_text` was
    /// found in the content of the block it cites; a Cohere citation's `text` is the span of
    /// the answer it marks.
    pub verified: bool,
}

/// The quote that `before` ends with: text between an opening and a closing quote mark,
/// where only spaces stand between the closing mark and the end (the marker that follows).
pub(crate) fn quote_before(before: &str) -> Option<&str> {
    let trimmed = before.trim_end_matches([' ', '\u{a0}']);
    let close = trimmed.chars().next_back()?;
    let open: &[char] = match close {
        '"' => &['"'],
        '\u{201d}' | '\u{201c}' => &['\u{201c}', '\u{201e}', '"', '\u{201d}'],
        '\u{2019}' => &['\u{2018}', '\u{201a}'],
        '\u{bb}' => &['\u{ab}'],
        _ => return None,
    };
    let inner = &trimmed[..trimmed.len() - close.len_utf8()];
    let start = inner.rfind(open)?;
    let quote = &inner[start + inner[start..].chars().next()?.len_utf8()..];
    (!quote.trim().is_empty()).then_some(quote)
}

/// Writes `text` to `out` with quote marks made straight and each run of whitespace or
/// control characters one space, trimmed: so that a quote is found whatever marks and line
/// breaks the model or the source used. Records in `moves` where `out`'s bytes stop running
/// in step with `text`'s: each `(at, from)` says that byte `at` of `out` (and those after,
/// until the next move) came from byte `from` of `text` (and those after).
pub(crate) fn normalize_into(text: &str, out: &mut String, moves: &mut Vec<(usize, usize)>) {
    // Normalizing only shortens, so `text`'s offset is never behind `out`'s.
    let mut ahead = 0;
    let mut place = |out: &String, from: usize, moves: &mut Vec<(usize, usize)>| {
        if from - out.len() != ahead {
            ahead = from - out.len();
            moves.push((out.len(), from));
        }
    };
    // Where the run of spaces not yet written starts.
    let mut space = None;
    let mut end = 0;
    for (at, c) in text.char_indices() {
        if c.is_whitespace() || c.is_control() {
            if !out.is_empty() {
                space.get_or_insert(at);
            }
            continue;
        }
        if let Some(run) = space.take() {
            place(out, run, moves);
            out.push(' ');
        }
        place(out, at, moves);
        out.push(match c {
            '\u{201c}' | '\u{201d}' | '\u{201e}' | '\u{ab}' | '\u{bb}' => '"',
            '\u{2018}' | '\u{2019}' | '\u{201a}' => '\'',
            other => other,
        });
        end = at + c.len_utf8();
    }
    if !out.is_empty() {
        place(out, end, moves);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quote_before_a_marker_is_found_in_any_quote_marks() {
        assert_eq!(
            quote_before("It says \"Plan B costs 12 EUR\" "),
            Some("Plan B costs 12 EUR")
        );
        assert_eq!(
            quote_before("It says \u{201c}Plan B\u{201d}"),
            Some("Plan B")
        );
        assert_eq!(quote_before("\u{2018}twelve\u{2019}"), Some("twelve"));
        assert_eq!(quote_before("\u{ab}douze\u{bb} "), Some("douze"));
        assert_eq!(quote_before("no quote here "), None);
        assert_eq!(quote_before("an empty \"\" one"), None);
        assert_eq!(quote_before("\"  \""), None);
    }
}
