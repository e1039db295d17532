//! Cutting the block that does not fit, so that it fills the room left.

use unicode_segmentation::GraphemeCursor;

use super::head::write_head;
use super::placing::{Assembly, Measured, Placed};
use crate::format::Format;
use crate::rag_result::MentorRagResult;

/// Tries at aiming a cut: each overshoot (a token merged at the seam, a cut moved back to a
/// word end) aims lower by what it overshot, so a few suffice; this bounds a pathological
/// tokenizer.
const MAX_CUT_ATTEMPTS: usize = 16;

impl Assembly<'_, '_> {
    /// Cuts the block that `place` measured so that it fits in `room`. The meter still holds
    /// what it saw of the body.
    pub(super) fn cut(
        &mut self,
        result: &MentorRagResult,
        index: usize,
        measured: &Measured,
        room: usize,
    ) -> Option<Placed> {
        let &Measured {
            start,
            head_tokens,
            body_start,
            prefix_len,
            content_offset,
        } = measured;
        let format = &*self.config.format;
        let content = &result.content;
        let frame = self.frame;
        let min = self.config.min_truncated_tokens.max(1);
        // Checked, not saturating: a sum past usize::MAX is more than any room, and a
        // saturated one would equal a room of usize::MAX.
        let needed = head_tokens
            .checked_add(frame.cut_open_tokens)?
            .checked_add(frame.cut_close_tokens)?
            .checked_add(min)?;
        if room < needed {
            return None;
        }
        // Keep the measured body: the meter's checkpoints refer to it.
        self.scratch.clear();
        self.scratch.push_str(&self.text[body_start..]);
        // The head of a cut block may differ (a truncation mark); count it only if it does.
        let mut head = String::new();
        let head_shortened = write_head(self.config, result, index, true, &mut head);
        let head_tokens = if head == self.text[start..body_start] {
            head_tokens
        } else {
            self.meter.measure_apart(&head, room)?
        };
        self.text.truncate(start);
        self.text.push_str(&head);
        let body_start = self.text.len();
        // Aim for the content that ends where the body's tokens, plus the closing, fill the
        // room. Joining the kept text to the closing can merge or split a token at the seam,
        // and the cut moves back to a word end; the exact count decides, and an overshoot
        // aims that many tokens lower.
        let mut target = room
            .checked_sub(head_tokens)?
            .saturating_sub(frame.cut_close_tokens);
        // The meter's offsets are into the content as the format wrote it, which can be
        // longer than the content (XML writes `<` of its own tags as `&lt;`).
        let mut written = ContentLength::new(format, &content[..prefix_len]);
        for _ in 0..MAX_CUT_ATTEMPTS {
            let keep = self
                .meter
                .token_end(&self.scratch, target)
                .saturating_sub(content_offset);
            // A cut keeps less than the whole content: when the block as a whole was judged
            // not to fit (a stretch without split points too long to measure, say), a recount
            // that finds room for all of it must still not label the whole content cut.
            let keep = written
                .raw_prefix(content, keep)
                .min(prefix_len)
                .min(content.len().saturating_sub(1));
            let end = cut_point(content, keep);
            if end == 0 {
                return None;
            }
            let kept = &content[..end];
            self.text.truncate(body_start);
            format.content_open(kept, &mut self.text);
            format.content(kept, &mut self.text);
            format.content_close(kept, true, &mut self.text);
            let body = &self.text[body_start..];
            let body_tokens = self.meter.count_reusing(&self.scratch, body)?;
            let tokens = head_tokens.saturating_add(body_tokens);
            if tokens <= room {
                self.record_block(start, body_start);
                return Some(Placed {
                    tokens,
                    truncated: true,
                    kept_bytes: Some(end),
                    head_shortened,
                });
            }
            target = target.checked_sub(tokens - room)?;
        }
        None
    }
}

/// The length of content as a format writes it, to turn offsets into the written content
/// back into offsets into the content.
struct ContentLength<'f> {
    format: &'f dyn Format,
    /// Whether the format writes the measured content byte for byte (the common case, and
    /// then offsets need no turning back).
    verbatim: bool,
    scratch: String,
}

impl<'f> ContentLength<'f> {
    fn new(format: &'f dyn Format, measured: &str) -> Self {
        let mut scratch = String::new();
        format.content(measured, &mut scratch);
        ContentLength {
            format,
            verbatim: scratch == measured,
            scratch,
        }
    }

    /// The longest prefix of `content`, on a character boundary, whose written form takes at
    /// most `written` bytes. Formats only ever lengthen content, so the written length grows
    /// with the prefix and a binary search finds it.
    fn raw_prefix(&mut self, content: &str, written: usize) -> usize {
        let written = written.min(content.len().saturating_mul(8));
        if self.verbatim {
            return written.min(content.len());
        }
        let (mut fits, mut over) = (0, content.len().min(written) + 1);
        while over - fits > 1 {
            let mut mid = content.floor_char_boundary(fits + (over - fits) / 2);
            if mid <= fits {
                // A character spans the middle: try its end instead.
                mid = content.ceil_char_boundary(fits + 1);
                if mid >= over {
                    break;
                }
            }
            self.scratch.clear();
            self.format.content(&content[..mid], &mut self.scratch);
            if self.scratch.len() <= written {
                fits = mid;
            } else {
                over = mid;
            }
        }
        fits
    }
}

/// Where to cut `content` so that at most `max` bytes of it are kept: a grapheme boundary,
/// moved back to the end of a sentence or word when one is within the last tenth of what is
/// kept (and 256 bytes), with trailing whitespace dropped.
fn cut_point(content: &str, max: usize) -> usize {
    let max = content.floor_char_boundary(max.min(content.len()));
    let grapheme = if is_grapheme_boundary(content, max) {
        max
    } else {
        GraphemeCursor::new(max, content.len(), true)
            .prev_boundary(content, 0)
            .ok()
            .flatten()
            .unwrap_or(0)
    };
    // "Close" is the last tenth of what is kept, and at most 256 bytes: stepping back further
    // would give up room the cut was promised for a tidier end. A short cut keeps nearly all
    // its room and ends at a grapheme.
    let window_start = grapheme - (grapheme / 10).min(256);
    let mut chars = content[..grapheme].char_indices().rev().peekable();
    let mut sentence_end = None;
    let mut word_end = None;
    while let Some((i, c)) = chars.next() {
        let Some(&(_, before)) = chars.peek() else {
            break;
        };
        if i < window_start {
            break;
        }
        if c.is_whitespace() && !before.is_whitespace() {
            word_end.get_or_insert(i);
            if matches!(before, '.' | '!' | '?' | '。' | '！' | '？' | '…') {
                sentence_end = Some(i);
                break;
            }
        }
    }
    // Whitespace nearly always starts a grapheme, but not after a prepended mark such as
    // U+0600, so every candidate is checked. Trailing whitespace is dropped only within the
    // window too (or one character of it): a run of it longer than the window (control
    // characters and line breaks) is content the room was promised for, and dropping all of
    // it kept a few tokens of 30.
    [sentence_end, word_end, Some(grapheme)]
        .into_iter()
        .flatten()
        .map(|end| {
            let kept = &content[..end];
            let trimmed = kept.trim_end().len();
            // One whitespace character may always go, so a short cut ends at its word.
            let last = kept.char_indices().next_back().map_or(end, |(i, _)| i);
            if trimmed >= window_start.min(last) {
                trimmed
            } else {
                end
            }
        })
        .find(|&end| is_grapheme_boundary(content, end))
        .unwrap_or(grapheme)
}

fn is_grapheme_boundary(text: &str, at: usize) -> bool {
    text.is_char_boundary(at)
        && GraphemeCursor::new(at, text.len(), true)
            .is_boundary(text, 0)
            .unwrap_or(false)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A text whose one word end is at byte `at`: a space there, then `rest` bytes of a word.
    fn word_end_at(at: usize, rest: usize) -> String {
        format!("{} {}", "x".repeat(at), "z".repeat(rest))
    }

    #[test]
    fn cut_prefers_sentence_then_word_end() {
        // Kept 250 bytes, so the last 25 are close: a sentence end and a word end are both.
        let content = format!("{}. {} {}", "a".repeat(230), "b".repeat(8), "c".repeat(100));
        assert_eq!(cut_point(&content, 250), 231);
        // No sentence end close: the last word end.
        let content = format!("{} {}", "word ".repeat(46), "x".repeat(80));
        assert_eq!(cut_point(&content, 250), 229);
        // A short cut keeps its room: a tenth of 9 bytes is none, so it ends at a grapheme.
        let text = "One two three. Four five six seven";
        assert_eq!(&text[..cut_point(text, 8)], "One two");
        assert_eq!(&text[..cut_point(text, 9)], "One two t");
        // No whitespace: a grapheme boundary, never inside the cluster.
        let family = "👨‍👩‍👧‍👦👨‍👩‍👧‍👦";
        let cut = cut_point(family, 30);
        assert_eq!(cut, family.len() / 2);
    }

    #[test]
    fn cut_looks_back_a_tenth_of_what_is_kept_for_a_word_end() {
        // Kept 1,000 bytes: a word end 80 bytes back is close (within a tenth).
        let content = format!("{}{} {}", "x".repeat(900), "y".repeat(19), "z".repeat(200));
        assert_eq!(cut_point(&content, 1000), 919);
        // 120 bytes back is not.
        assert_eq!(cut_point(&word_end_at(879, 200), 1000), 1000);
        // Nor, past 2,560 bytes kept, more than 256 bytes back.
        assert_eq!(cut_point(&word_end_at(4743, 300), 5000), 5000);
        assert_eq!(cut_point(&word_end_at(4744, 300), 5000), 4744);
    }

    #[test]
    fn a_word_end_at_the_edge_of_the_window_counts() {
        // Kept 100 bytes: the window is the last 10, from byte 90.
        assert_eq!(cut_point(&word_end_at(90, 100), 100), 90);
        assert_eq!(cut_point(&word_end_at(89, 100), 100), 100);
    }

    #[test]
    fn a_cut_gives_up_at_most_a_tenth_of_what_it_could_keep() {
        // Words of every length up to 20, so that some word end is always near.
        let content: String = (1..400).map(|i| "w".repeat(i % 20 + 1) + " ").collect();
        for max in 0..2000 {
            let max = content.floor_char_boundary(max);
            let cut = cut_point(&content, max);
            assert!(
                cut <= max && max - cut <= (max / 10).max(1),
                "kept {cut} of {max}"
            );
        }
    }

    #[test]
    fn cut_never_splits_combining_marks() {
        let text = "e\u{301}e\u{301}e\u{301}";
        for max in 0..=text.len() {
            let cut = cut_point(text, max);
            assert!(cut.is_multiple_of(3), "cut {cut} for {max}");
        }
    }
}
