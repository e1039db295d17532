//! The builder: configured once, then assembling the context of every request.

use std::borrow::Cow;
use std::cmp::Ordering;
use std::fmt;
use std::sync::{Arc, OnceLock};

use crate::budget::{Meter, Overflow, cut_point};
use crate::cache::TokenCache;
use crate::context::{AssembledContext, Citation, Omission, OmitReason};
use crate::error::Error;
use crate::format::{BlockHead, Format, PlainFormat};
use crate::record::MentorRagResult;
use crate::tokenizer::{Encoding, TokenCounter};

/// Content tokens a cut block keeps at least, unless the budget is smaller. Less than a
/// sentence or two tells the model little and costs a head and frame.
const DEFAULT_MIN_TRUNCATED_TOKENS: usize = 32;

/// What to do with results that have the same source URL and content.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, Default, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum Duplicates {
    /// Keep the best-ranked one and leave the others out.
    #[default]
    Drop,
    /// Keep them all.
    Keep,
}

/// Turns ranked retrieval results into the context block of a prompt, within a token budget.
///
/// Configure it once, share it (it is `Send + Sync`; put it in an `Arc`), and call
/// [`assemble`](Self::assemble) per request.
///
/// ```
/// use mentor_context::{ContextBuilder, Encoding, MentorRagResult, Overflow, XmlFormat};
///
/// let builder = ContextBuilder::new(1500)
///     .encoding(Encoding::Cl100kBase)
///     .format(XmlFormat)
///     .overflow(Overflow::Skip)
///     .min_score(0.2)
///     .max_blocks(8)
///     .hide_metadata_key("chunk_id")
///     .header("Answer from these documents and cite them as [n].");
/// builder.check()?;
///
/// let results = [MentorRagResult::new("Plan B costs 12 EUR.", Some("https://x.example/p"), Some("Prices"), 0.9)];
/// let context = builder.assemble(&results)?;
/// assert!(context.text.contains("<document index=\"1\">"));
/// assert!(context.token_count <= 1500);
/// # Ok::<(), mentor_context::Error>(())
/// ```
#[derive(Clone)]
pub struct ContextBuilder {
    budget: usize,
    tokenizer: Arc<dyn TokenCounter>,
    format: Arc<dyn Format>,
    overflow: Overflow,
    duplicates: Duplicates,
    min_score: Option<f32>,
    max_blocks: Option<usize>,
    /// `None` until set: the default adapts to small budgets instead of failing them.
    min_truncated_tokens: Option<usize>,
    hidden_keys: Vec<String>,
    header: Option<String>,
    cache: Option<TokenCache>,
    /// The counts that depend only on the configuration, worked out on first use.
    frame: OnceLock<Result<Frame, Error>>,
}

/// The fixed parts of every context, counted once per builder.
#[derive(Debug, Clone)]
struct Frame {
    header: String,
    header_tokens: usize,
    open: String,
    close: String,
    /// Tokens of the opening plus the closing: paid once when at least one block is in.
    open_close_tokens: usize,
    /// Tokens of a cut body's frame around its content (fence or tags, truncation mark),
    /// before and after. Estimates for aiming a cut (a longer fence costs a token more); the
    /// cut itself is counted exactly.
    cut_open_tokens: usize,
    cut_close_tokens: usize,
}

impl ContextBuilder {
    /// A builder for `budget` tokens, with the defaults: the `o200k_base` encoding,
    /// [`PlainFormat`], [`Overflow::Truncate`], [`Duplicates::Drop`], no minimum score, no
    /// block limit, no header, and a truncated block only when 32 tokens (or the whole budget,
    /// if it is smaller) are left for its content.
    pub fn new(budget: usize) -> ContextBuilder {
        ContextBuilder {
            budget,
            tokenizer: Arc::new(Encoding::default()),
            format: Arc::new(PlainFormat),
            overflow: Overflow::default(),
            duplicates: Duplicates::default(),
            min_score: None,
            max_blocks: None,
            min_truncated_tokens: None,
            hidden_keys: Vec::new(),
            header: None,
            cache: None,
            frame: OnceLock::new(),
        }
    }

    fn changed(mut self) -> Self {
        self.frame = OnceLock::new();
        self
    }

    /// Sets the budget: the most tokens the whole text may take.
    pub fn budget(mut self, budget: usize) -> Self {
        self.budget = budget;
        self.changed()
    }

    /// Counts with one of OpenAI's encodings.
    pub fn encoding(self, encoding: Encoding) -> Self {
        self.tokenizer(encoding)
    }

    /// Counts with any [`TokenCounter`].
    pub fn tokenizer(mut self, tokenizer: impl TokenCounter + 'static) -> Self {
        self.tokenizer = Arc::new(tokenizer);
        self.changed()
    }

    /// Writes blocks in `format`.
    pub fn format(mut self, format: impl Format + 'static) -> Self {
        self.format = Arc::new(format);
        self.changed()
    }

    /// Sets what happens to the first block that does not fit.
    pub fn overflow(mut self, overflow: Overflow) -> Self {
        self.overflow = overflow;
        self
    }

    /// Sets what happens to results with the same source URL and content.
    pub fn duplicates(mut self, duplicates: Duplicates) -> Self {
        self.duplicates = duplicates;
        self
    }

    /// Leaves out results scored below `min` (a NaN score is below any minimum).
    pub fn min_score(mut self, min: f32) -> Self {
        self.min_score = Some(min);
        self.changed()
    }

    /// Puts at most `max` blocks in the text.
    pub fn max_blocks(mut self, max: usize) -> Self {
        self.max_blocks = Some(max);
        self
    }

    /// With [`Overflow::Truncate`], cuts a block only if at least `min` tokens are left for its
    /// content after its head and frame; otherwise it is left out. Setting it above the budget
    /// is an error ([`Error::MinTruncatedOverBudget`]).
    pub fn min_truncated_tokens(mut self, min: usize) -> Self {
        self.min_truncated_tokens = Some(min);
        self.changed()
    }

    /// Keeps metadata `key` on the citation chips but out of the prompt.
    pub fn hide_metadata_key(mut self, key: impl Into<String>) -> Self {
        self.hidden_keys.push(key.into());
        self
    }

    /// Puts `header` before the blocks, counted in the budget. Trailing whitespace is dropped
    /// and a newline added; an empty header adds nothing.
    pub fn header(mut self, header: impl Into<String>) -> Self {
        self.header = Some(header.into());
        self.changed()
    }

    /// Remembers token counts in `cache`, so documents seen before are not tokenized again.
    /// Clones of a [`TokenCache`] share it, so one cache can serve several builders.
    pub fn cache(mut self, cache: TokenCache) -> Self {
        self.cache = Some(cache);
        self
    }

    /// Writes the head of `result` as block `index` in the configured format.
    fn write_head(
        &self,
        result: &MentorRagResult,
        index: usize,
        truncated: bool,
        out: &mut String,
    ) {
        let head = BlockHead::new(
            index,
            result.display_title(),
            truncated,
            result.metadata.as_ref(),
            &self.hidden_keys,
        );
        self.format.head(&head, out);
    }

    /// Whether `score` is below the minimum; NaN is below any minimum.
    fn below_min_score(&self, score: f32) -> bool {
        self.min_score.is_some_and(|min| {
            !matches!(
                score.partial_cmp(&min),
                Some(Ordering::Greater | Ordering::Equal)
            )
        })
    }

    /// The smallest number of content tokens worth keeping of a cut block.
    fn effective_min_truncated_tokens(&self) -> usize {
        self.min_truncated_tokens
            .unwrap_or(DEFAULT_MIN_TRUNCATED_TOKENS.min(self.budget))
    }

    /// The budget.
    pub fn get_budget(&self) -> usize {
        self.budget
    }

    /// The tokenizer's name, as reported in [`AssembledContext::encoding`].
    pub fn tokenizer_name(&self) -> &str {
        self.tokenizer.name()
    }

    /// Checks that the configuration can produce a context, and does the one-off work
    /// (building the encoding's tables, counting the header) now rather than on the first
    /// request.
    ///
    /// # Errors
    ///
    /// - [`Error::HeaderOverBudget`] when the header alone is over the budget;
    /// - [`Error::MinTruncatedOverBudget`] when `min_truncated_tokens` is over the budget;
    /// - [`Error::NanMinScore`] when the minimum score is NaN.
    pub fn check(&self) -> Result<(), Error> {
        self.frame().map(|_| ())
    }

    fn frame(&self) -> Result<&Frame, Error> {
        self.frame
            .get_or_init(|| {
                if self.min_score.is_some_and(f32::is_nan) {
                    return Err(Error::NanMinScore);
                }
                if let Some(min) = self.min_truncated_tokens.filter(|&min| min > self.budget) {
                    return Err(Error::MinTruncatedOverBudget {
                        min_tokens: min,
                        budget: self.budget,
                    });
                }
                let header = match self.header.as_deref().map(str::trim_end) {
                    Some(h) if !h.is_empty() => format!("{h}\n"),
                    _ => String::new(),
                };
                let header_tokens = self.tokenizer.count(&header);
                if header_tokens > self.budget {
                    return Err(Error::HeaderOverBudget {
                        header_tokens,
                        budget: self.budget,
                    });
                }
                let (mut open, mut close) = (String::new(), String::new());
                self.format.open(&mut open);
                self.format.close(&mut close);
                let open_close_tokens = self.tokenizer.count(&open) + self.tokenizer.count(&close);
                let (mut cut_open, mut cut_close) = (String::new(), String::new());
                self.format.content_open("", &mut cut_open);
                self.format.content_close("", true, &mut cut_close);
                Ok(Frame {
                    header,
                    header_tokens,
                    open,
                    close,
                    open_close_tokens,
                    cut_open_tokens: self.tokenizer.count(&cut_open),
                    cut_close_tokens: self.tokenizer.count(&cut_close),
                })
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// Assembles the context for `results`.
    ///
    /// The results are ranked by score, highest first (stable; NaN last), filtered by the
    /// minimum score, duplicates and block limit, and written as blocks until the budget is
    /// full. The text's token count, as the configured tokenizer counts it, is exactly
    /// [`AssembledContext::token_count`] and never more than the budget.
    ///
    /// # Errors
    ///
    /// Only configuration errors, as [`check`](Self::check) reports them; any results are
    /// accepted.
    pub fn assemble<'r>(
        &self,
        results: &'r [MentorRagResult],
    ) -> Result<AssembledContext<'r>, Error> {
        self.assemble_metered(results).map(|(context, _)| context)
    }

    /// [`assemble`](Self::assemble), also returning how many bytes were handed to the
    /// tokenizer: the figure the performance gates and benchmarks watch.
    #[doc(hidden)]
    pub fn assemble_metered<'r>(
        &self,
        results: &'r [MentorRagResult],
    ) -> Result<(AssembledContext<'r>, usize), Error> {
        let frame = self.frame()?;
        let mut assembly = Assembly {
            builder: self,
            meter: Meter::new(&*self.tokenizer, self.cache.as_ref()),
            text: String::with_capacity(self.budget.saturating_mul(5).min(1 << 20)),
            joins: Vec::new(),
            citations: Vec::new(),
            omitted: Vec::new(),
            considered: Vec::new(),
            scratch: String::new(),
        };
        assembly.text.push_str(&frame.header);
        let blocks_start = assembly.text.len();
        assembly.joins.push(blocks_start);
        assembly.text.push_str(&frame.open);
        assembly.joins.push(assembly.text.len());
        let block_room = self
            .budget
            .checked_sub(frame.header_tokens + frame.open_close_tokens);
        let blocks_tokens = match block_room {
            Some(room) => assembly.place_all(results, room),
            None => {
                assembly.omit_rest(results, ranked(results).into_iter());
                0
            }
        };
        let mut token_count = frame.header_tokens;
        if assembly.citations.is_empty() {
            assembly.text.truncate(blocks_start);
            assembly.joins.clear();
            assembly.joins.push(blocks_start);
        } else {
            token_count += frame.open_close_tokens + blocks_tokens;
            assembly.joins.push(assembly.text.len());
            assembly.text.push_str(&frame.close);
        }
        if !assembly.joins_exact() {
            token_count = assembly.recount();
        }
        let Assembly {
            meter,
            text,
            citations,
            omitted,
            ..
        } = assembly;
        Ok((
            AssembledContext {
                text,
                token_count,
                budget: self.budget,
                encoding: self.tokenizer.name().to_string(),
                citations,
                omitted,
            },
            meter.bytes_tokenized,
        ))
    }
}

impl fmt::Debug for ContextBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ContextBuilder")
            .field("budget", &self.budget)
            .field("tokenizer", &self.tokenizer.name())
            .field("format", &self.format.name())
            .field("overflow", &self.overflow)
            .field("duplicates", &self.duplicates)
            .field("min_score", &self.min_score)
            .field("max_blocks", &self.max_blocks)
            .field("min_truncated_tokens", &self.min_truncated_tokens)
            .field("hidden_keys", &self.hidden_keys)
            .field("header", &self.header)
            .field("cache", &self.cache.as_ref().map(TokenCache::len))
            .finish()
    }
}

/// Indices of `results`, best first: by score, descending, stable, NaN last.
///
/// Sorts compact `(key, index)` pairs rather than indices compared through the results: with
/// thousands of results, chasing each score through memory cost more than the sort. The index
/// breaks ties, so an unstable sort of the pairs is stable by score.
fn ranked(results: &[MentorRagResult]) -> Vec<usize> {
    let mut keys: Vec<(u32, usize)> = results
        .iter()
        .enumerate()
        .map(|(i, r)| (descending_key(r.score), i))
        .collect();
    keys.sort_unstable();
    keys.into_iter().map(|(_, i)| i).collect()
}

/// A key whose ascending order is descending score, with NaN after every number and -0.0
/// equal to 0.0.
fn descending_key(score: f32) -> u32 {
    if score.is_nan() {
        return u32::MAX;
    }
    let bits = if score == 0.0 { 0 } else { score.to_bits() };
    // Negative floats order backwards by their bits, positive ones forwards: flip so that
    // the integers order as the floats do.
    let ascending = if bits >> 31 == 1 {
        !bits
    } else {
        bits | 1 << 31
    };
    !ascending
}

/// Where [`Assembly::place`] wrote and measured a block that did not fit whole.
struct Measured {
    /// Where the block starts in the text.
    start: usize,
    /// Where its body starts.
    body_start: usize,
    /// Tokens of its head.
    head_tokens: usize,
    /// Bytes of content in the measured body.
    prefix_len: usize,
    /// Where the content starts in the measured body.
    content_offset: usize,
}

/// The state of one call to `assemble`.
struct Assembly<'b, 'r> {
    builder: &'b ContextBuilder,
    meter: Meter<'b>,
    text: String,
    /// Byte offsets in `text` where separately counted pieces meet.
    joins: Vec<usize>,
    citations: Vec<Citation>,
    omitted: Vec<Omission<'r>>,
    /// Results already considered for a block, to find duplicates.
    considered: Vec<&'r MentorRagResult>,
    scratch: String,
}

impl<'b, 'r> Assembly<'b, 'r> {
    /// Places blocks in rank order within `room` tokens; returns the tokens they take.
    fn place_all(&mut self, results: &'r [MentorRagResult], mut room: usize) -> usize {
        let builder = self.builder;
        let order = ranked(results);
        let mut order = order.into_iter();
        let mut used = 0;
        for i in order.by_ref() {
            let result = &results[i];
            if builder.below_min_score(result.score) {
                self.omit(result, OmitReason::BelowMinScore);
                continue;
            }
            if builder.duplicates == Duplicates::Drop
                && self.considered.iter().any(|seen| {
                    seen.content.len() == result.content.len()
                        && seen.source_url == result.source_url
                        && seen.content == result.content
                })
            {
                self.omit(result, OmitReason::Duplicate);
                continue;
            }
            if self.at_block_limit() {
                self.omit(result, OmitReason::OverBlockLimit);
                continue;
            }
            self.considered.push(result);
            let index = self.citations.len() + 1;
            let truncate = builder.overflow == Overflow::Truncate;
            match self.place(result, index, room, truncate) {
                Some((tokens, truncated)) => {
                    used += tokens;
                    room -= tokens;
                    self.cite(result, index, tokens, truncated);
                    if truncated {
                        break;
                    }
                }
                None => {
                    self.omit(result, OmitReason::DidNotFit);
                    if builder.overflow != Overflow::Skip || room == 0 {
                        break;
                    }
                }
            }
        }
        self.omit_rest(results, order);
        used
    }

    /// Leaves out every remaining result, with the first reason that applies.
    fn omit_rest(&mut self, results: &'r [MentorRagResult], rest: impl Iterator<Item = usize>) {
        let builder = self.builder;
        for i in rest {
            let result = &results[i];
            let reason = if builder.below_min_score(result.score) {
                OmitReason::BelowMinScore
            } else if self.at_block_limit() {
                OmitReason::OverBlockLimit
            } else {
                // Once the budget is full, the rest are not compared for duplicates: that
                // would cost time in proportion to the input, not the output.
                OmitReason::DidNotFit
            };
            self.omit(result, reason);
        }
    }

    fn at_block_limit(&self) -> bool {
        self.builder
            .max_blocks
            .is_some_and(|max| self.citations.len() >= max)
    }

    fn omit(&mut self, result: &'r MentorRagResult, reason: OmitReason) {
        self.omitted.push(Omission {
            title: result.display_title().map(Cow::Borrowed),
            source_url: result.source_url.as_deref().map(Cow::Borrowed),
            score: result.score,
            reason,
        });
    }

    fn cite(&mut self, result: &MentorRagResult, index: usize, tokens: usize, truncated: bool) {
        self.citations.push(Citation {
            index,
            title: result.display_title().map(str::to_string),
            source_url: result.source_url.clone(),
            score: result.score,
            metadata: result.metadata.clone(),
            truncated,
            token_count: tokens,
        });
    }

    /// Writes `result` as block `index` if it fits in `room`, cutting it if `truncate` allows;
    /// returns its tokens and whether it was cut. On `None` the text is as before.
    fn place(
        &mut self,
        result: &MentorRagResult,
        index: usize,
        room: usize,
        truncate: bool,
    ) -> Option<(usize, bool)> {
        let start = self.text.len();
        let builder = self.builder;
        builder.write_head(result, index, false, &mut self.text);
        let body_start = self.text.len();
        let format = &*self.builder.format;
        let content = &result.content;
        // Render no more content than could fit: a huge result costs what fits, not its size.
        let max_token = self.builder.tokenizer.max_token_bytes();
        let reach = room.saturating_add(1).saturating_mul(max_token);
        let mut limit = room.saturating_mul(16).max(256).min(reach);
        // Head and body are measured in one go (each call into the tokenizer has a cost of its
        // own); the head's count is noted on the way, for a cut.
        let (prefix_len, content_offset) = loop {
            let prefix = &content[..content.floor_char_boundary(limit.min(content.len()))];
            let whole = prefix.len() == content.len();
            format.content_open(prefix, &mut self.text);
            let content_offset = self.text.len() - body_start;
            format.content(prefix, &mut self.text);
            format.content_close(prefix, !whole, &mut self.text);
            let block = &self.text[start..];
            match self.meter.measure_marked(block, room, body_start - start) {
                Some(tokens) if whole => {
                    self.record_block(start, body_start);
                    return Some((tokens, false));
                }
                Some(_) if limit < reach => {
                    // All of this prefix fits: the content is unusually dense (long runs of
                    // whitespace, say). Render all that could possibly fit and measure again.
                    limit = reach;
                    self.text.truncate(body_start);
                }
                _ => break (prefix.len(), content_offset),
            }
        };
        if !truncate {
            self.text.truncate(start);
            return None;
        }
        let head_tokens = match self.meter.rebase(&self.text[start..], body_start - start) {
            Some(head_tokens) => head_tokens,
            None => {
                // The head's end was not seen (the head alone overflows, or the tokenizer
                // reports no exact splits): measure the body alone.
                let head_tokens = self.meter.count_cached(&self.text[start..body_start]);
                if head_tokens >= room {
                    self.text.truncate(start);
                    return None;
                }
                if let Some(tokens) = self
                    .meter
                    .measure(&self.text[body_start..], room - head_tokens)
                    && prefix_len == content.len()
                {
                    self.record_block(start, body_start);
                    return Some((head_tokens + tokens, false));
                }
                head_tokens
            }
        };
        let measured = Measured {
            start,
            body_start,
            head_tokens,
            prefix_len,
            content_offset,
        };
        let placed = self.cut(result, index, measured, room);
        if placed.is_none() {
            self.text.truncate(start);
        }
        placed
    }

    /// Records that a block starts at `start` and its body at `body_start`: both are joins
    /// between separately counted pieces.
    fn record_block(&mut self, start: usize, body_start: usize) {
        self.joins.push(start);
        self.joins.push(body_start);
    }

    /// Cuts the block that [`place`](Self::place) measured so that it fits in `room`. The
    /// meter still holds what it saw of the body.
    fn cut(
        &mut self,
        result: &MentorRagResult,
        index: usize,
        measured: Measured,
        room: usize,
    ) -> Option<(usize, bool)> {
        let Measured {
            start,
            body_start,
            head_tokens,
            prefix_len,
            content_offset,
        } = measured;
        let format = &*self.builder.format;
        let content = &result.content;
        let frame = self.builder.frame().expect("checked before assembling");
        let min = self.builder.effective_min_truncated_tokens().max(1);
        if room < head_tokens + frame.cut_open_tokens + frame.cut_close_tokens + min {
            return None;
        }
        // Keep the measured body: the meter's checkpoints refer to it.
        self.scratch.clear();
        self.scratch.push_str(&self.text[body_start..]);
        // The head of a cut block may differ (a truncation mark); count it only if it does.
        let mut head = String::new();
        self.builder.write_head(result, index, true, &mut head);
        let head_tokens = if head == self.text[start..body_start] {
            head_tokens
        } else {
            self.meter.count_cached(&head)
        };
        self.text.truncate(start);
        self.text.push_str(&head);
        let body_start = self.text.len();
        // Aim for the content that ends where the body's tokens, plus the closing, fill the
        // room. Joining the kept text to the closing can merge or split a token at the seam,
        // and the cut moves back to a word end; the exact count decides, and an overshoot
        // aims that many tokens lower.
        let mut target = room
            .checked_sub(head_tokens)?
            .saturating_sub(frame.cut_close_tokens);
        for _ in 0..16 {
            let keep = self
                .meter
                .token_end(&self.scratch, target)
                .saturating_sub(content_offset)
                .min(prefix_len);
            let end = cut_point(content, keep);
            if end == 0 {
                return None;
            }
            let kept = &content[..end];
            self.text.truncate(body_start);
            format.content_open(kept, &mut self.text);
            format.content(kept, &mut self.text);
            format.content_close(kept, true, &mut self.text);
            let body = &self.text[body_start..];
            let body_tokens = self.meter.count_reusing(&self.scratch, body);
            let tokens = head_tokens + body_tokens;
            if tokens <= room {
                self.record_block(start, body_start);
                return Some((tokens, true));
            }
            target = target.checked_sub(tokens - room)?;
        }
        None
    }

    /// Whether every join between separately counted pieces is exact for the tokenizer.
    fn joins_exact(&self) -> bool {
        let tokenizer = &*self.builder.tokenizer;
        self.joins
            .iter()
            .all(|&at| at == 0 || at == self.text.len() || tokenizer.splits_exactly(&self.text, at))
    }

    /// The slow path for tokenizers or formats whose joins are not exact: counts the whole
    /// text, and drops blocks from the end until it fits.
    fn recount(&mut self) -> usize {
        let frame = self.builder.frame().expect("checked before assembling");
        loop {
            let count = self.meter.count(&self.text);
            if count <= self.builder.budget || self.citations.is_empty() {
                return count;
            }
            // Drop the last block: its start is the last recorded block start.
            let citation = self.citations.pop().expect("not empty");
            self.omitted.insert(
                0,
                Omission {
                    title: citation.title.map(Cow::Owned),
                    source_url: citation.source_url.map(Cow::Owned),
                    score: citation.score,
                    reason: OmitReason::DidNotFit,
                },
            );
            // joins: [header end, open end, (block start, body start)*, close start]
            let block_start = self.joins[2 + 2 * self.citations.len()];
            self.text.truncate(block_start);
            self.joins.truncate(2 + 2 * self.citations.len());
            if self.citations.is_empty() {
                self.text.truncate(self.joins[0]);
            } else {
                self.joins.push(self.text.len());
                self.text.push_str(&frame.close);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descending_keys_order_scores_high_to_low_with_nan_last() {
        let scores = [
            f32::INFINITY,
            1.5,
            f32::MIN_POSITIVE / 4.0,
            0.0,
            -f32::MIN_POSITIVE / 4.0,
            -1.5,
            f32::NEG_INFINITY,
            f32::NAN,
        ];
        for pair in scores.windows(2) {
            assert!(
                descending_key(pair[0]) < descending_key(pair[1]),
                "{} before {}",
                pair[0],
                pair[1]
            );
        }
        assert_eq!(descending_key(-0.0), descending_key(0.0));
        assert_eq!(descending_key(-f32::NAN), descending_key(f32::NAN));
    }
}
