//! Bedrock: quotes checked where their location points, citations of nothing, blocks read
//! by kind and index, bad streams refused by place.

use mentor_context::dialects::{Dialect, Entry};
use serde_json::{Value, json};

use super::{events, jsonl};
use crate::common;
use crate::responses::{assembler, assert_unknown, problem, resolve, resolve_as, response};

/// Bedrock's `documentIndex` n is citation n + 1; a quote is checked where its location
/// says: inside the characters cited, or anywhere in a text document cited by page or
/// chunk; every `sourceContent` part must be there.
#[test]
fn bedrock_quotes_are_checked_where_their_location_points() {
    let assembler = assembler(Dialect::Bedrock);
    let results = common::fixture("pricing");
    let context = assembler.assemble(&results);
    let entries = assembler.entries(&context).unwrap();
    let Entry::Bedrock(first) = &entries[0] else {
        panic!("{entries:?}")
    };
    let text = &first.document.source.text;
    let at = text.find("Team: 15 EUR").unwrap();
    let chars = text[..at].chars().count();
    let cite = |location: Value, quotes: &[&str]| {
        let parts: Vec<Value> = quotes.iter().map(|q| json!({"text": q})).collect();
        let message = json!({"output": {"message": {"content": [{"citationsContent": {
            "content": [{"text": "15 EUR."}],
            "citations": [{"sourceContent": parts, "location": location}]}}]}}});
        let resolution = resolve(Dialect::Bedrock, &message.to_string()).unwrap();
        (
            resolution.cited.first().map(|c| c.citation.index),
            resolution.cited.first().map(|c| c.quotes[0].verified),
        )
    };
    let char_at = |index: usize, start: usize, end: usize| json!({"documentChar": {"documentIndex": index, "start": start, "end": end}});
    let quote = ["Team: 15 EUR"];
    assert_eq!(
        cite(char_at(0, chars, chars + 12), &quote),
        (Some(1), Some(true))
    );
    // One character short, or the right words in another place: not verified.
    assert_eq!(
        cite(char_at(0, chars, chars + 11), &quote),
        (Some(1), Some(false))
    );
    assert_eq!(cite(char_at(0, 0, 12), &quote), (Some(1), Some(false)));
    // Past the end of the document: not verified, no panic.
    assert_eq!(
        cite(char_at(0, chars, 1 << 40), &quote),
        (Some(1), Some(false))
    );
    // The same quote in the next document is not this one's.
    assert_eq!(
        cite(char_at(1, chars, chars + 12), &quote),
        (Some(2), Some(false))
    );
    let page = json!({"documentPage": {"documentIndex": 0, "start": 1, "end": 2}});
    assert_eq!(cite(page.clone(), &quote), (Some(1), Some(true)));
    let parts = ["Team: 15 EUR", "Annual billing saves two months"];
    assert_eq!(cite(page.clone(), &parts), (Some(1), Some(true)));
    let one_wrong = ["Team: 15 EUR", "Annual billing saves three months"];
    assert_eq!(cite(page.clone(), &one_wrong), (Some(1), Some(false)));
    assert_eq!(cite(page, &[]), (Some(1), Some(false)));
    let chunk = json!({"documentChunk": {"documentIndex": 2, "start": 0, "end": 1}});
    assert_eq!(
        cite(chunk, &["Extra storage: 3 EUR"]),
        (Some(3), Some(true))
    );
    // Index 3 is past the three documents sent; a web page or no location is no document.
    assert_eq!(cite(char_at(3, 0, 1), &quote), (None, None));
    for location in [json!({"web": {"url": "https://example.com"}}), json!(null)] {
        assert_eq!(cite(location, &quote), (None, None));
    }
}

/// Citations of nothing are reported as such: an index past the documents, a title that is
/// not the name sent, a web page; with the entries left out, the name is made from the chip.
#[test]
fn bedrock_citations_of_nothing_are_reported() {
    let whole = response(Dialect::Bedrock, "json");
    let resolution = resolve(Dialect::Bedrock, &whole).unwrap();
    let unknown: Vec<&str> = resolution
        .unknown
        .iter()
        .map(|u| u.marker.as_str())
        .collect();
    assert_eq!(unknown, ["documentIndex 9"]);
    let renamed = whole.replacen("\"[3] Add-on prices\"", "\"[3] Refunds\"", 1);
    assert_ne!(renamed, whole);
    let web = whole.replacen("\"documentPage\"", "\"web\"", 1);
    let pricing = common::fixture("pricing");
    for with_entries in [true, false] {
        assert_eq!(
            resolve_as(Dialect::Bedrock, &pricing, &whole, with_entries)
                .unwrap()
                .cited
                .len(),
            3
        );
        let resolution = resolve_as(Dialect::Bedrock, &pricing, &renamed, with_entries).unwrap();
        assert!(resolution.cited.iter().all(|c| c.citation.index != 3));
        assert_unknown(&resolution, "documentIndex 2 titled \"[3] Refunds\"");
        let resolution = resolve_as(Dialect::Bedrock, &pricing, &web, with_entries).unwrap();
        assert_unknown(&resolution, "a web citation");
    }
}

/// Cut, replayed, crossed, malformed or failed streams and responses are errors naming the
/// place.
#[test]
fn bad_bedrock_responses_are_errors_naming_the_place() {
    let bedrock = events(Dialect::Bedrock);
    let stop = bedrock
        .iter()
        .position(|e| e.get("messageStop").is_some())
        .unwrap();
    let cut = jsonl(&bedrock[..stop]);
    assert!(
        problem(Dialect::Bedrock, &cut).ends_with(&format!(
            "the event stream is cut off after {stop} events, before messageStop"
        )),
        "{}",
        problem(Dialect::Bedrock, &cut)
    );
    let mut open_at_stop = bedrock.clone();
    open_at_stop.remove(stop - 1);
    assert!(
        problem(Dialect::Bedrock, &jsonl(&open_at_stop))
            .contains("the message stops while content block 4 is open")
    );
    let mut replayed = bedrock.clone();
    replayed.insert(4, bedrock[1].clone());
    assert!(
        problem(Dialect::Bedrock, &jsonl(&replayed))
            .contains("event 5: content block 0 starts again after it stopped")
    );
    let mut crossed = bedrock.clone();
    crossed.remove(3);
    assert!(
        problem(Dialect::Bedrock, &jsonl(&crossed))
            .contains("a delta for content block 1 while block 0 is open"),
        "{}",
        problem(Dialect::Bedrock, &jsonl(&crossed))
    );
    let mut failed = bedrock.clone();
    failed.insert(
        3,
        json!({"modelStreamErrorException": {"message": "upstream overloaded"}}),
    );
    assert!(problem(Dialect::Bedrock, &jsonl(&failed)).contains(
        "event 4: the stream reports a modelStreamErrorException: \"upstream overloaded\""
    ));
    assert!(
        problem(Dialect::Bedrock, "[1, 2]\n")
            .contains("event 1: expected an object keyed by the event's type")
    );
    // The SDKs' events and deltas are unions: one member each (aws-sdk-rust
    // `_converse_stream_output.rs`, `_content_block_delta.rs`).
    let delta = bedrock
        .iter()
        .position(|e| e.pointer("/contentBlockDelta/delta/text").is_some())
        .unwrap();
    let mut two_types = bedrock.clone();
    two_types[delta]["messageStop"] = json!({"stopReason": "end_turn"});
    assert!(
        problem(Dialect::Bedrock, &jsonl(&two_types)).contains(&format!(
            "event {}: holds both `contentBlockDelta` and `messageStop`; an event is keyed by \
             one of its types",
            delta + 1
        )),
        "{}",
        problem(Dialect::Bedrock, &jsonl(&two_types))
    );
    let mut text_and_citation = bedrock.clone();
    text_and_citation[delta]["contentBlockDelta"]["delta"]["citation"] =
        json!({"location": {"documentChar": {"documentIndex": 0, "start": 0, "end": 1}}});
    assert!(
        problem(Dialect::Bedrock, &jsonl(&text_and_citation)).contains(&format!(
            "event {}.delta: holds both `citation` and `text`; a delta is one of text, a \
             citation, a tool use or reasoning",
            delta + 1
        )),
        "{}",
        problem(Dialect::Bedrock, &jsonl(&text_and_citation))
    );
    let whole = response(Dialect::Bedrock, "json");
    for (from, to, expected) in [
        (
            "\"documentIndex\": 0",
            "\"documentIndex\": -1",
            "location.documentChar.documentIndex: -1 is negative",
        ),
        (
            "\"documentIndex\": 0,",
            "",
            "location.documentChar: no documentIndex",
        ),
        (
            "\"documentIndex\": 0",
            "\"documentIndex\": 18446744073709551616",
            "location.documentChar.documentIndex: 1.8446744073709552e+19 is too large",
        ),
        (
            "\"documentIndex\": 0",
            "\"documentIndex\": \"0\"",
            "location.documentChar.documentIndex: expected a number, found \"0\"",
        ),
        (
            "\"end\": 2",
            "\"end\": 0",
            "citations[0].location.documentPage: end 0 is before start 1",
        ),
        (
            "\"message\"",
            "\"messages\"",
            "no output.message.content array",
        ),
    ] {
        let edited = whole.replacen(from, to, 1);
        assert_ne!(edited, whole, "{from}");
        assert!(
            problem(Dialect::Bedrock, &edited).contains(expected),
            "{}",
            problem(Dialect::Bedrock, &edited)
        );
    }
}

/// A tool call's block adds nothing to the answer and takes no citation; a block stops by
/// its own index; an empty stretch of characters is a location, not an error.
#[test]
fn bedrock_blocks_are_read_by_kind_and_index() {
    let tool = [
        json!({"messageStart": {"role": "assistant"}}),
        json!({"contentBlockDelta": {"delta": {"text": "Let me look."}, "contentBlockIndex": 0}}),
        json!({"contentBlockStop": {"contentBlockIndex": 0}}),
        json!({"contentBlockStart": {"start": {"toolUse": {"toolUseId": "t1", "name": "search"}},
            "contentBlockIndex": 1}}),
        json!({"contentBlockDelta": {"delta": {"toolUse": {"input": "{\"q\": 1}"}},
            "contentBlockIndex": 1}}),
        json!({"contentBlockStop": {"contentBlockIndex": 1}}),
        json!({"messageStop": {"stopReason": "tool_use"}}),
    ];
    let resolution = resolve(Dialect::Bedrock, &jsonl(&tool)).unwrap();
    assert_eq!(resolution.answer.as_deref(), Some("Let me look."));
    let mut cited_tool = tool.to_vec();
    cited_tool.insert(
        5,
        json!({"contentBlockDelta": {"delta": {"citation": {"location": {"documentChar":
            {"documentIndex": 0, "start": 0, "end": 1}}}}, "contentBlockIndex": 1}}),
    );
    assert!(
        problem(Dialect::Bedrock, &jsonl(&cited_tool))
            .contains("event 6: a citation for content block 1, which is not text")
    );
    let mut wrong_stop = tool.to_vec();
    wrong_stop[2] = json!({"contentBlockStop": {"contentBlockIndex": 3}});
    assert!(
        problem(Dialect::Bedrock, &jsonl(&wrong_stop))
            .contains("event 3: content block 3 stops, but it is not open")
    );
    // A tool call with no input: its start opens the block, or its stop would be a stray.
    let mut no_input = tool.to_vec();
    no_input.remove(4);
    assert!(resolve(Dialect::Bedrock, &jsonl(&no_input)).is_ok());
    let empty = json!({"output": {"message": {"content": [{"citationsContent": {
        "content": [{"text": "x"}], "citations": [{"sourceContent": [{"text": "Team"}],
        "location": {"documentChar": {"documentIndex": 0, "start": 5, "end": 5}}}]}}]}}});
    let resolution = resolve(Dialect::Bedrock, &empty.to_string()).unwrap();
    assert!(!resolution.cited[0].quotes[0].verified);
}
