//! The conversation as the assembler reads it: checked, neutralized, split into system
//! message, history and question, and each message's cost where the template hides it.

use std::ops::Range;

use minijinja::value::Value;

use super::PromptAssembler;
use crate::error::Error;
use crate::prompt::count::Counting;
use crate::prompt::history;
use crate::prompt::message::{role_of, text_content};
use crate::prompt::template::TemplateInput;
use crate::prompt::{ConversationDate, Message, untrusted};

/// A conversation read and checked.
pub(super) struct Conversation {
    /// The messages as the template will see them (neutralized unless allowed).
    pub(super) values: Vec<Value>,
    pub(super) roles: Vec<String>,
    /// Each message's text content.
    pub(super) contents: Vec<Option<String>>,
    /// Whether message 0 is the system message.
    pub(super) has_system: bool,
    /// The history's messages: between the system message and the question.
    pub(super) history: Range<usize>,
}

impl Conversation {
    pub(super) fn question(&self) -> usize {
        self.values.len() - 1
    }
}

impl PromptAssembler {
    /// Reads and checks a conversation.
    pub(super) fn read(&self, conversation: &[Message]) -> Result<Conversation, Error> {
        let problem = |problem: String| Error::Conversation { problem };
        let Some(last) = conversation.last() else {
            return Err(problem(
                "the conversation is empty: it needs at least the user's question".to_string(),
            ));
        };
        if last.role() != "user" || last.content().is_none() {
            return Err(problem(format!(
                "the conversation must end with the user's question (text content); message {} is {}",
                conversation.len() - 1,
                if last.role() == "user" {
                    "a user message without text content".to_string()
                } else {
                    format!("a message of role `{}`", last.role())
                }
            )));
        }
        let control = self.inner.template.control();
        let mut values = Vec::with_capacity(conversation.len());
        let mut roles = Vec::with_capacity(conversation.len());
        let mut contents = Vec::with_capacity(conversation.len());
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
            let value = if self.inner.special_tokens_in_messages {
                given
            } else {
                untrusted::message(&given, control)
            };
            contents.push(text_content(&value));
            roles.push(role_of(&value).unwrap_or_default());
            values.push(value);
        }
        let has_system =
            conversation.len() > 1 && matches!(conversation[0].role(), "system" | "developer");
        let history = usize::from(has_system)..conversation.len() - 1;
        Ok(Conversation {
            values,
            roles,
            contents,
            has_system,
            history,
        })
    }

    /// Each message's cost measured by rendering the conversation without each turn in turn:
    /// for templates that rewrite contents, where [`message_costs`] cannot find them.
    pub(super) fn costs_by_rendering(
        &self,
        chat: &Conversation,
        date: ConversationDate,
        counting: &mut Counting<'_>,
    ) -> Result<Vec<usize>, Error> {
        let template = &self.inner.template;
        let turns = history::turns(
            &chat.roles[chat.history.clone()]
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
        );
        let mut costs = vec![0; chat.values.len()];
        let render = |from: usize, counting: &mut Counting<'_>| -> Result<usize, Error> {
            let mut values: Vec<Value> = chat.values[..chat.history.start].to_vec();
            values.extend_from_slice(&chat.values[from..]);
            counting.check()?;
            let rendered = template.render(&TemplateInput {
                messages: &values,
                documents: None,
                date,
            })?;
            counting.rendered(&rendered)
        };
        let mut after = render(chat.history.end, counting)?;
        for turn in turns.iter().rev() {
            let start = chat.history.start + turn.start;
            let with = render(start, counting)?;
            costs[start] = with.saturating_sub(after);
            after = with;
        }
        Ok(costs)
    }
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
