//! Range markers cannot amplify: an eight-byte `[1-1000]` names a thousand chips, so the
//! ranges of one answer cite at most `MAX_RANGE_NUMBERS` numbers in all, and a range past
//! that is an unknown marker. The red team's answer (range markers against a 1,000-chip
//! report) is checked by the spans and events it gives, not by time.

use mentor_context::citations::{MAX_MARKER_RANGE, MAX_RANGE_NUMBERS, Resolution, Resolver};
use mentor_context::{AssembledContext, ContextBuilder, MentorRagResult};

/// A report of 1,000 one-line blocks.
fn thousand_chips() -> AssembledContext<'static> {
    let results: Vec<MentorRagResult> = (0..1000)
        .map(|i| MentorRagResult::from_content(format!("Fact {i}."), 0.5))
        .collect();
    let context = ContextBuilder::new(50_000)
        .build()
        .unwrap()
        .assemble(&results)
        .into_owned();
    assert_eq!(context.citations.len(), 1000);
    context
}

/// `marker` and a space, repeated to about `bytes`.
fn answer_of(marker: &str, bytes: usize) -> String {
    format!("{marker} ").repeat(bytes / (marker.len() + 1))
}

fn spans(resolution: &Resolution) -> usize {
    resolution.cited.iter().map(|c| c.spans.len()).sum()
}

#[test]
fn the_ranges_of_an_answer_cite_at_most_the_bound_in_all() {
    assert_eq!(MAX_RANGE_NUMBERS, 10 * MAX_MARKER_RANGE);
    let report = thousand_chips();
    // The smaller answer first: without the bound it already gives millions of spans.
    for bytes in [20 << 10, 200 << 10] {
        let answer = answer_of("[1-1000]", bytes);
        let markers = answer.matches('[').count();
        let resolution = Resolver::for_context(&report).resolve(&answer);
        assert_eq!(spans(&resolution), MAX_RANGE_NUMBERS, "{bytes}");
        assert_eq!(resolution.unknown.len(), markers - 10, "{bytes}");
        assert_eq!(resolution.unknown[0].marker, "[1-1000]");
        // Streamed, the events are as many, and the resolution the same.
        let mut stream = Resolver::for_context(&report).stream();
        let mut events = 0;
        for chunk in answer.as_bytes().chunks(1000) {
            events += stream
                .push(std::str::from_utf8(chunk).unwrap())
                .events
                .len();
        }
        let (rest, streamed) = stream.finish();
        assert_eq!(events + rest.events.len(), MAX_RANGE_NUMBERS + markers - 10);
        assert_eq!(streamed, resolution, "{bytes}");
    }
}

/// Ranges in one marker take from the same bound; single numbers never do, and a chip a
/// marker names twice counts once.
#[test]
fn single_numbers_are_not_bounded_and_each_marker_counts_a_chip_once() {
    let report = thousand_chips();
    let many = "[1-1000, 1-1000, 1-1000, 1-1000, 1-1000, 1-1000, 1-1000]";
    assert!(many.len() <= mentor_context::citations::MAX_MARKER_BYTES);
    let answer = format!("[7] {many} {many} {}[2-3]", "[5] ".repeat(20_000));
    let resolution = Resolver::for_context(&report)
        .renumber(true)
        .resolve(&answer);
    let cited = |index: usize| {
        resolution
            .cited
            .iter()
            .find(|c| c.citation.index == index)
            .map_or(0, |c| c.spans.len())
    };
    // Each long marker counts chip 1 once, although its ranges name it seven times; the
    // first takes 7,000 of the bound, the second the 3,000 left in three of its ranges.
    assert_eq!(cited(1), 2);
    assert_eq!(cited(7), 3);
    assert_eq!(
        cited(5),
        2 + 20_000,
        "single numbers past the bound still cite"
    );
    assert_eq!(cited(2), 2, "[2-3] is past the bound");
    assert_eq!(spans(&resolution), 1 + 2 * 1000 + 20_000);
    let unknown: Vec<&str> = resolution
        .unknown
        .iter()
        .map(|u| u.marker.as_str())
        .collect();
    assert_eq!(unknown, [many, "[2-3]"]);
    // Renumbered (chip 7 is the first cited, so 1..1000 no longer run on and are written as
    // runs, which stay short enough to read as a marker), a range that cited nothing is kept
    // as written.
    let renumbered = resolution.answer.as_deref().unwrap();
    assert!(
        renumbered.starts_with("[1] [2-7, 1, 8-1000, 2-7, 1, 8-1000, "),
        "{}",
        &renumbered[..40]
    );
    assert!(
        renumbered.ends_with("[6] [2-3]"),
        "{}",
        &renumbered[renumbered.len() - 40..]
    );
}
