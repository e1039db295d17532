//! What only Bedrock's and Mistral's dialects do: Converse documents cited by character,
//! page and chunk, with `sourceContent` quotes checked in the cited document; Mistral
//! references that cite the text before them. The fixtures are `fixtures/responses/bedrock.*`
//! and `mistral.*`, from the SDK type files `generate.py` names (aws-sdk-rust
//! `sdk/bedrockruntime/src/types/`, mistralai client-python `src/mistralai/client/models/`).

use crate::common;

use mentor_context::citations::{CitationEvent, Resolution, Resolver};
use mentor_context::dialects::{Dialect, Entry, mistral_tool_content};
use mentor_context::{ContextBuilder, Error, MentorRagResult};
use proptest::prelude::*;
use serde_json::{Value, json};

fn response(dialect: Dialect, kind: &str) -> String {
    let path = common::fixtures_dir().join(format!("responses/{dialect}.{kind}"));
    std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

fn events(dialect: Dialect) -> Vec<Value> {
    response(dialect, "jsonl")
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// `text` resolved against the pricing fixture in `dialect`, with its entries and contents
/// (`entries: false` leaves them out).
fn resolve_as(dialect: Dialect, text: &str, entries: bool) -> Result<Resolution, Error> {
    let assembler = ContextBuilder::new(600).dialect(dialect).build().unwrap();
    let results = common::fixture("pricing");
    let context = assembler.assemble(&results);
    let sent = assembler.entries(&context).unwrap();
    let contents = assembler.contents(&context).unwrap();
    let resolver = Resolver::for_context(&context).contents(&contents);
    match entries {
        true => resolver.entries(&sent).response(text),
        false => resolver.response(text),
    }
}

fn resolve(dialect: Dialect, text: &str) -> Result<Resolution, Error> {
    resolve_as(dialect, text, true)
}

#[track_caller]
fn problem(dialect: Dialect, text: &str) -> String {
    match resolve(dialect, text) {
        Err(Error::Response { problem }) => problem,
        other => panic!("not refused: {other:?}"),
    }
}

fn jsonl(events: &[Value]) -> String {
    events.iter().map(|e| format!("{e}\n")).collect()
}

/// `events` with each text delta cut into pieces at `cuts` (character positions, modulo
/// its length): how a model may stream the same text.
fn resplit(dialect: Dialect, events: &[Value], cuts: &[usize]) -> Vec<Value> {
    let pointer = match dialect {
        Dialect::Bedrock => "/contentBlockDelta/delta/text",
        _ => "/choices/0/delta/content",
    };
    let rebuild = |event: &Value, piece: &str| {
        let mut copy = event.clone();
        *copy.pointer_mut(pointer).unwrap() = piece.into();
        copy
    };
    let mut out = Vec::new();
    for event in events {
        let text = event.pointer(pointer).and_then(Value::as_str);
        let Some(text) = text.filter(|t| t.chars().count() > 1) else {
            out.push(event.clone());
            continue;
        };
        let chars: Vec<char> = text.chars().collect();
        let mut at: Vec<usize> = cuts.iter().map(|c| c % chars.len()).collect();
        at.extend([0, chars.len()]);
        at.sort_unstable();
        at.dedup();
        for pair in at.windows(2) {
            let piece: String = chars[pair[0]..pair[1]].iter().collect();
            out.push(rebuild(event, &piece));
        }
    }
    out
}

/// The events fed one by one give the whole response's text, events and resolution.
fn streamed_equals_whole(dialect: Dialect, events: &[Value]) -> Result<(), TestCaseError> {
    let assembler = ContextBuilder::new(600).dialect(dialect).build().unwrap();
    let results = common::fixture("pricing");
    let context = assembler.assemble(&results);
    let entries = assembler.entries(&context).unwrap();
    let resolver = Resolver::for_context(&context).entries(&entries);
    let whole = resolver.response(&response(dialect, "json")).unwrap();
    let mut stream = resolver.response_stream().unwrap();
    let (mut shown, mut cited) = (String::new(), 0);
    for event in events {
        let out = stream.push_event(&event.to_string()).unwrap();
        shown.push_str(&out.text);
        cited += out
            .events
            .iter()
            .filter(|e| matches!(e, CitationEvent::Cited { .. }))
            .count();
    }
    let (rest, resolution) = stream.finish().unwrap();
    shown.push_str(&rest.text);
    prop_assert_eq!(&resolution, &whole);
    prop_assert_eq!(Some(shown.as_str()), whole.answer.as_deref());
    prop_assert_eq!(cited, whole.cited.iter().map(|c| c.count).sum::<usize>());
    Ok(())
}

proptest! {
    /// However the model cuts its text into deltas, the citations are the same.
    #[test]
    fn any_split_of_the_text_deltas_resolves_as_the_whole(
        cuts in prop::collection::vec(any::<usize>(), 0..6),
        mistral in any::<bool>(),
    ) {
        let dialect = if mistral { Dialect::Mistral } else { Dialect::Bedrock };
        streamed_equals_whole(dialect, &resplit(dialect, &events(dialect), &cuts))?;
    }
}

/// Each Mistral reference cites the text since the reference before it; references in a
/// row cite the same text, and a reference that names no key is placed where it stands.
#[test]
fn a_mistral_reference_cites_the_text_before_it() {
    let resolution = resolve(Dialect::Mistral, &response(Dialect::Mistral, "json")).unwrap();
    let answer = resolution.answer.as_deref().unwrap();
    let spans: Vec<&str> = resolution
        .cited
        .iter()
        .map(|c| &answer[c.spans[0].start..c.spans[0].end])
        .collect();
    assert_eq!(
        spans,
        [
            "Für Team zahlen Sie 15 € pro Sitz und Monat",
            "; 2025 waren es 13 €",
            ". Add-ons kosten extra, siehe Archiv",
        ]
    );
    let unknown = &resolution.unknown[0];
    assert_eq!(unknown.marker, "reference id 9");
    assert_eq!(&answer[unknown.at..], ".");
    // A reference at the very start cites nothing before it; two in a row the same text.
    let message = json!({"choices": [{"index": 0, "finish_reason": "stop", "message": {
        "content": [{"type": "reference", "reference_ids": [0]}, {"type": "text", "text": "A"},
            {"type": "reference", "reference_ids": [1]}, {"type": "reference", "reference_ids": ["2"]},
            {"type": "thinking", "thinking": [{"type": "text", "text": "hidden"}]},
            {"type": "text", "text": " B"}, {"type": "reference", "reference_ids": [0]}]}}]});
    let resolution = resolve(Dialect::Mistral, &message.to_string()).unwrap();
    assert_eq!(resolution.answer.as_deref(), Some("A B"));
    let places: Vec<(usize, Vec<(usize, usize)>)> = resolution
        .cited
        .iter()
        .map(|c| {
            let spans = c.spans.iter().map(|s| (s.start, s.end)).collect();
            (c.citation.index, spans)
        })
        .collect();
    assert_eq!(
        places,
        [
            (1, vec![(0, 0), (1, 3)]),
            (2, vec![(0, 1)]),
            (3, vec![(0, 1)])
        ]
    );
    // Streamed, an empty delta between two references is no text of its own.
    let chunk = |content: Value, finish: Value| {
        json!({"object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": finish}]})
    };
    let reference = |id: u64| json!([{"type": "reference", "reference_ids": [id]}]);
    let stream = [
        chunk(json!("Ab"), Value::Null),
        chunk(reference(0), Value::Null),
        chunk(json!(""), Value::Null),
        chunk(json!([{"type": "text", "text": ""}]), Value::Null),
        chunk(reference(1), Value::Null),
        chunk(json!(""), json!("stop")),
    ];
    let resolution = resolve(Dialect::Mistral, &jsonl(&stream)).unwrap();
    let spans: Vec<(usize, usize)> = resolution
        .cited
        .iter()
        .map(|c| (c.spans[0].start, c.spans[0].end))
        .collect();
    assert_eq!(spans, [(0, 2), (0, 2)]);
}

/// Reference id `i` is key `"i"` of the tool result, citation `i + 1`: only the ids the
/// tool result has, as numbers or as the strings sent.
#[test]
fn mistral_reference_ids_name_the_keys_of_the_tool_result() {
    let cite = |id: Value| {
        let message = json!({"choices": [{"index": 0, "finish_reason": "stop", "message": {
            "content": [{"type": "text", "text": "x"},
                        {"type": "reference", "reference_ids": [id]}]}}]});
        resolve(Dialect::Mistral, &message.to_string())
    };
    for (id, cited) in [
        (json!(0), Some(1)),
        (json!(2), Some(3)),
        (json!("1"), Some(2)),
        (json!(3), None),
        (json!("01"), None),
        (json!(" 1"), None),
        (json!(-1), None),
        (json!(1.5), None),
        (json!(u64::MAX), None),
        (json!("doc-1"), None),
    ] {
        let resolution = cite(id.clone()).unwrap();
        let found = resolution.cited.first().map(|c| c.citation.index);
        assert_eq!(found, cited, "{id}");
        assert_eq!(
            resolution.unknown.len(),
            usize::from(cited.is_none()),
            "{id}"
        );
    }
    for id in [json!(true), json!(null), json!({"id": 0})] {
        let err = cite(id.clone()).unwrap_err().to_string();
        assert!(
            err.contains("reference_ids[0]: expected a number or a string"),
            "{err}"
        );
    }
    // The tool result keys every entry by its position, the key the references name.
    let assembler = ContextBuilder::new(600)
        .dialect(Dialect::Mistral)
        .build()
        .unwrap();
    let entries = assembler
        .entries(&assembler.assemble(&common::fixture("pricing")))
        .unwrap();
    let content: Value = serde_json::from_str(&mistral_tool_content(&entries)).unwrap();
    let keys: Vec<&String> = content.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["0", "1", "2"]);
    assert_eq!(content["1"], json!(entries[1]));
}

/// Bedrock's `documentIndex` n is citation n + 1; a quote is checked where its location
/// says: inside the characters cited, or anywhere in a text document cited by page or
/// chunk; every `sourceContent` part must be there.
#[test]
fn bedrock_quotes_are_checked_where_their_location_points() {
    let assembler = ContextBuilder::new(600)
        .dialect(Dialect::Bedrock)
        .build()
        .unwrap();
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
    for with_entries in [true, false] {
        assert_eq!(
            resolve_as(Dialect::Bedrock, &whole, with_entries)
                .unwrap()
                .cited
                .len(),
            3
        );
        let resolution = resolve_as(Dialect::Bedrock, &renamed, with_entries).unwrap();
        assert!(resolution.cited.iter().all(|c| c.citation.index != 3));
        assert!(
            resolution
                .unknown
                .iter()
                .any(|u| u.marker == "documentIndex 2 titled \"[3] Refunds\""),
            "{:?}",
            resolution.unknown
        );
        let resolution = resolve_as(Dialect::Bedrock, &web, with_entries).unwrap();
        assert!(
            resolution
                .unknown
                .iter()
                .any(|u| u.marker == "a web citation")
        );
    }
}

/// Cut, replayed, malformed or failed streams and responses are errors naming the place.
#[test]
fn bad_bedrock_and_mistral_responses_are_errors_naming_the_place() {
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

    let mistral = response(Dialect::Mistral, "jsonl");
    let lines: Vec<&str> = mistral.lines().collect();
    let cut = lines[..lines.len() - 1].join("\n");
    assert!(
        problem(Dialect::Mistral, &cut).contains("before a chunk with a finish_reason"),
        "{}",
        problem(Dialect::Mistral, &cut)
    );
    let sse = response(Dialect::Mistral, "sse");
    let half = &sse[..sse.rfind("\"finish_reason\": \"stop\"").unwrap()];
    assert!(problem(Dialect::Mistral, half).contains("cut off in the middle of event"));
    let failed = lines[..3].join("\n").replacen("null}]}", "\"error\"}]}", 1);
    assert!(
        problem(Dialect::Mistral, &failed)
            .contains("event 1: the completion ends with finish_reason \"error\""),
        "{}",
        problem(Dialect::Mistral, &failed)
    );
    let whole: Value = serde_json::from_str(&response(Dialect::Mistral, "json")).unwrap();
    let edit = |pointer: &str, to: Value| {
        let mut edited = whole.clone();
        *edited.pointer_mut(pointer).unwrap() = to;
        edited.to_string()
    };
    let content = "/choices/0/message/content";
    for (edited, expected) in [
        (
            edit(&format!("{content}/1/reference_ids"), json!(0)),
            "choices[0].message.content[1]: a reference chunk without reference_ids",
        ),
        (
            edit(content, json!({"x": []})),
            "expected a string or a list of chunks, found an object",
        ),
        (
            edit(&format!("{content}/0/text"), json!(7)),
            "choices[0].message.content[0]: a text chunk without text",
        ),
        (edit("/choices", json!([])), "the response has no choice 0"),
    ] {
        assert!(
            problem(Dialect::Mistral, &edited).contains(expected),
            "{}",
            problem(Dialect::Mistral, &edited)
        );
    }
    let error = r#"{"object": "error", "message": "rate limited", "type": "rate_limit"}"#;
    assert!(problem(Dialect::Mistral, &format!("{error}\n{error}")).contains("reports an error"));
}

/// Big and many: a megabyte of text in one delta and thousands of deltas and references
/// read without a panic, every reference placed.
#[test]
fn long_streams_are_read_whole() {
    let mut chunks = vec![
        json!({"object": "chat.completion.chunk", "choices": [{"index": 0,
        "delta": {"content": "é".repeat(500_000)}, "finish_reason": null}]}),
    ];
    for i in 0..5000 {
        let content = if i % 2 == 0 {
            json!("word ")
        } else {
            json!([{"type": "reference", "reference_ids": [i % 3]}])
        };
        chunks.push(
            json!({"object": "chat.completion.chunk", "choices": [{"index": 0,
            "delta": {"content": content}, "finish_reason": null}]}),
        );
    }
    chunks.push(
        json!({"object": "chat.completion.chunk", "choices": [{"index": 0,
        "delta": {"content": ""}, "finish_reason": "length"}]}),
    );
    let resolution = resolve(Dialect::Mistral, &jsonl(&chunks)).unwrap();
    assert_eq!(
        resolution.cited.iter().map(|c| c.count).sum::<usize>(),
        2500
    );
    let first = resolution.cited[0].spans[0];
    assert_eq!((first.start, first.end), (0, 1_000_005));
    assert_eq!((first.start_utf16, first.end_utf16), (0, 500_005));
}

/// The entries carry what the budget counted: Bedrock's name in its characters, the source
/// and metadata in `context`; Mistral's metadata in an object of its own.
#[test]
fn entries_carry_what_the_budget_counted() {
    let results = [MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9)
        .with_title("Prices: 2026 — für Teams")
        .with_source_url("https://example.com/p")
        .with_metadata([("snippets", "not the content"), ("lang", "de")])];
    let entries = |dialect| {
        let assembler = ContextBuilder::new(600).dialect(dialect).build().unwrap();
        let context = assembler.assemble(&results);
        serde_json::to_value(assembler.entries(&context).unwrap()).unwrap()
    };
    assert_eq!(
        entries(Dialect::Bedrock),
        json!([{"document": {"format": "txt", "name": "[1] Prices 2026 fr Teams",
            "source": {"text": "Plan B costs 12 EUR."},
            "context": "source: https://example.com/p\nsnippets: not the content\nlang: de",
            "citations": {"enabled": true}}}])
    );
    assert_eq!(
        entries(Dialect::Mistral),
        json!([{"title": "Prices: 2026 — für Teams", "url": "https://example.com/p",
            "metadata": {"snippets": "not the content", "lang": "de"},
            "snippets": [["Plan B costs 12 EUR."]]}])
    );
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

/// One chunk alone, with or without its `object` name, is a stream of one event.
#[test]
fn a_single_mistral_chunk_is_read_as_a_stream() {
    let chunk = json!({"object": "chat.completion.chunk", "choices": [{"index": 0,
        "delta": {"content": [{"type": "text", "text": "A"},
            {"type": "reference", "reference_ids": [0]}]}, "finish_reason": "stop"}]});
    let mut unnamed = chunk.clone();
    unnamed.as_object_mut().unwrap().remove("object");
    for one in [chunk, unnamed] {
        let resolution = resolve(Dialect::Mistral, &one.to_string()).unwrap();
        assert_eq!(resolution.answer.as_deref(), Some("A"), "{one}");
        assert_eq!(resolution.cited[0].citation.index, 1);
    }
}
