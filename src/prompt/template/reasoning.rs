//! [`ReasoningEffort`]: how hard gpt-oss thinks, written in its system message.

use crate::named_choice::named_choice;

/// gpt-oss's reasoning effort, as vLLM's chat endpoint takes it (`reasoning_effort`: `low`,
/// `medium`, `high`) and writes it in the system message (`Reasoning: low`), through
/// `openai-harmony`'s `SystemContent.with_reasoning_effort`.
///
/// ```
/// use mentor_context::prompt::ReasoningEffort;
///
/// assert_eq!(ReasoningEffort::default(), ReasoningEffort::Medium);
/// assert_eq!("HIGH".parse::<ReasoningEffort>()?, ReasoningEffort::High);
/// assert!("none".parse::<ReasoningEffort>().is_err()); // Harmony has no such effort
/// # Ok::<(), mentor_context::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum ReasoningEffort {
    /// `Reasoning: low`.
    Low,
    /// `Reasoning: medium`: what `SystemContent.new()` writes, and so what vLLM sends when a
    /// request names no effort.
    #[default]
    Medium,
    /// `Reasoning: high`.
    High,
}

impl ReasoningEffort {
    /// Every effort, from the least.
    /// A slice, not an array: a new value does not change this constant's type.
    pub const ALL: &[ReasoningEffort] = &[
        ReasoningEffort::Low,
        ReasoningEffort::Medium,
        ReasoningEffort::High,
    ];

    /// The name: `low`, `medium`, `high`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            ReasoningEffort::Low => "low",
            ReasoningEffort::Medium => "medium",
            ReasoningEffort::High => "high",
        }
    }
}

named_choice!(ReasoningEffort, "reasoning effort", "low, medium or high");
