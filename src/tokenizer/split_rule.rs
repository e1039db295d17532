//! Where OpenAI's encodings can be split with counts that add up.

/// Whether splitting `text` at byte `at` keeps every pre-tokenizer piece whole in all four
/// OpenAI encodings, so the counts of the halves add up to the count of the whole.
///
/// tiktoken splits text into pieces with a regular expression and encodes each piece alone,
/// so a position that ends a piece whatever follows it, and starts the next piece whatever
/// precedes it, is exact. Two kinds of position qualify in the cl100k, o200k, p50k and r50k
/// patterns (checked against the patterns in tiktoken-rs 0.12.1, and locked in by a property
/// test that recounts):
///
/// 1. before a space `' '` that follows a character other than whitespace: no piece carries
///    on from a non-space character into a space, and the patterns look behind nothing;
/// 2. after a newline that follows a character other than whitespace, before a character that
///    is neither whitespace nor `/` (o200k's punctuation piece swallows `[\r\n/]*`, and a
///    whitespace run before the newline would be split differently by `\s+(?!\S)`).
#[must_use]
pub(crate) fn openai_splits_exactly(text: &str, at: usize) -> bool {
    let (Some(before), Some(after)) = (text.get(..at), text.get(at..)) else {
        return false;
    };
    let mut back = before.chars().rev();
    let Some(last) = back.next() else {
        return false;
    };
    let Some(next) = after.chars().next() else {
        return false;
    };
    if next == ' ' {
        return !last.is_whitespace();
    }
    last == '\n'
        && back.next().is_some_and(|c| !c.is_whitespace())
        && !next.is_whitespace()
        && next != '/'
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_split_rules() {
        assert!(openai_splits_exactly("end word", 3));
        assert!(!openai_splits_exactly("end  word", 4));
        assert!(openai_splits_exactly("end\n[2]", 4));
        assert!(!openai_splits_exactly("end\n/2", 4));
        assert!(!openai_splits_exactly(" \n[2]", 2));
        assert!(!openai_splits_exactly("end\n\n[2]", 5));
        assert!(!openai_splits_exactly("abc", 0));
        assert!(!openai_splits_exactly("abc", 3));
    }
}
