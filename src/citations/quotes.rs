//! Quotes in answers, checked as far as each dialect allows.
//!
//! A citation that is believed without a check is how a chat UI shows a source that says
//! something else. A quoted span in straight or curly quotes just before a `[n]` marker, and
//! an Anthropic `cited_text`, are looked for in the content of the block they cite. A Cohere
//! citation quotes the answer, not the document: its `text` is checked against the span of
//! the answer it marks, which shows the offsets were read right, not that the document says
//! it.

use serde::{Deserialize, Serialize};

/// The most bytes of answer text kept before a marker to find a quote in: a quote that
/// starts further back is not looked for.
pub(crate) const MAX_QUOTE_BYTES: usize = 4096;

/// A quote an answer attributes to a citation, and whether the citation's content holds it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
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

/// `text` with quote marks made straight and each run of whitespace one space, trimmed: so
/// that a quote is found whatever marks and line breaks the model or the source used.
pub(crate) fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            space = !out.is_empty();
            continue;
        }
        if space {
            out.push(' ');
            space = false;
        }
        out.push(match c {
            '\u{201c}' | '\u{201d}' | '\u{201e}' | '\u{ab}' | '\u{bb}' => '"',
            '\u{2018}' | '\u{2019}' | '\u{201a}' => '\'',
            other => other,
        });
    }
    out
}

/// Whether `content` holds `quote`, once both are normalized.
pub(crate) fn holds(content: &str, quote: &str) -> bool {
    let quote = normalize(quote);
    !quote.is_empty() && normalize(content).contains(&quote)
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

    #[test]
    fn quotes_are_held_whatever_their_marks_and_spaces() {
        let content = "Plan B costs\n12 EUR a month. \u{201c}Annual\u{201d} plans save.";
        assert!(holds(content, "Plan B costs 12 EUR"));
        assert!(holds(content, "\"Annual\" plans"));
        assert!(!holds(content, "Plan B costs 13 EUR"));
        assert!(!holds(content, "   "));
    }
}
