//! Property tests: the guarantees hold for arbitrary text, scores, metadata and budgets.

mod common;

use mentor_context::{
    ContextBuilder, Duplicates, Encoding, MentorRagResult, Overflow, TokenCache, TokenCounter,
    XmlFormat, openai_splits_exactly,
};
use proptest::prelude::*;

/// Text that is hard on tokenizers, formats and grapheme segmentation, mixed with arbitrary
/// Unicode.
fn hostile_text() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("word ".to_string()),
        Just("Sentence ends here. ".to_string()),
        Just(" ".to_string()),
        Just("   ".to_string()),
        Just("\n".to_string()),
        Just("\r\n".to_string()),
        Just("\n\n".to_string()),
        Just("\t".to_string()),
        Just("/".to_string()),
        Just("'s".to_string()),
        Just("12345".to_string()),
        Just("\u{301}".to_string()),
        Just("e\u{301}\u{302}".to_string()),
        Just("👩🏽‍💻".to_string()),
        Just("👨‍👩‍👧‍👦".to_string()),
        Just("🏳️‍🌈".to_string()),
        Just("\u{200D}".to_string()),
        Just("\u{202E}".to_string()),
        Just("\u{0600}".to_string()),
        Just("中文字符".to_string()),
        Just("مرحبا".to_string()),
        Just("हिन्दी".to_string()),
        Just("<|endoftext|>".to_string()),
        Just("<|fim_prefix|>".to_string()),
        Just("```".to_string()),
        Just("[7] Forged".to_string()),
        Just("</document_content>".to_string()),
        Just("<document index=\"9\">".to_string()),
        Just("key: value".to_string()),
        Just("\u{0}\u{7}\u{1b}".to_string()),
        any::<String>(),
        any::<char>().prop_map(String::from),
    ];
    prop::collection::vec(piece, 0..24).prop_map(|pieces| pieces.concat())
}

fn score() -> impl Strategy<Value = f32> {
    prop_oneof![
        4 => -1.0f32..2.0,
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
        1 => Just(f32::NEG_INFINITY),
        1 => Just(f32::MIN_POSITIVE / 2.0),
        1 => Just(0.5f32),
        1 => any::<f32>(),
    ]
}

fn result() -> impl Strategy<Value = MentorRagResult> {
    (
        hostile_text(),
        prop::option::of(hostile_text()),
        prop::option::of(hostile_text()),
        score(),
        prop::option::of(prop::collection::vec(
            (hostile_text(), hostile_text()),
            0..4,
        )),
    )
        .prop_map(|(content, url, title, score, metadata)| {
            let mut r = MentorRagResult::new(content, url, title, score);
            if let Some(entries) = metadata {
                r = r.with_metadata(entries);
            }
            r
        })
}

fn overflow() -> impl Strategy<Value = Overflow> {
    prop_oneof![
        Just(Overflow::Truncate),
        Just(Overflow::Stop),
        Just(Overflow::Skip)
    ]
}

fn encoding() -> impl Strategy<Value = Encoding> {
    prop_oneof![
        3 => Just(Encoding::O200kBase),
        3 => Just(Encoding::Cl100kBase),
        1 => Just(Encoding::P50kBase),
        1 => Just(Encoding::R50kBase),
    ]
}

/// Cases per property: 1024, or `PROPTEST_CASES` when set (CI runs more).
fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1024)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// The core guarantee: whatever the input, the text is within the budget, its real count
    /// is the reported count, chips match blocks one to one in score order, cut content is a
    /// grapheme-aligned prefix, and the same input gives the same bytes.
    #[test]
    fn assembly_is_exact_within_budget_and_deterministic(
        results in prop::collection::vec(result(), 0..8),
        budget in prop_oneof![0usize..4, 0usize..64, 0usize..600],
        encoding in encoding(),
        overflow in overflow(),
        xml in any::<bool>(),
        keep_duplicates in any::<bool>(),
        header in prop::option::of(hostile_text()),
    ) {
        let mut builder = ContextBuilder::new(budget)
            .encoding(encoding)
            .overflow(overflow)
            .duplicates(if keep_duplicates { Duplicates::Keep } else { Duplicates::Drop })
            .min_truncated_tokens(budget.min(4));
        if xml {
            builder = builder.format(XmlFormat);
        }
        if let Some(header) = &header {
            builder = builder.header(header.clone());
        }
        let assembler = match builder.build() {
            Ok(assembler) => assembler,
            // The only configuration error possible here: the header alone is over budget.
            Err(mentor_context::Error::HeaderOverBudget { budget: b }) => {
                let header = format!("{}\n", header.as_deref().unwrap_or("").trim_end());
                prop_assert!(encoding.count(&header) > b);
                return Ok(());
            }
            Err(e) => panic!("unexpected error {e}"),
        };
        let context = assembler.assemble(&results);
        common::check_invariants(&context, &results, &encoding, xml, header.as_deref());
        // Debug output compares NaN scores as equal, unlike `==`.
        let expected = format!("{context:?}");
        let again = assembler.assemble(&results);
        prop_assert_eq!(&format!("{again:?}"), &expected);
        // A cache changes the cost, never the result: cold, warm, and with a cache so small
        // that it keeps evicting.
        for size in [1 << 20, 600] {
            let cached = builder.clone().cache(TokenCache::new(size)).build().unwrap();
            for _ in 0..2 {
                let context = cached.assemble(&results);
                prop_assert_eq!(&format!("{context:?}"), &expected);
            }
        }
    }

    /// The rule the exact counting rests on: at every position `openai_splits_exactly`
    /// accepts, the counts of the two halves add up to the count of the whole, in all four
    /// encodings.
    #[test]
    fn exact_splits_add_up(text in hostile_text()) {
        for encoding in Encoding::ALL {
            let whole = encoding.count(&text);
            for (at, _) in text.char_indices() {
                if openai_splits_exactly(&text, at) {
                    let parts = encoding.count(&text[..at]) + encoding.count(&text[at..]);
                    prop_assert_eq!(parts, whole, "{} at {} in {:?}", encoding, at, text);
                }
            }
        }
    }

    /// Token lengths always add up to the text, so cut positions are real positions.
    #[test]
    fn token_lengths_cover_text(text in hostile_text(), encoding in encoding()) {
        let mut lengths = Vec::new();
        encoding.token_lengths(&text, &mut lengths);
        prop_assert_eq!(lengths.iter().map(|&l| l as usize).sum::<usize>(), text.len());
    }
}
