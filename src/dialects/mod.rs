//! The model APIs' own citation dialects: Anthropic's search results and documents, Amazon
//! Bedrock's Converse documents, Cohere's documents and Mistral's tool-result references,
//! over the same selection, budget, citations and follow-up turns as the text formats.
//!
//! With [`ContextBuilder::dialect`](crate::ContextBuilder::dialect), an assembler chooses and
//! cuts blocks exactly as it does for text, and [`Assembler::entries`](crate::Assembler::entries)
//! turns the report into the JSON entries to put in the request, one per citation, in
//! citation order:
//!
//! | dialect | each entry | metadata | a cut |
//! |---|---|---|---|
//! | [`Dialect::Anthropic`] | a `search_result` block: `source`, `title`, `content` text blocks | its own first text block of `key: value` lines | a last text block `(truncated)` |
//! | [`Dialect::AnthropicDocuments`] | a `document` block with a plain-text `source` and a `title` | in `context`, which the model weighs but does not cite | a `(truncated)` line in `context` |
//! | [`Dialect::Bedrock`] | a Converse `{"document": {...}}` block: `format` `txt`, `name` `[n]` and the title, a `text` source | in `context` (after a `source:` line), weighed but not cited | a `(truncated)` line in `context` |
//! | [`Dialect::Cohere`] | a document `{"id", "data"}` with `title`, `url` and `text`, for `documents` or a tool result | as `data` entries | `"truncated": "true"` in `data` |
//! | [`Dialect::Mistral`] | a document of a tool result: `title`, `url`, `snippets` `[[content]]` | in its own `metadata` object | `"truncated": true` |
//!
//! Citations are turned on in every Anthropic and Bedrock entry (Anthropic wants all or
//! none). Citation `n` is `search_result_index` (or `document_index`, or Bedrock's
//! `documentIndex`) `n - 1`, Cohere's document id `"n"` (or `"CALL_ID:{n - 1}"`, the tool
//! source of a document of a tool result, whatever the call), and Mistral's reference id
//! `n - 1`, when the caller sends the entries of a conversation's turns in order: a Converse
//! request's documents as its messages' content blocks, a Cohere tool result as the content
//! blocks of [`cohere_tool_content`], a Mistral tool result as the JSON object keyed `"0"`,
//! `"1"`, ... of [`mistral_tool_content`]. An Anthropic `search_result` block goes in a user
//! message's content or in a `tool_result` block's (anthropic-sdk-python
//! `tool_result_block_param.py` takes them), and is cited alike. A Bedrock `name` holds only
//! the characters Bedrock allows (ASCII letters and digits, single spaces, `-`, `()`, `[]`),
//! and the `[n]` keeps names unique, as Bedrock requires.
//!
//! **The budget.** What is counted is the text a [`DialectFormat`] writes for the entries:
//! for each, a `[n] title` line, a `source:` line where the entry carries its URL, the
//! metadata lines, and the content in a fence, as `context` in the report shows it. That is
//! the text the model reads from each entry (title, source, metadata, content) and a few
//! tokens of layout; it makes no claim about how the provider frames entries, which it does
//! not publish. The count of that text is exact, as for the text formats, and the report says
//! which dialect it was counted for (`dialect`).
//!
//! **Reading the answer.** [`Resolver::response`](crate::citations::Resolver::response) reads
//! a provider's response, whole or as its stream of events, and gives the same
//! [`Resolution`](crate::citations::Resolution) as an answer with `[n]` markers: the citations
//! cited, in order of first citation, where in the answer (UTF-8 bytes and UTF-16 units), the
//! citations that point at nothing (an index out of range, an unknown id, a title that
//! disagrees), and each quote checked (an Anthropic `cited_text` or a Bedrock
//! `sourceContent` against the content it names, a Cohere `text` against the answer span it
//! marks). A Bedrock citation's place is the `citationsContent` block it is attached to; a
//! Mistral reference, which carries no offsets and no quote, cites the text before it (back
//! to the reference before that), and references in a row cite the same text.
//!
//! Bedrock's ConverseStream is read as the AWS SDKs hand its events out: one JSON object
//! per event, keyed by its type (`{"contentBlockDelta": {...}}`), as JSON Lines or one by
//! one; the binary `application/vnd.amazon.eventstream` framing on the wire is the SDKs'
//! to take apart, and is not read here. Mistral's stream is its server-sent events of chat
//! completion chunks, or those chunks as JSON Lines.
//!
//! **Gemini is left out on purpose.** Its grounding (`groundingSupports`, google-genai
//! `types.py`) cites only documents in a store Google manages (Google Search, Vertex AI
//! Search, RAG Engine, File Search), and its supports point into the answer (in UTF-8
//! bytes), not into documents the caller sent: no path takes a caller's own results and
//! returns citations of them, so there is nothing for these entries to map to.
//!
//! A Claude round trip on Bedrock, with `serde_json`:
//!
//! ```
//! use mentor_context::citations::Resolver;
//! use mentor_context::dialects::Dialect;
//! use mentor_context::{ContextBuilder, MentorRagResult};
//! use serde_json::{Value, json};
//!
//! let assembler = ContextBuilder::new(2000).dialect(Dialect::Bedrock).build()?;
//! let results = [MentorRagResult::from_content("Plan B costs 12 EUR a month.", 0.9)
//!     .with_title("Prices: 2026").with_source_url("https://example.com/prices")];
//! let report = assembler.assemble(&results);
//! // Converse's request: the document blocks, then the question, in one message's content.
//! let entries = assembler.entries(&report)?;
//! let question = json!({"text": "What does Plan B cost?"});
//! let content: Vec<Value> = entries.iter().map(|entry| json!(entry)).chain([question]).collect();
//! assert_eq!(content[0], json!({"document": {"format": "txt", "name": "[1] Prices 2026",
//!     "source": {"text": "Plan B costs 12 EUR a month."},
//!     "context": "source: https://example.com/prices", "citations": {"enabled": true}}}));
//! // Converse's response (ConverseStream's events, as JSON Lines, read the same).
//! let response = r#"{"output": {"message": {"role": "assistant", "content": [
//!   {"citationsContent": {"content": [{"text": "12 EUR a month."}], "citations": [
//!     {"title": "[1] Prices 2026", "sourceContent": [{"text": "Plan B costs 12 EUR"}],
//!      "location": {"documentChar": {"documentIndex": 0, "start": 0, "end": 19}}}]}}]}},
//!   "stopReason": "end_turn"}"#;
//! let resolution = Resolver::for_context(&report).entries(&entries).response(response)?;
//! assert_eq!(resolution.cited[0].citation.index, 1);
//! assert!(resolution.cited[0].quotes[0].verified); // the quote is in the characters cited
//! Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A Mistral round trip: the entries go in as a tool result, and each `reference` chunk of
//! the answer cites the text before it.
//!
//! ```
//! use mentor_context::citations::Resolver;
//! use mentor_context::dialects::{Dialect, mistral_tool_content};
//! use mentor_context::{ContextBuilder, MentorRagResult};
//! use serde_json::json;
//!
//! let assembler = ContextBuilder::new(2000).dialect(Dialect::Mistral).build()?;
//! let results = [
//!     MentorRagResult::from_content("Plan B costs 12 EUR a month.", 0.9).with_title("Prices"),
//!     MentorRagResult::from_content("Plan C costs 20 EUR a month.", 0.8).with_title("Plan C"),
//! ];
//! let report = assembler.assemble(&results);
//! let entries = assembler.entries(&report)?;
//! // The tool message answering the model's call of the tool that fetches documents.
//! let tool = json!({"role": "tool", "tool_call_id": "call_1", "name": "get_information",
//!     "content": mistral_tool_content(&entries)});
//! assert!(tool["content"].as_str().unwrap().starts_with(r#"{"0":{"title":"Prices","#));
//! let response = r#"{"id": "c1", "object": "chat.completion", "model": "mistral-large-latest",
//!   "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant",
//!     "content": [{"type": "text", "text": "Plan B costs 12 EUR"},
//!                 {"type": "reference", "reference_ids": [0]},
//!                 {"type": "text", "text": ", Plan C 20 EUR"},
//!                 {"type": "reference", "reference_ids": [1]}, {"type": "text", "text": "."}]}}]}"#;
//! let resolution = Resolver::for_context(&report).response(response)?;
//! let answer = resolution.answer.as_deref().unwrap();
//! assert_eq!(answer, "Plan B costs 12 EUR, Plan C 20 EUR.");
//! let span = resolution.cited[1].spans[0];
//! assert_eq!(&answer[span.start..span.end], ", Plan C 20 EUR"); // reference 1 is chip 2
//! assert_eq!(resolution.cited[1].citation.index, 2);
//! Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod entries;
mod format;
mod response;

use crate::named_choice::named_choice;

pub use entries::{
    AnthropicBlock, AnthropicSource, BedrockDocument, BedrockDocumentBlock, BedrockSource,
    CacheControl, CitationsEnabled, CohereDocument, CohereToolContent, Entry, MistralReference,
    TextBlock, cohere_tool_content, mark_cache_control, mark_turn_cache_control,
    mistral_tool_content,
};
pub(crate) use entries::{EntryParts, bedrock_name, entry};
pub use format::DialectFormat;
pub use response::ResponseStream;

/// A model API's own way of carrying documents and citations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// Anthropic Messages `search_result` content blocks, cited as `search_result_location`.
    Anthropic,
    /// Anthropic Messages `document` content blocks with plain-text sources, cited as
    /// `char_location`.
    AnthropicDocuments,
    /// Amazon Bedrock Converse `document` content blocks with text sources and citations
    /// enabled, cited in `citationsContent` blocks.
    Bedrock,
    /// Cohere v2 chat `documents`, cited by document id.
    Cohere,
    /// Mistral chat completions: the documents as a tool result, cited by `reference` chunks.
    Mistral,
}

impl Dialect {
    /// Every dialect, in a fixed order.
    /// A slice, not an array: a new value does not change this constant's type.
    pub const ALL: &[Dialect] = &[
        Dialect::Anthropic,
        Dialect::AnthropicDocuments,
        Dialect::Bedrock,
        Dialect::Cohere,
        Dialect::Mistral,
    ];

    /// The dialect's name: `"anthropic"`, `"anthropic-documents"`, `"bedrock"`, `"cohere"`
    /// or `"mistral"`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Anthropic => "anthropic",
            Dialect::AnthropicDocuments => "anthropic-documents",
            Dialect::Bedrock => "bedrock",
            Dialect::Cohere => "cohere",
            Dialect::Mistral => "mistral",
        }
    }

    /// Whether the dialect's entries carry the source URL beside the title.
    pub(crate) fn sends_source(self) -> bool {
        !matches!(self, Dialect::AnthropicDocuments)
    }
}

named_choice!(
    Dialect,
    "dialect",
    "anthropic, anthropic-documents, bedrock, cohere or mistral"
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_any_case_and_serialize_as_names() {
        for &dialect in Dialect::ALL {
            assert_eq!(dialect.to_string().parse::<Dialect>().unwrap(), dialect);
            assert_eq!(
                dialect.as_str().to_uppercase().parse::<Dialect>().unwrap(),
                dialect
            );
            let json = serde_json::to_string(&dialect).unwrap();
            assert_eq!(json, format!("\"{dialect}\""));
        }
        assert_eq!(
            "openai".parse::<Dialect>().unwrap_err().to_string(),
            "unknown dialect `openai` (expected anthropic, anthropic-documents, bedrock, cohere or \
             mistral)"
        );
    }
}
