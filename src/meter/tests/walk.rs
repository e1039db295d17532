//! The checkpoints the meter records, against a walk over the tokens one at a time: the meter
//! adds up stretches of token lengths where no token can be a checkpoint, and must record
//! exactly what the walk does.

use proptest::prelude::*;

use super::*;

/// Hands out given token lengths, whatever the text (of their total length), with an exact
/// split at every multiple of `every` bytes.
struct Given {
    lengths: Vec<u32>,
    every: usize,
}

impl TokenCounter for Given {
    fn name(&self) -> &str {
        "given"
    }
    fn token_lengths(&self, text: &str, lengths: &mut Vec<u32>) {
        assert_eq!(
            text.len(),
            self.lengths.iter().map(|&l| l as usize).sum::<usize>()
        );
        lengths.extend_from_slice(&self.lengths);
    }
    fn splits_exactly(&self, _text: &str, at: usize) -> bool {
        at.is_multiple_of(self.every)
    }
}

/// The checkpoints one token at a time: at a token end within the room and short of the end,
/// that is an exact split, when `CHECKPOINT_EVERY` tokens have passed since the last one or
/// the end is the mark (past the start). Tokens of no length end where the one before them
/// ends and count before that position: a checkpoint is at the last token end to reach it.
fn walk(given: &Given, from: Checkpoint, room: usize, mark: Option<usize>) -> Vec<Checkpoint> {
    let end = from.at + given.lengths.iter().map(|&l| l as usize).sum::<usize>();
    let (mut at, mut tokens, mut since) = (from.at, from.tokens, 0);
    let mut mark = mark.filter(|&mark| mark > from.at);
    let mut found = Vec::new();
    for (i, &len) in given.lengths.iter().enumerate() {
        at += len as usize;
        tokens += 1;
        since += 1;
        if tokens > room || at >= end {
            break;
        }
        let last_here = given.lengths.get(i + 1).is_none_or(|&next| next > 0);
        let at_mark = mark == Some(at) && last_here;
        if mark.is_some_and(|mark| mark < at || at_mark) {
            mark = None;
        }
        if (since >= CHECKPOINT_EVERY || at_mark) && last_here && at.is_multiple_of(given.every) {
            found.push(Checkpoint { at, tokens });
            since = 0;
        }
    }
    found
}

/// What the meter records in `text` from `from` on, tokenizing it to the end with `room` and
/// `mark`: the checkpoints after the start that `reset` leaves, and the tokens it counted.
fn recorded(
    given: &Given,
    text: &str,
    from: Checkpoint,
    room: usize,
    mark: Option<usize>,
) -> (Vec<Checkpoint>, usize) {
    let mut meter = Meter::new(given, None);
    meter.checkpoints.reset();
    let n = meter.tokenize(text, from, text.len(), room, mark);
    (meter.checkpoints.as_slice()[1..].to_vec(), n)
}

proptest! {
    #[test]
    fn checkpoints_are_those_of_a_walk_token_by_token(
        // Zero-length tokens too, as a Hugging Face file with normalization can report.
        lengths in prop::collection::vec(0u32..5, 0..400),
        every in 1usize..6,
        start in 0usize..40,
        start_tokens in 0usize..60,
        room in 0usize..500,
        mark in proptest::option::of(0usize..1200),
    ) {
        let given = Given { lengths, every };
        let total: usize = given.lengths.iter().map(|&l| l as usize).sum();
        let text = "a".repeat(start + total);
        let from = Checkpoint { at: start, tokens: start_tokens };
        let (found, n) = recorded(&given, &text, from, room, mark);
        prop_assert_eq!(n, given.lengths.len());
        prop_assert_eq!(found, walk(&given, from, room, mark));
    }
}

/// A token of no length right after the mark ends there too (the tail of what NFC expanded,
/// for Qwen 3): the count at the mark includes it, and the mark is recorded once.
#[test]
fn the_mark_is_recorded_once_after_the_tokens_of_no_length() {
    let given = Given {
        lengths: vec![2, 0, 0, 2],
        every: 1,
    };
    let (found, _) = recorded(&given, "aaaa", Checkpoint::START, 100, Some(2));
    assert_eq!(found, [Checkpoint { at: 2, tokens: 3 }]);
    assert_eq!(
        walk(&given, Checkpoint::START, 100, Some(2)),
        [Checkpoint { at: 2, tokens: 3 }]
    );
    // With room for the first token only, the count at the mark is not seen; rebasing there
    // walks the lengths and counts the tokens of no length before it too.
    let mut meter = Meter::new(&given, None);
    meter.checkpoints.reset();
    meter.tokenize("aaaa", Checkpoint::START, 4, 1, Some(2));
    assert_eq!(meter.checkpoints.as_slice(), [Checkpoint::START]);
    assert_eq!(meter.rebase("aaaa", 2), Some(3));
    assert_eq!(meter.token_end("aa", 1), 2);
}

/// A mark where the chunk starts is not looked for: the count there is known, and a token of
/// no length first would put one more token at the same place.
#[test]
fn a_mark_at_the_start_is_not_recorded() {
    let given = Given {
        lengths: vec![0, 2, 2],
        every: 1,
    };
    let from = Checkpoint { at: 3, tokens: 5 };
    let (found, _) = recorded(&given, "aaaaaaa", from, 100, Some(3));
    // Two tokens are too few for a checkpoint by count, and the mark is not looked for.
    assert!(found.is_empty());
    assert!(walk(&given, from, 100, Some(3)).is_empty());
}
