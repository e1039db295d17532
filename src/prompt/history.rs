//! The history: whole turns, and which of them to keep.
//!
//! A turn is a user message and everything up to the next one (the assistant's replies, its
//! tool calls and their results), so a tool result is never kept without its call. Turns go
//! oldest first, whole. When some must go, enough go at once to leave a step of the history's
//! room free, so that the next turns fit without a trim and the prompt keeps starting with
//! the same bytes (a prompt cache keeps hitting). The rule needs no state: it is replayed over
//! the conversation from its first turn, so the same conversation always keeps the same turns,
//! and the next turn keeps them too unless it must trim.

use std::collections::HashMap;
use std::ops::Range;

/// What the turn rule reads of a message.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct TurnShape<'a> {
    pub(crate) role: &'a str,
    /// An assistant message that calls tools (`tool_calls` not empty).
    pub(crate) calls_tools: bool,
    /// For a tool result: the `tool_call_id` it answers, where it names one.
    pub(crate) answers: Option<&'a str>,
}

/// The `id`s of a message's tool calls, in the order given.
pub(crate) type CallIds<'a> = &'a [String];

/// Whether a message of `role` is an instruction (`system`, or `developer` as OpenAI names it):
/// kept wherever it stands, never dropped as history.
pub(crate) fn is_instruction(role: &str) -> bool {
    matches!(role, "system" | "developer")
}

/// Whether a message of `role` is a tool's result (`tool`, or `ipython` as Llama 3.1 names
/// it).
pub(crate) fn is_tool_result(role: &str) -> bool {
    matches!(role, "tool" | "ipython" | "function")
}

/// The turns of `history` (message indices): each starts at a user message; messages before
/// the first user message form a turn of their own. A tool result and the call it answers are
/// always in one turn: where a user message stands between them, the turns from the call's to
/// the result's are one. A result names its call by `tool_call_id` (matched against `calls`,
/// each message's tool call ids); one that names none answers the nearest message before it
/// that calls tools.
pub(crate) fn turns(shapes: &[TurnShape<'_>], calls: &[CallIds<'_>]) -> Vec<Range<usize>> {
    let mut turns: Vec<Range<usize>> = Vec::new();
    let mut turn_of = Vec::with_capacity(shapes.len());
    for (i, shape) in shapes.iter().enumerate() {
        match turns.last_mut() {
            Some(turn) if shape.role != "user" => turn.end = i + 1,
            _ => turns.push(i..i + 1),
        }
        turn_of.push(turns.len() - 1);
    }
    // For each turn, the earliest turn one of its results reaches back to.
    let mut reaches: Vec<usize> = (0..turns.len()).collect();
    let mut call_by_id: HashMap<&str, usize> = HashMap::new();
    let mut last_caller = None;
    for (i, shape) in shapes.iter().enumerate() {
        if is_tool_result(shape.role) {
            let call = shape
                .answers
                .and_then(|id| call_by_id.get(id).copied())
                .or(last_caller);
            if let Some(call) = call {
                let turn = turn_of[i];
                reaches[turn] = reaches[turn].min(turn_of[call]);
            }
        }
        if shape.calls_tools {
            last_caller = Some(i);
            for id in calls.get(i).copied().unwrap_or_default() {
                call_by_id.insert(id.as_str(), i);
            }
        }
    }
    // Join each turn with those its results reach back to, newest first: one pass.
    let mut joined: Vec<Range<usize>> = Vec::with_capacity(turns.len());
    let mut t = turns.len();
    while t > 0 {
        let end = turns[t - 1].end;
        let mut start_turn = t - 1;
        let mut low = reaches[t - 1];
        while start_turn > low {
            start_turn -= 1;
            low = low.min(reaches[start_turn]);
        }
        joined.push(turns[start_turn].start..end);
        t = start_turn;
    }
    joined.reverse();
    joined
}

/// The turns of messages with only their roles, as [`turns`] reads them.
#[cfg(test)]
fn turns_of_roles(roles: &[&str]) -> Vec<Range<usize>> {
    let shapes: Vec<TurnShape<'_>> = roles
        .iter()
        .map(|&role| TurnShape {
            role,
            calls_tools: role == "assistant",
            answers: None,
        })
        .collect();
    turns(&shapes, &[])
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
pub(crate) fn trimmed_target(limit: usize, step: f64) -> usize {
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
        assert_eq!(turns_of_roles(&roles), [0..1, 1..5, 5..6, 6..8]);
        assert!(turns_of_roles(&[]).is_empty());
    }

    /// A result is never kept without its call: a user message between them joins their turns,
    /// matched by id, or to the nearest caller where the result names no id.
    #[test]
    fn a_result_stays_in_the_turn_of_its_call() {
        let shape = |role, calls_tools, answers| TurnShape {
            role,
            calls_tools,
            answers,
        };
        let ids = vec!["call_a".to_string()];
        let none: Vec<String> = Vec::new();
        // user, assistant calls a, user interjects, result of a, assistant, user.
        let shapes = [
            shape("user", false, None),
            shape("assistant", true, None),
            shape("user", false, None),
            shape("tool", false, Some("call_a")),
            shape("assistant", false, None),
            shape("user", false, None),
        ];
        let calls: Vec<CallIds<'_>> = vec![&none, &ids, &none, &none, &none, &none];
        assert_eq!(turns(&shapes, &calls), [0..5, 5..6]);
        // Without an id: the nearest caller before it.
        let mut unnamed = shapes;
        unnamed[3].answers = None;
        assert_eq!(turns(&unnamed, &calls), [0..5, 5..6]);
        // A result naming an id no one called is its own turn's (nothing to join).
        let mut stray = shapes;
        stray[1].calls_tools = false;
        stray[3].answers = Some("call_z");
        assert_eq!(turns(&stray, &calls), [0..2, 2..5, 5..6]);
        // A chain: a result two turns back reaches over the turn between.
        let chain = [
            shape("user", false, None),
            shape("assistant", true, None),
            shape("user", false, None),
            shape("user", false, None),
            shape("tool", false, Some("call_a")),
            shape("user", false, None),
        ];
        assert_eq!(turns(&chain, &calls), [0..5, 5..6]);
    }

    /// The instructions are `system` and `developer` only: a user's or assistant's message
    /// (or a tool's) is history, and may go.
    #[test]
    fn only_system_and_developer_messages_are_instructions() {
        for role in ["system", "developer"] {
            assert!(is_instruction(role), "{role}");
        }
        for role in ["user", "assistant", "tool", "ipython"] {
            assert!(!is_instruction(role), "{role}");
        }
    }

    /// Each role that names a tool's result (`tool`, Llama's `ipython`, the older
    /// `function`) stays with the call across a user message; an assistant's message there
    /// is no result and joins nothing.
    #[test]
    fn every_result_role_stays_with_its_call() {
        let shape = |role| TurnShape {
            role,
            calls_tools: role == "caller",
            answers: None,
        };
        // Each turn as (start, end).
        for (role, expected) in [
            ("tool", vec![(0, 4)]),
            ("ipython", vec![(0, 4)]),
            ("function", vec![(0, 4)]),
            ("assistant", vec![(0, 2), (2, 4)]),
        ] {
            let shapes = [shape("user"), shape("caller"), shape("user"), shape(role)];
            let turns: Vec<_> = turns(&shapes, &[])
                .iter()
                .map(|turn| (turn.start, turn.end))
                .collect();
            assert_eq!(turns, expected, "{role}");
        }
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
