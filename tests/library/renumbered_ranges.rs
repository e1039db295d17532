//! A renumbered answer is read again as the same citations: a range whose new numbers no
//! longer run on is written as runs, short enough to stay a marker.

use mentor_context::citations::{MAX_MARKER_BYTES, Resolver};
use mentor_context::{ContextBuilder, MentorRagResult};

/// Found by `fuzz/fuzz_targets/answer_markers.rs`: `[1-1000]` after `[2]` was written as a
/// list of a thousand numbers, which is no marker, so the renumbered answer cited nothing.
#[test]
fn a_wide_range_renumbered_is_still_a_marker_citing_the_same_chips() {
    let results: Vec<MentorRagResult> = (0..3)
        .map(|i| MentorRagResult::from_content(format!("Document {i}."), 0.9))
        .collect();
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
    let cited: Vec<(usize, usize)> = again
        .cited
        .iter()
        .map(|c| (c.citation.index, c.count))
        .collect();
    assert_eq!(cited, [(1, 2), (2, 1), (3, 1)]);
    assert_eq!(again.unknown.len(), resolution.unknown.len());
}
