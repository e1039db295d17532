//! Characters a reader cannot see, or could take for the layout's own markup.
//!
//! Titles, URLs and metadata are untrusted. A metadata key starts a line of its own, so a key
//! that shows as `[2] ...` (behind invisible characters, or with a look-alike bracket such as
//! `［２］` or `〔2〕`) would read as a block marker to a person and to a model.

/// Opening brackets of every script (Unicode general category Ps, outside ASCII), and the
/// characters whose NFKC form starts with `[`, `` ` `` or `~` (U+1FEF, U+FE47, U+FF3B,
/// U+FF40, U+FF5E), as ranges. Generated from the Unicode Character Database 14.0 with
/// Python's `unicodedata`: `category(c) == "Ps"` or `normalize("NFKC", c)[0] in "[`~"`.
const LOOKALIKE_OPENERS: [(char, char); 78] = [
    ('\u{0F3A}', '\u{0F3A}'),
    ('\u{0F3C}', '\u{0F3C}'),
    ('\u{169B}', '\u{169B}'),
    ('\u{1FEF}', '\u{1FEF}'),
    ('\u{201A}', '\u{201A}'),
    ('\u{201E}', '\u{201E}'),
    ('\u{2045}', '\u{2045}'),
    ('\u{207D}', '\u{207D}'),
    ('\u{208D}', '\u{208D}'),
    ('\u{2308}', '\u{2308}'),
    ('\u{230A}', '\u{230A}'),
    ('\u{2329}', '\u{2329}'),
    ('\u{2768}', '\u{2768}'),
    ('\u{276A}', '\u{276A}'),
    ('\u{276C}', '\u{276C}'),
    ('\u{276E}', '\u{276E}'),
    ('\u{2770}', '\u{2770}'),
    ('\u{2772}', '\u{2772}'),
    ('\u{2774}', '\u{2774}'),
    ('\u{27C5}', '\u{27C5}'),
    ('\u{27E6}', '\u{27E6}'),
    ('\u{27E8}', '\u{27E8}'),
    ('\u{27EA}', '\u{27EA}'),
    ('\u{27EC}', '\u{27EC}'),
    ('\u{27EE}', '\u{27EE}'),
    ('\u{2983}', '\u{2983}'),
    ('\u{2985}', '\u{2985}'),
    ('\u{2987}', '\u{2987}'),
    ('\u{2989}', '\u{2989}'),
    ('\u{298B}', '\u{298B}'),
    ('\u{298D}', '\u{298D}'),
    ('\u{298F}', '\u{298F}'),
    ('\u{2991}', '\u{2991}'),
    ('\u{2993}', '\u{2993}'),
    ('\u{2995}', '\u{2995}'),
    ('\u{2997}', '\u{2997}'),
    ('\u{29D8}', '\u{29D8}'),
    ('\u{29DA}', '\u{29DA}'),
    ('\u{29FC}', '\u{29FC}'),
    ('\u{2E22}', '\u{2E22}'),
    ('\u{2E24}', '\u{2E24}'),
    ('\u{2E26}', '\u{2E26}'),
    ('\u{2E28}', '\u{2E28}'),
    ('\u{2E42}', '\u{2E42}'),
    ('\u{2E55}', '\u{2E55}'),
    ('\u{2E57}', '\u{2E57}'),
    ('\u{2E59}', '\u{2E59}'),
    ('\u{2E5B}', '\u{2E5B}'),
    ('\u{3008}', '\u{3008}'),
    ('\u{300A}', '\u{300A}'),
    ('\u{300C}', '\u{300C}'),
    ('\u{300E}', '\u{300E}'),
    ('\u{3010}', '\u{3010}'),
    ('\u{3014}', '\u{3014}'),
    ('\u{3016}', '\u{3016}'),
    ('\u{3018}', '\u{3018}'),
    ('\u{301A}', '\u{301A}'),
    ('\u{301D}', '\u{301D}'),
    ('\u{FD3F}', '\u{FD3F}'),
    ('\u{FE17}', '\u{FE17}'),
    ('\u{FE35}', '\u{FE35}'),
    ('\u{FE37}', '\u{FE37}'),
    ('\u{FE39}', '\u{FE39}'),
    ('\u{FE3B}', '\u{FE3B}'),
    ('\u{FE3D}', '\u{FE3D}'),
    ('\u{FE3F}', '\u{FE3F}'),
    ('\u{FE41}', '\u{FE41}'),
    ('\u{FE43}', '\u{FE43}'),
    ('\u{FE47}', '\u{FE47}'),
    ('\u{FE59}', '\u{FE59}'),
    ('\u{FE5B}', '\u{FE5B}'),
    ('\u{FE5D}', '\u{FE5D}'),
    ('\u{FF08}', '\u{FF08}'),
    ('\u{FF3B}', '\u{FF3B}'),
    ('\u{FF40}', '\u{FF40}'),
    ('\u{FF5B}', '\u{FF5B}'),
    ('\u{FF5E}', '\u{FF5F}'),
    ('\u{FF62}', '\u{FF62}'),
];

/// Whether a line starting with `c` could read as a block marker (`[n]`) or a fence: the
/// table above, and the corner and bracket-piece symbols that draw a bracket (U+231C to
/// U+231F, U+239B to U+23AD), which Unicode files as symbols, not punctuation.
pub(super) fn opens_markup(c: char) -> bool {
    matches!(c, '[' | '`' | '~' | '\u{231C}'..='\u{231F}' | '\u{239B}'..='\u{23AD}')
        || LOOKALIKE_OPENERS
            .binary_search_by(|&(low, high)| {
                if high < c {
                    std::cmp::Ordering::Less
                } else if low > c {
                    std::cmp::Ordering::Greater
                } else {
                    std::cmp::Ordering::Equal
                }
            })
            .is_ok()
}

/// The first character of `text` that a reader sees as its start: past whitespace, line
/// breaks, invisible characters, blank-looking U+2800, and combining marks with nothing to
/// combine with (the common combining blocks), which render on their own as nothing much.
pub(super) fn first_visible(text: &str) -> Option<char> {
    text.chars().find(|&c| {
        !(c.is_whitespace()
            || c.is_control()
            || is_invisible(c)
            || matches!(
                c,
                '\u{2800}'
                    | '\u{0300}'..='\u{036F}'
                    | '\u{1AB0}'..='\u{1AFF}'
                    | '\u{1DC0}'..='\u{1DFF}'
                    | '\u{20D0}'..='\u{20FF}'
                    | '\u{FE20}'..='\u{FE2F}'
            ))
    })
}

/// Unicode's default-ignorable code points (`Default_Ignorable_Code_Point` in
/// DerivedCoreProperties.txt): characters that show nothing, such as U+200B ZERO WIDTH SPACE,
/// U+2060 WORD JOINER, U+FEFF, variation selectors and tags.
pub(super) fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'..='\u{1160}'
            | '\u{17B4}'..='\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF0}'..='\u{FFF8}'
            | '\u{1BCA0}'..='\u{1BCA3}'
            | '\u{1D173}'..='\u{1D17A}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn brackets_of_every_kind_open_markup() {
        for c in ['[', '`', '~', '［', '〔', '【', '⟦', '｀', '～', '﹇', '「'] {
            assert!(opens_markup(c), "{c:?}");
        }
        for c in ['⎡', '⌜', '⎛'] {
            assert!(opens_markup(c), "{c:?}");
        }
        assert_eq!(first_visible("\u{2800}\u{301} \u{200b}[2]"), Some('['));
        assert_eq!(first_visible("a[2]"), Some('a'));
        assert_eq!(first_visible(" \u{200b}"), None);
        for c in ['a', '1', ']', '(', '{', '<', '#', '］', '〕', ' '] {
            assert!(!opens_markup(c), "{c:?}");
        }
        assert!(
            LOOKALIKE_OPENERS
                .windows(2)
                .all(|pair| pair[0].1 < pair[1].0)
        );
    }

    #[test]
    fn invisible_characters_are_the_default_ignorable_ones() {
        for c in [
            '\u{200B}',
            '\u{200D}',
            '\u{2060}',
            '\u{FEFF}',
            '\u{061C}',
            '\u{E0041}',
            '\u{FE0F}',
        ] {
            assert!(is_invisible(c), "{c:?}");
        }
        for c in ['a', ' ', '\u{3000}', '\u{2800}', '['] {
            assert!(!is_invisible(c), "{c:?}");
        }
    }
}
