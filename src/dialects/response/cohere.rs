//! Cohere v2 chat responses: `message.content` text and `message.citations`, whole or
//! streamed (`content-delta`, `citation-start`, `message-end`). Shapes from cohere-python
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
            // Only the id as sent names an entry: not "01", "+1" or " 1".
            let entry = id.parse::<usize>().ok().filter(|&n| {
                kind == "document" && n >= 1 && n <= self.tally.chips().len() && n.to_string() == id
            });
            let Some(n) = entry else {
                self.unknown(format!("{kind} id {id:?}"), from, events);
                continue;
            };
            if let Some(title) = source.pointer("/document/title").and_then(Value::as_str)
                && !self.title_agrees(n - 1, title)
            {
                self.unknown(format!("document id {id:?} titled {title:?}"), from, events);
                continue;
            }
            let quote = Quote {
                text: text.to_string(),
                verified,
            };
            self.cite(n - 1, span, quote, events);
        }
    }
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
    use crate::citations::Resolver;
    use crate::dialects::Dialect;
    use crate::{ContextBuilder, MentorRagResult};

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
