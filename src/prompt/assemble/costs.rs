//! Step 2, what each message and each turn costs: the whole conversation rendered once
//! without the context, each message's share of it, and the turns' sums; with the fixed
//! part (everything that is not a turn) and the question's and instructions' own counts.
//!
//! A message's cost has one meaning on every path: its share of the whole conversation's
//! count, so that a turn costs the sum of its messages and the shares of all messages add up
//! to the count (what [`DroppedMessage::tokens`](crate::prompt::DroppedMessage::tokens)
//! reports). The share is measured in the rendered text where the contents can be found
//! (`message_costs.rs`), and estimated where the template
//! rewrote them.

use minijinja::value::Value;

use super::Inner;
use super::candidate::render;
use super::read::Conversation;
use crate::error::Error;
use crate::prompt::count::Counting;
use crate::prompt::message_costs::message_costs_passing_by;
use crate::prompt::{ConversationDate, Message};

/// What the conversation costs, message by message and turn by turn.
pub(super) struct Costs {
    /// Each message's share of the whole conversation's count.
    pub(super) messages: Vec<usize>,
    /// Each history turn's cost: its messages' shares, instructions left out (they are kept
    /// wherever they stand).
    pub(super) turns: Vec<usize>,
    /// The count of all that is not a turn: the template, the tools, the instructions and
    /// the question.
    pub(super) fixed: usize,
    /// The question's text, counted alone.
    pub(super) question: usize,
    /// The instructions' texts (the system message's and those in the history), each
    /// counted alone.
    pub(super) system: usize,
}

impl Costs {
    /// What the turns from `first` on cost.
    pub(super) fn kept(&self, first: usize) -> usize {
        self.turns[first..].iter().sum()
    }
}

/// Renders the whole conversation (without the context) and measures what each of its
/// messages and turns costs.
pub(super) fn measure(
    inner: &Inner,
    chat: &Conversation,
    date: ConversationDate,
    counting: &mut Counting<'_>,
) -> Result<Costs, Error> {
    // The tools are fixed, as the template's framing is; where there are some, the shares
    // come from a render without them, so that a template writing them into the first user
    // message (Llama 3.1's) does not charge them to the turn that is dropped first.
    let with_tools = render(inner, &chat.messages, None, true, date, counting)?;
    let whole = counting.rendered(&with_tools)?;
    let (rendered, shared) = if inner.tools.is_none() {
        (with_tools, whole)
    } else {
        let plain = render(inner, &chat.messages, None, false, date, counting)?;
        let shared = counting.rendered(&plain)?;
        (plain, shared)
    };
    // Instructions in the history are never dropped, and some templates move them (DeepSeek
    // V3 joins every system message at the start): the search for contents in order passes
    // them by, and they cost what the template makes of them, as fixed text.
    let mut searched: Vec<Option<&str>> = chat
        .messages
        .iter()
        .enumerate()
        .map(|(index, message)| {
            let moved = chat.history.contains(&index) && chat.is_instruction(index);
            message.content().filter(|_| !moved)
        })
        .collect();
    let roles: Vec<&str> = chat.messages.iter().map(Message::role).collect();
    let messages = match message_costs_passing_by(&rendered, &mut searched, &roles, counting)? {
        Some(costs) => costs,
        None => estimated(chat, shared, counting)?,
    };
    let turns: Vec<usize> = chat
        .turns
        .iter()
        .map(|turn| {
            let start = chat.history.start;
            chat.turn_messages(start + turn.start..start + turn.end)
                .map(|index| messages[index])
                .sum()
        })
        .collect();
    let fixed = whole.saturating_sub(turns.iter().sum());
    let question = counting.text(chat.text(chat.question()))?;
    let mut system = 0;
    for index in (0..chat.history.end).filter(|&index| chat.is_instruction(index)) {
        system += counting.text(chat.text(index))?;
    }
    Ok(Costs {
        messages,
        turns,
        fixed,
        question,
        system,
    })
}

/// Each message's share when the template rewrote contents so that they cannot be found in
/// its text: the message's own count (its content and its tool calls' names and arguments,
/// or all its fields as JSON) and an even share of the framing. A close estimate is all the
/// choice of turns needs (the prompt chosen is counted exactly), and it costs one count of
/// each message: linear, where rendering without each turn in turn was quadratic.
fn estimated(
    chat: &Conversation,
    whole_total: usize,
    counting: &mut Counting<'_>,
) -> Result<Vec<usize>, Error> {
    let mut own = Vec::with_capacity(chat.messages.len());
    for message in &chat.messages {
        let value = message.value();
        let tokens = match message.content() {
            // A call's name and arguments are its message's, not framing shared by every
            // message: what every template writes of a call, whatever it wraps them in.
            Some(content) => counting.text(content)? + counting.text(&calls_core(value))?,
            None => counting.text(&serde_json::to_string(value).unwrap_or_default())?,
        };
        own.push(tokens);
    }
    let framing = whole_total.saturating_sub(own.iter().sum()) / own.len().max(1);
    Ok(own.into_iter().map(|tokens| tokens + framing).collect())
}

/// The names and arguments of a message's tool calls, one after another; empty without calls.
fn calls_core(message: &Value) -> String {
    let mut core = String::new();
    let Ok(calls) = message.get_attr("tool_calls") else {
        return core;
    };
    for call in calls.try_iter().into_iter().flatten() {
        let function = call.get_attr("function").unwrap_or_default();
        for field in ["name", "arguments"] {
            let value = function.get_attr(field).unwrap_or_default();
            match value.as_str() {
                Some(text) => core.push_str(text),
                None if !value.is_undefined() && !value.is_none() => {
                    core.push_str(&serde_json::to_string(&value).unwrap_or_default());
                }
                None => {}
            }
        }
    }
    core
}
