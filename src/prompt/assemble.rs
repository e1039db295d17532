//! [`PromptAssembler`]: fitting a conversation and results to the window.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use minijinja::value::Value;

use super::builder::{ContextPlacement, PromptBuilder};
use super::count::Counting;
use super::history;
use super::message::{role_of, text_content};
use super::report::{DroppedMessage, Prompt, PromptParts, TemplateDocument};
use super::spans::message_costs;
use super::template::{Rendered, TemplateInput};
use super::untrusted;
use super::{ChatTemplate, ConversationDate, Message};
use crate::error::Error;
use crate::tokenizer::TokenCache;
use crate::{AssembledContext, Assembler, MentorRagResult};

/// Fits conversations and results to a model's window: built once by
/// [`PromptBuilder::build`], `Send + Sync`, cheap to clone.
#[derive(Clone, Debug)]
pub struct PromptAssembler {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    template: ChatTemplate,
    window: usize,
    reserve: usize,
    placement: ContextPlacement,
    date: Option<ConversationDate>,
    history_max_tokens: Option<usize>,
    trim_step: f64,
    special_tokens_in_messages: bool,
    cache: Option<TokenCache>,
    /// The context's assembler, at the most the window leaves.
    assembler: Assembler,
    /// For a room too small for the context's header: no header, nothing placed.
    empty: Assembler,
}

/// How many renders one fitting may take before it gives up: each one after the first
/// shrinks the context by what the last went over, or drops a turn.
const EXTRA_ATTEMPTS: usize = 8;

/// A conversation read and checked.
struct Conversation {
    /// The messages as the template will see them (neutralized unless allowed).
    values: Vec<Value>,
    roles: Vec<String>,
    /// Each message's text content.
    contents: Vec<Option<String>>,
    /// Whether message 0 is the system message.
    has_system: bool,
    /// The history's messages: between the system message and the question.
    history: Range<usize>,
}

impl Conversation {
    fn question(&self) -> usize {
        self.values.len() - 1
    }
}

impl PromptAssembler {
    pub(super) fn new(builder: PromptBuilder) -> Result<PromptAssembler, Error> {
        let PromptBuilder {
            template,
            window,
            reserve,
            context,
            placement,
            date,
            history_max_tokens,
            trim_step,
            special_tokens_in_messages,
            cache,
        } = builder;
        let setting = |problem: String| Error::PromptSetting { problem };
        if reserve >= window {
            return Err(setting(format!(
                "the answer's reserve of {reserve} tokens takes the whole window of {window}"
            )));
        }
        if !(0.0..1.0).contains(&trim_step) {
            return Err(setting(format!(
                "the trim step must be in 0.0..1.0, not {trim_step}"
            )));
        }
        if placement == ContextPlacement::Documents && !template.reads_documents() {
            return Err(setting(
                "the context cannot go to `documents`: this chat template does not read them \
                 (transformers would drop them without a word); put it in the user or system message"
                    .to_string(),
            ));
        }
        let mut context = context
            .tokenizer(template.counter().clone())
            .budget(window - reserve);
        if let Some(cache) = &cache {
            context = context.cache(cache.clone());
        }
        let empty = context.clone().header("").budget(0).build()?;
        let assembler = context.build()?;
        if let Some(dialect) = assembler.dialect() {
            return Err(setting(format!(
                "a whole prompt cannot be fitted in the {dialect} dialect: {}",
                dialect_reason(dialect)
            )));
        }
        Ok(PromptAssembler {
            inner: Arc::new(Inner {
                template,
                window,
                reserve,
                placement,
                date,
                history_max_tokens,
                trim_step,
                special_tokens_in_messages,
                cache,
                assembler,
                empty,
            }),
        })
    }

    /// The model's window.
    #[must_use]
    pub fn window(&self) -> usize {
        self.inner.window
    }

    /// The answer's reserve.
    #[must_use]
    pub fn reserve(&self) -> usize {
        self.inner.reserve
    }

    /// The chat template.
    #[must_use]
    pub fn template(&self) -> &ChatTemplate {
        &self.inner.template
    }

    /// Where the context goes.
    #[must_use]
    pub fn placement(&self) -> ContextPlacement {
        self.inner.placement
    }

    /// The context's assembler, at the whole room the window leaves (each prompt assembles at
    /// its own budget).
    #[must_use]
    pub fn assembler(&self) -> &Assembler {
        &self.inner.assembler
    }

    /// The history's cap, if one is set.
    #[must_use]
    pub fn history_max_tokens(&self) -> Option<usize> {
        self.inner.history_max_tokens
    }

    /// The share of the history's room a trim leaves free.
    #[must_use]
    pub fn trim_step(&self) -> f64 {
        self.inner.trim_step
    }

    /// Whether the conversation's messages keep control-token strings.
    #[must_use]
    pub fn special_tokens_in_messages(&self) -> bool {
        self.inner.special_tokens_in_messages
    }

    /// The pinned date, if one is set.
    #[must_use]
    pub fn date(&self) -> Option<ConversationDate> {
        self.inner.date
    }

    /// Fits `conversation` (its last message is the user's question) and `results` to the
    /// window.
    ///
    /// # Errors
    ///
    /// - [`Error::Conversation`] when the conversation is empty, does not end with a user
    ///   message whose content is text, has a role that is not a name, or has a message the
    ///   template's kind cannot write;
    /// - [`Error::PromptTooLarge`] when the system message, the question, the template and
    ///   the reserve alone do not fit in the window;
    /// - [`Error::ChatTemplate`] when the template raises, runs out of fuel or writes too
    ///   much.
    pub fn assemble<'r>(
        &self,
        conversation: &[Message],
        results: &'r [MentorRagResult],
    ) -> Result<Prompt<'r>, Error> {
        self.assemble_counting(conversation, results).0
    }

    /// [`assemble`](Self::assemble), and the bytes it handed the tokenizer (the context's
    /// assembly included): what the cost tests and benches read.
    pub(crate) fn assemble_counting<'r>(
        &self,
        conversation: &[Message],
        results: &'r [MentorRagResult],
    ) -> (Result<Prompt<'r>, Error>, usize) {
        let mut bytes = 0;
        let prompt = self.assemble_measured(conversation, results, &mut bytes);
        (prompt, bytes)
    }

    fn assemble_measured<'r>(
        &self,
        conversation: &[Message],
        results: &'r [MentorRagResult],
        bytes_tokenized: &mut usize,
    ) -> Result<Prompt<'r>, Error> {
        let available = self.inner.window - self.inner.reserve;
        let bound = available
            .saturating_mul(self.inner.template.counter().max_token_bytes())
            .saturating_add(1);
        match untrusted::results(results, self.inner.template.control(), bound) {
            Cow::Borrowed(results) => self.assemble_neutral(conversation, results, bytes_tokenized),
            Cow::Owned(results) => self
                .assemble_neutral(conversation, &results, bytes_tokenized)
                .map(Prompt::into_owned),
        }
    }

    /// [`assemble`](Self::assemble) once the results hold no control token.
    fn assemble_neutral<'r>(
        &self,
        conversation: &[Message],
        results: &'r [MentorRagResult],
        bytes_tokenized: &mut usize,
    ) -> Result<Prompt<'r>, Error> {
        let inner = &*self.inner;
        let template = &inner.template;
        let counter = template.counter().clone();
        let mut counting = Counting::new(counter.as_ref(), inner.cache.as_ref());
        let date = inner.date.unwrap_or_else(ConversationDate::today);
        let chat = self.read(conversation)?;
        let available = inner.window - inner.reserve;

        // The whole conversation, without the context: what each message costs.
        let whole = template.render(&TemplateInput {
            messages: &chat.values,
            documents: None,
            date,
        })?;
        let whole_total = counting.rendered(&whole)?;
        let costs = match message_costs(&whole, &chat.contents, &mut counting)? {
            Some(costs) => costs,
            None => self.costs_by_rendering(&chat, date, &mut counting)?,
        };
        let turns = history::turns(
            &chat.roles[chat.history.clone()]
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
        );
        let turn_costs: Vec<usize> = turns
            .iter()
            .map(|turn| {
                costs[chat.history.start + turn.start..chat.history.start + turn.end]
                    .iter()
                    .sum()
            })
            .collect();
        let history_total: usize = turn_costs.iter().sum();
        let fixed = whole_total.saturating_sub(history_total);
        let question_tokens =
            counting.text(chat.contents[chat.question()].as_deref().unwrap_or(""))?;
        let system_tokens = match chat.has_system {
            true => counting.text(chat.contents[0].as_deref().unwrap_or(""))?,
            false => 0,
        };

        // Half of what the window leaves after the reserve, the template and the system
        // message, but not the question: so the history's room does not move with each
        // question's length, and trims stay rare.
        let base = fixed.saturating_sub(question_tokens);
        let mut limit = available.saturating_sub(base) / 2;
        if let Some(cap) = inner.history_max_tokens {
            limit = limit.min(cap);
        }
        let mut first = history::first_kept(&turn_costs, limit, inner.trim_step);
        let kept: usize = turn_costs[first..].iter().sum();
        let mut budget = available.saturating_sub(fixed.saturating_add(kept));

        let mut attempts = 0;
        let (mut fitted, mut total) = loop {
            let fitted = self.fit(&chat, &turns, first, budget, results, date, &mut counting)?;
            let total = fitted.total;
            if total <= available {
                break (fitted, total);
            }
            attempts += 1;
            let over = total - available;
            if budget > 0 && attempts <= EXTRA_ATTEMPTS {
                budget = budget.saturating_sub(over);
            } else if budget > 0 {
                budget = 0;
            } else if first < turns.len() {
                first += 1;
            } else {
                return Err(Error::PromptTooLarge {
                    needed: total,
                    reserve: inner.reserve,
                    window: inner.window,
                });
            }
        };

        // Room the context left unused (all its results placed, or a block too big for what
        // was left) goes back to the history.
        if first > 0 && total < available {
            let mut wider = limit.saturating_add(available - total);
            if let Some(cap) = inner.history_max_tokens {
                wider = wider.min(cap);
            }
            let earlier = history::first_kept(&turn_costs, wider, inner.trim_step);
            if earlier < first {
                let retry =
                    self.fit(&chat, &turns, earlier, budget, results, date, &mut counting)?;
                if retry.total <= available {
                    first = earlier;
                    total = retry.total;
                    fitted = retry;
                }
            }
        }

        let kept_from = chat.history.start
            + turns
                .get(first)
                .map_or(chat.history.end - chat.history.start, |t| t.start);
        let mut history_tokens = 0;
        for content in chat.contents[kept_from..chat.history.end].iter().flatten() {
            history_tokens += counting.text(content)?;
        }
        let dropped = (chat.history.start..kept_from)
            .map(|index| DroppedMessage {
                index,
                role: chat.roles[index].clone(),
                tokens: costs[index],
            })
            .collect();
        let context_tokens = match &fitted.documents {
            Some(documents) => {
                let mut tokens = 0;
                for document in documents {
                    tokens += counting.text(&document.title)? + counting.text(&document.text)?;
                }
                tokens
            }
            None => fitted.context.token_count,
        };
        let counted = system_tokens + history_tokens + context_tokens + question_tokens;
        let parts = PromptParts {
            template: total.saturating_sub(counted),
            system: system_tokens,
            history: history_tokens,
            context: context_tokens,
            question: question_tokens,
        };
        let messages = fitted
            .values
            .into_iter()
            .map(|value| {
                Message::from_value(value).map_err(|problem| Error::Conversation { problem })
            })
            .collect::<Result<Vec<_>, _>>()?;
        *bytes_tokenized += counting.bytes_tokenized;
        Ok(Prompt {
            prompt: fitted.rendered.text,
            messages,
            documents: fitted.documents,
            token_count: total,
            window: inner.window,
            reserve: inner.reserve,
            parts,
            dropped,
            context: fitted.context,
        })
    }

    /// Reads and checks a conversation.
    fn read(&self, conversation: &[Message]) -> Result<Conversation, Error> {
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
                    format!("a `{}` message", last.role())
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
    fn costs_by_rendering(
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

    /// Renders the conversation keeping turns from `first`, with the context assembled at
    /// `budget` and placed, and counts it.
    #[allow(clippy::too_many_arguments)]
    fn fit<'c>(
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
struct Fitted<'c> {
    context: AssembledContext<'c>,
    values: Vec<Value>,
    documents: Option<Vec<TemplateDocument>>,
    rendered: Rendered,
    total: usize,
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

/// Why a dialect's provider cannot have a whole prompt counted here.
fn dialect_reason(dialect: crate::dialects::Dialect) -> &'static str {
    use crate::dialects::Dialect;
    match dialect {
        Dialect::Cohere => {
            "put Command-R's documents through its chat template with the context in `documents` instead"
        }
        Dialect::Mistral => {
            "its tool result is framed by Mistral's tool-call tokens, which no template here writes; give the context as text (with a Tekken tokenizer) instead"
        }
        _ => {
            "the provider publishes no tokenizer, so no whole prompt can be exact offline; its context stays exact in the encoding you name"
        }
    }
}
