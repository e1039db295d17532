//! [`PromptAssembler`]: fitting a conversation and results to the window, as one line of
//! steps, each in the file named for it ([`run`](PromptAssembler::run) reads them in order):
//!
//! 0. the results neutralized (`untrusted::results`, borrowed where nothing needs breaking);
//! 1. [`read`]: the conversation read once: checked, neutralized, its turns found;
//! 2. [`costs`]: the whole conversation rendered and counted, what each message and turn costs;
//! 3. [`choose`]: the history's room, and the turns the trimming rule keeps in it;
//! 4. [`fit`]: candidates ([`candidate`], the context placed by [`place`]) rendered and counted
//!    until one fits the window;
//! 5. [`report`]: the parts of its count, the messages dropped, why the history stopped.
//!
//! Beside the walk: [`checked`] makes an assembler of the builder's choices, [`request`] gives
//! it a request's own tools and template options.

mod candidate;
mod checked;
mod choose;
mod costs;
mod fit;
mod place;
mod read;
mod report;
mod request;

use std::borrow::Cow;
use std::sync::Arc;

use super::count::{Counting, Work};
use super::deadline::Deadline;
use super::placement::ContextPlacement;
use super::report::Prompt;
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
        self.run(
            conversation,
            results,
            &mut Work::default(),
            &Deadline::never(),
        )
    }

    /// The whole walk: [`assemble`](Self::assemble) stopping at `deadline`
    /// ([`assemble_until`](Self::assemble_until)), and adding the work it took to `work` where
    /// it makes a prompt (what the cost tests and the benches' `prompt_with_stats` read).
    pub(crate) fn run<'r>(
        &self,
        conversation: &[Message],
        results: &'r [MentorRagResult],
        work: &mut Work,
        deadline: &Deadline,
    ) -> Result<Prompt<'r>, Error> {
        // 0. No context of this window holds more of a result than its tokens times the
        //    longest token: only that much is searched for control tokens.
        let bound = choose::available(&self.inner)
            .saturating_mul(self.inner.template.counter().max_token_bytes())
            .saturating_add(1);
        match untrusted::results(results, self.inner.template.control(), bound) {
            Cow::Borrowed(results) => self.steps(conversation, results, work, deadline),
            Cow::Owned(results) => self
                .steps(conversation, &results, work, deadline)
                .map(Prompt::into_owned),
        }
    }

    /// Steps 1 to 5, once the results hold no control token.
    fn steps<'r>(
        &self,
        conversation: &[Message],
        results: &'r [MentorRagResult],
        work: &mut Work,
        deadline: &Deadline,
    ) -> Result<Prompt<'r>, Error> {
        let inner = &*self.inner;
        let counter = inner.template.counter().clone();
        let mut counting = Counting::new(counter.as_ref(), inner.cache.as_ref()).until(deadline);
        let date = inner.date.unwrap_or_else(ConversationDate::today);

        let chat = read::conversation(inner, conversation)?;
        let costs = costs::measure(inner, &chat, date, &mut counting)?;
        let chosen = choose::history(inner, &costs);
        let fitted = fit::window(inner, &chat, &costs, &chosen, results, date, &mut counting)?;
        let prompt = report::prompt(inner, &chat, &costs, fitted, date, &mut counting)?;

        work.bytes_tokenized += counting.bytes_tokenized;
        work.renders += counting.renders;
        Ok(prompt)
    }
}
