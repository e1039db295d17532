//! Where each piece of an assembled text is, and what it costs alone: the header, the
//! opening, each block's head and body, the closing (feature `unstable_machinery`, for the
//! command's `inspect` page).
//!
//! The text is read back the way a follow-up turn checks a previous report: each head is
//! written again from its citation, each body read back with the format's
//! [`read_body`](crate::format::Format::read_body) and written again. So the pieces are the
//! ones this assembler wrote, found without parsing any format by hand.

use std::ops::Range;

use super::follow_up::head_of;
use super::head::write_head;
use super::head_cap;
use super::{Assembler, Inner};
use crate::context::AssembledContext;
use crate::format::BlockHead;
use crate::meter::Meter;

/// A stretch of the text, and its tokens counted alone.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(not(feature = "unstable_machinery"), allow(unreachable_pub))]
pub struct Part {
    /// Its bytes in the text.
    pub range: Range<usize>,
    /// Its tokens, counted alone by the assembler's tokenizer.
    pub tokens: usize,
}

/// The pieces of one block.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(not(feature = "unstable_machinery"), allow(unreachable_pub))]
pub struct BlockParts {
    /// The head: marker, title, metadata lines.
    pub head: Part,
    /// The tokens the metadata adds to the head: the head's tokens less those of the same
    /// head written without metadata.
    pub metadata_tokens: usize,
    /// The body: the content with its frame (fence or tags, and a cut's mark).
    pub body: Part,
    /// The content as written inside the body.
    pub content: Part,
}

/// Every piece of an assembled text, in text order; they cover it end to end.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
#[cfg_attr(not(feature = "unstable_machinery"), allow(unreachable_pub))]
pub struct TextParts {
    /// The header, with its newline (empty without one).
    pub header: Part,
    /// What the format writes before the first block (empty without blocks).
    pub open: Part,
    /// The blocks, as the citations list them.
    pub blocks: Vec<BlockParts>,
    /// What the format writes after the last block (empty without blocks).
    pub close: Part,
}

impl Assembler {
    /// The pieces of `context`'s text, which this assembler made (or continued); `None` when
    /// the text is not exactly what it writes for the citations, or a piece cannot be counted
    /// safely (a stretch over the tokenizer's call limit with no exact split point).
    pub(crate) fn text_parts(&self, context: &AssembledContext<'_>) -> Option<TextParts> {
        let Inner { config, frame } = &*self.inner;
        let text = context.text.as_str();
        let mut meter = Meter::new(&*config.tokenizer, None);
        let part = |meter: &mut Meter<'_>, range: Range<usize>| -> Option<Part> {
            let tokens = meter.count(&text[range.clone()])?;
            Some(Part { range, tokens })
        };
        let header_end = config.header.len();
        if !text.starts_with(&config.header) {
            return None;
        }
        let header = part(&mut meter, 0..header_end)?;
        if context.citations.is_empty() {
            let end = text.len();
            return (end == header_end).then(|| TextParts {
                header,
                open: Part {
                    range: end..end,
                    tokens: 0,
                },
                blocks: Vec::new(),
                close: Part {
                    range: end..end,
                    tokens: 0,
                },
            });
        }
        let open_end = header_end + frame.open.len();
        if text.get(header_end..open_end)? != frame.open {
            return None;
        }
        let open = part(&mut meter, header_end..open_end)?;
        let format = &*config.format;
        let mut at = open_end;
        let mut blocks = Vec::with_capacity(context.citations.len());
        let mut written = String::new();
        for citation in &context.citations {
            let (n, truncated) = (citation.index, citation.truncated);
            let result = head_of(citation);
            written.clear();
            write_head(config, &result, n, truncated, &mut written);
            if !text[at..].starts_with(&written) {
                return None;
            }
            let head = part(&mut meter, at..at + written.len())?;
            // The same head without its metadata lines, shortened as the written one was.
            let shortened = head_cap::shorten(config, &result, n, truncated);
            let title = match &shortened {
                Some(shortened) => shortened.title(),
                None => result.display_title(),
            };
            written.clear();
            format.head(
                &BlockHead::new(n, title, truncated, None, &[]),
                &mut written,
            );
            let bare = meter.count(&written)?;
            at = head.range.end;
            let (content, len) = format.read_body(&text[at..], truncated)?;
            let body_text = &text[at..at + len];
            // The written form need not say whether the content ended with a newline.
            let with_newline = format!("{content}\n");
            let (opening, inside) = [&*content, &with_newline].into_iter().find_map(|c| {
                let mut open = String::new();
                format.content_open(c, &mut open);
                written.clear();
                written.push_str(&open);
                format.content(c, &mut written);
                let inside = written.len() - open.len();
                format.content_close(c, truncated, &mut written);
                (written == body_text).then_some((open.len(), inside))
            })?;
            let body = part(&mut meter, at..at + len)?;
            let content = part(&mut meter, at + opening..at + opening + inside)?;
            blocks.push(BlockParts {
                metadata_tokens: head.tokens.saturating_sub(bare),
                head,
                body,
                content,
            });
            at += len;
        }
        if text.get(at..)? != frame.close {
            return None;
        }
        let close = part(&mut meter, at..text.len())?;
        Some(TextParts {
            header,
            open,
            blocks,
            close,
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::format::BuiltinFormat;
    use crate::{ContextBuilder, MentorRagResult, Overflow};

    #[test]
    fn the_parts_cover_the_text_and_add_up_to_its_count() {
        let results = [
            MentorRagResult::from_content("Plan B costs 12 EUR a month.", 0.9)
                .with_title("Prices")
                .with_metadata([("valid from", "2026-01-01"), ("currency", "EUR")]),
            MentorRagResult::from_content("Plan A is free.\n", 0.8),
            MentorRagResult::from_content("x ".repeat(400), 0.7).with_title("Long"),
        ];
        for format in [BuiltinFormat::Plain, BuiltinFormat::Xml] {
            for budget in [0, 60, 90, 4000] {
                let assembler = ContextBuilder::new(budget)
                    .format(format)
                    .header("Cite as [n].")
                    .overflow(Overflow::Truncate)
                    .build();
                let Ok(assembler) = assembler else { continue };
                let context = assembler.assemble(&results);
                let parts = assembler.text_parts(&context).expect("its own text");
                let mut at = parts.header.range.end;
                assert_eq!(parts.header.range.start, 0);
                assert_eq!(parts.open.range.start, at);
                at = parts.open.range.end;
                let mut sum = parts.header.tokens + parts.open.tokens + parts.close.tokens;
                for (block, citation) in parts.blocks.iter().zip(&context.citations) {
                    assert_eq!(block.head.range.start, at);
                    assert_eq!(block.body.range.start, block.head.range.end);
                    assert!(block.content.range.start >= block.body.range.start);
                    assert!(block.content.range.end <= block.body.range.end);
                    assert_eq!(block.head.tokens + block.body.tokens, citation.token_count);
                    sum += block.head.tokens + block.body.tokens;
                    at = block.body.range.end;
                }
                assert_eq!(parts.blocks.len(), context.citations.len());
                assert_eq!(parts.close.range, at..context.text.len());
                assert_eq!(sum, context.token_count, "{format} at {budget}");
                if let Some(first) = parts.blocks.first() {
                    // Two metadata lines cost something; the content is the input's.
                    assert!(first.metadata_tokens > 0);
                    assert_eq!(
                        &context.text[first.content.range.clone()],
                        "Plan B costs 12 EUR a month."
                    );
                }
            }
        }
    }

    #[test]
    fn a_text_that_is_not_the_assemblers_has_no_parts() {
        let assembler = ContextBuilder::new(100).build().unwrap();
        let results = [MentorRagResult::from_content("Plan B.", 0.9).with_title("T")];
        let mut context = assembler.assemble(&results);
        context.text.insert(0, 'x');
        assert!(assembler.text_parts(&context).is_none());
    }
}
