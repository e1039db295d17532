//! The context placed where the settings say: in the question, after the system message's
//! instructions, as the result of the pending tool call, or as the template's `documents`.

use minijinja::value::{Value, ValueKind};

use super::Inner;
use super::read::Conversation;
use crate::prompt::Message;
use crate::prompt::placement::ContextPlacement;
use crate::prompt::report::TemplateDocument;
use crate::{AssembledContext, MentorRagResult};

/// The kept messages with the context placed in them.
pub(super) struct Placed {
    /// The messages to render and send.
    pub(super) messages: Vec<Message>,
    /// With the context as `documents`: what the template is given.
    pub(super) documents: Option<Vec<TemplateDocument>>,
    /// Whether the context went into a system message whose content is a list of parts, which
    /// a template may write only some of.
    pub(super) in_parts: bool,
}

/// Places `context` into `messages` (the kept ones, the question last or before the pending
/// call), or beside them as documents drawn from `results`.
pub(super) fn context(
    inner: &Inner,
    chat: &Conversation,
    mut messages: Vec<Message>,
    context: &AssembledContext<'_>,
    results: &[MentorRagResult],
) -> Placed {
    let mut documents = None;
    let mut in_parts = false;
    match inner.placement {
        ContextPlacement::User if !context.text.is_empty() => {
            let question = messages.len() - 1;
            let text = format!("{}{}", context.text, chat.text(chat.question()));
            messages[question] = with_content(&messages[question], &text);
        }
        ContextPlacement::System if !context.text.is_empty() => {
            if chat.has_system {
                in_parts = messages[0]
                    .value()
                    .get_attr("content")
                    .is_ok_and(|content| content.kind() == ValueKind::Seq);
                messages[0] = with_context_after(&messages[0], &context.text);
            } else {
                messages.insert(0, Message::system(&context.text));
            }
        }
        ContextPlacement::Tool => {
            // The call is answered even when nothing fitted: a call left without its
            // result is what no server accepts.
            if let Some(call) = &chat.pending {
                let mut result = vec![
                    ("role", Value::from("tool")),
                    ("tool_call_id", Value::from(call.id.as_str())),
                ];
                if inner.template.is_jinja() {
                    result.push(("name", Value::from(call.name.as_str())));
                }
                result.push(("content", Value::from(context.text.as_str())));
                messages.push(Message::of_role("tool", Value::from_pairs(result)));
            }
        }
        ContextPlacement::Documents => {
            documents = Some(
                context
                    .citations
                    .iter()
                    .map(|citation| {
                        let result = &results[citation.input_index];
                        let kept = citation
                            .kept_bytes
                            .unwrap_or(result.content.len())
                            .min(result.content.len());
                        TemplateDocument {
                            title: citation
                                .title
                                .clone()
                                .or_else(|| citation.source_url.clone())
                                .unwrap_or_default(),
                            text: result.content[..result.content.floor_char_boundary(kept)]
                                .to_string(),
                        }
                    })
                    .collect::<Vec<_>>(),
            );
        }
        _ => {}
    }
    Placed {
        messages,
        documents,
        in_parts,
    }
}

/// The documents as a template's `documents` takes them.
pub(super) fn documents_value(documents: &[TemplateDocument]) -> Value {
    Value::from(
        documents
            .iter()
            .map(|d| {
                Value::from_pairs([
                    ("title", Value::from(d.title.as_str())),
                    ("text", Value::from(d.text.as_str())),
                ])
            })
            .collect::<Vec<_>>(),
    )
}

/// A system message with the context after its instructions: after its text, or, where its
/// content is a list of parts (`[{"type": "text", "text": ...}]`), after the text of its last
/// part, or as a part of its own where the last part is not text. Never in their place.
fn with_context_after(message: &Message, context: &str) -> Message {
    let joined = |instructions: &str| {
        if instructions.is_empty() {
            context.to_string()
        } else {
            format!("{instructions}\n\n{context}")
        }
    };
    let content = message.value().get_attr("content").unwrap_or_default();
    if content.kind() != ValueKind::Seq {
        return with_content(message, &joined(content.as_str().unwrap_or("")));
    }
    let mut parts: Vec<Value> = content
        .try_iter()
        .map(Iterator::collect)
        .unwrap_or_default();
    let last_text = parts.last().and_then(|part| {
        let is_text = part.get_attr("type").ok()?.as_str()? == "text";
        let text = part.get_attr("text").ok()?;
        is_text
            .then(|| text.as_str().map(ToString::to_string))
            .flatten()
    });
    match last_text {
        Some(text) => {
            let last = parts.len() - 1;
            parts[last] = with_field(&parts[last], "text", &Value::from(joined(&text)));
        }
        None => parts.push(Value::from_pairs([
            ("type", Value::from("text")),
            ("text", Value::from(context)),
        ])),
    }
    message.with_value(with_field(message.value(), "content", &Value::from(parts)))
}

/// `message` with its `content` replaced.
fn with_content(message: &Message, content: &str) -> Message {
    message.with_value(with_field(
        message.value(),
        "content",
        &Value::from(content),
    ))
}

/// `object` with the value of `field` replaced, its keys in their order.
fn with_field(object: &Value, field: &str, replacement: &Value) -> Value {
    let keys: Vec<Value> = object.try_iter().map(Iterator::collect).unwrap_or_default();
    Value::from_pairs(keys.into_iter().map(|key| {
        let value = if key.as_str() == Some(field) {
            replacement.clone()
        } else {
            object.get_item(&key).unwrap_or_default()
        };
        (key, value)
    }))
}
