//! [`Tally`]: the citations an answer has made so far, marker by marker, with each quote
//! checked as it comes; what a whole answer and a stream both keep. Writing a marker again
//! with the chips' new numbers is `renumber.rs`'s.

use std::borrow::Cow;

use super::markers::{MAX_MARKER_BYTES, Marker, RangeBudget};
use super::prepared::QuoteChecks;
use super::quotes::{Quote, quote_before};
use super::resolution::{CitationEvent, Cited, MarkerSpan, Resolution, UnknownMarker};
use crate::context::Citation;
use crate::fingerprint::utf16_len;

mod renumber;

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

    /// Bytes of contents and quotes prepared for quote checks so far.
    #[cfg(test)]
    pub(crate) fn prepared_bytes(&self) -> usize {
        self.checks.prepared_bytes()
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
