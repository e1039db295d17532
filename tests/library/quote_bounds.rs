//! Quotes verified only where the block says them: from a word boundary of one block's
//! content to a word boundary of it, after normalizing marks and spaces. The cases of
//! issue 33 item 1, through a `[n]` marker's quote and through Anthropic's `cited_text`.

use mentor_context::citations::{Resolution, Resolver};
use mentor_context::dialects::Dialect;
use mentor_context::{ContextBuilder, MentorRagResult};

const BLOCK: &str = "The drug is unsafe for pregnant women. It is ineffective against colds, \
                     costs 120 EUR a box, and isn't available in stores.";

fn results() -> Vec<MentorRagResult> {
    vec![MentorRagResult::from_content(BLOCK, 0.9).with_metadata([("status", "not")])]
}

/// Each quote and whether it is verified: where the block has it word for word, and not
/// where it starts or ends inside a word or a number.
const QUOTES: &[(&str, bool)] = &[
    ("unsafe for pregnant women", true),
    ("safe for pregnant women", false),
    ("It is ineffective", true),
    ("effective", false),
    ("costs 120 EUR", true),
    ("costs 12", false),
    ("isn't available", true),
    ("isn\u{2019}t available", true),
    ("t available", false),
    ("The drug", true),
    ("he drug", false),
    // Across the metadata and the content, which neither says.
    ("status: notThe drug", false),
    ("status: not\nThe drug", false),
];

#[test]
fn a_quote_before_a_marker_starts_and_ends_on_word_boundaries() {
    let assembler = ContextBuilder::new(600).build().unwrap();
    let results = results();
    let context = assembler.assemble(&results);
    let contents = assembler.contents(&context).unwrap();
    for &(quote, verified) in QUOTES {
        let answer = format!("It says \u{201c}{quote}\u{201d} [1].");
        let resolution = Resolver::for_context(&context)
            .contents(&contents)
            .resolve(&answer);
        let quotes = &resolution.cited[0].quotes;
        assert_eq!(quotes[0].text, quote);
        assert_eq!(quotes[0].verified, verified, "{quote:?}");
        assert_eq!(resolution.unverified, usize::from(!verified), "{quote:?}");
    }
    // The metadata is no part of a block's content.
    let answer = "It says \"status: not\" [1].";
    let resolution = Resolver::for_context(&context)
        .contents(&contents)
        .resolve(answer);
    assert!(!resolution.cited[0].quotes[0].verified);
}

/// A response of `dialect` whose one text block cites entry 0 with `cited_text`, over the
/// search result's blocks `blocks` or the document's characters `chars`.
fn anthropic(dialect: Dialect, cited_text: &str, range: (usize, usize)) -> Resolution {
    let assembler = ContextBuilder::new(600).dialect(dialect).build().unwrap();
    let results = results();
    let context = assembler.assemble(&results);
    let entries = assembler.entries(&context).unwrap();
    let citation = match dialect {
        Dialect::Anthropic => serde_json::json!({
            "type": "search_result_location", "cited_text": cited_text,
            "search_result_index": 0, "start_block_index": range.0, "end_block_index": range.1,
        }),
        _ => serde_json::json!({
            "type": "char_location", "cited_text": cited_text, "document_index": 0,
            "start_char_index": range.0, "end_char_index": range.1,
        }),
    };
    let message = serde_json::json!({"type": "message", "content": [
        {"type": "text", "text": "It says so.", "citations": [citation]}]});
    Resolver::for_context(&context)
        .entries(&entries)
        .response(&message.to_string())
        .unwrap()
}

#[test]
fn anthropic_cited_text_starts_and_ends_on_word_boundaries_of_one_block() {
    let chars = BLOCK.chars().count();
    for &(quote, verified) in QUOTES {
        // Over the metadata block and the content: the quote must be in one of them.
        let search = anthropic(Dialect::Anthropic, quote, (0, 2));
        let documents = anthropic(Dialect::AnthropicDocuments, quote, (0, chars));
        for (dialect, resolution) in [("search results", search), ("documents", documents)] {
            let quoted = &resolution.cited[0].quotes[0];
            assert_eq!(quoted.verified, verified, "{dialect}: {quote:?}");
        }
    }
    // The metadata block itself says what it says; the content block alone has no metadata.
    assert!(anthropic(Dialect::Anthropic, "status: not", (0, 1)).cited[0].quotes[0].verified);
    assert!(!anthropic(Dialect::Anthropic, "status: not", (1, 2)).cited[0].quotes[0].verified);
    assert!(!anthropic(Dialect::Anthropic, "The drug", (0, 1)).cited[0].quotes[0].verified);
}

/// A document's quote must lie in the characters its citation gives, and start and end on
/// boundaries of the whole text, not of that stretch.
#[test]
fn a_document_quote_lies_in_its_stretch_on_boundaries_of_the_text() {
    let at = BLOCK.find("unsafe").unwrap();
    let end = at + "unsafe for pregnant women".len();
    let cite = |quote: &str, from: usize, to: usize| {
        anthropic(Dialect::AnthropicDocuments, quote, (from, to)).cited[0].quotes[0].verified
    };
    assert!(cite("unsafe for pregnant women", at, end));
    assert!(!cite("unsafe for pregnant women", at + 1, end));
    assert!(!cite("unsafe for pregnant women", at, end - 1));
    // The stretch starts inside "unsafe": its own words would make "safe" one.
    assert!(!cite("safe for pregnant women", at + 2, end));
}
