//! The history: whole turns, and which of them to keep.
//!
//! A turn is a user message and everything up to the next one (the assistant's replies, its
//! tool calls and their results), so a tool result is never kept without its call. Turns go
//! oldest first, whole. When some must go, enough go at once to leave a step of the history's
//! room free, so that the next turns fit without a trim and the prompt keeps starting with
//! the same bytes (a prompt cache keeps hitting). The rule needs no state: it is replayed over
//! the conversation from its first turn, so the same conversation always keeps the same turns,
//! and the next turn keeps them too unless it must trim.

use std::ops::Range;

/// The turns of `history` (message indices): each starts at a user message; messages before
/// the first user message form a turn of their own.
pub(crate) fn turns(roles: &[&str]) -> Vec<Range<usize>> {
    let mut turns: Vec<Range<usize>> = Vec::new();
    for (i, role) in roles.iter().enumerate() {
        match turns.last_mut() {
            Some(turn) if *role != "user" => turn.end = i + 1,
            _ => turns.push(i..i + 1),
        }
    }
    turns
}

/// The first turn to keep, by the trimming rule replayed over the turns' `costs` in order:
/// while the turns kept so far fit in `limit`, none is dropped; once they do not, the oldest
/// go until the rest fit in `limit` less `step` of it (a fraction in `0.0..1.0`).
pub(crate) fn first_kept(costs: &[usize], limit: usize, step: f64) -> usize {
    let target = trimmed_target(limit, step);
    let mut first = 0;
    let mut kept: usize = 0;
    for (newest, &cost) in costs.iter().enumerate() {
        kept = kept.saturating_add(cost);
        if kept > limit {
            while first <= newest && kept > target {
                kept -= costs[first];
                first += 1;
            }
        }
    }
    first
}

/// What a trim leaves room for: `limit` less `step` of it.
fn trimmed_target(limit: usize, step: f64) -> usize {
    #[allow(
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss,
        clippy::cast_precision_loss
    )]
    let free = (limit as f64 * step.clamp(0.0, 1.0)).ceil() as usize;
    limit.saturating_sub(free)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turns_start_at_user_messages() {
        let roles = [
            "assistant",
            "user",
            "assistant",
            "tool",
            "assistant",
            "user",
            "user",
            "assistant",
        ];
        assert_eq!(turns(&roles), [0..1, 1..5, 5..6, 6..8]);
        assert!(turns(&[]).is_empty());
    }

    #[test]
    fn nothing_goes_while_it_fits_and_a_trim_leaves_a_step_free() {
        assert_eq!(first_kept(&[10, 10, 10], 30, 0.25), 0);
        // 40 > 40? no. 50 > 40: trim to at most 30 of 40.
        assert_eq!(first_kept(&[10, 10, 10, 10], 40, 0.25), 0);
        assert_eq!(first_kept(&[10, 10, 10, 10, 10], 40, 0.25), 2);
        // After the trim the next turns fit again without one: the first kept stays.
        assert_eq!(first_kept(&[10, 10, 10, 10, 10, 10], 40, 0.25), 2);
        assert_eq!(first_kept(&[10, 10, 10, 10, 10, 10, 10], 40, 0.25), 4);
        assert_eq!(first_kept(&[10, 10, 10, 10, 10, 10, 10, 10], 40, 0.25), 4);
        // A turn over the whole target goes, with all before it.
        assert_eq!(first_kept(&[5, 100], 40, 0.25), 2);
        assert_eq!(first_kept(&[], 40, 0.25), 0);
        // No step: trims keep as much as fits.
        assert_eq!(first_kept(&[10, 10, 10, 10, 10], 40, 0.0), 1);
    }
}
