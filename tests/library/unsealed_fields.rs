//! What an unsealed previous report can still carry into the next turn, field by field (the
//! table in the `seal` module): each field the text shows is proven by it, the counts are
//! counted again, and what the text cannot show is carried as given, which only a seal
//! proves. Each edit here is the red team's; each test fails when its check is skipped.

use mentor_context::dialects::Dialect;
use mentor_context::format::BuiltinFormat;
use mentor_context::tokenizer::TokenCounter;
use mentor_context::{
    AssembledContext, Assembler, ContextBuilder, Encoding, Error, MentorRagResult,
};

const KEY: &[u8] = b"a key of thirty-two bytes, test!";

/// The layouts the red team edited reports of, and those whose text shows the URL.
#[derive(Debug, Clone, Copy)]
enum Layout {
    Format(BuiltinFormat),
    Dialect(Dialect),
}

const LAYOUTS: [Layout; 7] = [
    Layout::Format(BuiltinFormat::Plain),
    Layout::Format(BuiltinFormat::Xml),
    Layout::Dialect(Dialect::AnthropicDocuments),
    Layout::Dialect(Dialect::Anthropic),
    Layout::Dialect(Dialect::Bedrock),
    Layout::Dialect(Dialect::Cohere),
    Layout::Dialect(Dialect::Mistral),
];

fn builder(layout: Layout) -> ContextBuilder {
    let builder = ContextBuilder::new(2000).hide_metadata_keys(["chunk_id"]);
    match layout {
        Layout::Format(format) => builder.format(format),
        Layout::Dialect(dialect) => builder.dialect(dialect),
    }
}

fn unsealed(layout: Layout) -> Assembler {
    builder(layout).build().unwrap()
}

fn sealed(layout: Layout) -> Assembler {
    builder(layout).seal_key(KEY).build().unwrap()
}

/// Whether the text of this layout shows a titled block's source URL.
fn shows_url(layout: Layout) -> bool {
    matches!(layout, Layout::Dialect(dialect) if dialect != Dialect::AnthropicDocuments)
}

/// One titled block with a URL, a shown entry, a hidden one and a `null` one; one without
/// a title, whose URL is its title.
fn results() -> Vec<MentorRagResult> {
    let mut first = MentorRagResult::from_content("Plan B costs 12 EUR a month.", 0.9)
        .with_title("Prices")
        .with_source_url("https://x.example/prices")
        .with_metadata([("currency", "EUR"), ("chunk_id", "prices#1")]);
    first
        .metadata
        .as_mut()
        .unwrap()
        .insert("reviewed".into(), None);
    let second = MentorRagResult::from_content("Plan A is free for one seat.", 0.8)
        .with_source_url("https://x.example/plans");
    vec![first, second]
}

/// The report as a backend keeps it: written as JSON, read back.
fn stored(context: &AssembledContext<'_>) -> AssembledContext<'static> {
    serde_json::from_str(&serde_json::to_string(context).unwrap()).unwrap()
}

fn next_turn() -> [MentorRagResult; 1] {
    [MentorRagResult::from_content("Plan C costs 20 EUR.", 0.5)]
}

/// Why the follow-up after `previous` is refused; panics if it is not.
#[track_caller]
fn refused(assembler: &Assembler, previous: &AssembledContext<'_>) -> String {
    match assembler.assemble_follow_up(previous, &next_turn()) {
        Err(err @ Error::PreviousTurnMismatch { .. }) => err.to_string(),
        other => panic!("not refused: {other:?}"),
    }
}

/// An edit of a report.
type Edit = fn(&mut AssembledContext<'_>);

/// Each edit of a chip, by the field it changes.
fn edits() -> Vec<(&'static str, Edit)> {
    vec![
        ("sourceUrl", |report| {
            report.citations[0].source_url = Some("https://attacker.example/".into());
        }),
        ("score", |report| report.citations[0].score = 0.1),
        ("inputIndex", |report| report.citations[0].input_index = 7),
        ("hidden metadata", |report| {
            let metadata = report.citations[0].metadata.as_mut().unwrap();
            metadata.insert("chunk_id".into(), Some("forged#9".into()));
        }),
        ("added hidden entry", |report| {
            let metadata = report.citations[0].metadata.as_mut().unwrap();
            metadata.insert("approved by".into(), None);
        }),
    ]
}

/// The red team's edit: a chip's count raised to a million. Unsealed, each chip's count is
/// counted again from its block, and a count that disagrees is refused.
#[test]
fn a_chip_whose_token_count_disagrees_with_its_block_is_refused() {
    for layout in LAYOUTS {
        let assembler = unsealed(layout);
        let first = stored(&assembler.assemble(&results()));
        for (chip, count) in [(0, 1_000_000), (1, first.citations[1].token_count - 1)] {
            let mut edited = first.clone();
            edited.citations[chip].token_count = count;
            let why = refused(&assembler, &edited);
            assert!(
                why.contains(&format!(
                    "block {}: its citation counts {count} tokens",
                    chip + 1
                )),
                "{layout:?}: {why}"
            );
        }
    }
}

/// The report's own count is never carried: the next report's is counted from its text, and
/// its chips' counts add up to it.
#[test]
fn the_report_s_token_count_is_counted_again() {
    let assembler = unsealed(Layout::Format(BuiltinFormat::Plain));
    let mut edited = stored(&assembler.assemble(&results()));
    edited.token_count = 1_000_000;
    let more = next_turn();
    let next = assembler.assemble_follow_up(&edited, &more).unwrap();
    let counted = Encoding::O200kBase.count(&next.text);
    assert_eq!(next.token_count, counted);
    let chips: usize = next.citations.iter().map(|c| c.token_count).sum();
    assert_eq!(
        chips, counted,
        "the plain format has no header, opening or closing"
    );
}

/// A URL the text shows (a block's display title, or the `source:` line of a dialect that
/// sends it) is proven by it: another site is refused.
#[test]
fn a_url_the_text_shows_is_proven_by_it() {
    for layout in LAYOUTS {
        let assembler = unsealed(layout);
        let first = stored(&assembler.assemble(&results()));
        let mut edited = first.clone();
        edited.citations[1].source_url = Some("https://attacker.example/".into());
        // Block 2 has no title: its URL is its title.
        edited.citations[1].title = edited.citations[1].source_url.clone();
        let why = refused(&assembler, &edited);
        assert!(why.contains("the head of block 2"), "{layout:?}: {why}");
        let mut edited = first.clone();
        edited.citations[0].source_url = Some("https://attacker.example/".into());
        if shows_url(layout) {
            let why = refused(&assembler, &edited);
            assert!(why.contains("the head of block 1"), "{layout:?}: {why}");
        }
    }
}

/// What the text cannot show (a titled block's URL in a layout without a `source:` line, the
/// score, the position in the request, hidden and `null` metadata) is carried into the next
/// report as the report gives it: unsealed, nothing can tell an edit of it, and the `seal`
/// module says so. Sealed, each edit is refused.
#[test]
fn what_the_text_cannot_show_is_proven_only_by_a_seal() {
    for layout in LAYOUTS {
        let open = unsealed(layout);
        let closed = sealed(layout);
        let first = stored(&open.assemble(&results()));
        let first_sealed = stored(&closed.assemble(&results()));
        for (field, edit) in edits() {
            let mut edited = first_sealed.clone();
            edit(&mut edited);
            let why = refused(&closed, &edited);
            assert!(
                why.contains("seal does not match"),
                "{layout:?} {field}: {why}"
            );
            if field == "sourceUrl" && shows_url(layout) {
                continue;
            }
            let mut edited = first.clone();
            edit(&mut edited);
            let more = next_turn();
            let next = open.assemble_follow_up(&edited, &more);
            let next = next.unwrap_or_else(|err| panic!("{layout:?} {field}: {err}"));
            assert_eq!(next.citations[0], edited.citations[0], "{layout:?} {field}");
        }
    }
}

/// A metadata entry added to a chip that the head would show is refused, whatever the store
/// did to the order of the others.
#[test]
fn an_added_entry_the_head_would_show_is_refused() {
    for layout in LAYOUTS {
        let assembler = unsealed(layout);
        let mut edited = stored(&assembler.assemble(&results()));
        let metadata = edited.citations[0].metadata.as_mut().unwrap();
        metadata.insert("approved by".into(), Some("the board".into()));
        let why = refused(&assembler, &edited);
        assert!(why.contains("the head of block 1"), "{layout:?}: {why}");
        metadata_sorted_too(&assembler, &edited, layout);
    }
}

fn metadata_sorted_too(assembler: &Assembler, edited: &AssembledContext<'_>, layout: Layout) {
    let mut sorted = edited.clone();
    sorted.citations[0].metadata.as_mut().unwrap().sort_keys();
    let why = refused(assembler, &sorted);
    assert!(
        why.contains("the head of block 1"),
        "{layout:?} sorted: {why}"
    );
}

/// The seal covers the report as it is read, each field's value, not the bytes of its JSON:
/// a key this version does not read, or a score spelled with more digits that reads as the
/// same `f32`, continues, and the next report is the same; a spelling that reads as another
/// value is refused.
#[test]
fn the_seal_covers_the_report_as_read_not_its_bytes() {
    let assembler = sealed(Layout::Format(BuiltinFormat::Plain));
    let first = stored(&assembler.assemble(&results()));
    let json = serde_json::to_string(&first).unwrap();
    assert!(json.contains(r#""score":0.9,"#), "{json}");
    let more = next_turn();
    let expected = assembler.assemble_follow_up(&first, &more).unwrap();
    let respelled = [
        json.replacen('{', r#"{"note":"kept by the store","#, 1),
        json.replacen(r#""score":0.9,"#, r#""score":0.900000001,"#, 1),
        json.replacen(r#""score":0.9,"#, r#""score":9e-1,"#, 1),
    ];
    for text in &respelled {
        let report: AssembledContext<'_> = serde_json::from_str(text).unwrap();
        let next = assembler.assemble_follow_up(&report, &more);
        assert_eq!(next.as_ref().ok(), Some(&expected), "{text}");
    }
    let other = json.replacen(r#""score":0.9,"#, r#""score":0.90001,"#, 1);
    let report: AssembledContext<'_> = serde_json::from_str(&other).unwrap();
    assert!(refused(&assembler, &report).contains("seal does not match"));
}

/// A counter that vouches for no split: a whole block is measured in one piece and a cut one
/// as head and body, and the counts are recounted the same way, so its reports continue, at
/// every budget, and a count raised by one is still refused.
struct NoExactSplits;

impl TokenCounter for NoExactSplits {
    fn name(&self) -> &str {
        "no-exact-splits"
    }
    fn token_lengths(&self, text: &str, lengths: &mut Vec<u32>) {
        Encoding::O200kBase.token_lengths(text, lengths);
    }
}

#[test]
fn counts_are_recounted_as_they_were_counted_whatever_the_tokenizer() {
    let long = "Every seat includes storage, and annual plans save two months. ".repeat(20);
    let mut inputs = results();
    inputs.push(MentorRagResult::from_content(long, 0.7).with_title("Terms"));
    let mut cut = 0;
    for &format in BuiltinFormat::ALL {
        for budget in [60, 90, 150, 400] {
            let assembler = ContextBuilder::new(budget)
                .format(format)
                .tokenizer(NoExactSplits)
                .build()
                .unwrap();
            let first = stored(&assembler.assemble(&inputs));
            if first.citations.is_empty() {
                continue;
            }
            cut += first.citations.iter().filter(|c| c.truncated).count();
            let more = next_turn();
            let next = assembler.assemble_follow_up(&first, &more);
            assert!(next.is_ok(), "{format} at {budget}: {next:?}");
            let mut edited = first.clone();
            edited.citations[0].token_count += 1;
            assert!(
                refused(&assembler, &edited).contains("block 1"),
                "{format} at {budget}"
            );
        }
    }
    assert!(cut > 0, "no block was cut");
}
