//! Responses at their edges (issue 33 items 6-9, 11-13): events after the last one, fields
//! of the wrong type, citations that come before their text, line ends of CR alone, ids
//! written as numbers, web-search citations, a byte order mark; and Cohere's citations of a
//! tool message's documents (issue 45). Each is read as the whole message reads, or refused
//! naming the place.

use crate::responses::{assert_unknown, problem, resolve, response};

use mentor_context::citations::Resolution;
use mentor_context::dialects::Dialect;

/// Item 6: two streams end to end are refused at the first event after the last one.
#[test]
fn events_after_the_last_are_refused_naming_the_event() {
    for (dialect, last) in [
        (Dialect::Anthropic, "message_stop"),
        (Dialect::AnthropicDocuments, "message_stop"),
        (Dialect::Cohere, "message-end"),
        (Dialect::Bedrock, "messageStop"),
        (Dialect::Mistral, "a chunk with a finish_reason"),
    ] {
        let jsonl = response(dialect, "jsonl");
        let events = jsonl.lines().filter(|l| !l.trim().is_empty()).count();
        let twice = format!("{jsonl}{jsonl}");
        let refused = problem(dialect, &twice);
        // (Bedrock's metadata event follows its messageStop, and may.)
        assert!(
            refused.contains(&format!("event {}: comes after {last}", events + 1)),
            "{dialect}: {refused}"
        );
        if dialect != Dialect::Bedrock {
            let sse = response(dialect, "sse");
            let refused = problem(dialect, &format!("{sse}{sse}"));
            assert!(refused.contains("comes after"), "{dialect}: {refused}");
        }
    }
    // What may follow: a ping, Bedrock's metadata (in the fixture), usage alone.
    let ping = format!(
        "{}\n{{\"type\": \"ping\"}}\n",
        response(Dialect::Anthropic, "jsonl")
    );
    assert!(resolve(Dialect::Anthropic, &ping).is_ok());
    let usage = format!(
        "{}\n{{\"object\": \"chat.completion.chunk\", \"choices\": [], \"usage\": {{}}}}\n",
        response(Dialect::Mistral, "jsonl")
    );
    assert!(resolve(Dialect::Mistral, &usage).is_ok());
}

/// Item 7: a title or source that is not a string, or citations that are not a list.
#[test]
fn anthropic_fields_of_the_wrong_type_are_refused_naming_the_place() {
    let whole = response(Dialect::Anthropic, "json");
    let mut message: serde_json::Value = serde_json::from_str(&whole).unwrap();
    for (field, value) in [
        ("title", serde_json::json!(7)),
        ("source", serde_json::json!(["x"])),
    ] {
        let mut changed = message.clone();
        changed["content"][1]["citations"][0][field] = value;
        let refused = problem(Dialect::Anthropic, &changed.to_string());
        assert!(
            refused.contains(&format!(
                "content[1].citations[0].{field}: expected a string"
            )),
            "{refused}"
        );
    }
    // Null is as good as absent.
    message["content"][1]["citations"][0]["title"] = serde_json::Value::Null;
    assert!(resolve(Dialect::Anthropic, &message.to_string()).is_ok());
    let citation = message["content"][1]["citations"][0].clone();
    message["content"][1]["citations"] = citation;
    let refused = problem(Dialect::Anthropic, &message.to_string());
    assert!(
        refused.contains("content[1].citations: expected a list"),
        "{refused}"
    );

    let jsonl = response(Dialect::Anthropic, "jsonl");
    let changed = jsonl.replacen("\"title\": \"", "\"title\": 7, \"x\": \"", 1);
    assert_ne!(changed, jsonl);
    assert!(problem(Dialect::Anthropic, &changed).contains(".title: expected a string"));

    let cohere = response(Dialect::Cohere, "json");
    let mut message: serde_json::Value = serde_json::from_str(&cohere).unwrap();
    message["message"]["citations"] = message["message"]["citations"][0].clone();
    let refused = problem(Dialect::Cohere, &message.to_string());
    assert!(
        refused.contains("message.citations: expected a list"),
        "{refused}"
    );
}

/// Item 8: a Cohere stream whose citations all come before their text resolves as the
/// whole message does, in the same order, whatever order the citations are in.
#[test]
fn cohere_citations_before_their_text_resolve_in_the_whole_message_s_order() {
    let json = response(Dialect::Cohere, "json");
    let jsonl = response(Dialect::Cohere, "jsonl");
    let (citations, rest): (Vec<&str>, Vec<&str>) = jsonl
        .lines()
        .partition(|l| l.contains("\"citation-start\""));
    assert!(citations.len() >= 2);
    let order = |r: &Resolution| r.cited.iter().map(|c| c.citation.index).collect::<Vec<_>>();
    for swap in [false, true] {
        let mut message: serde_json::Value = serde_json::from_str(&json).unwrap();
        let mut early = citations.clone();
        if swap {
            message["message"]["citations"]
                .as_array_mut()
                .unwrap()
                .swap(0, 1);
            early.swap(0, 1);
        }
        let whole = resolve(Dialect::Cohere, &message.to_string()).unwrap();
        // The citations first, the text after them.
        early.extend(&rest);
        let streamed = resolve(Dialect::Cohere, &early.join("\n")).unwrap();
        assert_eq!(order(&streamed), order(&whole), "swapped: {swap}");
        assert_eq!(streamed, whole, "swapped: {swap}");
    }
}

/// Item 9: server-sent events with CR alone at each line end read as with LF.
#[test]
fn server_sent_events_with_cr_line_ends_are_read() {
    for dialect in [Dialect::Anthropic, Dialect::Cohere, Dialect::Mistral] {
        let sse = response(dialect, "sse");
        let whole = resolve(dialect, &sse).unwrap();
        let cr = sse.replace('\n', "\r");
        assert_eq!(resolve(dialect, &cr).unwrap(), whole, "{dialect}");
        let crlf = sse.replace('\n', "\r\n");
        assert_eq!(resolve(dialect, &crlf).unwrap(), whole, "{dialect}");
    }
}

/// Item 11: a Cohere source id written as a number is read as its digits.
#[test]
fn a_cohere_id_given_as_a_number_is_read() {
    let cohere = response(Dialect::Cohere, "json");
    let whole = resolve(Dialect::Cohere, &cohere).unwrap();
    let numbered = cohere.replace("\"id\": \"1\"", "\"id\": 1");
    assert_ne!(numbered, cohere);
    assert_eq!(resolve(Dialect::Cohere, &numbered).unwrap(), whole);
    let odd = cohere.replace("\"id\": \"1\"", "\"id\": 1.5");
    let resolution = resolve(Dialect::Cohere, &odd).unwrap();
    assert_unknown(&resolution, "document id \"1.5\"");
    let mut none: serde_json::Value = serde_json::from_str(&cohere).unwrap();
    let source = none["message"]["citations"][0]["sources"][0].as_object_mut();
    assert!(source.unwrap().remove("id").is_some());
    let resolution = resolve(Dialect::Cohere, &none.to_string()).unwrap();
    assert_unknown(&resolution, "a document with no id");
}

/// Item 12: a web-search citation is no entry of ours; the search results' citations
/// beside it still resolve.
#[test]
fn a_web_search_citation_is_reported_as_not_ours() {
    let whole = response(Dialect::Anthropic, "json");
    let baseline = resolve(Dialect::Anthropic, &whole).unwrap();
    let mut message: serde_json::Value = serde_json::from_str(&whole).unwrap();
    let web = serde_json::json!({
        "type": "web_search_result_location", "cited_text": "Team costs 15 EUR",
        "url": "https://example.com/prices", "title": "Prices", "encrypted_index": "Eo8BCioIAhgB"
    });
    message["content"][1]["citations"]
        .as_array_mut()
        .unwrap()
        .push(web);
    let resolution = resolve(Dialect::Anthropic, &message.to_string()).unwrap();
    assert_eq!(resolution.cited, baseline.cited);
    assert_unknown(
        &resolution,
        "a web_search_result_location citation of \"https://example.com/prices\"",
    );
    assert_eq!(resolution.unknown.len(), baseline.unknown.len() + 1);
}

/// Item 13: a response that starts with a byte order mark reads as without it, whole and
/// as server-sent events, in the library every front end calls.
#[test]
fn a_byte_order_mark_before_a_response_is_not_text() {
    for &dialect in Dialect::ALL {
        for kind in ["json", "jsonl", "sse"] {
            if dialect == Dialect::Bedrock && kind == "sse" {
                continue;
            }
            let text = response(dialect, kind);
            let marked = format!("\u{feff}{text}");
            assert_eq!(
                resolve(dialect, &marked).unwrap(),
                resolve(dialect, &text).unwrap(),
                "{dialect} {kind}"
            );
        }
    }
}

/// `value` with each Cohere document source `{"type": "document", "id": "n", "document": D}`
/// written as Cohere cites a tool message's documents: `{"type": "tool", "id": "CALL:n-1",
/// "tool_output": D}`.
fn as_tool_sources(value: &mut serde_json::Value) {
    use serde_json::Value;
    match value {
        Value::Object(object) => {
            if object.get("type").and_then(Value::as_str) == Some("document")
                && let Some(Value::String(id)) = object.get("id")
                && let Ok(n) = id.parse::<usize>()
            {
                let id = format!("search_emails_1dxqzwragh9g:{}", n - 1);
                object.insert("type".into(), "tool".into());
                object.insert("id".into(), id.into());
                let output = object.remove("document").unwrap_or_default();
                object.insert("tool_output".into(), output);
            }
            object.values_mut().for_each(as_tool_sources);
        }
        Value::Array(items) => items.iter_mut().for_each(as_tool_sources),
        _ => {}
    }
}

/// Issue 45: the fixture's Cohere response, its sources naming the documents of a tool
/// message (`cohere_tool_content`) by place, resolves as with our ids, whole, as events and
/// as server-sent events; the source past the documents is unknown as its id was.
#[test]
fn cohere_tool_sources_resolve_as_the_document_ids_do() {
    let rewrite = |line: &str| {
        let mut value: serde_json::Value = serde_json::from_str(line).unwrap();
        as_tool_sources(&mut value);
        value.to_string()
    };
    for kind in ["json", "jsonl", "sse"] {
        let text = response(Dialect::Cohere, kind);
        let tool = match kind {
            "json" => rewrite(&text),
            _ => text
                .lines()
                .map(|line| match line.strip_prefix("data: ") {
                    Some(data) => format!("data: {}\n", rewrite(data)),
                    None if kind == "jsonl" && !line.trim().is_empty() => rewrite(line) + "\n",
                    None => format!("{line}\n"),
                })
                .collect(),
        };
        assert!(
            tool.contains(r#""id":"search_emails_1dxqzwragh9g:0""#),
            "{kind}"
        );
        assert!(!tool.contains(r#""type":"document""#), "{kind}");
        let ours = resolve(Dialect::Cohere, &text).unwrap();
        let tools = resolve(Dialect::Cohere, &tool).unwrap();
        assert!(!ours.cited.is_empty());
        assert_eq!(tools.cited, ours.cited, "{kind}");
        assert_eq!(tools.answer, ours.answer, "{kind}");
        assert_eq!(ours.unknown.len(), 1, "{kind}");
        assert_eq!(tools.unknown.len(), 1, "{kind}");
        assert_eq!(tools.unknown[0].at, ours.unknown[0].at);
        assert_eq!(ours.unknown[0].marker, r#"document id "9""#);
        assert_eq!(
            tools.unknown[0].marker,
            r#"tool id "search_emails_1dxqzwragh9g:8""#
        );
    }
}
