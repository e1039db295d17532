//! What several targets share: the fixture reports they read against, the fuzzer-chosen
//! chunkings, and the checks of a resolution's places.
#![allow(dead_code)] // each target uses its own part

use mentor_context::citations::{MarkerSpan, Resolution};
use mentor_context::dialects::Dialect;
use mentor_context::wire::parse_results;
use mentor_context::{AssembledContext, ContextBuilder, MentorRagResult};

/// The fixture the response fixtures answer (`fixtures/responses/generate.py`).
pub const PRICING: &str = include_str!("../../../fixtures/pricing.json");

/// The results of `fixtures/pricing.json`.
pub fn pricing() -> Vec<MentorRagResult> {
    parse_results(PRICING).expect("fixtures/pricing.json parses")
}

/// A report of `results` in `dialect` (or text), at the budget the response fixtures used.
pub fn report(dialect: Option<Dialect>, results: &[MentorRagResult]) -> AssembledContext<'static> {
    let mut builder = ContextBuilder::new(600);
    if let Some(dialect) = dialect {
        builder = builder.dialect(dialect);
    }
    builder
        .build()
        .expect("a valid configuration")
        .assemble(results)
        .into_owned()
}

/// `text` cut into chunks whose lengths a seed chooses (1 to 64 bytes, widened to the next
/// character boundary), so that the fuzzer explores chunkings by mutating one byte.
pub fn chunks(text: &str, seed: u8) -> Vec<&str> {
    let mut state = u32::from(seed) | 0x9e37_7900;
    let most = 1 + (u32::from(seed) % 64);
    let mut out = Vec::new();
    let mut start = 0;
    while start < text.len() {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let mut end = (start + 1 + (state % most) as usize).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(&text[start..end]);
        start = end;
    }
    out
}

/// Checks that `span` lies inside `answer`, on character boundaries, and that its UTF-16
/// offsets are those of its byte offsets.
pub fn check_span(answer: &str, span: &MarkerSpan, what: &str) {
    assert!(
        span.start <= span.end && span.end <= answer.len(),
        "{what}: span {span:?} outside an answer of {} bytes",
        answer.len()
    );
    assert!(
        answer.is_char_boundary(span.start) && answer.is_char_boundary(span.end),
        "{what}: span {span:?} not on character boundaries of {answer:?}"
    );
    let utf16 = |at: usize| answer[..at].encode_utf16().count();
    assert_eq!(
        span.start_utf16,
        utf16(span.start),
        "{what}: start_utf16 of {span:?}"
    );
    assert_eq!(
        span.end_utf16,
        utf16(span.end),
        "{what}: end_utf16 of {span:?}"
    );
}

/// Checks every place of `resolution` against `answer`, and its bookkeeping: chips cited
/// once each, `new_index` 1..k in order, counts at least 1, `unverified` the quotes that
/// failed, every unknown marker's offset on a boundary of the answer.
pub fn check_resolution(answer: &str, resolution: &Resolution, chips: usize, what: &str) {
    let mut seen = std::collections::HashSet::new();
    let mut unverified = 0;
    for (i, cited) in resolution.cited.iter().enumerate() {
        assert_eq!(
            cited.new_index,
            i + 1,
            "{what}: new_index of the {i}th cited"
        );
        assert!(
            (1..=chips).contains(&cited.citation.index),
            "{what}: cites chip {} of {chips}",
            cited.citation.index
        );
        assert!(
            seen.insert(cited.citation.index),
            "{what}: a chip cited twice"
        );
        assert!(cited.count >= 1, "{what}: cited zero times");
        for span in &cited.spans {
            check_span(answer, span, what);
        }
        for pair in cited.spans.windows(2) {
            assert!(
                pair[0].start <= pair[1].start,
                "{what}: spans out of answer order"
            );
        }
        unverified += cited.quotes.iter().filter(|q| !q.verified).count();
    }
    assert_eq!(resolution.unverified, unverified, "{what}: unverified");
    for unknown in &resolution.unknown {
        assert!(
            unknown.at <= answer.len() && answer.is_char_boundary(unknown.at),
            "{what}: unknown marker at {} of {} bytes",
            unknown.at,
            answer.len()
        );
    }
}
