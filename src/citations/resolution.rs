//! What reading an answer finds: where a citation is ([`MarkerSpan`]), the chips cited
//! ([`Cited`]), markers that point at nothing ([`UnknownMarker`]), the whole
//! [`Resolution`], and what a stream learns chunk by chunk ([`CitationEvent`],
//! [`StreamOutput`]). Data only: `tally.rs` gathers them, `resolve.rs` and `stream.rs` hand
//! them out.

use serde::{Deserialize, Serialize};

use super::quotes::Quote;
use crate::context::Citation;

/// Where a citation is in the answer: a marker's bytes `start..end` of the original answer,
/// or the stretch of answer a provider's citation marks; and the same in UTF-16 code units,
/// as .NET and JavaScript strings count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct MarkerSpan {
    /// The byte offset of its start (a marker's opening bracket).
    pub start: usize,
    /// The byte offset just after its end (a marker's closing bracket).
    pub end: usize,
    /// `start` in UTF-16 code units.
    pub start_utf16: usize,
    /// `end` in UTF-16 code units.
    pub end_utf16: usize,
}

/// A citation of the context that the answer cites: how often, and where.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Cited {
    /// The chip, as in the context.
    pub citation: Citation,
    /// Its number in order of first citation, from 1: its marker in the renumbered answer.
    pub new_index: usize,
    /// How many markers cite it (`[1, 1]` counts once).
    pub count: usize,
    /// Where those markers are, in answer order.
    pub spans: Vec<MarkerSpan>,
    /// The quotes the answer attributes to it, each checked against its content; empty
    /// when none was given or no contents were (see [`Resolver::contents`](super::Resolver::contents)).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub quotes: Vec<Quote>,
}

/// A marker that cites a number no chip has (or a range that is reversed, wider than
/// [`MAX_MARKER_RANGE`](super::MAX_MARKER_RANGE), or past the answer's
/// [`MAX_RANGE_NUMBERS`](super::MAX_RANGE_NUMBERS)): a hallucinated source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UnknownMarker {
    /// The whole marker, brackets included, as in the answer (`[2, 9]` when only 9 is
    /// unknown; its known numbers are still cited).
    pub marker: String,
    /// The byte offset of its opening bracket in the answer.
    pub at: usize,
}

/// What an answer cites: the one shape `mentor-context cite`, the service's `/cite`, Python
/// and Node return (their offsets in their own strings' units).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Resolution {
    /// The cited chips, in order of first citation.
    pub cited: Vec<Cited>,
    /// Markers that point at no chip, in answer order.
    pub unknown: Vec<UnknownMarker>,
    /// With renumbering on, the answer with every known number replaced by its chip's
    /// `new_index` (unknown numbers stay as they are: they are 0 or above every chip's
    /// number, so they cannot be mistaken for a new one). `None` with renumbering off. For a
    /// model API's response ([`Resolver::response`](super::Resolver::response)), the response's text, which the spans
    /// point into.
    pub answer: Option<String>,
    /// How many of the cited ones' quotes were not found in their content.
    #[serde(default)]
    pub unverified: usize,
}

/// Something the stream learned about a citation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
#[non_exhaustive]
pub enum CitationEvent {
    /// A marker cites chip `index`.
    #[serde(rename_all = "camelCase")]
    Cited {
        /// The chip's number in the context.
        index: usize,
        /// Its number in order of first citation (what the renumbered text shows).
        new_index: usize,
        /// Whether this is its first citation: the moment to show its chip.
        first: bool,
        /// Where the marker is in the original answer.
        span: MarkerSpan,
    },
    /// A marker points at no chip.
    Unknown(UnknownMarker),
}

/// What one chunk gave: text to show (appended to what was shown before), and events.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct StreamOutput {
    /// Text that is safe to show: never part of a marker whose end has not arrived.
    pub text: String,
    /// Citations found in it, in order.
    pub events: Vec<CitationEvent>,
}
