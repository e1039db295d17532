//! The model APIs' own citation dialects: Anthropic's search results and documents, and
//! Cohere's documents, over the same selection, budget, citations and follow-up turns as the
//! text formats.
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
//! | [`Dialect::Cohere`] | a document `{"id", "data"}` with `title`, `url` and `text` | as `data` entries | `"truncated": "true"` in `data` |
//!
//! Citations are turned on in every Anthropic entry (Anthropic wants all or none). Citation
//! `n` is `search_result_index` (or `document_index`) `n - 1`, and Cohere's document id
//! `"n"`, when the caller sends the entries of a conversation's turns in order.
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
//! disagrees), and each quote checked (an Anthropic `cited_text` against the content it names, a Cohere
//! `text` against the answer span it marks).

mod entries;
mod format;
mod response;

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::Error;

pub use entries::{
    AnthropicBlock, AnthropicSource, CacheControl, CitationsEnabled, CohereDocument, Entry,
    TextBlock, mark_cache_control, mark_turn_cache_control,
};
pub(crate) use entries::{EntryParts, entry};
pub use format::DialectFormat;
pub use response::ResponseStream;

/// A model API's own way of carrying documents and citations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Dialect {
    /// Anthropic Messages `search_result` content blocks, cited as `search_result_location`.
    Anthropic,
    /// Anthropic Messages `document` content blocks with plain-text sources, cited as
    /// `char_location`.
    AnthropicDocuments,
    /// Cohere v2 chat `documents`, cited by document id.
    Cohere,
}

impl Dialect {
    /// Every dialect, in a fixed order.
    pub const ALL: [Dialect; 3] = [
        Dialect::Anthropic,
        Dialect::AnthropicDocuments,
        Dialect::Cohere,
    ];

    /// The dialect's name: `"anthropic"`, `"anthropic-documents"` or `"cohere"`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Dialect::Anthropic => "anthropic",
            Dialect::AnthropicDocuments => "anthropic-documents",
            Dialect::Cohere => "cohere",
        }
    }

    /// Whether the dialect's entries carry the source URL beside the title.
    pub(crate) fn sends_source(self) -> bool {
        !matches!(self, Dialect::AnthropicDocuments)
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Dialect {
    type Err = Error;

    /// Reads a dialect's name, in any letter case.
    fn from_str(name: &str) -> Result<Dialect, Error> {
        Dialect::ALL
            .into_iter()
            .find(|dialect| dialect.as_str().eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                Error::unknown_name("dialect", name, "anthropic, anthropic-documents or cohere")
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_any_case_and_serialize_as_names() {
        for dialect in Dialect::ALL {
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
            "unknown dialect `openai` (expected anthropic, anthropic-documents or cohere)"
        );
    }
}
