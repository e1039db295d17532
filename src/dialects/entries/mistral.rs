//! Mistral entries: the documents of a tool result, as Mistral's citations guide
//! (platform-docs-public `docs/capabilities/citations.md`) gives them: a JSON object keyed
//! `"0"`, `"1"`, ..., each document with its `url`, `title` and `snippets`, sent as the
//! `content` of a `tool` message (client-python `src/mistralai/client/models/toolmessage.py`)
//! answering the model's tool call. The answer's `reference` chunks name those keys.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::{Entry, EntryParts};

/// One document of a Mistral tool result.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct MistralReference {
    /// The title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The source URL.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The metadata shown in the prompt, in order; in an object of its own, so that no key
    /// can take the place of the content.
    #[serde(default, skip_serializing_if = "IndexMap::is_empty")]
    pub metadata: IndexMap<String, String>,
    /// `[[content]]`: the guide's snippets are lists of passages; the content is one.
    pub snippets: Vec<Vec<String>>,
    /// `true` after a cut.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

/// The reference of `parts`.
pub(super) fn reference(parts: &EntryParts<'_>) -> MistralReference {
    MistralReference {
        title: parts.title.clone(),
        url: parts.source.clone(),
        metadata: parts.metadata.iter().cloned().collect(),
        snippets: vec![vec![parts.content.to_string()]],
        truncated: parts.truncated,
    }
}

/// The `content` of the `tool` message that sends `entries` to Mistral: the JSON object
/// whose key `"i"` is entry `i`, so that reference id `i` is citation `i + 1` (the entries
/// of every turn of a conversation, in order, keep their keys).
///
/// ```
/// use mentor_context::dialects::{Dialect, mistral_tool_content};
/// use mentor_context::{ContextBuilder, MentorRagResult};
///
/// let assembler = ContextBuilder::new(500).dialect(Dialect::Mistral).build()?;
/// let results = [MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9).with_title("Prices")];
/// let entries = assembler.entries(&assembler.assemble(&results))?;
/// assert_eq!(
///     mistral_tool_content(&entries),
///     r#"{"0":{"title":"Prices","snippets":[["Plan B costs 12 EUR."]]}}"#
/// );
/// # Ok::<(), mentor_context::Error>(())
/// ```
#[must_use]
pub fn mistral_tool_content(entries: &[Entry]) -> String {
    let keyed: IndexMap<String, &Entry> = entries
        .iter()
        .enumerate()
        .map(|(i, entry)| (i.to_string(), entry))
        .collect();
    // A map of strings to serializable entries: serde_json cannot fail on it.
    serde_json::to_string(&keyed).unwrap_or_default()
}
