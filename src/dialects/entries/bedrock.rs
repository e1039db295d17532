//! Amazon Bedrock Converse entries: a `document` content block with a text source and
//! citations enabled, as aws-sdk-rust types it (`sdk/bedrockruntime/src/types/`:
//! `_content_block.rs`, `_document_block.rs`, `_document_source.rs`, `_citations_config.rs`;
//! the JSON names from `src/protocol_serde/shape_document_block.rs` and
//! `shape_document_source.rs`).
//!
//! A document's `name` is required, must be unique in the request, and may hold only ASCII
//! letters and digits, single spaces, hyphens, parentheses and square brackets, at most 200
//! (Bedrock answers anything else with a `ValidationException`). So the name is `[n]` and
//! the title in those characters: unique because the number is, across a conversation's
//! turns too, since follow-up turns keep the numbers.

use serde::{Deserialize, Serialize};

use super::{CUT, CitationsEnabled, EntryParts};

/// The most characters a Bedrock document name may have.
const NAME_LIMIT: usize = 200;

/// A Converse content block holding a document: `{"document": {...}}`, put in a message's
/// `content` as it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BedrockDocument {
    /// The document.
    pub document: BedrockDocumentBlock,
}

/// A Converse `DocumentBlock` with a text source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BedrockDocumentBlock {
    /// `"txt"`.
    pub format: String,
    /// `[n]` and the title in the characters Bedrock allows: what its citations give back as
    /// their `title`.
    pub name: String,
    /// The content.
    pub source: BedrockSource,
    /// The source line and the metadata lines (and `(truncated)` after a cut): what the
    /// model weighs, not what it cites.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// Always `{"enabled": true}`.
    pub citations: CitationsEnabled,
}

/// A `DocumentSource` of text: `{"text": ...}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct BedrockSource {
    /// The document's text: what `documentChar` locations count characters of.
    pub text: String,
}

/// The document of `parts`.
pub(super) fn document(parts: &EntryParts<'_>) -> BedrockDocument {
    let mut context = Vec::new();
    if let Some(source) = &parts.source {
        context.push(format!("source: {source}"));
    }
    context.extend(parts.metadata_lines());
    if parts.truncated {
        context.push(CUT.to_string());
    }
    BedrockDocument {
        document: BedrockDocumentBlock {
            format: "txt".to_string(),
            name: bedrock_name(parts.index, parts.title.as_deref()),
            source: BedrockSource {
                text: parts.content.to_string(),
            },
            context: (!context.is_empty()).then(|| context.join("\n")),
            citations: CitationsEnabled { enabled: true },
        },
    }
}

/// The name of document `index` titled `title`: `[n]`, a space and the title in Bedrock's
/// characters (letters of other scripts and accents left out, other characters a space,
/// spaces single), cut at 200.
pub(crate) fn bedrock_name(index: usize, title: Option<&str>) -> String {
    let mut name = format!("[{index}]");
    let mut space = true;
    for c in title.unwrap_or_default().chars() {
        if name.len() >= NAME_LIMIT {
            break;
        }
        if c.is_ascii_alphanumeric() || matches!(c, '-' | '(' | ')' | '[' | ']') {
            if space {
                name.push(' ');
                space = false;
            }
            name.push(c);
        } else if !c.is_alphanumeric() && !is_mark(c) {
            // Punctuation, symbols and whitespace part words; a letter or an accent that
            // Bedrock refuses is left out, so that `für` stays one word.
            space = true;
        }
    }
    name.truncate(NAME_LIMIT);
    name.truncate(name.trim_end().len());
    name
}

/// Whether `c` is a combining mark (an accent written after its letter), in the blocks that
/// Latin, Greek and Cyrillic text uses.
fn is_mark(c: char) -> bool {
    matches!(c, '\u{300}'..='\u{36f}' | '\u{483}'..='\u{489}' | '\u{1ab0}'..='\u{1aff}'
        | '\u{1dc0}'..='\u{1dff}' | '\u{20d0}'..='\u{20ff}' | '\u{fe20}'..='\u{fe2f}')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_hold_only_what_bedrock_allows() {
        assert_eq!(
            bedrock_name(1, Some("Prices: 2026 (EUR)")),
            "[1] Prices 2026 (EUR)"
        );
        assert_eq!(
            bedrock_name(2, Some("Preise für Teams")),
            "[2] Preise fr Teams"
        );
        assert_eq!(
            bedrock_name(3, Some("Cafe\u{301}s au lait")),
            "[3] Cafes au lait"
        );
        assert_eq!(bedrock_name(4, Some("価格表")), "[4]");
        assert_eq!(bedrock_name(5, None), "[5]");
        assert_eq!(bedrock_name(6, Some("  a\t\tb  _c.d ")), "[6] a b c d");
        let long = bedrock_name(123_456_789, Some(&"ab ".repeat(500)));
        assert!(long.len() <= NAME_LIMIT && !long.ends_with(' '), "{long}");
        for name in [long, bedrock_name(7, Some("x\u{a0}\u{2003}y"))] {
            assert!(!name.contains("  "), "{name}");
            assert!(
                name.chars()
                    .all(|c| c.is_ascii_alphanumeric() || " -()[]".contains(c)),
                "{name}"
            );
        }
    }
}
