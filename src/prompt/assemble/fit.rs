//! One fitting of the prompt: the context assembled at a budget, placed where the settings
//! say, the kept turns rendered through the template, and counted.

use std::ops::Range;

use minijinja::value::Value;

use super::PromptAssembler;
use super::conversation::Conversation;
use crate::error::Error;
use crate::prompt::ConversationDate;
use crate::prompt::count::Counting;
use crate::prompt::placement::ContextPlacement;
use crate::prompt::report::TemplateDocument;
use crate::prompt::template::{Rendered, TemplateInput};
use crate::{AssembledContext, MentorRagResult};

impl PromptAssembler {
    /// Renders the conversation keeping turns from `first`, with the context assembled at
    /// `budget` and placed, and counts it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn fit<'c>(
        &self,
        chat: &Conversation,
        turns: &[Range<usize>],
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
        let kept_from = chat.history.start
            + turns
                .get(first)
                .map_or(chat.history.end - chat.history.start, |t| t.start);
        let mut values: Vec<Value> = chat.values[..chat.history.start].to_vec();
        values.extend_from_slice(&chat.values[kept_from..]);
        let mut documents = None;
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
                    let system = chat.contents[0].as_deref().unwrap_or("");
                    let text = if system.is_empty() {
                        context.text.clone()
                    } else {
                        format!("{system}\n\n{}", context.text)
                    };
                    values[0] = with_content(&values[0], &text);
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
        let documents_value = documents.as_ref().map(|documents: &Vec<TemplateDocument>| {
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
        });
        counting.check()?;
        let rendered = inner.template.render(&TemplateInput {
            messages: &values,
            documents: documents_value.as_ref(),
            date,
        })?;
        let total = match inner.placement {
            ContextPlacement::Documents => counting.rendered(&rendered)?,
            _ => counting.rendered_with_context(&rendered, &context.text, context.token_count)?,
        };
        Ok(Fitted {
            context,
            values,
            documents,
            rendered,
            total,
        })
    }
}

/// One rendering of the prompt, counted.
pub(super) struct Fitted<'c> {
    pub(super) context: AssembledContext<'c>,
    pub(super) values: Vec<Value>,
    pub(super) documents: Option<Vec<TemplateDocument>>,
    pub(super) rendered: Rendered,
    pub(super) total: usize,
}

/// `message` with its `content` replaced.
fn with_content(message: &Value, content: &str) -> Value {
    let keys: Vec<Value> = message
        .try_iter()
        .map(Iterator::collect)
        .unwrap_or_default();
    Value::from_pairs(keys.into_iter().map(|key| {
        let value = if key.as_str() == Some("content") {
            Value::from(content)
        } else {
            message.get_item(&key).unwrap_or_default()
        };
        (key, value)
    }))
}
