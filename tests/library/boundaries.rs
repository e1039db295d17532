//! Behaviour at edges the broad properties rarely reach: each test here was written because a
//! cargo-mutants mutant of the named code survived the rest of the suite.

use crate::common;
use crate::stand_ins::VOCAB;

use mentor_context::format::XmlFormat;
use mentor_context::tokenizer::TokenCounter;
use mentor_context::{ContextBuilder, Duplicates, Encoding, MentorRagResult, OmitReason, Overflow};

/// One token per `char`, and no split it vouches for: the assembler must take its slow paths
/// (the head's count apart from the body's, and a recount of the whole text).
#[derive(Clone, Copy)]
struct Chars;

impl TokenCounter for Chars {
    fn name(&self) -> &str {
        "chars"
    }
    fn token_lengths(&self, text: &str, lengths: &mut Vec<u32>) {
        lengths.extend(text.chars().map(|c| c.len_utf8() as u32));
    }
}

fn titled(content: &str, title: &str, score: f32) -> MentorRagResult {
    MentorRagResult::from_content(content, score).with_title(title)
}

/// One block titled T of `n` words, "word word ... word".
fn words(n: usize) -> [MentorRagResult; 1] {
    [titled("word ".repeat(n).trim_end(), "T", 1.0)]
}

/// `place` renders no more content than could fit, guessing 16 bytes a token; content denser
/// than that (a long run of spaces is 128 bytes a token) fits whole after all, and must go in
/// whole, not cut, and not left out under `Stop` (placing.rs: the `limit < reach` guard).
#[test]
fn dense_content_that_fits_goes_in_whole() {
    let content = format!("start{}end", " ".repeat(4000));
    let results = [titled(&content, "Spaces", 1.0)];
    for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
        assert!(encoding.count(&content) < 50);
        for overflow in [Overflow::Truncate, Overflow::Stop] {
            let context = common::assemble_checked(
                ContextBuilder::new(100).overflow(overflow),
                encoding,
                &results,
            );
            assert_eq!(context.citations.len(), 1, "{encoding} {overflow:?}");
            assert!(!context.citations[0].truncated, "{encoding} {overflow:?}");
        }
    }
}

/// With a tokenizer that vouches for no split, a block that does not fit whole is measured
/// head apart from body, and the body gets the room left after the head (placing.rs, the
/// fallback of `place`). It is cut to fit, not placed whole and then dropped by the recount.
#[test]
fn without_exact_splits_a_block_is_cut_to_the_room_after_its_head() {
    let results = words(20);
    // Whole: "[1] T\n" (6) + "```\n" (4) + 99 + "\n```\n" (5) = 114 characters.
    let whole = ContextBuilder::new(1000)
        .tokenizer(Chars)
        .build()
        .unwrap()
        .assemble(&results);
    assert_eq!(whole.token_count, 114);
    for budget in [100, 110, 113] {
        let context = common::assemble_checked(ContextBuilder::new(budget), Chars, &results);
        assert_eq!(context.citations.len(), 1, "budget {budget}");
        assert!(context.citations[0].truncated, "budget {budget}");
        assert!(context.token_count <= budget);
    }
}

/// The same through the XML layout, whose head and cut frame differ.
#[test]
fn without_exact_splits_xml_blocks_are_cut_too() {
    let results = words(40);
    let context = ContextBuilder::new(150)
        .tokenizer(Chars)
        .format(XmlFormat)
        .build()
        .unwrap()
        .assemble(&results);
    common::check_invariants(&context, &results, &Chars, true, None);
    assert_eq!(context.citations.len(), 1);
    assert!(context.citations[0].truncated);
    assert!(
        context
            .omitted
            .iter()
            .all(|o| o.reason != OmitReason::DidNotFit)
    );
}

/// When a block's head and body fit apart though not together, the block goes in whole with
/// the count of its parts, and the recount of the whole text decides (placing.rs, the
/// fallback of `place`: the body gets the room after the head, whole content only).
#[test]
fn a_block_that_fits_in_parts_is_kept_when_the_recount_fits() {
    let results = [
        MentorRagResult::from_content("z", 0.9),
        MentorRagResult::from_content("bcde".repeat(3), 0.8),
    ];
    // Block 2 alone is q q qb c d e bcde bcde = 8 tokens; its parts, 3 + 3. Block 1 is 4; the
    // whole text, q q q zq q qb c d e bcde bcde = 11: the budget.
    assert_eq!(VOCAB.count("qqqbcdebcdebcde"), 8);
    assert_eq!(VOCAB.count("qqqzqqqbcdebcdebcde"), 11);
    let context = VOCAB.bare(11, "qqq").build().unwrap().assemble(&results);
    assert_eq!(context.text, "qqqzqqqbcdebcdebcde");
    assert_eq!(context.token_count, 11);
    let counts: Vec<(usize, bool)> = context
        .citations
        .iter()
        .map(|c| (c.token_count, c.truncated))
        .collect();
    // Block 2's count is its parts' (the tokenizer vouches for no join to count otherwise).
    assert_eq!(counts, [(4, false), (6, false)]);
}

/// The recount drops blocks from the end until the text fits, and cuts the text back to the
/// end of the last block kept: with two blocks kept, the third's start is the fifth join
/// (recount.rs: two joins before the blocks, two per block).
#[test]
fn the_recount_drops_the_last_blocks_and_keeps_the_rest_exactly() {
    let results: Vec<MentorRagResult> = [0.9, 0.8, 0.7]
        .into_iter()
        .map(|score| MentorRagResult::from_content("a", score))
        .collect();
    // Each block, "bcdea", is 2 tokens alone; joined, "a" + "bcde" cost ab c d e.
    assert_eq!(VOCAB.count("bcdea"), 2);
    assert_eq!(VOCAB.count("bcdeabcdea"), 6);
    assert_eq!(VOCAB.count("bcdeabcdeabcdea"), 10);
    for (budget, text) in [(6, "bcdeabcdea"), (5, "bcdea"), (10, "bcdeabcdeabcdea")] {
        let context = VOCAB
            .bare(budget, "bcde")
            .duplicates(Duplicates::Keep)
            .build()
            .unwrap()
            .assemble(&results);
        assert_eq!(context.text, text, "budget {budget}: {context:?}");
        assert_eq!(context.token_count, VOCAB.count(text));
        assert_eq!(context.citations.len(), text.len() / 5);
        assert_eq!(context.omitted.len(), 3 - text.len() / 5);
        assert!(
            context
                .omitted
                .iter()
                .all(|o| o.reason == OmitReason::DidNotFit)
        );
    }
}

/// A block is cut when the room left is exactly its head, the cut's frame and the minimum,
/// and not with one token less (cut.rs: `room < needed`).
#[test]
fn a_cut_needs_exactly_head_frame_and_minimum() {
    let results = [titled(&"word ".repeat(40), "T", 1.0)];
    // "[1] T\n" (6) + "```\n" (4) + "```\n(truncated)\n" (16) + 10 = 36 characters.
    let assemble = |budget: usize| {
        ContextBuilder::new(budget)
            .tokenizer(Chars)
            .min_truncated_tokens(10)
            .build()
            .unwrap()
            .assemble(&results)
    };
    let context = assemble(36);
    common::check_invariants(&context, &results, &Chars, false, None);
    assert_eq!(context.text, "[1] T\n```\nword word\n```\n(truncated)\n");
    assert_eq!(context.token_count, 36);
    let context = assemble(35);
    assert_eq!(context.text, "");
    assert_eq!(context.omitted[0].reason, OmitReason::DidNotFit);
}

/// A cut is aimed with the frame of an empty cut ("```"), but content with a run of 30
/// backticks gets a 31-backtick fence: the first attempt overshoots by about 30 tokens. The
/// next attempt aims that much lower and fits, well within the attempts allowed (cut.rs:
/// `target - (tokens - room)`).
#[test]
fn a_cut_whose_fence_grows_aims_lower_by_the_overshoot() {
    let content = format!("{} {}", "`".repeat(30), "word ".repeat(60));
    let results = [titled(&content, "T", 1.0)];
    let context = common::assemble_checked(ContextBuilder::new(200), Chars, &results);
    assert_eq!(context.citations.len(), 1);
    assert!(context.citations[0].truncated);
    // Cut back to a word end: at most a word and its space short of the budget.
    assert!(context.token_count > 200 - 6, "{}", context.token_count);
}

/// A block the cache knows whole, at a budget where it no longer fits: the cache says so at
/// once, and the meter tokenizes only the stretch from the last checkpoint that fits to the
/// next (meter: the known-total path of `measure`). The cut is the one a cold run makes.
#[test]
fn a_cached_whole_block_that_no_longer_fits_is_cut_as_without_a_cache() {
    let results = common::fixture("bench-english");
    let cache = mentor_context::tokenizer::TokenCache::new(64 << 20);
    let mut cuts = 0;
    for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
        for xml in [false, true] {
            let builder = |budget: usize| {
                let builder = ContextBuilder::new(budget).encoding(encoding);
                if xml {
                    builder.format(XmlFormat)
                } else {
                    builder
                }
            };
            // Learn every block whole.
            let _ = builder(100_000)
                .cache(cache.clone())
                .build()
                .unwrap()
                .assemble(&results);
            for budget in [1200, 2500, 4000] {
                let cold = builder(budget).build().unwrap().assemble(&results);
                let cached = builder(budget).cache(cache.clone()).build().unwrap();
                let (warm, stats) =
                    mentor_context::machinery::assemble_with_stats(&cached, &results);
                assert_eq!(warm, cold, "{encoding} xml={xml} budget {budget}");
                cuts += usize::from(cold.citations.last().unwrap().truncated);
                // Around the cut only: the stretches between checkpoints (32 tokens) on either
                // side, and the cut block's head and frame.
                assert!(
                    stats.bytes_tokenized <= 1024,
                    "{encoding} xml={xml} budget {budget}: {} bytes",
                    stats.bytes_tokenized
                );
            }
        }
    }
    // Most of these end in a cut (some budgets end exactly between blocks).
    assert!(cuts >= 8, "{cuts} cuts");
}

/// A tokenizer that breaks the one-byte-a-token rule, as Qwen 3's NFC normalizer does (U+0F76
/// is 3 bytes and 6 tokens): two tokens for each `ྶ`, the second of length 0. The budget must
/// hold all the same, through the whole-text recount.
struct MoreTokensThanBytes;

impl TokenCounter for MoreTokensThanBytes {
    fn name(&self) -> &str {
        "expanding"
    }
    fn token_lengths(&self, text: &str, lengths: &mut Vec<u32>) {
        for c in text.chars() {
            lengths.push(c.len_utf8() as u32);
            if c == '\u{f76}' {
                lengths.extend([0; 5]);
            }
        }
    }
}

#[test]
fn a_tokenizer_with_more_tokens_than_bytes_still_keeps_the_budget() {
    for budget in [20, 50, 120, 400] {
        for content in ["\u{f76}".repeat(40), format!("ab{}", "\u{f76}x".repeat(30))] {
            let results = [titled(&content, "T", 1.0), titled("short one", "U", 0.5)];
            let context = ContextBuilder::new(budget)
                .tokenizer(MoreTokensThanBytes)
                .build()
                .unwrap()
                .assemble(&results);
            assert!(
                MoreTokensThanBytes.count(&context.text) <= budget,
                "budget {budget}: {} tokens",
                MoreTokensThanBytes.count(&context.text)
            );
            assert_eq!(
                MoreTokensThanBytes.count(&context.text),
                context.token_count
            );
        }
    }
}
