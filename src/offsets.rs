//! Offsets in a text counted three ways: bytes (Rust), characters (Cohere, Python) and UTF-16
//! code units (JavaScript, .NET).
//!
//! A response's citations each name a place in the answer, and an answer can be megabytes
//! with thousands of citations: counting from the start for each would cost their product.
//! [`IndexedText`] keeps, every [`MARK_EVERY`] bytes, how many characters and units came
//! before, so that each offset is counted from the nearest mark.

use crate::fingerprint::utf16_len;

/// How far apart, in bytes, the answer's marks are at least.
const MARK_EVERY: usize = 1024;

/// A text that grows at its end, with marks to find offsets in it (feature
/// `unstable_machinery`, for the bindings).
#[derive(Debug, Default)]
#[cfg_attr(not(feature = "unstable_machinery"), allow(unreachable_pub, dead_code))]
pub struct IndexedText {
    text: String,
    /// Its length in characters (Unicode scalar values), as Cohere's offsets count.
    chars: usize,
    /// Its length in UTF-16 code units.
    utf16: usize,
    /// Character boundaries at least [`MARK_EVERY`] bytes apart, in order, after the one at 0.
    marks: Vec<Mark>,
}

/// A character boundary of the answer, counted three ways.
#[derive(Debug, Clone, Copy, Default)]
struct Mark {
    byte: usize,
    chars: usize,
    utf16: usize,
}

#[cfg_attr(not(feature = "unstable_machinery"), allow(unreachable_pub, dead_code))]
impl IndexedText {
    /// Appends `text`.
    pub fn push(&mut self, text: &str) {
        let mut last = self.marks.last().map_or(0, |mark| mark.byte);
        for (at, c) in text.char_indices() {
            let byte = self.text.len() + at;
            if byte - last >= MARK_EVERY {
                self.marks.push(Mark {
                    byte,
                    chars: self.chars,
                    utf16: self.utf16,
                });
                last = byte;
            }
            self.chars += 1;
            self.utf16 += c.len_utf16();
        }
        self.text.push_str(text);
    }

    /// The text.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The text, given up.
    #[must_use]
    pub fn into_string(self) -> String {
        self.text
    }

    /// Its length in bytes.
    #[must_use]
    pub fn len(&self) -> usize {
        self.text.len()
    }

    /// Whether it is empty.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Its length in characters.
    #[must_use]
    pub fn chars(&self) -> usize {
        self.chars
    }

    /// The last mark at or before the one `key` places at `target`.
    fn mark_before(&self, target: usize, key: impl Fn(&Mark) -> usize) -> Mark {
        let after = self.marks.partition_point(|mark| key(mark) <= target);
        after
            .checked_sub(1)
            .map_or_else(Mark::default, |i| self.marks[i])
    }

    /// The UTF-16 offset of byte `byte` (of the character boundary at or before it; of the
    /// end past the end).
    #[must_use]
    pub fn utf16_at(&self, byte: usize) -> usize {
        let byte = self.text.floor_char_boundary(byte);
        if byte == self.text.len() {
            return self.utf16;
        }
        let mark = self.mark_before(byte, |mark| mark.byte);
        mark.utf16 + utf16_len(&self.text[mark.byte..byte])
    }

    /// The character offset of byte `byte` (as [`utf16_at`](Self::utf16_at) reads it): a
    /// Python string index.
    #[must_use]
    pub fn chars_at(&self, byte: usize) -> usize {
        let byte = self.text.floor_char_boundary(byte);
        if byte == self.text.len() {
            return self.chars;
        }
        let mark = self.mark_before(byte, |mark| mark.byte);
        mark.chars + self.text[mark.byte..byte].chars().count()
    }

    /// The byte offset of character `n`, or `None` past the end.
    #[must_use]
    pub fn byte_of_char(&self, n: usize) -> Option<usize> {
        if n >= self.chars {
            return (n == self.chars).then_some(self.text.len());
        }
        let mark = self.mark_before(n, |mark| mark.chars);
        char_to_byte(&self.text[mark.byte..], n - mark.chars).map(|at| mark.byte + at)
    }

    /// The byte offset of UTF-16 unit `n`, or `None` past the end or inside a surrogate
    /// pair.
    #[must_use]
    pub fn byte_of_utf16(&self, n: usize) -> Option<usize> {
        if n >= self.utf16 {
            return (n == self.utf16).then_some(self.text.len());
        }
        let mark = self.mark_before(n, |mark| mark.utf16);
        utf16_to_byte(&self.text[mark.byte..], n - mark.utf16).map(|at| mark.byte + at)
    }
}

/// The byte offset of the `n`th character (Unicode scalar value) of `text`, or `None` past
/// its end.
pub(crate) fn char_to_byte(text: &str, n: usize) -> Option<usize> {
    if n == 0 {
        return Some(0);
    }
    text.char_indices()
        .nth(n - 1)
        .map(|(at, c)| at + c.len_utf8())
}

/// The byte offset of UTF-16 code unit `n` of `text`, or `None` past its end or inside a
/// surrogate pair.
fn utf16_to_byte(text: &str, n: usize) -> Option<usize> {
    let mut units = 0;
    for (at, c) in text.char_indices() {
        if units == n {
            return Some(at);
        }
        units += c.len_utf16();
        if units > n {
            return None;
        }
    }
    (units == n).then_some(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_count_characters_or_utf16_units() {
        let text = "é😀x";
        assert_eq!(char_to_byte(text, 0), Some(0));
        assert_eq!(char_to_byte(text, 1), Some(2));
        assert_eq!(char_to_byte(text, 2), Some(6));
        assert_eq!(char_to_byte(text, 3), Some(7));
        assert_eq!(char_to_byte(text, 4), None);
        assert_eq!(utf16_to_byte(text, 1), Some(2));
        assert_eq!(utf16_to_byte(text, 2), None);
        assert_eq!(utf16_to_byte(text, 3), Some(6));
        assert_eq!(utf16_to_byte(text, 4), Some(7));
        assert_eq!(utf16_to_byte(text, 5), None);
    }

    /// The marks change no answer: every offset of a text of many marks, pushed in pieces of
    /// every size, is the one counted from the start.
    #[test]
    fn marked_offsets_are_the_offsets_counted_from_the_start() {
        let text = "Plan B é costs 12 😀 EUR, 年 plans.\n".repeat(200);
        for piece in [1, 7, 100, 5000] {
            let mut answer = IndexedText::default();
            let mut rest = text.as_str();
            while !rest.is_empty() {
                let mut cut = piece.min(rest.len());
                while !rest.is_char_boundary(cut) {
                    cut += 1;
                }
                answer.push(&rest[..cut]);
                rest = &rest[cut..];
            }
            assert!(answer.marks.len() > 5, "{piece}");
            assert_eq!(answer.as_str(), text);
            assert_eq!(answer.chars(), text.chars().count());
            for n in 0..=text.chars().count() + 1 {
                assert_eq!(answer.byte_of_char(n), char_to_byte(&text, n), "char {n}");
            }
            for n in 0..=utf16_len(&text) + 1 {
                assert_eq!(answer.byte_of_utf16(n), utf16_to_byte(&text, n), "unit {n}");
            }
            for (byte, _) in text.char_indices().chain([(text.len(), ' ')]) {
                assert_eq!(
                    answer.utf16_at(byte),
                    utf16_len(&text[..byte]),
                    "byte {byte}"
                );
                assert_eq!(
                    answer.chars_at(byte),
                    text[..byte].chars().count(),
                    "byte {byte}"
                );
            }
            let inside = text.find('😀').unwrap() + 1;
            assert_eq!(answer.chars_at(inside), answer.chars_at(inside - 1));
            assert_eq!(answer.chars_at(usize::MAX), answer.chars());
            assert_eq!(answer.utf16_at(usize::MAX), utf16_len(&text));
        }
    }
}
