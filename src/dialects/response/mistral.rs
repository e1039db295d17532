//! Mistral chat completions: `text` and `reference` chunks in the message's `content`,
//! whole (`choices[0].message`) or streamed (chunks whose `choices[0].delta.content` is text
//! or a list of chunks, until one gives a `finish_reason`). Shapes from mistralai
//! client-python `src/mistralai/client/models/` (`chatcompletionresponse.py`,
//! `chatcompletionchoice.py`, `assistantmessage.py`, `completionchunk.py`,
//! `completionresponsestreamchoice.py`, `deltamessage.py`, `contentchunk.py`,
//! `textchunk.py`, `referencechunk.py`).
//!
//! A reference carries no offsets and no quote: it cites the text before it, back to the
//! reference before that, however the stream cut that text into deltas; references in a row
//! cite the same text.

use serde_json::Value;

use super::{ResponseStream, kind, problem, whole_number};
use crate::citations::StreamOutput;
use crate::error::Error;

/// The text the next reference cites.
#[derive(Debug, Default)]
pub(super) struct Segment {
    /// Where the text since the last reference starts, once some has come.
    open: Option<usize>,
    /// What the last reference cited, in answer bytes: a reference right after it cites
    /// the same.
    last: (usize, usize),
}

/// Whether `value` is a chunk of a stream (`chat.completion.chunk`, choices with a
/// `delta`) rather than a whole completion.
pub(super) fn is_chunk(value: &Value) -> bool {
    value.get("object").and_then(Value::as_str) == Some("chat.completion.chunk")
        || value
            .get("choices")
            .and_then(Value::as_array)
            .is_some_and(|choices| choices.iter().any(|c| c.get("delta").is_some()))
}

/// The first choice (index 0) of `choices`: the answer; other choices are other answers.
fn first_choice(choices: &[Value]) -> Option<&Value> {
    let index = |choice: &Value| choice.get("index").and_then(Value::as_u64).unwrap_or(0);
    choices.iter().find(|choice| index(choice) == 0)
}

impl ResponseStream<'_> {
    pub(super) fn mistral_event(
        &mut self,
        event: &Value,
        out: &mut StreamOutput,
    ) -> Result<(), Error> {
        let place = format!("event {}", self.events);
        if event.get("object").and_then(Value::as_str) == Some("error") {
            let message = event.get("message").cloned().unwrap_or(Value::Null);
            return Err(problem(format!(
                "{place}: the stream reports an error: {message}"
            )));
        }
        let choices = event
            .get("choices")
            .and_then(Value::as_array)
            .ok_or_else(|| problem(format!("{place}: a chunk without choices")))?;
        // A chunk of usage alone has no choices.
        let Some(choice) = first_choice(choices) else {
            return Ok(());
        };
        if let Some(content) = choice.pointer("/delta/content") {
            self.mistral_content(content, &format!("{place}.delta.content"), out)?;
        }
        match choice.get("finish_reason") {
            None | Some(Value::Null) => {}
            Some(Value::String(reason)) if reason == "error" => {
                return Err(problem(format!(
                    "{place}: the completion ends with finish_reason \"error\""
                )));
            }
            Some(_) => self.ended = true,
        }
        Ok(())
    }

    pub(super) fn mistral_message(
        &mut self,
        response: &Value,
        out: &mut StreamOutput,
    ) -> Result<(), Error> {
        let choice = response
            .get("choices")
            .and_then(Value::as_array)
            .and_then(|choices| first_choice(choices))
            .ok_or_else(|| problem("the response has no choice 0".to_string()))?;
        let message = choice
            .get("message")
            .ok_or_else(|| problem("choices[0]: no message".to_string()))?;
        if let Some(content) = message.get("content") {
            self.mistral_content(content, "choices[0].message.content", out)?;
        }
        if choice.get("finish_reason").and_then(Value::as_str) == Some("error") {
            return Err(problem(
                "the completion ends with finish_reason \"error\"".to_string(),
            ));
        }
        Ok(())
    }

    /// Reads a message's or a delta's `content`: a string, or a list of chunks.
    fn mistral_content(
        &mut self,
        content: &Value,
        place: &str,
        out: &mut StreamOutput,
    ) -> Result<(), Error> {
        match content {
            Value::Null => {}
            Value::String(text) => self.mistral_text(text, out),
            Value::Array(chunks) => {
                for (i, chunk) in chunks.iter().enumerate() {
                    let place = format!("{place}[{i}]");
                    match chunk.get("type").and_then(Value::as_str) {
                        Some("text") => {
                            let text =
                                chunk.get("text").and_then(Value::as_str).ok_or_else(|| {
                                    problem(format!("{place}: a text chunk without text"))
                                })?;
                            self.mistral_text(text, out);
                        }
                        Some("reference") => self.mistral_reference(chunk, &place, out)?,
                        // Thinking, images, files, audio: no part of the answer.
                        _ => {}
                    }
                }
            }
            other => {
                return Err(problem(format!(
                    "{place}: expected a string or a list of chunks, found {}",
                    kind(other)
                )));
            }
        }
        Ok(())
    }

    /// Appends answer text; the next reference cites it.
    fn mistral_text(&mut self, text: &str, out: &mut StreamOutput) {
        if text.is_empty() {
            return;
        }
        self.mistral.open.get_or_insert(self.answer.len());
        self.append(text, out);
    }

    /// Cites each of a reference chunk's ids at the text before it.
    fn mistral_reference(
        &mut self,
        chunk: &Value,
        place: &str,
        out: &mut StreamOutput,
    ) -> Result<(), Error> {
        let ids = chunk
            .get("reference_ids")
            .and_then(Value::as_array)
            .ok_or_else(|| problem(format!("{place}: a reference chunk without reference_ids")))?;
        let here = self.answer.len();
        if let Some(start) = self.mistral.open.take() {
            self.mistral.last = (start, here);
        }
        let (start, end) = self.mistral.last;
        for (j, id) in ids.iter().enumerate() {
            // Id n names key "n" of the tool result. mistralai client-python types it as an
            // integer (`src/mistralai/client/models/referencechunk.py`: `reference_ids:
            // List[int]`; client-ts: `referenceIds: number[]`), as Bedrock's SDKs type
            // `documentIndex`: a string is refused in both, whatever it holds.
            let key = whole_number(id, &format!("{place}.reference_ids[{j}]"))?;
            let entry = Some(key).filter(|&k| k < self.tally.chips().len());
            match entry {
                Some(entry) => {
                    let span = self.span(start, end);
                    out.events.push(self.tally.cite(entry, span, None));
                }
                None => self.unknown(format!("reference id {id}"), here, &mut out.events),
            }
        }
        Ok(())
    }
}
