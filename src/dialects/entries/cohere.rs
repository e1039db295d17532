//! Cohere v2 chat documents (cohere-python `src/cohere/types/document.py`): an id and string
//! fields, sent in the request's `documents`, or as the content of a `tool` message
//! (`tool_message_v2.py`, whose content is a list of `tool_content.py`'s blocks).

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::{Entry, EntryParts};

/// The names Cohere's `data` holds besides the metadata: a metadata key equal to one of them
/// is written as `"<key> (metadata)"`, so it can never take the place of the content.
const COHERE_FIELDS: [&str; 4] = ["title", "url", "text", "truncated"];

/// A Cohere v2 document: an id and string fields, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CohereDocument {
    /// The citation's number, as a string: what Cohere's citations name.
    pub id: String,
    /// `title`, `url`, the metadata, `text` (the content), and `truncated` after a cut.
    pub data: IndexMap<String, String>,
}

/// The document of `parts`: id `"n"`, and its fields in order.
pub(super) fn document(parts: &EntryParts<'_>) -> CohereDocument {
    let mut data = IndexMap::new();
    if let Some(title) = &parts.title {
        data.insert("title".to_string(), title.clone());
    }
    if let Some(url) = &parts.source {
        data.insert("url".to_string(), url.clone());
    }
    for (key, value) in &parts.metadata {
        // Renamed until it is free: a result may hold both `title` and
        // `title (metadata)`.
        let mut key = key.clone();
        while COHERE_FIELDS.contains(&key.as_str()) || data.contains_key(&key) {
            key.push_str(" (metadata)");
        }
        data.insert(key, value.clone());
    }
    data.insert("text".to_string(), parts.content.to_string());
    if parts.truncated {
        data.insert("truncated".to_string(), "true".to_string());
    }
    CohereDocument {
        id: parts.index.to_string(),
        data,
    }
}

/// One block of a Cohere v2 `tool` message's content, as cohere-python types it
/// (`src/cohere/types/tool_content.py`, `DocumentToolContent`): `{"type": "document",
/// "document": {...}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum CohereToolContent {
    /// A document the model may cite.
    Document {
        /// The entry, as [`Assembler::entries`](crate::Assembler::entries) gives it.
        document: Entry,
    },
}

/// The `content` of the `tool` message that sends `entries` to Cohere as the result of the
/// model's tool call: each entry wrapped as `{"type": "document", "document": {...}}`, in
/// order. Cohere cites a document of a tool result as `{"type": "tool", "id": "CALL_ID:N"}`,
/// `N` its position in this list from 0 (Cohere's "Building an agent" tutorial), and
/// [`Resolver::response`](crate::citations::Resolver::response) reads that as citation
/// `N + 1`, whatever the call's id; the documents' own ids (`"1"`, `"2"`, ...) resolve as in
/// `documents`. Send the entries of the whole report, so that a follow-up turn's documents
/// keep the positions they had.
///
/// ```
/// use mentor_context::dialects::{Dialect, cohere_tool_content};
/// use mentor_context::{ContextBuilder, MentorRagResult};
/// use serde_json::json;
///
/// let assembler = ContextBuilder::new(500).dialect(Dialect::Cohere).build()?;
/// let results = [MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9).with_title("Prices")];
/// let entries = assembler.entries(&assembler.assemble(&results))?;
/// let tool = json!({"role": "tool", "tool_call_id": "search_1",
///     "content": cohere_tool_content(&entries)});
/// assert_eq!(tool["content"], json!([{"type": "document", "document": {"id": "1",
///     "data": {"title": "Prices", "text": "Plan B costs 12 EUR."}}}]));
/// # Ok::<(), mentor_context::Error>(())
/// ```
#[must_use]
pub fn cohere_tool_content(entries: &[Entry]) -> Vec<CohereToolContent> {
    entries
        .iter()
        .map(|entry| CohereToolContent::Document {
            document: entry.clone(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::{CohereToolContent, cohere_tool_content};
    use crate::dialects::{Dialect, Entry};
    use crate::{ContextBuilder, MentorRagResult};

    /// Each entry, in order, as a `document` block; read back as it was written.
    #[test]
    fn the_tool_content_wraps_each_document_in_order() {
        let assembler = ContextBuilder::new(500)
            .dialect(Dialect::Cohere)
            .build()
            .unwrap();
        let results = [
            MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9),
            MentorRagResult::from_content("Plan C costs 20 EUR.", 0.8),
        ];
        let entries = assembler.entries(&assembler.assemble(&results)).unwrap();
        let content = cohere_tool_content(&entries);
        assert_eq!(content.len(), 2);
        for (i, block) in content.iter().enumerate() {
            let CohereToolContent::Document { document } = block;
            assert_eq!(document, &entries[i]);
            let Entry::Cohere(document) = document else {
                panic!("not a Cohere document: {document:?}");
            };
            assert_eq!(document.id, (i + 1).to_string());
        }
        let json = serde_json::to_value(&content).unwrap();
        assert_eq!(json[1]["type"], "document");
        assert_eq!(json[1]["document"]["data"]["text"], "Plan C costs 20 EUR.");
        let back: Vec<CohereToolContent> = serde_json::from_value(json).unwrap();
        assert_eq!(back, content);
        assert!(cohere_tool_content(&[]).is_empty());
    }
}
