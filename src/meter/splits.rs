//! Where the meter may cut text for the tokenizer: exact split points near a target.

use super::Meter;

impl Meter<'_> {
    /// The last exact split point in `(pos, limit]`, if any.
    pub(super) fn split_before(&self, text: &str, pos: usize, limit: usize) -> Option<usize> {
        let limit = text.floor_char_boundary(limit);
        if limit < text.len() && self.tokenizer.splits_exactly(text, limit) {
            return Some(limit);
        }
        text[pos..limit]
            .char_indices()
            .rev()
            .map(|(i, _)| pos + i)
            .take_while(|&at| at > pos)
            .find(|&at| self.tokenizer.splits_exactly(text, at))
    }

    /// An exact split point in `(pos, text.len())` near `target`: the last one at or before
    /// it, else the first one after it within as far again, never more than `cap` past `pos`.
    pub(super) fn split_near(
        &self,
        text: &str,
        pos: usize,
        target: usize,
        cap: usize,
    ) -> Option<usize> {
        let target = text.floor_char_boundary(target);
        let exact = |at: &usize| self.tokenizer.splits_exactly(text, *at);
        let back = text[pos..target]
            .char_indices()
            .rev()
            .map(|(i, _)| pos + i)
            .take_while(|&at| at > pos)
            .find(exact);
        back.or_else(|| {
            let limit = (target + (target - pos))
                .min(pos.saturating_add(cap))
                .min(text.len());
            let limit = text.floor_char_boundary(limit).max(target);
            text[target..limit]
                .char_indices()
                .map(|(i, _)| target + i)
                .find(exact)
        })
    }
}
