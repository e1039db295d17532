//! The assembled context: its text, its exact token count, and the citation chips.

use serde::{Deserialize, Serialize};

use crate::record::Metadata;

/// The result of [`ContextBuilder::assemble`](crate::ContextBuilder::assemble).
///
/// Serialized (camelCase, as a .NET or browser client expects), it is the report a chat UI
/// needs: `context`, `tokenCount`, `budget`, `encoding`, `citations`, `omitted`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AssembledContext {
    /// The text to put in the prompt.
    #[serde(rename = "context")]
    pub text: String,
    /// The exact number of tokens of `text`, encoded as ordinary text. Never over `budget`.
    pub token_count: usize,
    /// The budget the text was assembled for.
    pub budget: usize,
    /// The name of the tokenizer that counted.
    pub encoding: String,
    /// One chip per block in the text, in text order; chip `n` is marker `[n]`.
    pub citations: Vec<Citation>,
    /// The results that are not in the text, best-ranked first, with the reason.
    pub omitted: Vec<Omission>,
}

/// A citation chip: what a chat UI shows for block `[index]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Citation {
    /// The number of the block's marker in the text, from 1.
    pub index: usize,
    /// The display title: the title, else the source URL (`None` if neither is present).
    pub title: Option<String>,
    /// The source URL, the chip's link.
    pub source_url: Option<String>,
    /// The result's score.
    pub score: f32,
    /// All of the result's metadata, including keys kept out of the prompt.
    pub metadata: Option<Metadata>,
    /// Whether the block's content was cut to fit the budget.
    pub truncated: bool,
    /// The tokens this block takes in the text.
    pub token_count: usize,
}

/// A result that is not in the text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Omission {
    /// The display title, as on a chip.
    pub title: Option<String>,
    /// The source URL.
    pub source_url: Option<String>,
    /// The result's score.
    pub score: f32,
    /// Why it was left out.
    pub reason: OmitReason,
}

/// Why a result was left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum OmitReason {
    /// Its score is below the minimum (a NaN score is below any minimum).
    BelowMinScore,
    /// A better-ranked result has the same source URL and content.
    Duplicate,
    /// The maximum number of blocks was already reached.
    OverBlockLimit,
    /// It did not fit in what was left of the budget.
    DidNotFit,
}

impl std::fmt::Display for OmitReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            OmitReason::BelowMinScore => "below the minimum score",
            OmitReason::Duplicate => "duplicate",
            OmitReason::OverBlockLimit => "over the block limit",
            OmitReason::DidNotFit => "did not fit",
        })
    }
}
