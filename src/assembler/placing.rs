//! One assembly: blocks placed in rank order while they fit.

use std::borrow::Cow;

use super::AssemblyStats;
use super::config::Config;
use super::fixed_parts::FixedParts;
use super::head::write_head;
use super::selection::{Filters, ranked};
use crate::context::{AssembledContext, Citation, Omission, OmitReason};
use crate::fingerprint::{Fingerprint, utf16_len};
use crate::meter::Meter;
use crate::options::Overflow;
use crate::rag_result::MentorRagResult;

/// Where [`Assembly::place`] wrote and measured a block that did not fit whole.
pub(super) struct Measured {
    /// Where the block starts in the text.
    pub(super) start: usize,
    /// Where its body starts.
    pub(super) body_start: usize,
    /// Tokens of its head.
    pub(super) head_tokens: usize,
    /// Bytes of content in the measured body.
    pub(super) prefix_len: usize,
    /// Where the content starts in the measured body.
    pub(super) content_offset: usize,
}

/// A block that went into the text.
pub(super) struct Placed {
    /// The tokens it takes.
    pub(super) tokens: usize,
    /// Whether its content was cut.
    pub(super) truncated: bool,
    /// Bytes of content kept, if it was cut.
    pub(super) kept_bytes: Option<usize>,
    /// Whether its head was shortened to the cap.
    pub(super) head_shortened: bool,
}

/// The state of one call to [`Assembler::assemble`](super::Assembler::assemble).
pub(super) struct Assembly<'a, 'r> {
    pub(super) config: &'a Config,
    pub(super) frame: &'a FixedParts,
    pub(super) meter: Meter<'a>,
    pub(super) text: String,
    /// Byte offsets in `text` where separately counted pieces meet: the header's end, the
    /// opening's end, each block's start and body start, the closing's start.
    pub(super) joins: Vec<usize>,
    pub(super) citations: Vec<Citation>,
    pub(super) omitted: Vec<Omission<'r>>,
    /// The measured body of a block being cut, kept while the text is rewritten.
    pub(super) scratch: String,
    /// In a follow-up turn, how many of `citations` are earlier turns' blocks (see
    /// `follow_up.rs`); 0 otherwise.
    pub(super) earlier_blocks: usize,
}

impl<'a, 'r> Assembly<'a, 'r> {
    pub(super) fn new(config: &'a Config, frame: &'a FixedParts) -> Self {
        Assembly {
            config,
            frame,
            meter: Meter::new(&*config.tokenizer, config.cache.as_ref()),
            // Room for the text at the bytes per token of sparse prose, and for the content
            // rendered past the cut before it is measured (`place`): growing the text copies it.
            text: String::with_capacity(config.budget.saturating_mul(8).min(1 << 20)),
            joins: Vec::new(),
            citations: Vec::new(),
            omitted: Vec::new(),
            scratch: String::new(),
            earlier_blocks: 0,
        }
    }

    /// Assembles `results` into a context.
    pub(super) fn run(
        mut self,
        results: &'r [MentorRagResult],
    ) -> (AssembledContext<'r>, AssemblyStats) {
        let frame = self.frame;
        self.text.push_str(&self.config.header);
        let blocks_start = self.text.len();
        self.joins.push(blocks_start);
        self.text.push_str(&frame.open);
        self.joins.push(self.text.len());
        let room = self
            .config
            .budget
            .checked_sub(frame.header_tokens.saturating_add(frame.open_close_tokens));
        let blocks_tokens = self.place_all(results, room.unwrap_or(0), room.is_some());
        let mut token_count = frame.header_tokens;
        if self.citations.is_empty() {
            self.text.truncate(blocks_start);
            self.joins.clear();
            self.joins.push(blocks_start);
        } else {
            token_count += frame.open_close_tokens + blocks_tokens;
            self.joins.push(self.text.len());
            self.text.push_str(&frame.close);
        }
        if !self.joins_exact() {
            token_count = self.recount();
        }
        let token_count = self.arrange(results, token_count);
        self.finish(token_count)
    }

    /// The context this assembly wrote, counted at `token_count`, and what it cost.
    pub(super) fn finish(self, token_count: usize) -> (AssembledContext<'r>, AssemblyStats) {
        let window = self.config.window.clone();
        let context = AssembledContext {
            text: self.text,
            token_count,
            budget: self.config.budget,
            encoding: self.config.tokenizer.name().to_string(),
            citations: self.citations,
            omitted: self.omitted,
            headroom: window.as_ref().map(|w| w.headroom(token_count)),
            window,
            seal: None,
            dialect: self.config.dialect,
            layout: Some(self.config.layout()),
        };
        let context = match &self.config.seal_key {
            Some(key) => AssembledContext {
                seal: Some(key.seal(&context, &self.config.sealed_layout())),
                ..context
            },
            None => context,
        };
        let stats = AssemblyStats {
            bytes_tokenized: self.meter.bytes_tokenized,
        };
        (context, stats)
    }

    /// Places blocks in rank order within `room` tokens (none at all unless `any_room`: the
    /// opening and closing alone would not fit); returns the tokens they take.
    pub(super) fn place_all(
        &mut self,
        results: &'r [MentorRagResult],
        mut room: usize,
        any_room: bool,
    ) -> usize {
        let config = self.config;
        // Every result not placed is reported; most are.
        self.omitted.reserve(results.len());
        let mut filters = Filters::new(config);
        let mut order = ranked(results).into_iter();
        let mut used = 0;
        if any_room {
            for i in order.by_ref() {
                let result = &results[i];
                if let Some(reason) = self.in_earlier_turn(result) {
                    self.omit(i, result, reason);
                    continue;
                }
                if let Some(reason) = filters.admit(result, self.citations.len()) {
                    self.omit(i, result, reason);
                    continue;
                }
                let index = self.citations.len() + 1;
                let truncate = config.overflow == Overflow::Truncate;
                if let Some(placed) = self.place(result, index, room, truncate) {
                    used += placed.tokens;
                    room -= placed.tokens;
                    self.cite(i, result, index, &placed);
                    filters.placed(result);
                    if placed.truncated {
                        break;
                    }
                } else {
                    self.omit(i, result, OmitReason::DidNotFit);
                    if config.overflow != Overflow::Skip || room == 0 {
                        break;
                    }
                }
            }
        }
        for i in order {
            let result = &results[i];
            let reason = filters.reason_after_full(result, self.citations.len());
            self.omit(i, result, reason);
        }
        self.fingerprint_placed(results);
        used
    }

    /// Fingerprints the content of this turn's chips (an earlier turn's keep theirs), four
    /// side by side.
    fn fingerprint_placed(&mut self, results: &[MentorRagResult]) {
        for chips in self.citations[self.earlier_blocks..].chunks_mut(4) {
            // A group of fewer than four hashes its first content in the lanes left over.
            let mut contents = [results[chips[0].input_index].content.as_str(); 4];
            for (content, chip) in contents.iter_mut().zip(chips.iter()) {
                *content = &results[chip.input_index].content;
            }
            for (chip, fingerprint) in chips.iter_mut().zip(Fingerprint::of_four(contents)) {
                chip.fingerprint = fingerprint;
            }
        }
    }

    /// Reports result `input_index` of the request as left out for `reason`.
    pub(super) fn omit(
        &mut self,
        input_index: usize,
        result: &'r MentorRagResult,
        reason: OmitReason,
    ) {
        self.omitted.push(Omission {
            title: result.display_title().map(Cow::Borrowed),
            source_url: result.source_url.as_deref().map(Cow::Borrowed),
            score: result.score,
            reason,
            input_index,
        });
    }

    fn cite(
        &mut self,
        input_index: usize,
        result: &MentorRagResult,
        index: usize,
        placed: &Placed,
    ) {
        let kept = placed.kept_bytes.map(|bytes| &result.content[..bytes]);
        self.citations.push(Citation {
            index,
            title: result.display_title().map(str::to_string),
            source_url: result.source_url.clone(),
            score: result.score,
            metadata: result.metadata.clone(),
            truncated: placed.truncated,
            token_count: placed.tokens,
            input_index,
            kept_bytes: kept.map(str::len),
            kept_utf16: kept.map(utf16_len),
            // Found for all of this turn's chips at once, when they are placed.
            fingerprint: Fingerprint::default(),
            head_shortened: placed.head_shortened,
        });
    }

    /// Writes `result` as block `index` if it fits in `room`, cutting it if `truncate` allows.
    /// On `None` the text is as before.
    fn place(
        &mut self,
        result: &MentorRagResult,
        index: usize,
        room: usize,
        truncate: bool,
    ) -> Option<Placed> {
        let start = self.text.len();
        let head_shortened = write_head(self.config, result, index, false, &mut self.text);
        let body_start = self.text.len();
        let format = &*self.config.format;
        let content = &result.content;
        // Render no more content than could fit: a huge result costs what fits, not its size.
        let max_token = self.config.tokenizer.max_token_bytes();
        let reach = room.saturating_add(1).saturating_mul(max_token);
        let mut limit = room.saturating_mul(16).max(256).min(reach);
        // Head and body are measured in one go (each call into the tokenizer has a cost of its
        // own); the head's count is noted on the way, for a cut.
        let (prefix_len, content_offset) = loop {
            let prefix = &content[..content.floor_char_boundary(limit.min(content.len()))];
            let whole = prefix.len() == content.len();
            format.content_open(prefix, &mut self.text);
            let content_offset = self.text.len() - body_start;
            format.content(prefix, &mut self.text);
            format.content_close(prefix, !whole, &mut self.text);
            let block = &self.text[start..];
            match self.meter.measure(block, room, Some(body_start - start)) {
                Some(tokens) if whole => {
                    self.record_block(start, body_start);
                    return Some(Placed {
                        tokens,
                        truncated: false,
                        kept_bytes: None,
                        head_shortened,
                    });
                }
                Some(_) if limit < reach => {
                    // All of this prefix fits: the content is unusually dense (long runs of
                    // whitespace, say). Render all that could possibly fit and measure again.
                    limit = reach;
                    self.text.truncate(body_start);
                }
                _ => break (prefix.len(), content_offset),
            }
        };
        if !truncate {
            self.text.truncate(start);
            return None;
        }
        let head_tokens = match self.meter.rebase(&self.text[start..], body_start - start) {
            Some(head_tokens) => head_tokens,
            None => {
                // The head's end was not seen (the head alone overflows, or the tokenizer
                // reports no exact splits): measure the head alone, no further than the room
                // (a head can hold megabytes of title or metadata), then the body.
                let head = &self.text[start..body_start];
                let Some(head_tokens) = self.meter.measure(head, room, None).filter(|&t| t < room)
                else {
                    self.text.truncate(start);
                    return None;
                };
                let body = &self.text[body_start..];
                if let Some(tokens) = self.meter.measure(body, room - head_tokens, None)
                    && prefix_len == content.len()
                {
                    self.record_block(start, body_start);
                    return Some(Placed {
                        tokens: head_tokens + tokens,
                        truncated: false,
                        kept_bytes: None,
                        head_shortened,
                    });
                }
                head_tokens
            }
        };
        let measured = Measured {
            start,
            body_start,
            head_tokens,
            prefix_len,
            content_offset,
        };
        let placed = self.cut(result, index, &measured, room);
        if placed.is_none() {
            self.text.truncate(start);
        }
        placed
    }

    /// Records that a block starts at `start` and its body at `body_start`: both are joins
    /// between separately counted pieces.
    pub(super) fn record_block(&mut self, start: usize, body_start: usize) {
        self.joins.push(start);
        self.joins.push(body_start);
    }
}
