//! Arranging the chosen blocks in the text: by score (as placed), as given, or best at the
//! edges. The blocks are chosen by rank first, so the order never changes which results are
//! in; the blocks are then renumbered in text order, so chip `n` is still marker `[n]`.

use super::head::write_head;
use super::placing::Assembly;
use super::recount::{JOINS_BEFORE_BLOCKS, JOINS_PER_BLOCK};
use crate::context::Citation;
use crate::options::Order;
use crate::rag_result::MentorRagResult;

impl<'r> Assembly<'_, 'r> {
    /// Rewrites the placed blocks (in rank order, counted at `token_count`) in the configured
    /// order, and returns the count of the new text.
    ///
    /// Only the heads change (their numbers), so only they are counted again. Should the new
    /// numbers cost more than the old ones altogether (a custom tokenizer or format, or a
    /// capped head shortened differently), the text would be over the budget: it stays in
    /// rank order then, which is still exact.
    pub(super) fn arrange(&mut self, results: &'r [MentorRagResult], token_count: usize) -> usize {
        let n = self.citations.len();
        if self.config.order == Order::Score || n < 2 {
            return token_count;
        }
        let inputs: Vec<usize> = self.citations.iter().map(|c| c.input_index).collect();
        let slots = arrangement(self.config.order, &inputs);
        if slots.iter().enumerate().all(|(slot, &rank)| slot == rank) {
            return token_count;
        }
        let block_start = |rank: usize| self.joins[JOINS_BEFORE_BLOCKS + JOINS_PER_BLOCK * rank];
        let close_start = self.joins[JOINS_BEFORE_BLOCKS + JOINS_PER_BLOCK * n];
        let mut text = String::with_capacity(self.text.len());
        text.push_str(&self.text[..self.joins[1]]);
        let mut joins = self.joins[..JOINS_BEFORE_BLOCKS].to_vec();
        let mut citations = Vec::with_capacity(n);
        let mut counted = self.frame.header_tokens + self.frame.open_close_tokens;
        for (slot, &rank) in slots.iter().enumerate() {
            let old = &self.citations[rank];
            let result = &results[old.input_index];
            let index = slot + 1;
            let (start, body_start) = (
                block_start(rank),
                self.joins[JOINS_BEFORE_BLOCKS + JOINS_PER_BLOCK * rank + 1],
            );
            let end = if rank + 1 < n {
                block_start(rank + 1)
            } else {
                close_start
            };
            let head_start = text.len();
            joins.push(head_start);
            let head_shortened = write_head(self.config, result, index, old.truncated, &mut text);
            joins.push(text.len());
            let (old_head, new_head) = (&self.text[start..body_start], &text[head_start..]);
            let tokens = if old_head == new_head {
                old.token_count
            } else {
                // Both heads were written within the budget, so both can be counted.
                let (Some(new), Some(old_tokens)) =
                    (self.meter.count(new_head), self.meter.count(old_head))
                else {
                    return token_count;
                };
                (old.token_count + new).saturating_sub(old_tokens)
            };
            text.push_str(&self.text[body_start..end]);
            counted += tokens;
            citations.push(Citation {
                index,
                token_count: tokens,
                head_shortened,
                ..old.clone()
            });
        }
        joins.push(text.len());
        text.push_str(&self.text[close_start..]);
        let tokenizer = &*self.config.tokenizer;
        let exact = joins
            .iter()
            .all(|&at| at == 0 || at == text.len() || tokenizer.splits_exactly(&text, at));
        let count = if exact {
            Some(counted)
        } else {
            self.meter.count(&text)
        };
        let Some(count) = count.filter(|&count| count <= self.config.budget) else {
            return token_count;
        };
        self.text = text;
        self.joins = joins;
        self.citations = citations;
        count
    }
}

/// For each place in the text, the rank (0 = best) of the block that goes there, given the
/// input positions of the blocks in rank order.
fn arrangement(order: Order, inputs: &[usize]) -> Vec<usize> {
    let mut slots: Vec<usize> = (0..inputs.len()).collect();
    match order {
        Order::Score => {}
        Order::AsGiven => slots.sort_by_key(|&rank| inputs[rank]),
        // Ranks 0, 2, 4, ... from the start, then ..., 5, 3, 1 to the end: the best block
        // opens the text and the second best closes it.
        Order::Edges => {
            let (front, back): (Vec<usize>, Vec<usize>) =
                slots.into_iter().partition(|rank| rank % 2 == 0);
            slots = front.into_iter().chain(back.into_iter().rev()).collect();
        }
    }
    slots
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edges_put_the_best_first_and_the_second_best_last() {
        let inputs: Vec<usize> = (0..5).collect();
        assert_eq!(arrangement(Order::Edges, &inputs), [0, 2, 4, 3, 1]);
        assert_eq!(arrangement(Order::Edges, &inputs[..4]), [0, 2, 3, 1]);
        assert_eq!(arrangement(Order::Edges, &inputs[..1]), [0]);
        assert!(arrangement(Order::Edges, &[]).is_empty());
    }

    #[test]
    fn as_given_follows_the_input_and_score_changes_nothing() {
        assert_eq!(arrangement(Order::AsGiven, &[7, 2, 9, 0]), [3, 1, 0, 2]);
        assert_eq!(arrangement(Order::Score, &[7, 2, 9, 0]), [0, 1, 2, 3]);
    }
}
