//! A report records the layout it was written in: its quotes are checked from the report
//! alone, and a follow-up turn of another layout is refused naming the part that differs.

use mentor_context::citations::{Quote, Resolver};
use mentor_context::format::BuiltinFormat;
use mentor_context::{AssembledContext, ContextBuilder, Error};

use crate::common;

/// The answer every front end's test reads: a quote block 1 holds, one it does not, and one
/// block 4 holds. (The command's, Python's and Node's tests read the same file.)
fn answer() -> String {
    std::fs::read_to_string(common::fixtures_dir().join("quoted-answer.txt")).unwrap()
}

/// `pricing` assembled as `assemble --format xml --hide-metadata-key chunk_id` does.
fn xml_report() -> AssembledContext<'static> {
    ContextBuilder::new(4000)
        .format(BuiltinFormat::Xml)
        .hide_metadata_key("chunk_id")
        .build()
        .unwrap()
        .assemble(&common::fixture("pricing"))
        .into_owned()
}

/// `(chip, quote, verified)` of each quote, in order of first citation.
fn quotes(resolution: &mentor_context::citations::Resolution) -> Vec<(usize, &str, bool)> {
    resolution
        .cited
        .iter()
        .flat_map(|cited| {
            cited.quotes.iter().map(|Quote { text, verified, .. }| {
                (cited.citation.index, text.as_str(), *verified)
            })
        })
        .collect()
}

/// The quotes every front end reports for this report and answer.
const EXPECTED: [(usize, &str, bool); 3] = [
    (1, "Team: 15 EUR, unlimited seats", true),
    (1, "Team: 12 EUR", false),
    (4, "Extra storage: 4 EUR per 100 GB.", true),
];

#[test]
fn every_report_records_its_layout() {
    let report = xml_report();
    let layout = report.layout.as_ref().unwrap();
    assert_eq!(layout.format, "xml");
    assert_eq!(layout.hidden_keys, ["chunk_id"]);
    assert_eq!((layout.header.as_str(), layout.max_head_tokens), ("", None));
    let json = serde_json::to_value(&report).unwrap();
    assert_eq!(
        json["layout"],
        serde_json::json!({"format": "xml", "header": "", "hiddenKeys": ["chunk_id"],
            "maxHeadTokens": null})
    );
    let read: AssembledContext<'_> = serde_json::from_value(json).unwrap();
    assert_eq!(read, report);
}

/// Item 4 of issue 32: quotes are checked from the report alone, with no option repeated.
#[test]
fn quotes_are_checked_from_the_report_alone() {
    let report = xml_report();
    let resolution = Resolver::for_context(&report).resolve(&answer());
    assert_eq!(quotes(&resolution), EXPECTED);
    assert_eq!(resolution.unverified, 1);
    assert_eq!(
        Resolver::try_for_context(&report)
            .unwrap()
            .resolve(&answer()),
        resolution
    );
    // As an assembler of the same options reads it.
    let assembler = ContextBuilder::new(4000)
        .layout_of(&report)
        .unwrap()
        .build()
        .unwrap();
    assert_eq!(
        report.contents().unwrap(),
        assembler.contents(&report).unwrap()
    );
}

/// Read back as stored: through JSON, and streamed, the same.
#[test]
fn a_stored_report_checks_quotes_as_the_one_returned() {
    let report = xml_report();
    let stored: AssembledContext<'_> =
        serde_json::from_str(&serde_json::to_string(&report).unwrap()).unwrap();
    let answer = answer();
    let mut stream = Resolver::for_context(&stored).stream();
    for piece in answer.split_inclusive(' ') {
        let _ = stream.push(piece);
    }
    let (_, streamed) = stream.finish();
    assert_eq!(quotes(&streamed), EXPECTED);
}

/// A report whose text does not read back has its quotes reported not verified, never left
/// out (the false all-clear of issue 32's item 5), and `try_for_context` says why.
#[test]
fn an_unreadable_report_reports_its_quotes_not_verified() {
    let mut edited = xml_report();
    edited.text = edited.text.replace("15 EUR", "16 EUR");
    let resolution = Resolver::for_context(&edited).resolve(&answer());
    let unverified: Vec<_> = EXPECTED.iter().map(|&(n, q, _)| (n, q, false)).collect();
    assert_eq!(quotes(&resolution), unverified);
    assert_eq!(resolution.unverified, 3);
    let err = Resolver::try_for_context(&edited).unwrap_err();
    assert!(err.to_string().contains("block 1"), "{err}");
}

/// A report of an older version records no layout: read as before, its quotes looked for
/// only once contents are given; what it lacks is said.
#[test]
fn a_report_without_a_layout_is_read_as_before() {
    let mut old = xml_report();
    old.layout = None;
    let json = serde_json::to_string(&old).unwrap();
    assert!(!json.contains("\"layout\""));
    let old: AssembledContext<'_> = serde_json::from_str(&json).unwrap();
    let resolution = Resolver::for_context(&old).resolve(&answer());
    assert!(quotes(&resolution).is_empty() && resolution.unverified == 0);
    let err = old.contents().unwrap_err();
    assert!(err.to_string().contains("records no layout"), "{err}");
    let assembler = ContextBuilder::new(4000)
        .format(BuiltinFormat::Xml)
        .hide_metadata_key("chunk_id")
        .build()
        .unwrap();
    let contents = assembler.contents(&old).unwrap();
    let given = Resolver::for_context(&old)
        .contents(&contents)
        .resolve(&answer());
    assert_eq!(quotes(&given), EXPECTED);
}

/// Item 5 of issue 32, in the library: an assembler of another format or other hidden keys
/// is refused naming the part, for a follow-up turn and for reading contents.
#[test]
fn another_layout_is_refused_naming_the_part() {
    let report = xml_report();
    let refused = |builder: ContextBuilder| {
        let assembler = builder.build().unwrap();
        let follow_up = assembler.assemble_follow_up(&report, &[]).unwrap_err();
        let contents = assembler.contents(&report).unwrap_err();
        assert_eq!(follow_up.to_string(), contents.to_string());
        assert!(matches!(follow_up, Error::PreviousTurnMismatch { .. }));
        follow_up.to_string()
    };
    assert!(
        refused(ContextBuilder::new(4000).hide_metadata_key("chunk_id"))
            .ends_with("it was written in the xml format, this assembler writes plain")
    );
    assert!(
        refused(
            ContextBuilder::new(4000)
                .format(BuiltinFormat::Xml)
                .hide_metadata_key("currency")
        )
        .ends_with(
            "it hides the metadata keys chunk_id, this assembler hides the metadata keys currency"
        )
    );
    assert!(
        refused(
            ContextBuilder::new(4000)
                .format(BuiltinFormat::Xml)
                .hide_metadata_key("chunk_id")
                .max_head_tokens(40)
        )
        .ends_with("its head cap (max head tokens) is none, this assembler's is 40")
    );
    // The report's own layout continues it.
    let results = common::fixture("pricing");
    let next = ContextBuilder::new(4000)
        .layout_of(&report)
        .unwrap()
        .build()
        .unwrap()
        .assemble_follow_up(&report, &results)
        .unwrap();
    assert!(
        next.text
            .starts_with(&report.text[..report.text.len() - "</documents>\n".len()])
    );
    assert_eq!(next.layout, report.layout);
}

/// A custom format cannot be named from the report: said, and its quotes not verified.
#[test]
fn a_custom_format_is_not_read_from_the_report() {
    let mut report = xml_report();
    report.layout.as_mut().unwrap().format = "sourced".to_string();
    let err = report.contents().unwrap_err();
    assert!(
        err.to_string()
            .contains("the sourced format, which is not built in"),
        "{err}"
    );
    assert_eq!(
        Resolver::for_context(&report).resolve(&answer()).unverified,
        3
    );
}

/// A tokenizer the report alone cannot rebuild, as a tokenizer file's: the real encoding's
/// counts under another name.
struct FileTokenizer;

impl mentor_context::tokenizer::TokenCounter for FileTokenizer {
    fn name(&self) -> &str {
        "llama3@6835d61b"
    }
    fn token_lengths(&self, text: &str, lengths: &mut Vec<u32>) {
        mentor_context::Encoding::Cl100kBase.token_lengths(text, lengths);
    }
}

/// A report counted by a tokenizer file's tokenizer still checks its quotes from the report
/// alone: without a head cap, no count decides what is read back. With one, the tokenizer
/// is needed, and that is said.
#[test]
fn a_tokenizer_file_s_report_checks_its_quotes_unless_capped() {
    let report = |cap: Option<usize>| {
        ContextBuilder::new(4000)
            .tokenizer(FileTokenizer)
            .format(BuiltinFormat::Xml)
            .hide_metadata_key("chunk_id")
            .max_head_tokens(cap)
            .build()
            .unwrap()
            .assemble(&common::fixture("pricing"))
            .into_owned()
    };
    let uncapped = report(None);
    assert_eq!(uncapped.encoding, "llama3@6835d61b");
    let resolution = Resolver::for_context(&uncapped).resolve(&answer());
    assert_eq!(quotes(&resolution), EXPECTED);
    let capped = report(Some(200));
    let err = Resolver::try_for_context(&capped).unwrap_err();
    assert!(
        err.to_string().contains("counted with llama3@6835d61b"),
        "{err}"
    );
    assert_eq!(
        Resolver::for_context(&capped).resolve(&answer()).unverified,
        3
    );
}
