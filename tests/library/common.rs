//! Checks shared by the snapshot, property and hostile-input tests: what a reader of the
//! assembled text sees, the invariants every assembly must satisfy, and the fixtures.
#![allow(dead_code, unreachable_pub)]

use std::ops::Range;
use std::path::PathBuf;

use mentor_context::format::{Format, PlainFormat, XmlFormat};
use mentor_context::tokenizer::TokenCounter;
use mentor_context::wire::parse_results;
use mentor_context::{AssembledContext, ContextBuilder, MentorRagResult};
use proptest::test_runner::Config as ProptestConfig;
use unicode_segmentation::UnicodeSegmentation;

/// The keys of a serialized [`AssembledContext`] (the command's `--json` report), in the
/// order serde_json's map sorts them.
pub const REPORT_KEYS: [&str; 7] = [
    "budget",
    "citations",
    "context",
    "encoding",
    "layout",
    "omitted",
    "tokenCount",
];

/// The number in the environment variable `name`, or `default` when it is unset or not a
/// number: how many cases a slow test runs here, and CI sets more.
pub fn env_count<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// A property's configuration: `default` cases, or `PROPTEST_CASES` when set.
pub fn proptest_cases(default: u32) -> ProptestConfig {
    ProptestConfig::with_cases(env_count("PROPTEST_CASES", default))
}

/// The folder of request files shared by the tests, the benches and the README's commands.
pub fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

/// The names (file stems) of every request file in `fixtures/`, sorted.
pub fn fixture_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(fixtures_dir())
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|e| e == "json"))
        .map(|path| path.file_stem().unwrap().to_str().unwrap().to_string())
        .collect();
    names.sort();
    names
}

/// The JSON of request file `name` (its stem, as in `"pricing"`, or its file name).
pub fn fixture_text(name: &str) -> String {
    let file = if name.ends_with(".json") {
        name.to_string()
    } else {
        format!("{name}.json")
    };
    let path = fixtures_dir().join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The results of request file `name`, parsed as the command parses them.
pub fn fixture(name: &str) -> Vec<MentorRagResult> {
    parse_results(&fixture_text(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// One block as a reader of the text finds it, knowing nothing the assembler knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadBlock {
    /// The number its marker shows.
    pub index: usize,
    /// Where the block is in the text read: from its marker to the next block, or to the
    /// end of its closing tag.
    pub span: Range<usize>,
    /// The content as shown between its fence or tags, every line with its newline.
    pub content: String,
}

/// Reads the plain layout: a block starts at a line `[n] ...` outside any fence and runs to
/// the next such line, or to the end of the text.
pub fn read_plain(text: &str) -> Vec<ReadBlock> {
    let mut blocks: Vec<ReadBlock> = Vec::new();
    let mut fence: Option<usize> = None;
    let mut content = String::new();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let line_start = at;
        at += line.len();
        let bare = line.strip_suffix('\n').unwrap_or(line);
        let ticks = bare.len() - bare.trim_start_matches('`').len();
        match fence {
            Some(open) => {
                // CommonMark: a closing fence is at least as long as the opening, nothing else.
                if ticks >= open && bare.trim_end_matches(' ').len() == ticks {
                    fence = None;
                    if let Some(last) = blocks.last_mut() {
                        last.content = std::mem::take(&mut content);
                    }
                } else {
                    content.push_str(line);
                }
            }
            None if ticks >= 3 => fence = Some(ticks),
            None => {
                if let Some(index) = marker(bare) {
                    if let Some(last) = blocks.last_mut() {
                        last.span.end = line_start;
                    }
                    blocks.push(ReadBlock {
                        index,
                        span: line_start..text.len(),
                        content: String::new(),
                    });
                }
            }
        }
    }
    blocks
}

fn marker(line: &str) -> Option<usize> {
    let rest = line.strip_prefix('[')?;
    let end = rest.find(']')?;
    rest[..end].parse().ok()
}

/// Reads the XML layout: a block runs from `<document index="n"` to the end of the line of
/// its `</document>`.
pub fn read_xml(text: &str) -> Vec<ReadBlock> {
    const OPEN: &str = "<document index=\"";
    const CONTENT: &str = "<document_content>\n";
    const CONTENT_END: &str = "</document_content>";
    const END: &str = "</document>\n";
    let mut blocks = Vec::new();
    let mut from = 0;
    while let Some(found) = text[from..].find(OPEN) {
        let start = from + found;
        let rest = &text[start + OPEN.len()..];
        let index = rest[..rest.find('"').unwrap()].parse().unwrap();
        let open = start + text[start..].find(CONTENT).unwrap() + CONTENT.len();
        let close = open + text[open..].find(CONTENT_END).unwrap();
        let end = close + text[close..].find(END).unwrap() + END.len();
        blocks.push(ReadBlock {
            index,
            span: start..end,
            content: text[open..close].to_string(),
        });
        from = end;
    }
    blocks
}

/// The blocks a reader of the plain text sees, as (marker number, content lines joined).
pub fn plain_blocks(text: &str) -> Vec<(usize, String)> {
    read_plain(text)
        .into_iter()
        .map(|b| (b.index, b.content))
        .collect()
}

/// The blocks of the XML layout a reader sees: (index attribute, content).
pub fn xml_blocks(text: &str) -> Vec<(usize, String)> {
    read_xml(text)
        .into_iter()
        .map(|b| (b.index, b.content))
        .collect()
}

/// What `format` writes for `content` inside a body: the content as written, with the newline
/// the format adds to end its last line.
pub fn shown(format: &dyn Format, content: &str) -> String {
    let mut out = String::new();
    format.content(content, &mut out);
    if !content.is_empty() && !content.ends_with('\n') {
        out.push('\n');
    }
    out
}

/// What `builder`, counting with `tokenizer`, assembles of `results` in the plain layout
/// with no header, held to [`check_invariants`].
#[track_caller]
pub fn assemble_checked<'r, T: TokenCounter + Clone + 'static>(
    builder: ContextBuilder,
    tokenizer: T,
    results: &'r [MentorRagResult],
) -> AssembledContext<'r> {
    let context = builder.tokenizer(tokenizer.clone()).build().unwrap();
    let context = context.assemble(results);
    check_invariants(&context, results, &tokenizer, false, None);
    context
}

/// Asserts everything that must hold for any assembly of `results`, whatever the options, in
/// the default order (by score). `header` is the builder's header: the developer's own text,
/// which the reader skips.
pub fn check_invariants(
    context: &AssembledContext,
    results: &[MentorRagResult],
    tokenizer: &dyn TokenCounter,
    xml: bool,
    header: Option<&str>,
) {
    check_any_order(context, results, tokenizer, xml, header);
    // Ranking: scores never increase along the citations, NaN only at the end.
    for pair in context.citations.windows(2) {
        let (a, b) = (pair[0].score, pair[1].score);
        assert!(
            b.is_nan() || (!a.is_nan() && a >= b),
            "citations out of order: {a} then {b}"
        );
    }
}

/// [`check_invariants`] for blocks in any order (`Order::AsGiven`, `Order::Edges`).
pub fn check_any_order(
    context: &AssembledContext,
    results: &[MentorRagResult],
    tokenizer: &dyn TokenCounter,
    xml: bool,
    header: Option<&str>,
) {
    let text = &context.text;
    let recount = tokenizer.count(text);
    assert_eq!(
        recount, context.token_count,
        "reported count is not the real count"
    );
    assert!(context.token_count <= context.budget, "over budget");
    assert_eq!(
        context.citations.len() + context.omitted.len(),
        results.len(),
        "every result is either cited or omitted"
    );
    check_provenance(context, results);
    let format: &dyn Format = if xml { &XmlFormat } else { &PlainFormat };
    let header = header
        .map(str::trim_end)
        .filter(|h| !h.is_empty())
        .map(|h| format!("{h}\n"))
        .unwrap_or_default();
    assert!(text.starts_with(&header), "the text starts with the header");
    let body = &text[header.len()..];
    let blocks = if xml {
        read_xml(body)
    } else {
        read_plain(body)
    };
    let numbers: Vec<usize> = blocks.iter().map(|b| b.index).collect();
    let expected: Vec<usize> = (1..=context.citations.len()).collect();
    assert_eq!(
        numbers, expected,
        "a reader sees exactly the cited blocks, in order"
    );
    for (i, c) in context.citations.iter().enumerate() {
        assert_eq!(c.index, i + 1);
    }

    // The layout: the format's opening, the blocks back to back, its closing; or, without a
    // block, the header alone.
    let (mut open, mut close) = (String::new(), String::new());
    format.open(&mut open);
    format.close(&mut close);
    let mut joins = vec![header.len()];
    let frame_tokens = if let (Some(first), Some(last)) = (blocks.first(), blocks.last()) {
        assert_eq!(&body[..first.span.start], open, "the text opens the layout");
        assert_eq!(&body[last.span.end..], close, "the text closes the layout");
        for pair in blocks.windows(2) {
            assert_eq!(pair[0].span.end, pair[1].span.start, "text between blocks");
        }
        joins.extend(blocks.iter().map(|b| header.len() + b.span.start));
        joins.push(header.len() + last.span.end);
        tokenizer.count(&open) + tokenizer.count(&close)
    } else {
        assert_eq!(body, "", "without a block the text is the header alone");
        0
    };
    // Each chip counts its own block's text, as a reader delimits it.
    for (citation, block) in context.citations.iter().zip(&blocks) {
        assert_eq!(
            citation.token_count,
            tokenizer.count(&body[block.span.clone()]),
            "block {} has a count other than its text's",
            citation.index
        );
    }
    // Where every join is exact for the tokenizer, the parts add up to the whole: header,
    // layout and the chips' counts are the reported count.
    let chips: usize = context.citations.iter().map(|c| c.token_count).sum();
    let exact = joins
        .iter()
        .all(|&at| at == 0 || at == text.len() || tokenizer.splits_exactly(text, at));
    let openai = mentor_context::Encoding::ALL
        .iter()
        .any(|encoding| encoding.name() == tokenizer.name());
    assert!(
        exact || !openai,
        "a built-in layout meets an OpenAI encoding only at exact splits"
    );
    if exact {
        assert_eq!(
            tokenizer.count(&header) + frame_tokens + chips,
            context.token_count,
            "header, layout and chips do not add up to the count"
        );
    }
    // A block shows its result's whole content, or, cut, a prefix of it that ends on a
    // grapheme boundary; in either layout, as the format writes content.
    for (citation, block) in context.citations.iter().zip(&blocks) {
        let mut candidates = results.iter().filter(|r| {
            r.score.to_bits() == citation.score.to_bits() && r.source_url == citation.source_url
        });
        if citation.truncated {
            // The chip's keptBytes says where the cut is: the prefix that long, written as
            // the format writes content, is what the text shows.
            let cut_ok = |r: &MentorRagResult| {
                citation.kept_bytes.is_some_and(|len| {
                    len < r.content.len()
                        && r.content.is_char_boundary(len)
                        && shown(format, &r.content[..len]) == block.content
                        && r.content.grapheme_indices(true).any(|(i, _)| i == len)
                })
            };
            assert!(
                candidates.any(cut_ok),
                "block {} is not a prefix of its result ending on a grapheme boundary",
                citation.index
            );
        } else {
            assert!(
                candidates.any(|r| shown(format, &r.content) == block.content),
                "block {} does not show its whole content",
                citation.index
            );
        }
    }
}

/// kept lengths measure a prefix of its content in UTF-8 and UTF-16.
pub fn check_provenance(context: &AssembledContext, results: &[MentorRagResult]) {
    let mut seen = vec![false; results.len()];
    let chips = context.citations.iter().map(|c| {
        (
            c.input_index,
            c.score,
            c.source_url.as_deref(),
            c.title.as_deref(),
        )
    });
    let omitted = context.omitted.iter().map(|o| {
        (
            o.input_index,
            o.score,
            o.source_url.as_deref(),
            o.title.as_deref(),
        )
    });
    for (i, score, url, title) in chips.chain(omitted) {
        let result = &results[i];
        assert!(!seen[i], "input {i} is reported twice");
        seen[i] = true;
        assert_eq!(result.score.to_bits(), score.to_bits(), "input {i}: score");
        assert_eq!(result.source_url.as_deref(), url, "input {i}: URL");
        assert_eq!(result.display_title(), title, "input {i}: title");
    }
    assert!(seen.iter().all(|&s| s), "every input is reported");
    for c in &context.citations {
        let content = &results[c.input_index].content;
        assert_eq!(c.fingerprint, mentor_context::Fingerprint::of(content));
        match (c.truncated, c.kept_bytes, c.kept_utf16) {
            (false, None, None) => {}
            (true, Some(bytes), Some(utf16)) => {
                assert!(bytes < content.len(), "chip {}: kept all", c.index);
                let kept = content.get(..bytes).expect("kept ends on a char boundary");
                assert_eq!(kept.encode_utf16().count(), utf16, "chip {}", c.index);
            }
            other => panic!(
                "chip {}: truncated and kept lengths disagree: {other:?}",
                c.index
            ),
        }
    }
}
