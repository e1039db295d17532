//! What fitting a prompt returns.

use serde::Serialize;

use super::Message;
use crate::AssembledContext;

/// A whole prompt, fitted to the window: what to send, and how the window was shared.
///
/// Serialized (camelCase), it is what the command's `prompt --json` writes.
#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Prompt<'r> {
    /// The prompt text, as the model's template writes it (absent for OpenAI's chat models,
    /// whose messages are what is sent).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// The messages as rendered: the kept history, with the context placed and control
    /// tokens neutralized.
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<Object>))]
    pub messages: Vec<Message>,
    /// With the context as `documents`: what the template was given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub documents: Option<Vec<TemplateDocument>>,
    /// The prompt's exact token count. `token_count + reserve <= window`.
    pub token_count: usize,
    /// Whether `token_count` is exact. It is not where OpenAI's chat models are given tools:
    /// the cookbook's `num_tokens_for_tools` estimates them
    /// ([`ChatTemplate::counts_tools_exactly`](super::ChatTemplate::counts_tools_exactly)).
    /// Written only when false.
    #[serde(skip_serializing_if = "is_true")]
    pub exact: bool,
    /// The model's window.
    pub window: usize,
    /// The tokens kept free for the answer.
    pub reserve: usize,
    /// How `token_count` splits between the parts.
    pub parts: PromptParts,
    /// The messages dropped from the history, oldest first.
    pub dropped: Vec<DroppedMessage>,
    /// Why the history stopped where it did: the numbers the trimming rule used.
    pub history: HistoryFit,
    /// The context's report, as [`Assembler::assemble`](crate::Assembler::assemble) gives
    /// it: its text, citations and omissions.
    pub context: AssembledContext<'r>,
}

impl Prompt<'_> {
    /// The same prompt, owning everything: to keep it past the results.
    #[must_use]
    pub fn into_owned(self) -> Prompt<'static> {
        Prompt {
            prompt: self.prompt,
            messages: self.messages,
            documents: self.documents,
            token_count: self.token_count,
            exact: self.exact,
            window: self.window,
            reserve: self.reserve,
            parts: self.parts,
            dropped: self.dropped,
            history: self.history,
            context: self.context.into_owned(),
        }
    }
}

/// A document as a template's `documents` takes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[non_exhaustive]
pub struct TemplateDocument {
    /// The chip's title (its source URL when it has none).
    pub title: String,
    /// The block's content, as much as fitted.
    pub text: String,
}

/// The parts of a prompt's count. Each of `system`, `history`, `context` and `question` is its
/// text counted alone (`history`: the kept messages' text contents); `tools` is what the tool
/// definitions add: the prompt's count less the count of the same prompt rendered without
/// them (so it holds whatever the template writes around them); `template` is the rest:
/// the template's own framing (control tokens, role headers, separators), any field that is
/// not text, and the difference a part's edges make when joined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[non_exhaustive]
pub struct PromptParts {
    /// The template's framing: `token_count` less the other parts (with the context in a tool
    /// result, the pending tool call's message too).
    pub template: usize,
    /// The system message's text.
    pub system: usize,
    /// The kept history's text.
    pub history: usize,
    /// The context (its report's `tokenCount`).
    pub context: usize,
    /// The question's text.
    pub question: usize,
    /// What the tool definitions add. Serialized only where it is not 0, so that a prompt
    /// without tools reads as it always has.
    #[serde(skip_serializing_if = "is_zero")]
    pub tools: usize,
}

#[allow(clippy::trivially_copy_pass_by_ref)] // serde's `skip_serializing_if` passes a reference
fn is_zero(tokens: &usize) -> bool {
    *tokens == 0
}

/// A message of the history left out for lack of room.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[non_exhaustive]
pub struct DroppedMessage {
    /// Its index in the conversation.
    pub index: usize,
    /// Its role.
    pub role: String,
    /// Its share of the prompt had it been kept, one meaning for every message and every
    /// template: the tokens the whole conversation's render (without the context and the
    /// tools) holds from the end of the message before it to the end of its own content. So
    /// it holds its own framing and content and the closing framing of the message before it,
    /// and the shares of a turn's messages add up to what the turn costs
    /// ([`HistoryFit::next_older_tokens`] for the newest turn dropped). A message whose text
    /// is not in the render (an assistant's tool call without text; Mistral's v3 writes a tool
    /// result inside JSON) has no stretch of its own: 0, its tokens in the next message's
    /// share. Where the template rewrites contents so that none can be found, each share is
    /// estimated: the message's own count and an even share of the framing.
    pub tokens: usize,
}

/// The numbers the history's fitting used, to say why it stopped where it did.
///
/// The history is whole turns, newest kept first. Each turn costs its messages with their
/// framing, as the whole conversation's render shares them out (a dropped message's
/// [`tokens`](DroppedMessage::tokens)); these costs, not the texts counted alone of
/// [`PromptParts::history`], are what the rule compares with the room.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct HistoryFit {
    /// The history's room: half of what the window leaves after the reserve, the template,
    /// the tools and the system message (the question not counted), at most
    /// `history_max_tokens`, and more by what the context left unused where that kept more
    /// turns.
    pub room: usize,
    /// What a trim leaves the kept turns: the room less
    /// [`trim_step`](super::PromptBuilder::trim_step) of it. While the kept turns fit in the
    /// room none goes; once they do not, the oldest go until the rest fit in this.
    pub trimmed_room: usize,
    /// The history's turns (a user message and what follows it up to the next).
    pub turns: usize,
    /// The turns kept, the newest.
    pub kept_turns: usize,
    /// What the kept turns cost.
    pub kept_tokens: usize,
    /// What the newest dropped turn cost, the one just older than the kept ones; absent when
    /// no turn was dropped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_older_tokens: Option<usize>,
    /// Whether turns went beyond the rule's because the prompt did not fit the window
    /// otherwise, with no room left for the context.
    pub dropped_to_fit: bool,
}

/// For serde: a field written only when false.
#[allow(clippy::trivially_copy_pass_by_ref)]
fn is_true(value: &bool) -> bool {
    *value
}
