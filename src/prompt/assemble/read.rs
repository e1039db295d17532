//! Step 1, the conversation read once: checked, neutralized, split into system message,
//! history and question, and its turns found. Every later step reads the messages from here;
//! none reads the caller's conversation again.

use std::ops::Range;

use minijinja::value::{Value, ValueKind};

use super::Inner;
use crate::error::Error;
use crate::prompt::history::{self, CallIds, TurnShape};
use crate::prompt::placement::ContextPlacement;
use crate::prompt::{Message, untrusted};

/// A conversation read and checked.
pub(super) struct Conversation {
    /// The messages as the template will see them (keys whose value is `null` dropped, and
    /// neutralized unless allowed): what the prompt's `messages` are made of.
    pub(super) messages: Vec<Message>,
    /// Whether message 0 is the system message.
    pub(super) has_system: bool,
    /// The history's messages: between the system message and the question.
    pub(super) history: Range<usize>,
    /// The history's turns, as message indices relative to `history.start`.
    pub(super) turns: Vec<Range<usize>>,
    /// With the context in a tool result: the call it answers (the last message's).
    pub(super) pending: Option<PendingCall>,
}

/// The tool call, in the last message, that the context answers.
pub(super) struct PendingCall {
    /// Its `id`, as sent: what the result's `tool_call_id` names.
    pub(super) id: String,
    /// Its function's name, as sent.
    pub(super) name: String,
}

impl Conversation {
    /// The question's index: last, or before the pending call.
    pub(super) fn question(&self) -> usize {
        self.messages.len() - 1 - usize::from(self.pending.is_some())
    }

    /// Message `index`'s text content, empty where it has none.
    pub(super) fn text(&self, index: usize) -> &str {
        self.messages[index].content().unwrap_or("")
    }

    /// Whether message `index` is an instruction (a system or developer message): kept
    /// wherever it stands.
    pub(super) fn is_instruction(&self, index: usize) -> bool {
        history::is_instruction(self.messages[index].role())
    }

    /// The history's messages that are not instructions: what turns are made of.
    pub(super) fn turn_messages(&self, range: Range<usize>) -> impl Iterator<Item = usize> + '_ {
        range.filter(|&index| !self.is_instruction(index))
    }

    /// The first message kept when the history keeps its turns from `first`: the one place
    /// that maps a turn to a message.
    pub(super) fn kept_from(&self, first: usize) -> usize {
        self.history.start
            + self
                .turns
                .get(first)
                .map_or(self.history.end - self.history.start, |t| t.start)
    }

    /// The messages sent when the history keeps what starts at `kept_from`: the system
    /// message, the instructions among the dropped turns (never dropped), and the rest.
    pub(super) fn kept(&self, kept_from: usize) -> Vec<Message> {
        let mut messages: Vec<Message> = self.messages[..self.history.start].to_vec();
        messages.extend(
            (self.history.start..kept_from)
                .filter(|&index| self.is_instruction(index))
                .map(|index| self.messages[index].clone()),
        );
        messages.extend_from_slice(&self.messages[kept_from..]);
        messages
    }
}

/// Reads and checks `conversation`.
pub(super) fn conversation(inner: &Inner, conversation: &[Message]) -> Result<Conversation, Error> {
    let problem = |problem: String| Error::Conversation { problem };
    let Some(last) = conversation.last() else {
        return Err(problem(
            "the conversation is empty: it needs at least the user's question".to_string(),
        ));
    };
    let tool = inner.placement == ContextPlacement::Tool;
    if tool {
        pending_call(conversation)?;
    } else if last.role() != "user" || last.content().is_none() {
        let hint = if call_ids(&without_nulls(last.value())).is_some() {
            " (to answer its tool call with the context, place the context in `tool`)"
        } else {
            ""
        };
        return Err(problem(format!(
            "the conversation must end with the user's question (text content); message {} is {}{hint}",
            conversation.len() - 1,
            if last.role() == "user" {
                "a user message without text content".to_string()
            } else {
                format!("a message of role `{}`", last.role())
            }
        )));
    }
    // Checked above: the question stands before the pending call, or last.
    let question = conversation.len() - 1 - usize::from(tool);
    let control = inner.template.control();
    let mut messages = Vec::with_capacity(conversation.len());
    let mut calls = Vec::with_capacity(conversation.len());
    let mut answers = Vec::with_capacity(conversation.len());
    for (index, message) in conversation.iter().enumerate() {
        let role = message.role();
        let valid = !role.is_empty()
            && role.len() <= 64
            && role
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
        if !valid {
            return Err(problem(format!(
                "message {index}: the role {role:?} is not a name (letters, digits, `_` and `-`)"
            )));
        }
        // As `transformers` does: a key whose value is `null` is dropped (templates handle a
        // missing key, and some print "None" for a null one).
        let given = without_nulls(message.value());
        calls.push(call_ids(&given));
        answers.push(
            given
                .get_attr("tool_call_id")
                .ok()
                .and_then(|id| id.as_str().map(ToString::to_string)),
        );
        let value = if inner.special_tokens_in_messages {
            given
        } else {
            untrusted::message(&given, control)
        };
        messages.push(message.with_value(value));
    }
    let has_system = question > 0 && history::is_instruction(conversation[0].role());
    let history = usize::from(has_system)..question;
    let shapes: Vec<TurnShape<'_>> = history
        .clone()
        .map(|index| TurnShape {
            role: messages[index].role(),
            calls_tools: calls[index].is_some(),
            answers: answers[index].as_deref(),
        })
        .collect();
    let ids: Vec<CallIds<'_>> = history
        .clone()
        .map(|index| calls[index].as_deref().unwrap_or_default())
        .collect();
    let turns = history::turns(&shapes, &ids);
    // The call as sent (neutralized as the message is), so that the result names it.
    let pending = if tool {
        let last = messages[messages.len() - 1].value();
        let call = last
            .get_attr("tool_calls")
            .ok()
            .and_then(|calls| calls.get_item(&Value::from(0)).ok());
        let field = |path: &[&str]| {
            let mut value = call.clone().unwrap_or_default();
            for key in path {
                value = value.get_attr(key).unwrap_or_default();
            }
            value.as_str().map(ToString::to_string).unwrap_or_default()
        };
        Some(PendingCall {
            id: field(&["id"]),
            name: field(&["function", "name"]),
        })
    } else {
        None
    };
    Ok(Conversation {
        messages,
        has_system,
        history,
        turns,
        pending,
    })
}

/// Checks that `conversation` ends as the `tool` placement needs: the user's question (text
/// content), then an assistant message with exactly one tool call, with an `id` and a
/// function's `name`, that nothing answers yet.
fn pending_call(conversation: &[Message]) -> Result<(), Error> {
    let problem = |problem: String| Error::Conversation { problem };
    let last = conversation.len() - 1;
    let why = |what: &str| {
        problem(format!(
            "the context goes to a tool result (`tool` placement), so the conversation must end \
             with the user's question and an assistant message calling the search tool, whose \
             result the context becomes; {what}"
        ))
    };
    let message = &conversation[last];
    if message.role() != "assistant" {
        return Err(why(&format!(
            "message {last} is a message of role `{}`, not an assistant message with a pending tool call",
            message.role()
        )));
    }
    let value = without_nulls(message.value());
    let calls = value.get_attr("tool_calls").unwrap_or_default();
    let count = if calls.kind() == ValueKind::Seq {
        calls.len().unwrap_or(0)
    } else {
        0
    };
    if count != 1 {
        return Err(why(&format!(
            "message {last} has {count} tool calls, where the context answers exactly one"
        )));
    }
    let call = calls.get_item(&Value::from(0)).unwrap_or_default();
    let text = |value: Value| value.as_str().filter(|s| !s.is_empty()).is_some();
    if !text(call.get_attr("id").unwrap_or_default()) {
        return Err(why(&format!(
            "message {last}'s tool call has no `id` for the result to name"
        )));
    }
    let function = call.get_attr("function").unwrap_or_default();
    if !text(function.get_attr("name").unwrap_or_default()) {
        return Err(why(&format!(
            "message {last}'s tool call has no function `name`"
        )));
    }
    let asked = last
        .checked_sub(1)
        .map(|index| &conversation[index])
        .filter(|m| m.role() == "user" && m.content().is_some());
    if asked.is_none() {
        return Err(why(&match last.checked_sub(1) {
            Some(index) => format!(
                "message {index}, before the call, is not the user's question (a user message with text content)"
            ),
            None => "there is no user's question before the call".to_string(),
        }));
    }
    Ok(())
}

/// The ids of a message's tool calls, or `None` where it calls no tool.
fn call_ids(message: &Value) -> Option<Vec<String>> {
    let calls = message.get_attr("tool_calls").ok()?;
    if calls.kind() != ValueKind::Seq || calls.len() == Some(0) {
        return None;
    }
    Some(
        calls
            .try_iter()
            .ok()?
            .filter_map(|call| {
                call.get_attr("id")
                    .ok()
                    .and_then(|id| id.as_str().map(ToString::to_string))
            })
            .collect(),
    )
}

/// `message` without its top-level keys whose value is `null`.
fn without_nulls(message: &Value) -> Value {
    let keys: Vec<Value> = message
        .try_iter()
        .map(Iterator::collect)
        .unwrap_or_default();
    if keys
        .iter()
        .all(|key| !message.get_item(key).is_ok_and(|v| v.is_none()))
    {
        return message.clone();
    }
    Value::from_pairs(keys.into_iter().filter_map(|key| {
        let value = message.get_item(&key).unwrap_or_default();
        (!value.is_none()).then_some((key, value))
    }))
}
