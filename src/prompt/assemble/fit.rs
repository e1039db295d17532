//! Step 4, the prompt fitted to the window: candidates rendered and counted until one fits,
//! the context shrinking by what the last went over, then turns going; and room the context
//! left unused given back to the history.

use super::Inner;
use super::candidate::{Candidate, render_and_count};
use super::choose::{self, Chosen};
use super::costs::Costs;
use super::read::Conversation;
use crate::MentorRagResult;
use crate::error::Error;
use crate::prompt::ConversationDate;
use crate::prompt::count::Counting;

/// How many renders one fitting may take before it gives up: each one after the first
/// shrinks the context by what the last went over, or drops a turn.
const EXTRA_ATTEMPTS: usize = 8;

/// The prompt that fits, and where its history stopped.
pub(super) struct Fitted<'c> {
    pub(super) candidate: Candidate<'c>,
    /// The history's room, wider where the context left some unused.
    pub(super) room: usize,
    /// The first turn kept.
    pub(super) first: usize,
    /// Where the rule alone would start the history, at the room it had: past it, turns went
    /// to make the prompt fit.
    pub(super) by_rule: usize,
}

/// Fits the conversation and the context to the window, from the history `chosen`.
///
/// # Errors
///
/// [`Error::PromptTooLarge`] when no turn is left to drop and the prompt is still over;
/// what rendering and counting refuse.
pub(super) fn window<'c>(
    inner: &Inner,
    chat: &Conversation,
    costs: &Costs,
    chosen: &Chosen,
    results: &'c [MentorRagResult],
    date: ConversationDate,
    counting: &mut Counting<'_>,
) -> Result<Fitted<'c>, Error> {
    let available = choose::available(inner);
    let Chosen {
        mut room,
        mut first,
        mut budget,
    } = *chosen;
    let mut by_rule = first;
    let mut attempts = 0;
    let mut drops = 0u32;
    let mut candidate = loop {
        let candidate = render_and_count(inner, chat, first, budget, results, date, counting)?;
        if candidate.total <= available {
            break candidate;
        }
        attempts += 1;
        let over = candidate.total - available;
        if budget > 0 && attempts <= EXTRA_ATTEMPTS {
            budget = budget.saturating_sub(over);
        } else if budget > 0 {
            budget = 0;
        } else if first < chat.turns.len() {
            // Turns enough to cover what it went over, by their measured costs; twice as
            // much each time the measure fell short, so that a few renders settle it
            // however long the conversation is.
            let need = over.saturating_mul(1 << drops.min(32));
            drops += 1;
            let mut covered = 0;
            while first < chat.turns.len() && (covered == 0 || covered < need) {
                covered += costs.turns[first].max(1);
                first += 1;
            }
        } else {
            return Err(Error::PromptTooLarge {
                needed: candidate.total,
                reserve: inner.reserve,
                window: inner.window,
            });
        }
    };

    // Room the context left unused (all its results placed, or a block too big for what
    // was left) goes back to the history.
    if first > 0 && candidate.total < available {
        let (wider, earlier) = choose::wider(inner, costs, room, available - candidate.total);
        if earlier < first {
            let retry = render_and_count(inner, chat, earlier, budget, results, date, counting)?;
            if retry.total <= available {
                first = earlier;
                by_rule = earlier;
                room = wider;
                candidate = retry;
            }
        }
    }
    Ok(Fitted {
        candidate,
        room,
        first,
        by_rule,
    })
}
