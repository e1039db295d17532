//! [`PromptAssembler`]: fitting a conversation and results to the window. [`conversation`]
//! reads the conversation; [`fit`] renders and counts one candidate prompt; [`request`] gives
//! an assembler a request's own tools and template options; this module shares the window
//! between them.

mod checked;
mod conversation;
mod fit;
mod request;

use std::borrow::Cow;
use std::sync::Arc;

use super::count::Counting;
use super::deadline::Deadline;
use super::history;
use super::placement::ContextPlacement;
use super::report::{DroppedMessage, HistoryFit, Prompt, PromptParts};
use super::spans::message_costs_passing_by;
use super::untrusted;
use super::{ChatTemplate, ConversationDate, Message, TemplateOptions, Tools};
use crate::error::Error;
use crate::tokenizer::TokenCache;
use crate::{Assembler, MentorRagResult};

/// Fits conversations and results to a model's window: built once by
/// [`PromptBuilder::build`](super::PromptBuilder::build), `Send + Sync`, cheap to clone.
#[derive(Clone, Debug)]
pub struct PromptAssembler {
    inner: Arc<Inner>,
}

#[derive(Clone, Debug)]
struct Inner {
    template: ChatTemplate,
    window: usize,
    reserve: usize,
    placement: ContextPlacement,
    date: Option<ConversationDate>,
    history_max_tokens: Option<usize>,
    trim_step: f64,
    special_tokens_in_messages: bool,
    /// The tool definitions as the template sees them: neutralized unless the messages may
    /// keep control tokens.
    tools: Option<minijinja::Value>,
    /// The template's options as the template sees them, neutralized as the tools are.
    template_options: Option<minijinja::Value>,
    /// The tools and options as given, for a request's own to replace or go over.
    given: (Option<Tools>, Option<TemplateOptions>),
    cache: Option<TokenCache>,
    /// The context's assembler, at the most the window leaves.
    assembler: Assembler,
    /// For a room too small for the context's header: no header, nothing placed.
    empty: Assembler,
}

/// How many renders one fitting may take before it gives up: each one after the first
/// shrinks the context by what the last went over, or drops a turn.
const EXTRA_ATTEMPTS: usize = 8;

impl PromptAssembler {
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

    /// Fits `conversation` (its last message is the user's question; with the context in a
    /// [`Tool`](ContextPlacement::Tool) result, the question and then the assistant's call of
    /// the search tool) and `results` to the window.
    ///
    /// # Errors
    ///
    /// - [`Error::Conversation`] when the conversation is empty, does not end with a user
    ///   message whose content is text (with the context in a tool result: that message, then
    ///   an assistant message with one tool call, with an `id`, that nothing answers yet), has
    ///   a role that is not a name, or has a message the template's kind cannot write;
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

    /// [`assemble`](Self::assemble), and what it cost: the bytes it handed the tokenizer (the
    /// context's assembly included) and the renders: what the cost tests and benches read.
    pub(crate) fn assemble_counting<'r>(
        &self,
        conversation: &[Message],
        results: &'r [MentorRagResult],
    ) -> (Result<Prompt<'r>, Error>, super::count::Work) {
        let mut stats = super::count::Work::default();
        let prompt = self.assemble_measured(conversation, results, &mut stats, &Deadline::never());
        (prompt, stats)
    }

    /// [`assemble`](Self::assemble) adding the work it took to `stats`,
    /// stopping at `deadline` (`assemble_until`, in `deadline.rs`).
    pub(in crate::prompt) fn assemble_measured<'r>(
        &self,
        conversation: &[Message],
        results: &'r [MentorRagResult],
        stats: &mut super::count::Work,
        deadline: &Deadline,
    ) -> Result<Prompt<'r>, Error> {
        let available = self.inner.window - self.inner.reserve;
        let bound = available
            .saturating_mul(self.inner.template.counter().max_token_bytes())
            .saturating_add(1);
        match untrusted::results(results, self.inner.template.control(), bound) {
            Cow::Borrowed(results) => self.assemble_neutral(conversation, results, stats, deadline),
            Cow::Owned(results) => self
                .assemble_neutral(conversation, &results, stats, deadline)
                .map(Prompt::into_owned),
        }
    }

    /// [`assemble`](Self::assemble) once the results hold no control token.
    fn assemble_neutral<'r>(
        &self,
        conversation: &[Message],
        results: &'r [MentorRagResult],
        stats: &mut super::count::Work,
        deadline: &Deadline,
    ) -> Result<Prompt<'r>, Error> {
        let inner = &*self.inner;
        let template = &inner.template;
        let counter = template.counter().clone();
        let mut counting = Counting::new(counter.as_ref(), inner.cache.as_ref()).until(deadline);
        let date = inner.date.unwrap_or_else(ConversationDate::today);
        let chat = self.read(conversation)?;
        let available = inner.window - inner.reserve;

        // The whole conversation, without the context: what each message costs. The tools are
        // fixed, as the template's framing is; where there are some, the costs come from a
        // render without them, so that a template writing them into the first user message
        // (Llama 3.1's) does not charge them to the turn that is dropped first.
        let whole = self.whole(&chat.values, date, &mut counting)?;
        let whole_total = whole.total;
        // Instructions in the history are never dropped, and some templates move them (DeepSeek
        // V3 joins every system message at the start): the search for contents in order
        // passes them by, and they cost what the template makes of them, as fixed text.
        let mut searched: Vec<Option<&str>> = chat
            .contents
            .iter()
            .enumerate()
            .map(|(index, content)| {
                let moved = chat.history.contains(&index) && chat.is_instruction(index);
                content.as_deref().filter(|_| !moved)
            })
            .collect();
        let costs =
            message_costs_passing_by(&whole.rendered, &mut searched, &chat.roles, &mut counting)?;
        let costs = match costs {
            Some(costs) => costs,
            None => chat.estimated_costs(whole.shared, &mut counting)?,
        };
        let turn_costs: Vec<usize> = chat
            .turns
            .iter()
            .map(|turn| {
                (chat.history.start + turn.start..chat.history.start + turn.end)
                    .filter(|&index| !chat.is_instruction(index))
                    .map(|index| costs[index])
                    .sum()
            })
            .collect();
        let history_total: usize = turn_costs.iter().sum();
        let fixed = whole_total.saturating_sub(history_total);
        let question_tokens =
            counting.text(chat.contents[chat.question()].as_deref().unwrap_or(""))?;
        let mut system_tokens = 0;
        for index in (0..chat.history.end).filter(|&index| chat.is_instruction(index)) {
            system_tokens += counting.text(chat.contents[index].as_deref().unwrap_or(""))?;
        }

        // Half of what the window leaves after the reserve, the template and the system
        // message, but not the question: so the history's room does not move with each
        // question's length, and trims stay rare.
        let base = fixed.saturating_sub(question_tokens);
        let mut limit = available.saturating_sub(base) / 2;
        if let Some(cap) = inner.history_max_tokens {
            limit = limit.min(cap);
        }
        let mut first = history::first_kept(&turn_costs, limit, inner.trim_step);
        // Where the rule alone would start the history, at the room it had: past it, turns
        // went to make the prompt fit.
        let mut by_rule = first;
        let kept: usize = turn_costs[first..].iter().sum();
        let mut budget = available.saturating_sub(fixed.saturating_add(kept));

        let mut attempts = 0;
        let mut drops = 0u32;
        let (mut fitted, mut total) = loop {
            let fitted = self.fit(&chat, first, budget, results, date, &mut counting)?;
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
            } else if first < chat.turns.len() {
                // Turns enough to cover what it went over, by their measured costs; twice as
                // much each time the measure fell short, so that a few renders settle it
                // however long the conversation is.
                let need = over.saturating_mul(1 << drops.min(32));
                drops += 1;
                let mut covered = 0;
                while first < chat.turns.len() && (covered == 0 || covered < need) {
                    covered += turn_costs[first].max(1);
                    first += 1;
                }
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
                let retry = self.fit(&chat, earlier, budget, results, date, &mut counting)?;
                if retry.total <= available {
                    first = earlier;
                    by_rule = earlier;
                    limit = wider;
                    total = retry.total;
                    fitted = retry;
                }
            }
        }

        let history = HistoryFit {
            room: limit,
            trimmed_room: history::trimmed_target(limit, inner.trim_step),
            turns: turn_costs.len(),
            kept_turns: turn_costs.len() - first,
            kept_tokens: turn_costs[first..].iter().sum(),
            next_older_tokens: first.checked_sub(1).map(|newest| turn_costs[newest]),
            dropped_to_fit: first > by_rule,
        };
        let kept_from = chat.kept_from(first);
        let mut history_tokens = 0;
        for index in (kept_from..chat.history.end).filter(|&index| !chat.is_instruction(index)) {
            history_tokens += counting.text(chat.contents[index].as_deref().unwrap_or(""))?;
        }
        let dropped = (chat.history.start..kept_from)
            .filter(|&index| !chat.is_instruction(index))
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
        let tools_tokens = self
            .tools_tokens(&fitted, date, &mut counting)?
            .min(total.saturating_sub(counted));
        let parts = PromptParts {
            template: total.saturating_sub(counted + tools_tokens),
            tools: tools_tokens,
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
        stats.bytes_tokenized += counting.bytes_tokenized;
        stats.renders += counting.renders;
        Ok(Prompt {
            prompt: fitted.rendered.text,
            messages,
            documents: fitted.documents,
            token_count: total,
            exact: inner.template.counts_tools_exactly()
                || inner
                    .tools
                    .as_ref()
                    .is_none_or(|tools| tools.len() == Some(0)),
            window: inner.window,
            reserve: inner.reserve,
            parts,
            dropped,
            history,
            context: fitted.context,
        })
    }
}
