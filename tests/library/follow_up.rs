//! Follow-up turns over the three-turn conversation in `fixtures/conversation/`: each turn's
//! text starts with the previous text up to its closing, byte for byte; earlier chips keep
//! their numbers; new results equal to earlier blocks are not repeated; and the budget is
//! still exact.

use crate::common;
use crate::stand_ins::GREEDY;

use mentor_context::format::{Format, PlainFormat, XmlFormat};
use mentor_context::tokenizer::TokenCounter;
use mentor_context::{
    AssembledContext, Assembler, ContextBuilder, Encoding, Error, Fingerprint, MentorRagResult,
    OmitReason, Overflow,
};

fn turn(n: usize) -> Vec<MentorRagResult> {
    common::fixture(&format!("conversation/turn-{n}"))
}

/// The report as a backend would keep it between turns: written as JSON, read back.
fn stored(context: &AssembledContext<'_>) -> AssembledContext<'static> {
    let json = serde_json::to_string(context).unwrap();
    serde_json::from_str(&json).unwrap()
}

fn closing(format: &dyn Format) -> String {
    let mut close = String::new();
    format.close(&mut close);
    close
}

/// Everything a follow-up turn promises, for `next` after `previous` with `results`.
#[track_caller]
fn check_follow_up(
    previous: &AssembledContext<'_>,
    next: &AssembledContext<'_>,
    results: &[MentorRagResult],
    close: &str,
) {
    let encoding = Encoding::O200kBase;
    // Exact and within the budget.
    assert_eq!(encoding.count(&next.text), next.token_count);
    assert!(next.token_count <= next.budget);
    // The previous text up to its closing starts the new text, byte for byte.
    let prefix = previous.text.strip_suffix(close).unwrap();
    assert!(next.text.starts_with(prefix), "prefix changed");
    assert!(next.text.ends_with(close));
    // Earlier chips unchanged and first; new ones numbered on.
    let earlier = previous.citations.len();
    assert_eq!(next.citations[..earlier], previous.citations[..]);
    for (n, chip) in next.citations.iter().enumerate() {
        assert_eq!(chip.index, n + 1);
    }
    // Each new block's marker appears after the previous text.
    let added = &next.text[prefix.len()..];
    for chip in &next.citations[earlier..] {
        let plain = format!("[{}]", chip.index);
        let xml = format!("<document index=\"{}\"", chip.index);
        assert!(added.contains(&plain) || added.contains(&xml), "{plain}");
    }
    // Every new result is either a new chip or omitted, once; none repeats an earlier block.
    let new_inputs = next.citations[earlier..].iter().map(|c| c.input_index);
    let omitted_inputs = next.omitted.iter().map(|o| o.input_index);
    let mut inputs: Vec<usize> = new_inputs.chain(omitted_inputs).collect();
    inputs.sort_unstable();
    assert_eq!(inputs, (0..results.len()).collect::<Vec<_>>());
    let same = |chip: &mentor_context::Citation, result: &MentorRagResult| {
        chip.source_url == result.source_url && chip.fingerprint == Fingerprint::of(&result.content)
    };
    for chip in &next.citations[earlier..] {
        let result = &results[chip.input_index];
        assert!(
            !previous.citations.iter().any(|old| same(old, result)),
            "block {} repeats an earlier block",
            chip.index
        );
    }
    for omission in &next.omitted {
        let result = &results[omission.input_index];
        let repeats = previous.citations.iter().any(|old| same(old, result));
        if omission.reason == OmitReason::AlreadyInContext {
            assert!(repeats, "input {} is no repeat", omission.input_index);
        }
    }
}

fn assembler(budget: usize, xml: bool) -> Assembler {
    let builder = ContextBuilder::new(budget).encoding(Encoding::O200kBase);
    if xml {
        builder.format(XmlFormat).build().unwrap()
    } else {
        builder.build().unwrap()
    }
}

#[test]
fn three_turns_keep_the_prefix_the_numbers_and_the_budget() {
    for xml in [false, true] {
        let close = if xml {
            closing(&XmlFormat)
        } else {
            closing(&PlainFormat)
        };
        for budget in [150, 300, 450, 700, 2000] {
            let assembler = assembler(budget, xml);
            let (one, two, three) = (turn(1), turn(2), turn(3));
            let first = stored(&assembler.assemble(&one));
            let second = stored(&assembler.assemble_follow_up(&first, &two).unwrap());
            check_follow_up(&first, &second, &two, &close);
            let third = assembler.assemble_follow_up(&second, &three).unwrap();
            check_follow_up(&second, &third, &three, &close);
            // The first turn's text survives two turns.
            let first_prefix = first.text.strip_suffix(close.as_str()).unwrap();
            assert!(third.text.starts_with(first_prefix));
        }
    }
}

#[test]
fn repeats_of_earlier_blocks_are_reported_and_new_ones_fill_the_budget() {
    let assembler = assembler(2000, false);
    let (one, two, three) = (turn(1), turn(2), turn(3));
    let first = assembler.assemble(&one);
    assert_eq!(first.citations.len(), 3);
    let second = assembler.assemble_follow_up(&first, &two).unwrap();
    // turn-2 input 1 is turn-1's price list again; input 2 shares its URL, not its content.
    let repeat = second.omitted.iter().find(|o| o.input_index == 1).unwrap();
    assert_eq!(repeat.reason, OmitReason::AlreadyInContext);
    let inputs: Vec<usize> = second.citations[3..]
        .iter()
        .map(|c| c.input_index)
        .collect();
    assert_eq!(inputs, [0, 2, 3]);
    let third = assembler.assemble_follow_up(&second, &three).unwrap();
    let numbers: Vec<(usize, usize)> = third.citations[6..]
        .iter()
        .map(|c| (c.index, c.input_index))
        .collect();
    assert_eq!(numbers, [(7, 0), (8, 2), (9, 3)]);
    assert_eq!(third.omitted[0].reason, OmitReason::AlreadyInContext);
    assert_eq!(third.omitted[0].input_index, 1);

    // At budgets that end inside turn 3, the new blocks fill what is left, the last one cut
    // when the rest of it does not fit: exact, within the budget, and nearly full.
    let previous = Encoding::O200kBase.count(&second.text);
    let mut cuts = 0;
    for extra in (40..=200).step_by(10) {
        let budget = previous + extra;
        let third = assembler_with(budget)
            .assemble_follow_up(&second, &three)
            .unwrap();
        assert_eq!(Encoding::O200kBase.count(&third.text), third.token_count);
        assert!(third.token_count <= budget);
        if third.citations.last().unwrap().truncated {
            cuts += 1;
            // A cut steps back to a sentence or word end within 256 bytes (README, Limits).
            assert!(
                third.token_count + 64 >= budget,
                "{} of {budget}",
                third.token_count
            );
        }
    }
    assert!(cuts > 0, "no budget cut a new block");
}

fn assembler_with(budget: usize) -> Assembler {
    assembler(budget, false)
}

#[test]
fn every_budget_past_the_previous_text_is_exact() {
    for xml in [false, true] {
        let (one, two) = (turn(1), turn(2));
        let first = assembler(2000, xml).assemble(&one);
        let previous = Encoding::O200kBase.count(&first.text);
        for budget in previous..previous + 250 {
            let next = assembler(budget, xml)
                .assemble_follow_up(&first, &two)
                .unwrap();
            assert_eq!(Encoding::O200kBase.count(&next.text), next.token_count);
            assert!(
                next.token_count <= budget,
                "{} > {budget}",
                next.token_count
            );
        }
    }
}

#[test]
fn earlier_blocks_over_the_budget_are_a_typed_error() {
    let (one, two) = (turn(1), turn(2));
    let first = assembler(2000, false).assemble(&one);
    let tokens = Encoding::O200kBase.count(&first.text);
    let err = assembler(tokens - 1, false)
        .assemble_follow_up(&first, &two)
        .unwrap_err();
    assert!(
        matches!(err, Error::EarlierBlocksOverBudget { tokens: t, budget } if t == tokens && budget == tokens - 1),
        "{err}"
    );
    // Exactly the budget: nothing new fits, nothing old is lost.
    let full = assembler(tokens, false)
        .assemble_follow_up(&first, &two)
        .unwrap();
    assert_eq!(full.text, first.text);
    assert_eq!(full.citations, first.citations);
    assert!(full.omitted.iter().all(|o| matches!(
        o.reason,
        OmitReason::DidNotFit | OmitReason::AlreadyInContext
    )));
}

#[test]
fn a_report_from_another_assembler_is_refused() {
    let (one, two) = (turn(1), turn(2));
    let plain = assembler(2000, false).assemble(&one);
    let xml = assembler(2000, true).assemble(&one);
    for (previous, continuing) in [
        (&plain, assembler(2000, true)),
        (&xml, assembler(2000, false)),
    ] {
        let err = continuing.assemble_follow_up(previous, &two).unwrap_err();
        assert!(matches!(err, Error::PreviousTurnMismatch { .. }), "{err}");
    }
    let cl100k = ContextBuilder::new(2000)
        .encoding(Encoding::Cl100kBase)
        .build()
        .unwrap();
    let err = cl100k.assemble_follow_up(&plain, &two).unwrap_err();
    assert!(err.to_string().contains("o200k_base"), "{err}");
    let headed = ContextBuilder::new(2000)
        .header("Sources:")
        .build()
        .unwrap();
    assert!(headed.assemble_follow_up(&plain, &two).is_err());
    let mut renumbered = plain.clone();
    renumbered.citations.swap(0, 1);
    let err = assembler(2000, false)
        .assemble_follow_up(&renumbered, &two)
        .unwrap_err();
    assert!(err.to_string().contains("numbered"), "{err}");
}

#[test]
fn a_report_whose_metadata_order_was_lost_still_continues() {
    let (one, two) = (turn(1), turn(2));
    let first = assembler(2000, false).assemble(&one);
    // As a store that sorts object keys would give it back.
    let mut stored = first.clone();
    let metadata = stored.citations[0].metadata.as_mut().unwrap();
    metadata.sort_keys();
    let keys = |c: &AssembledContext<'_>| -> Vec<String> {
        c.citations[0]
            .metadata
            .as_ref()
            .unwrap()
            .keys()
            .cloned()
            .collect()
    };
    assert_ne!(keys(&stored), keys(&first));
    let next = assembler(2000, false)
        .assemble_follow_up(&stored, &two)
        .unwrap();
    assert!(next.text.starts_with(&first.text));
}

#[test]
fn a_previous_turn_without_blocks_is_a_fresh_start() {
    let assembler = ContextBuilder::new(2000)
        .header("Sources:")
        .build()
        .unwrap();
    let empty = assembler.assemble(&[]);
    assert_eq!(empty.text, "Sources:\n");
    let one = turn(1);
    let next = assembler.assemble_follow_up(&empty, &one).unwrap();
    assert_eq!(next, assembler.assemble(&one));
}

/// A key to seal reports with in these tests.
const KEY: &[u8] = b"a key of thirty-two bytes, test!";

#[test]
fn a_recount_drops_only_new_blocks() {
    let doc = |url: &str| MentorRagResult::from_content("a", 0.9).with_source_url(url);
    let build = |budget| {
        GREEDY
            .bare(budget, "bcde")
            .overflow(Overflow::Stop)
            .seal_key(KEY)
            .build()
            .unwrap()
    };
    let one = [doc("https://one.example")];
    let two = [doc("https://two.example")];
    let two_three = [doc("https://two.example"), doc("https://three.example")];
    let first = build(5).assemble(&one);
    assert_eq!((first.text.as_str(), first.token_count), ("bcdea", 2));
    // Counted apart, the new block fits in the 3 tokens left; joined, the text is 6.
    let next = build(5).assemble_follow_up(&first, &two).unwrap();
    assert_eq!(next.text, "bcdea");
    assert_eq!(next.token_count, 2);
    assert_eq!(next.citations, first.citations);
    assert_eq!(next.omitted[0].reason, OmitReason::DidNotFit);
    // With room for one more when joined: 3 blocks are 10 tokens, 2 are 6.
    let next = build(9).assemble_follow_up(&first, &two_three).unwrap();
    assert_eq!(next.text, "bcdeabcdea");
    assert_eq!(next.token_count, GREEDY.count(&next.text));
    assert_eq!(next.citations.len(), 2);
    assert_eq!(next.omitted[0].input_index, 1);
    // Unsealed, such a report cannot be read back, and is refused.
    let unsealed = GREEDY.bare(9, "bcde").build().unwrap();
    let err = unsealed
        .assemble_follow_up(&first, &two)
        .unwrap_err()
        .to_string();
    assert!(err.contains("block 1: its content is not framed"), "{err}");
}

#[test]
fn fixture_turns_are_valid_requests() {
    for n in 1..=3 {
        let results = turn(n);
        let context = assembler(2000, false).assemble(&results);
        common::check_invariants(&context, &results, &Encoding::O200kBase, false, None);
    }
}
