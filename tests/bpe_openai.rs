//! Differential tests: the `bpe-openai` backend counts exactly like tiktoken-rs, so swapping it
//! in changes the speed and nothing else.
#![cfg(feature = "bpe-openai")]

mod common;

use mentor_context::{
    ContextBuilder, Encoding, FastEncoding, TokenCounter, XmlFormat, parse_results,
};
use proptest::prelude::*;

const PAIRS: [(Encoding, FastEncoding); 2] = [
    (Encoding::O200kBase, FastEncoding::O200kBase),
    (Encoding::Cl100kBase, FastEncoding::Cl100kBase),
];

fn fixtures() -> Vec<(String, String)> {
    common::fixture_names()
        .into_iter()
        .map(|name| {
            let json = common::fixture_text(&name);
            (name, json)
        })
        .collect()
}

#[test]
fn counts_match_on_every_fixture_text() {
    for (name, json) in fixtures() {
        let results = parse_results(&json).unwrap();
        for (slow, fast) in PAIRS {
            for r in &results {
                for text in [Some(&r.content), r.title.as_ref()].into_iter().flatten() {
                    assert_eq!(fast.count(text), slow.count(text), "{name}: {text:?}");
                    let (mut a, mut b) = (Vec::new(), Vec::new());
                    fast.token_lengths(text, &mut a);
                    slow.token_lengths(text, &mut b);
                    assert_eq!(a, b, "{name}: token lengths differ");
                }
            }
        }
    }
}

#[test]
fn assembled_contexts_are_identical() {
    for (name, json) in fixtures() {
        let results = parse_results(&json).unwrap();
        for (slow, fast) in PAIRS {
            for budget in [80, 400, 4000] {
                for xml in [false, true] {
                    let mut a = ContextBuilder::new(budget).encoding(slow);
                    let mut b = ContextBuilder::new(budget).tokenizer(fast);
                    if xml {
                        a = a.format(XmlFormat);
                        b = b.format(XmlFormat);
                    }
                    let (a, b) = (
                        a.build().unwrap().assemble(&results),
                        b.build().unwrap().assemble(&results),
                    );
                    assert_eq!(a, b, "{name} {slow} {budget} xml={xml}");
                    assert_eq!(fast.count(&b.text), b.token_count);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2048))]

    #[test]
    fn counts_match_on_arbitrary_unicode(
        text in prop_oneof![
            any::<String>(),
            "[ \\t\\n\\r\\PC]{0,64}",
            prop::collection::vec(
                prop_oneof![Just("word "), Just("  "), Just("\n"), Just("é"), Just("e\u{301}"),
                    Just("👩🏽‍💻"), Just("中文"), Just("'s"), Just("123456"), Just("<|endoftext|>")],
                0..32,
            ).prop_map(|v| v.concat()),
        ]
    ) {
        for (slow, fast) in PAIRS {
            prop_assert_eq!(fast.count(&text), slow.count(&text), "{}", slow);
        }
    }
}
