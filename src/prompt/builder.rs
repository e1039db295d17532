//! [`PromptBuilder`]: the whole prompt's configuration, checked once by
//! [`build`](PromptBuilder::build).

use super::assemble::PromptAssembler;
use super::builder_choices::PromptChoices;
use super::placement::ContextPlacement;
use super::{ChatTemplate, ConversationDate, TemplateOptions, Tools};
use crate::ContextBuilder;
use crate::error::Error;
use crate::tokenizer::TokenCache;

/// The configuration of a [`PromptAssembler`]: the model's chat template and window, then
/// what differs from the defaults; [`build`](Self::build) checks it once.
///
/// ```
/// use mentor_context::prompt::{ChatTemplate, ContextPlacement, PromptBuilder};
/// use mentor_context::Encoding;
///
/// let prompts = PromptBuilder::new(ChatTemplate::openai(Encoding::O200kBase), 128_000)
///     .reserve(4096)
///     .history_max_tokens(20_000)
///     .context_in(ContextPlacement::System)
///     .build()?;
/// assert_eq!(prompts.window(), 128_000);
/// # Ok::<(), mentor_context::Error>(())
/// ```
#[derive(Clone, Debug)]
#[must_use]
pub struct PromptBuilder {
    choices: PromptChoices,
}

/// The answer's reserve unless one is set.
pub const DEFAULT_RESERVE: usize = 1024;

/// The share of the history's room a trim leaves free unless one is set.
pub const DEFAULT_TRIM_STEP: f64 = 0.25;

impl PromptBuilder {
    /// A configuration for `template` and a model `window` of that many tokens (prompt and
    /// answer together), with every other setting at its default.
    pub fn new(template: ChatTemplate, window: usize) -> PromptBuilder {
        PromptBuilder {
            choices: PromptChoices {
                template,
                window,
                reserve: DEFAULT_RESERVE,
                // A context builder needs a budget to exist; this one is never read (see
                // `PromptChoices::context`).
                context: ContextBuilder::new(0),
                placement: ContextPlacement::User,
                date: None,
                history_max_tokens: None,
                trim_step: DEFAULT_TRIM_STEP,
                special_tokens_in_messages: false,
                tools: None,
                template_options: None,
                cache: None,
            },
        }
    }

    /// Keeps `reserve` tokens of the window free for the answer. Default: 1024
    /// ([`DEFAULT_RESERVE`]).
    pub fn reserve(mut self, reserve: usize) -> Self {
        self.choices.reserve = reserve;
        self
    }

    /// The context's options (format, header, limits, ...), set on the builder `options` is
    /// given, whose budget and tokenizer are not the caller's to choose: the fitting decides
    /// the budget, and the template's tokenizer counts (a budget, window or tokenizer set
    /// inside `options` is replaced at build). Each call sets options over the last call's.
    /// Default: the assembler's defaults.
    ///
    /// ```
    /// use mentor_context::prompt::{ChatTemplate, PromptBuilder};
    ///
    /// let prompts = PromptBuilder::new(ChatTemplate::harmony(), 4096)
    ///     .context_options(|context| context.max_per_source(2).header("Sources:"))
    ///     .build()?;
    /// assert_eq!(prompts.assembler().budget(), 4096 - 1024);
    /// # Ok::<(), mentor_context::Error>(())
    /// ```
    pub fn context_options(
        mut self,
        options: impl FnOnce(ContextBuilder) -> ContextBuilder,
    ) -> Self {
        self.choices.context = options(self.choices.context);
        self
    }

    /// The context's options as a whole [`ContextBuilder`], in place of any set before: its
    /// budget and tokenizer are not read (the fitting decides the budget, the template's
    /// tokenizer counts), so any budget serves, as in `ContextBuilder::new(0)`.
    /// [`context_options`](Self::context_options) sets the same options without one.
    pub fn context(mut self, context: ContextBuilder) -> Self {
        self.choices.context = context;
        self
    }

    /// Where the context goes. Default: [`ContextPlacement::User`].
    pub fn context_in(mut self, placement: ContextPlacement) -> Self {
        self.choices.placement = placement;
        self
    }

    /// The conversation's date, for templates that write one (Harmony's "Current date",
    /// `strftime_now` in Llama 3.1's). Default: today, in UTC; pin it so that the same
    /// conversation renders the same bytes on any day.
    pub fn date(mut self, date: impl Into<Option<ConversationDate>>) -> Self {
        self.choices.date = date.into();
        self
    }

    /// Caps the history at `max` tokens; `None` lets it take half of the room (and what the
    /// context leaves). Default: `None`.
    pub fn history_max_tokens(mut self, max: impl Into<Option<usize>>) -> Self {
        self.choices.history_max_tokens = max.into();
        self
    }

    /// When turns must be dropped, drop enough to leave this share of the history's room
    /// free (from 0.0, keep as much as fits, to below 1.0), so the next turns need no trim.
    /// Default: 0.25 ([`DEFAULT_TRIM_STEP`]).
    pub fn trim_step(mut self, step: f64) -> Self {
        self.choices.trim_step = step;
        self
    }

    /// Lets the conversation's messages keep the model's control-token strings, for callers
    /// who write them on purpose. Results are always neutralized. Default: `false`.
    pub fn special_tokens_in_messages(mut self, allow: bool) -> Self {
        self.choices.special_tokens_in_messages = allow;
        self
    }

    /// The agent's tool definitions, given to the chat template as `transformers`'
    /// `apply_chat_template(messages, tools=...)` gives them: a fixed part of every prompt,
    /// never dropped, counted in [`PromptParts::tools`](super::PromptParts::tools). Their
    /// control-token strings are neutralized as the messages' are (kept with
    /// [`special_tokens_in_messages`](Self::special_tokens_in_messages)). Which templates take
    /// them: [`ChatTemplate::takes_tools`]. Default: none (the template sees `tools` as none; an
    /// empty [`Tools`] is `[]`, which some templates tell apart).
    pub fn tools(mut self, tools: impl Into<Option<Tools>>) -> Self {
        self.choices.tools = tools.into();
        self
    }

    /// The chat template's options: the variables it reads besides the messages and the
    /// tools (Qwen 3's `enable_thinking`, Llama 3.1's `date_string`), given as
    /// `transformers`' `apply_chat_template(messages, **options)` and vLLM's
    /// `chat_template_kwargs` give them; counted in the template's part. Their control-token
    /// strings are neutralized as the messages' are. Only Hugging Face (Jinja) templates read
    /// them; the built-in ones refuse any. Default: none.
    pub fn template_options(mut self, options: impl Into<Option<TemplateOptions>>) -> Self {
        self.choices.template_options = options.into();
        self
    }

    /// Remembers counts across requests: the history's messages and the results' blocks are
    /// tokenized once. Shared with the context's assembler. Default: none.
    pub fn cache(mut self, cache: impl Into<Option<TokenCache>>) -> Self {
        self.choices.cache = cache.into();
        self
    }

    /// Checks the configuration and builds the assembler.
    ///
    /// # Errors
    ///
    /// - [`Error::PromptSetting`] when the reserve takes the whole window, the trim step is
    ///   not in `0.0..1.0`, the context's builder names a dialect (Anthropic, Bedrock and
    ///   Gemini publish no tokenizer, so no whole prompt can be exact for them; Cohere's and
    ///   Mistral's documents go through their own chat templates), or the
    ///   context goes to `documents` and the template does not read them, or tools are given
    ///   to a template that does not take them yet (Harmony, Mistral, OpenAI's rule), or
    ///   template options are given to one of those;
    /// - what [`ContextBuilder::build`] refuses in the context's options.
    pub fn build(self) -> Result<PromptAssembler, Error> {
        PromptAssembler::new(self.choices)
    }
}
