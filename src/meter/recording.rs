//! What the meter notes of a chunk it tokenized: the exact counts at split points inside it.

use super::{CHECKPOINT_EVERY, Checkpoint, Meter};

impl Meter<'_> {
    /// Records checkpoints at the ends of the last chunk's tokens that are exact splits: about
    /// every [`CHECKPOINT_EVERY`] tokens, and at `mark`, up to `room` tokens and short of `end`.
    ///
    /// Token ends include every piece end, so at an exact split the tokens before it are
    /// exactly the count of the text before it. Tokens of length 0 (a tokenizer with more
    /// tokens than bytes somewhere, as Qwen 3 after NFC) end where the token before them ends
    /// and are counted before that position, so a checkpoint waits for the last token ending
    /// there. This runs over every token of every block
    /// that is not simply counted, so where no token can be a checkpoint (before the next one
    /// due, with no mark ahead, short of `end`) it adds up their lengths a stretch at a time.
    pub(super) fn record_checkpoints(
        &mut self,
        text: &str,
        end: usize,
        room: usize,
        mark: Option<usize>,
    ) {
        // The chunk's start, where its count is known.
        let from = self.chunk.start;
        let lengths = &self.chunk.lengths;
        let fits = room.saturating_sub(from.tokens).min(lengths.len());
        // The count at `from` is known already: only a mark past it is looked for.
        let mut mark = mark.filter(|&mark| mark > from.at);
        let (mut at, mut since, mut i) = (from.at, 0, 0);
        while i < fits {
            if mark.is_none() && since + 1 < CHECKPOINT_EVERY {
                let skip = (CHECKPOINT_EVERY - 1 - since).min(fits - i);
                let bytes: usize = lengths[i..i + skip].iter().map(|&len| len as usize).sum();
                if at + bytes < end {
                    at += bytes;
                    since += skip;
                    i += skip;
                    continue;
                }
            }
            at += lengths[i] as usize;
            since += 1;
            i += 1;
            if at >= end {
                break;
            }
            // Whether every token ending at `at` is counted: the next one has bytes of its own.
            let settled = lengths.get(i).is_none_or(|&next| next > 0);
            let at_mark = mark == Some(at) && settled;
            if mark.is_some_and(|mark| mark < at || at_mark) {
                mark = None;
            }
            if (since >= CHECKPOINT_EVERY || at_mark)
                && settled
                && text.is_char_boundary(at)
                && self.tokenizer.splits_exactly(text, at)
            {
                self.checkpoints.push(Checkpoint {
                    at,
                    tokens: from.tokens + i,
                });
                since = 0;
            }
        }
    }
}
