//! Offsets into an answer, from the library's UTF-8 bytes to JavaScript's UTF-16 code units,
//! so that `answer.slice(span.start, span.end)` is the marker.

use mentor_context::citations::{CitationEvent, MarkerSpan, Resolution};

/// Turns byte offsets into `text` into code-unit offsets, walking forward from the last one
/// it was asked for (a stream's events come in answer order).
pub(crate) struct Units<'t> {
    text: &'t str,
    byte: usize,
    unit: usize,
}

impl<'t> Units<'t> {
    pub(crate) fn new(text: &'t str) -> Units<'t> {
        Units {
            text,
            byte: 0,
            unit: 0,
        }
    }

    /// Offsets into `text` from a position [`Self::position`] gave for a prefix of it.
    pub(crate) fn resume(text: &'t str, (byte, unit): (usize, usize)) -> Units<'t> {
        Units { text, byte, unit }
    }

    /// Where the walk is: a byte offset and its code-unit offset.
    pub(crate) fn position(&self) -> (usize, usize) {
        (self.byte, self.unit)
    }

    /// The code-unit offset of byte `byte` (a char boundary; one inside a char counts the
    /// whole char).
    pub(crate) fn at(&mut self, byte: usize) -> usize {
        if byte < self.byte {
            self.byte = 0;
            self.unit = 0;
        }
        // Rounded up, so the walk stays on char boundaries and a char is counted whole.
        let end = self.text.ceil_char_boundary(byte.min(self.text.len()));
        let stretch = self.text.get(self.byte..end).unwrap_or_default();
        self.unit += if stretch.is_ascii() {
            stretch.len()
        } else {
            stretch.chars().map(char::len_utf16).sum()
        };
        self.byte = end;
        self.unit
    }

    /// A resolution's offsets, in code units. A span carries its own (the library counts
    /// them as it reads): the spans are listed chip by chip, each chip's in answer order, and
    /// walking the answer for each chip would cost chips × answer. The unknown markers are
    /// in answer order, so one walk finds theirs.
    pub(crate) fn resolution(&mut self, resolution: &mut Resolution) {
        for chip in &mut resolution.cited {
            for span in &mut chip.spans {
                to_units(span);
            }
        }
        for marker in &mut resolution.unknown {
            marker.at = self.at(marker.at);
        }
    }

    /// Events' offsets, in code units.
    pub(crate) fn events(&mut self, events: &mut [CitationEvent]) {
        for event in events {
            match event {
                CitationEvent::Cited { span, .. } => to_units(span),
                CitationEvent::Unknown(marker) => marker.at = self.at(marker.at),
                // Non-exhaustive: an event of a later version has no offsets known here.
                _ => {}
            }
        }
    }
}

/// An answer as it streams in, for its events' offsets in code units: the text so far, and
/// where the walk through it is (so that each chunk's events cost that chunk, not the
/// answer).
#[derive(Debug, Default)]
pub(crate) struct StreamedAnswer {
    text: String,
    position: (usize, usize),
}

impl StreamedAnswer {
    /// `text` read after what came before, and `events` (which it settled) with their
    /// offsets in code units of the answer.
    pub(crate) fn push(&mut self, text: &str, events: &mut [CitationEvent]) {
        self.text.push_str(text);
        let mut units = Units::resume(&self.text, self.position);
        units.events(events);
        self.position = units.position();
    }

    /// The answer so far.
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    /// Code units of the last `bytes` bytes of the answer (a char boundary from its end).
    pub(crate) fn units_of_last(&self, bytes: usize) -> u32 {
        let tail = self
            .text
            .get(self.text.len().saturating_sub(bytes)..)
            .unwrap_or_default();
        u32::try_from(tail.encode_utf16().count()).unwrap_or(u32::MAX)
    }
}

/// A span's offsets in code units, which it carries beside its bytes.
fn to_units(span: &mut MarkerSpan) {
    span.start = span.start_utf16;
    span.end = span.end_utf16;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_count_code_units() {
        let text = "a€😀[1]";
        let mut units = Units::new(text);
        // `€` is 3 bytes and 1 unit; `😀` 4 bytes and 2 units.
        assert_eq!(units.at(1), 1);
        assert_eq!(units.at(4), 2);
        assert_eq!(units.at(8), 4);
        assert_eq!(units.at(11), 7);
        // Backwards starts over.
        assert_eq!(units.at(4), 2);
        // A byte inside `😀` counts it whole, and the walk goes on from its end.
        assert_eq!(units.at(5), 4);
        assert_eq!(units.at(11), 7);
        let js: Vec<u16> = text.encode_utf16().collect();
        assert_eq!(String::from_utf16(&js[4..7]).unwrap(), "[1]");
    }
}
