//! Anthropic Messages responses: text blocks carrying `search_result_location` or
//! `char_location` citations, whole or streamed (`content_block_start`,
//! `content_block_delta` with `text_delta` and `citations_delta`, `content_block_stop`,
//! `message_stop`). Shapes from anthropic-sdk-python `src/anthropic/types/`.

use serde_json::Value;

use super::blocks::{Block, Reading};
use super::{ResponseStream, index, kind, problem};
use crate::citations::{Quote, StreamOutput};
use crate::dialects::Dialect;
use crate::error::Error;

/// Where a citation points inside its entry.
enum Range {
    /// `content[start..end]` of a search result.
    Blocks(usize, usize),
    /// Characters `start..end` of a document's text.
    Chars(usize, usize),
}

impl ResponseStream<'_> {
    pub(super) fn anthropic_event(
        &mut self,
        event: &Value,
        out: &mut StreamOutput,
    ) -> Result<(), Error> {
        let place = format!("event {}", self.events);
        let kind = event
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        match kind {
            "content_block_start" => {
                let at = index(event, "index", &place)?;
                // Blocks come one after another: one starting while another is open, or
                // again, means events were lost or replayed.
                self.blocks.check_start(at, &place)?;
                let block = event
                    .get("content_block")
                    .ok_or_else(|| problem(format!("{place}: no content_block")))?;
                let text = block.get("type").and_then(Value::as_str) == Some("text");
                let mut started = Block::new(self.answer.len(), text);
                if text {
                    if let Some(initial) = block.get("text").and_then(Value::as_str) {
                        self.append(initial, out);
                    }
                    let place = format!("{place}.content_block");
                    started.add_citations(citations(block, &place)?, &format!("{place}.citations"));
                }
                self.blocks.start(at, started);
            }
            "content_block_delta" => {
                let at = index(event, "index", &place)?;
                let delta = event
                    .get("delta")
                    .ok_or_else(|| problem(format!("{place}: no delta")))?;
                let Some(block) = self.blocks.get_mut(at) else {
                    return Err(problem(format!(
                        "{place}: a delta for content block {at}, which is not open"
                    )));
                };
                match delta.get("type").and_then(Value::as_str) {
                    Some("text_delta") if block.text => {
                        let text = delta.get("text").and_then(Value::as_str).ok_or_else(|| {
                            problem(format!("{place}: a text_delta without text"))
                        })?;
                        self.append(text, out);
                    }
                    Some("citations_delta") if !block.text => {
                        return Err(problem(format!(
                            "{place}: a citations_delta for content block {at}, which is not \
                             a text block"
                        )));
                    }
                    Some("citations_delta") => {
                        let citation = delta.get("citation").ok_or_else(|| {
                            problem(format!("{place}: a citations_delta without citation"))
                        })?;
                        block.citations.push((citation.clone(), place));
                    }
                    // Thinking, tool input and signatures are no part of the answer.
                    _ => {}
                }
            }
            "content_block_stop" => {
                let at = index(event, "index", &place)?;
                let block = self.blocks.stop(at, &place)?;
                self.settle_block(block, &mut out.events, Self::anthropic_citation)?;
            }
            "message_stop" => self.stop_message(&place)?,
            "error" => {
                let error = event.get("error").cloned().unwrap_or(Value::Null);
                return Err(problem(format!(
                    "{place}: the stream reports an error: {error}"
                )));
            }
            // message_start, message_delta, ping, and what later versions add.
            _ => {}
        }
        Ok(())
    }

    pub(super) fn anthropic_message(
        &mut self,
        message: &Value,
        out: &mut StreamOutput,
    ) -> Result<(), Error> {
        let content = message
            .get("content")
            .and_then(Value::as_array)
            .ok_or_else(|| problem("the message has no content array".to_string()))?;
        for (i, block) in content.iter().enumerate() {
            if block.get("type").and_then(Value::as_str) != Some("text") {
                continue;
            }
            let mut read = Block::new(self.answer.len(), true);
            let text = block
                .get("text")
                .and_then(Value::as_str)
                .ok_or_else(|| problem(format!("content[{i}]: a text block without text")))?;
            self.append(text, out);
            let place = format!("content[{i}]");
            read.add_citations(citations(block, &place)?, &format!("{place}.citations"));
            self.settle_block(read, &mut out.events, Self::anthropic_citation)?;
        }
        Ok(())
    }

    /// Reads `citation`, of a text block: the entry it names, as sent, and its quote checked.
    fn anthropic_citation(&mut self, citation: &Value, place: &str) -> Result<Reading, Error> {
        let kind = citation
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let (field, title_field, range) = match (kind, self.dialect) {
            ("search_result_location", Dialect::Anthropic) => {
                let (from, to) = ordered(citation, "start_block_index", "end_block_index", place)?;
                ("search_result_index", "title", Range::Blocks(from, to))
            }
            ("char_location", Dialect::AnthropicDocuments) => {
                let (from, to) = ordered(citation, "start_char_index", "end_char_index", place)?;
                ("document_index", "document_title", Range::Chars(from, to))
            }
            // Web search cites pages of the web: no entry of the request.
            ("web_search_result_location", _) => {
                let url = citation.get("url").and_then(Value::as_str).unwrap_or("");
                return Ok(Reading::Unknown(format!(
                    "a web_search_result_location citation of {url:?}"
                )));
            }
            (kind, dialect) => {
                return Err(problem(format!(
                    "{place}: a {kind:?} citation, but the report was assembled for the \
                     {dialect} dialect"
                )));
            }
        };
        let entry = index(citation, field, place)?;
        let cited_text = citation
            .get("cited_text")
            .and_then(Value::as_str)
            .unwrap_or_default();
        if entry >= self.tally.chips().len() {
            return Ok(Reading::Unknown(format!("{field} {entry}")));
        }
        if let Some(title) = text_field(citation, title_field, place)?
            && !self.title_agrees(entry, title)
        {
            return Ok(Reading::Unknown(format!(
                "{field} {entry} titled {title:?}"
            )));
        }
        if let Some(source) = text_field(citation, "source", place)?
            && !self.source_agrees(entry, source)
        {
            return Ok(Reading::Unknown(format!("{field} {entry} from {source:?}")));
        }
        let verified = self.cited_text_found(entry, &range, cited_text);
        let quote = Quote {
            text: cited_text.to_string(),
            verified,
        };
        Ok(Reading::Cites(entry, quote))
    }

    /// Whether `cited_text` is in entry `entry` as sent, within `range`, from a word
    /// boundary to a word boundary: in one text block of a search result (never across the
    /// metadata block and the content, which no block says), or in the stretch of a
    /// document's text. With no entries to look in, it is not verified.
    fn cited_text_found(&mut self, entry: usize, range: &Range, cited_text: &str) -> bool {
        let Some(sent) = self.entries.as_ref().and_then(|entries| entries.get(entry)) else {
            return false;
        };
        let checks = &mut self.checks;
        match *range {
            Range::Blocks(from, to) => {
                let blocks = sent.text_blocks();
                to <= blocks.len()
                    && (from..to).any(|at| checks.holds((entry, at), blocks[at], None, cited_text))
            }
            Range::Chars(from, to) => {
                let data = sent.document_text().unwrap_or_default();
                checks.holds((entry, 0), data, Some((from, to)), cited_text)
            }
        }
    }
}

/// The `citations` of a text block: none when absent or null, else a list.
fn citations<'v>(block: &'v Value, place: &str) -> Result<&'v [Value], Error> {
    match block.get("citations") {
        None | Some(Value::Null) => Ok(&[]),
        Some(Value::Array(citations)) => Ok(citations),
        Some(other) => Err(problem(format!(
            "{place}.citations: expected a list, found {}",
            kind(other)
        ))),
    }
}

/// The string at `field` of `citation`: `None` when absent or null. Any other value would
/// skip the check that the citation names its entry as sent.
fn text_field<'v>(citation: &'v Value, field: &str, place: &str) -> Result<Option<&'v str>, Error> {
    match citation.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(other) => Err(problem(format!(
            "{place}.{field}: expected a string, found {}",
            kind(other)
        ))),
    }
}

/// Fields `from` and `to` of `citation`, which must not be reversed.
fn ordered(citation: &Value, from: &str, to: &str, place: &str) -> Result<(usize, usize), Error> {
    let (start, end) = (index(citation, from, place)?, index(citation, to, place)?);
    if end < start {
        return Err(problem(format!(
            "{place}: {to} {end} is before {from} {start}"
        )));
    }
    Ok((start, end))
}
