//! Anthropic Messages entries: `search_result` blocks (anthropic-sdk-python
//! `search_result_block_param.py`) and plain-text `document` blocks
//! (`document_block_param.py`), and their prompt-cache breakpoints.

use serde::{Deserialize, Serialize};

use super::{CUT, CitationsEnabled, Entry, EntryParts};

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

/// `{"type": "ephemeral"}`: a prompt-cache breakpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheControl {
    /// `"ephemeral"`.
    #[serde(rename = "type")]
    pub kind: String,
}

fn text(text: impl Into<String>) -> TextBlock {
    TextBlock {
        kind: "text".to_string(),
        text: text.into(),
    }
}

/// A `search_result` block: the metadata lines as a first text block, the content, and
/// `(truncated)` after a cut.
pub(super) fn search_result(parts: &EntryParts<'_>) -> AnthropicBlock {
    let mut content = Vec::new();
    if !parts.metadata.is_empty() {
        content.push(text(parts.metadata_lines().join("\n")));
    }
    content.push(text(parts.content));
    if parts.truncated {
        content.push(text(CUT));
    }
    // Both are required: each stands in for the other, the number for both.
    let number = || format!("[{}]", parts.index);
    let title = parts.title.clone().or_else(|| parts.source.clone());
    let source = parts.source.clone().or_else(|| parts.title.clone());
    AnthropicBlock {
        kind: "search_result".to_string(),
        source: AnthropicSource::Url(source.unwrap_or_else(number)),
        title: Some(title.unwrap_or_else(number)),
        content,
        context: None,
        citations: CitationsEnabled { enabled: true },
        cache_control: None,
    }
}

/// A plain-text `document` block: the content as its source, the metadata lines (and
/// `(truncated)`) as its `context`.
pub(super) fn document(parts: &EntryParts<'_>) -> AnthropicBlock {
    let mut context = parts.metadata_lines();
    if parts.truncated {
        context.push(CUT.to_string());
    }
    AnthropicBlock {
        kind: "document".to_string(),
        source: AnthropicSource::Text {
            kind: "text".to_string(),
            media_type: "text/plain".to_string(),
            data: parts.content.to_string(),
        },
        title: parts.title.clone(),
        content: Vec::new(),
        context: (!context.is_empty()).then(|| context.join("\n")),
        citations: CitationsEnabled { enabled: true },
        cache_control: None,
    }
}

/// Puts a prompt-cache breakpoint (`"cache_control": {"type": "ephemeral"}`) on Anthropic
/// entry `at` of `entries`, so that a request whose entries start with the same ones reads
/// them from Anthropic's prompt cache. [`mark_turn_cache_control`] puts a turn's two.
/// Other dialects' entries and an `at` past the end are left as they are: Cohere and
/// Mistral have no such field, and Bedrock's is a `cachePoint` block of its own, after the
/// entries.
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
