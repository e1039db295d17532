//! A dialect's entries: what to put in a model API's request, one per citation, as the
//! providers' SDKs type them. One file per provider: `anthropic.rs` (anthropic-sdk-python
//! `search_result_block_param.py`, `document_block_param.py`), `bedrock.rs` (aws-sdk-rust
//! `sdk/bedrockruntime/src/types/_document_block.rs`), `cohere.rs` (cohere-python
//! `document.py`, `tool_content.py`), `mistral.rs` (Mistral's citations guide,
//! platform-docs-public `docs/capabilities/citations.md`).

mod anthropic;
mod bedrock;
mod cohere;
mod mistral;

use serde::{Deserialize, Serialize};

use super::Dialect;
pub use anthropic::{
    AnthropicBlock, AnthropicSource, CacheControl, TextBlock, mark_cache_control,
    mark_turn_cache_control,
};
pub(crate) use bedrock::bedrock_name;
pub use bedrock::{BedrockDocument, BedrockDocumentBlock, BedrockSource};
pub use cohere::{CohereDocument, CohereToolContent, cohere_tool_content};
pub use mistral::{MistralReference, mistral_tool_content};

/// What an entry shows of one block, each field already on one line.
pub(crate) struct EntryParts<'a> {
    /// The citation's number.
    pub(crate) index: usize,
    pub(crate) title: Option<String>,
    pub(crate) source: Option<String>,
    /// The metadata entries shown in the prompt, in order.
    pub(crate) metadata: Vec<(String, String)>,
    /// The content as the model sees it (cut where the block is cut).
    pub(crate) content: &'a str,
    pub(crate) truncated: bool,
}

impl EntryParts<'_> {
    /// The metadata as `key: value` lines, in order.
    fn metadata_lines(&self) -> Vec<String> {
        self.metadata
            .iter()
            .map(|(key, value)| format!("{key}: {value}"))
            .collect()
    }
}

/// Marks a cut entry, where the text formats write `(truncated)`.
const CUT: &str = "(truncated)";

/// One entry of a dialect's request, serialized as the provider's API takes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum Entry {
    /// An Anthropic `search_result` or `document` content block.
    Anthropic(AnthropicBlock),
    /// A Cohere v2 document.
    Cohere(CohereDocument),
    /// An Amazon Bedrock Converse `document` content block.
    Bedrock(BedrockDocument),
    /// A document of a Mistral tool result.
    Mistral(MistralReference),
}

/// `{"enabled": true}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CitationsEnabled {
    /// Whether the model may cite the entry.
    pub enabled: bool,
}

impl Entry {
    /// The title the entry was sent with: for Bedrock, the document's `name`, which its
    /// citations give back as their `title`.
    #[must_use]
    pub fn title(&self) -> Option<&str> {
        match self {
            Entry::Anthropic(block) => block.title.as_deref(),
            Entry::Cohere(document) => document.data.get("title").map(String::as_str),
            Entry::Bedrock(document) => Some(&document.document.name),
            Entry::Mistral(reference) => reference.title.as_deref(),
        }
    }

    /// A search result's `source`.
    pub(crate) fn search_source(&self) -> Option<&str> {
        match self {
            Entry::Anthropic(AnthropicBlock {
                source: AnthropicSource::Url(source),
                ..
            }) => Some(source),
            _ => None,
        }
    }

    /// A search result's text blocks, in order; empty for the other kinds.
    pub(crate) fn text_blocks(&self) -> Vec<&str> {
        match self {
            Entry::Anthropic(block) => block.content.iter().map(|b| b.text.as_str()).collect(),
            _ => Vec::new(),
        }
    }

    /// A document's text, if it is one.
    pub(crate) fn document_text(&self) -> Option<&str> {
        match self {
            Entry::Anthropic(AnthropicBlock {
                source: AnthropicSource::Text { data, .. },
                ..
            }) => Some(data),
            Entry::Bedrock(document) => Some(&document.document.source.text),
            _ => None,
        }
    }
}

/// The entry of `parts` in `dialect`.
pub(crate) fn entry(dialect: Dialect, parts: &EntryParts<'_>) -> Entry {
    match dialect {
        Dialect::Anthropic => Entry::Anthropic(anthropic::search_result(parts)),
        Dialect::AnthropicDocuments => Entry::Anthropic(anthropic::document(parts)),
        Dialect::Bedrock => Entry::Bedrock(bedrock::document(parts)),
        Dialect::Cohere => Entry::Cohere(cohere::document(parts)),
        Dialect::Mistral => Entry::Mistral(mistral::reference(parts)),
    }
}
