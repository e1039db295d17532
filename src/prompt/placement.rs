//! [`ContextPlacement`]: where the context goes in a whole prompt.

use crate::named_choice::named_choice;

/// Where the context goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ContextPlacement {
    /// Before the question, in the last user message. The system message and the history
    /// stay a stable prefix that providers' and servers' prompt caches keep hitting.
    #[default]
    User,
    /// After the system message's text (one is added if the conversation has none). The
    /// prompt then changes from the system message on whenever the results do.
    System,
    /// As the template's `documents` (Command-R's and Granite's templates read them), one
    /// per block, `{"title", "text"}`, in chip order.
    Documents,
    /// As the result of the application's search tool (agentic retrieval): the conversation
    /// ends with the user's question and an assistant message whose one tool call has no
    /// result yet, and the context becomes the `tool` message answering it (`tool_call_id`
    /// set, and the function's `name` for Hugging Face templates, as `transformers` documents
    /// a tool message), before the generation prompt. The rest is as [`User`](Self::User):
    /// the system message and the history stay a stable prefix.
    Tool,
}

impl ContextPlacement {
    /// Every placement, in declaration order.
    /// A slice, not an array: a new value does not change this constant's type.
    pub const ALL: &[ContextPlacement] = &[
        ContextPlacement::User,
        ContextPlacement::System,
        ContextPlacement::Documents,
        ContextPlacement::Tool,
    ];

    /// The name: `user`, `system`, `documents`, `tool`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ContextPlacement::User => "user",
            ContextPlacement::System => "system",
            ContextPlacement::Documents => "documents",
            ContextPlacement::Tool => "tool",
        }
    }
}

named_choice!(
    ContextPlacement,
    "context placement",
    "user, system, documents or tool"
);
