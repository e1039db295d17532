//! The model APIs' dialects: entries rendered from the same blocks, responses read back to the
//! same citations, whole and streamed, with every quote checked. The responses in
//! `fixtures/responses/` follow the providers' SDK type files named in its `generate.py`
//! (anthropic-sdk-python `src/anthropic/types/`, aws-sdk-rust
//! `sdk/bedrockruntime/src/types/`, cohere-python `src/cohere/v2/types/` and
//! `src/cohere/types/`, mistralai client-python `src/mistralai/client/models/`).
//! `bedrock_mistral/` has what only those two dialects do.

use crate::common;
use crate::responses::{assembler, problem, resolve, response};

use mentor_context::citations::{Resolution, Resolver};
use mentor_context::dialects::{Dialect, Entry, mark_cache_control};
use mentor_context::tokenizer::TokenCounter;
use mentor_context::{AssembledContext, ContextBuilder, Encoding, MentorRagResult};
use proptest::prelude::*;

fn pricing() -> Vec<MentorRagResult> {
    common::fixture("pricing")
}

/// The streamed forms of each fixture response: JSON Lines of events, and the server-sent
/// events of all but Bedrock (whose wire framing is binary, and the AWS SDKs' to read).
fn stream_kinds(dialect: Dialect) -> &'static [&'static str] {
    match dialect {
        Dialect::Bedrock => &["jsonl"],
        _ => &["jsonl", "sse"],
    }
}

/// Whether the dialect's citations carry a quote (Mistral's references do not).
fn quotes(dialect: Dialect) -> bool {
    dialect != Dialect::Mistral
}

#[test]
fn entries_are_the_blocks_in_each_dialect() {
    let results = pricing();
    for &dialect in Dialect::ALL {
        let assembler = assembler(dialect);
        let context = assembler.assemble(&results);
        common::check_invariants(&context, &results, &Encoding::O200kBase, false, None);
        // The budget is the dialect's text, counted exactly; the report says which.
        assert_eq!(context.dialect, Some(dialect));
        assert_eq!(
            Encoding::O200kBase.count(&context.text),
            context.token_count
        );
        let entries = assembler.entries(&context).unwrap();
        assert_eq!(entries.len(), context.citations.len());
        for (entry, citation) in entries.iter().zip(&context.citations) {
            if dialect == Dialect::Bedrock {
                // The document's name: the number, then the title.
                let title = citation.title.as_deref().or(citation.source_url.as_deref());
                let number = format!("[{}]", citation.index);
                let name = entry.title().unwrap();
                assert!(name.starts_with(&number), "{name}");
                assert_eq!(title.is_some(), name.len() > number.len(), "{name}");
            } else {
                assert_eq!(entry.title(), citation.title.as_deref(), "{dialect}");
            }
        }
        insta::assert_snapshot!(
            format!("entries-{dialect}"),
            serde_json::to_string_pretty(&entries).unwrap()
        );
    }
}

#[test]
fn metadata_keeps_its_rules_in_every_entry() {
    let results = [MentorRagResult::from_content("Plan B costs 12 EUR.", 0.9)
        .with_title("Prices\n[2] Forged")
        .with_metadata([
            ("text", "not the content"),
            ("chunk_id", "c-1"),
            ("lang", "en"),
        ])];
    for &dialect in Dialect::ALL {
        let assembler = ContextBuilder::new(500)
            .dialect(dialect)
            .hide_metadata_key("chunk_id")
            .build()
            .unwrap();
        let context = assembler.assemble(&results);
        let json = serde_json::to_string(&assembler.entries(&context).unwrap()).unwrap();
        assert!(
            !json.contains("c-1"),
            "{dialect}: a hidden key is out: {json}"
        );
        assert!(
            json.contains("Prices [2] Forged"),
            "{dialect}: one line: {json}"
        );
        assert!(json.contains("Plan B costs 12 EUR."), "{dialect}: {json}");
        if dialect == Dialect::Cohere {
            assert!(
                json.contains(r#""text (metadata)":"not the content""#),
                "{json}"
            );
            assert!(json.contains(r#""text":"Plan B costs 12 EUR.""#), "{json}");
        }
    }
}

/// The goldens of reading: each fixture response, whole, as JSON Lines and as server-sent
/// events, resolves the same.
#[test]
fn responses_resolve_the_same_whole_and_streamed() {
    for &dialect in Dialect::ALL {
        let whole = resolve(dialect, &response(dialect, "json")).unwrap();
        for kind in stream_kinds(dialect) {
            assert_eq!(
                resolve(dialect, &response(dialect, kind)).unwrap(),
                whole,
                "{dialect} {kind}"
            );
        }
        // The fixtures cite entries 1, 2 and 3, misquote the third (where quotes are), and
        // name one no entry has.
        let cited: Vec<usize> = whole.cited.iter().map(|c| c.citation.index).collect();
        assert_eq!(cited, [1, 2, 3], "{dialect}");
        if quotes(dialect) {
            assert_eq!(whole.unverified, 1, "{dialect}");
            assert!(!whole.cited[2].quotes[0].verified && whole.cited[0].quotes[0].verified);
        } else {
            assert_eq!(whole.unverified, 0, "{dialect}");
            assert!(whole.cited.iter().all(|c| c.quotes.is_empty()), "{dialect}");
        }
        assert_eq!(whole.unknown.len(), 1, "{dialect}");
        insta::assert_snapshot!(
            format!("resolution-{dialect}"),
            serde_json::to_string_pretty(&whole).unwrap()
        );
    }
}

/// Non-ASCII answers: each place is the same stretch of the answer in bytes and in UTF-16
/// units, and Cohere's offsets count characters (Python string indices).
#[test]
fn places_are_bytes_and_utf16_units_of_the_answer() {
    for &dialect in Dialect::ALL {
        let resolution = resolve(dialect, &response(dialect, "json")).unwrap();
        let answer = resolution.answer.as_deref().unwrap();
        assert!(
            !answer.is_ascii(),
            "{dialect}: the fixture answers in German, with €"
        );
        let units: Vec<u16> = answer.encode_utf16().collect();
        for cited in &resolution.cited {
            for span in &cited.spans {
                let by_bytes = &answer[span.start..span.end];
                let by_units =
                    String::from_utf16(&units[span.start_utf16..span.end_utf16]).unwrap();
                assert_eq!(by_bytes, by_units, "{dialect}");
                if dialect == Dialect::Cohere && cited.quotes[0].verified {
                    assert_eq!(
                        by_bytes, cited.quotes[0].text,
                        "the span is the quoted text"
                    );
                }
            }
        }
    }
    let cohere = resolve(Dialect::Cohere, &response(Dialect::Cohere, "json")).unwrap();
    assert_eq!(cohere.cited[0].quotes[0].text, "15 € pro Sitz und Monat");
}

/// Cohere's `start` and `end` count characters (Python string indices); an answer with an
/// emoji before the cited stretch tells characters, UTF-16 units and bytes apart. Offsets in
/// any of the three find the stretch the citation's `text` names, and offsets in none of them
/// leave the quote unverified.
#[test]
fn cohere_offsets_are_read_in_the_unit_that_gives_the_citations_text() {
    let answer = "Prüfen 🧾: 15 € pro Sitz [1].";
    let quoted = "15 € pro Sitz";
    let byte = answer.find(quoted).unwrap();
    let chars = answer[..byte].chars().count();
    let units = answer[..byte].encode_utf16().count();
    // Three different starts: the emoji is 1 character, 2 units and 4 bytes.
    assert!(chars < units && units < byte);
    let length = |unit: &str| match unit {
        "chars" => quoted.chars().count(),
        "units" => quoted.encode_utf16().count(),
        _ => quoted.len(),
    };
    for (unit, start, verified) in [
        ("chars", chars, true),
        ("units", units, true),
        ("bytes", byte, true),
        ("chars", 2, false),
    ] {
        let response = serde_json::json!({
            "id": "r", "finish_reason": "COMPLETE",
            "message": {"role": "assistant",
                "content": [{"type": "text", "text": answer}],
                "citations": [{"start": start, "end": start + length(unit), "text": quoted,
                    "type": "TEXT_CONTENT", "sources": [{"type": "document", "id": "1",
                    "document": {"id": "1"}}]}]},
        });
        let resolution = resolve(Dialect::Cohere, &response.to_string()).unwrap();
        let cited = &resolution.cited[0];
        assert_eq!(cited.quotes[0].verified, verified, "{unit} from {start}");
        assert_eq!(resolution.unverified, usize::from(!verified), "{unit}");
        if verified {
            let span = cited.spans[0];
            assert_eq!(&answer[span.start..span.end], quoted, "{unit}");
            let all: Vec<u16> = answer.encode_utf16().collect();
            assert_eq!(span.start_utf16, units, "{unit}");
            assert_eq!(
                String::from_utf16(&all[span.start_utf16..span.end_utf16]).unwrap(),
                quoted
            );
        }
    }
}

/// Streaming gives the whole response's text, events and resolution, however the
/// server-sent events are cut into chunks.
fn chunked_equals_whole(dialect: Dialect, cuts: &[usize]) -> Result<(), TestCaseError> {
    let sse = response(dialect, "sse");
    let assembler = assembler(dialect);
    let results = pricing();
    let context = assembler.assemble(&results);
    let entries = assembler.entries(&context).unwrap();
    let resolver = Resolver::for_context(&context).entries(&entries);
    let whole = resolver.response(&sse).unwrap();
    let mut stream = resolver.response_stream().unwrap();
    let (mut shown, mut events) = (String::new(), Vec::new());
    let mut at = 0;
    let mut cuts: Vec<usize> = cuts
        .iter()
        .map(|&c| sse.floor_char_boundary(c % (sse.len() + 1)))
        .collect();
    cuts.sort_unstable();
    for cut in cuts.into_iter().chain([sse.len()]) {
        let out = stream.push_sse(&sse[at..cut]).unwrap();
        shown.push_str(&out.text);
        events.extend(out.events);
        at = cut;
    }
    let (rest, resolution) = stream.finish().unwrap();
    shown.push_str(&rest.text);
    events.extend(rest.events);
    prop_assert_eq!(&resolution, &whole);
    prop_assert_eq!(Some(shown.as_str()), whole.answer.as_deref());
    let cited_events = events
        .iter()
        .filter(|e| matches!(e, mentor_context::citations::CitationEvent::Cited { .. }))
        .count();
    prop_assert_eq!(
        cited_events,
        whole.cited.iter().map(|c| c.count).sum::<usize>()
    );
    Ok(())
}

proptest! {
    #[test]
    fn any_chunking_of_a_stream_resolves_as_the_whole(
        cuts in prop::collection::vec(any::<usize>(), 0..12),
        dialect in prop::sample::select(
            Dialect::ALL.iter().copied().filter(|&d| d != Dialect::Bedrock).collect::<Vec<_>>()
        ),
    ) {
        chunked_equals_whole(dialect, &cuts)?;
    }
}

/// An answer with `[n]` markers and the same answer as Anthropic citations cite the same
/// entries, in the same order, as often.
#[test]
fn markers_and_anthropic_citations_resolve_to_the_same_citations() {
    let results = pricing();
    let text = ContextBuilder::new(600).build().unwrap();
    let context = text.assemble(&results);
    let marked = Resolver::for_context(&context)
        .resolve("Team costs 15 EUR [1], before 13 EUR [2]; add-ons [3][1].");
    let dialect = assembler(Dialect::Anthropic);
    let report = dialect.assemble(&results);
    let cite = |n: usize| {
        serde_json::json!({"type": "search_result_location", "cited_text": "",
            "search_result_index": n - 1, "source": "", "start_block_index": 0,
            "end_block_index": 1})
    };
    let block = |text: &str, cites: &[usize]| {
        serde_json::json!({"type": "text", "text": text,
            "citations": cites.iter().map(|&n| cite(n)).collect::<Vec<_>>()})
    };
    let message = serde_json::json!({"type": "message", "content": [
        block("Team costs 15 EUR", &[1]), block(", before 13 EUR", &[2]),
        block("; add-ons", &[3, 1]), {"type": "text", "text": "."}]});
    // The citations give no source: read without the entries sent, which would refuse them.
    let provider = Resolver::new(&report.citations)
        .dialect(Dialect::Anthropic)
        .response(&message.to_string())
        .unwrap();
    let summary = |r: &Resolution| -> Vec<(usize, usize, usize)> {
        r.cited
            .iter()
            .map(|c| (c.citation.index, c.citation.input_index, c.count))
            .collect()
    };
    assert_eq!(summary(&provider), summary(&marked));
    assert!(provider.unknown.is_empty() && marked.unknown.is_empty());
}

/// The verifier: a quote changed by one character is not verified, wherever the change is.
#[test]
fn a_quote_changed_by_one_character_is_unverified() {
    for dialect in Dialect::ALL.iter().copied().filter(|&d| quotes(d)) {
        let whole = response(dialect, "json");
        let resolution = resolve(dialect, &whole).unwrap();
        let quote = &resolution.cited[1].quotes[0];
        assert!(quote.verified, "{dialect}");
        let field = match dialect {
            Dialect::Cohere | Dialect::Bedrock => "text",
            _ => "cited_text",
        };
        let mut message: serde_json::Value = serde_json::from_str(&whole).unwrap();
        let chars: Vec<char> = quote.text.chars().collect();
        for at in (0..chars.len())
            .filter(|&i| !chars[i].is_whitespace())
            .step_by(7)
        {
            let mut changed = chars.clone();
            changed[at] = if changed[at] == 'x' { 'y' } else { 'x' };
            let changed: String = changed.into_iter().collect();
            set_second_quote(&mut message, dialect, field, &changed);
            let again = resolve(dialect, &message.to_string()).unwrap();
            assert!(!again.cited[1].quotes[0].verified, "{dialect}: {changed:?}");
            assert_eq!(again.unverified, 2, "{dialect}");
        }
    }
}

fn set_second_quote(message: &mut serde_json::Value, dialect: Dialect, field: &str, text: &str) {
    let citation = match dialect {
        Dialect::Cohere => &mut message["message"]["citations"][1],
        Dialect::Bedrock => {
            &mut message["output"]["message"]["content"][2]["citationsContent"]["citations"][0]["sourceContent"]
                [0]
        }
        _ => &mut message["content"][2]["citations"][0],
    };
    citation[field] = text.into();
}

/// A quote just before a `[n]` marker is looked for in block `n`'s content.
#[test]
fn quotes_before_markers_are_checked_against_their_blocks() {
    let results = pricing();
    let assembler = ContextBuilder::new(600).build().unwrap();
    let context = assembler.assemble(&results);
    let contents = assembler.contents(&context).unwrap();
    let answer = "The list says \u{201c}Team: 15 EUR, unlimited seats\u{201d} [1], not \"Team: 12 EUR\" [1].";
    let resolution = Resolver::for_context(&context)
        .contents(&contents)
        .resolve(answer);
    let quotes = &resolution.cited[0].quotes;
    assert_eq!(quotes.len(), 2);
    assert!(quotes[0].verified && !quotes[1].verified, "{quotes:?}");
    assert_eq!(resolution.unverified, 1);
    // The report alone is enough: its layout says how to read its contents back.
    assert_eq!(Resolver::for_context(&context).resolve(answer), resolution);
    // Chips alone have no contents: no quote is looked for.
    let plain = Resolver::new(&context.citations).resolve(answer);
    assert!(plain.cited[0].quotes.is_empty() && plain.unverified == 0);
}

#[test]
fn bad_responses_are_errors_naming_the_place() {
    assert!(
        problem(Dialect::Anthropic, "{\"type\": \"message\", \"content\": [")
            .contains("line 1: not JSON")
    );
    // Cut off: the last event never comes, or the server-sent events stop inside one.
    let sse = response(Dialect::Anthropic, "sse");
    let cut = &sse[..sse.rfind("event: message_stop").unwrap()];
    assert!(
        problem(Dialect::Anthropic, cut).contains("cut off after"),
        "{}",
        problem(Dialect::Anthropic, cut)
    );
    let mid = &sse[..sse.rfind("\"message_stop\"").unwrap()];
    assert!(problem(Dialect::Anthropic, mid).contains("cut off in the middle of event"));
    let jsonl = response(Dialect::Cohere, "jsonl");
    let cut = &jsonl[..jsonl.rfind("{\"type\": \"message-end\"").unwrap()];
    assert!(problem(Dialect::Cohere, cut).contains("before message-end"));
    // Negative and reversed indices.
    let whole = response(Dialect::Anthropic, "json");
    let negative = whole.replacen(
        "\"search_result_index\": 0",
        "\"search_result_index\": -1",
        1,
    );
    assert!(
        problem(Dialect::Anthropic, &negative)
            .contains("content[1].citations[0].search_result_index: -1 is negative")
    );
    let reversed = whole.replacen("\"end_block_index\": 2", "\"end_block_index\": 0", 1);
    assert!(
        problem(Dialect::Anthropic, &reversed)
            .contains("end_block_index 0 is before start_block_index 1")
    );
    let cohere = response(Dialect::Cohere, "json");
    let reversed = cohere.replacen("\"end\": 43", "\"end\": 3", 1);
    assert!(
        problem(Dialect::Cohere, &reversed)
            .contains("message.citations[0]: end 3 is before start 20")
    );
    // A dialect the report was not assembled for.
    assert!(
        problem(Dialect::AnthropicDocuments, &whole)
            .contains("assembled for the anthropic-documents dialect")
    );
    let text = ContextBuilder::new(600).build().unwrap();
    let results = pricing();
    let report = text.assemble(&results);
    let err = Resolver::for_context(&report).response(&whole).unwrap_err();
    assert!(err.to_string().contains("assembled as text"), "{err}");
}

/// A follow-up turn keeps the earlier entries first and byte for byte, so the request's
/// prefix (and a prompt cache over it) stays the same.
#[test]
fn follow_up_turns_keep_earlier_entries_first_and_the_same() {
    let results = pricing();
    for &dialect in Dialect::ALL {
        let assembler = ContextBuilder::new(400).dialect(dialect).build().unwrap();
        let first = assembler.assemble(&results[..3]);
        let stored: AssembledContext<'static> =
            serde_json::from_str(&serde_json::to_string(&first).unwrap()).unwrap();
        let bigger = ContextBuilder::new(900).dialect(dialect).build().unwrap();
        let next = bigger.assemble_follow_up(&stored, &results[3..]).unwrap();
        let (old, new) = (
            bigger.entries(&first).unwrap(),
            bigger.entries(&next).unwrap(),
        );
        assert!(new.len() > old.len(), "{dialect}");
        assert_eq!(
            serde_json::to_string(&old).unwrap().trim_end_matches(']'),
            serde_json::to_string(&new[..old.len()])
                .unwrap()
                .trim_end_matches(']'),
            "{dialect}"
        );
        // The cache breakpoints go on the last earlier entry and the last one.
        let mut marked = new.clone();
        mark_cache_control(&mut marked, old.len() - 1);
        mark_cache_control(&mut marked, new.len() - 1);
        let json = serde_json::to_string(&marked).unwrap();
        let expected = match dialect {
            Dialect::Anthropic | Dialect::AnthropicDocuments => 2,
            _ => 0,
        };
        assert_eq!(
            json.matches("\"cache_control\"").count(),
            expected,
            "{dialect}"
        );
        // A report of another dialect does not continue.
        let other = Dialect::ALL
            .iter()
            .copied()
            .find(|&d| d != dialect)
            .unwrap();
        let err = ContextBuilder::new(900)
            .dialect(other)
            .build()
            .unwrap()
            .assemble_follow_up(&stored, &results[3..])
            .unwrap_err();
        assert!(
            err.to_string().contains(&format!("the {dialect} dialect")),
            "{err}"
        );
        assert!(matches!(
            &new[0],
            Entry::Anthropic(_) | Entry::Bedrock(_) | Entry::Cohere(_) | Entry::Mistral(_)
        ));
    }
}
