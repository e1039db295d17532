//! Differential tests: the default engine (`bpe-openai`) counts exactly like the reference
//! (tiktoken-rs), so the engine changes the speed and nothing else.

use crate::common;

use mentor_context::format::XmlFormat;
use mentor_context::tokenizer::{Engine, OpenAiTokenizer, TokenCounter};
use mentor_context::wire::parse_results;
use mentor_context::{ContextBuilder, Encoding, MentorRagResult};
use proptest::prelude::*;

/// The encodings both engines ship, as (reference, default engine) pairs.
fn pairs() -> Vec<(OpenAiTokenizer, OpenAiTokenizer)> {
    [Encoding::O200kBase, Encoding::Cl100kBase]
        .into_iter()
        .map(|encoding| {
            assert_eq!(encoding.default_engine(), Engine::BpeOpenai);
            (
                encoding.with_engine(Engine::Tiktoken).unwrap(),
                encoding.with_engine(Engine::BpeOpenai).unwrap(),
            )
        })
        .collect()
}

fn fixtures() -> Vec<(String, String)> {
    common::fixture_names()
        .into_iter()
        .map(|name| {
            let json = common::fixture_text(&name);
            (name, json)
        })
        .collect()
}

fn lengths(tokenizer: &impl TokenCounter, text: &str) -> Vec<u32> {
    let mut lengths = Vec::new();
    tokenizer.token_lengths(text, &mut lengths);
    lengths
}

#[test]
fn counts_and_token_lengths_match_on_every_fixture_text() {
    for (name, json) in fixtures() {
        let results = parse_results(&json).unwrap();
        for (reference, fast) in pairs() {
            for r in &results {
                for text in [Some(&r.content), r.title.as_ref()].into_iter().flatten() {
                    assert_eq!(fast.count(text), reference.count(text), "{name}: {text:?}");
                    assert_eq!(
                        lengths(&fast, text),
                        lengths(&reference, text),
                        "{name}: token lengths differ"
                    );
                }
            }
        }
    }
}

#[test]
fn assembled_contexts_are_identical() {
    for (name, json) in fixtures() {
        let results = parse_results(&json).unwrap();
        for (reference, fast) in pairs() {
            for budget in [80, 400, 4000] {
                for xml in [false, true] {
                    let mut a = ContextBuilder::new(budget).tokenizer(reference);
                    let mut b = ContextBuilder::new(budget).tokenizer(fast);
                    if xml {
                        a = a.format(XmlFormat);
                        b = b.format(XmlFormat);
                    }
                    let (a, b) = (
                        a.build().unwrap().assemble(&results),
                        b.build().unwrap().assemble(&results),
                    );
                    assert_eq!(a, b, "{name} {} {budget} xml={xml}", reference.encoding());
                    assert_eq!(reference.count(&b.text), b.token_count);
                }
            }
        }
    }
}

#[test]
fn an_encoding_counts_with_its_default_engine() {
    let text = "Grüße, 世界! 👩🏽‍💻 <|endoftext|>\n\n  tabs\tand spaces   ";
    for &encoding in Encoding::ALL {
        let default = encoding.with_engine(encoding.default_engine()).unwrap();
        assert_eq!(encoding.count(text), default.count(text));
        assert_eq!(lengths(&encoding, text), lengths(&default, text));
        assert_eq!(encoding.max_call_bytes(), default.max_call_bytes());
        assert_eq!(encoding.name(), default.name());
    }
}

/// tiktoken-rs is handed at most 64 KiB without a split point (it panics on about a million
/// whitespace characters); bpe-openai takes the whole stretch, so a run that fits the budget
/// is kept whole. Everything else about the two contexts is the same.
#[test]
fn only_the_reference_engine_cuts_a_long_stretch_without_split_points() {
    let run = "a".repeat(200 * 1024);
    let results = [MentorRagResult::from_content(run.clone(), 0.9).with_title("Run")];
    for (reference, fast) in pairs() {
        let whole = common::assemble_checked(ContextBuilder::new(100_000), fast, &results);
        assert!(!whole.citations[0].truncated, "{}", fast.encoding());
        assert!(whole.text.contains(&run));
        let cut = common::assemble_checked(ContextBuilder::new(100_000), reference, &results);
        assert!(cut.citations[0].truncated, "{}", reference.encoding());
        assert!(cut.text.len() < 65 * 1024, "{}", cut.text.len());
    }
}

proptest! {
    #![proptest_config(common::proptest_cases(1024))]

    #[test]
    fn counts_and_token_lengths_match_on_arbitrary_unicode(
        text in prop_oneof![
            any::<String>(),
            "[ \\t\\n\\r\\PC]{0,64}",
            prop::collection::vec(
                prop_oneof![Just("word "), Just("  "), Just("\n"), Just("é"), Just("e\u{301}"),
                    Just("👩🏽‍💻"), Just("中文"), Just("'s"), Just("123456"), Just("<|endoftext|>"),
                    Just("\r\n"), Just("/"), Just("\u{a0}"), Just("ABCdef"), Just("?!")],
                0..32,
            ).prop_map(|v| v.concat()),
        ]
    ) {
        for (reference, fast) in pairs() {
            prop_assert_eq!(fast.count(&text), reference.count(&text), "{}", reference.encoding());
            prop_assert_eq!(lengths(&fast, &text), lengths(&reference, &text));
        }
    }

    #[test]
    fn contexts_match_on_arbitrary_requests(
        contents in prop::collection::vec("[ a-zA-Z0-9\\n.,'é中👩🏽‍💻]{0,200}", 1..8),
        budget in 0usize..400,
    ) {
        let results: Vec<MentorRagResult> = contents
            .iter()
            .enumerate()
            .map(|(i, c)| MentorRagResult::from_content(c.clone(), 1.0 - i as f32 / 10.0))
            .collect();
        for (reference, fast) in pairs() {
            let a = ContextBuilder::new(budget).tokenizer(reference).build().unwrap().assemble(&results);
            let b = ContextBuilder::new(budget).tokenizer(fast).build().unwrap().assemble(&results);
            prop_assert_eq!(a, b);
        }
    }
}
