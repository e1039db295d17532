//! The NFC-stability rule against NFC itself: the `unicode-normalization` crate's, and with
//! the `huggingface` feature the `tokenizers` crate's (the one Qwen 3's file builds, on older
//! tables).

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::TestRunner;
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::{compose, decompose_canonical};

use super::*;

/// NFC by every normalizer the tests have.
fn normalizers(text: &str) -> Vec<String> {
    let ours = text.nfc().collect::<String>();
    #[cfg(feature = "huggingface")]
    {
        use tokenizers::{NormalizedString, Normalizer, normalizers::NFC};
        let mut normalized = NormalizedString::from(text);
        NFC.normalize(&mut normalized)
            .expect("NFC normalizes any text");
        vec![ours, normalized.get().to_owned()]
    }
    #[cfg(not(feature = "huggingface"))]
    vec![ours]
}

/// The characters NFC treats in every way it has: marks of several combining classes, Hangul
/// jamo and syllables, Tibetan vowels that decompose into marks (U+0F73, U+0F75, U+0F76) or
/// into a letter and a mark, singletons (Ohm, Kelvin, Ångström), Indic vowel signs that
/// compose with a vowel before them (Oriya, Kannada, Sinhala, Bengali, Tamil, Myanmar),
/// Greek with breathings, emoji with joiners, modifiers and selectors; and spaces and
/// newlines, where the exact-split rules put their positions.
const ATOMS: &[&str] = &[
    " ",
    "\n",
    "a",
    "e",
    "q",
    "u",
    "A",
    "K",
    ".",
    "/",
    "\u{301}",
    "\u{302}",
    "\u{304}",
    "\u{308}",
    "\u{305}",
    "\u{315}",
    "\u{316}",
    "\u{323}",
    "\u{345}",
    "\u{35c}",
    "\u{1100}",
    "\u{1161}",
    "\u{11a8}",
    "\u{ac00}",
    "\u{ac01}",
    "\u{f40}",
    "\u{f71}",
    "\u{f72}",
    "\u{f73}",
    "\u{f74}",
    "\u{f75}",
    "\u{f76}",
    "\u{f77}",
    "\u{f80}",
    "\u{f81}",
    "\u{fb2}",
    "\u{fb3}",
    "\u{344}",
    "\u{958}",
    "\u{2126}",
    "\u{212a}",
    "\u{212b}",
    "\u{fb1d}",
    "\u{3b1}",
    "\u{1f00}",
    "\u{b47}",
    "\u{b3e}",
    "\u{b56}",
    "\u{cc6}",
    "\u{cc2}",
    "\u{cd5}",
    "\u{dd9}",
    "\u{dcf}",
    "\u{9c7}",
    "\u{9be}",
    "\u{bc6}",
    "\u{bbe}",
    "\u{1025}",
    "\u{102e}",
    "\u{200d}",
    "\u{fe0f}",
    "\u{1f469}",
    "\u{1f3fd}",
    "\u{1f4bb}",
    "\u{1f3f3}",
    "\u{1f308}",
    "\u{1f1e9}",
    "\u{1f1ea}",
    "\u{1d15e}",
    "\u{11099}",
    "\u{110ba}",
];

fn nfc_text() -> impl Strategy<Value = String> {
    let atom = prop_oneof![
        4 => prop::sample::select(ATOMS).prop_map(str::to_owned),
        1 => any::<char>().prop_map(String::from),
    ];
    prop::collection::vec(atom, 0..24).prop_map(|atoms| atoms.concat())
}

/// The first position in `text` where `stable` calls the character after it stable but NFC
/// of the two sides differs from NFC of the whole, by any normalizer.
fn inexact_position(text: &str, stable: impl Fn(char) -> bool) -> Option<usize> {
    let whole = normalizers(text);
    text.char_indices()
        .filter(|&(at, c)| at > 0 && stable(c))
        .map(|(at, _)| at)
        .find(|&at| {
            let (left, right) = (normalizers(&text[..at]), normalizers(&text[at..]));
            whole
                .iter()
                .zip(left.iter().zip(&right))
                .any(|(whole, (left, right))| *whole != format!("{left}{right}"))
        })
}

#[test]
fn stable_characters_are_the_documented_ones() {
    for c in [
        'a', ' ', '\n', '/', 'é', '가', '👩', '\u{200d}', '\u{fe0f}', '\u{1100}',
    ] {
        assert!(nfc_stable(c), "{c:?} ({:04X}) is stable", c as u32);
    }
    // Marks (reordered), jamo that compose with the one before, characters NFC decomposes,
    // a vowel sign of class 0 that composes with the vowel before it.
    for c in [
        '\u{301}', '\u{316}', '\u{1161}', '\u{11a8}', '\u{f73}', '\u{f76}', '\u{2126}', '\u{344}',
        '\u{cd5}', '\u{b3e}',
    ] {
        assert!(!nfc_stable(c), "{c:?} ({:04X}) is not stable", c as u32);
    }
    assert!(nfc_splits_at("a b", 1));
    assert!(!nfc_splits_at("e\u{301}", 1));
    assert!(!nfc_splits_at("ab", 2));
    assert!(!nfc_splits_at("é", 1));
}

/// "Composes with nothing before it" is the quick check's `Yes`, in the crate's tables: no
/// stable character is ever the second of a composition NFC makes, and none decomposes into a
/// character that is, or into a mark. Walks every code point.
#[test]
fn no_stable_character_composes_with_one_before_it() {
    for c in (0..=0x10_FFFF).filter_map(char::from_u32) {
        let mut decomposed = Vec::new();
        decompose_canonical(c, |d| decomposed.push(d));
        // Composing the decomposition back, one character at a time, as NFC does: each
        // character it takes in composes with the one before it.
        let mut composed = decomposed[0];
        for &next in &decomposed[1..] {
            let Some(c) = compose(composed, next) else {
                break;
            };
            assert!(
                !nfc_stable(next),
                "{:04X} composes after {composed:?}",
                next as u32
            );
            composed = c;
        }
        if nfc_stable(c) {
            let first = decomposed[0];
            assert!(
                canonical_combining_class(first) == 0
                    && is_nfc_quick(std::iter::once(first)) == IsNormalized::Yes,
                "{:04X} is stable but decomposes into {:04X}",
                c as u32,
                first as u32
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(512)
    ))]

    /// Before every stable character, NFC of the two sides is NFC of the whole.
    #[test]
    fn nfc_leaves_positions_before_stable_characters_alone(text in nfc_text()) {
        prop_assert_eq!(inexact_position(&text, nfc_stable), None, "{:?}", text);
    }
}

/// The property has teeth: each clause of the rule left out, the same texts find a position
/// where NFC reaches across.
#[test]
fn every_clause_of_the_rule_is_needed() {
    let quick = |c: char| is_nfc_quick(std::iter::once(c));
    let class = canonical_combining_class;
    let weakened: [(&str, &dyn Fn(char) -> bool); 3] = [
        // A mark of a class other than 0 (U+0316 after `q` + U+0301 is reordered before it).
        ("any combining class", &|c| quick(c) == IsNormalized::Yes),
        // `Maybe`: a character that composes with one before it (a Hangul V after an L).
        ("quick check Maybe", &|c| {
            class(c) == 0 && quick(c) != IsNormalized::No
        }),
        // `No`: a character NFC decomposes into marks (U+0F73 after a mark of a higher class).
        ("quick check No", &|c| {
            class(c) == 0 && quick(c) != IsNormalized::Maybe
        }),
    ];
    let strategy = nfc_text();
    for (clause, stable) in weakened {
        let mut runner = TestRunner::deterministic();
        let found = (0..20_000).find_map(|_| {
            let text = strategy.new_tree(&mut runner).unwrap().current();
            inexact_position(&text, stable).map(|at| (text, at))
        });
        assert!(
            found.is_some(),
            "without the clause on {clause}, no text was inexact"
        );
    }
}
