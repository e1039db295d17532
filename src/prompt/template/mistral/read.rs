//! A conversation read for Mistral's formats, and refused where `mistral-common`'s request
//! validator refuses it (`protocol/instruct/validator.py`, the validator of each version:
//! `MistralRequestValidatorV3` for v3, `V5` for v7, `V11`, `V13`), each refusal one line naming
//! the message and the rule.

use std::collections::HashSet;

use minijinja::value::{Value, ValueKind};

use super::Format;
use crate::error::Error;
use crate::prompt::control::ControlTokens;
use crate::prompt::message::{role_of, text_content};
use crate::prompt::template::jinja::pyjson;
use crate::prompt::untrusted;

/// One tool call of an assistant message.
#[derive(Debug)]
pub(super) struct Call {
    pub(super) name: String,
    /// The call's `id`; `None` where it has none (`mistral-common`'s `"null"`).
    pub(super) id: Option<String>,
    /// The arguments as `mistral-common` writes them: a JSON string read back, an object as
    /// given, `{}` for none, or the string itself where it is not JSON.
    pub(super) arguments: Value,
}

/// What a message is, once read.
#[derive(Debug)]
pub(super) enum Kind {
    System(String),
    User(String),
    Assistant { text: String, calls: Vec<Call> },
    Tool(ToolResult),
}

/// A tool's result.
#[derive(Debug)]
pub(super) struct ToolResult {
    /// The content as given.
    pub(super) text: String,
    /// The content as v3 writes it: read as JSON where it is JSON, `{}` where it is empty.
    pub(super) json: Value,
    pub(super) id: String,
}

/// A message read, with its index in the conversation.
#[derive(Debug)]
pub(super) struct Read {
    pub(super) index: usize,
    pub(super) kind: Kind,
}

impl Read {
    fn role(&self) -> &'static str {
        match self.kind {
            Kind::System(_) => "system",
            Kind::User(_) => "user",
            Kind::Assistant { .. } => "assistant",
            Kind::Tool(_) => "tool",
        }
    }
}

fn refuse<T>(index: usize, problem: impl std::fmt::Display) -> Result<T, Error> {
    Err(Error::Conversation {
        problem: format!("message {index}: {problem}"),
    })
}

/// The messages read and checked against the rules of `format`'s validator.
pub(super) fn conversation(
    messages: &[Value],
    format: Format,
    control: &ControlTokens,
) -> Result<Vec<Read>, Error> {
    let read = messages
        .iter()
        .enumerate()
        .map(|(index, message)| message_of(index, message, format, control))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(first) = read.first()
        && matches!(first.kind, Kind::Assistant { .. } | Kind::Tool(_))
    {
        return Err(Error::Conversation {
            problem:
                "Mistral's format needs the conversation to start with a system or user message"
                    .to_string(),
        });
    }
    check_order(&read)?;
    if format >= Format::V11 {
        check_results_by_id(&read)?;
    } else {
        check_results_by_count(&read)?;
    }
    Ok(read)
}

fn message_of(
    index: usize,
    message: &Value,
    format: Format,
    control: &ControlTokens,
) -> Result<Read, Error> {
    let role = role_of(message).unwrap_or_default();
    let text = || {
        text_content(message).ok_or_else(|| Error::Conversation {
            problem: format!(
                "message {index}: Mistral's format here takes text content (a string) only"
            ),
        })
    };
    let kind = match role.as_str() {
        // `ChatCompletionRequest.from_openai` reads a developer message as a system message.
        "system" | "developer" => Kind::System(text()?),
        "user" => Kind::User(text()?),
        "assistant" => {
            let content = field(message, "content");
            let text = match content {
                None => String::new(),
                Some(_) => text()?,
            };
            let calls = calls_of(index, message, format, control)?;
            // v3's validator: either text or calls, not both and not neither.
            if format == Format::V3 && !text.is_empty() && !calls.is_empty() {
                return refuse(
                    index,
                    "Mistral's v3 format takes an assistant message with text or with tool calls, not both (mistral-common refuses it)",
                );
            }
            if format == Format::V3 && text.is_empty() && calls.is_empty() {
                return Err(super::write::empty_assistant(index));
            }
            Kind::Assistant { text, calls }
        }
        "tool" => {
            let text = text()?;
            if let Some(name) = field(message, "name") {
                match name.as_str() {
                    Some(name) if is_function_name(name) => {}
                    _ => return refuse(index, format!("the tool result's `name` {NAME_RULE}")),
                }
            }
            let id = field(message, "tool_call_id")
                .and_then(|id| id.as_str().map(str::to_string))
                .unwrap_or_default();
            check_id(index, "the tool result's `tool_call_id`", &id, format)?;
            let json = json_or_text(&text, control);
            Kind::Tool(ToolResult { text, json, id })
        }
        other => {
            return refuse(
                index,
                format!(
                    "Mistral's format takes system, user, assistant and tool messages, not `{other}`"
                ),
            );
        }
    };
    Ok(Read { index, kind })
}

/// A field that is there and not `null`.
fn field(object: &Value, name: &str) -> Option<Value> {
    object
        .get_attr(name)
        .ok()
        .filter(|v| !v.is_undefined() && !v.is_none())
}

/// An assistant message's tool calls, each checked.
fn calls_of(
    index: usize,
    message: &Value,
    format: Format,
    control: &ControlTokens,
) -> Result<Vec<Call>, Error> {
    let Some(calls) = field(message, "tool_calls") else {
        return Ok(Vec::new());
    };
    if calls.kind() != ValueKind::Seq {
        return refuse(index, "`tool_calls` must be a list of tool calls");
    }
    let mut read = Vec::new();
    for (k, call) in calls.try_iter().into_iter().flatten().enumerate() {
        let at = format!("tool call {k}");
        let function = field(&call, "function").filter(|f| f.kind() == ValueKind::Map);
        let Some(function) = function else {
            return refuse(index, format!("{at} needs a `function` object"));
        };
        let name = field(&function, "name")
            .and_then(|n| n.as_str().map(str::to_string))
            .unwrap_or_default();
        if !is_function_name(&name) {
            return refuse(index, format!("{at}: the function's `name` {NAME_RULE}"));
        }
        let id = field(&call, "id").and_then(|id| id.as_str().map(str::to_string));
        check_id(
            index,
            &format!("{at}'s `id`"),
            id.as_deref().unwrap_or(""),
            format,
        )?;
        let arguments = match field(&function, "arguments") {
            None => Value::from_pairs(Vec::<(&str, Value)>::new()),
            Some(text) if text.kind() == ValueKind::String => {
                json_or_text(text.as_str().unwrap_or_default(), control)
            }
            Some(object) if object.kind() == ValueKind::Map => object,
            Some(_) => {
                return refuse(
                    index,
                    format!("{at}: `arguments` must be a JSON string or an object"),
                );
            }
        };
        read.push(Call {
            name,
            id,
            arguments,
        });
    }
    Ok(read)
}

/// What the validator asks of a function's name (`^[a-zA-Z0-9_-]{1,64}$`).
pub(super) const NAME_RULE: &str = "must be 1 to 64 letters, digits, `_` or `-` in Mistral's format (mistral-common refuses it otherwise)";

pub(super) fn is_function_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// A call's or a result's id: 9 letters or digits up to v11 (`_TOOL_CALL_ID_REGEX`), any
/// string but `"null"` from v13; never missing.
fn check_id(index: usize, what: &str, id: &str, format: Format) -> Result<(), Error> {
    if format == Format::V13 {
        if id.is_empty() || id == "null" {
            return refuse(
                index,
                format!(
                    "{what} must be a non-empty string other than \"null\" in Mistral's v13 format (mistral-common refuses it)"
                ),
            );
        }
    } else if id.len() != 9 || !id.bytes().all(|b| b.is_ascii_alphanumeric()) {
        let shown = if id.is_empty() {
            "missing".to_string()
        } else {
            format!("{id:?}")
        };
        return refuse(
            index,
            format!(
                "{what} is {shown}, but Mistral's format up to v11 needs 9 letters or digits (mistral-common refuses it)"
            ),
        );
    }
    Ok(())
}

/// Text read as `mistral-common` reads arguments and v3's tool results: `{}` where empty,
/// the JSON value where it is JSON, else the text. A control token that only the reading
/// makes (written as an escape, `\u005bINST]`) is broken, as one written plainly was.
fn json_or_text(text: &str, control: &ControlTokens) -> Value {
    if text.is_empty() {
        return Value::from_pairs(Vec::<(&str, Value)>::new());
    }
    let Ok(value) = serde_json::from_str::<Value>(text) else {
        return Value::from(text);
    };
    let written = pyjson::dumps(&value).unwrap_or_default();
    if control.find(&written).count() > control.find(text).count() {
        untrusted::definitions(&value, control)
    } else {
        value
    }
}

/// Which role may follow which (`_validate_message_order`).
fn check_order(read: &[Read]) -> Result<(), Error> {
    for pair in read.windows(2) {
        let (before, after) = (pair[0].role(), pair[1].role());
        let allowed = match before {
            "system" | "user" => after != "tool",
            _ => after != "system",
        };
        if !allowed {
            let article = if before == "assistant" { "an" } else { "a" };
            return refuse(
                pair[1].index,
                format!(
                    "Mistral's format takes no {after} message right after {article} {before} message (mistral-common refuses it)"
                ),
            );
        }
    }
    Ok(())
}

/// v3 and v7: an assistant message comes only once the last tool calls before it have as
/// many results (`_validate_tool_calls_followed_by_tool_messages`).
fn check_results_by_count(read: &[Read]) -> Result<(), Error> {
    let mut expected = 0i64;
    let mut caller = None;
    for message in read.iter().skip(1) {
        match &message.kind {
            Kind::Tool(_) => expected -= 1,
            Kind::Assistant { calls, .. } => {
                if expected != 0 {
                    return unanswered(message.index, caller);
                }
                expected = i64::try_from(calls.len()).unwrap_or(i64::MAX);
                caller = Some(message.index);
            }
            _ => {}
        }
    }
    Ok(())
}

/// v11 and v13: each result answers a call of the last assistant message by its id, once;
/// and every call has its result before the next assistant message.
fn check_results_by_id(read: &[Read]) -> Result<(), Error> {
    let mut expected: HashSet<&str> = HashSet::new();
    let mut observed: HashSet<&str> = HashSet::new();
    let mut caller = None;
    for message in read.iter().skip(1) {
        match &message.kind {
            Kind::Tool(result)
                if !expected.contains(result.id.as_str()) || !observed.insert(&result.id) =>
            {
                return refuse(
                    message.index,
                    format!(
                        "the tool result's `tool_call_id` {:?} answers no call of the last assistant message, or answers one twice (mistral-common refuses it)",
                        result.id
                    ),
                );
            }
            Kind::Assistant { calls, .. } => {
                if expected.len() != observed.len() {
                    return unanswered(message.index, caller);
                }
                expected.clear();
                observed.clear();
                for call in calls {
                    let id = call.id.as_deref().unwrap_or("null");
                    if !expected.insert(id) {
                        return refuse(
                            message.index,
                            format!(
                                "two tool calls have the id {id:?} (mistral-common refuses it)"
                            ),
                        );
                    }
                }
                caller = Some(message.index);
            }
            _ => {}
        }
    }
    Ok(())
}

fn unanswered(index: usize, caller: Option<usize>) -> Result<(), Error> {
    let caller = caller.map_or_else(String::new, |c| format!(" (message {c})"));
    refuse(
        index,
        format!(
            "an assistant message comes before the last tool calls{caller} have one result each; Mistral's format needs as many results as calls (mistral-common refuses it)"
        ),
    )
}
