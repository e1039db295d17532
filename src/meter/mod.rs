//! Counting against a budget: tokenizing no further than could still fit, and a cut block
//! only again around the cut.
//!
//! A [`Meter`] measures a piece of text against the room left. It tokenizes in chunks that end
//! at exact split points (see [`TokenCounter::splits_exactly`]), so the chunk counts add up to
//! the count of the whole piece, and it stops at the first chunk that overflows the room. What
//! it saw on the way ([`Checkpoints`], and the token lengths of the last chunk) is what the
//! assembler needs to cut the piece so that it fits.

mod checkpoints;
mod recording;
mod sizing;
mod splits;

pub(crate) use checkpoints::{Checkpoint, Checkpoints};
use sizing::fixed_chunk_bytes;
#[cfg(test)]
use sizing::{CHUNK_BYTES_PER_TOKEN, MIN_SEEN_TOKENS, SEEN_MARGIN_TENTHS};

use crate::tokenizer::TokenCache;
use crate::tokenizer::TokenCounter;

/// Bytes a measured stretch stays below the call limit, for the frame that follows a cut
/// block's kept content in the same stretch (the newline ending it).
const FRAME_SLACK_BYTES: usize = 256;

/// The smallest chunk worth a call into the tokenizer.
const MIN_CHUNK_BYTES: usize = 64;

/// Tokens between the checkpoints the meter records inside a chunk. A cut re-tokenizes from
/// the last checkpoint before it, so this bounds that work; recording costs a test per token
/// end, far less than tokenizing.
const CHECKPOINT_EVERY: usize = 32;

/// The last stretch of text the meter tokenized, token by token.
#[derive(Debug, Default)]
struct Chunk {
    /// Where it starts, with the exact count before it.
    start: Checkpoint,
    /// The byte length of each of its tokens.
    lengths: Vec<u32>,
}

impl Chunk {
    /// Forgets the chunk but keeps the room its lengths took: a meter measures every block
    /// of an assembly, and a fresh vector for each block would grow again every time.
    fn clear(&mut self) {
        self.start = Checkpoint::START;
        self.lengths.clear();
    }
}

/// Measures text against a budget, keeping what it learned for a cut.
pub(crate) struct Meter<'t> {
    tokenizer: &'t dyn TokenCounter,
    cache: Option<&'t TokenCache>,
    /// Exact split points of the text last measured.
    checkpoints: Checkpoints,
    /// The last stretch tokenized.
    chunk: Chunk,
    /// Bytes handed to the tokenizer so far, for tests and benchmarks.
    pub(crate) bytes_tokenized: usize,
    /// Tokens the tokenizer returned for those bytes.
    tokens_seen: usize,
}

impl<'t> Meter<'t> {
    pub(crate) fn new(tokenizer: &'t dyn TokenCounter, cache: Option<&'t TokenCache>) -> Self {
        Meter {
            tokenizer,
            cache,
            checkpoints: Checkpoints::default(),
            chunk: Chunk::default(),
            bytes_tokenized: 0,
            tokens_seen: 0,
        }
    }

    /// The most bytes to hand the tokenizer in one call: its own limit
    /// ([`DEFAULT_MAX_CALL_BYTES`](crate::DEFAULT_MAX_CALL_BYTES) unless it promises more).
    /// Text is split for it only at exact split points, so this bounds only a stretch without
    /// any; such a stretch longer than this does not fit, whatever the budget.
    fn call_cap(&self) -> usize {
        self.tokenizer.max_call_bytes().max(MIN_CHUNK_BYTES)
    }

    /// One call into the tokenizer; `text` is at most [`call_cap`](Self::call_cap) bytes, or
    /// a little more where a cut's frame follows a capped stretch.
    fn count_call(&mut self, text: &str) -> usize {
        self.bytes_tokenized += text.len();
        let tokens = self.tokenizer.count(text);
        self.tokens_seen += tokens;
        tokens
    }

    /// Counts `text` exactly (no budget), in calls of at most the call cap that meet at exact
    /// split points. `None` when a stretch longer than the cap has no exact split point: it
    /// cannot be counted safely, so it does not fit.
    pub(crate) fn count(&mut self, text: &str) -> Option<usize> {
        let cap = self.call_cap();
        let (mut pos, mut tokens) = (0, 0);
        while text.len() - pos > cap {
            let end = self.split_before(text, pos, pos + cap)?;
            tokens += self.count_call(&text[pos..end]);
            pos = end;
        }
        Some(tokens + self.count_call(&text[pos..]))
    }

    /// [`measure`](Self::measure) without forgetting what was learned of the text measured
    /// before: for a cut block's head, counted while the meter still holds its body.
    pub(crate) fn measure_apart(&mut self, text: &str, room: usize) -> Option<usize> {
        let checkpoints = std::mem::take(&mut self.checkpoints);
        let chunk = std::mem::take(&mut self.chunk);
        let measured = self.measure(text, room, None);
        self.checkpoints = checkpoints;
        self.chunk = chunk;
        measured
    }

    /// Tokenizes `text[from.at..end]` and records checkpoints inside it up to `room` tokens,
    /// and at `mark` if a token ends there. Returns its token count.
    fn tokenize(
        &mut self,
        text: &str,
        from: Checkpoint,
        end: usize,
        room: usize,
        mark: Option<usize>,
    ) -> usize {
        self.bytes_tokenized += end - from.at;
        self.chunk.lengths.clear();
        self.chunk.start = from;
        self.tokenizer
            .token_lengths(&text[from.at..end], &mut self.chunk.lengths);
        self.tokens_seen += self.chunk.lengths.len();
        self.record_checkpoints(text, end, room, mark);
        self.chunk.lengths.len()
    }

    /// After measuring text that overflowed with `mark` at `offset`: makes what was learned
    /// relative to `offset`, as if only `text[offset..]` had been measured, and returns the
    /// count of `text[..offset]`. `None` when the count at `offset` was not seen.
    pub(crate) fn rebase(&mut self, text: &str, offset: usize) -> Option<usize> {
        if !self.tokenizer.splits_exactly(text, offset) {
            return None;
        }
        let start = self.chunk.start;
        // Tokens of the last chunk that end at or before `offset`, if it starts before.
        let mut skip = 0;
        if start.at < offset {
            let mut at = start.at;
            while at < offset {
                at += *self.chunk.lengths.get(skip)? as usize;
                skip += 1;
            }
            if at != offset {
                return None;
            }
            // Tokens of length 0 that end at `offset` count before it (as in the checkpoints).
            while self.chunk.lengths.get(skip) == Some(&0) {
                skip += 1;
            }
        }
        let head = match self.checkpoints.tokens_at(offset) {
            Some(tokens) => tokens,
            None if start.at < offset => start.tokens + skip,
            None => return None,
        };
        self.checkpoints.rebase(offset, head);
        if start.at < offset {
            self.chunk.lengths.drain(..skip);
            self.chunk.start = Checkpoint::START;
        } else {
            self.chunk.start = Checkpoint {
                at: start.at - offset,
                tokens: start.tokens - head,
            };
        }
        Some(head)
    }

    /// The exact token count of `text` if it is at most `room`; `None` if it is more. Either
    /// way, no more of `text` is tokenized than could fit in `room`, plus one chunk. With a
    /// `mark` (an exact split point in `text`), the count there is noted for
    /// [`rebase`](Self::rebase).
    pub(crate) fn measure(
        &mut self,
        text: &str,
        room: usize,
        mark: Option<usize>,
    ) -> Option<usize> {
        self.checkpoints.reset();
        self.chunk.clear();
        let Some(cache) = self.cache else {
            return self.measure_from(text, room, mark);
        };
        let name = self.tokenizer.name();
        let known = cache.get(name, text);
        if let Some(entry) = &known {
            if let Some(total) = entry.total.filter(|&t| t <= room) {
                return Some(total);
            }
            // Start from the furthest checkpoint that still fits.
            self.checkpoints.resume(&entry.checkpoints, room);
            if entry.total.is_some() && entry.checkpoints.len() > self.checkpoints.len() {
                // Known not to fit, and known checkpoints beyond the room: tokenize only the
                // stretch up to the next checkpoint, for the cut.
                let from = self.checkpoints.last();
                let end = entry.checkpoints[self.checkpoints.len()].at;
                self.tokenize(text, from, end, room, mark);
                return None;
            }
        }
        let learned_from = self.checkpoints.len();
        let measured = self.measure_from(text, room, mark);
        if known.is_none() || self.checkpoints.len() > learned_from || measured.is_some() {
            // A total known from before stays known: a smaller room does not unlearn it.
            let total = measured.or_else(|| known.and_then(|entry| entry.total));
            cache.put(name, text, total, self.checkpoints.as_slice());
        }
        measured
    }

    /// Measures `text` from the last checkpoint on.
    fn measure_from(&mut self, text: &str, room: usize, mark: Option<usize>) -> Option<usize> {
        let max_token = self.tokenizer.max_token_bytes().max(1);
        // Measure stretches a little shorter than a call may be: a cut block's body is
        // counted again with its frame, and the newline that ends the kept content belongs
        // to the same stretch.
        let max_call = self
            .call_cap()
            .saturating_sub(FRAME_SLACK_BYTES)
            .max(MIN_CHUNK_BYTES);
        loop {
            let from = self.checkpoints.last();
            if from.at == text.len() {
                return Some(from.tokens);
            }
            let remaining = room.saturating_sub(from.tokens);
            // Text longer than this cannot fit even if every token were as long as the longest.
            let reach = remaining
                .saturating_add(1)
                .saturating_mul(max_token)
                .min(max_call);
            let want = self.chunk_bytes(remaining).clamp(MIN_CHUNK_BYTES, max_call);
            // The chunk the fixed guess would take. Where no exact split is near the chunk
            // sized by what was seen, the meter goes on as it would with the fixed guess: a
            // split is looked for as far as that guess looks, and only then are prefixes
            // probed. Which blocks fit then never depends on the blocks measured before.
            let fixed = fixed_chunk_bytes(remaining).clamp(MIN_CHUNK_BYTES, max_call);
            let end = self.chunk_end(text, from.at, want, max_call).or_else(|| {
                (fixed > want)
                    .then(|| self.chunk_end(text, from.at, fixed, max_call))
                    .flatten()
            });
            let Some(end) = end else {
                return self.probe(text, from, room, fixed, reach);
            };
            if end == text.len()
                && self.cache.is_none()
                && self.likely_fits(end - from.at, remaining)
            {
                // The rest is expected to fit: only its count is needed, not where its tokens
                // end (nothing will be cut, or remembered). Counting skips the token lengths
                // and the checkpoints, which only a cut uses.
                let n = self.count_call(&text[from.at..end]);
                if n <= remaining {
                    return Some(from.tokens + n);
                }
                // It did not fit after all: tokenize the stretch again, for the cut. That is
                // a second pass over one stretch, no more than a chunk, and it happens only
                // where the density changes from block to block (a sparse block, then a dense
                // one). The context is the same either way.
            }
            let n = self.tokenize(text, from, end, room, mark);
            if from.tokens.saturating_add(n) > room {
                return None;
            }
            self.checkpoints.push(Checkpoint {
                at: end,
                tokens: from.tokens + n,
            });
        }
    }

    /// Measures from `from` where no exact split is near: tokenizes ever longer prefixes until
    /// one overflows, reaches the end, or covers all that could fit.
    fn probe(
        &mut self,
        text: &str,
        from: Checkpoint,
        room: usize,
        want: usize,
        reach: usize,
    ) -> Option<usize> {
        let mut size = want;
        loop {
            let end =
                text.floor_char_boundary(from.at.saturating_add(size.min(reach)).min(text.len()));
            let end = if end == from.at {
                text.ceil_char_boundary(from.at + 1)
            } else {
                end
            };
            // The end of a probe is no exact split, so checkpoints inside it would be wrong
            // once the text goes on: record none.
            let n = self.tokenize(text, from, end, 0, None);
            let tokens = from.tokens + n;
            if end == text.len() && tokens <= room {
                self.checkpoints.push(Checkpoint { at: end, tokens });
                return Some(tokens);
            }
            if tokens > room || size >= reach {
                return None;
            }
            // Grow fourfold, but jump to the end rather than take a last small step.
            size = size.saturating_mul(4);
            if size.saturating_mul(2) > reach {
                size = reach;
            }
        }
    }

    /// After [`measure`](Self::measure) overflowed on `text`: the byte position where the
    /// first `n` tokens of `text` end (or where the measured part ends, if that is sooner).
    ///
    /// Tokens between exact split points are the same whichever split the tokenizing started
    /// from, so the answer depends only on the text, never on what the meter happened to see
    /// (a cache hit starts from a different checkpoint than a cold run): cuts are the same
    /// with or without a cache.
    ///
    /// Each call after the first must ask for no more tokens than the one before, as a cut
    /// that aims lower after each overshoot does: a stretch before the measured end is
    /// re-tokenized in place of what was measured last, so a later, larger `n` past that
    /// stretch would get the stretch's end.
    pub(crate) fn token_end(&mut self, text: &str, n: usize) -> usize {
        if n < self.chunk.start.tokens {
            // Re-tokenize the stretch from the last checkpoint at or before token `n` to the
            // next one; with room 0 no checkpoints are recorded, so the list stays as is.
            let (from, next) = self.checkpoints.around_token(n);
            let to = next.unwrap_or(self.chunk.start.at);
            self.tokenize(text, from, to, 0, None);
        }
        let start = self.chunk.start;
        let mut end = start.at;
        for &len in self
            .chunk
            .lengths
            .iter()
            .take(n.saturating_sub(start.tokens))
        {
            end += len as usize;
        }
        end
    }

    /// Counts `text` exactly, reusing the checkpoints of `measured` (the text last measured):
    /// only the part after the last checkpoint the two texts share is tokenized. `None` as for
    /// [`count`](Self::count).
    pub(crate) fn count_reusing(&mut self, measured: &str, text: &str) -> Option<usize> {
        let name = self.tokenizer.name();
        if let Some(total) = self
            .cache
            .and_then(|cache| cache.get(name, text))
            .and_then(|entry| entry.total)
        {
            return Some(total);
        }
        let shared = self.checkpoints.last_where(|c| {
            c.at == 0
                || (c.at < text.len()
                    && text.as_bytes()[..c.at] == measured.as_bytes()[..c.at]
                    && self.tokenizer.splits_exactly(text, c.at))
        });
        let shared = shared.unwrap_or(Checkpoint::START);
        let total = shared.tokens + self.count(&text[shared.at..])?;
        if let Some(cache) = self.cache {
            cache.put(name, text, Some(total), &[Checkpoint::START]);
        }
        Some(total)
    }
}

#[cfg(test)]
mod tests;
