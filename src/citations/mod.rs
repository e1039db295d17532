//! Reading the model's answer: which citations it cites, and which of its markers point
//! nowhere.
//!
//! A [`Resolver`] takes the citations of a context (what a chat UI shows as chips) and an
//! answer; [`Resolver::resolve`] returns a [`Resolution`]: the cited ones ([`Cited`]) in
//! order of first citation (each with how many markers
//! cite it and where), the [`UnknownMarker`]s, and optionally the answer renumbered 1..k.
//! [`Resolver::stream`] does the same for an answer arriving in chunks ([`CitationStream`]).
//!
//! What counts as a marker (`markers.rs`):
//!
//! - `[n]`, `[n, m]`, `[n-m]` (hyphen or en dash, a range of at most [`MAX_MARKER_RANGE`]
//!   numbers, and at most [`MAX_RANGE_NUMBERS`] in all the ranges of an answer), mixes such
//!   as `[1, 3-4]`, and adjacent markers `[n][m]`. Spaces may stand
//!   around numbers, commas and dashes. Numbers have at most 9 digits; a marker is at most
//!   [`MAX_MARKER_BYTES`] long.
//! - The full-width brackets `［n］` count too: models writing Chinese or Japanese use them
//!   for the same markers. The digits inside must be ASCII, and the brackets must match;
//!   other look-alikes (`【n】`, `〔n〕`) are not read.
//! - Not read: markers in inline code or a fenced code block (backticks or tildes; a code
//!   span left open ends at the next blank line); a bracket glued to an identifier
//!   (`array[2]`, `x[1]`, `v2[1]`: right after an ASCII letter, digit or `_`) or escaped
//!   (`\[1]`); link text (`[1](url)`); a bracket right after the `]` of something that is no
//!   marker (`m[1][2]`, `[see][1]`). A marker right after a letter of another script counts
//!   (`価格は12ユーロです[1]`): those scripts do not put spaces before markers.
//!
//! A marker that mixes known and unknown numbers (`[2, 9]` with 5 chips) cites its known
//! ones and is reported as unknown as well.

mod from_report;
mod markers;
mod prepared;
mod quotes;
mod resolution;
mod resolve;
mod stream;
mod tally;

pub use markers::{MAX_MARKER_BYTES, MAX_MARKER_RANGE, MAX_RANGE_NUMBERS};
pub(crate) use prepared::QuoteChecks;
pub use quotes::Quote;
pub use resolution::{CitationEvent, Cited, MarkerSpan, Resolution, StreamOutput, UnknownMarker};
pub use resolve::Resolver;
pub use stream::CitationStream;
pub(crate) use tally::Tally;
