//! A renumbered answer is read again as the same citations: a range whose new numbers no
//! longer run on is written as runs, short enough to stay a marker.

use mentor_context::citations::{MAX_MARKER_BYTES, Resolution, Resolver};
use mentor_context::{ContextBuilder, MentorRagResult};

/// `n` one-line documents, "Document 0." and on, of the same score.
fn documents(n: usize) -> Vec<MentorRagResult> {
    (0..n)
        .map(|i| MentorRagResult::from_content(format!("Document {i}."), 0.9))
        .collect()
}

/// Each chip cited, by its number, and how often.
fn counts(resolution: &Resolution) -> Vec<(usize, usize)> {
    resolution
        .cited
        .iter()
        .map(|c| (c.citation.index, c.count))
        .collect()
}

/// Found by `fuzz/fuzz_targets/answer_markers.rs`: `[1-1000]` after `[2]` was written as a
/// list of a thousand numbers, which is no marker, so the renumbered answer cited nothing.
#[test]
fn a_wide_range_renumbered_is_still_a_marker_citing_the_same_chips() {
    let results = documents(3);
    let context = ContextBuilder::new(300).build().unwrap().assemble(&results);
    let answer = "First [2], then all [1-1000].";
    let resolution = Resolver::for_context(&context)
        .renumber(true)
        .resolve(answer);
    let renumbered = resolution.answer.as_deref().unwrap();
    assert_eq!(renumbered, "First [1], then all [2, 1, 3-1000].");
    let marker = &renumbered[renumbered.find("[2").unwrap()..];
    assert!(marker.len() <= MAX_MARKER_BYTES);

    let again = Resolver::for_context(&context).resolve(renumbered);
    assert_eq!(counts(&again), [(1, 2), (2, 1), (3, 1)]);
    assert_eq!(again.unknown.len(), resolution.unknown.len());
}

/// Found by the same target in CI: a marker padded with spaces (`[` and 57 spaces, then
/// `1-100]`) grew past [`MAX_MARKER_BYTES`] when its range became runs, so the renumbered
/// answer read it as text. Such a marker is written without its padding.
#[test]
fn a_padded_marker_renumbered_stays_a_marker() {
    let results = documents(4);
    let context = ContextBuilder::new(300).build().unwrap().assemble(&results);
    let answer = format!("First [4], then [{}1-100].", " ".repeat(57));
    let resolution = Resolver::for_context(&context)
        .renumber(true)
        .resolve(&answer);
    let renumbered = resolution.answer.as_deref().unwrap();
    assert_eq!(renumbered, "First [1], then [2-4, 1, 5-100].");
    let again = Resolver::for_context(&context).resolve(renumbered);
    assert_eq!(counts(&again), [(1, 2), (2, 1), (3, 1), (4, 1)]);
    assert_eq!(counts(&resolution).len(), 4);
    assert_eq!(again.unknown.len(), resolution.unknown.len());
}
