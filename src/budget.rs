//! Counting against a budget: tokenizing no further than could still fit, and a cut block
//! only again around the cut.
//!
//! A [`Meter`] measures a piece of text against the room left. It tokenizes in chunks that end
//! at exact split points (see [`TokenCounter::splits_exactly`]), so the chunk counts add up to
//! the count of the whole piece, and it stops at the first chunk that overflows the room. What
//! it saw on the way (exact checkpoints, and the token lengths of the overflowing chunk) is
//! what the builder needs to cut the piece so that it fits.

use unicode_segmentation::GraphemeCursor;

use crate::cache::TokenCache;
use crate::tokenizer::TokenCounter;

/// Bytes per token assumed when choosing how much to tokenize next. English runs about 4.5
/// bytes per token, other scripts fewer, so a chunk sized by this usually overflows the room
/// left: the block that does not fit is then found in one call into the tokenizer (each call
/// costs about 2 us on top of its bytes) at the price of tokenizing a little past the cut.
const CHUNK_BYTES_PER_TOKEN: usize = 5;

/// The smallest chunk worth a call into the tokenizer.
const MIN_CHUNK_BYTES: usize = 64;

/// How the builder treats the first block that does not fit in what is left of the budget.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum Overflow {
    /// Cut its content to fill the room left (at a grapheme boundary, preferring a sentence or
    /// word end), mark it truncated, and stop. It is left out instead when less than the
    /// builder's [`min_truncated_tokens`](crate::ContextBuilder::min_truncated_tokens) would be
    /// left for its content.
    #[default]
    Truncate,
    /// Leave it and every lower-ranked block out.
    Stop,
    /// Leave it out and keep trying lower-ranked blocks.
    Skip,
}

/// Tokens between the checkpoints the meter records inside a chunk. A cut re-tokenizes from
/// the last checkpoint before it, so this bounds that work; recording costs a test per token
/// end, far less than tokenizing.
const CHECKPOINT_EVERY: usize = 32;

/// Measures text against a budget, keeping what it learned for a cut.
pub(crate) struct Meter<'t> {
    tokenizer: &'t dyn TokenCounter,
    cache: Option<&'t TokenCache>,
    /// Exact split points of the last measured text, with the exact count before each,
    /// ascending; always starts with `(0, 0)`.
    checkpoints: Vec<(usize, usize)>,
    /// Token lengths of the last chunk tokenized, which starts at `lengths_start`.
    lengths: Vec<u32>,
    /// Where the chunk in `lengths` starts, and the exact count before it.
    lengths_start: (usize, usize),
    /// A position to record a checkpoint at if a token ends there (0 for none): the end of
    /// a block's head, so the head's count falls out of measuring the whole block.
    mark: usize,
    /// Bytes handed to the tokenizer so far, for tests and benchmarks.
    pub(crate) bytes_tokenized: usize,
}

impl<'t> Meter<'t> {
    pub(crate) fn new(tokenizer: &'t dyn TokenCounter, cache: Option<&'t TokenCache>) -> Self {
        Meter {
            tokenizer,
            cache,
            checkpoints: Vec::new(),
            lengths: Vec::new(),
            lengths_start: (0, 0),
            mark: 0,
            bytes_tokenized: 0,
        }
    }

    /// Counts `text` exactly (no budget).
    pub(crate) fn count(&mut self, text: &str) -> usize {
        self.bytes_tokenized += text.len();
        self.tokenizer.count(text)
    }

    /// Counts `text` exactly, through the cache when there is one: for the small texts of a
    /// cut (its head, its frame), which a warm request would otherwise tokenize every time.
    pub(crate) fn count_cached(&mut self, text: &str) -> usize {
        self.count_cached_with(text, |meter| meter.count(text))
    }

    fn count_cached_with(&mut self, text: &str, count: impl FnOnce(&mut Self) -> usize) -> usize {
        let Some(cache) = self.cache else {
            return count(self);
        };
        let name = self.tokenizer.name();
        if let Some(total) = cache.get(name, text).and_then(|entry| entry.total) {
            return total;
        }
        let total = count(self);
        cache.put(name, text, Some(total), &[(0, 0)]);
        total
    }

    /// Tokenizes `text[pos..end]`, whose exact count before `pos` is `used`, and records
    /// checkpoints inside it up to `room` tokens. Returns its token count.
    fn tokenize(&mut self, text: &str, pos: usize, end: usize, used: usize, room: usize) -> usize {
        self.bytes_tokenized += end - pos;
        self.lengths.clear();
        self.lengths_start = (pos, used);
        self.tokenizer
            .token_lengths(&text[pos..end], &mut self.lengths);
        // Token ends include every piece end, so at an exact split the tokens before it are
        // exactly the count of the text before it.
        let (mut at, mut count, mut since) = (pos, used, 0);
        for &len in &self.lengths {
            at += len as usize;
            count += 1;
            since += 1;
            if count > room || at >= end {
                break;
            }
            if (since >= CHECKPOINT_EVERY || at == self.mark)
                && text.is_char_boundary(at)
                && self.tokenizer.splits_exactly(text, at)
            {
                self.checkpoints.push((at, count));
                since = 0;
            }
        }
        self.lengths.len()
    }

    /// [`measure`](Self::measure), also noting the count at `mark` (an exact split point in
    /// `text`) for [`rebase`](Self::rebase).
    pub(crate) fn measure_marked(&mut self, text: &str, room: usize, mark: usize) -> Option<usize> {
        self.mark = mark;
        let measured = self.measure(text, room);
        self.mark = 0;
        measured
    }

    /// After measuring text that overflowed: makes what was learned relative to `offset` (the
    /// mark), as if only `text[offset..]` had been measured, and returns the count of
    /// `text[..offset]`. `None` when the count at `offset` was not seen.
    pub(crate) fn rebase(&mut self, text: &str, offset: usize) -> Option<usize> {
        if !self.tokenizer.splits_exactly(text, offset) {
            return None;
        }
        let (chunk_start, before_chunk) = self.lengths_start;
        // Tokens of the current chunk that end at or before `offset`, if it starts before.
        let mut skip = 0;
        if chunk_start < offset {
            let mut at = chunk_start;
            while at < offset {
                at += *self.lengths.get(skip)? as usize;
                skip += 1;
            }
            if at != offset {
                return None;
            }
        }
        let head = match self.checkpoints.iter().find(|&&(at, _)| at == offset) {
            Some(&(_, used)) => used,
            None if chunk_start < offset => before_chunk + skip,
            None => return None,
        };
        self.checkpoints.retain(|&(at, _)| at >= offset);
        if self.checkpoints.first().map(|&(at, _)| at) != Some(offset) {
            self.checkpoints.insert(0, (offset, head));
        }
        for checkpoint in &mut self.checkpoints {
            *checkpoint = (checkpoint.0 - offset, checkpoint.1 - head);
        }
        if chunk_start < offset {
            self.lengths.drain(..skip);
            self.lengths_start = (0, 0);
        } else {
            self.lengths_start = (chunk_start - offset, before_chunk - head);
        }
        Some(head)
    }

    /// The exact token count of `text` if it is at most `room`; `None` if it is more. Either
    /// way, no more of `text` is tokenized than could fit in `room`, plus one chunk.
    pub(crate) fn measure(&mut self, text: &str, room: usize) -> Option<usize> {
        self.checkpoints.clear();
        self.checkpoints.push((0, 0));
        self.lengths.clear();
        self.lengths_start = (0, 0);
        let Some(cache) = self.cache else {
            return self.measure_from(text, room, 0, 0);
        };
        let name = self.tokenizer.name();
        let known = cache.get(name, text);
        if let Some(entry) = &known {
            if let Some(total) = entry.total.filter(|&t| t <= room) {
                return Some(total);
            }
            // Start from the furthest checkpoint that still fits.
            self.checkpoints.clear();
            self.checkpoints.extend(
                entry
                    .checkpoints
                    .iter()
                    .take_while(|&&(_, used)| used <= room),
            );
            if entry.total.is_some() && entry.checkpoints.len() > self.checkpoints.len() {
                // Known not to fit, and known checkpoints beyond the room: tokenize only the
                // stretch up to the next checkpoint, for the cut.
                let (pos, used) = *self.checkpoints.last().expect("starts with (0, 0)");
                let end = entry.checkpoints[self.checkpoints.len()].0;
                self.tokenize(text, pos, end, used, room);
                return None;
            }
        }
        let (pos, used) = *self.checkpoints.last().expect("starts with (0, 0)");
        let learned_from = self.checkpoints.len();
        let measured = self.measure_from(text, room, pos, used);
        if known.is_none() || self.checkpoints.len() > learned_from || measured.is_some() {
            cache.put(name, text, measured, &self.checkpoints);
        }
        measured
    }

    fn measure_from(
        &mut self,
        text: &str,
        room: usize,
        mut pos: usize,
        mut used: usize,
    ) -> Option<usize> {
        let max_token = self.tokenizer.max_token_bytes().max(1);
        let max_call = self.tokenizer.max_call_bytes().max(MIN_CHUNK_BYTES);
        loop {
            if pos == text.len() {
                return Some(used);
            }
            let remaining = room - used;
            // Text longer than this cannot fit even if every token were as long as the longest.
            let reach = remaining
                .saturating_add(1)
                .saturating_mul(max_token)
                .min(max_call);
            let want = remaining
                .saturating_mul(CHUNK_BYTES_PER_TOKEN)
                .clamp(MIN_CHUNK_BYTES, max_call);
            let end = if text.len() - pos <= want {
                Some(text.len())
            } else {
                self.split_near(text, pos, pos + want)
            };
            let Some(end) = end else {
                return self.probe(text, pos, used, room, want, reach);
            };
            if end == text.len() && end - pos <= remaining && self.cache.is_none() {
                // Every token spans a byte at least, so the rest fits: only its count is
                // needed, not where its tokens end (nothing will be cut, or remembered).
                return Some(used + self.count(&text[pos..end]));
            }
            let n = self.tokenize(text, pos, end, used, room);
            if used + n > room {
                return None;
            }
            used += n;
            pos = end;
            self.checkpoints.push((pos, used));
        }
    }

    /// Measures from `pos` where no exact split is near: tokenizes ever longer prefixes until
    /// one overflows, reaches the end, or covers all that could fit.
    fn probe(
        &mut self,
        text: &str,
        pos: usize,
        used: usize,
        room: usize,
        want: usize,
        reach: usize,
    ) -> Option<usize> {
        let mut size = want;
        loop {
            let end = text.floor_char_boundary((pos + size.min(reach)).min(text.len()));
            let end = if end == pos {
                text.ceil_char_boundary(pos + 1)
            } else {
                end
            };
            // The end of a probe is no exact split, so checkpoints inside it would be wrong
            // once the text goes on: record none.
            let n = self.tokenize(text, pos, end, used, 0);
            if end == text.len() && used + n <= room {
                self.checkpoints.push((end, used + n));
                return Some(used + n);
            }
            if used + n > room || size >= reach {
                return None;
            }
            // Grow fourfold, but jump to the end rather than take a last small step.
            size = size.saturating_mul(4);
            if size.saturating_mul(2) > reach {
                size = reach;
            }
        }
    }

    /// An exact split point in `(pos, text.len())` near `target`: the last one at or before
    /// it, else the first one after it within as far again.
    fn split_near(&self, text: &str, pos: usize, target: usize) -> Option<usize> {
        let target = text.floor_char_boundary(target);
        let exact = |at: &usize| self.tokenizer.splits_exactly(text, *at);
        let back = text[pos..target]
            .char_indices()
            .rev()
            .map(|(i, _)| pos + i)
            .take_while(|&at| at > pos)
            .find(exact);
        back.or_else(|| {
            let limit = text.floor_char_boundary((target + (target - pos)).min(text.len()));
            text[target..limit]
                .char_indices()
                .map(|(i, _)| target + i)
                .find(exact)
        })
    }

    /// After [`measure`](Self::measure) overflowed on `text`: the byte position where the
    /// first `n` tokens of `text` end (or where the measured part ends, if that is sooner).
    ///
    /// Tokens between exact split points are the same whichever split the tokenizing started
    /// from, so the answer depends only on the text, never on what the meter happened to see
    /// (a cache hit starts from a different checkpoint than a cold run): cuts are the same
    /// with or without a cache.
    pub(crate) fn token_end(&mut self, text: &str, n: usize) -> usize {
        let (start, used) = self.lengths_start;
        if n < used {
            // Re-tokenize the stretch from the last checkpoint at or before token `n` to the
            // next one; with room 0 no checkpoints are recorded, so the list stays as is.
            let i = self.checkpoints.partition_point(|&(_, u)| u <= n) - 1;
            let (from, before) = self.checkpoints[i];
            let to = self.checkpoints.get(i + 1).map_or(start, |&(p, _)| p);
            self.tokenize(text, from, to, before, 0);
        }
        let (mut end, used) = self.lengths_start;
        for &len in self.lengths.iter().take(n.saturating_sub(used)) {
            end += len as usize;
        }
        end
    }

    /// Counts `text` exactly, reusing the checkpoints of `measured` (the text last measured):
    /// only the part after the last checkpoint the two texts share is tokenized.
    pub(crate) fn count_reusing(&mut self, measured: &str, text: &str) -> usize {
        self.count_cached_with(text, |meter| {
            let shared = meter.checkpoints.iter().rev().copied().find(|&(at, _)| {
                at == 0
                    || (at < text.len()
                        && text.as_bytes()[..at] == measured.as_bytes()[..at]
                        && meter.tokenizer.splits_exactly(text, at))
            });
            let (at, used) = shared.unwrap_or((0, 0));
            used + meter.count(&text[at..])
        })
    }
}

/// Where to cut `content` so that at most `max` bytes of it are kept: a grapheme boundary,
/// moved back to the end of a sentence or word when one is close, with trailing whitespace
/// dropped.
pub(crate) fn cut_point(content: &str, max: usize) -> usize {
    let max = content.floor_char_boundary(max.min(content.len()));
    let grapheme = if is_grapheme_boundary(content, max) {
        max
    } else {
        GraphemeCursor::new(max, content.len(), true)
            .prev_boundary(content, 0)
            .ok()
            .flatten()
            .unwrap_or(0)
    };
    // "Close" is the last tenth of what is kept, between 64 and 256 bytes: stepping back
    // further would waste budget for a tidier end.
    let window_start = grapheme - (grapheme / 10).clamp(64, 256).min(grapheme);
    let mut chars = content[..grapheme].char_indices().rev().peekable();
    let mut sentence_end = None;
    let mut word_end = None;
    while let Some((i, c)) = chars.next() {
        let Some(&(_, before)) = chars.peek() else {
            break;
        };
        if i < window_start {
            break;
        }
        if c.is_whitespace() && !before.is_whitespace() {
            word_end.get_or_insert(i);
            if matches!(before, '.' | '!' | '?' | '。' | '！' | '？' | '…') {
                sentence_end = Some(i);
                break;
            }
        }
    }
    // Whitespace nearly always starts a grapheme, but not after a prepended mark such as
    // U+0600, so every candidate is checked.
    [sentence_end, word_end, Some(grapheme)]
        .into_iter()
        .flatten()
        .map(|end| content[..end].trim_end().len())
        .find(|&end| is_grapheme_boundary(content, end))
        .unwrap_or(grapheme)
}

fn is_grapheme_boundary(text: &str, at: usize) -> bool {
    text.is_char_boundary(at)
        && GraphemeCursor::new(at, text.len(), true)
            .is_boundary(text, 0)
            .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Encoding;

    #[test]
    fn measure_matches_count_when_it_fits() {
        let text = "The quick brown fox jumps over the lazy dog. ".repeat(200);
        let mut meter = Meter::new(&Encoding::Cl100kBase, None);
        let n = Encoding::Cl100kBase.count(&text);
        assert_eq!(meter.measure(&text, n), Some(n));
        assert_eq!(meter.measure(&text, n - 1), None);
    }

    #[test]
    fn measure_stops_near_the_room() {
        let text = "The quick brown fox jumps over the lazy dog. ".repeat(2000);
        let mut meter = Meter::new(&Encoding::O200kBase, None);
        assert_eq!(meter.measure(&text, 100), None);
        // 100 tokens are about 450 bytes; the meter may look one chunk further.
        assert!(meter.bytes_tokenized < 1000, "{}", meter.bytes_tokenized);
    }

    #[test]
    fn cut_prefers_sentence_then_word_end() {
        let text = "One two three. Four five six seven";
        assert_eq!(&text[..cut_point(text, 17)], "One two three.");
        let long = format!("{} {}", "word ".repeat(40), "x".repeat(80));
        // The sentence end is too far back; the last word end is close.
        assert_eq!(cut_point(&long, 250), 199);
        assert_eq!(&text[..cut_point(text, 8)], "One two");
        assert_eq!(&text[..cut_point(text, 9)], "One two");
        // No whitespace: a grapheme boundary, never inside the cluster.
        let family = "👨‍👩‍👧‍👦👨‍👩‍👧‍👦";
        let cut = cut_point(family, 30);
        assert_eq!(cut, family.len() / 2);
    }

    #[test]
    fn cut_never_splits_combining_marks() {
        let text = "e\u{301}e\u{301}e\u{301}";
        for max in 0..=text.len() {
            let cut = cut_point(text, max);
            assert!(cut.is_multiple_of(3), "cut {cut} for {max}");
        }
    }
}
