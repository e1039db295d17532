//! The assembled context: its text, its exact token count, and the citation chips.

use std::borrow::Cow;

use serde::{Deserialize, Deserializer, Serialize};

use crate::budget::ModelWindow;
use crate::dialects::Dialect;
use crate::fingerprint::Fingerprint;
use crate::layout::Layout;
use crate::rag_result::Metadata;
use crate::seal::tag::Seal;

/// The result of [`Assembler::assemble`](crate::Assembler::assemble).
///
/// Serialized (camelCase, as a .NET or browser client expects), it is the report a chat UI
/// needs: `context`, `tokenCount`, `budget`, `encoding`, `citations`, `omitted`, and the
/// `layout` the text was written in.
///
/// It borrows the titles and URLs of omitted results from the input, which can be thousands
/// long: copying them would cost more than assembling. [`into_owned`](Self::into_owned)
/// detaches it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AssembledContext<'a> {
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
    pub omitted: Vec<Omission<'a>>,
    /// With a budget taken from a model's window: the window and how it is shared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<ModelWindow>,
    /// With a [`window`](Self::window): the tokens of the window still free once the
    /// context, the rest of the prompt and the answer's reserve are counted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub headroom: Option<usize>,
    /// With a [`seal_key`](crate::ContextBuilder::seal_key): the tag that proves a later
    /// follow-up turn this report is ours (see [`seal`](crate::seal)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>, pattern = "^[0-9a-f]{64}$"))]
    pub seal: Option<Seal>,
    /// With a [`dialect`](crate::ContextBuilder::dialect): the dialect whose entries the
    /// budget was counted for, as `text` shows them (see [`dialects`](crate::dialects)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialect: Option<Dialect>,
    /// The layout the text was written in (format, header, hidden metadata keys, head cap):
    /// with `encoding` and `dialect`, what a reader needs to read the contents back from the
    /// report alone ([`contents`](Self::contents)). Every assembly records it; `None` only in
    /// a report written before reports did, which is read as before.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<Layout>,
}

impl AssembledContext<'_> {
    /// The same context, owning everything: to keep it past the input.
    #[must_use]
    pub fn into_owned(self) -> AssembledContext<'static> {
        AssembledContext {
            text: self.text,
            token_count: self.token_count,
            budget: self.budget,
            encoding: self.encoding,
            citations: self.citations,
            omitted: self.omitted.into_iter().map(Omission::into_owned).collect(),
            window: self.window,
            headroom: self.headroom,
            seal: self.seal,
            dialect: self.dialect,
            layout: self.layout,
        }
    }
}

/// A citation chip: what a chat UI shows for block `[index]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Citation {
    /// The number of the block's marker in the text, from 1.
    pub index: usize,
    /// The display title: the title, else the source URL (`None` if neither is present).
    pub title: Option<String>,
    /// The source URL, the chip's link.
    pub source_url: Option<String>,
    /// The result's score. JSON has neither NaN nor infinity: such a score is written `null`,
    /// and read back as NaN.
    #[serde(deserialize_with = "score_or_nan")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<f64>))]
    pub score: f32,
    /// All of the result's metadata, including keys kept out of the prompt.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<HashMap<String, Option<String>>>))]
    pub metadata: Option<Metadata>,
    /// Whether the block's content was cut to fit the budget.
    pub truncated: bool,
    /// The tokens this block takes in the text.
    pub token_count: usize,
    /// The result's position in the request array, from 0: which input this chip shows.
    pub input_index: usize,
    /// For a cut block, the bytes of content kept (UTF-8): the content in the text is
    /// `content[..kept_bytes]`. `None` when the whole content is in.
    pub kept_bytes: Option<usize>,
    /// For a cut block, the same length in UTF-16 code units, as .NET and JavaScript strings
    /// count: `content.Substring(0, keptUtf16)` is what the model saw.
    pub kept_utf16: Option<usize>,
    /// A fingerprint of the result's whole content: with the source URL, what a follow-up
    /// turn compares to tell a new result from a block already in the text.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub fingerprint: Fingerprint,
    /// Whether the title or a metadata value was shortened in the prompt to keep the head
    /// within [`max_head_tokens`](crate::ContextBuilder::max_head_tokens); the chip keeps
    /// them whole.
    #[serde(default)]
    pub head_shortened: bool,
}

/// A result that is not in the text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Omission<'a> {
    /// The display title, as on a chip.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub title: Option<Cow<'a, str>>,
    /// The source URL.
    pub source_url: Option<Cow<'a, str>>,
    /// The result's score. JSON has neither NaN nor infinity: such a score is written `null`,
    /// and read back as NaN.
    #[serde(deserialize_with = "score_or_nan")]
    #[cfg_attr(feature = "openapi", schema(value_type = Option<f64>))]
    pub score: f32,
    /// Why it was left out.
    pub reason: OmitReason,
    /// The result's position in the request array, from 0.
    pub input_index: usize,
}

impl Omission<'_> {
    /// The same omission, owning its strings.
    #[must_use]
    pub fn into_owned(self) -> Omission<'static> {
        Omission {
            title: self.title.map(|t| Cow::Owned(t.into_owned())),
            source_url: self.source_url.map(|u| Cow::Owned(u.into_owned())),
            score: self.score,
            reason: self.reason,
            input_index: self.input_index,
        }
    }
}

/// Why a result was left out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum OmitReason {
    /// Its score is below the minimum (a NaN score is below any minimum).
    BelowMinScore,
    /// A better-ranked result has the same content (and, by default, the same source URL).
    Duplicate,
    /// The maximum number of blocks was already reached.
    OverBlockLimit,
    /// Its source already has the most blocks
    /// [`max_per_source`](crate::ContextBuilder::max_per_source) allows.
    OverSourceLimit,
    /// It did not fit in what was left of the budget.
    DidNotFit,
    /// A follow-up turn: a block of an earlier turn, still in the text, has the same source
    /// URL and content (see [`Assembler::assemble_follow_up`](crate::Assembler::assemble_follow_up)).
    AlreadyInContext,
}

impl std::fmt::Display for OmitReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            OmitReason::BelowMinScore => "below the minimum score",
            OmitReason::Duplicate => "duplicate",
            OmitReason::OverBlockLimit => "over the block limit",
            OmitReason::OverSourceLimit => "over the limit per source",
            OmitReason::DidNotFit => "did not fit",
            OmitReason::AlreadyInContext => "already in the context",
        })
    }
}

/// A score as it is written: a number, or `null` for NaN.
fn score_or_nan<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f32, D::Error> {
    Ok(Option::<f32>::deserialize(deserializer)?.unwrap_or(f32::NAN))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context(title: &str) -> AssembledContext<'_> {
        AssembledContext {
            text: "[1] T\n```\nx\n```\n".to_string(),
            token_count: 9,
            budget: 10,
            encoding: "o200k_base".to_string(),
            citations: Vec::new(),
            omitted: vec![Omission {
                title: Some(Cow::Borrowed(title)),
                source_url: None,
                score: 0.5,
                reason: OmitReason::OverBlockLimit,
                input_index: 4,
            }],
            window: None,
            headroom: None,
            seal: None,
            dialect: None,
            layout: None,
        }
    }

    #[test]
    fn into_owned_keeps_everything() {
        let title = String::from("Left out");
        let borrowed = context(&title);
        let owned: AssembledContext<'static> = borrowed.clone().into_owned();
        drop(title);
        assert_eq!(owned.omitted[0].title.as_deref(), Some("Left out"));
        assert_eq!(owned.text, "[1] T\n```\nx\n```\n");
    }

    #[test]
    fn a_nan_score_is_written_null_and_read_back() {
        let mut report = context("t");
        report.omitted[0].score = f32::NAN;
        let json = serde_json::to_string(&report).unwrap();
        assert!(json.contains(r#""score":null"#), "{json}");
        let read: AssembledContext<'_> = serde_json::from_str(&json).unwrap();
        assert!(read.omitted[0].score.is_nan());
        let missing = json.replace(r#""score":null,"#, "");
        assert!(serde_json::from_str::<AssembledContext<'_>>(&missing).is_err());
    }

    #[test]
    fn reasons_read_as_words_and_serialize_in_camel_case() {
        assert_eq!(
            OmitReason::OverBlockLimit.to_string(),
            "over the block limit"
        );
        let json = serde_json::to_string(&context("t").omitted[0]).unwrap();
        assert_eq!(
            json,
            r#"{"title":"t","sourceUrl":null,"score":0.5,"reason":"overBlockLimit","inputIndex":4}"#
        );
    }
}
