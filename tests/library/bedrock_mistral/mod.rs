//! What only Bedrock's and Mistral's dialects do: Converse documents cited by character,
//! page and chunk, with `sourceContent` quotes checked in the cited document (`bedrock.rs`);
//! Mistral references that cite the text before them (`mistral.rs`). The fixtures are
//! `fixtures/responses/bedrock.*` and `mistral.*`, from the SDK type files `generate.py` names
//! (aws-sdk-rust `sdk/bedrockruntime/src/types/`, mistralai client-python
//! `src/mistralai/client/models/`).

mod bedrock;
mod mistral;

use crate::common;
use crate::responses::{assembler, resolve, response};

use mentor_context::MentorRagResult;
use mentor_context::citations::{CitationEvent, Resolver};
use mentor_context::dialects::Dialect;
use proptest::prelude::*;
use serde_json::{Value, json};

pub(super) fn events(dialect: Dialect) -> Vec<Value> {
    response(dialect, "jsonl")
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

pub(super) fn jsonl(events: &[Value]) -> String {
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
    let assembler = assembler(dialect);
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
        let assembler = assembler(dialect);
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
