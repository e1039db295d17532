//! Checks shared by the snapshot, property and hostile-input tests: what a reader of the
//! assembled text sees, and the invariants every assembly must satisfy.
#![allow(dead_code, unreachable_pub)]

use mentor_context::{AssembledContext, MentorRagResult, TokenCounter};

/// The keys of a serialized [`AssembledContext`] (the command's `--json` report), in the
/// order serde_json's map sorts them.
pub const REPORT_KEYS: [&str; 6] = [
    "budget",
    "citations",
    "context",
    "encoding",
    "omitted",
    "tokenCount",
];
use unicode_segmentation::UnicodeSegmentation;

/// The blocks a reader of the text sees, as (marker number, content lines joined), parsed
/// the way a model or a person would read them, without knowing anything the builder knows.
pub fn plain_blocks(text: &str) -> Vec<(usize, String)> {
    let mut blocks: Vec<(usize, String)> = Vec::new();
    let mut fence: Option<usize> = None;
    let mut content = String::new();
    for line in text.split_inclusive('\n') {
        let bare = line.strip_suffix('\n').unwrap_or(line);
        let ticks = bare.len() - bare.trim_start_matches('`').len();
        match fence {
            Some(open) => {
                // CommonMark: a closing fence is at least as long as the opening, nothing else.
                if ticks >= open && bare.trim_end_matches(' ').len() == ticks {
                    fence = None;
                    if let Some(last) = blocks.last_mut() {
                        last.1 = std::mem::take(&mut content);
                    }
                } else {
                    content.push_str(line);
                }
            }
            None if ticks >= 3 => fence = Some(ticks),
            None => {
                if let Some(n) = marker(bare) {
                    blocks.push((n, String::new()));
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

/// The blocks of the XML layout a reader sees: (index attribute, content).
pub fn xml_blocks(text: &str) -> Vec<(usize, String)> {
    let mut blocks = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("<document index=\"") {
        rest = &rest[at + "<document index=\"".len()..];
        let n = rest[..rest.find('"').unwrap()].parse().unwrap();
        let open = rest.find("<document_content>\n").unwrap() + "<document_content>\n".len();
        let close = rest.find("</document_content>").unwrap();
        blocks.push((n, rest[open..close].to_string()));
        rest = &rest[close..];
    }
    blocks
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
    let recount = tokenizer.count(&context.text);
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
    let header = header.map(str::trim_end).filter(|h| !h.is_empty());
    let skip = header.map_or(0, |h| h.len() + 1);
    if let Some(h) = header {
        assert!(
            context.text.starts_with(h),
            "the text starts with the header"
        );
    }
    let body = &context.text[skip..];
    let blocks = if xml {
        xml_blocks(body)
    } else {
        plain_blocks(body)
    };
    let numbers: Vec<usize> = blocks.iter().map(|b| b.0).collect();
    let expected: Vec<usize> = (1..=context.citations.len()).collect();
    assert_eq!(
        numbers, expected,
        "a reader sees exactly the cited blocks, in order"
    );
    for (i, c) in context.citations.iter().enumerate() {
        assert_eq!(c.index, i + 1);
    }
    let total: usize = context.citations.iter().map(|c| c.token_count).sum();
    assert!(total <= context.token_count);
    // Truncated content is a prefix of a result's content, ending on a grapheme boundary.
    if !xml {
        for (citation, (_, shown)) in context.citations.iter().zip(&blocks) {
            let shown = shown.strip_suffix('\n').unwrap_or(shown);
            let candidates = results.iter().filter(|r| {
                r.score.to_bits() == citation.score.to_bits() && r.source_url == citation.source_url
            });
            if citation.truncated {
                let cut_ok = |r: &&MentorRagResult| {
                    shown.len() < r.content.len()
                        && r.content.starts_with(shown)
                        && r.content
                            .grapheme_indices(true)
                            .any(|(i, _)| i == shown.len())
                };
                assert!(
                    candidates.clone().any(|r| cut_ok(&r)),
                    "block {} is not a prefix of its result ending on a grapheme boundary",
                    citation.index
                );
            } else {
                let whole = |r: &&MentorRagResult| {
                    r.content == shown || r.content.strip_suffix('\n') == Some(shown)
                };
                assert!(
                    candidates.clone().any(|r| whole(&r)),
                    "block {} does not show its whole content",
                    citation.index
                );
            }
        }
    }
}
