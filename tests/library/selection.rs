//! The selection options through the public API: the limit per source, duplicates by
//! content, the head cap, the budget from a model's window, the explanation of an empty
//! context, and what an order does when renumbering would cost more than the budget.

use crate::common;

use mentor_context::budget::ModelWindow;
use mentor_context::format::{BlockHead, Format, push_line};
use mentor_context::tokenizer::TokenCounter;
use mentor_context::{ContextBuilder, Duplicates, Encoding, MentorRagResult, OmitReason, Order};

fn doc(title: &str, url: &str, content: &str, score: f32) -> MentorRagResult {
    MentorRagResult::from_content(content, score)
        .with_title(title)
        .with_source_url(url)
}

#[test]
fn the_limit_per_source_gives_other_sources_the_room() {
    let results = [
        doc("A1", "https://a.example", "First chunk of A.", 0.9),
        doc("A2", "https://a.example", "Second chunk of A.", 0.8),
        doc("A3", "https://a.example", "Third chunk of A.", 0.7),
        doc("B1", "https://b.example", "Only chunk of B.", 0.2),
        MentorRagResult::from_content("No source.", 0.1).with_title("N1"),
        MentorRagResult::from_content("No source either.", 0.05).with_title("N2"),
    ];
    let context = common::assemble_checked(
        ContextBuilder::new(1000).max_per_source(2),
        Encoding::O200kBase,
        &results,
    );
    let titles: Vec<_> = context
        .citations
        .iter()
        .map(|c| c.title.clone().unwrap())
        .collect();
    // Results without a URL are not counted as one source.
    assert_eq!(titles, ["A1", "A2", "B1", "N1", "N2"]);
    assert_eq!(context.omitted[0].reason, OmitReason::OverSourceLimit);
    assert_eq!(context.omitted[0].title.as_deref(), Some("A3"));
}

#[test]
fn content_duplicates_leave_mirrors_out() {
    let results = [
        doc(
            "Original",
            "https://a.example/guide",
            "The same chunk.",
            0.9,
        ),
        doc(
            "Mirror",
            "https://mirror.example/guide",
            "The same chunk.",
            0.8,
        ),
        doc("Other", "https://b.example", "Another chunk.", 0.7),
    ];
    let titles = |duplicates| {
        let context = ContextBuilder::new(1000)
            .duplicates(duplicates)
            .build()
            .unwrap()
            .assemble(&results);
        context
            .citations
            .iter()
            .map(|c| c.title.clone().unwrap())
            .collect::<Vec<_>>()
    };
    assert_eq!(
        titles(Duplicates::UrlAndContent),
        ["Original", "Mirror", "Other"]
    );
    assert_eq!(titles(Duplicates::Content), ["Original", "Other"]);
    assert_eq!(titles(Duplicates::Keep), ["Original", "Mirror", "Other"]);
}

#[test]
fn a_capped_head_keeps_the_top_result_and_says_so_on_the_chip() {
    let long = "A long abstract that someone put in the metadata. ".repeat(100);
    let results = [
        doc(
            "Prices",
            "https://a.example",
            "Plan B costs 12 EUR a month.",
            0.9,
        )
        .with_metadata([("abstract", long.as_str())]),
        doc("Other", "https://b.example", "Plan A is free.", 0.5),
    ];
    let uncapped = ContextBuilder::new(60).build().unwrap().assemble(&results);
    assert_eq!(uncapped.omitted[0].title.as_deref(), Some("Prices"));
    assert_eq!(uncapped.omitted[0].reason, OmitReason::DidNotFit);

    let capped = common::assemble_checked(
        ContextBuilder::new(60).max_head_tokens(16),
        Encoding::O200kBase,
        &results,
    );
    let chip = &capped.citations[0];
    assert_eq!(chip.title.as_deref(), Some("Prices"));
    assert!(chip.head_shortened);
    assert_eq!(
        chip.metadata.as_ref().unwrap()["abstract"].as_deref(),
        Some(long.as_str())
    );
    let head = capped.text.split("```").next().unwrap();
    assert!(
        head.starts_with("[1] Prices\nabstract: A long abstract"),
        "{head}"
    );
    assert!(head.ends_with("…\n"), "{head}");
    assert!(Encoding::O200kBase.count(head) <= 16);
    // A head under the cap is not touched, and its chip says so.
    assert!(!capped.citations.get(1).is_some_and(|c| c.head_shortened));
}

#[test]
fn a_models_window_sets_the_budget_and_the_report_states_the_headroom() {
    let results = [doc(
        "Prices",
        "https://a.example",
        "Plan B costs 12 EUR.",
        0.9,
    )];
    let assembler = ContextBuilder::for_model("gpt-4o", 1000, 350)
        .unwrap()
        .build()
        .unwrap();
    assert_eq!(assembler.budget(), 128_000 - 1350);
    let context = assembler.assemble(&results);
    let window = context.window.as_ref().unwrap();
    assert_eq!(window.context_window, 128_000);
    assert_eq!(context.headroom, Some(128_000 - 1350 - context.token_count));
    let json = serde_json::to_value(&context).unwrap();
    assert_eq!(json["window"]["reserveOutput"], 1000);
    assert_eq!(json["headroom"], 128_000 - 1350 - context.token_count);
    // Setting a budget afterwards drops the window: nothing to report headroom against.
    let plain = assembler.with_budget(500).unwrap();
    let context = plain.assemble(&results);
    assert_eq!((context.window, context.headroom), (None, None));
    assert!(ContextBuilder::for_model("gpt-4", 8000, 500).is_err());
    assert!(ContextBuilder::for_model("no-such-model", 0, 0).is_err());
    assert_eq!(ModelWindow::new("gpt-4", 100, 92).unwrap().budget(), 8000);
}

#[test]
fn the_smallest_budget_is_the_least_budget_that_works() {
    let results = common::fixture("pricing");
    for builder in [
        ContextBuilder::new(10),
        ContextBuilder::new(10).overflow(mentor_context::Overflow::Skip),
        ContextBuilder::new(10)
            .format(mentor_context::format::XmlFormat)
            .header("Cite as [n]."),
    ] {
        let Some(mentor_context::budget::SmallestBudget::Exactly(need)) =
            builder.build().unwrap().smallest_budget(&results)
        else {
            panic!("no exact need")
        };
        let works = |budget| {
            !builder
                .clone()
                .budget(budget)
                .build()
                .unwrap()
                .assemble(&results)
                .citations
                .is_empty()
        };
        assert!(works(need), "{need}");
        assert!(!works(need - 1), "{need}");
    }
    let none = ContextBuilder::new(10).min_score(5.0).build().unwrap();
    assert_eq!(none.smallest_budget(&results), None);
}

/// A need beyond the search is said to be beyond it, not given as the lower bound the search
/// started from: a block that cannot be cut stops the truncate policy before a small one.
#[test]
fn a_need_beyond_the_search_is_reported_as_more_than() {
    let results = [
        MentorRagResult::from_content("`".repeat(40_000), 1.0),
        MentorRagResult::from_content("d", 0.5),
    ];
    let assembler = ContextBuilder::new(50).build().unwrap();
    assert!(assembler.assemble(&results).citations.is_empty());
    let need = assembler.smallest_budget(&results);
    let Some(mentor_context::budget::SmallestBudget::MoreThan(bound)) = need else {
        panic!("{need:?}")
    };
    assert!(
        ContextBuilder::new(bound)
            .build()
            .unwrap()
            .assemble(&results)
            .citations
            .is_empty()
    );
}

/// A format whose heads cost more the later a long title stands: renumbering changes the
/// total, which the built-in formats never do.
struct Weighted;

impl Format for Weighted {
    fn name(&self) -> &str {
        "weighted"
    }
    fn head(&self, head: &BlockHead<'_>, out: &mut String) {
        out.push_str(&format!("[{}]", head.index));
        let title = head.title.unwrap_or_default();
        for _ in 0..head.index * title.len() {
            out.push_str(" x");
        }
        out.push(' ');
        push_line(out, title);
        out.push('\n');
    }
}

#[test]
fn an_order_that_would_overflow_the_budget_keeps_the_ranking() {
    // Ranked: the short title first. As given, the long title stands first and the short
    // one second: cheaper.
    let results = [
        MentorRagResult::from_content("Body.", 0.5).with_title("Long title"),
        MentorRagResult::from_content("Other body.", 0.9).with_title("S"),
    ];
    let by_score = ContextBuilder::new(1000).format(Weighted).build().unwrap();
    let exact = by_score.assemble(&results).token_count;
    let budget_for = |order, budget| {
        ContextBuilder::new(budget)
            .format(Weighted)
            .order(order)
            .build()
            .unwrap()
            .assemble(&results)
    };
    // With room, as given is applied and cheaper.
    let roomy = budget_for(Order::AsGiven, 1000);
    assert_eq!(roomy.citations[0].title.as_deref(), Some("Long title"));
    assert!(roomy.token_count < exact);
    assert_eq!(Encoding::O200kBase.count(&roomy.text), roomy.token_count);
    // The reverse: ranked order is the cheap one when the long title ranks first.
    let reversed = [
        MentorRagResult::from_content("Body.", 0.9).with_title("Long title"),
        MentorRagResult::from_content("Other body.", 0.5).with_title("S"),
    ];
    let ranked = ContextBuilder::new(1000)
        .format(Weighted)
        .build()
        .unwrap()
        .assemble(&reversed);
    let given = [reversed[1].clone(), reversed[0].clone()];
    let tight = ContextBuilder::new(ranked.token_count)
        .format(Weighted)
        .order(Order::AsGiven)
        .build()
        .unwrap()
        .assemble(&given);
    // As given would put "S" first and the long title second, costing more than the budget:
    // the ranking stays, and the count is still exact.
    assert_eq!(tight.citations.len(), 2);
    assert_eq!(tight.citations[0].title.as_deref(), Some("Long title"));
    assert_eq!(Encoding::O200kBase.count(&tight.text), tight.token_count);
    assert!(tight.token_count <= tight.budget);
}

#[test]
fn hostile_sizes_stay_exact_with_every_option() {
    // A megabyte title and metadata value under a head cap; 50,000 results in every order.
    let huge = "word ".repeat(200_000);
    let results: Vec<MentorRagResult> = (0..50_000)
        .map(|i| {
            let r = doc(
                &format!("doc {i}"),
                &format!("https://s{}.example", i % 7),
                &format!("Chunk {i} of the handbook."),
                (i % 1000) as f32 / 1000.0,
            );
            if i % 10_000 == 0 {
                r.with_title(huge.clone())
                    .with_metadata([("k", huge.as_str())])
            } else {
                r
            }
        })
        .collect();
    for &order in Order::ALL {
        let context = ContextBuilder::new(2000)
            .order(order)
            .max_head_tokens(24)
            .max_per_source(3)
            .duplicates(Duplicates::Content)
            .build()
            .unwrap()
            .assemble(&results);
        common::check_any_order(&context, &results, &Encoding::O200kBase, false, None);
        assert!(context.citations.len() <= 7 * 3);
    }
}
