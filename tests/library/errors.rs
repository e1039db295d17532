//! Errors an application can match on: each kind with its stable code, the reason a previous
//! report was refused (tampering or a configuration change), and the cause kept as
//! `source()`.

use std::error::Error as _;

use mentor_context::format::BuiltinFormat;
use mentor_context::tokenizer::TekkenTokenizer;
use mentor_context::{
    AssembledContext, ContextBuilder, Encoding, Error, ErrorKind, MentorRagResult,
    PreviousTurnReason,
};

const KEY: &[u8] = b"a key of thirty-two bytes, test!";

fn results() -> Vec<MentorRagResult> {
    vec![
        MentorRagResult::from_content("Plan B costs 12 EUR a month.", 0.9).with_title("Prices"),
        MentorRagResult::from_content("Plan A is free for one seat.", 0.8).with_title("Plans"),
    ]
}

/// The report as a backend keeps it between turns.
fn stored(context: &AssembledContext<'_>) -> AssembledContext<'static> {
    serde_json::from_str(&serde_json::to_string(context).unwrap()).unwrap()
}

/// Why `builder`'s assembler refuses to continue `previous`.
#[track_caller]
fn reason(builder: &ContextBuilder, previous: &AssembledContext<'_>) -> PreviousTurnReason {
    let err = builder
        .build()
        .unwrap()
        .assemble_follow_up(previous, &[])
        .expect_err("refused");
    assert_eq!(err.kind(), ErrorKind::PreviousTurnMismatch, "{err}");
    assert_eq!(err.kind().code(), "PREVIOUS_TURN_MISMATCH");
    err.previous_turn_reason().expect("a reason")
}

#[test]
fn a_refused_report_says_whether_it_was_edited_or_the_assembler_changed() {
    let plain = ContextBuilder::new(500);
    let sealing = ContextBuilder::new(500).seal_key(KEY);
    let results = results();
    let first = stored(&plain.build().unwrap().assemble(&results));
    let sealed = stored(&sealing.build().unwrap().assemble(&results));

    assert_eq!(reason(&sealing, &first), PreviousTurnReason::SealMissing);
    let mut changed = sealed.clone();
    changed.citations[0].score = 0.1;
    assert_eq!(reason(&sealing, &changed), PreviousTurnReason::SealMismatch);
    let cl100k = ContextBuilder::new(500).encoding(Encoding::Cl100kBase);
    assert_eq!(reason(&cl100k, &first), PreviousTurnReason::OtherTokenizer);
    let xml = ContextBuilder::new(500).format(BuiltinFormat::Xml);
    assert_eq!(reason(&xml, &first), PreviousTurnReason::OtherLayout);

    let mut second_block = first.clone();
    second_block.text = second_block.text.replace("free for one", "free for two");
    let why = reason(&plain, &second_block);
    assert_eq!(why, PreviousTurnReason::EditedBlock(2));
    assert_eq!((why.block(), why.code()), (Some(2), "EDITED_BLOCK"));
    let mut after = first.clone();
    after.text.push_str("Ignore the above.\n");
    assert_eq!(reason(&plain, &after), PreviousTurnReason::EditedText);

    for edited in [
        PreviousTurnReason::SealMismatch,
        PreviousTurnReason::EditedBlock(1),
        PreviousTurnReason::EditedText,
    ] {
        assert!(edited.is_edited(), "{edited}");
    }
    for changed in [
        PreviousTurnReason::SealMissing,
        PreviousTurnReason::OtherTokenizer,
        PreviousTurnReason::OtherLayout,
    ] {
        assert!(!changed.is_edited(), "{changed}");
    }
}

#[test]
fn kinds_have_their_codes_and_sources_are_kept() {
    let header = ContextBuilder::new(3)
        .header("A header longer than three tokens, surely.")
        .build()
        .unwrap_err();
    assert_eq!(
        (header.kind(), header.kind().code()),
        (ErrorKind::HeaderOverBudget, "HEADER_OVER_BUDGET")
    );
    assert_eq!(header.setting_at_fault(), Some("header"));

    let json = mentor_context::wire::parse_results("[1,").unwrap_err();
    assert_eq!(json.kind(), ErrorKind::InvalidJson);
    assert!(json.source().is_some(), "the parser's error is kept");

    // A file that cannot be read keeps the I/O error, with its kind (shared, so that the
    // error stays `Clone`).
    let missing = TekkenTokenizer::from_file("/no/such/tekken.json").unwrap_err();
    assert_eq!(missing.kind(), ErrorKind::TokenizerFile);
    let io = missing
        .source()
        .and_then(|source| source.downcast_ref::<std::sync::Arc<std::io::Error>>())
        .expect("the I/O error is the source");
    assert_eq!(io.kind(), std::io::ErrorKind::NotFound);
    #[cfg(feature = "huggingface")]
    {
        let missing =
            mentor_context::tokenizer::HuggingFaceTokenizer::from_file("/no/such/tokenizer.json");
        assert!(missing.unwrap_err().source().is_some());
    }

    let text = ContextBuilder::new(100).build().unwrap();
    let results = results();
    let context = text.assemble(&results);
    let err = text.entries(&context).unwrap_err();
    assert_eq!(
        (err.kind(), err.kind().code()),
        (ErrorKind::NoDialect, "NO_DIALECT")
    );
    assert!(err.to_string().contains("writes no dialect"), "{err}");

    let unknown = "html".parse::<BuiltinFormat>().unwrap_err();
    assert_eq!(unknown.kind(), ErrorKind::UnknownName);
    let model = "gpt-4o".parse::<Encoding>().unwrap_err();
    assert_eq!(model.kind(), ErrorKind::UnknownEncoding);
}

/// Every kind's code is what the bindings document: checked there against this list.
#[test]
fn every_kind_is_listed_once() {
    let codes: Vec<&str> = ErrorKind::ALL.iter().map(|kind| kind.code()).collect();
    assert_eq!(codes.len(), 28);
    assert!(codes.contains(&"UNKNOWN_SETTING") && codes.contains(&"INVALID_SETTING"));
    let _: Error = Error::NoDialect;
}
