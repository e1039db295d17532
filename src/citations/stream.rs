//! Resolving an answer as it streams in: text safe to show, and citation events, chunk by
//! chunk.

use super::markers::{Marker, Scanner, Sink};
use super::quotes::MAX_QUOTE_BYTES;
use super::resolution::{Resolution, StreamOutput};
use super::tally::Tally;
use crate::fingerprint::utf16_len;

/// Resolves an answer that arrives in chunks, as from an LLM stream; made by
/// [`Resolver::stream`](super::Resolver::stream).
///
/// Each [`push`](Self::push) returns the text that is safe to show and the citations found.
/// A marker is never shown in part: `[1` at the end of one chunk and `2]` at the start of the
/// next come out together, as the citation `[12]`. Only the bytes of one unfinished marker are
/// held back (at most [`MAX_MARKER_BYTES`](super::MAX_MARKER_BYTES)); everything else is
/// passed on at once. With renumbering on, the text shown is already renumbered. Whatever the
/// chunks, the shown text put together, the events and the final [`Resolution`] are those of
/// [`Resolver::resolve`](super::Resolver::resolve) on the whole answer.
///
/// ```
/// use mentor_context::citations::Resolver;
/// use mentor_context::{ContextBuilder, MentorRagResult};
///
/// let results = [
///     MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9),
///     MentorRagResult::from_content("Plan A is free.", 0.8),
/// ];
/// let context = ContextBuilder::new(300).build()?.assemble(&results);
/// let mut stream = Resolver::for_context(&context).renumber(true).stream();
/// let mut shown = String::new();
/// for chunk in ["Plan A is free [", "2]. Plan B", " costs 12 EUR [1]."] {
///     let streamed = stream.push(chunk);
///     shown.push_str(&streamed.text);
/// }
/// let (rest, resolution) = stream.finish();
/// shown.push_str(&rest.text);
/// assert_eq!(shown, "Plan A is free [1]. Plan B costs 12 EUR [2].");
/// assert_eq!(resolution.cited[0].citation.index, 2);
/// # Ok::<(), mentor_context::Error>(())
/// ```
#[derive(Debug)]
pub struct CitationStream<'c> {
    scanner: Scanner,
    sink: StreamSink<'c>,
}

/// Where the scanner's text and markers go.
#[derive(Debug)]
struct StreamSink<'c> {
    tally: Tally<'c>,
    renumber: bool,
    /// What this chunk shows.
    streamed: StreamOutput,
    /// With renumbering on, the whole renumbered answer so far, for the resolution.
    answer: Option<String>,
    /// UTF-16 code units of the original answer so far.
    utf16: usize,
    /// The last bytes of the original answer, at most `MAX_QUOTE_BYTES` (more while a chunk
    /// is read), to find a quote before a marker in.
    recent: String,
}

impl Sink for StreamSink<'_> {
    fn text(&mut self, text: &str) {
        self.streamed.text.push_str(text);
        if let Some(answer) = &mut self.answer {
            answer.push_str(text);
        }
        self.utf16 += utf16_len(text);
        self.remember(text);
    }

    fn marker(&mut self, marker: Marker) {
        let shown = self.streamed.text.len();
        self.tally.record(
            &marker,
            self.utf16,
            &self.recent,
            self.renumber,
            &mut self.streamed.text,
            &mut self.streamed.events,
        );
        if let Some(answer) = &mut self.answer {
            answer.push_str(&self.streamed.text[shown..]);
        }
        self.utf16 += utf16_len(&marker.text);
        self.remember(&marker.text);
    }
}

impl StreamSink<'_> {
    /// Keeps the last bytes of the answer, for the quote before the next marker.
    fn remember(&mut self, text: &str) {
        self.recent.push_str(text);
        if self.recent.len() > 2 * MAX_QUOTE_BYTES {
            let cut = self.recent.len() - MAX_QUOTE_BYTES;
            let cut = self.recent.ceil_char_boundary(cut);
            self.recent.drain(..cut);
        }
    }
}

impl<'c> CitationStream<'c> {
    pub(crate) fn new(scanner: Scanner, tally: Tally<'c>, renumber: bool) -> CitationStream<'c> {
        CitationStream {
            scanner,
            sink: StreamSink {
                tally,
                renumber,
                streamed: StreamOutput::default(),
                answer: renumber.then(String::new),
                utf16: 0,
                recent: String::new(),
            },
        }
    }

    /// Reads the next chunk; returns what can be shown now.
    #[must_use]
    pub fn push(&mut self, chunk: &str) -> StreamOutput {
        self.scanner.feed(chunk, &mut self.sink);
        std::mem::take(&mut self.sink.streamed)
    }

    /// Bytes of the answer read but not yet shown: the start of a marker that the next chunk
    /// may finish. At most [`MAX_MARKER_BYTES`](super::MAX_MARKER_BYTES).
    #[must_use]
    pub fn held_back(&self) -> usize {
        self.scanner.held_back()
    }

    /// Bytes of contents and quotes prepared for quote checks so far.
    #[cfg(test)]
    pub(crate) fn prepared_bytes(&self) -> usize {
        self.sink.tally.prepared_bytes()
    }

    /// The answer is complete: returns the rest to show (an unfinished marker is text after
    /// all) and the resolution of the whole answer.
    #[must_use]
    pub fn finish(mut self) -> (StreamOutput, Resolution) {
        self.scanner.finish(&mut self.sink);
        let StreamSink {
            tally,
            streamed,
            answer,
            ..
        } = self.sink;
        (streamed, tally.into_resolution(answer))
    }
}
