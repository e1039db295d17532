//! Cohere v2 chat responses: `message.content` text and `message.citations`, whole or
//! streamed (`content-delta`, `citation-start`, `message-end`), whose sources name our
//! documents by id or a tool message's documents by position. Shapes from cohere-python
//! `src/cohere/types/` (`document.py`, `citation.py`, `source.py`, `citation_start_event.py`)
//! and `src/cohere/v2/types/v2chat_stream_response.py`.

use std::collections::VecDeque;

use serde_json::Value;

use super::{ResponseStream, index, kind, problem};
use crate::citations::{CitationEvent, Quote, StreamOutput};
use crate::error::Error;

/// Citations read and not yet settled, in the order they came: each is settled once its
/// text has arrived and every citation before it is settled, so that a stream resolves in
/// the order of the whole message's citations, whenever their text comes.
#[derive(Debug, Default)]
pub(super) struct Pending {
    waiting: VecDeque<Waiting>,
}

#[derive(Debug)]
struct Waiting {
    start: usize,
    end: usize,
    citation: Value,
}

impl ResponseStream<'_> {
    pub(super) fn cohere_event(
        &mut self,
        event: &Value,
        out: &mut StreamOutput,
    ) -> Result<(), Error> {
        let place = format!("event {}", self.events);
        match event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default()
        {
            "content-delta" => {
                if let Some(text) = event
                    .pointer("/delta/message/content/text")
                    .and_then(Value::as_str)
                {
                    self.append(text, out);
                }
                self.settle_cohere(&mut out.events, false);
            }
            "citation-start" => {
                let citation = event.pointer("/delta/message/citations").ok_or_else(|| {
                    problem(format!("{place}: a citation-start without citations"))
                })?;
                let (start, end) = bounds(citation, &place)?;
                self.cohere.waiting.push_back(Waiting {
                    start,
                    end,
                    citation: citation.clone(),
                });
                self.settle_cohere(&mut out.events, false);
            }
            "message-end" => self.ended = true,
            // message-start, content-start and -end, citation-end, tool plans and calls,
            // debug, and what later versions add.
            _ => {}
        }
        Ok(())
    }

    pub(super) fn cohere_message(
        &mut self,
        response: &Value,
        out: &mut StreamOutput,
    ) -> Result<(), Error> {
        let message = response
            .get("message")
            .ok_or_else(|| problem("the response has no message".to_string()))?;
        for item in message
            .get("content")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if item.get("type").and_then(Value::as_str) == Some("text")
                && let Some(text) = item.get("text").and_then(Value::as_str)
            {
                self.append(text, out);
            }
        }
        let citations = match message.get("citations") {
            None | Some(Value::Null) => &[][..],
            Some(Value::Array(citations)) => citations,
            Some(other) => {
                return Err(problem(format!(
                    "message.citations: expected a list, found {}",
                    kind(other)
                )));
            }
        };
        for (i, citation) in citations.iter().enumerate() {
            let place = format!("message.citations[{i}]");
            let (start, end) = bounds(citation, &place)?;
            self.cohere_citation(start, end, citation, &mut out.events);
        }
        Ok(())
    }

    /// Settles the pending citations whose text has arrived (all of them at the end), in
    /// the order they came: one whose text is still to come holds back those after it.
    pub(super) fn settle_cohere(&mut self, events: &mut Vec<CitationEvent>, at_end: bool) {
        let arrived = self.answer.chars();
        while self
            .cohere
            .waiting
            .front()
            .is_some_and(|waiting| at_end || waiting.end <= arrived)
        {
            let Some(waiting) = self.cohere.waiting.pop_front() else {
                break;
            };
            self.cohere_citation(waiting.start, waiting.end, &waiting.citation, events);
        }
    }

    /// Settles a citation of answer characters `start..end`. Cohere's documents count
    /// characters; the span is read as characters, else as UTF-16 units, else as bytes,
    /// whichever makes it the citation's `text`, which is then verified.
    fn cohere_citation(
        &mut self,
        start: usize,
        end: usize,
        citation: &Value,
        events: &mut Vec<CitationEvent>,
    ) {
        let text = citation
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let indexed = &self.answer;
        let answer = indexed.as_str();
        let as_bytes = |s: usize, e: usize| {
            (answer.is_char_boundary(s.min(answer.len())) && e <= answer.len()).then_some((s, e))
        };
        let readings = [
            indexed.byte_of_char(start).zip(indexed.byte_of_char(end)),
            indexed.byte_of_utf16(start).zip(indexed.byte_of_utf16(end)),
            as_bytes(start, end).filter(|&(_, e)| answer.is_char_boundary(e)),
        ];
        let found = readings
            .iter()
            .flatten()
            .find(|&&(s, e)| &answer[s..e] == text)
            .copied();
        let ((from, to), verified) = match found {
            Some(span) => (span, !text.is_empty()),
            None => {
                let clamp = |n: usize| indexed.byte_of_char(n).unwrap_or(answer.len());
                ((clamp(start), clamp(end)), false)
            }
        };
        let span = self.span(from, to);
        let sources = citation
            .get("sources")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        if sources.is_empty() {
            self.unknown("a citation of no source".to_string(), from, events);
        }
        for source in sources {
            let kind = source
                .get("type")
                .and_then(Value::as_str)
                .unwrap_or("document");
            // An id as sent is a string; one written as a number is read as its digits.
            let id = match source.get("id") {
                Some(Value::String(id)) => id.clone(),
                Some(Value::Number(n)) => n.to_string(),
                None | Some(Value::Null) => {
                    self.unknown(format!("a {kind} with no id"), from, events);
                    continue;
                }
                Some(other) => other.to_string(),
            };
            let id = id.as_str();
            let Some(entry) = source_entry(kind, id, self.tally.chips().len()) else {
                self.unknown(format!("{kind} id {id:?}"), from, events);
                continue;
            };
            // A tool source carries the document as `tool_output`.
            let title = match kind {
                "tool" => source.pointer("/tool_output/title"),
                _ => source.pointer("/document/title"),
            };
            if let Some(title) = title.and_then(Value::as_str)
                && !self.title_agrees(entry, title)
            {
                self.unknown(format!("{kind} id {id:?} titled {title:?}"), from, events);
                continue;
            }
            let quote = Quote {
                text: text.to_string(),
                verified,
            };
            self.cite(entry, span, quote, events);
        }
    }
}

/// The entry (from 0) of `entries` that a source of `kind` and `id` names, if any. A
/// `document` names ours by its id, `"1"` for the first. A `tool` (cohere-python
/// `src/cohere/types/source.py`, `ToolSource`) names a document of a tool message's content
/// as `"CALL_ID:N"`, `N` its position there from 0, as Cohere's "Building an agent" tutorial
/// shows its citations (cohere-developer-experience
/// `fern/pages/v2/tutorials/build-things-with-cohere/building-an-agent-with-cohere.mdx`: the
/// second email of a `search_emails` result cited as `search_emails_...:1`); the content is
/// [`cohere_tool_content`](crate::dialects::cohere_tool_content) of the entries, whatever
/// the call. Only a number as written names an entry: not "01", "+1" or " 1".
fn source_entry(kind: &str, id: &str, entries: usize) -> Option<usize> {
    let (number, first) = match kind {
        "document" => (id, 1),
        "tool" => (id.rsplit_once(':')?.1, 0),
        _ => return None,
    };
    let n = number.parse::<usize>().ok()?;
    let entry = n.checked_sub(first)?;
    (entry < entries && n.to_string() == number).then_some(entry)
}

/// The `start` and `end` of `citation`, which must not be reversed.
fn bounds(citation: &Value, place: &str) -> Result<(usize, usize), Error> {
    let (start, end) = (
        index(citation, "start", place)?,
        index(citation, "end", place)?,
    );
    if end < start {
        return Err(problem(format!(
            "{place}: end {end} is before start {start}"
        )));
    }
    Ok((start, end))
}

#[cfg(test)]
mod tests {
    use super::source_entry;
    use crate::citations::{Resolution, Resolver};
    use crate::dialects::Dialect;
    use crate::{ContextBuilder, MentorRagResult};

    /// `sources` (JSON) resolved as a whole message and as a stream, against two entries:
    /// both readings must agree.
    fn cited_by(sources: &str) -> Resolution {
        let assembler = ContextBuilder::new(500)
            .dialect(Dialect::Cohere)
            .build()
            .unwrap();
        let results = [
            MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9).with_title("Prices"),
            MentorRagResult::from_content("Plan C costs 20 EUR.", 0.8).with_title("Plan C"),
        ];
        let context = assembler.assemble(&results);
        let citation =
            format!(r#"{{"start": 8, "end": 14, "text": "20 EUR", "sources": {sources}}}"#);
        let whole = format!(
            r#"{{"message": {{"content": [{{"type": "text", "text": "Plan C: 20 EUR."}}],
                "citations": [{citation}]}}}}"#
        );
        let stream = [
            r#"{"type": "content-delta", "delta": {"message": {"content": {"text": "Plan C: "}}}}"#
                .to_string(),
            format!(r#"{{"type": "citation-start", "delta": {{"message": {{"citations": {citation}}}}}}}"#),
            r#"{"type": "content-delta", "delta": {"message": {"content": {"text": "20 EUR."}}}}"#
                .to_string(),
            r#"{"type": "message-end"}"#.to_string(),
        ]
        .join("\n");
        let resolver = Resolver::for_context(&context);
        let resolution = resolver.response(&whole).unwrap();
        assert_eq!(resolver.response(&stream).unwrap(), resolution, "{sources}");
        resolution
    }

    /// A document of a tool message is cited as `CALL_ID:N`, `N` from 0, whatever the call.
    #[test]
    fn a_tool_source_names_the_document_at_its_place_in_the_tool_message() {
        for call in ["search_emails_1dxqzwragh9g", "", "a:b"] {
            let sources = format!(r#"[{{"type": "tool", "id": "{call}:1"}}]"#);
            let resolution = cited_by(&sources);
            assert_eq!(resolution.cited.len(), 1, "{call}");
            assert_eq!(resolution.cited[0].citation.index, 2);
            assert!(resolution.cited[0].quotes[0].verified);
            assert!(resolution.unknown.is_empty());
        }
        // Our own ids still name the same documents.
        let ours = cited_by(r#"[{"type": "document", "id": "2"}]"#);
        let tool = cited_by(r#"[{"type": "tool", "id": "call_1:1"}]"#);
        assert_eq!(ours.cited, tool.cited);
    }

    /// A place past the tool message's documents, or one not written as a number, names
    /// nothing; so does a tool output whose title is not the document's.
    #[test]
    fn a_tool_source_out_of_range_or_misspelled_or_mistitled_is_unknown() {
        for id in [
            "call_1:2",
            "call_1:01",
            "call_1:+1",
            "call_1: 1",
            "call_1",
            "1",
            "call_1:-1",
        ] {
            let sources = format!(r#"[{{"type": "tool", "id": "{id}"}}]"#);
            let resolution = cited_by(&sources);
            assert!(resolution.cited.is_empty(), "{id}");
            assert_eq!(resolution.unknown.len(), 1, "{id}");
            assert_eq!(resolution.unknown[0].marker, format!("tool id {id:?}"));
            assert_eq!(resolution.unknown[0].at, 8);
        }
        let mistitled =
            cited_by(r#"[{"type": "tool", "id": "call_1:1", "tool_output": {"title": "Prices"}}]"#);
        assert!(mistitled.cited.is_empty());
        assert_eq!(
            mistitled.unknown[0].marker,
            r#"tool id "call_1:1" titled "Prices""#
        );
        let titled =
            cited_by(r#"[{"type": "tool", "id": "call_1:1", "tool_output": {"title": "Plan C"}}]"#);
        assert_eq!(titled.cited[0].citation.index, 2);
    }

    #[test]
    fn sources_name_entries_from_one_for_documents_and_from_zero_for_tools() {
        assert_eq!(source_entry("document", "1", 2), Some(0));
        assert_eq!(source_entry("document", "2", 2), Some(1));
        assert_eq!(source_entry("document", "0", 2), None);
        assert_eq!(source_entry("document", "3", 2), None);
        assert_eq!(source_entry("document", "c:1", 2), None);
        assert_eq!(source_entry("tool", "c:0", 2), Some(0));
        assert_eq!(source_entry("tool", "c:1", 2), Some(1));
        assert_eq!(source_entry("tool", "c:2", 2), None);
        assert_eq!(source_entry("tool", "c:d:1", 2), Some(1));
        assert_eq!(source_entry("tool", "1", 2), None);
        assert_eq!(source_entry("web", "1", 2), None);
        assert_eq!(source_entry("tool", "c:0", 0), None);
    }

    /// Found by `fuzz/fuzz_targets/dialect_response.rs`: Cohere lists citations in any order,
    /// and a chip's spans must still be in answer order.
    #[test]
    fn a_chips_spans_are_in_answer_order_whatever_order_the_citations_come_in() {
        let assembler = ContextBuilder::new(500)
            .dialect(Dialect::Cohere)
            .build()
            .unwrap();
        let results = [MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9)];
        let context = assembler.assemble(&results);
        let response = r#"{"message": {"content": [{"type": "text", "text": "Plan B: 12 EUR, so 12 EUR."}],
            "citations": [
              {"start": 19, "end": 25, "sources": [{"type": "document", "id": "1"}]},
              {"start": 8, "end": 14, "sources": [{"type": "document", "id": "1"}]}]}}"#;
        let resolution = Resolver::for_context(&context).response(response).unwrap();
        let starts: Vec<usize> = resolution.cited[0].spans.iter().map(|s| s.start).collect();
        assert_eq!(starts, [8, 19]);
    }
}
