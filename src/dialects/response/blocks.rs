//! Content blocks, as Anthropic and Bedrock send them: a streamed message opens one block at
//! a time, by index, gathers the citations of its text and settles them when it stops, at
//! the whole text of the block; a whole message's text block is settled the same way. The
//! dialects differ only in how a citation names its entry (`anthropic.rs`, `bedrock.rs`).

use serde_json::Value;

use super::{ResponseStream, problem};
use crate::citations::{CitationEvent, Quote};
use crate::dialects::Dialect;
use crate::error::Error;

/// The block of a streamed message that has started and not stopped, and its index.
#[derive(Debug)]
pub(super) struct Blocks {
    open: Option<(usize, Block)>,
    /// Where each block comes once (Bedrock), the least index the next block may have.
    next: Option<usize>,
}

#[derive(Debug)]
pub(super) struct Block {
    /// Where its text starts in the answer, in bytes.
    start: usize,
    /// Whether it is text (thinking, reasoning or a tool call adds nothing to the answer).
    pub(super) text: bool,
    /// Its citations, and where each came from, settled when it stops.
    pub(super) citations: Vec<(Value, String)>,
}

/// What a citation of a block comes to.
pub(super) enum Reading {
    /// The entry it cites, with its quote as checked.
    Cites(usize, Quote),
    /// It names no entry as sent: what it names instead.
    Unknown(String),
}

impl Block {
    /// A block whose text starts at answer byte `start`, with no citations yet.
    pub(super) fn new(start: usize, text: bool) -> Block {
        Block {
            start,
            text,
            citations: Vec::new(),
        }
    }

    /// Adds `citations`, named in errors as the items of the list at `place`.
    pub(super) fn add_citations<'v>(
        &mut self,
        citations: impl IntoIterator<Item = &'v Value>,
        place: &str,
    ) {
        for (j, citation) in citations.into_iter().enumerate() {
            self.citations
                .push((citation.clone(), format!("{place}[{j}]")));
        }
    }
}

impl Blocks {
    /// The blocks of a stream of `dialect`: Bedrock's come each once.
    pub(super) fn new(dialect: Dialect) -> Blocks {
        Blocks {
            open: None,
            next: (dialect == Dialect::Bedrock).then_some(0),
        }
    }

    /// The open block's index.
    pub(super) fn open_index(&self) -> Option<usize> {
        self.open.as_ref().map(|(at, _)| *at)
    }

    /// The open block, if it is block `at`.
    pub(super) fn get_mut(&mut self, at: usize) -> Option<&mut Block> {
        match &mut self.open {
            Some((open, block)) if *open == at => Some(block),
            _ => None,
        }
    }

    /// The open block and its index.
    pub(super) fn open_mut(&mut self) -> Option<(usize, &mut Block)> {
        self.open.as_mut().map(|(at, block)| (*at, block))
    }

    /// Refuses a start of block `at` while another is open, or, where blocks come each once,
    /// after it stopped: events were lost or replayed.
    pub(super) fn check_start(&self, at: usize, place: &str) -> Result<(), Error> {
        if let Some(open) = self.open_index() {
            return Err(problem(format!(
                "{place}: content block {at} starts while block {open} is open"
            )));
        }
        if self.next.is_some_and(|next| at < next) {
            return Err(problem(format!(
                "{place}: content block {at} starts again after it stopped"
            )));
        }
        Ok(())
    }

    /// Opens `block` as block `at`, once [`check_start`](Self::check_start) allowed it.
    pub(super) fn start(&mut self, at: usize, block: Block) {
        self.open = Some((at, block));
    }

    /// Stops block `at`, which must be the one open, and hands it over to be settled.
    pub(super) fn stop(&mut self, at: usize, place: &str) -> Result<Block, Error> {
        match self.open.take() {
            Some((open, block)) if open == at => {
                if let Some(next) = &mut self.next {
                    *next = at + 1;
                }
                Ok(block)
            }
            other => {
                self.open = other;
                Err(problem(format!(
                    "{place}: content block {at} stops, but it is not open"
                )))
            }
        }
    }
}

impl ResponseStream<'_> {
    /// The message stops, and with it the stream: refused while a block is open.
    pub(super) fn stop_message(&mut self, place: &str) -> Result<(), Error> {
        if let Some(open) = self.blocks.open_index() {
            return Err(problem(format!(
                "{place}: the message stops while content block {open} is open"
            )));
        }
        self.ended = true;
        Ok(())
    }

    /// Settles the citations of `block`, whose text is complete, at that text, each as the
    /// dialect's `read` reads it.
    pub(super) fn settle_block(
        &mut self,
        block: Block,
        events: &mut Vec<CitationEvent>,
        read: fn(&mut Self, &Value, &str) -> Result<Reading, Error>,
    ) -> Result<(), Error> {
        if !block.text {
            return Ok(());
        }
        let end = self.answer.len();
        for (citation, place) in block.citations {
            match read(self, &citation, &place)? {
                Reading::Cites(entry, quote) => {
                    let span = self.span(block.start, end);
                    self.cite(entry, span, quote, events);
                }
                Reading::Unknown(what) => self.unknown(what, block.start, events),
            }
        }
        Ok(())
    }
}
