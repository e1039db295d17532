//! Reading a model API's response against a report: the whole message, or its stream of
//! events one at a time, as JSON Lines or server-sent events.
//!
//! Both ways end in the same [`Resolution`] as an answer with `[n]` markers. The answer's text
//! is the response's text blocks in order; each citation's place is the stretch of that text
//! it marks (Anthropic: the text block it is attached to; Bedrock: its `citationsContent`
//! block; Cohere: its `start..end`; Mistral: the text before the reference), in bytes and in
//! UTF-16 code units. `anthropic.rs`, `bedrock.rs`, `cohere.rs` and `mistral.rs` read each
//! dialect's shapes; `blocks.rs` the content blocks Anthropic and Bedrock both send; `sse.rs`
//! splits server-sent events; the crate's `offsets.rs` finds offsets in the answer.

mod anthropic;
mod bedrock;
mod blocks;
mod cohere;
mod mistral;
mod sse;

use std::borrow::Cow;

use serde_json::Value;

use super::{Dialect, Entry, bedrock_name};
use crate::citations::{
    CitationEvent, MarkerSpan, Quote, QuoteChecks, Resolution, Resolver, StreamOutput, Tally,
    UnknownMarker,
};
use crate::error::Error;
use crate::offsets::IndexedText;
use sse::SseLines;

/// A model API's response read event by event; made by
/// [`Resolver::response_stream`](crate::citations::Resolver::response_stream).
///
/// Each event gives the text to show (the answer's text deltas) and the citation events it
/// settled. An Anthropic citation is settled when its text block ends (its place is the
/// block), a Bedrock citation when its content block stops, a Cohere citation when the text
/// it marks has arrived and the citations before it are settled (so that they come in the
/// whole message's order), a Mistral reference when it arrives. An event after the stream's
/// last one is refused, but for those that add nothing (a ping, Bedrock's `metadata`, a
/// Mistral chunk of usage alone): two responses end to end are not one. Whatever the chunking,
/// the text put together, the events and the [`Resolution`] are those of
/// [`Resolver::response`] on the whole.
#[derive(Debug)]
pub struct ResponseStream<'c> {
    dialect: Dialect,
    tally: Tally<'c>,
    entries: Option<Cow<'c, [Entry]>>,
    /// The entries' texts quotes were looked for in, each prepared once.
    checks: QuoteChecks,
    /// The answer's text so far.
    answer: IndexedText,
    /// The content blocks of an Anthropic or a Bedrock stream.
    blocks: blocks::Blocks,
    cohere: cohere::Pending,
    mistral: mistral::Segment,
    sse: SseLines,
    /// The events read, for messages that name one.
    events: usize,
    /// The stream's last event (`message_stop`, `messageStop`, `message-end`, a chunk with a
    /// `finish_reason`) was read.
    ended: bool,
}

impl<'c> Resolver<'c> {
    /// Reads a whole response of the report's dialect: the message JSON, a JSON Lines file
    /// of its stream's events, or the raw server-sent-events text (Bedrock's stream as JSON
    /// Lines only: see [`dialects`](crate::dialects)).
    ///
    /// ```
    /// use mentor_context::citations::Resolver;
    /// use mentor_context::dialects::Dialect;
    /// use mentor_context::{ContextBuilder, MentorRagResult};
    ///
    /// let assembler = ContextBuilder::new(500).dialect(Dialect::Cohere).build()?;
    /// let results = [MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9)];
    /// let context = assembler.assemble(&results);
    /// let response = r#"{"message": {"content": [{"type": "text", "text": "It costs 12 EUR."}],
    ///     "citations": [{"start": 9, "end": 15, "text": "12 EUR",
    ///                    "sources": [{"type": "document", "id": "1"}]}]}}"#;
    /// let resolution = Resolver::for_context(&context).response(response)?;
    /// assert_eq!(resolution.cited[0].citation.index, 1);
    /// assert!(resolution.cited[0].quotes[0].verified);
    /// # Ok::<(), mentor_context::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Response`], naming the place: the report was not assembled in a dialect, the
    /// response is not JSON or not of this dialect's shape, an event stream ends before its
    /// last event, or a citation has negative or reversed indices.
    pub fn response(&self, response: &str) -> Result<Resolution, Error> {
        Ok(self.read_response(response)?.finish()?.1)
    }

    /// The stream of [`response`](Self::response) once it has read the whole response, not
    /// yet finished.
    pub(crate) fn read_response(&self, response: &str) -> Result<ResponseStream<'c>, Error> {
        let mut stream = self.response_stream()?;
        // Some Windows tools start UTF-8 files with a byte order mark; it is not text.
        let response = response.strip_prefix('\u{feff}').unwrap_or(response);
        let trimmed = response.trim_start();
        if ["event:", "data:", "id:", "retry:", ":"]
            .iter()
            .any(|field| trimmed.starts_with(field))
        {
            let _ = stream.push_sse(response)?;
            return Ok(stream);
        }
        match serde_json::from_str::<Value>(response) {
            Ok(message) if !is_event(stream.dialect, &message) => {
                stream.whole(&message)?;
                stream.ended = true;
            }
            // One event, or one per line.
            _ => {
                for (line, text) in response.lines().enumerate() {
                    if text.trim().is_empty() {
                        continue;
                    }
                    let event = serde_json::from_str(text)
                        .map_err(|err| problem(format!("line {}: not JSON ({err})", line + 1)))?;
                    let _ = stream.event(&event)?;
                }
            }
        }
        Ok(stream)
    }

    /// A reader for a streamed response of the report's dialect, event by event.
    ///
    /// # Errors
    ///
    /// [`Error::Response`] when the report was not assembled in a dialect.
    pub fn response_stream(&self) -> Result<ResponseStream<'c>, Error> {
        let dialect = self.response_dialect()?;
        Ok(ResponseStream {
            dialect,
            tally: self.tally(),
            entries: self.sent_entries(),
            checks: QuoteChecks::default(),
            answer: IndexedText::default(),
            blocks: blocks::Blocks::new(dialect),
            cohere: cohere::Pending::default(),
            mistral: mistral::Segment::default(),
            sse: SseLines::default(),
            events: 0,
            ended: false,
        })
    }
}

impl<'c> ResponseStream<'c> {
    /// Reads one event of the stream, as JSON (a line of JSON Lines, or the `data` of a
    /// server-sent event).
    ///
    /// # Errors
    ///
    /// [`Error::Response`] when the event is not JSON or not of this dialect's shape, or its
    /// citation has negative or reversed indices.
    pub fn push_event(&mut self, event: &str) -> Result<StreamOutput, Error> {
        let event = event.strip_prefix('\u{feff}').unwrap_or(event);
        let parsed: Value = serde_json::from_str(event)
            .map_err(|err| problem(format!("event {}: not JSON ({err})", self.events + 1)))?;
        self.event(&parsed)
    }

    /// Reads a chunk of the raw server-sent-events text, as it comes off the wire: events
    /// are read as their blank line arrives.
    ///
    /// # Errors
    ///
    /// As [`push_event`](Self::push_event), for each event completed in `chunk`.
    pub fn push_sse(&mut self, chunk: &str) -> Result<StreamOutput, Error> {
        let mut out = StreamOutput::default();
        for data in self.sse.feed(chunk) {
            let more = self.push_event(&data)?;
            out.text.push_str(&more.text);
            out.events.extend(more.events);
        }
        Ok(out)
    }

    /// Bytes of contents, entries and quotes prepared for quote checks so far.
    #[cfg(test)]
    pub(crate) fn prepared_bytes(&self) -> usize {
        self.tally.prepared_bytes() + self.checks.prepared_bytes()
    }

    /// The stream is over: returns what is left to show and the resolution.
    ///
    /// # Errors
    ///
    /// [`Error::Response`] when the stream was cut off: its last event never came, or the
    /// server-sent events end in the middle of one.
    pub fn finish(mut self) -> Result<(StreamOutput, Resolution), Error> {
        if self.sse.has_partial_event() {
            return Err(problem(format!(
                "the event stream is cut off in the middle of event {}",
                self.events + 1
            )));
        }
        if !self.ended {
            return Err(problem(format!(
                "the event stream is cut off after {} events, before {}",
                self.events,
                self.last_event()
            )));
        }
        let mut out = StreamOutput::default();
        self.settle_cohere(&mut out.events, true);
        Ok((
            out,
            self.tally.into_resolution(Some(self.answer.into_string())),
        ))
    }

    fn event(&mut self, event: &Value) -> Result<StreamOutput, Error> {
        self.events += 1;
        // Two responses end to end must not read as one.
        if self.ended && !trails(self.dialect, event) {
            return Err(problem(format!(
                "event {}: comes after {}, the stream's last event (two responses run \
                 together?)",
                self.events,
                self.last_event()
            )));
        }
        let mut out = StreamOutput::default();
        match self.dialect {
            Dialect::Bedrock => self.bedrock_event(event, &mut out)?,
            Dialect::Cohere => self.cohere_event(event, &mut out)?,
            Dialect::Mistral => self.mistral_event(event, &mut out)?,
            _ => self.anthropic_event(event, &mut out)?,
        }
        Ok(out)
    }

    fn whole(&mut self, message: &Value) -> Result<(), Error> {
        let mut out = StreamOutput::default();
        match self.dialect {
            Dialect::Bedrock => self.bedrock_message(message, &mut out),
            Dialect::Cohere => self.cohere_message(message, &mut out),
            Dialect::Mistral => self.mistral_message(message, &mut out),
            _ => self.anthropic_message(message, &mut out),
        }
    }

    /// The event that ends a stream of the dialect.
    fn last_event(&self) -> &'static str {
        match self.dialect {
            Dialect::Bedrock => "messageStop",
            Dialect::Cohere => "message-end",
            Dialect::Mistral => "a chunk with a finish_reason",
            _ => "message_stop",
        }
    }

    /// Appends `text` to the answer, and to what is shown.
    fn append(&mut self, text: &str, out: &mut StreamOutput) {
        self.answer.push(text);
        out.text.push_str(text);
    }

    /// The place of answer bytes `start..end` (on character boundaries).
    fn span(&self, start: usize, end: usize) -> MarkerSpan {
        MarkerSpan {
            start,
            end,
            start_utf16: self.answer.utf16_at(start),
            end_utf16: self.answer.utf16_at(end),
        }
    }

    /// Records that the entry at `chip` is cited at `span`, with `quote`.
    fn cite(
        &mut self,
        chip: usize,
        span: MarkerSpan,
        quote: Quote,
        events: &mut Vec<CitationEvent>,
    ) {
        events.push(self.tally.cite(chip, span, Some(quote)));
    }

    /// Whether `title`, as a citation gives it, is the title entry `entry` was sent with.
    /// With the entries, it must be the one sent: a title claimed for an untitled entry
    /// disagrees. Without them, the chip's title is what there is to compare, and an
    /// untitled chip cannot say what was sent (its URL, its number, a shortened form). A
    /// Bedrock title is the document's name, which the chip's number and title make.
    fn title_agrees(&self, entry: usize, title: &str) -> bool {
        if let Some(sent) = self.sent_entry(entry) {
            return sent.title() == Some(title);
        }
        let chip = &self.tally.chips()[entry];
        if self.dialect == Dialect::Bedrock {
            let shown = chip.title.as_deref().or(chip.source_url.as_deref());
            return bedrock_name(chip.index, shown) == title;
        }
        match chip.title.as_deref() {
            Some(chip) => chip == title,
            None => true,
        }
    }

    /// Whether `source`, as an Anthropic citation gives it, is the one entry `entry` was sent
    /// with; without the entries it cannot be told.
    fn source_agrees(&self, entry: usize, source: &str) -> bool {
        self.sent_entry(entry)
            .is_none_or(|sent| sent.search_source() == Some(source))
    }

    fn sent_entry(&self, entry: usize) -> Option<&Entry> {
        self.entries.as_ref().and_then(|entries| entries.get(entry))
    }

    /// Records a citation that points at no entry.
    fn unknown(&mut self, what: String, at: usize, events: &mut Vec<CitationEvent>) {
        events.push(self.tally.unknown(UnknownMarker { marker: what, at }));
    }
}

/// Whether `event` may follow the last event of a stream of `dialect`: Bedrock's `metadata`
/// (usage and metrics, sent after `messageStop`), a Mistral chunk with no choices (usage
/// alone), a ping. They add nothing to the answer; anything else after the end is refused.
fn trails(dialect: Dialect, event: &Value) -> bool {
    match dialect {
        Dialect::Bedrock => event
            .as_object()
            .is_some_and(|object| object.keys().all(|key| key == "metadata")),
        Dialect::Mistral => event
            .get("choices")
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty),
        _ => event.get("type").and_then(Value::as_str) == Some("ping"),
    }
}

/// Whether `value` is one event of a stream of `dialect` rather than a whole message.
fn is_event(dialect: Dialect, value: &Value) -> bool {
    match dialect {
        // A Converse response holds its message in `output`; events are keyed by type.
        Dialect::Bedrock => value.get("output").is_none(),
        Dialect::Mistral => mistral::is_chunk(value),
        _ => {
            let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
            !matches!(kind, "message" | "") || value.get("delta").is_some()
        }
    }
}

fn problem(problem: String) -> Error {
    Error::Response { problem }
}

/// The whole number at `field` of `value`, named by `place` in an error.
fn index(value: &Value, field: &str, place: &str) -> Result<usize, Error> {
    match value.get(field) {
        Some(found) => whole_number(found, &format!("{place}.{field}")),
        None => Err(problem(format!("{place}: no {field}"))),
    }
}

/// `value` as an index, named `place` in an error. The SDKs type every index a response
/// gives as an integer (Bedrock's `documentIndex` and `contentBlockIndex`, Mistral's
/// `reference_ids`), so a string, a fraction or a negative number is an error in every
/// dialect alike.
fn whole_number(value: &Value, place: &str) -> Result<usize, Error> {
    let Value::Number(n) = value else {
        return Err(problem(format!(
            "{place}: expected a number, found {value}"
        )));
    };
    if let Some(n) = n.as_u64() {
        return usize::try_from(n).map_err(|_| problem(format!("{place}: {n} is too large")));
    }
    match n.as_f64() {
        Some(f) if f < 0.0 => Err(problem(format!("{place}: {n} is negative"))),
        // Past u64, serde_json holds an integer as a float: whole, and too large.
        Some(f) if f.fract() == 0.0 => Err(problem(format!("{place}: {n} is too large"))),
        _ => Err(problem(format!("{place}: {n} is not a whole number"))),
    }
}

/// What kind of JSON value `value` is, for an error.
pub(super) fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}
