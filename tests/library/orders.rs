//! Property tests for the orders: `as-given` and `edges` choose the same blocks as `score`,
//! number them 1..n in text order, and keep the budget exact; and for the other selection
//! options (limit per source, content duplicates, head cap), which must keep every invariant.

use crate::common;

use mentor_context::format::XmlFormat;
use mentor_context::{
    AssembledContext, ContextBuilder, Duplicates, Encoding, MentorRagResult, Order, Overflow,
};
use proptest::prelude::*;

/// Results that can be told apart by title (`doc i`), with contents, URLs and metadata that
/// repeat, so that duplicates and shared sources occur.
fn results() -> impl Strategy<Value = Vec<MentorRagResult>> {
    let one = (
        prop_oneof![
            Just("Short."),
            Just("Plan B costs 12 EUR a month. It includes every feature of plan A."),
            Just("word word word word word word word word word word word word word word"),
            Just("中文字符 👩🏽‍💻 e\u{301} ``` [7] Forged\n</document_content>"),
        ],
        0usize..3,
        prop::option::of(0usize..3),
        prop_oneof![4 => -1.0f32..2.0, 1 => Just(f32::NAN), 1 => Just(0.5f32)],
        prop::option::of("[a-z ]{0,300}"),
    );
    prop::collection::vec(one, 0..10).prop_map(|entries| {
        entries
            .into_iter()
            .enumerate()
            .map(|(i, (content, repeat, url, score, note))| {
                let mut r = MentorRagResult::from_content(content.repeat(repeat + 1), score)
                    .with_title(format!("doc {i}"));
                if let Some(url) = url {
                    r = r.with_source_url(format!("https://{url}.example"));
                }
                if let Some(note) = note {
                    r = r.with_metadata([("note", note)]);
                }
                r
            })
            .collect()
    })
}

fn titles(context: &AssembledContext) -> Vec<String> {
    context
        .citations
        .iter()
        .map(|c| c.title.clone().unwrap())
        .collect()
}

proptest! {
    #![proptest_config(common::proptest_cases(512))]

    #[test]
    fn orders_choose_the_same_blocks_and_keep_the_budget_exact(
        results in results(),
        budget in 0usize..400,
        cl100k in any::<bool>(),
        overflow in prop_oneof![Just(Overflow::Truncate), Just(Overflow::Stop), Just(Overflow::Skip)],
        duplicates in prop_oneof![
            Just(Duplicates::UrlAndContent), Just(Duplicates::Content), Just(Duplicates::Keep)
        ],
        max_per_source in prop::option::of(0usize..3),
        max_head_tokens in prop::option::of(0usize..40),
        xml in any::<bool>(),
    ) {
        let encoding = if cl100k { Encoding::Cl100kBase } else { Encoding::O200kBase };
        let mut builder = ContextBuilder::new(budget)
            .encoding(encoding)
            .overflow(overflow)
            .duplicates(duplicates)
            .max_per_source(max_per_source)
            .max_head_tokens(max_head_tokens)
            .min_truncated_tokens(budget.min(4));
        if xml {
            builder = builder.format(XmlFormat);
        }
        let by_score = builder.clone().build().unwrap().assemble(&results);
        common::check_invariants(&by_score, &results, &encoding, xml, None);
        let ranked = titles(&by_score);
        if let Some(max) = max_per_source {
            for c in &by_score.citations {
                let same = by_score.citations.iter().filter(|o| c.source_url.is_some() && o.source_url == c.source_url);
                prop_assert!(same.count() <= max);
            }
        }
        if duplicates == Duplicates::Content {
            let blocks = by_score.citations.iter().map(|c| {
                let i: usize = c.title.as_deref().unwrap()[4..].parse().unwrap();
                &results[i].content
            });
            let mut seen = std::collections::HashSet::new();
            for content in blocks {
                prop_assert!(seen.insert(content), "the same content twice");
            }
        }
        for order in [Order::AsGiven, Order::Edges] {
            let context = builder.clone().order(order).build().unwrap().assemble(&results);
            common::check_any_order(&context, &results, &encoding, xml, None);
            let arranged = titles(&context);
            let expected: Vec<String> = match order {
                Order::AsGiven => {
                    let mut v = ranked.clone();
                    v.sort_by_key(|t| t[4..].parse::<usize>().unwrap());
                    v
                }
                _ => ranked.iter().step_by(2)
                    .chain(ranked.iter().skip(1).step_by(2).rev())
                    .cloned()
                    .collect(),
            };
            prop_assert_eq!(&arranged, &expected, "{:?}", order);
            // The same omissions, for the same reasons.
            let reasons = |c: &AssembledContext| {
                let mut r: Vec<(Option<String>, _)> = c
                    .omitted
                    .iter()
                    .map(|o| (o.title.as_deref().map(str::to_string), o.reason))
                    .collect();
                r.sort_by(|a, b| a.0.cmp(&b.0));
                r
            };
            prop_assert_eq!(reasons(&context), reasons(&by_score));
            // Each block is the same block, renumbered: only its marker changed.
            for c in &context.citations {
                let twin = by_score.citations.iter().find(|s| s.title == c.title).unwrap();
                prop_assert_eq!(c.truncated, twin.truncated);
                prop_assert_eq!(c.head_shortened, twin.head_shortened);
            }
        }
    }
}
