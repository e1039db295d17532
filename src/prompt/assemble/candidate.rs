//! One candidate prompt: the context assembled at a budget, placed where the settings say, the
//! kept turns rendered through the template, and counted. Also the one way every step renders
//! messages: the minijinja values are built here, for the render only.

use minijinja::value::Value;

use super::Inner;
use super::place;
use super::read::Conversation;
use crate::error::{Error, TemplateError, TemplateErrorKind};
use crate::prompt::count::Counting;
use crate::prompt::placement::ContextPlacement;
use crate::prompt::report::TemplateDocument;
use crate::prompt::template::{Rendered, TemplateInput};
use crate::prompt::{ConversationDate, Message};
use crate::{AssembledContext, MentorRagResult};

/// One rendering of the prompt, counted.
pub(super) struct Candidate<'c> {
    pub(super) context: AssembledContext<'c>,
    /// The first message of the history kept.
    pub(super) kept_from: usize,
    /// The messages rendered: what the prompt sends.
    pub(super) messages: Vec<Message>,
    pub(super) documents: Option<Vec<TemplateDocument>>,
    pub(super) rendered: Rendered,
    pub(super) total: usize,
}

/// Renders the conversation keeping turns from `first`, with the context assembled at
/// `budget` and placed, and counts it.
pub(super) fn render_and_count<'c>(
    inner: &Inner,
    chat: &Conversation,
    first: usize,
    budget: usize,
    results: &'c [MentorRagResult],
    date: ConversationDate,
    counting: &mut Counting<'_>,
) -> Result<Candidate<'c>, Error> {
    let (context, stats) = match inner.assembler.with_budget(budget) {
        Ok(assembler) => assembler.run(results),
        Err(_) => inner.empty.run(results),
    };
    counting.bytes_tokenized += stats.bytes_tokenized;
    let kept_from = chat.kept_from(first);
    let placed = place::context(inner, chat, chat.kept(kept_from), &context, results);
    let rendered = render(
        inner,
        &placed.messages,
        placed.documents.as_deref(),
        true,
        date,
        counting,
    )?;
    // A template may write only some parts of a message's content (Gemma 3 takes the first
    // part of a system message's): a context given as a part it left out would be lost
    // without a word.
    if placed.in_parts {
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
    let total = count(inner, &rendered, &context, counting)?;
    Ok(Candidate {
        context,
        kept_from,
        messages: placed.messages,
        documents: placed.documents,
        rendered,
        total,
    })
}

/// `messages` (and `documents`) through the template, with the tool definitions or without
/// them, once the deadline is checked.
pub(super) fn render(
    inner: &Inner,
    messages: &[Message],
    documents: Option<&[TemplateDocument]>,
    with_tools: bool,
    date: ConversationDate,
    counting: &Counting<'_>,
) -> Result<Rendered, Error> {
    let values: Vec<Value> = messages.iter().map(|m| m.value().clone()).collect();
    let documents = documents.map(place::documents_value);
    counting.check()?;
    inner.template.render(&TemplateInput {
        messages: &values,
        documents: documents.as_ref(),
        tools: inner.tools.as_ref().filter(|_| with_tools),
        options: inner.template_options.as_ref(),
        date,
    })
}

/// A rendered prompt's count, the context's stretch not counted again.
pub(super) fn count(
    inner: &Inner,
    rendered: &Rendered,
    context: &AssembledContext<'_>,
    counting: &mut Counting<'_>,
) -> Result<usize, Error> {
    match inner.placement {
        ContextPlacement::Documents => counting.rendered(rendered),
        _ => counting.rendered_with_context(rendered, &context.text, context.token_count),
    }
}
