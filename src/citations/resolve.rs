//! Markers resolved to chips: which chips an answer cites, in which order, how often and
//! where; which markers point at nothing; and the answer renumbered.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use super::markers::{MAX_MARKER_BYTES, Marker, RangeBudget, Scanner};
use super::prepared::QuoteChecks;
use super::quotes::{Quote, quote_before};
use super::stream::{CitationEvent, CitationStream};
use crate::context::Citation;
use crate::dialects::{Dialect, Entry};
use crate::error::Error;
use crate::provenance::utf16_len;

mod renumber;

/// Where a citation is in the answer: a marker's bytes `start..end` of the original answer,
/// or the stretch of answer a provider's citation marks; and the same in UTF-16 code units,
/// as .NET and JavaScript strings count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
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
    /// when none was given or no contents were (see [`Resolver::contents`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub quotes: Vec<Quote>,
}

/// A marker that cites a number no chip has (or a range that is reversed, wider than
/// [`MAX_MARKER_RANGE`](super::MAX_MARKER_RANGE), or past the answer's
/// [`MAX_RANGE_NUMBERS`](super::MAX_RANGE_NUMBERS)): a hallucinated source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UnknownMarker {
    /// The whole marker, brackets included, as in the answer (`[2, 9]` when only 9 is
    /// unknown; its known numbers are still cited).
    pub marker: String,
    /// The byte offset of its opening bracket in the answer.
    pub at: usize,
}

/// What an answer cites.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
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
    /// model API's response ([`Resolver::response`]), the response's text, which the spans
    /// point into.
    pub answer: Option<String>,
    /// How many of the cited ones' quotes were not found in their content.
    #[serde(default)]
    pub unverified: usize,
}

/// Reads answers for the markers of one context's chips.
///
/// ```
/// use mentor_context::citations::Resolver;
/// use mentor_context::{ContextBuilder, MentorRagResult};
///
/// let results = [
///     MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9).with_title("Prices"),
///     MentorRagResult::from_content("Plan A is free.", 0.8).with_title("Plans"),
/// ];
/// let context = ContextBuilder::new(300).build()?.assemble(&results);
/// let answer = "Plan A is free [2]; Plan B costs 12 EUR [1][2]. See `x[1]` and [7].";
/// let resolution = Resolver::for_context(&context).renumber(true).resolve(answer);
/// assert_eq!(resolution.cited[0].citation.title.as_deref(), Some("Plans"));
/// assert_eq!(resolution.cited[0].count, 2);
/// assert_eq!(resolution.unknown[0].marker, "[7]");
/// assert_eq!(
///     resolution.answer.as_deref(),
///     Some("Plan A is free [1]; Plan B costs 12 EUR [2][1]. See `x[1]` and [7].")
/// );
/// # Ok::<(), mentor_context::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Resolver<'c> {
    chips: Cow<'c, [Citation]>,
    renumber: bool,
    // Set from a report by `from_report.rs`.
    pub(super) contents: Option<Cow<'c, [String]>>,
    pub(super) dialect: Option<Dialect>,
    pub(super) entries: Option<Cow<'c, [Entry]>>,
}

impl<'c> Resolver<'c> {
    /// A resolver for `chips` (a chip's marker is its `index`), renumbering off.
    #[must_use]
    pub fn new(chips: &'c [Citation]) -> Resolver<'c> {
        Resolver {
            chips: Cow::Borrowed(chips),
            renumber: false,
            contents: None,
            dialect: None,
            entries: None,
        }
    }

    /// Checks quotes against `contents`, the content of each chip in order
    /// ([`Assembler::contents`](crate::Assembler::contents)): a quoted span in straight or
    /// curly quotes just before a `[n]` marker is looked for in chip `n`'s content, after
    /// normalising whitespace and quote marks, and must start and end on its word boundaries
    /// ("safe" is not in "unsafe", nor "12" in "120"); so is a provider's quote. Default:
    /// none, and quotes before markers are not looked for (but
    /// [`for_context`](Self::for_context) reads them from the report).
    #[must_use]
    pub fn contents(mut self, contents: &'c [String]) -> Resolver<'c> {
        self.contents = Some(Cow::Borrowed(contents));
        self
    }

    /// The same resolver, owning what it reads against: for a stream kept past the report
    /// (in a server's session, or a binding's object).
    #[must_use]
    pub fn into_owned(self) -> Resolver<'static> {
        Resolver {
            chips: Cow::Owned(self.chips.into_owned()),
            renumber: self.renumber,
            contents: self.contents.map(|c| Cow::Owned(c.into_owned())),
            dialect: self.dialect,
            entries: self.entries.map(|e| Cow::Owned(e.into_owned())),
        }
    }

    /// The dialect whose responses [`response`](Self::response) reads: the context's, when
    /// made by [`for_context`](Self::for_context).
    #[must_use]
    pub fn dialect(mut self, dialect: impl Into<Option<Dialect>>) -> Resolver<'c> {
        self.dialect = dialect.into();
        self
    }

    /// Whether to renumber the answer 1..k in order of first citation (default off).
    #[must_use]
    pub fn renumber(mut self, renumber: bool) -> Resolver<'c> {
        self.renumber = renumber;
        self
    }

    /// Resolves a whole answer.
    #[must_use]
    pub fn resolve(&self, answer: &str) -> Resolution {
        let mut stream = self.stream();
        let _ = stream.push(answer);
        stream.finish().1
    }

    /// A resolver for an answer that arrives in chunks; see [`CitationStream`].
    #[must_use]
    pub fn stream(&self) -> CitationStream<'c> {
        CitationStream::new(Scanner::new(), self.tally(), self.renumber)
    }

    /// Checks a provider's quotes against `entries`, the entries sent in the request
    /// ([`Assembler::entries`](crate::Assembler::entries)): an Anthropic `cited_text` must be
    /// found in the entry it points at, within the range it gives. Default: none, and such
    /// quotes are listed as not verified.
    #[must_use]
    pub fn entries(mut self, entries: &'c [Entry]) -> Resolver<'c> {
        self.entries = Some(Cow::Borrowed(entries));
        self
    }

    /// The entries quotes are checked against, if given.
    pub(crate) fn sent_entries(&self) -> Option<Cow<'c, [Entry]>> {
        self.entries.clone()
    }

    pub(crate) fn tally(&self) -> Tally<'c> {
        Tally::new(self.chips.clone(), self.contents.clone())
    }

    /// The dialect responses are read in, or why there is none.
    pub(crate) fn response_dialect(&self) -> Result<Dialect, Error> {
        self.dialect.ok_or_else(|| Error::Response {
            problem: "the report was assembled as text, not in a dialect: read its answer's \
                      [n] markers with resolve"
                .to_string(),
        })
    }
}

/// The citations read so far.
#[derive(Debug)]
pub(crate) struct Tally<'c> {
    chips: Cow<'c, [Citation]>,
    /// `(index, position in chips)`, sorted: a chip by its marker number.
    by_index: Vec<(usize, usize)>,
    /// For each chip, its position in `cited` once cited.
    slot: Vec<Option<usize>>,
    cited: Vec<Cited>,
    unknown: Vec<UnknownMarker>,
    contents: Option<Cow<'c, [String]>>,
    /// The contents quotes were looked for in, each prepared once.
    checks: QuoteChecks,
    unverified: usize,
    /// What the answer's ranges may still cite.
    ranges: RangeBudget,
    /// For each chip, the last marker that cited it (markers counted from 1), so that
    /// `[1, 1-2]` counts chip 1 once at a cost of one look.
    cited_by: Vec<usize>,
    /// Markers recorded so far.
    markers: usize,
}

impl<'c> Tally<'c> {
    pub(crate) fn new(
        chips: Cow<'c, [Citation]>,
        contents: Option<Cow<'c, [String]>>,
    ) -> Tally<'c> {
        let mut by_index: Vec<(usize, usize)> = chips
            .iter()
            .enumerate()
            .map(|(i, c)| (c.index, i))
            .collect();
        by_index.sort_unstable();
        Tally {
            slot: vec![None; chips.len()],
            cited_by: vec![0; chips.len()],
            chips,
            by_index,
            cited: Vec::new(),
            unknown: Vec::new(),
            contents,
            checks: QuoteChecks::default(),
            unverified: 0,
            ranges: RangeBudget::default(),
            markers: 0,
        }
    }

    /// The chips.
    pub(crate) fn chips(&self) -> &[Citation] {
        &self.chips
    }

    /// Whether the content of the chip at `chip` holds `quote`, from a word boundary to a
    /// word boundary, once both are normalized.
    fn content_holds(&mut self, chip: usize, quote: &str) -> bool {
        let content = self
            .contents
            .as_ref()
            .and_then(|contents| contents.get(chip));
        content.is_some_and(|content| self.checks.holds((chip, 0), content, None, quote))
    }

    /// Records that the chip at `chip` is cited at `span`, with `quote` if one is attributed
    /// to it; returns the event.
    pub(crate) fn cite(
        &mut self,
        chip: usize,
        span: MarkerSpan,
        quote: Option<Quote>,
    ) -> CitationEvent {
        let first = self.slot[chip].is_none();
        let slot = *self.slot[chip].get_or_insert(self.cited.len());
        if first {
            self.cited.push(Cited {
                citation: self.chips[chip].clone(),
                new_index: slot + 1,
                count: 0,
                spans: Vec::new(),
                quotes: Vec::new(),
            });
        }
        let cited = &mut self.cited[slot];
        cited.count += 1;
        // In answer order, as documented: a provider's citations (Cohere's) may come in any.
        let at = cited.spans.partition_point(|s| s.start <= span.start);
        cited.spans.insert(at, span);
        if let Some(quote) = quote {
            if !quote.verified {
                self.unverified += 1;
            }
            cited.quotes.push(quote);
        }
        CitationEvent::Cited {
            index: cited.citation.index,
            new_index: cited.new_index,
            first,
            span,
        }
    }

    /// Records a citation that points at nothing; returns the event.
    pub(crate) fn unknown(&mut self, unknown: UnknownMarker) -> CitationEvent {
        self.unknown.push(unknown.clone());
        CitationEvent::Unknown(unknown)
    }

    /// The chip with marker number `n` (the first, should two share it).
    fn lookup(&self, n: usize) -> Option<usize> {
        let at = self.by_index.partition_point(|&(index, _)| index < n);
        self.by_index
            .get(at)
            .filter(|&&(index, _)| index == n)
            .map(|&(_, chip)| chip)
    }

    /// Records `marker`, noting what happened in `events`, and writes it to `out`:
    /// renumbered if `renumber`, else as it was.
    pub(crate) fn record(
        &mut self,
        marker: &Marker,
        at_utf16: usize,
        before: &str,
        renumber: bool,
        out: &mut String,
        events: &mut Vec<CitationEvent>,
    ) {
        let span = MarkerSpan {
            start: marker.at,
            end: marker.at + marker.text.len(),
            start_utf16: at_utf16,
            end_utf16: at_utf16 + utf16_len(&marker.text),
        };
        // A quote just before the marker is looked for in each chip it cites.
        let quote = self.contents.as_ref().and(quote_before(before));
        let mut known = true;
        self.markers += 1;
        // Each item's numbers, once: a range takes them from the answer's budget.
        let numbers: Vec<_> = marker
            .items
            .iter()
            .map(|item| self.ranges.numbers(item))
            .collect();
        for numbers in &numbers {
            let Some(numbers) = numbers.clone() else {
                known = false;
                continue;
            };
            for n in numbers {
                let Some(chip) = self.lookup(n) else {
                    known = false;
                    continue;
                };
                // A chip this marker already cited: `[1, 1]` and `[1, 1-2]` count once.
                if self.cited_by[chip] == self.markers {
                    continue;
                }
                self.cited_by[chip] = self.markers;
                let quote = quote.map(|quote| Quote {
                    text: quote.to_string(),
                    verified: self.content_holds(chip, quote),
                });
                let event = self.cite(chip, span, quote);
                events.push(event);
            }
        }
        if !known {
            let event = self.unknown(UnknownMarker {
                marker: marker.text.clone(),
                at: marker.at,
            });
            events.push(event);
        }
        if renumber {
            let start = out.len();
            self.write_renumbered(marker, &numbers, out);
            if out.len() - start > MAX_MARKER_BYTES {
                // Padding or scrambled runs made it too long to be read as a marker again.
                out.truncate(start);
                self.write_compact(marker, &numbers, out);
            }
        } else {
            out.push_str(&marker.text);
        }
    }

    /// The new number for `n`: its chip's `new_index` once cited, else `n` as it was.
    fn new_number(&self, n: usize) -> usize {
        self.lookup(n)
            .and_then(|chip| self.slot[chip])
            .map_or(n, |slot| slot + 1)
    }

    /// The resolution of everything recorded.
    pub(crate) fn into_resolution(self, answer: Option<String>) -> Resolution {
        Resolution {
            cited: self.cited,
            unknown: self.unknown,
            answer,
            unverified: self.unverified,
        }
    }
}
