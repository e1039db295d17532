//! Answers resolved to chips: a table of answer cases (each marker form, code, identifiers,
//! links, unknown numbers, repeats, adjacent markers, full-width brackets, empty), and the
//! property that streaming in any chunks gives what resolving the whole answer gives.

use mentor_context::citations::{
    CitationEvent, MAX_MARKER_BYTES, MarkerSpan, Resolution, Resolver,
};
use mentor_context::{AssembledContext, ContextBuilder, MentorRagResult};
use proptest::prelude::*;

/// A context of five chips, numbered 1..5.
fn context() -> AssembledContext<'static> {
    let results: Vec<MentorRagResult> = (1..=5)
        .map(|n| {
            MentorRagResult::from_content(format!("Fact number {n}."), 1.0 - n as f32 / 10.0)
                .with_title(format!("Doc {n}"))
        })
        .collect();
    let context = ContextBuilder::new(1000)
        .build()
        .unwrap()
        .assemble(&results);
    assert_eq!(context.citations.len(), 5);
    context.into_owned()
}

/// One row: an answer, the chips it cites in order of first citation with their counts,
/// its unknown markers with their byte offsets, and the answer renumbered.
struct Case {
    answer: &'static str,
    cited: &'static [(usize, usize)],
    unknown: &'static [(&'static str, usize)],
    renumbered: &'static str,
}

const CASES: &[Case] = &[
    Case {
        answer: "",
        cited: &[],
        unknown: &[],
        renumbered: "",
    },
    Case {
        answer: "No sources here.",
        cited: &[],
        unknown: &[],
        renumbered: "No sources here.",
    },
    // Each marker form.
    Case {
        answer: "Plan B costs 12 EUR [3].",
        cited: &[(3, 1)],
        unknown: &[],
        renumbered: "Plan B costs 12 EUR [1].",
    },
    Case {
        answer: "Both [4, 2] and [2,4].",
        cited: &[(4, 2), (2, 2)],
        unknown: &[],
        renumbered: "Both [1, 2] and [2,1].",
    },
    Case {
        answer: "See [2-4] and [5 – 3].",
        cited: &[(2, 1), (3, 1), (4, 1)],
        unknown: &[("[5 – 3]", 14)],
        renumbered: "See [1-3] and [5 – 3].",
    },
    Case {
        answer: "Range after a citation [3] then [2-4].",
        cited: &[(3, 2), (2, 1), (4, 1)],
        unknown: &[],
        renumbered: "Range after a citation [1] then [2, 1, 3].",
    },
    Case {
        answer: "Mixed [5, 1-2].",
        cited: &[(5, 1), (1, 1), (2, 1)],
        unknown: &[],
        renumbered: "Mixed [1, 2-3].",
    },
    // Adjacent markers and repeats.
    Case {
        answer: "Twice [2][1] then [2].",
        cited: &[(2, 2), (1, 1)],
        unknown: &[],
        renumbered: "Twice [1][2] then [1].",
    },
    Case {
        answer: "Once per marker [1, 1, 1-2].",
        cited: &[(1, 1), (2, 1)],
        unknown: &[],
        renumbered: "Once per marker [1, 1, 1-2].",
    },
    // Unknown numbers: kept in the renumbered text, reported with their byte offset.
    Case {
        answer: "Made up [9], zero [0], and [2, 7].",
        cited: &[(2, 1)],
        unknown: &[("[9]", 8), ("[0]", 18), ("[2, 7]", 27)],
        renumbered: "Made up [9], zero [0], and [1, 7].",
    },
    Case {
        answer: "Too wide [1-5000] and too long [1234567890].",
        cited: &[],
        unknown: &[("[1-5000]", 9)],
        renumbered: "Too wide [1-5000] and too long [1234567890].",
    },
    // Code: inline and fenced, backticks and tildes.
    Case {
        answer: "Use `list[1]` or ``a ` [2]`` but [3].",
        cited: &[(3, 1)],
        unknown: &[],
        renumbered: "Use `list[1]` or ``a ` [2]`` but [1].",
    },
    Case {
        answer: "Code:\n```python\nx = [1]\n[2]\n```\nafter [4]\n~~~\n[5]\n~~~\n",
        cited: &[(4, 1)],
        unknown: &[],
        renumbered: "Code:\n```python\nx = [1]\n[2]\n```\nafter [1]\n~~~\n[5]\n~~~\n",
    },
    Case {
        answer: "````\n```\n[1]\n````\n[2]",
        cited: &[(2, 1)],
        unknown: &[],
        renumbered: "````\n```\n[1]\n````\n[1]",
    },
    Case {
        answer: "An open ` hides [1]\n\nuntil a blank line [2].",
        cited: &[(2, 1)],
        unknown: &[],
        renumbered: "An open ` hides [1]\n\nuntil a blank line [1].",
    },
    // Identifiers, escapes, links.
    Case {
        answer: "array[2], x[1], v_2[3], m[1][2], \\[4] but (see [5]).",
        cited: &[(5, 1)],
        unknown: &[],
        renumbered: "array[2], x[1], v_2[3], m[1][2], \\[4] but (see [1]).",
    },
    Case {
        answer: "A [link](https://x.example), [1](https://y.example), [text][2], [3].",
        cited: &[(3, 1)],
        unknown: &[],
        renumbered: "A [link](https://x.example), [1](https://y.example), [text][2], [1].",
    },
    Case {
        answer: "Not markers: [], [ ], [1,], [a], [1--2], [[4]].",
        cited: &[(4, 1)],
        unknown: &[],
        renumbered: "Not markers: [], [ ], [1,], [a], [1--2], [[1]].",
    },
    // Other scripts: a marker right after a letter counts.
    Case {
        answer: "価格は12ユーロです[2]。",
        cited: &[(2, 1)],
        unknown: &[],
        renumbered: "価格は12ユーロです[1]。",
    },
    // Full-width brackets count (matching pairs, ASCII digits); other look-alikes do not.
    Case {
        answer: "价格［3］，另见［1, 2］。【4】〔5〕［１］[2］",
        cited: &[(3, 1), (1, 1), (2, 1)],
        unknown: &[],
        renumbered: "价格［1］，另见［2, 3］。【4】〔5〕［１］[2］",
    },
    // A marker at the very end, and one unfinished.
    Case {
        answer: "Ends with [1]",
        cited: &[(1, 1)],
        unknown: &[],
        renumbered: "Ends with [1]",
    },
    Case {
        answer: "Unfinished [1, 2",
        cited: &[],
        unknown: &[],
        renumbered: "Unfinished [1, 2",
    },
];

/// (index, count) per cited chip, and (marker, at) per unknown marker.
type Summary = (Vec<(usize, usize)>, Vec<(String, usize)>);

fn summary(resolution: &Resolution) -> Summary {
    (
        resolution
            .cited
            .iter()
            .map(|c| (c.citation.index, c.count))
            .collect(),
        resolution
            .unknown
            .iter()
            .map(|u| (u.marker.clone(), u.at))
            .collect(),
    )
}

#[test]
fn answer_cases() {
    let context = context();
    let resolver = Resolver::for_context(&context);
    for case in CASES {
        let plain = resolver.resolve(case.answer);
        let (cited, unknown) = summary(&plain);
        assert_eq!(cited, case.cited, "cited in {:?}", case.answer);
        let expected_unknown: Vec<(String, usize)> = case
            .unknown
            .iter()
            .map(|&(m, at)| (m.to_string(), at))
            .collect();
        assert_eq!(unknown, expected_unknown, "unknown in {:?}", case.answer);
        assert_eq!(plain.answer, None);
        for (n, chip) in plain.cited.iter().enumerate() {
            assert_eq!(chip.new_index, n + 1);
            assert_eq!(chip.citation, context.citations[chip.citation.index - 1]);
            for span in &chip.spans {
                let marker = &case.answer[span.start..span.end];
                assert!(
                    marker.starts_with(['[', '［']) && marker.ends_with([']', '］']),
                    "span {span:?} is {marker:?} in {:?}",
                    case.answer
                );
            }
        }
        for unknown in &plain.unknown {
            assert!(case.answer[unknown.at..].starts_with(&unknown.marker));
        }
        let renumbered = resolver.clone().renumber(true).resolve(case.answer);
        assert_eq!(
            renumbered.answer.as_deref(),
            Some(case.renumbered),
            "renumbered {:?}",
            case.answer
        );
        assert_eq!(summary(&renumbered), summary(&plain));
    }
}

#[test]
fn spans_point_at_each_citing_marker() {
    let context = context();
    let answer = "A [2]. B [1, 2]. C `[2]` [2]";
    let resolution = Resolver::for_context(&context).resolve(answer);
    let two = &resolution.cited[0];
    assert_eq!(two.citation.index, 2);
    let spans: Vec<&str> = two.spans.iter().map(|s| &answer[s.start..s.end]).collect();
    assert_eq!(spans, ["[2]", "[1, 2]", "[2]"]);
    assert_eq!(
        two.spans[2],
        MarkerSpan {
            start: 25,
            end: 28,
            start_utf16: 25,
            end_utf16: 28
        }
    );
    // UTF-16 positions count what precedes in .NET's and JavaScript's units.
    let answer = "\u{1f600}é [2]";
    let span = Resolver::for_context(&context).resolve(answer).cited[0].spans[0];
    assert_eq!(
        (span.start, span.end, span.start_utf16, span.end_utf16),
        (7, 10, 4, 7)
    );
}

#[test]
fn chips_alone_resolve_and_numbers_no_chip_has_are_unknown() {
    let context = context();
    // Only chips 2 and 4, as a UI that kept some of them would pass.
    let chips = vec![context.citations[1].clone(), context.citations[3].clone()];
    let resolution = Resolver::new(&chips).resolve("[1] [2] [3] [4]");
    assert_eq!(summary(&resolution).0, [(2, 1), (4, 1)]);
    let unknown: Vec<&str> = resolution
        .unknown
        .iter()
        .map(|u| u.marker.as_str())
        .collect();
    assert_eq!(unknown, ["[1]", "[3]"]);
}

#[test]
fn split_markers_come_out_whole() {
    let context = context();
    let mut stream = Resolver::for_context(&context).renumber(true).stream();
    let first = stream.push("Price [1");
    assert_eq!(first.text, "Price ");
    assert_eq!(stream.held_back(), 2);
    // `[1` then `2]` is the citation [12]: unknown with five chips, shown whole.
    let second = stream.push("2] and [3");
    assert_eq!(second.text, "[12] and ");
    assert_eq!(
        second.events,
        [CitationEvent::Unknown(
            Resolver::for_context(&context)
                .resolve("Price [12]")
                .unknown[0]
                .clone()
        )]
    );
    let third = stream.push("]");
    // Complete, but a `(` could still make it link text.
    assert_eq!(third.text, "");
    let fourth = stream.push(".");
    assert_eq!(fourth.text, "[1].");
    assert!(matches!(
        fourth.events[..],
        [CitationEvent::Cited {
            index: 3,
            new_index: 1,
            first: true,
            ..
        }]
    ));
    let (rest, resolution) = stream.finish();
    assert_eq!(rest.text, "");
    assert_eq!(resolution.answer.as_deref(), Some("Price [12] and [1]."));
}

/// Pieces answers are made of: every construct the scanner tells apart.
const PIECES: &[&str] = &[
    "[1]",
    "[2]",
    "[3]",
    "[5]",
    "[9]",
    "[0]",
    "[1, 2]",
    "[2,3]",
    "[1-3]",
    "[4 – 2]",
    "[12]",
    "[1][2]",
    "［2］",
    "［1, 3］",
    "[1](u)",
    "[x]",
    "[",
    "]",
    "[1",
    "2]",
    ", ",
    "-",
    "(",
    ")",
    "`",
    "``",
    "```",
    "~~~",
    "\n",
    "\n\n",
    " ",
    "word",
    "x",
    "_",
    "\\",
    "é",
    "価",
    "😀",
    "\u{200b}",
    "【1】",
    "\r\n",
];

fn answer() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..40).prop_map(|p| p.concat())
}

/// Cut points (char boundaries) of `text`, from random fractions.
fn chunks(text: &str, cuts: &[f64]) -> Vec<String> {
    let mut points: Vec<usize> = cuts
        .iter()
        .map(|f| text.floor_char_boundary((f * text.len() as f64) as usize))
        .collect();
    points.push(0);
    points.push(text.len());
    points.sort_unstable();
    points.dedup();
    points
        .windows(2)
        .map(|w| text[w[0]..w[1]].to_string())
        .collect()
}

proptest! {
    #[test]
    fn streaming_equals_resolving_the_whole_answer(
        answer in answer(),
        cuts in prop::collection::vec(0.0..1.0f64, 0..12),
        renumber in any::<bool>(),
    ) {
        let context = context();
        let resolver = Resolver::for_context(&context).renumber(renumber);
        let whole = resolver.resolve(&answer);
        let mut one_stream = resolver.stream();
        let whole_events = {
            let mut streamed = one_stream.push(&answer);
            let (rest, _) = one_stream.finish();
            streamed.events.extend(rest.events);
            streamed.events
        };
        let mut stream = resolver.stream();
        let (mut shown, mut events, mut read) = (String::new(), Vec::new(), 0);
        // Marker spans in the original answer: with renumbering off the shown text is the
        // answer, so no prefix shown may end inside one.
        let spans: Vec<MarkerSpan> = whole.cited.iter().flat_map(|c| c.spans.clone())
            .chain(whole.unknown.iter().map(|u| (u.at, u.at + u.marker.len())).map(|(start, end)| {
                let utf16 = |at: usize| answer[..at].encode_utf16().count();
                MarkerSpan { start, end, start_utf16: utf16(start), end_utf16: utf16(end) }
            }))
            .collect();
        for chunk in chunks(&answer, &cuts) {
            let streamed = stream.push(&chunk);
            read += chunk.len();
            shown.push_str(&streamed.text);
            events.extend(streamed.events);
            prop_assert!(stream.held_back() <= MAX_MARKER_BYTES);
            if !renumber {
                prop_assert_eq!(shown.len() + stream.held_back(), read);
                prop_assert!(answer.starts_with(&shown));
                prop_assert!(
                    !spans.iter().any(|s| s.start < shown.len() && shown.len() < s.end),
                    "half a marker shown: {:?}", shown
                );
            }
        }
        let (rest, resolution) = stream.finish();
        shown.push_str(&rest.text);
        events.extend(rest.events);
        prop_assert_eq!(&resolution, &whole);
        prop_assert_eq!(&events, &whole_events);
        let expected = whole.answer.clone().unwrap_or_else(|| answer.clone());
        prop_assert_eq!(shown, expected);
    }
}
