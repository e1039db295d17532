//! Property tests: the guarantees hold for arbitrary text, scores, metadata and budgets.

use crate::common;

use mentor_context::format::{Format, PlainFormat, XmlFormat};
use mentor_context::machinery::openai_splits_exactly;
use mentor_context::tokenizer::{TokenCache, TokenCounter};
use mentor_context::{ContextBuilder, Duplicates, Encoding, MentorRagResult, Overflow};
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

proptest! {
    #![proptest_config(common::proptest_cases(1024))]

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
            .duplicates(if keep_duplicates { Duplicates::Keep } else { Duplicates::UrlAndContent })
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
        for &encoding in Encoding::ALL {
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

proptest! {
    #![proptest_config(common::proptest_cases(1024))]

    /// One cache serves assemblers with different budgets: what it learned at one budget
    /// (a block's whole count, or its checkpoints up to a cut) changes nothing at another.
    #[test]
    fn a_cache_shared_across_budgets_changes_nothing(
        results in prop::collection::vec(result(), 0..6),
        budgets in prop::collection::vec(prop_oneof![0usize..64, 0usize..2000], 2..4),
        encoding in encoding(),
        overflow in overflow(),
        xml in any::<bool>(),
    ) {
        let cache = TokenCache::new(1 << 20);
        for budget in budgets {
            let mut builder = ContextBuilder::new(budget)
                .encoding(encoding)
                .overflow(overflow)
                .min_truncated_tokens(budget.min(4));
            if xml {
                builder = builder.format(XmlFormat);
            }
            let cold = builder.build().unwrap().assemble(&results);
            let warm = builder.cache(cache.clone()).build().unwrap().assemble(&results);
            prop_assert_eq!(format!("{warm:?}"), format!("{cold:?}"), "budget {}", budget);
        }
    }
}

/// Long enough to be cut at most budgets; plain words, so a cut always finds an end.
fn prose() -> impl Strategy<Value = String> {
    prop::collection::vec(
        prop::sample::select(vec![
            "word ",
            "Sentence ends. ",
            "number 42 ",
            "<document> ",
        ]),
        1..200,
    )
    .prop_map(|pieces| pieces.concat().trim_end().to_string())
}

fn format_of(xml: bool) -> &'static dyn Format {
    if xml { &XmlFormat } else { &PlainFormat }
}

/// Tokens of a cut body's frame around its content: the format's opening for it and its
/// closing with the truncation mark, as the assembler counts them for a cut.
fn cut_frame_tokens(format: &dyn Format, encoding: Encoding) -> usize {
    let (mut open, mut close) = (String::new(), String::new());
    format.content_open("", &mut open);
    format.content_close("", true, &mut close);
    encoding.count(&open) + encoding.count(&close)
}

/// The head (marker, title, metadata) of `result` as block `index`, as the assembler writes
/// it for a block that is not cut: read off an assembly with `index - 1` blocks before it.
fn head_as_block(result: &MentorRagResult, index: usize, encoding: Encoding, xml: bool) -> String {
    let mut subset: Vec<MentorRagResult> = (1..index)
        .map(|_| MentorRagResult::from_content("x", f32::INFINITY))
        .collect();
    subset.push(result.clone());
    let mut builder = ContextBuilder::new(1 << 24)
        .encoding(encoding)
        .duplicates(Duplicates::Keep);
    if xml {
        builder = builder.format(XmlFormat);
    }
    let context = builder.build().unwrap().assemble(&subset);
    head_of_last_block(&context.text, xml)
}

/// The head of the last block of `text`: from its marker to where its body starts, without
/// the truncation mark of the XML layout (the assembler checks the room with the plain head).
fn head_of_last_block(text: &str, xml: bool) -> String {
    let blocks = if xml {
        common::read_xml(text)
    } else {
        common::read_plain(text)
    };
    let block = &text[blocks.last().unwrap().span.clone()];
    let body = if xml {
        block.find("<document_content>\n").unwrap()
    } else {
        // Head lines cannot start with a backtick: the first such line opens the body.
        block
            .match_indices('\n')
            .map(|(at, _)| at + 1)
            .find(|&at| block[at..].starts_with("```"))
            .unwrap()
    };
    block[..body].replacen(" truncated=\"true\"", "", 1)
}

proptest! {
    #![proptest_config(common::proptest_cases(1024))]

    /// Left unset, `min_truncated_tokens` is 32, or the budget when that is smaller: a block is
    /// cut only with that much room left for its content after its head and frame, and a
    /// block with that much room (plain words, which always have a place to cut) is cut
    /// rather than left out. Cut blocks are checked in both layouts.
    #[test]
    fn default_min_truncated_tokens_is_32_or_the_budget(
        results in prop::collection::vec(
            (prose(), prop::option::of(hostile_text()), score())
                .prop_map(|(content, title, score)| {
                    MentorRagResult::new(content, Some("https://x.example"), title, score)
                }),
            1..5,
        ),
        budget in prop_oneof![0usize..48, 0usize..700],
        encoding in prop::sample::select(vec![Encoding::O200kBase, Encoding::Cl100kBase]),
        xml in any::<bool>(),
    ) {
        let mut builder = ContextBuilder::new(budget).encoding(encoding);
        if xml {
            builder = builder.format(XmlFormat);
        }
        let assembler = builder.build().unwrap();
        let min = budget.min(32);
        prop_assert_eq!(assembler.min_truncated_tokens(), min);
        let context = assembler.assemble(&results);
        common::check_invariants(&context, &results, &encoding, xml, None);
        // The default is exactly the explicit setting it stands for.
        let explicit = builder.clone().min_truncated_tokens(min).build().unwrap();
        prop_assert_eq!(format!("{:?}", explicit.assemble(&results)), format!("{context:?}"));

        let format = format_of(xml);
        let frame = cut_frame_tokens(format, encoding);
        if let Some(cut) = context.citations.last().filter(|c| c.truncated) {
            // The room the cut block had: the budget less everything else in the text.
            let room = budget - (context.token_count - cut.token_count);
            let head = encoding.count(&head_of_last_block(&context.text, xml));
            prop_assert!(
                room >= head + frame + min,
                "cut with {} tokens of room, head {} frame {} min {}", room, head, frame, min
            );
            // And it keeps at least half of the room it was promised for its content: the
            // cut's move back to a word end gives up at most a tenth of what it keeps.
            let content = &results[cut.input_index].content;
            let kept = encoding.count(&content[..cut.kept_bytes.unwrap()]);
            prop_assert!(kept * 2 >= min, "a cut kept {} content tokens of {} promised", kept, min);
        } else if let Some(missed) = context
            .omitted
            .iter()
            .find(|o| o.reason == mentor_context::OmitReason::DidNotFit)
        {
            // The first result that did not fit, left out whole: its room was too small for
            // its head, the cut's frame and the minimum.
            let result = results
                .iter()
                .find(|r| r.score.to_bits() == missed.score.to_bits()
                    && r.display_title() == missed.title.as_deref())
                .unwrap();
            let (mut open, mut close) = (String::new(), String::new());
            format.open(&mut open);
            format.close(&mut close);
            let layout = encoding.count(&open) + encoding.count(&close);
            let used = if context.citations.is_empty() {
                layout
            } else {
                context.token_count
            };
            let room = budget.saturating_sub(used);
            let head = encoding.count(&head_as_block(result, context.citations.len() + 1, encoding, xml));
            prop_assert!(
                room < head + frame + min,
                "left out with {} tokens of room, head {} frame {} min {}", room, head, frame, min
            );
        }
    }
}

/// Found by `default_min_truncated_tokens_is_32_or_the_budget`: a cut aimed with byte offsets
/// into the body as written (`token_end` on the measured body) and used them as offsets into
/// the raw content. `XmlFormat` writes each `<` of its own tags as `&lt;`, three bytes longer,
/// so each attempt kept more content than aimed for and overshot; after the attempts ran out,
/// the block was left out with 266 tokens of room for a cut that needs 58. The cut now turns
/// written offsets back into content offsets.
#[test]
fn xml_cut_of_escaped_content_fills_its_room() {
    let content = CONTENT_WITH_ESCAPED_TAGS;
    let results = [MentorRagResult::new(
        content,
        Some("https://x.example"),
        None::<&str>,
        0.0,
    )];
    let context = ContextBuilder::new(272)
        .encoding(Encoding::Cl100kBase)
        .format(XmlFormat)
        .build()
        .unwrap()
        .assemble(&results);
    common::check_invariants(&context, &results, &Encoding::Cl100kBase, true, None);
    // The whole block takes 284 tokens; the head, the cut's frame and the minimum need 58.
    assert_eq!(context.citations.len(), 1, "left out with room for a cut");
    // It fills its room but for the step back to a sentence end (within the last tenth of
    // the kept text): here the kept text ends at the sentence end at 786 bytes (255 tokens);
    // the next one, at 848 bytes, would take 273.
    assert!(context.citations[0].truncated);
    assert!(
        context.token_count >= 272 - 24,
        "a cut fills its room: {}",
        context.token_count
    );
}

const CONTENT_WITH_ESCAPED_TAGS: &str = "Sentence ends. word word <document> <document> <document> <document> word Sentence ends. word <document> Sentence ends. Sentence ends. <document> word Sentence ends. word <document> <document> word <document> <document> Sentence ends. word word <document> word <document> <document> <document> <document> Sentence ends. word word word word Sentence ends. word Sentence ends. <document> Sentence ends. Sentence ends. word <document> word Sentence ends. <document> Sentence ends. word Sentence ends. Sentence ends. Sentence ends. Sentence ends. <document> Sentence ends. Sentence ends. word <document> word <document> Sentence ends. Sentence ends. Sentence ends. Sentence ends. Sentence ends. Sentence ends. word Sentence ends. word Sentence ends. Sentence ends. <document> Sentence ends. word word <document> word word word <document> Sentence ends. number 42 word number 42 number 42 number 42 word";
