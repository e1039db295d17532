//! A chat message, in the shape OpenAI's chat API and `transformers` take:
//! `{"role": "user", "content": "..."}`, with whatever other fields the caller gives
//! (`name`, `tool_calls`, `tool_call_id`, `reasoning_content`), in their order.

use std::fmt;

use minijinja::value::{Value, ValueKind};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One message of a conversation.
///
/// Its fields are kept as given, in their order, so that a chat template sees them as
/// `transformers` would (a tool call's arguments written with `tojson` keep their keys'
/// order). It is read from and written as JSON.
///
/// ```
/// use mentor_context::prompt::Message;
///
/// let question = Message::user("What does Plan B cost?");
/// assert_eq!(question.role(), "user");
/// assert_eq!(question.content(), Some("What does Plan B cost?"));
/// let read: Message = serde_json::from_str(r#"{"role": "assistant", "content": "12 EUR."}"#)?;
/// assert_eq!(serde_json::to_string(&read)?, r#"{"role":"assistant","content":"12 EUR."}"#);
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, PartialEq)]
pub struct Message {
    value: Value,
    role: String,
    /// The `content` field where it is a string: a cheap clone of the value's own.
    content: Option<Value>,
}

impl Message {
    /// A message with a role and text content.
    #[must_use]
    pub fn new(role: &str, content: &str) -> Message {
        let content = Value::from(content);
        Message {
            value: Value::from_pairs([("role", Value::from(role)), ("content", content.clone())]),
            role: role.to_string(),
            content: Some(content),
        }
    }

    /// A system message.
    #[must_use]
    pub fn system(content: &str) -> Message {
        Message::new("system", content)
    }

    /// A user message.
    #[must_use]
    pub fn user(content: &str) -> Message {
        Message::new("user", content)
    }

    /// An assistant message.
    #[must_use]
    pub fn assistant(content: &str) -> Message {
        Message::new("assistant", content)
    }

    /// The role: `system`, `user`, `assistant`, `tool`, ...
    #[must_use]
    pub fn role(&self) -> &str {
        &self.role
    }

    /// The content, where it is a string.
    #[must_use]
    pub fn content(&self) -> Option<&str> {
        self.content.as_ref().and_then(Value::as_str)
    }

    pub(crate) fn value(&self) -> &Value {
        &self.value
    }

    /// This message with its fields replaced by `value`, a map with the same `role`: how the
    /// assembler neutralizes a message or places the context in it without reading the role
    /// back.
    pub(crate) fn with_value(&self, value: Value) -> Message {
        Message::of_role(&self.role, value)
    }

    /// A message of `role` whose fields are the map `value` (which names that role).
    pub(crate) fn of_role(role: &str, value: Value) -> Message {
        Message {
            content: value
                .get_attr("content")
                .ok()
                .filter(|content| content.kind() == ValueKind::String),
            value,
            role: role.to_string(),
        }
    }

    /// A message from a value read from JSON: a map with a string role.
    pub(crate) fn from_value(value: Value) -> Result<Message, String> {
        if value.kind() != ValueKind::Map {
            return Err("a message must be an object".to_string());
        }
        let role = role_of(&value)
            .ok_or_else(|| "a message needs a `role` that is a string".to_string())?;
        let content = value
            .get_attr("content")
            .ok()
            .filter(|content| content.kind() == ValueKind::String);
        Ok(Message {
            value,
            role,
            content,
        })
    }
}

impl fmt::Debug for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Message")
            .field("role", &self.role)
            .field("fields", &self.value)
            .finish_non_exhaustive()
    }
}

impl Serialize for Message {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Message {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(deserializer)?;
        Message::from_value(value).map_err(serde::de::Error::custom)
    }
}

/// The role of a message value.
pub(crate) fn role_of(message: &Value) -> Option<String> {
    let role = message.get_attr("role").ok()?;
    role.as_str().map(ToString::to_string)
}

/// The text content of a message value: its `content` if that is a string.
pub(crate) fn text_content(message: &Value) -> Option<String> {
    let content = message.get_attr("content").ok()?;
    (content.kind() == ValueKind::String).then(|| content.as_str().unwrap_or_default().to_string())
}
