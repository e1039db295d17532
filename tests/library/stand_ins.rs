//! A tokenizer and a layout that take the assembler off its fast paths, shared by the tests
//! of recounts, follow-up turns and edges: a greedy tokenizer whose joins cost more (or less)
//! than their parts, and a bare layout that writes a head with no newline after it.

use mentor_context::ContextBuilder;
use mentor_context::format::{BlockHead, Format};
use mentor_context::tokenizer::TokenCounter;

/// Greedy longest match over a tiny vocabulary (the first of `words` the text starts with),
/// else one `char` a token. Joining two texts can cost more tokens than the two alone, and
/// it vouches for no split, so the builder must recount the whole text.
pub(crate) struct Greedy {
    name: &'static str,
    words: &'static [&'static str],
}

/// `bcde`, `ab`: "a" + "bcde" is 2 tokens, "abcde" is 4 (ab c d e).
pub(crate) const GREEDY: Greedy = Greedy {
    name: "greedy",
    words: &["bcde", "ab"],
};

/// [`GREEDY`] with `qb` and `zq`: joins can also cost less than their parts ("z" + "q" is
/// 2, "zq" is 1), and "qqq" + "bcde" is 3 + 1 where "qqqbcde" is q q qb c d e.
pub(crate) const VOCAB: Greedy = Greedy {
    name: "vocab",
    words: &["bcde", "qb", "zq", "ab"],
};

impl Greedy {
    /// A builder of `budget` tokens counting with this tokenizer, in the [`Bare`] layout
    /// whose heads are `head`: every join is one the tokenizer does not vouch for.
    pub(crate) fn bare(self, budget: usize, head: &'static str) -> ContextBuilder {
        ContextBuilder::new(budget)
            .tokenizer(self)
            .format(Bare(head))
    }
}

impl TokenCounter for Greedy {
    fn name(&self) -> &str {
        self.name
    }
    fn token_lengths(&self, text: &str, lengths: &mut Vec<u32>) {
        let mut rest = text;
        while let Some(c) = rest.chars().next() {
            let len = self
                .words
                .iter()
                .find(|word| rest.starts_with(*word))
                .map_or(c.len_utf8(), |word| word.len());
            lengths.push(len as u32);
            rest = &rest[len..];
        }
    }
}

/// A bare layout: every head is the given text, the content follows it with no newline and
/// no fence. It cannot read its bodies back (nothing marks where one ends), so its follow-up
/// turns are of sealed reports.
struct Bare(&'static str);

impl Format for Bare {
    fn name(&self) -> &str {
        "bare"
    }
    fn head(&self, _head: &BlockHead<'_>, out: &mut String) {
        out.push_str(self.0);
    }
    fn content_open(&self, _content: &str, _out: &mut String) {}
    fn content_close(&self, _content: &str, _truncated: bool, _out: &mut String) {}
}
