//! What measuring a text learns: exact split points with the count before each.

/// An exact split point of a measured text, with the exact token count of the text before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Checkpoint {
    /// Byte offset in the text.
    pub(crate) at: usize,
    /// Tokens of `text[..at]`.
    pub(crate) tokens: usize,
}

impl Checkpoint {
    /// The start of every text: nothing before it.
    pub(crate) const START: Checkpoint = Checkpoint { at: 0, tokens: 0 };
}

/// The checkpoints of one text, ascending; always starts with [`Checkpoint::START`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Checkpoints(Vec<Checkpoint>);

impl Default for Checkpoints {
    fn default() -> Self {
        Checkpoints(vec![Checkpoint::START])
    }
}

impl Checkpoints {
    /// Forgets all but the start, for a new text.
    pub(crate) fn reset(&mut self) {
        self.0.clear();
        self.0.push(Checkpoint::START);
    }

    /// Starts from what a cache knew of the text: the checkpoints of `known` whose count is
    /// at most `room`.
    pub(crate) fn resume(&mut self, known: &[Checkpoint], room: usize) {
        self.0.clear();
        self.0.extend(
            known
                .iter()
                .take_while(|checkpoint| checkpoint.tokens <= room),
        );
        if self.0.is_empty() {
            self.0.push(Checkpoint::START);
        }
    }

    pub(crate) fn push(&mut self, checkpoint: Checkpoint) {
        self.0.push(checkpoint);
    }

    /// The furthest checkpoint.
    pub(crate) fn last(&self) -> Checkpoint {
        *self.0.last().unwrap_or(&Checkpoint::START)
    }

    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    pub(crate) fn as_slice(&self) -> &[Checkpoint] {
        &self.0
    }

    /// The last checkpoint with at most `n` tokens before it, and the position of the next
    /// one, if any.
    pub(crate) fn around_token(&self, n: usize) -> (Checkpoint, Option<usize>) {
        let i = self.0.partition_point(|c| c.tokens <= n).max(1) - 1;
        (self.0[i], self.0.get(i + 1).map(|c| c.at))
    }

    /// The count at byte `at`, if a checkpoint is there.
    pub(crate) fn tokens_at(&self, at: usize) -> Option<usize> {
        self.0.iter().find(|c| c.at == at).map(|c| c.tokens)
    }

    /// Makes the checkpoints relative to `offset`, whose count is `tokens`: as if only the
    /// text from `offset` on had been measured.
    pub(crate) fn rebase(&mut self, offset: usize, tokens: usize) {
        self.0.retain(|c| c.at >= offset);
        if self.0.first().map(|c| c.at) != Some(offset) {
            self.0.insert(0, Checkpoint { at: offset, tokens });
        }
        for checkpoint in &mut self.0 {
            checkpoint.at -= offset;
            checkpoint.tokens -= tokens;
        }
    }

    /// The last checkpoint, from the end, that `keep` accepts.
    pub(crate) fn last_where(&self, keep: impl Fn(Checkpoint) -> bool) -> Option<Checkpoint> {
        self.0.iter().rev().copied().find(|&c| keep(c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(at: usize, tokens: usize) -> Checkpoint {
        Checkpoint { at, tokens }
    }

    #[test]
    fn rebase_moves_the_origin_and_drops_what_came_before() {
        let mut checkpoints = Checkpoints::default();
        for c in [at(10, 3), at(20, 6), at(30, 9)] {
            checkpoints.push(c);
        }
        checkpoints.rebase(20, 6);
        assert_eq!(checkpoints.as_slice(), [at(0, 0), at(10, 3)]);
        let mut checkpoints = Checkpoints::default();
        checkpoints.push(at(30, 9));
        checkpoints.rebase(20, 6);
        assert_eq!(checkpoints.as_slice(), [at(0, 0), at(10, 3)]);
    }

    #[test]
    fn around_token_finds_the_stretch_holding_it() {
        let mut checkpoints = Checkpoints::default();
        checkpoints.push(at(10, 3));
        checkpoints.push(at(20, 6));
        assert_eq!(checkpoints.around_token(0), (at(0, 0), Some(10)));
        assert_eq!(checkpoints.around_token(2), (at(0, 0), Some(10)));
        assert_eq!(checkpoints.around_token(3), (at(10, 3), Some(20)));
        assert_eq!(checkpoints.around_token(7), (at(20, 6), None));
    }

    #[test]
    fn resume_keeps_what_fits_the_room() {
        let mut checkpoints = Checkpoints::default();
        checkpoints.resume(&[at(0, 0), at(10, 3), at(20, 6)], 5);
        assert_eq!(checkpoints.as_slice(), [at(0, 0), at(10, 3)]);
        assert_eq!(checkpoints.last(), at(10, 3));
        assert_eq!(checkpoints.tokens_at(10), Some(3));
        assert_eq!(checkpoints.tokens_at(11), None);
    }
}
