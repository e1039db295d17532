//! Any answer against a real report: every cited span is a marker of the answer citing
//! numbers the report has, every unknown marker names a number it has not, renumbering is a
//! bijection onto 1..k, and the answer streamed in any chunking resolves as the whole.
//!
//! Input layout (see `fuzz/README.md`; `fuzz/seed_targets.sh` writes seeds in it):
//!
//! | bytes | meaning |
//! | ----- | ------- |
//! | 0     | bit 0 renumber; bit 1 give the resolver the contents (quotes checked); bits 2-3 the report: 0-1 `fixtures/pricing.json` (budget 600), 2 `fixtures/support.json`, 3 no chips |
//! | 1     | the seed of the chunking (chunks of 1 to 64 bytes) |
//! | 2..   | the answer, UTF-8 |

#![no_main]

mod common;

use std::sync::OnceLock;

use libfuzzer_sys::fuzz_target;
use mentor_context::citations::{MAX_MARKER_RANGE, Resolution, Resolver};
use mentor_context::wire::parse_results;
use mentor_context::{AssembledContext, ContextBuilder};

struct Report {
    report: AssembledContext<'static>,
    contents: Vec<String>,
}

fn reports() -> &'static [Report; 3] {
    static REPORTS: OnceLock<[Report; 3]> = OnceLock::new();
    REPORTS.get_or_init(|| {
        let assembler = ContextBuilder::new(600).build().unwrap();
        let make = |results: &[mentor_context::MentorRagResult]| {
            let report = assembler.assemble(results).into_owned();
            Report {
                contents: assembler.contents(&report).unwrap(),
                report,
            }
        };
        let support = parse_results(include_str!("../../fixtures/support.json")).unwrap();
        [make(&common::pricing()), make(&support), make(&[])]
    })
}

/// The numbers a marker's text cites, or `None` for an item that is no number or range the
/// report could have (reversed, wider than `MAX_MARKER_RANGE`).
fn numbers(marker: &str) -> Vec<Option<(usize, usize)>> {
    let inner = marker
        .strip_prefix('[')
        .or_else(|| marker.strip_prefix('［'))
        .and_then(|m| m.strip_suffix(']').or_else(|| m.strip_suffix('］')))
        .unwrap_or_else(|| panic!("span {marker:?} is not bracketed"));
    assert!(
        inner
            .chars()
            .all(|c| matches!(c, '0'..='9' | ' ' | ',' | '-' | '–')),
        "span {marker:?} holds more than numbers"
    );
    inner
        .split(',')
        .map(|item| {
            let mut ends = item
                .split(['-', '–'])
                .map(|n| n.trim().parse::<usize>().ok());
            let first = ends.next().flatten()?;
            let last = ends.next().map_or(Some(first), |n| n)?;
            (first <= last && last - first < MAX_MARKER_RANGE).then_some((first, last))
        })
        .collect()
}

fn check(answer: &str, resolution: &Resolution, chips: usize) {
    common::check_resolution(answer, resolution, chips, "markers");
    for cited in &resolution.cited {
        for span in &cited.spans {
            let marker = &answer[span.start..span.end];
            let items = numbers(marker);
            assert!(
                items
                    .iter()
                    .flatten()
                    .any(|&(a, b)| (a..=b).contains(&cited.citation.index)),
                "{marker:?} is cited for chip {} it does not name",
                cited.citation.index
            );
            let all_known = items
                .iter()
                .all(|item| item.is_some_and(|(a, b)| a >= 1 && b <= chips));
            let reported = resolution.unknown.iter().any(|u| u.at == span.start);
            assert_eq!(
                !all_known, reported,
                "{marker:?} with {chips} chips: unknown {reported}"
            );
        }
    }
    for unknown in &resolution.unknown {
        assert!(
            answer[unknown.at..].starts_with(&unknown.marker),
            "unknown marker {:?} is not at {}",
            unknown.marker,
            unknown.at
        );
        let items = numbers(&unknown.marker);
        assert!(
            items
                .iter()
                .any(|item| !item.is_some_and(|(a, b)| a >= 1 && b <= chips)),
            "{:?} reported unknown with {chips} chips",
            unknown.marker
        );
    }
}

fuzz_target!(|data: &[u8]| {
    let Some(([options, seed], answer)) = data.split_first_chunk::<2>() else {
        return;
    };
    let Ok(answer) = std::str::from_utf8(answer) else {
        return;
    };
    let renumber = options & 1 != 0;
    let report = &reports()[usize::from((options >> 2) & 3).saturating_sub(1).min(2)];
    let chips = report.report.citations.len();
    let mut resolver = Resolver::for_context(&report.report).renumber(renumber);
    if options & 2 != 0 {
        resolver = resolver.contents(&report.contents);
    }
    let whole = resolver.resolve(answer);
    check(answer, &whole, chips);

    // Streamed in the seed's chunks: the same resolution, and the text shown is the answer
    // (renumbered, with renumbering on).
    let mut stream = resolver.stream();
    let mut shown = String::new();
    for chunk in common::chunks(answer, *seed) {
        shown.push_str(&stream.push(chunk).text);
    }
    let (rest, streamed) = stream.finish();
    shown.push_str(&rest.text);
    assert_eq!(streamed, whole, "streamed and whole differ");
    match &whole.answer {
        Some(renumbered) => assert_eq!(&shown, renumbered, "the text shown"),
        None => assert_eq!(shown, answer, "the text shown"),
    }

    // Renumbering is a bijection: the renumbered answer cites chips 1..k, in that order, as
    // often as the answer cited the chips they stand for, and keeps every unknown marker.
    if let Some(renumbered) = &whole.answer {
        let again = Resolver::for_context(&report.report).resolve(renumbered);
        let counts = |r: &Resolution| r.cited.iter().map(|c| c.count).collect::<Vec<_>>();
        assert_eq!(
            counts(&again),
            counts(&whole),
            "counts after renumbering\n{renumbered:?}"
        );
        for (i, cited) in again.cited.iter().enumerate() {
            assert_eq!(
                cited.citation.index,
                i + 1,
                "renumbered chips\n{renumbered:?}"
            );
        }
        assert_eq!(
            again.unknown.len(),
            whole.unknown.len(),
            "unknown after renumbering"
        );
    }
});
