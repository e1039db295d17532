//! Step 3, which turns the history keeps by the trimming rule: its room (half of what the
//! window leaves after the fixed part, at most the cap), the first turn the rule keeps in it,
//! and the context's budget what is left.

use super::Inner;
use super::costs::Costs;
use crate::prompt::history;

/// The history chosen by the rule, before the fitting.
#[derive(Clone, Copy)]
pub(super) struct Chosen {
    /// The history's room.
    pub(super) room: usize,
    /// The first turn kept.
    pub(super) first: usize,
    /// The context's budget: what the window leaves after the fixed part and the turns kept.
    pub(super) budget: usize,
}

/// What the window leaves after the answer's reserve.
pub(super) fn available(inner: &Inner) -> usize {
    inner.window - inner.reserve
}

/// The history's room and the turns the rule keeps in it.
pub(super) fn history(inner: &Inner, costs: &Costs) -> Chosen {
    let available = available(inner);
    // Half of what the window leaves after the reserve, the template and the system
    // message, but not the question: so the history's room does not move with each
    // question's length, and trims stay rare.
    let base = costs.fixed.saturating_sub(costs.question);
    let room = capped(inner, available.saturating_sub(base) / 2);
    let first = history::first_kept(&costs.turns, room, inner.trim_step);
    let budget = available.saturating_sub(costs.fixed.saturating_add(costs.kept(first)));
    Chosen {
        room,
        first,
        budget,
    }
}

/// The rule again over a room wider by `unused` (what the context left of the window): the
/// wider room, and the first turn kept in it.
pub(super) fn wider(inner: &Inner, costs: &Costs, room: usize, unused: usize) -> (usize, usize) {
    let wider = capped(inner, room.saturating_add(unused));
    (
        wider,
        history::first_kept(&costs.turns, wider, inner.trim_step),
    )
}

/// `room`, at most the history's cap.
fn capped(inner: &Inner, room: usize) -> usize {
    inner.history_max_tokens.map_or(room, |cap| room.min(cap))
}
