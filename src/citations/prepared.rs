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

use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;

use memchr::memmem;
use unicode_segmentation::UnicodeSegmentation;

use super::quotes::normalize_into;
use crate::offsets::IndexedText;

/// Stands at each word boundary of a prepared text; normalizing turns every control
/// character into a space, so no text holds it.
const MARK: char = '\0';

/// A text normalized ([`normalize_into`]), with [`MARK`] at each word boundary. Private to
/// this file, so that every text the crate prepares goes through [`QuoteChecks::prepare`],
/// whose count the counting tests bound.
#[derive(Debug, Clone)]
struct Prepared {
    marked: String,
    /// Each mark, in order: its byte offset in `marked`, and the byte offset in the original
    /// text of the boundary it stands for.
    marks: Vec<(usize, usize)>,
    /// A hash of each different stretch between two marks (a word, a number, a space, a
    /// sign): a quote with one the text lacks is not in it, and costs no search.
    units: HashSet<u64, rustc_hash::FxBuildHasher>,
}

impl Prepared {
    fn new(text: &str) -> Prepared {
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
        let mut prepared = Prepared {
            marked,
            marks,
            units: HashSet::default(),
        };
        let units: HashSet<u64, _> = prepared.units().map(unit_hash).collect();
        prepared.units = units;
        prepared
    }

    /// The stretches between two marks, in order.
    fn units(&self) -> impl Iterator<Item = &str> {
        self.marks
            .windows(2)
            .map(|pair| &self.marked[pair[0].0 + MARK.len_utf8()..pair[1].0])
    }

    /// Whether each stretch between two marks of `quote` is one of the text's: what every
    /// quote the text holds has, found in the quote's length.
    fn may_hold(&self, quote: &Prepared) -> bool {
        quote
            .units()
            .all(|unit| self.units.contains(&unit_hash(unit)))
    }

    /// Whether the text holds `quote` (itself prepared) from a boundary to a boundary.
    fn holds(&self, quote: &Prepared) -> bool {
        !quote.marked.is_empty()
            && self.may_hold(quote)
            && memmem::find(self.marked.as_bytes(), quote.marked.as_bytes()).is_some()
    }

    /// Whether the text holds `quote` from a boundary to a boundary, both within bytes
    /// `from..to` of the original text.
    fn holds_within(&self, quote: &Prepared, from: usize, to: usize) -> bool {
        let first = self.marks.partition_point(|&(_, at)| at < from);
        let end = self.marks.partition_point(|&(_, at)| at <= to);
        if quote.marked.is_empty() || end < first + 2 || !self.may_hold(quote) {
            return false;
        }
        let stretch = &self.marked.as_bytes()[self.marks[first].0..=self.marks[end - 1].0];
        memmem::find(stretch, quote.marked.as_bytes()).is_some()
    }
}

fn unit_hash(unit: &str) -> u64 {
    rustc_hash::FxBuildHasher.hash_one(unit)
}

/// A text by its key, a stretch of it (characters), and a quote as prepared.
type Check = ((usize, usize), Option<(usize, usize)>, String);

/// The texts of one resolution that quotes were checked against, each prepared once, and
/// the checks already made: whatever the number of quotes, each text is normalized once.
#[derive(Debug, Default)]
pub(crate) struct QuoteChecks {
    texts: HashMap<(usize, usize), Prepared>,
    /// The texts whose characters a stretch was given in, indexed once: a citation's
    /// characters are found from the nearest mark, not counted from the start.
    indexed: HashMap<(usize, usize), IndexedText>,
    /// The answers already given, by text, stretch and quote as prepared: a quote repeated
    /// costs its own length, not its text's.
    done: HashMap<Check, bool>,
    /// Bytes of text and quotes prepared so far: what the counting tests bound, read through
    /// the resolution's stream ([`QuoteChecks::prepared_bytes`]).
    #[cfg(test)]
    prepared_bytes: usize,
}

impl QuoteChecks {
    /// Whether `text`, known by `key` (the same key for the same text throughout), holds
    /// `quote` from a word boundary to a word boundary: within characters `within` of it, if
    /// given (not at all if they run past its end).
    pub(crate) fn holds(
        &mut self,
        key: (usize, usize),
        text: &str,
        within: Option<(usize, usize)>,
        quote: &str,
    ) -> bool {
        let quote = self.prepare(quote);
        let done_key = (key, within, quote.marked.clone());
        if let Some(&found) = self.done.get(&done_key) {
            return found;
        }
        if !self.texts.contains_key(&key) {
            let prepared = self.prepare(text);
            self.texts.insert(key, prepared);
        }
        let prepared = &self.texts[&key];
        let found = match within {
            Some((from, to)) => {
                let indexed = self.indexed.entry(key).or_insert_with(|| {
                    let mut indexed = IndexedText::default();
                    indexed.push(text);
                    indexed
                });
                match (indexed.byte_of_char(from), indexed.byte_of_char(to)) {
                    (Some(from), Some(to)) => prepared.holds_within(&quote, from, to),
                    _ => false,
                }
            }
            None => prepared.holds(&quote),
        };
        self.done.insert(done_key, found);
        found
    }

    /// `text` prepared: the only place these checks prepare one, so that the tests can count.
    fn prepare(&mut self, text: &str) -> Prepared {
        #[cfg(test)]
        {
            self.prepared_bytes += text.len();
        }
        Prepared::new(text)
    }

    /// Bytes of text and quotes these checks have prepared.
    #[cfg(test)]
    pub(crate) fn prepared_bytes(&self) -> usize {
        self.prepared_bytes
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

    /// A quote with a word the text lacks is refused before any search; one whose words
    /// are all there is searched for, and found only in their order.
    #[test]
    fn a_word_the_text_lacks_refuses_a_quote_unsearched() {
        let text = Prepared::new("Fact 1 holds. Fact 2 holds.");
        assert!(!text.may_hold(&Prepared::new("Fact 1 holds true")));
        assert!(!text.may_hold(&Prepared::new("Fact 12")));
        assert!(text.may_hold(&Prepared::new("holds. Fact 1")));
        assert!(!text.holds(&Prepared::new("holds. Fact 1")));
        assert!(text.holds(&Prepared::new("holds. Fact 2")));
    }

    #[test]
    fn nothing_is_held_in_nothing_and_nothing_is_held() {
        assert!(!holds("", "x"));
        assert!(!holds("x", ""));
        assert!(!holds("x", " \n "));
        assert!(!holds("a\0b", "\0"));
        assert!(holds("a\0b", "a b"));
    }

    /// About `bytes` of text that says `Fact {i} holds.` for each `i`.
    fn facts(bytes: usize) -> String {
        let mut text = String::new();
        let mut i = 0;
        while text.len() < bytes {
            text.push_str(&format!("Fact {i} holds. "));
            i += 1;
        }
        text
    }

    /// Issue 33 item 4: 3,000 quotes against a block normalize the block once, whatever the
    /// number of quotes: the work of preparing is the answer's bytes and the block's. (A
    /// block of 64 KiB: the bound is the same at any size, and one prepared per quote would
    /// show in seconds, not minutes. benches/README.md times 1 MB.)
    #[test]
    fn a_block_is_prepared_once_per_resolution() {
        use crate::citations::Resolver;
        use crate::{ContextBuilder, MentorRagResult};
        let results = [MentorRagResult::from_content("x", 0.9)];
        let context = ContextBuilder::new(100).build().unwrap().assemble(&results);
        let contents = [facts(1 << 16)];
        let mut answer = String::new();
        for i in 0..3000 {
            answer.push_str(&format!(
                "It says \"Fact {i} holds\" [1] and \"Fact {i}\" [1]. "
            ));
        }
        let mut stream = Resolver::for_context(&context).contents(&contents).stream();
        let _ = stream.push(&answer);
        assert_eq!(stream.held_back(), 0, "every marker read");
        let prepared = stream.prepared_bytes();
        let (_, resolution) = stream.finish();
        // The count counts: the block was prepared.
        assert!(prepared >= contents[0].len(), "{prepared}");
        assert_eq!(resolution.cited[0].quotes.len(), 6000);
        assert_eq!(resolution.unverified, 0);
        assert!(
            prepared <= contents[0].len() + answer.len(),
            "{prepared} bytes prepared for a block of {} and an answer of {}",
            contents[0].len(),
            answer.len()
        );
    }

    /// The same for an Anthropic response of 1,000 citations of one search result, and of
    /// one document over different stretches.
    #[test]
    fn an_entry_is_prepared_once_per_response() {
        use crate::citations::Resolver;
        use crate::dialects::{Dialect, Entry};
        use crate::{ContextBuilder, MentorRagResult};
        for dialect in [Dialect::Anthropic, Dialect::AnthropicDocuments] {
            let assembler = ContextBuilder::new(100).dialect(dialect).build().unwrap();
            let results = [MentorRagResult::from_content("x", 0.9)];
            let context = assembler.assemble(&results);
            let mut entries = assembler.entries(&context).unwrap();
            let text = facts(1 << 16);
            let Entry::Anthropic(block) = &mut entries[0] else {
                panic!("{entries:?}");
            };
            match &mut block.source {
                crate::dialects::AnthropicSource::Text { data, .. } => data.clone_from(&text),
                crate::dialects::AnthropicSource::Url(_) => block.content[0].text.clone_from(&text),
            }
            let citations: Vec<serde_json::Value> = (0..1000)
                .map(|i| {
                    let cited_text = format!("Fact {i} holds.");
                    match dialect {
                        Dialect::Anthropic => serde_json::json!({
                            "type": "search_result_location", "cited_text": cited_text,
                            "search_result_index": 0, "start_block_index": 0,
                            "end_block_index": 1}),
                        _ => serde_json::json!({
                            "type": "char_location", "cited_text": cited_text,
                            "document_index": 0, "start_char_index": i,
                            "end_char_index": text.len()}),
                    }
                })
                .collect();
            let message = serde_json::json!({"type": "message", "content": [
                {"type": "text", "text": "So it is.", "citations": citations}]})
            .to_string();
            let stream = Resolver::for_context(&context)
                .entries(&entries)
                .read_response(&message)
                .unwrap();
            let prepared = stream.prepared_bytes();
            let (_, resolution) = stream.finish().unwrap();
            assert!(prepared >= text.len(), "{dialect}: {prepared}");
            assert_eq!(resolution.cited[0].quotes.len(), 1000, "{dialect}");
            assert_eq!(resolution.unverified, 0, "{dialect}");
            assert!(
                prepared <= text.len() + message.len(),
                "{dialect}: {prepared} bytes prepared for {} and {}",
                text.len(),
                message.len()
            );
        }
    }
}
