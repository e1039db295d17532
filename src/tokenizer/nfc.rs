//! Where an NFC normalizer (Qwen 3's) leaves a split alone: before an NFC-stable character.
//!
//! A tokenizer with a normalizer tokenizes `nfc(text)`, not `text`, so a split of `text` is
//! exact only if `nfc(left) + nfc(right) == nfc(left + right)` as well as where the
//! pre-tokenizer keeps its pieces whole. NFC reaches across a position in two ways: canonical
//! reordering moves a combining mark back past it, and composition joins the character after
//! it to a starter before it (`e` + U+0301, a Hangul L + V jamo). Neither can happen before a
//! character of canonical combining class 0 (reordering stops at it) that composes with
//! nothing before it, and that NFC keeps as it is (`NFC_Quick_Check=Yes`; a character it
//! decomposes, such as U+0F73, turns into marks that reorder with the marks before it).
//!
//! At OpenAI's positions (before a space, after a newline) one side is a character NFC neither
//! changes nor joins to anything, so there the rule only refuses a few positions, out of
//! caution (after a newline, before a mark or a jamo). It is what keeps a split exact where a
//! pre-tokenizer allows one between other characters: after a letter, before a mark.
//!
//! The Unicode data is the `unicode-normalization` crate's. Unicode derives
//! `NFC_Quick_Check=Maybe` for exactly the characters that can compose with one before them,
//! so "composes with nothing before it" is the quick check's `Yes`; a test holds the crate's
//! tables to that, over every code point. The tables may be of a later Unicode version than
//! the normalizer's (the `tokenizers` crate's are of 9.0): a character stable in the later one
//! is stable in the earlier, since Unicode never changes the combining class, decomposition or
//! composition of an assigned character, and a character unassigned in the earlier version is
//! a starter that normalization leaves alone.

use unicode_normalization::char::canonical_combining_class;
use unicode_normalization::{IsNormalized, is_nfc_quick};

/// Whether `c` is NFC-stable: canonical combining class 0 and `NFC_Quick_Check=Yes`. NFC never
/// changes a text across the position before such a character.
pub(crate) fn nfc_stable(c: char) -> bool {
    // ASCII is all starters that NFC keeps, and none composes with a character before it.
    c.is_ascii()
        || (canonical_combining_class(c) == 0
            && is_nfc_quick(std::iter::once(c)) == IsNormalized::Yes)
}

/// Whether NFC leaves the position `at` of `text` alone: a character follows, and it is
/// NFC-stable.
pub(crate) fn nfc_splits_at(text: &str, at: usize) -> bool {
    text.get(at..)
        .and_then(|after| after.chars().next())
        .is_some_and(nfc_stable)
}

#[cfg(test)]
mod tests;
