//! Qwen 3 on the exact path: its NFC normalizer against the exact-split rule, on text NFC
//! changes (combining marks, Hangul jamo, characters NFC decomposes, emoji sequences), and
//! assemblies of such text.

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use regex_automata::meta::Regex;
use unicode_normalization::UnicodeNormalization;

use std::sync::OnceLock;

use super::{Model, data_dir, models};
use crate::common;
use mentor_context::machinery::{nfc_stable, openai_splits_exactly};
use mentor_context::tokenizer::TokenCounter;
use mentor_context::{ContextBuilder, MentorRagResult, Overflow};

/// Whether NFC leaves `text` as it is.
pub(super) fn is_nfc(text: &str) -> bool {
    unicode_normalization::is_nfc(text)
}

/// At exact splits of `text` (four, spread over it, to keep the recounts few), a token ends
/// (with the tokens of length 0 that end there counted before it), and the tokens before it
/// are the count of the text before it: what the meter's checkpoints rest on.
pub(super) fn check_split_ends(tokenizer: &dyn TokenCounter, text: &str, lengths: &[u32]) {
    let splits: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .filter(|&i| i > 0 && tokenizer.splits_exactly(text, i))
        .collect();
    let step = splits.len().div_ceil(4).max(1);
    let (mut at, mut tokens) = (0, 0);
    let mut lengths = lengths.iter().peekable();
    for &split in splits.iter().step_by(step) {
        while at < split || lengths.peek() == Some(&&0) {
            let Some(&len) = lengths.next() else { break };
            at += len as usize;
            tokens += 1;
        }
        assert_eq!(
            at,
            split,
            "{}: no token ends at {split} in {text:?}",
            tokenizer.name()
        );
        assert_eq!(
            tokens,
            tokenizer.count(&text[..split]),
            "{}: tokens before {split} in {text:?}",
            tokenizer.name()
        );
    }
}

/// The pieces NFC treats in every way it has, beside the spaces and newlines where the split
/// rule puts its positions (the same characters as the rule's own tests in `src/`).
const ATOMS: &[&str] = &[
    " ",
    "\n",
    " ",
    "\n",
    "word",
    "e",
    "i",
    "q",
    ".",
    ",",
    ")",
    "/",
    "\u{301}",
    "\u{302}",
    "\u{308}",
    "\u{316}",
    "\u{323}",
    "\u{345}",
    "\u{1100}",
    "\u{1161}",
    "\u{11a8}",
    "\u{ac00}",
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
    "\u{344}",
    "\u{958}",
    "\u{a5e}",
    "\u{2126}",
    "\u{212a}",
    "\u{212b}",
    "\u{fb1d}",
    "\u{1f00}",
    "\u{b47}",
    "\u{b3e}",
    "\u{cc6}",
    "\u{cd5}",
    "\u{dd9}",
    "\u{dcf}",
    "\u{9c7}",
    "\u{9be}",
    "\u{1025}",
    "\u{102e}",
    "\u{200d}",
    "\u{fe0f}",
    "\u{1f469}\u{1f3fd}",
    "\u{200d}\u{1f4bb}",
    "\u{1f3f3}\u{fe0f}\u{200d}\u{1f308}",
    "\u{1f1e9}\u{1f1ea}",
    "\u{1d15e}",
    "\u{11099}\u{110ba}",
    "\u{1025}\u{102e}",
    "\u{b92}\u{bd7}",
    "\u{1b05}\u{1b35}",
    "\u{f75}\u{323}",
    "\u{f73}\u{301}",
];

fn nfc_text() -> impl Strategy<Value = String> {
    let atom = prop_oneof![
        6 => prop::sample::select(ATOMS).prop_map(str::to_owned),
        1 => any::<char>().prop_map(String::from),
    ];
    prop::collection::vec(atom, 0..40).prop_map(|atoms| atoms.concat())
}

/// Qwen 3's counter, loaded once, or `None` (the reason printed) when the data is not asked
/// for.
fn qwen(test: &str) -> Option<&'static dyn TokenCounter> {
    let dir = data_dir(test)?;
    let model: &'static Model = models(&dir).iter().find(|m| m.family == "qwen@")?;
    Some(model.counter())
}

/// A piece boundary of Qwen's pattern in the text as given, where the stability rule decides
/// whether the split is exact: after a letter (ASCII, or one a vowel sign of class 0 composes
/// with: Myanmar U+1025, Tamil U+0B92, Balinese U+1B05), before a character outside the pattern's `[\p{L}\p{N}\s']` (a mark,
/// punctuation), so nothing blocks NFC there as a space or a newline does at OpenAI's
/// positions. The library splits only at those, where the rule never decides; this is how a
/// weaker rule would show. Returns the character after.
fn after_a_letter(text: &str, at: usize) -> Option<char> {
    static OTHER: OnceLock<Regex> = OnceLock::new();
    let other = OTHER.get_or_init(|| Regex::new(r"^[^\p{L}\p{N}\s']$").unwrap());
    let before = text[..at].chars().next_back()?;
    let next = text[at..].chars().next()?;
    let letter =
        before.is_ascii_alphabetic() || ['\u{1025}', '\u{b92}', '\u{1b05}'].contains(&before);
    (letter && other.is_match(&*next.encode_utf8(&mut [0; 4]))).then_some(next)
}

proptest! {
    #![proptest_config(common::proptest_cases(512))]

    /// Documents of such text assemble exactly at every budget, each cut or not: the meter's
    /// checkpoints and cuts fall inside text NFC expanded, where tokens outnumber bytes.
    #[test]
    fn qwen3_assembles_text_nfc_changes_exactly(
        contents in prop::collection::vec(nfc_text(), 1..6),
        budget in 8usize..400,
        skip in any::<bool>(),
    ) {
        let Some(tokenizer) = qwen("qwen3_assembles_text_nfc_changes_exactly") else {
            return Ok(());
        };
        let results: Vec<MentorRagResult> = contents
            .iter()
            .enumerate()
            .map(|(i, content)| {
                MentorRagResult::from_content(content.repeat(1 + i % 3), 1.0 - i as f32 / 10.0)
            })
            .collect();
        let overflow = if skip { Overflow::Skip } else { Overflow::Truncate };
        let builder = ContextBuilder::new(budget).overflow(overflow);
        common::assemble_checked(builder, tokenizer, &results);
    }

    /// Split at every exact split point at once, and at each alone: the pieces' counts add up
    /// to the whole text's count, on text NFC changes; and the token ends fall on them.
    #[test]
    fn qwen3_pieces_add_up_on_text_nfc_changes(text in nfc_text()) {
        let Some(tokenizer) = qwen("qwen3_pieces_add_up") else {
            return Ok(());
        };
        let whole = tokenizer.count(&text);
        let splits: Vec<usize> = text
            .char_indices()
            .map(|(at, _)| at)
            .filter(|&at| tokenizer.splits_exactly(&text, at))
            .collect();
        let mut pieces = 0;
        let mut from = 0;
        for &at in splits.iter().chain([&text.len()]) {
            pieces += tokenizer.count(&text[from..at]);
            from = at;
        }
        prop_assert_eq!(pieces, whole, "{:?} split at {:?}", text, splits);
        for &at in &splits {
            let halves = tokenizer.count(&text[..at]) + tokenizer.count(&text[at..]);
            prop_assert_eq!(halves, whole, "at {} in {:?}", at, text);
        }
        let mut lengths = Vec::new();
        tokenizer.token_lengths(&text, &mut lengths);
        prop_assert_eq!(lengths.len(), whole);
        check_split_ends(tokenizer, &text, &lengths);
    }

    /// Qwen 3's counts hold the stability rule to what it claims: where a piece boundary
    /// comes right before an NFC-stable character, the halves add up to the whole.
    #[test]
    fn qwen3_splits_before_stable_characters_add_up(text in nfc_text()) {
        let Some(tokenizer) = qwen("qwen3_splits_before_stable_characters_add_up") else {
            return Ok(());
        };
        let whole = tokenizer.count(&text);
        for (at, _) in text.char_indices() {
            if after_a_letter(&text, at).is_some_and(nfc_stable) {
                let halves = tokenizer.count(&text[..at]) + tokenizer.count(&text[at..]);
                prop_assert_eq!(halves, whole, "at {} in {:?}", at, text);
            }
        }
    }
}

/// The first `n` texts of [`nfc_text`], the same on every run: what the properties above are
/// generated from, for the tests that they reach what they test.
fn generated(n: usize) -> impl Iterator<Item = String> {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let strategy = nfc_text();
    (0..n).map(move |_| strategy.new_tree(&mut runner).unwrap().current())
}

/// And the property has teeth: at the same boundaries before a character the rule calls
/// unstable, Qwen 3's counts do not add up somewhere in the generated texts (a mark composed
/// onto the letter), so a rule that let those through would fail it.
#[test]
fn qwen3_counts_show_where_the_stability_rule_refuses() {
    let Some(tokenizer) = qwen("qwen3_counts_show_where_the_stability_rule_refuses") else {
        return;
    };
    let inexact = generated(2_000).find_map(|text| {
        let whole = tokenizer.count(&text);
        text.char_indices()
            .map(|(at, _)| at)
            .filter(|&at| after_a_letter(&text, at).is_some_and(|c| !nfc_stable(c)))
            .find(|&at| tokenizer.count(&text[..at]) + tokenizer.count(&text[at..]) != whole)
            .map(|at| (text, at))
    });
    assert!(
        inexact.is_some(),
        "no inexact split before an unstable character was found"
    );
}

/// The generated texts reach the rule's NFC clause: positions OpenAI's rule accepts and the
/// clause refuses (before a mark, a jamo, a character NFC decomposes), and text NFC changes.
#[test]
fn the_generated_texts_reach_the_nfc_clause() {
    let Some(tokenizer) = qwen("the_generated_texts_reach_the_nfc_clause") else {
        return;
    };
    let (mut refused, mut changed) = (0, 0);
    for text in generated(500) {
        changed += usize::from(text.nfc().collect::<String>() != text);
        refused += text
            .char_indices()
            .filter(|&(at, _)| openai_splits_exactly(&text, at))
            .filter(|&(at, _)| !tokenizer.splits_exactly(&text, at))
            .count();
    }
    assert!(
        refused >= 50 && changed >= 250,
        "{refused} refused, {changed} changed"
    );
}
