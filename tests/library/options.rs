//! Each option of the builder does what its documentation says, on small hand-made inputs.

use crate::common;
use crate::stand_ins::GREEDY;

use mentor_context::tokenizer::TokenCounter;
use mentor_context::{ContextBuilder, Duplicates, Encoding, MentorRagResult, OmitReason, Overflow};

fn doc(content: &str, url: &str, score: f32) -> MentorRagResult {
    MentorRagResult::new(
        content,
        Some(url),
        Some(url.trim_start_matches("https://")),
        score,
    )
}

fn reasons(context: &mentor_context::AssembledContext) -> Vec<OmitReason> {
    context.omitted.iter().map(|o| o.reason).collect()
}

/// A long result between two short ones: the long one does not fit a small budget.
fn long_in_the_middle() -> Vec<MentorRagResult> {
    vec![
        doc("Short first.", "https://a.example", 0.9),
        doc(
            &"A long sentence that goes on. ".repeat(60),
            "https://b.example",
            0.8,
        ),
        doc("Short last.", "https://c.example", 0.7),
    ]
}

#[test]
fn ranks_by_score_stably_with_nan_last() {
    let results = vec![
        doc("nan", "https://nan.example", f32::NAN),
        doc("low", "https://low.example", 0.1),
        doc("tie one", "https://tie1.example", 0.5),
        doc("high", "https://high.example", f32::INFINITY),
        doc("tie two", "https://tie2.example", 0.5),
    ];
    let context = ContextBuilder::new(1000)
        .build()
        .unwrap()
        .assemble(&results);
    let order: Vec<_> = context
        .citations
        .iter()
        .map(|c| c.source_url.as_deref().unwrap())
        .collect();
    assert_eq!(
        order,
        [
            "https://high.example",
            "https://tie1.example",
            "https://tie2.example",
            "https://low.example",
            "https://nan.example"
        ]
    );
}

#[test]
fn truncate_cuts_the_block_that_does_not_fit_and_stops() {
    let results = long_in_the_middle();
    let context = ContextBuilder::new(120).build().unwrap().assemble(&results);
    let flags: Vec<_> = context.citations.iter().map(|c| c.truncated).collect();
    assert_eq!(flags, [false, true]);
    assert_eq!(reasons(&context), [OmitReason::DidNotFit]);
    assert!(context.text.ends_with("```\n(truncated)\n"));
    common::check_invariants(&context, &results, &Encoding::O200kBase, false, None);
}

#[test]
fn a_cut_needs_min_truncated_tokens_of_room() {
    let results = long_in_the_middle();
    let cut = ContextBuilder::new(120).min_truncated_tokens(40);
    assert_eq!(cut.build().unwrap().assemble(&results).citations.len(), 2);
    // Far more than the room left after the first block: the long one is left out instead.
    let no_cut = ContextBuilder::new(120).min_truncated_tokens(100);
    let context = no_cut.build().unwrap().assemble(&results);
    assert_eq!(context.citations.len(), 1);
    assert_eq!(
        reasons(&context),
        [OmitReason::DidNotFit, OmitReason::DidNotFit]
    );
}

#[test]
fn stop_leaves_out_the_rest_and_skip_keeps_trying() {
    let results = long_in_the_middle();
    let stop = ContextBuilder::new(120).overflow(Overflow::Stop);
    let context = stop.build().unwrap().assemble(&results);
    assert_eq!(context.citations.len(), 1);
    assert_eq!(
        reasons(&context),
        [OmitReason::DidNotFit, OmitReason::DidNotFit]
    );

    let skip = ContextBuilder::new(120).overflow(Overflow::Skip);
    let context = skip.build().unwrap().assemble(&results);
    let urls: Vec<_> = context
        .citations
        .iter()
        .map(|c| c.source_url.as_deref())
        .collect();
    assert_eq!(urls, [Some("https://a.example"), Some("https://c.example")]);
    assert!(context.citations.iter().all(|c| !c.truncated));
    assert_eq!(
        context.citations[1].index, 2,
        "numbered as in the text, not by rank"
    );
}

#[test]
fn min_score_max_blocks_and_duplicates() {
    let results = vec![
        doc("same", "https://same.example", 0.6),
        doc("same", "https://same.example", 0.9),
        doc("same", "https://other.example", 0.8),
        doc("low", "https://low.example", 0.05),
        doc("nan", "https://nan.example", f32::NAN),
        doc("fourth", "https://fourth.example", 0.3),
    ];
    let context = ContextBuilder::new(1000)
        .min_score(0.1)
        .max_blocks(2)
        .build()
        .unwrap()
        .assemble(&results);
    let kept: Vec<_> = context.citations.iter().map(|c| c.score).collect();
    assert_eq!(kept, [0.9, 0.8], "the best-scored copy is kept");
    assert_eq!(
        reasons(&context),
        [
            OmitReason::Duplicate,
            OmitReason::OverBlockLimit,
            OmitReason::BelowMinScore,
            OmitReason::BelowMinScore
        ]
    );
    let keep = ContextBuilder::new(1000).duplicates(Duplicates::Keep);
    assert_eq!(keep.build().unwrap().assemble(&results).citations.len(), 6);
}

#[test]
fn hidden_metadata_stays_on_the_chip_only() {
    let results = [
        MentorRagResult::new("Body.", None::<String>, Some("T"), 1.0).with_metadata([
            ("author", "Ann"),
            ("chunk_id", "c-17"),
            ("year", "2026"),
        ]),
    ];
    let context = ContextBuilder::new(100)
        .hide_metadata_key("chunk_id")
        .build()
        .unwrap()
        .assemble(&results);
    assert_eq!(
        context.text,
        "[1] T\nauthor: Ann\nyear: 2026\n```\nBody.\n```\n"
    );
    let chip = context.citations[0].metadata.as_ref().unwrap();
    assert_eq!(chip["chunk_id"].as_deref(), Some("c-17"));
}

#[test]
fn the_header_is_counted_in_the_budget() {
    let results = long_in_the_middle();
    let header = "Answer from the sources below and cite them as [n].   \n\n";
    let context = ContextBuilder::new(120)
        .header(header)
        .build()
        .unwrap()
        .assemble(&results);
    assert!(
        context
            .text
            .starts_with("Answer from the sources below and cite them as [n].\n[1]")
    );
    assert_eq!(
        Encoding::O200kBase.count(&context.text),
        context.token_count
    );
    assert!(context.token_count <= 120);
    // Nothing fits after the header: the text is the header alone.
    let tiny = ContextBuilder::new(14)
        .header(header)
        .build()
        .unwrap()
        .assemble(&results);
    assert_eq!(
        tiny.text,
        "Answer from the sources below and cite them as [n].\n"
    );
    assert!(tiny.citations.is_empty());
}

#[test]
fn empty_input_and_zero_budget_give_empty_text() {
    let results = long_in_the_middle();
    for budget in [0, 1] {
        let context = ContextBuilder::new(budget)
            .build()
            .unwrap()
            .assemble(&results);
        assert_eq!((context.text.as_str(), context.token_count), ("", 0));
        assert_eq!(context.omitted.len(), 3);
    }
    let context = ContextBuilder::new(100).build().unwrap().assemble(&[]);
    assert_eq!((context.text.as_str(), context.token_count), ("", 0));
}

#[test]
fn the_report_serializes_in_the_wire_style() {
    let results = long_in_the_middle();
    let context = ContextBuilder::new(30).build().unwrap().assemble(&results);
    let json = serde_json::to_value(&context).unwrap();
    // serde_json's map sorts its keys.
    let keys: Vec<_> = json.as_object().unwrap().keys().cloned().collect();
    assert_eq!(keys, common::REPORT_KEYS);
    let chip = json["citations"][0].as_object().unwrap();
    let keys: Vec<_> = chip.keys().cloned().collect();
    let expected = [
        "fingerprint",
        "headShortened",
        "index",
        "inputIndex",
        "keptBytes",
        "keptUtf16",
        "metadata",
        "score",
        "sourceUrl",
        "title",
        "tokenCount",
        "truncated",
    ];
    assert_eq!(keys, expected);
    assert_eq!(json["omitted"][0]["reason"], "didNotFit");
    let omission = json["omitted"][0].as_object().unwrap();
    let keys: Vec<_> = omission.keys().cloned().collect();
    assert_eq!(
        keys,
        ["inputIndex", "reason", "score", "sourceUrl", "title"]
    );
    // The report reads back as it was written: a follow-up turn or `cite` needs that.
    let back: mentor_context::AssembledContext<'static> = serde_json::from_value(json).unwrap();
    assert_eq!(back, context);
}

#[test]
fn shared_types_are_send_and_sync() {
    fn send_sync<T: Send + Sync>() {}
    send_sync::<ContextBuilder>();
    send_sync::<mentor_context::tokenizer::TokenCache>();
    send_sync::<mentor_context::AssembledContext<'static>>();
    send_sync::<MentorRagResult>();
    send_sync::<mentor_context::Error>();
}

#[test]
fn joins_a_tokenizer_cannot_vouch_for_are_recounted() {
    let results = [
        doc("a", "https://one.example", 0.9),
        doc("a", "https://two.example", 0.8),
    ];
    // Each block, "bcdea", is 2 tokens: counted apart, both fit in 5. Joined they are 6.
    assert_eq!(GREEDY.count("bcdeabcdea"), 6);
    let context = GREEDY.bare(5, "bcde").build().unwrap().assemble(&results);
    assert_eq!(context.text, "bcdea");
    assert_eq!(context.token_count, 2);
    assert_eq!(context.citations.len(), 1);
    assert_eq!(reasons(&context), [OmitReason::DidNotFit]);
    // With room for both, the recount is what is reported.
    let context = GREEDY.bare(6, "bcde").build().unwrap().assemble(&results);
    assert_eq!(
        (context.text.as_str(), context.token_count),
        ("bcdeabcdea", 6)
    );
}
