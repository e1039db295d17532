//! One fitting of the prompt: the context assembled at a budget, placed where the settings
//! say, the kept turns rendered through the template, and counted.

use minijinja::value::{Value, ValueKind};

use super::PromptAssembler;
use super::conversation::Conversation;
use crate::error::{Error, TemplateError, TemplateErrorKind};
use crate::prompt::ConversationDate;
use crate::prompt::count::Counting;
use crate::prompt::placement::ContextPlacement;
use crate::prompt::report::TemplateDocument;
use crate::prompt::template::{Rendered, TemplateInput};
use crate::{AssembledContext, MentorRagResult};

impl PromptAssembler {
    /// Renders the conversation keeping turns from `first`, with the context assembled at
    /// `budget` and placed, and counts it.
    pub(super) fn fit<'c>(
        &self,
        chat: &Conversation,
        first: usize,
        budget: usize,
        results: &'c [MentorRagResult],
        date: ConversationDate,
        counting: &mut Counting<'_>,
    ) -> Result<Fitted<'c>, Error> {
        let inner = &*self.inner;
        let (context, stats) = match inner.assembler.with_budget(budget) {
            Ok(assembler) => assembler.run(results),
            Err(_) => inner.empty.run(results),
        };
        counting.bytes_tokenized += stats.bytes_tokenized;
        let mut values = chat.kept_values(chat.kept_from(first));
        let mut documents = None;
        let mut in_parts = false;
        match inner.placement {
            ContextPlacement::User if !context.text.is_empty() => {
                let question = values.len() - 1;
                let text = format!(
                    "{}{}",
                    context.text,
                    chat.contents[chat.question()].as_deref().unwrap_or("")
                );
                values[question] = with_content(&values[question], &text);
            }
            ContextPlacement::System if !context.text.is_empty() => {
                if chat.has_system {
                    in_parts = values[0]
                        .get_attr("content")
                        .is_ok_and(|content| content.kind() == ValueKind::Seq);
                    values[0] = with_context_after(&values[0], &context.text);
                } else {
                    values.insert(
                        0,
                        Value::from_pairs([
                            ("role", Value::from("system")),
                            ("content", Value::from(context.text.as_str())),
                        ]),
                    );
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
                    values.push(Value::from_pairs(result));
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
        let documents_value = documents.as_deref().map(documents_value);
        counting.check()?;
        let rendered = inner.template.render(&TemplateInput {
            messages: &values,
            documents: documents_value.as_ref(),
            tools: inner.tools.as_ref(),
            options: inner.template_options.as_ref(),
            date,
        })?;
        // A template may write only some parts of a message's content (Gemma 3 takes the first
        // part of a system message's): a context given as a part it left out would be lost
        // without a word.
        if in_parts {
            let core = context.text.trim();
            let text = rendered.text.as_deref().unwrap_or_default();
            if !core.is_empty() && !text.contains(core) {
                return Err(Error::ChatTemplate(
                    TemplateError::new(
                        TemplateErrorKind::ContextNotWritten,
                        "the chat template did not write the context placed in the system \
                         message's last text part (it writes only some parts of that \
                         message); give the system message as text, or place the context \
                         elsewhere with `context_in`",
                    )
                    .named(inner.template.name()),
                ));
            }
        }
        let total = self.count(&rendered, &context, counting)?;
        Ok(Fitted {
            context,
            values,
            documents,
            rendered,
            total,
        })
    }

    /// A rendered prompt's count, the context's stretch not counted again.
    fn count(
        &self,
        rendered: &Rendered,
        context: &AssembledContext<'_>,
        counting: &mut Counting<'_>,
    ) -> Result<usize, Error> {
        match self.inner.placement {
            ContextPlacement::Documents => counting.rendered(rendered),
            _ => counting.rendered_with_context(rendered, &context.text, context.token_count),
        }
    }

    /// The whole conversation rendered without the context, and its count, with the tools;
    /// where there are tools, the render whose shares tell each message's cost is the one
    /// without them, counted too: the tools are fixed, never a turn's.
    pub(super) fn whole(
        &self,
        messages: &[Value],
        date: ConversationDate,
        counting: &mut Counting<'_>,
    ) -> Result<Whole, Error> {
        let template = &self.inner.template;
        counting.check()?;
        let rendered = template.render(&TemplateInput {
            messages,
            documents: None,
            tools: self.inner.tools.as_ref(),
            options: self.inner.template_options.as_ref(),
            date,
        })?;
        let total = counting.rendered(&rendered)?;
        if self.inner.tools.is_none() {
            return Ok(Whole {
                rendered,
                total,
                shared: total,
            });
        }
        counting.check()?;
        let plain = template.render(&TemplateInput {
            messages,
            documents: None,
            tools: None,
            options: self.inner.template_options.as_ref(),
            date,
        })?;
        let shared = counting.rendered(&plain)?;
        Ok(Whole {
            rendered: plain,
            total,
            shared,
        })
    }

    /// What the tools add to `fitted`: its count less the count of the same prompt rendered
    /// without them (0 without tools).
    pub(super) fn tools_tokens(
        &self,
        fitted: &Fitted<'_>,
        date: ConversationDate,
        counting: &mut Counting<'_>,
    ) -> Result<usize, Error> {
        if self.inner.tools.is_none() {
            return Ok(0);
        }
        let documents = fitted.documents.as_deref().map(documents_value);
        counting.check()?;
        let plain = self.inner.template.render(&TemplateInput {
            messages: &fitted.values,
            documents: documents.as_ref(),
            tools: None,
            options: self.inner.template_options.as_ref(),
            date,
        })?;
        let without = self.count(&plain, &fitted.context, counting)?;
        Ok(fitted.total.saturating_sub(without))
    }
}

/// The whole conversation rendered for its costs.
pub(super) struct Whole {
    /// The render whose shares are the messages' costs (without the tools).
    pub(super) rendered: Rendered,
    /// The count with everything fixed (the tools too).
    pub(super) total: usize,
    /// The count of `rendered`: what the messages' estimated shares divide.
    pub(super) shared: usize,
}

/// The documents as a template's `documents` takes them.
fn documents_value(documents: &[TemplateDocument]) -> Value {
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

/// One rendering of the prompt, counted.
pub(super) struct Fitted<'c> {
    pub(super) context: AssembledContext<'c>,
    pub(super) values: Vec<Value>,
    pub(super) documents: Option<Vec<TemplateDocument>>,
    pub(super) rendered: Rendered,
    pub(super) total: usize,
}

/// A system message with the context after its instructions: after its text, or, where its
/// content is a list of parts (`[{"type": "text", "text": ...}]`), after the text of its last
/// part, or as a part of its own where the last part is not text. Never in their place.
fn with_context_after(message: &Value, context: &str) -> Value {
    let joined = |instructions: &str| {
        if instructions.is_empty() {
            context.to_string()
        } else {
            format!("{instructions}\n\n{context}")
        }
    };
    let content = message.get_attr("content").unwrap_or_default();
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
    with_field(message, "content", &Value::from(parts))
}

/// `message` with its `content` replaced.
fn with_content(message: &Value, content: &str) -> Value {
    with_field(message, "content", &Value::from(content))
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
