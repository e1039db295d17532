//! The slow path for a tokenizer or format whose joins are not exact: recount the whole text.

use std::borrow::Cow;

use super::placing::Assembly;
use crate::context::{Omission, OmitReason};

/// Joins recorded before the first block: the header's end and the opening's end.
pub(super) const JOINS_BEFORE_BLOCKS: usize = 2;

/// Joins recorded per block: its start and its body's start.
pub(super) const JOINS_PER_BLOCK: usize = 2;

impl Assembly<'_, '_> {
    /// Whether every join between separately counted pieces is exact for the tokenizer.
    pub(super) fn joins_exact(&self) -> bool {
        let tokenizer = &*self.config.tokenizer;
        self.joins
            .iter()
            .all(|&at| at == 0 || at == self.text.len() || tokenizer.splits_exactly(&self.text, at))
    }

    /// Counts the whole text, and drops blocks from the end until it fits. Returns the count.
    pub(super) fn recount(&mut self) -> usize {
        loop {
            // A stretch the tokenizer cannot be handed safely does not fit either.
            let count = self.meter.count(&self.text);
            if let Some(count) = count.filter(|&count| count <= self.config.budget) {
                return count;
            }
            let Some(citation) = self.citations.pop() else {
                // Only the header is left, and `build` checked that it fits.
                return self.frame.header_tokens;
            };
            self.omitted.insert(
                0,
                Omission {
                    title: citation.title.map(Cow::Owned),
                    source_url: citation.source_url.map(Cow::Owned),
                    score: citation.score,
                    reason: OmitReason::DidNotFit,
                    input_index: citation.input_index,
                },
            );
            let kept = JOINS_BEFORE_BLOCKS + JOINS_PER_BLOCK * self.citations.len();
            // The dropped block starts at the first join after the kept blocks' joins.
            let block_start = self.joins[kept];
            self.text.truncate(block_start);
            self.joins.truncate(kept);
            if self.citations.is_empty() {
                self.text.truncate(self.joins[0]);
            } else {
                self.joins.push(self.text.len());
                self.text.push_str(&self.frame.close);
            }
        }
    }
}
