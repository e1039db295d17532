//! Amazon Bedrock Converse responses: `citationsContent` blocks carrying citations located
//! by `documentChar`, `documentChunk` or `documentPage`, whole (`output.message.content`)
//! or streamed (ConverseStream's `contentBlockStart`, `contentBlockDelta` with `text` or
//! `citation`, `contentBlockStop`, `messageStop`, `metadata`), each event an object keyed
//! by its type as the AWS SDKs hand them out. Shapes from aws-sdk-rust
//! `sdk/bedrockruntime/src/types/` (`_converse_output.rs`, `_content_block.rs`,
//! `_citations_content_block.rs`, `_citation.rs`, `_citation_location.rs`,
//! `_converse_stream_output.rs`, `_content_block_delta.rs`, `_citations_delta.rs`) and the
//! JSON names of its `src/protocol_serde/` (`shape_citation.rs`,
//! `shape_citation_location.rs`, `shape_document_char_location.rs`,
//! `shape_document_chunk_location.rs`, `shape_content_block_delta.rs`).

use serde_json::Value;

use super::blocks::{Block, Reading};
use super::{ResponseStream, index, problem};
use crate::citations::{Quote, StreamOutput};
use crate::dialects::Entry;
use crate::error::Error;

/// The ConverseStream events that report a failure instead of content.
const EXCEPTIONS: [&str; 5] = [
    "internalServerException",
    "modelStreamErrorException",
    "validationException",
    "throttlingException",
    "serviceUnavailableException",
];

/// The most characters of a provider's error message an error repeats.
const MESSAGE_LIMIT: usize = 300;

/// Where in the cited document a citation's quote is looked for.
enum Located {
    /// Characters `start..end` of the document's text.
    Chars(usize, usize),
    /// The whole text: a text document is one chunk and one page.
    Whole,
}

impl ResponseStream<'_> {
    pub(super) fn bedrock_event(
        &mut self,
        event: &Value,
        out: &mut StreamOutput,
    ) -> Result<(), Error> {
        let place = format!("event {}", self.events);
        let object = event.as_object().ok_or_else(|| {
            problem(format!(
                "{place}: expected an object keyed by the event's type, as the AWS SDKs give \
                 ConverseStream's events"
            ))
        })?;
        // `ConverseStreamOutput` is a union: an event is one of its members, and an object
        // keyed by two types is two events run together (or one forged from two).
        one_member(object, &place, "an event is keyed by one of its types")?;
        for (kind, body) in object {
            match kind.as_str() {
                "contentBlockStart" => {
                    let at = index(body, "contentBlockIndex", &place)?;
                    let tool = body.pointer("/start/toolUse").is_some();
                    self.bedrock_open(at, !tool, &place)?;
                }
                "contentBlockDelta" => self.bedrock_delta(body, &place, out)?,
                "contentBlockStop" => {
                    let at = index(body, "contentBlockIndex", &place)?;
                    let block = self.blocks.stop(at, &place)?;
                    self.settle_block(block, &mut out.events, Self::bedrock_citation)?;
                }
                "messageStop" => self.stop_message(&place)?,
                kind if EXCEPTIONS.contains(&kind) => {
                    let message = body.get("message").and_then(Value::as_str).unwrap_or("");
                    let message: String = message.chars().take(MESSAGE_LIMIT).collect();
                    return Err(problem(format!(
                        "{place}: the stream reports a {kind}: {message:?}"
                    )));
                }
                // messageStart, metadata, and what later versions add.
                _ => {}
            }
        }
        Ok(())
    }

    /// Opens content block `at`; `text` says whether its deltas are the answer's text.
    fn bedrock_open(&mut self, at: usize, text: bool, place: &str) -> Result<(), Error> {
        self.blocks.check_start(at, place)?;
        self.blocks.start(at, Block::new(self.answer.len(), text));
        Ok(())
    }

    fn bedrock_delta(
        &mut self,
        body: &Value,
        place: &str,
        out: &mut StreamOutput,
    ) -> Result<(), Error> {
        let at = index(body, "contentBlockIndex", place)?;
        let delta = body
            .get("delta")
            .ok_or_else(|| problem(format!("{place}: no delta")))?;
        // `ContentBlockDelta` is a union too: text and a citation in one delta would lose
        // one of them.
        if let Some(members) = delta.as_object() {
            one_member(
                members,
                &format!("{place}.delta"),
                "a delta is one of text, a citation, a tool use or reasoning",
            )?;
        }
        let text = delta.get("text");
        let citation = delta.get("citation");
        // A text block has no start event: its first delta opens it.
        if self.blocks.open_index().is_none() {
            self.bedrock_open(at, text.is_some() || citation.is_some(), place)?;
        }
        let Some((open, block)) = self.blocks.open_mut() else {
            return Ok(());
        };
        if open != at {
            return Err(problem(format!(
                "{place}: a delta for content block {at} while block {open} is open"
            )));
        }
        if let Some(citation) = citation {
            if !block.text {
                return Err(problem(format!(
                    "{place}: a citation for content block {at}, which is not text"
                )));
            }
            block.citations.push((citation.clone(), place.to_string()));
        } else if let Some(text) = text
            && block.text
        {
            let text = text
                .as_str()
                .ok_or_else(|| problem(format!("{place}: a text delta that is not a string")))?;
            self.append(text, out);
        }
        // Tool input and reasoning are no part of the answer.
        Ok(())
    }

    pub(super) fn bedrock_message(
        &mut self,
        response: &Value,
        out: &mut StreamOutput,
    ) -> Result<(), Error> {
        let content = response
            .pointer("/output/message/content")
            .and_then(Value::as_array)
            .ok_or_else(|| {
                problem("the response has no output.message.content array".to_string())
            })?;
        for (i, block) in content.iter().enumerate() {
            if let Some(text) = block.get("text") {
                let text = text
                    .as_str()
                    .ok_or_else(|| problem(format!("content[{i}].text: not a string")))?;
                self.append(text, out);
            } else if let Some(cited) = block.get("citationsContent") {
                let mut read = Block::new(self.answer.len(), true);
                let parts = cited.get("content").and_then(Value::as_array);
                for (j, part) in parts.into_iter().flatten().enumerate() {
                    let text = part.get("text").and_then(Value::as_str).ok_or_else(|| {
                        problem(format!(
                            "content[{i}].citationsContent.content[{j}]: no text"
                        ))
                    })?;
                    self.append(text, out);
                }
                let citations = cited.get("citations").and_then(Value::as_array);
                let place = format!("content[{i}].citationsContent.citations");
                read.add_citations(citations.into_iter().flatten(), &place);
                self.settle_block(read, &mut out.events, Self::bedrock_citation)?;
            }
            // Reasoning and tool calls are no part of the answer.
        }
        Ok(())
    }

    /// Reads `citation`, of a `citationsContent` block: the document it names, as sent, and
    /// its quote checked.
    fn bedrock_citation(&mut self, citation: &Value, place: &str) -> Result<Reading, Error> {
        let location = citation.get("location").and_then(Value::as_object);
        let Some((kind, found)) = location.and_then(|l| l.iter().find(|(_, v)| !v.is_null()))
        else {
            return Ok(Reading::Unknown("a citation with no location".to_string()));
        };
        let located = match kind.as_str() {
            "documentChar" | "documentChunk" | "documentPage" => {
                let place = format!("{place}.location.{kind}");
                let (from, to) = (index(found, "start", &place)?, index(found, "end", &place)?);
                if to < from {
                    return Err(problem(format!("{place}: end {to} is before start {from}")));
                }
                match kind.as_str() {
                    "documentChar" => Located::Chars(from, to),
                    _ => Located::Whole,
                }
            }
            // A search result or a web page: no document of the request.
            other => return Ok(Reading::Unknown(format!("a {other} citation"))),
        };
        let entry = index(found, "documentIndex", &format!("{place}.location.{kind}"))?;
        if entry >= self.tally.chips().len() {
            return Ok(Reading::Unknown(format!("documentIndex {entry}")));
        }
        if let Some(title) = citation.get("title").and_then(Value::as_str)
            && !self.title_agrees(entry, title)
        {
            return Ok(Reading::Unknown(format!(
                "documentIndex {entry} titled {title:?}"
            )));
        }
        let parts: Vec<&str> = citation
            .get("sourceContent")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect();
        let verified = !parts.is_empty()
            && parts
                .iter()
                .all(|part| self.source_content_found(entry, &located, part));
        let quote = Quote {
            text: parts.join("\n"),
            verified,
        };
        Ok(Reading::Cites(entry, quote))
    }

    /// Whether `part` of a citation's `sourceContent` is in entry `entry` as sent, where
    /// `located` says, from a word boundary to a word boundary; with no entries to look in,
    /// it is not verified.
    fn source_content_found(&mut self, entry: usize, located: &Located, part: &str) -> bool {
        let Some(data) = self
            .entries
            .as_ref()
            .and_then(|entries| entries.get(entry))
            .and_then(Entry::document_text)
        else {
            return false;
        };
        let within = match *located {
            Located::Chars(from, to) => Some((from, to)),
            Located::Whole => None,
        };
        self.checks.holds((entry, 0), data, within, part)
    }
}

/// Refuses an object of a union type (`_converse_stream_output.rs`, `_content_block_delta.rs`)
/// with more than one member set, as the SDKs' deserializers refuse mixed variants.
fn one_member(
    object: &serde_json::Map<String, Value>,
    place: &str,
    rule: &str,
) -> Result<(), Error> {
    let mut members = object.iter().filter(|(_, value)| !value.is_null());
    if let (Some((first, _)), Some((second, _))) = (members.next(), members.next()) {
        return Err(problem(format!(
            "{place}: holds both `{first}` and `{second}`; {rule}"
        )));
    }
    Ok(())
}
