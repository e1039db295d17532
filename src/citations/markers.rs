//! Finding citation markers in an answer, character by character, so that the same scanner
//! serves a whole answer and an answer arriving in chunks.
//!
//! A marker is `[` (or the full-width `［`), one or more items separated by commas, and the
//! matching `]` (`］`); an item is a number or a range `n-m` (hyphen or en dash). Spaces may
//! stand around items and dashes. Not markers: anything in inline code or a fenced code block,
//! a bracket glued to an identifier (`array[2]`, `x[1]`: after an ASCII letter, digit or `_`,
//! or after a backslash, which escapes it in Markdown), link text (`[1](url)`), and
//! a bracket after the `]` of a non-marker (`m[1][2]`, a reference link `[text][1]`).

use std::ops::{Range, RangeInclusive};

/// The longest marker read, in bytes: `[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]` is
/// 50. A streaming reader holds back at most this much.
pub const MAX_MARKER_BYTES: usize = 64;

/// The widest range read: `[1-1000]` cites up to a thousand chips, `[1-1001]` is an unknown
/// marker. Bounds the work a marker can cause, whatever its numbers.
pub const MAX_MARKER_RANGE: usize = 1000;

/// The most numbers the ranges of one answer cite in all: `[1-1000]` ten times. A range past
/// it is an unknown marker, as a reversed or too wide one is. A single number does not count
/// against it: each costs the answer bytes of its own, where an eight-byte range names a
/// thousand. So an answer's spans, events and renumbering cost its length plus this, however
/// many ranges it holds, in the library and in the bindings alike.
pub const MAX_RANGE_NUMBERS: usize = 10 * MAX_MARKER_RANGE;

/// What is left of an answer's [`MAX_RANGE_NUMBERS`].
#[derive(Debug)]
pub(crate) struct RangeBudget {
    left: usize,
}

impl Default for RangeBudget {
    fn default() -> RangeBudget {
        RangeBudget {
            left: MAX_RANGE_NUMBERS,
        }
    }
}

impl RangeBudget {
    /// The numbers `item` cites, taken from the budget if it is a range; `None` for a range
    /// that is reversed, wider than [`MAX_MARKER_RANGE`], or past what is left.
    pub(crate) fn numbers(&mut self, item: &Item) -> Option<RangeInclusive<usize>> {
        let Some(last) = item.last else {
            return Some(item.first..=item.first);
        };
        let width = last.checked_sub(item.first)? + 1;
        if width > MAX_MARKER_RANGE || width > self.left {
            return None;
        }
        self.left -= width;
        Some(item.first..=last)
    }
}

/// The most digits in a marker number: `[1234567890]` is not a citation.
const MAX_DIGITS: usize = 9;

/// One item of a marker: a number or a range, with where it is in the marker's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Item {
    /// The first number.
    pub(crate) first: usize,
    /// The last number of a range; `None` for a single number.
    pub(crate) last: Option<usize>,
    /// Bytes of the marker's text taken by the first number.
    pub(crate) first_at: Range<usize>,
    /// Bytes taken by the last number of a range.
    pub(crate) last_at: Option<Range<usize>>,
}

/// A marker found in an answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Marker {
    /// Its text, brackets included.
    pub(crate) text: String,
    /// Where it starts in the answer, in bytes.
    pub(crate) at: usize,
    /// Its items, in order.
    pub(crate) items: Vec<Item>,
}

/// What the scanner hands on: text to pass through, or a marker.
pub(crate) trait Sink {
    /// Text that is not (part of) a marker.
    fn text(&mut self, text: &str);
    /// A marker.
    fn marker(&mut self, marker: Marker);
}

/// Whether a line-start run of backticks or tildes is still being counted, and what it is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Run {
    ch: char,
    len: usize,
}

/// Reads an answer chunk by chunk; holds back only a marker that may still be one.
#[derive(Debug, Default)]
pub(crate) struct Scanner {
    /// Bytes consumed so far.
    pos: usize,
    /// A marker candidate, held back; empty when none.
    pending: String,
    /// Where the candidate starts in the answer.
    pending_at: usize,
    /// The candidate is complete; the next character decides (a `(` makes it link text).
    pending_closed: bool,
    /// The closing bracket the candidate needs.
    closing: char,
    /// The last character consumed.
    prev: Option<char>,
    /// The last character consumed ended a marker (so `[1][2]` is two markers).
    after_marker: bool,
    /// Inside a fenced code block opened by this run.
    fence: Option<Run>,
    /// Only spaces (at most three) so far on this line.
    line_start: bool,
    indent: usize,
    /// A run of backticks or tildes at the start of a line, being counted.
    line_run: Option<Run>,
    /// In a fence, this line has a run that closes it if only spaces follow.
    closing_fence: bool,
    /// Only whitespace so far on this line.
    line_blank: bool,
    /// Inside inline code opened by a run of this many backticks.
    code_span: Option<usize>,
    /// Backticks in the run being counted outside a fence.
    ticks: usize,
}

impl Scanner {
    pub(crate) fn new() -> Scanner {
        Scanner {
            line_start: true,
            line_blank: true,
            ..Scanner::default()
        }
    }

    /// Bytes held back: a marker candidate not yet decided.
    pub(crate) fn held_back(&self) -> usize {
        self.pending.len()
    }

    /// Reads `chunk`, passing text and markers to `sink` as soon as they are decided.
    pub(crate) fn feed(&mut self, chunk: &str, sink: &mut impl Sink) {
        // Plain text is passed on in slices of the chunk, from `from`.
        let mut from = 0;
        for (i, c) in chunk.char_indices() {
            if !self.pending.is_empty() {
                if self.extend_pending(c) {
                    continue;
                }
                self.settle_pending(c, sink);
                from = i;
            }
            if self.consume(c) {
                sink.text(&chunk[from..i]);
                self.pending.push(c);
                self.pending_at = self.pos;
                self.closing = if c == '[' { ']' } else { '］' };
            }
            self.pos += c.len_utf8();
            if !self.pending.is_empty() {
                from = i + c.len_utf8();
            }
        }
        if self.pending.is_empty() {
            sink.text(&chunk[from..]);
        }
    }

    /// The end of the answer: a complete candidate is a marker, an incomplete one text.
    pub(crate) fn finish(&mut self, sink: &mut impl Sink) {
        if self.pending_closed {
            self.emit_marker(sink);
        } else {
            sink.text(&self.pending);
            self.pending.clear();
        }
    }

    /// Adds `c` to the candidate if it can continue it; `false` if the candidate must be
    /// decided first.
    fn extend_pending(&mut self, c: char) -> bool {
        if self.pending_closed || self.pending.len() + c.len_utf8() > MAX_MARKER_BYTES {
            return false;
        }
        if c == self.closing {
            self.pending_closed = true;
        } else if !matches!(c, '0'..='9' | ' ' | ',' | '-' | '–') {
            return false;
        }
        self.pending.push(c);
        self.pos += c.len_utf8();
        self.prev = Some(c);
        true
    }

    /// Decides the candidate before `c`: a marker if it is complete, parses, and `c` does not
    /// make it link text; otherwise text.
    fn settle_pending(&mut self, c: char, sink: &mut impl Sink) {
        if self.pending_closed && c != '(' {
            self.emit_marker(sink);
        } else {
            sink.text(&self.pending);
            self.pending.clear();
            self.pending_closed = false;
        }
    }

    fn emit_marker(&mut self, sink: &mut impl Sink) {
        let text = std::mem::take(&mut self.pending);
        self.pending_closed = false;
        match parse_items(&text) {
            Some(items) => {
                self.after_marker = true;
                sink.marker(Marker {
                    text,
                    at: self.pending_at,
                    items,
                });
            }
            None => sink.text(&text),
        }
    }

    /// Updates the state for `c`, outside any candidate; `true` if `c` starts a candidate.
    fn consume(&mut self, c: char) -> bool {
        let after_marker = std::mem::take(&mut self.after_marker);
        let prev = self.prev.replace(c);
        if c == '\n' {
            self.end_line_run();
            self.end_ticks();
            if self.closing_fence {
                self.fence = None;
            }
            if self.line_blank {
                // A blank line ends the paragraph, and any code span left open in it.
                self.code_span = None;
            }
            self.line_start = true;
            self.indent = 0;
            self.line_blank = true;
            self.closing_fence = false;
            return false;
        }
        if !c.is_whitespace() {
            self.line_blank = false;
        }
        if self.line_start {
            match (c, self.line_run) {
                (' ', None) if self.indent < 3 => {
                    self.indent += 1;
                    return false;
                }
                ('`' | '~', None) => {
                    self.line_run = Some(Run { ch: c, len: 1 });
                    return false;
                }
                (_, Some(run)) if run.ch == c => {
                    self.line_run = Some(Run {
                        ch: c,
                        len: run.len + 1,
                    });
                    return false;
                }
                _ => {
                    self.line_start = false;
                    self.end_line_run();
                }
            }
        }
        if self.fence.is_some() {
            if self.closing_fence && !c.is_whitespace() {
                self.closing_fence = false;
            }
            return false;
        }
        if c == '`' {
            self.ticks += 1;
            return false;
        }
        self.end_ticks();
        if self.code_span.is_some() || !matches!(c, '[' | '［') {
            return false;
        }
        let glued = match prev {
            Some(p) if p.is_ascii_alphanumeric() || p == '_' || p == '\\' => true,
            Some(']' | '］') => !after_marker,
            _ => false,
        };
        !glued
    }

    /// A run of backticks or tildes at the start of a line ends: it opens or closes a fence,
    /// or (fewer than three backticks) is an inline code run.
    fn end_line_run(&mut self) {
        let Some(run) = self.line_run.take() else {
            return;
        };
        self.line_start = false;
        match self.fence {
            Some(open) if run.ch == open.ch && run.len >= open.len => self.closing_fence = true,
            Some(_) => {}
            None if run.len >= 3 => {
                self.fence = Some(run);
                self.code_span = None;
                self.ticks = 0;
            }
            None if run.ch == '`' => {
                self.ticks = run.len;
                self.end_ticks();
            }
            None => {}
        }
    }

    /// A run of backticks outside a fence ends: it opens inline code, or closes the span it
    /// matches in length.
    fn end_ticks(&mut self) {
        let ticks = std::mem::take(&mut self.ticks);
        if ticks == 0 {
            return;
        }
        match self.code_span {
            None => self.code_span = Some(ticks),
            Some(open) if open == ticks => self.code_span = None,
            Some(_) => {}
        }
    }
}

/// The items of a complete candidate (brackets included), or `None` if it is no marker.
pub(crate) fn parse_items(text: &str) -> Option<Vec<Item>> {
    let open = text.chars().next()?.len_utf8();
    let close = text.chars().next_back()?.len_utf8();
    let inner = text.get(open..text.len().checked_sub(close)?)?;
    let mut items = Vec::new();
    let mut offset = open;
    for part in inner.split(',') {
        items.push(parse_item(part, offset)?);
        offset += part.len() + 1;
    }
    Some(items)
}

/// One comma-separated part, at byte `offset` of the marker's text.
fn parse_item(part: &str, offset: usize) -> Option<Item> {
    let (first, first_at, rest) = number(part, 0)?;
    let rest_trimmed = rest.trim_start_matches(' ');
    if rest_trimmed.is_empty() {
        return Some(Item {
            first,
            last: None,
            first_at: offset + first_at.start..offset + first_at.end,
            last_at: None,
        });
    }
    let after_dash = rest_trimmed
        .strip_prefix('-')
        .or_else(|| rest_trimmed.strip_prefix('–'))?;
    let dash_end = part.len() - after_dash.len();
    let (last, last_at, tail) = number(after_dash, dash_end)?;
    if !tail.trim_start_matches(' ').is_empty() {
        return None;
    }
    Some(Item {
        first,
        last: Some(last),
        first_at: offset + first_at.start..offset + first_at.end,
        last_at: Some(offset + last_at.start..offset + last_at.end),
    })
}

/// A number after optional spaces at the start of `text` (which is at `base` of its part):
/// its value, its bytes within the part, and what follows it.
fn number(text: &str, base: usize) -> Option<(usize, Range<usize>, &str)> {
    let start = text.len() - text.trim_start_matches(' ').len();
    let digits = text[start..].bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 || digits > MAX_DIGITS {
        return None;
    }
    let end = start + digits;
    let value = text[start..end].parse().ok()?;
    Some((value, base + start..base + end, &text[end..]))
}
