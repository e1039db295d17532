//! Cohere v2 chat documents (cohere-python `document.py`): an id and string fields.

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::EntryParts;

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
