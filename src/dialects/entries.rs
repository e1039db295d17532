//! A dialect's entries: what to put in a model API's request, one per citation, as the
//! providers' SDKs type them (anthropic-sdk-python `search_result_block_param.py` and
//! `document_block_param.py`; cohere-python `document.py`).

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

use super::Dialect;

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

/// Marks a cut entry, where the text formats write `(truncated)`.
const CUT: &str = "(truncated)";

/// The names Cohere's `data` holds besides the metadata: a metadata key equal to one of them
/// is written as `"<key> (metadata)"`, so it can never take the place of the content.
const COHERE_FIELDS: [&str; 4] = ["title", "url", "text", "truncated"];

/// One entry of a dialect's request, serialized as the provider's API takes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum Entry {
    /// An Anthropic `search_result` or `document` content block.
    Anthropic(AnthropicBlock),
    /// A Cohere v2 document.
    Cohere(CohereDocument),
}

/// An Anthropic content block: `search_result` (`source`, `title`, `content`) or
/// `document` (a plain-text `source`, `title`, `context`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AnthropicBlock {
    /// `"search_result"` or `"document"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// A search result's source (its URL), or a document's plain-text source.
    pub source: AnthropicSource,
    /// The title.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// A search result's text blocks: the metadata lines, the content, `(truncated)`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub content: Vec<TextBlock>,
    /// A document's metadata lines (and `(truncated)`): weighed, not cited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// Always `{"enabled": true}`: Anthropic wants citations on all entries or none.
    pub citations: CitationsEnabled,
    /// A prompt-cache breakpoint, when [`mark_cache_control`] put one here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<CacheControl>,
}

/// The `source` of an Anthropic block: a search result's string, or a document's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum AnthropicSource {
    /// A search result's source.
    Url(String),
    /// A document's `{"type": "text", "media_type": "text/plain", "data": ...}`.
    Text {
        /// `"text"`.
        #[serde(rename = "type")]
        kind: String,
        /// `"text/plain"`.
        media_type: String,
        /// The content.
        data: String,
    },
}

/// `{"type": "text", "text": ...}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TextBlock {
    /// `"text"`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The text.
    pub text: String,
}

/// `{"enabled": true}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CitationsEnabled {
    /// Whether the model may cite the entry.
    pub enabled: bool,
}

/// `{"type": "ephemeral"}`: a prompt-cache breakpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheControl {
    /// `"ephemeral"`.
    #[serde(rename = "type")]
    pub kind: String,
}

/// A Cohere v2 document: an id and string fields, in order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct CohereDocument {
    /// The citation's number, as a string: what Cohere's citations name.
    pub id: String,
    /// `title`, `url`, the metadata, `text` (the content), and `truncated` after a cut.
    pub data: IndexMap<String, String>,
}

impl Entry {
    /// The title the entry was sent with.
    #[must_use]
    pub fn title(&self) -> Option<&str> {
        match self {
            Entry::Anthropic(block) => block.title.as_deref(),
            Entry::Cohere(document) => document.data.get("title").map(String::as_str),
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
            Entry::Cohere(_) => Vec::new(),
        }
    }

    /// A document's text, if it is one.
    pub(crate) fn document_text(&self) -> Option<&str> {
        match self {
            Entry::Anthropic(AnthropicBlock {
                source: AnthropicSource::Text { data, .. },
                ..
            }) => Some(data),
            _ => None,
        }
    }
}

fn text(text: impl Into<String>) -> TextBlock {
    TextBlock {
        kind: "text".to_string(),
        text: text.into(),
    }
}

/// The entry of `parts` in `dialect`.
pub(crate) fn entry(dialect: Dialect, parts: &EntryParts<'_>) -> Entry {
    let lines = || {
        parts
            .metadata
            .iter()
            .map(|(key, value)| format!("{key}: {value}"))
            .collect::<Vec<_>>()
    };
    let number = || format!("[{}]", parts.index);
    let enabled = CitationsEnabled { enabled: true };
    match dialect {
        Dialect::Anthropic => {
            let mut content = Vec::new();
            if !parts.metadata.is_empty() {
                content.push(text(lines().join("\n")));
            }
            content.push(text(parts.content));
            if parts.truncated {
                content.push(text(CUT));
            }
            // Both are required: each stands in for the other, the number for both.
            let title = parts.title.clone().or_else(|| parts.source.clone());
            let source = parts.source.clone().or_else(|| parts.title.clone());
            Entry::Anthropic(AnthropicBlock {
                kind: "search_result".to_string(),
                source: AnthropicSource::Url(source.unwrap_or_else(number)),
                title: Some(title.unwrap_or_else(number)),
                content,
                context: None,
                citations: enabled,
                cache_control: None,
            })
        }
        Dialect::AnthropicDocuments => {
            let mut context = lines();
            if parts.truncated {
                context.push(CUT.to_string());
            }
            Entry::Anthropic(AnthropicBlock {
                kind: "document".to_string(),
                source: AnthropicSource::Text {
                    kind: "text".to_string(),
                    media_type: "text/plain".to_string(),
                    data: parts.content.to_string(),
                },
                title: parts.title.clone(),
                content: Vec::new(),
                context: (!context.is_empty()).then(|| context.join("\n")),
                citations: enabled,
                cache_control: None,
            })
        }
        Dialect::Cohere => {
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
            Entry::Cohere(CohereDocument {
                id: parts.index.to_string(),
                data,
            })
        }
    }
}

/// Puts a prompt-cache breakpoint (`"cache_control": {"type": "ephemeral"}`) on Anthropic
/// entry `at` of `entries`, so that a request whose entries start with the same ones reads
/// them from Anthropic's prompt cache. [`mark_turn_cache_control`] puts a turn's two.
/// Cohere entries and an `at` past the end are left as they are: Cohere has no such field.
///
/// ```
/// use mentor_context::dialects::{Dialect, mark_cache_control};
/// use mentor_context::{ContextBuilder, MentorRagResult};
///
/// let assembler = ContextBuilder::new(500).dialect(Dialect::Anthropic).build()?;
/// let results = [MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9)];
/// let context = assembler.assemble(&results);
/// let mut entries = assembler.entries(&context)?;
/// mark_cache_control(&mut entries, 0);
/// let json = serde_json::to_string(&entries[0]).unwrap();
/// assert!(json.ends_with(r#","cache_control":{"type":"ephemeral"}}"#));
/// # Ok::<(), mentor_context::Error>(())
/// ```
pub fn mark_cache_control(entries: &mut [Entry], at: usize) {
    if let Some(Entry::Anthropic(block)) = entries.get_mut(at) {
        block.cache_control = Some(CacheControl {
            kind: "ephemeral".to_string(),
        });
    }
}

/// Puts a turn's prompt-cache breakpoints on `entries`: on the last entry, for the turn after,
/// and in a follow-up turn whose first `earlier` entries the turn before wrote, on the last of
/// those, so that prefix is read from the cache now. What `assemble --cache-control` marks.
///
/// ```
/// use mentor_context::dialects::{Dialect, mark_turn_cache_control};
/// use mentor_context::{ContextBuilder, MentorRagResult};
///
/// let assembler = ContextBuilder::new(500).dialect(Dialect::Anthropic).build()?;
/// let earlier = [MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9)];
/// let first = assembler.assemble(&earlier);
/// let more = [
///     MentorRagResult::from_content("Plan C costs 20 EUR.", 0.8),
///     MentorRagResult::from_content("Plan D costs 30 EUR.", 0.7),
/// ];
/// let next = assembler.assemble_follow_up(&first, &more)?;
/// let mut entries = assembler.entries(&next)?;
/// mark_turn_cache_control(&mut entries, first.citations.len());
/// let marked: Vec<bool> = entries
///     .iter()
///     .map(|e| serde_json::to_string(e).unwrap().contains("cache_control"))
///     .collect();
/// assert_eq!(marked, [true, false, true]);
/// # Ok::<(), mentor_context::Error>(())
/// ```
pub fn mark_turn_cache_control(entries: &mut [Entry], earlier: usize) {
    if let Some(last_earlier) = earlier.checked_sub(1) {
        mark_cache_control(entries, last_earlier);
    }
    if let Some(last) = entries.len().checked_sub(1) {
        mark_cache_control(entries, last);
    }
}
