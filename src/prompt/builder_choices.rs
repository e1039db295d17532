//! [`PromptChoices`]: every choice of a whole prompt as the builder holds them, not yet
//! checked. The builder sets them, the assembler checks and reads them: neither imports the
//! other's type for it.

use super::placement::ContextPlacement;
use super::{ChatTemplate, ConversationDate, TemplateOptions, Tools};
use crate::ContextBuilder;
use crate::tokenizer::TokenCache;

/// What [`PromptBuilder`](super::PromptBuilder) was set to.
#[derive(Clone, Debug)]
pub(crate) struct PromptChoices {
    pub(crate) template: ChatTemplate,
    pub(crate) window: usize,
    pub(crate) reserve: usize,
    /// The context's options. Its budget and tokenizer are never read: the assembler is built
    /// at the room the window leaves with the template's tokenizer, and each fitting
    /// assembles at its own budget.
    pub(crate) context: ContextBuilder,
    pub(crate) placement: ContextPlacement,
    pub(crate) date: Option<ConversationDate>,
    pub(crate) history_max_tokens: Option<usize>,
    pub(crate) trim_step: f64,
    pub(crate) special_tokens_in_messages: bool,
    pub(crate) tools: Option<Tools>,
    pub(crate) template_options: Option<TemplateOptions>,
    pub(crate) cache: Option<TokenCache>,
}
