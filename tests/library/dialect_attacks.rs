//! Responses edited, replayed or cut off as an outsider would: each is a clear error naming
//! the place, or a citation that points at nothing, never a citation of the wrong entry.

use crate::responses::{assembler, assert_unknown, problem, resolve, resolve_as, response};

use mentor_context::MentorRagResult;
use mentor_context::dialects::{Dialect, Entry};

/// The stream's lines, without those `drop` matches, with `add` after line `after`.
fn edited(lines: &[&str], drop: &str, insert: Option<(usize, &str)>) -> String {
    let mut out = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        if !drop.is_empty() && line.contains(drop) {
            continue;
        }
        out.push(*line);
        if let Some((after, add)) = insert
            && after == i
        {
            out.push(add);
        }
    }
    out.join("\n")
}

/// Anthropic sends its content blocks one after another: a block that starts while another
/// is open, a stop or delta for a block that is not open, a citation on a block that is not
/// text, or a message that stops inside a block, means events were lost or replayed.
#[test]
fn anthropic_events_out_of_order_are_errors() {
    let jsonl = response(Dialect::Anthropic, "jsonl");
    let lines: Vec<&str> = jsonl.lines().collect();
    assert!(resolve(Dialect::Anthropic, &jsonl).is_ok());
    let stop0 = r#"{"type": "content_block_stop", "index": 0}"#;
    let unstopped = edited(&lines, stop0, None);
    assert!(
        problem(Dialect::Anthropic, &unstopped)
            .contains("content block 1 starts while block 0 is open"),
        "{}",
        problem(Dialect::Anthropic, &unstopped)
    );
    assert_eq!(lines[4], stop0);
    let replayed = edited(&lines, "", Some((4, stop0)));
    assert!(
        problem(Dialect::Anthropic, &replayed)
            .contains("content block 0 stops, but it is not open")
    );
    let restarted = edited(&lines, "", Some((5, lines[5])));
    assert!(
        problem(Dialect::Anthropic, &restarted)
            .contains("content block 1 starts while block 1 is open")
    );
    let stray = r#"{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "x"}}"#;
    let late = edited(&lines, "", Some((4, stray)));
    assert!(
        problem(Dialect::Anthropic, &late)
            .contains("a delta for content block 0, which is not open")
    );
    let last_stop = lines
        .iter()
        .rposition(|l| l.contains("content_block_stop"))
        .unwrap();
    let open_at_end = edited(&lines, lines[last_stop], None);
    assert!(
        problem(Dialect::Anthropic, &open_at_end)
            .contains("the message stops while content block 4 is open")
    );
    let thinking = r#"{"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}"#;
    let cite = r#"{"type": "content_block_delta", "index": 0, "delta": {"type": "citations_delta", "citation": {"type": "search_result_location", "cited_text": "x", "search_result_index": 0, "source": "s", "title": "t", "start_block_index": 0, "end_block_index": 1}}}"#;
    // The thinking block first, the text blocks after it (renumbered 10, 11, ...).
    let mut on_thinking: Vec<String> =
        vec![lines[0].into(), thinking.into(), cite.into(), stop0.into()];
    on_thinking.extend(
        lines[1..]
            .iter()
            .map(|l| l.replace("\"index\": ", "\"index\": 1")),
    );
    let text = on_thinking.join("\n");
    assert!(
        problem(Dialect::Anthropic, &text)
            .contains("a citations_delta for content block 0, which is not a text block"),
        "{}",
        problem(Dialect::Anthropic, &text)
    );
}

/// With the entries sent, a citation must name an entry as it was sent: its source, its
/// title, its id written as Cohere was given it.
#[test]
fn a_citation_that_names_its_entry_otherwise_points_at_nothing() {
    let whole = response(Dialect::Anthropic, "json");
    for (sent, claimed, marker) in [
        (
            "\"source\": \"https://help.quillstack.example/archive/billing/add-ons\"",
            "\"source\": \"https://evil.example/add-ons\"",
            "search_result_index 2 from \"https://evil.example/add-ons\"",
        ),
        (
            "\"title\": \"Add-on prices\"",
            "\"title\": \"Refunds\"",
            "search_result_index 2 titled \"Refunds\"",
        ),
    ] {
        let edited = whole.replacen(sent, claimed, 1);
        assert_ne!(edited, whole);
        let resolution = resolve(Dialect::Anthropic, &edited).unwrap();
        assert!(resolution.cited.iter().all(|c| c.citation.index != 3));
        assert_unknown(&resolution, marker);
    }

    let cohere = response(Dialect::Cohere, "json");
    let baseline = resolve(Dialect::Cohere, &cohere).unwrap();
    assert!(baseline.cited.iter().any(|c| c.citation.index == 1));
    for id in ["01", "+1", " 1", "1 "] {
        let renamed = cohere.replace("\"id\": \"1\"", &format!("\"id\": \"{id}\""));
        assert_ne!(renamed, cohere);
        let resolution = resolve(Dialect::Cohere, &renamed).unwrap();
        assert!(
            resolution.cited.iter().all(|c| c.citation.index != 1),
            "id {id:?}: {:?}",
            resolution.cited
        );
        assert!(
            resolution
                .unknown
                .iter()
                .any(|u| u.marker.contains(&format!("{id:?}")))
        );
    }

    // An untitled document cited with a title.
    let results = [MentorRagResult::from_content(
        "Plan B costs 12 EUR a month.",
        0.9,
    )];
    let answer = r#"{"message": {"content": [{"type": "text", "text": "It costs 12 EUR."}],
        "citations": [{"start": 9, "end": 15, "text": "12 EUR",
        "sources": [{"type": "document", "id": "1", "document": {"title": "Prices"}}]}]}}"#;
    let resolution = resolve_as(Dialect::Cohere, &results, answer, true).unwrap();
    assert!(resolution.cited.is_empty(), "{:?}", resolution.cited);
    let untitled = answer.replace(r#""document": {"title": "Prices"}"#, r#""document": {}"#);
    let resolution = resolve_as(Dialect::Cohere, &results, &untitled, true).unwrap();
    assert_eq!(resolution.cited[0].citation.index, 1);
}

/// Whitespace may differ between a quote and its blocks, but not vanish between words.
#[test]
fn a_quote_with_words_run_together_is_unverified() {
    let whole = response(Dialect::Anthropic, "json");
    let resolution = resolve(Dialect::Anthropic, &whole).unwrap();
    assert_eq!(resolution.unverified, 1, "{resolution:?}");
    let fused = whole.replacen("Quillstack is billed", "Quillstack isbilled", 1);
    let spaced = whole.replacen("Quillstack is billed", "Quillstack  is\\n billed", 1);
    assert_ne!(fused, whole);
    assert_eq!(resolve(Dialect::Anthropic, &fused).unwrap().unverified, 2);
    assert_eq!(resolve(Dialect::Anthropic, &spaced).unwrap().unverified, 1);
}

/// Metadata named like Cohere's own fields is renamed until the name is free.
#[test]
fn cohere_metadata_never_takes_a_field_or_another_key() {
    let results = [MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9)
        .with_title("Prices")
        .with_metadata([
            ("title", "first"),
            ("title (metadata)", "second"),
            ("text", "third"),
        ])];
    let assembler = assembler(Dialect::Cohere);
    let context = assembler.assemble(&results);
    let entries = assembler.entries(&context).unwrap();
    let Entry::Cohere(document) = &entries[0] else {
        panic!("not a Cohere document: {entries:?}");
    };
    let data: Vec<(&str, &str)> = document
        .data
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        data,
        [
            ("title", "Prices"),
            ("title (metadata)", "first"),
            ("title (metadata) (metadata)", "second"),
            ("text (metadata)", "third"),
            ("text", "Plan B costs 12 EUR."),
        ]
    );
}

/// A server-sent-events text that starts with an `id:` or `retry:` line is read as one.
#[test]
fn server_sent_events_are_known_by_any_field() {
    let sse = response(Dialect::Anthropic, "sse");
    let whole = resolve(Dialect::Anthropic, &sse).unwrap();
    for first in ["id: 1\n", "retry: 3000\n"] {
        let text = format!("{first}{sse}");
        assert_eq!(
            resolve(Dialect::Anthropic, &text).unwrap(),
            whole,
            "{first:?}"
        );
    }
}
