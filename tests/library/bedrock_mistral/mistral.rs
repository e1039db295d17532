//! Mistral: a reference cites the text before it; reference ids name the tool result's
//! keys; bad streams refused by place.

use mentor_context::dialects::{Dialect, mistral_tool_content};
use serde_json::{Value, json};

use super::jsonl;
use crate::common;
use crate::responses::{assembler, problem, resolve, response};

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
            {"type": "reference", "reference_ids": [1]}, {"type": "reference", "reference_ids": [2]},
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
/// tool result has. An id is an integer, as mistralai's SDKs type it
/// (`src/mistralai/client/models/referencechunk.py`: `reference_ids: List[int]`) and as a
/// Bedrock `documentIndex` is read: a string, a fraction or a negative number is an error.
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
        (json!(3), None),
        (json!(u64::MAX), None),
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
    for (id, problem) in [
        (json!("1"), "expected a number, found \"1\""),
        (json!("01"), "expected a number, found \"01\""),
        (json!("doc-1"), "expected a number, found \"doc-1\""),
        (json!(true), "expected a number, found true"),
        (json!(null), "expected a number, found null"),
        (json!({"id": 0}), "expected a number, found {\"id\":0}"),
        (json!(-1), "-1 is negative"),
        (json!(1.5), "1.5 is not a whole number"),
    ] {
        let err = cite(id.clone()).unwrap_err().to_string();
        assert!(
            err.contains(&format!("reference_ids[0]: {problem}")),
            "{err}"
        );
    }
    // The tool result keys every entry by its position, the key the references name.
    let assembler = assembler(Dialect::Mistral);
    let entries = assembler
        .entries(&assembler.assemble(&common::fixture("pricing")))
        .unwrap();
    let content: Value = serde_json::from_str(&mistral_tool_content(&entries)).unwrap();
    let keys: Vec<&String> = content.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["0", "1", "2"]);
    assert_eq!(content["1"], json!(entries[1]));
}

/// Cut, malformed or failed streams and responses are errors naming the place.
#[test]
fn bad_mistral_responses_are_errors_naming_the_place() {
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
