//! Character offsets as providers give them, turned into byte offsets of a text.

/// The byte offset of the `n`th character (Unicode scalar value) of `text`, or `None` past
/// its end.
pub(super) fn char_to_byte(text: &str, n: usize) -> Option<usize> {
    if n == 0 {
        return Some(0);
    }
    text.char_indices()
        .nth(n - 1)
        .map(|(at, c)| at + c.len_utf8())
}

/// The byte offset of UTF-16 code unit `n` of `text`, or `None` past its end or inside a
/// surrogate pair.
pub(super) fn utf16_to_byte(text: &str, n: usize) -> Option<usize> {
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
}
