//! Follow-up turns: the previous turn's blocks kept verbatim, new blocks after them.
//!
//! The previous report is checked first (`previous.rs`): sealed, by its seal; otherwise by
//! reading its text back block by block and writing each block again.
//!
//! The previous report's text is re-emitted byte for byte up to its closing, so the new
//! prompt starts with the old one (a provider's prompt cache keeps hitting) and every earlier
//! `[n]` still means the same source. New results are placed after it, numbered on, within
//! what is left of the budget; one with the same source URL and content as an earlier block
//! is not repeated.

mod previous;

#[cfg(feature = "unstable_machinery")]
pub(super) use previous::head_of;

use super::placing::Assembly;
use super::{Assembler, AssemblyStats, Inner};
use crate::context::{AssembledContext, Citation, Omission, OmitReason};
use crate::error::{Error, PreviousTurnReason as Reason};
use crate::fingerprint::Fingerprint;
use crate::rag_result::MentorRagResult;
use previous::Previous;
pub(crate) use previous::ReadBlock;

impl Assembler {
    /// Assembles the next turn of a conversation: `previous` is the report of the turn
    /// before (as returned by [`assemble`](Self::assemble) or this method, or read back from
    /// its JSON).
    ///
    /// The new text begins with `previous.text` up to its closing (for [`PlainFormat`], the
    /// whole of it), byte for byte, and its first chips are `previous.citations`, unchanged:
    /// same numbers, same `inputIndex` (which points into the request of the turn that placed
    /// the block). Then come blocks for `results`, numbered from the next number, within what
    /// is left of this assembler's budget, ranked and filtered as by `assemble`; the block
    /// limit counts the earlier blocks too. A result with the same source URL and content
    /// fingerprint as an earlier block is reported as [`OmitReason::AlreadyInContext`]. The
    /// text's token count is exact and at most the budget, as always.
    ///
    /// [`PlainFormat`]: crate::format::PlainFormat
    ///
    /// # Errors
    ///
    /// - [`Error::EarlierBlocksOverBudget`] when the previous text alone takes more tokens
    ///   than the budget. Nothing is dropped silently: dropping earlier blocks would leave the
    ///   previous answers' markers pointing at nothing, so the caller decides (start a new
    ///   context, or raise the budget).
    /// - [`Error::PreviousTurnMismatch`] when `previous` was not written by an assembler like
    ///   this one, naming what differs: another encoding, citations not numbered 1..n, a text
    ///   that is not exactly this assembler's rendering of its citations (a head, a body or
    ///   a content that is not theirs, text after the last block), or, with a
    ///   [`seal_key`](crate::ContextBuilder::seal_key), a seal that is missing or does not
    ///   match. See [`seal`](crate::seal) for what each kind of report is trusted with.
    ///
    /// ```
    /// use mentor_context::{ContextBuilder, MentorRagResult};
    ///
    /// let assembler = ContextBuilder::new(300).build()?;
    /// let turn_1 = [MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9)];
    /// let first = assembler.assemble(&turn_1);
    /// let turn_2 = [
    ///     MentorRagResult::from_content("Plan A is free.", 0.8),
    ///     MentorRagResult::from_content("Plan B costs 12 EUR.", 0.7),
    /// ];
    /// let next = assembler.assemble_follow_up(&first, &turn_2)?;
    /// assert!(next.text.starts_with(&first.text));
    /// assert_eq!(next.citations.len(), 2);
    /// assert_eq!(next.citations[1].input_index, 0);
    /// assert_eq!(next.omitted[0].input_index, 1);
    /// # Ok::<(), mentor_context::Error>(())
    /// ```
    pub fn assemble_follow_up<'r>(
        &self,
        previous: &AssembledContext<'_>,
        results: &'r [MentorRagResult],
    ) -> Result<AssembledContext<'r>, Error> {
        let Inner { config, frame } = &*self.inner;
        Assembly::new(config, frame)
            .run_follow_up(previous, results)
            .map(|(context, _)| context)
    }
}

impl Assembler {
    /// The content of each block of `context` as the model saw it (cut where its citation is
    /// cut), in citation order, read back from `context.text`: what a dialect's entries and a
    /// quote's check are made from. The text is checked as a follow-up turn checks the
    /// previous report, whether or not it is sealed.
    ///
    /// ```
    /// use mentor_context::{ContextBuilder, MentorRagResult};
    ///
    /// let assembler = ContextBuilder::new(300).build()?;
    /// let results = [MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9)];
    /// let context = assembler.assemble(&results);
    /// assert_eq!(assembler.contents(&context)?, ["Plan B costs 12 EUR."]);
    /// # Ok::<(), mentor_context::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::PreviousTurnMismatch`] when `context` was not written by an assembler like
    /// this one, as for [`assemble_follow_up`](Self::assemble_follow_up).
    pub fn contents(&self, context: &AssembledContext<'_>) -> Result<Vec<String>, Error> {
        let Inner { config, frame } = &*self.inner;
        Ok(Assembly::new(config, frame)
            .read_blocks(context)?
            .into_iter()
            .map(|block| block.content)
            .collect())
    }
}

impl Assembly<'_, '_> {
    /// Each block of `context`, read back and checked.
    pub(crate) fn read_blocks(
        &self,
        context: &AssembledContext<'_>,
    ) -> Result<Vec<ReadBlock>, Error> {
        match self.read_previous(context, true)? {
            Previous::Empty => Ok(Vec::new()),
            Previous::Blocks { read, .. } => Ok(read),
        }
    }
}

impl<'r> Assembly<'_, 'r> {
    /// A follow-up turn after `previous`; see [`Assembler::assemble_follow_up`].
    pub(super) fn run_follow_up(
        mut self,
        previous: &AssembledContext<'_>,
        results: &'r [MentorRagResult],
    ) -> Result<(AssembledContext<'r>, AssemblyStats), Error> {
        let frame = self.frame;
        let sealed = self.config.seal_key.is_some();
        // A sealed report is proven to be ours; any other is read back block by block.
        let (prefix, read) = match self.read_previous(previous, !sealed)? {
            Previous::Empty => return Ok(self.run(results)),
            Previous::Blocks { prefix, read } => (prefix, read),
        };
        let old = previous.text.as_str();
        let earlier = &previous.citations;
        // The chips' counts go on into the next report, whose counts must add up: unsealed,
        // each is counted again from its block.
        self.check_counts(earlier, &read, old)?;
        // The report's own count is not trusted: the text is counted again, in bounded calls.
        let uncountable = || {
            Error::previous_turn(
                Reason::EditedText,
                "its text has a stretch too long to count",
            )
        };
        let old_tokens = self.meter.count(old).ok_or_else(uncountable)?;
        let budget = self.config.budget;
        if old_tokens > budget {
            return Err(Error::EarlierBlocksOverBudget {
                tokens: old_tokens,
                budget,
            });
        }
        let close_tokens = self.meter.count(&frame.close).ok_or_else(uncountable)?;
        let tokenizer = &*self.config.tokenizer;
        let prefix_tokens = if frame.close.is_empty() {
            old_tokens
        } else if tokenizer.splits_exactly(old, prefix.len()) {
            old_tokens - close_tokens
        } else {
            self.meter.count(prefix).ok_or_else(uncountable)?
        };
        let room = budget.saturating_sub(prefix_tokens.saturating_add(close_tokens));
        self.text.clear();
        self.text.push_str(prefix);
        self.joins.push(prefix.len());
        self.citations.extend(earlier.iter().cloned());
        self.earlier_blocks = earlier.len();
        let used = self.place_all(results, room, true);
        self.joins.push(self.text.len());
        self.text.push_str(&frame.close);
        let mut token_count = prefix_tokens + close_tokens + used;
        if !self.joins_exact() {
            token_count = self.recount_new_blocks(old_tokens);
        }
        Ok(self.finish(token_count))
    }

    /// Checks that each of `citations` counts the tokens its block, `read` from `text`, takes,
    /// as an assembly counts them: a whole block is measured in one piece, a cut one as its
    /// head and its body, each alone. (The two agree where the tokenizer splits exactly at the
    /// body; where it does not, either may be the chip's.)
    fn check_counts(
        &mut self,
        citations: &[Citation],
        read: &[ReadBlock],
        text: &str,
    ) -> Result<(), Error> {
        for (citation, block) in citations.iter().zip(read) {
            let whole = self.meter.count(&text[block.head.start..block.body.end]);
            if whole == Some(citation.token_count) {
                continue;
            }
            let head = self.meter.count(&text[block.head.clone()]);
            let body = self.meter.count(&text[block.body.clone()]);
            if head.zip(body).map(|(head, body)| head + body) != Some(citation.token_count) {
                return Err(Error::previous_turn(
                    Reason::EditedBlock(citation.index),
                    format!(
                        "block {}: its citation counts {} tokens, and its text {}",
                        citation.index,
                        citation.token_count,
                        whole.map_or("cannot be counted".to_string(), |n| format!("counts {n}"))
                    ),
                ));
            }
        }
        Ok(())
    }

    /// In a follow-up turn, [`OmitReason::AlreadyInContext`] if an earlier turn's block has
    /// the same source URL and content as `result`; `None` otherwise, and always outside a
    /// follow-up turn. The content is fingerprinted only if a URL matches.
    pub(super) fn in_earlier_turn(&self, result: &MentorRagResult) -> Option<OmitReason> {
        let mut earlier = self.citations[..self.earlier_blocks]
            .iter()
            .filter(|chip| chip.source_url == result.source_url)
            .peekable();
        earlier.peek()?;
        let fingerprint = Fingerprint::of(&result.content);
        earlier
            .any(|chip| chip.fingerprint == fingerprint)
            .then_some(OmitReason::AlreadyInContext)
    }

    /// The recount of a follow-up turn whose joins are not exact: as
    /// [`recount`](Self::recount), but only this turn's blocks are dropped. The earlier text
    /// alone, `old_tokens`, was counted within the budget, so dropping them all is always
    /// enough.
    fn recount_new_blocks(&mut self, old_tokens: usize) -> usize {
        loop {
            if self.citations.len() == self.earlier_blocks {
                return old_tokens;
            }
            // A stretch the tokenizer cannot be handed safely does not fit either.
            let count = self.meter.count(&self.text);
            if let Some(count) = count.filter(|&count| count <= self.config.budget) {
                return count;
            }
            let Some(chip) = self.citations.pop() else {
                return old_tokens;
            };
            self.omitted.insert(
                0,
                Omission {
                    title: chip.title.map(Into::into),
                    source_url: chip.source_url.map(Into::into),
                    score: chip.score,
                    reason: OmitReason::DidNotFit,
                    input_index: chip.input_index,
                },
            );
            // Joins: the previous text's end, then a start and a body start per new block.
            let kept = 1 + 2 * (self.citations.len() - self.earlier_blocks);
            self.text.truncate(self.joins[kept]);
            self.joins.truncate(kept);
            self.joins.push(self.text.len());
            self.text.push_str(&self.frame.close);
        }
    }
}
