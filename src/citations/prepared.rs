//! Texts made ready for quote checks: normalized once per resolution, with a mark at each
//! word boundary, so that a quote is found only where it starts and ends on a boundary of
//! the text, and each check is one substring search.
//!
//! The boundaries are Unicode word boundaries (UAX #29, `unicode-segmentation`), found in
//! the normalized text, with one change: a sign or decimal point (`-`, `+`, `−`, `±`, `.`)
//! glued to the digits after it, and not after a letter or digit itself, belongs to the
//! number. So a quote never starts or ends inside a word or a number: "safe" is not in
//! "unsafe", "12" is in neither "120" nor "12.5" nor "12,000" nor "-12" nor "12th", "t
//! available" is not in "isn't available"; "1.5" is in "1.5%", "12" in "$12" and in "10-12"
//! (a dash between numbers is no sign), "-12" in "-12 °C". The quote is marked the same way
//! and must match the marks as well as the text: a boundary the quote has inside it must be
//! one of the text's.

use std::collections::HashMap;

use memchr::memmem;
use unicode_segmentation::UnicodeSegmentation;

use super::quotes::normalize_into;

/// Stands at each word boundary of a prepared text; normalizing turns every control
/// character into a space, so no text holds it.
const MARK: char = '\0';

/// A text normalized ([`normalize_into`]), with [`MARK`] at each word boundary.
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    marked: String,
    /// Each mark, in order: its byte offset in `marked`, and the byte offset in the original
    /// text of the boundary it stands for.
    marks: Vec<(usize, usize)>,
}

#[cfg(test)]
thread_local! {
    /// Bytes of text prepared on this thread: what the counting tests bound.
    pub(crate) static PREPARED_BYTES: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

impl Prepared {
    pub(crate) fn new(text: &str) -> Prepared {
        #[cfg(test)]
        PREPARED_BYTES.with(|bytes| bytes.set(bytes.get() + text.len()));
        let mut normalized = String::with_capacity(text.len());
        let mut moves = Vec::new();
        normalize_into(text, &mut normalized, &mut moves);
        let original = |at: usize| {
            let i = moves.partition_point(|&(from, _)| from <= at);
            let (from, to) = if i == 0 { (0, 0) } else { moves[i - 1] };
            to + (at - from)
        };
        let mut marked = String::with_capacity(normalized.len() + normalized.len() / 2);
        let mut marks = Vec::new();
        // The last character of the segment before the one before: whether a sign stands
        // alone (after a space, a bracket, the start) or between two numbers (a dash).
        let mut before_previous: Option<char> = None;
        let mut previous: Option<&str> = None;
        for (at, segment) in normalized.split_word_bound_indices() {
            let joined = previous.is_some_and(|sign| {
                matches!(sign, "-" | "+" | "\u{2212}" | "\u{b1}" | ".")
                    && segment.starts_with(|c: char| c.is_numeric())
                    && !before_previous.is_some_and(char::is_alphanumeric)
            });
            if !joined {
                marks.push((marked.len(), original(at)));
                marked.push(MARK);
            }
            marked.push_str(segment);
            before_previous = previous.and_then(|p| p.chars().next_back());
            previous = Some(segment);
        }
        if !normalized.is_empty() {
            marks.push((marked.len(), original(normalized.len())));
            marked.push(MARK);
        }
        Prepared { marked, marks }
    }

    /// Whether the text holds `quote` (itself prepared) from a boundary to a boundary.
    fn holds(&self, quote: &Prepared) -> bool {
        !quote.marked.is_empty()
            && memmem::find(self.marked.as_bytes(), quote.marked.as_bytes()).is_some()
    }

    /// Whether the text holds `quote` from a boundary to a boundary, both within bytes
    /// `from..to` of the original text.
    fn holds_within(&self, quote: &Prepared, from: usize, to: usize) -> bool {
        let first = self.marks.partition_point(|&(_, at)| at < from);
        let end = self.marks.partition_point(|&(_, at)| at <= to);
        if quote.marked.is_empty() || end < first + 2 {
            return false;
        }
        let stretch = &self.marked.as_bytes()[self.marks[first].0..=self.marks[end - 1].0];
        memmem::find(stretch, quote.marked.as_bytes()).is_some()
    }
}

/// A text by its key, a stretch of it (bytes of the original), and a quote as prepared.
type Check = ((usize, usize), Option<(usize, usize)>, String);

/// The texts of one resolution that quotes were checked against, each prepared once, and
/// the checks already made: whatever the number of quotes, each text is normalized once.
#[derive(Debug, Default)]
pub(crate) struct QuoteChecks {
    texts: HashMap<(usize, usize), Prepared>,
    /// The answers already given, by text, stretch and quote as prepared: a quote repeated
    /// costs its own length, not its text's.
    done: HashMap<Check, bool>,
}

impl QuoteChecks {
    /// Whether `text`, known by `key` (the same key for the same text throughout), holds
    /// `quote` from a word boundary to a word boundary: within bytes `within` of it, if
    /// given.
    pub(crate) fn holds(
        &mut self,
        key: (usize, usize),
        text: &str,
        within: Option<(usize, usize)>,
        quote: &str,
    ) -> bool {
        let quote = Prepared::new(quote);
        let done_key = (key, within, quote.marked.clone());
        if let Some(&found) = self.done.get(&done_key) {
            return found;
        }
        let prepared = self.texts.entry(key).or_insert_with(|| Prepared::new(text));
        let found = match within {
            Some((from, to)) => prepared.holds_within(&quote, from, to),
            None => prepared.holds(&quote),
        };
        self.done.insert(done_key, found);
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn holds(text: &str, quote: &str) -> bool {
        Prepared::new(text).holds(&Prepared::new(quote))
    }

    #[test]
    fn a_quote_starts_and_ends_on_word_boundaries() {
        let block = "The drug is unsafe for pregnant women. It is ineffective; it isn't available.";
        assert!(holds(block, "unsafe for pregnant women"));
        assert!(!holds(block, "safe for pregnant women"));
        assert!(holds(block, "It is ineffective"));
        assert!(!holds(block, "effective"));
        assert!(!holds(block, "t available"));
        assert!(holds(block, "isn't available."));
        assert!(holds(block, "isn\u{2019}t available"));
        assert!(!holds(block, "The dru"));
        assert!(holds(block, "women. It"));
    }

    #[test]
    fn a_quote_starts_and_ends_outside_numbers() {
        for (block, quote, held) in [
            ("It costs 120 EUR.", "costs 12", false),
            ("It costs 120 EUR.", "costs 120", true),
            ("It costs 12.5 EUR.", "12", false),
            ("It costs 12.5 EUR.", "2.5 EUR", false),
            ("It costs 12.5 EUR.", "12.5 EUR", true),
            ("It costs 12. Then", "costs 12", true),
            ("It costs 12,000 EUR.", "12,0", false),
            ("It costs 12,000 EUR.", "000 EUR", false),
            ("It costs 12,000 EUR.", "12,000", true),
            ("A 1.5% fee.", "1.5", true),
            ("A 1.5% fee.", "1.5%", true),
            ("A 1.5% fee.", "5% fee", false),
            ("It is -12 \u{b0}C.", "12 \u{b0}C", false),
            ("It is -12 \u{b0}C.", "-12 \u{b0}C", true),
            ("It is \u{2212}12.", "12", false),
            ("Add .5 more.", "5 more", false),
            ("Add .5 more.", ".5 more", true),
            ("From 10-12 EUR.", "12 EUR", true),
            ("From 10-12 EUR.", "10-12", true),
            ("From 10-12 EUR.", "-12", false),
            ("It costs $12.", "12", true),
            ("On the 12th.", "12", false),
        ] {
            assert_eq!(holds(block, quote), held, "{quote:?} in {block:?}");
        }
    }

    #[test]
    fn quotes_are_held_whatever_their_marks_and_spaces() {
        let content = "Plan B costs\n12 EUR a month. \u{201c}Annual\u{201d} plans save.";
        assert!(holds(content, "Plan B costs 12 EUR"));
        assert!(holds(content, "\"Annual\" plans"));
        assert!(holds(content, "  Plan\tB  "));
        assert!(!holds(content, "Plan B costs 13 EUR"));
        assert!(!holds(content, "   "));
    }

    #[test]
    fn a_quote_is_held_within_a_stretch_of_the_text_only() {
        let text = "Plan  B costs\n\u{201c}12\u{201d} EUR.";
        let prepared = Prepared::new(text);
        let quote = Prepared::new("\"12\" EUR");
        let at = text.find('\u{201c}').unwrap();
        assert!(prepared.holds_within(&quote, at, text.len()));
        assert!(prepared.holds_within(&quote, at, text.len() - 1));
        assert!(!prepared.holds_within(&quote, at + 3, text.len()));
        assert!(!prepared.holds_within(&quote, 0, at + 6));
        let plan = Prepared::new("Plan B");
        assert!(prepared.holds_within(&plan, 0, 7));
        assert!(!prepared.holds_within(&plan, 0, 6));
        assert!(!prepared.holds_within(&plan, 1, 7));
    }

    #[test]
    fn nothing_is_held_in_nothing_and_nothing_is_held() {
        assert!(!holds("", "x"));
        assert!(!holds("x", ""));
        assert!(!holds("x", " \n "));
        assert!(!holds("a\0b", "\0"));
        assert!(holds("a\0b", "a b"));
    }
}
