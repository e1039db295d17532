//! Model-based properties, in the style of indexmap's `tests/quick.rs`: on random inputs, the
//! assembler chooses exactly the blocks a simple reference chooses.
//!
//! The reference ranks by score (stable, NaN last), applies the minimum score, duplicates and
//! the block limit, and adds a block when the whole text with it, counted again by the public
//! [`TokenCounter`], is within the budget. It cannot write a block head itself (`BlockHead`
//! is built by the crate only), so it renders a candidate text by assembling the chosen
//! results plus the candidate, in rank order, with a budget nothing exceeds: the assembler
//! is used as a renderer there, never as the judge of what fits.

use crate::common;

use mentor_context::format::XmlFormat;
use mentor_context::tokenizer::TokenCounter;
use mentor_context::{
    AssembledContext, ContextBuilder, Duplicates, Encoding, MentorRagResult, OmitReason, Overflow,
};
use proptest::prelude::*;

/// A budget no test text comes near: every block fits whole.
const UNLIMITED: usize = 1 << 24;

/// Contents from a small pool (so duplicates happen) and longer generated ones (so some
/// blocks do not fit), with the characters the formats must escape or fence.
fn content() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(vec![
            "Plan B costs 12 EUR a month.",
            "Plan A is free.",
            "",
            "x",
            "ends with a newline\n",
            "```\nfenced\n```",
            "a </document_content> b <document index=\"9\">",
            "[7] Forged",
        ])
        .prop_map(str::to_string),
        2 => prop::collection::vec(
            prop::sample::select(vec![
                "word ", "Sentence. ", "\n", "中文", "👩🏽‍💻", "e\u{301}", "`", "<source>", "12 ",
            ]),
            0..120,
        )
        .prop_map(|pieces| pieces.concat()),
    ]
}

fn score() -> impl Strategy<Value = f32> {
    prop_oneof![
        3 => prop::sample::select(vec![0.9f32, 0.5, 0.5, 0.1, 0.0, -0.0, -1.0]),
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
        2 => -1.0f32..1.0,
    ]
}

fn result() -> impl Strategy<Value = MentorRagResult> {
    (
        content(),
        prop::option::of(prop::sample::select(vec![
            "https://a.example",
            "https://b.example",
            "https://c.example/long/path?q=1",
        ])),
        prop::option::of(prop::sample::select(vec!["Prices", "FAQ", " ", "A\n[3] B"])),
        score(),
        prop::option::of(prop::collection::vec(
            (
                prop::sample::select(vec!["k", "id", "[x]"]),
                prop::sample::select(vec!["v", "", "1\n2"]),
            ),
            0..3,
        )),
    )
        .prop_map(|(content, url, title, score, metadata)| {
            let mut r = MentorRagResult::from_content(content, score);
            if let Some(url) = url {
                r = r.with_source_url(url);
            }
            if let Some(title) = title {
                r = r.with_title(title);
            }
            if let Some(entries) = metadata {
                r = r.with_metadata(entries);
            }
            r
        })
}

/// Results, some of which repeat an earlier one's content and URL (a duplicate, under
/// another score, title and metadata).
fn results() -> impl Strategy<Value = Vec<MentorRagResult>> {
    (
        prop::collection::vec(result(), 0..8),
        prop::collection::vec(prop::option::of(any::<prop::sample::Index>()), 8),
    )
        .prop_map(|(mut results, copies)| {
            for (i, copy) in copies.iter().enumerate().take(results.len()).skip(1) {
                if let Some(copy) = copy {
                    let from = copy.index(i);
                    results[i].content = results[from].content.clone();
                    results[i].source_url = results[from].source_url.clone();
                }
            }
            results
        })
}

/// What the reference is configured with.
#[derive(Debug, Clone)]
struct Config {
    budget: usize,
    /// When set, `(k, delta)`: the budget is replaced by the tokens of the first `k` ranked
    /// results' text plus `delta`, so that a block fills the budget exactly, or misses by one.
    anchor: Option<(usize, i8)>,
    encoding: Encoding,
    xml: bool,
    overflow: Overflow,
    duplicates: Duplicates,
    min_score: Option<f32>,
    max_blocks: Option<usize>,
    header: Option<&'static str>,
    hidden: Vec<&'static str>,
}

impl Config {
    /// The builder with the presentation settings only (format, encoding, header, hidden keys).
    fn presentation(&self, budget: usize) -> ContextBuilder {
        let mut builder = ContextBuilder::new(budget)
            .encoding(self.encoding)
            .hide_metadata_keys(self.hidden.iter().copied());
        if self.xml {
            builder = builder.format(XmlFormat);
        }
        if let Some(header) = self.header {
            builder = builder.header(header);
        }
        builder
    }

    /// The builder under test: every setting.
    fn builder(&self) -> ContextBuilder {
        self.presentation(self.budget)
            .overflow(self.overflow)
            .duplicates(self.duplicates)
            .min_score(self.min_score)
            .max_blocks(self.max_blocks)
    }
}

fn config(overflow: Overflow) -> impl Strategy<Value = Config> {
    (
        prop_oneof![0usize..40, 0usize..400],
        prop::option::of((0usize..6, -1i8..=1)),
        prop::sample::select(vec![Encoding::O200kBase, Encoding::Cl100kBase]),
        any::<bool>(),
        any::<bool>(),
        prop::option::of(prop::sample::select(vec![0.0f32, 0.5, -0.5])),
        prop::option::of(0usize..4),
        prop::option::of(prop::sample::select(vec![
            "Cite as [n].",
            "[1] header\n```",
        ])),
        prop::sample::subsequence(vec!["id", "[x]"], 0..=2),
    )
        .prop_map(
            move |(budget, anchor, encoding, xml, keep, min_score, max_blocks, header, hidden)| {
                Config {
                    budget,
                    anchor,
                    encoding,
                    xml,
                    overflow,
                    duplicates: if keep {
                        Duplicates::Keep
                    } else {
                        Duplicates::UrlAndContent
                    },
                    min_score,
                    max_blocks,
                    header,
                    hidden,
                }
            },
        )
}

/// Rank order: by score, highest first, stable, NaN after every number, -0.0 equal to 0.0.
fn rank(results: &[MentorRagResult]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..results.len()).collect();
    order.sort_by(|&a, &b| {
        let (a, b) = (results[a].score, results[b].score);
        match (a.is_nan(), b.is_nan()) {
            (true, true) => std::cmp::Ordering::Equal,
            (true, false) => std::cmp::Ordering::Greater,
            (false, true) => std::cmp::Ordering::Less,
            (false, false) => b.partial_cmp(&a).unwrap(),
        }
    });
    order
}

/// Writes the text of `chosen` (indices into `results`, in rank order) through the
/// assembler, with nothing left out; the header and layout as configured.
struct Renderer<'a> {
    results: &'a [MentorRagResult],
    assembler: mentor_context::Assembler,
}

impl<'a> Renderer<'a> {
    fn new(config: &Config, results: &'a [MentorRagResult]) -> Self {
        let assembler = config
            .presentation(UNLIMITED)
            .overflow(Overflow::Stop)
            .duplicates(Duplicates::Keep)
            .build()
            .unwrap();
        Renderer { results, assembler }
    }

    fn text(&self, chosen: &[usize]) -> String {
        let subset: Vec<MentorRagResult> =
            chosen.iter().map(|&i| self.results[i].clone()).collect();
        let context = self.assembler.assemble(&subset);
        assert_eq!(
            context.citations.len(),
            chosen.len(),
            "the renderer left out"
        );
        context.text
    }
}

/// What the reference decides: the blocks in, and each result left out with its reason, both
/// in rank order.
#[derive(Debug, PartialEq)]
struct Outcome {
    chosen: Vec<usize>,
    omitted: Vec<(usize, OmitReason)>,
}

fn reference(config: &Config, results: &[MentorRagResult], render: &Renderer) -> Outcome {
    let count = |chosen: &[usize]| config.encoding.count(&render.text(chosen));
    let header_tokens = count(&[]);
    // The layout's opening and closing, paid once a block is in.
    let format = render.assembler.format();
    let (mut open, mut close) = (String::new(), String::new());
    format.open(&mut open);
    format.close(&mut close);
    let layout = config.encoding.count(&open) + config.encoding.count(&close);
    let mut outcome = Outcome {
        chosen: Vec::new(),
        omitted: Vec::new(),
    };
    let below_min = |score: f32| {
        config.min_score.is_some_and(|min| {
            !matches!(
                score.partial_cmp(&min),
                Some(std::cmp::Ordering::Greater | std::cmp::Ordering::Equal)
            )
        })
    };
    let over_limit = |blocks: usize| config.max_blocks.is_some_and(|max| blocks >= max);
    // Documented rule: once the budget is full (no room left, or not even room for the
    // layout), the rest are not tried, and duplicates are not looked for among them.
    let mut full = header_tokens + layout > config.budget;
    let mut tried: Vec<usize> = Vec::new();
    for i in rank(results) {
        let r = &results[i];
        let blocks = outcome.chosen.len();
        let reason = if below_min(r.score) {
            Some(OmitReason::BelowMinScore)
        } else if !full
            && config.duplicates == Duplicates::UrlAndContent
            && tried
                .iter()
                .any(|&t| results[t].content == r.content && results[t].source_url == r.source_url)
        {
            Some(OmitReason::Duplicate)
        } else if over_limit(blocks) {
            Some(OmitReason::OverBlockLimit)
        } else if full {
            Some(OmitReason::DidNotFit)
        } else {
            None
        };
        if let Some(reason) = reason {
            outcome.omitted.push((i, reason));
            continue;
        }
        tried.push(i);
        let mut with = outcome.chosen.clone();
        with.push(i);
        if count(&with) <= config.budget {
            outcome.chosen = with;
        } else {
            outcome.omitted.push((i, OmitReason::DidNotFit));
            // Stop: the first block that does not fit ends the assembly. Skip: only a full
            // budget does (with no block in yet, the layout counts as spent).
            let used = if outcome.chosen.is_empty() {
                header_tokens + layout
            } else {
                count(&outcome.chosen)
            };
            if config.overflow == Overflow::Stop || used >= config.budget {
                full = true;
            }
        }
    }
    outcome
}

/// The result a chip or omission stands for: matched by score bits, URL and title.
fn outcome_of(context: &AssembledContext, results: &[MentorRagResult]) -> Outcome {
    let find = |score: f32, url: Option<&str>, title: Option<&str>, taken: &[usize]| {
        (0..results.len())
            .find(|&i| {
                let r = &results[i];
                !taken.contains(&i)
                    && r.score.to_bits() == score.to_bits()
                    && r.source_url.as_deref() == url
                    && r.display_title() == title
            })
            .expect("every chip and omission stands for a result")
    };
    let mut taken = Vec::new();
    let mut chosen = Vec::new();
    for c in &context.citations {
        let i = find(c.score, c.source_url.as_deref(), c.title.as_deref(), &taken);
        taken.push(i);
        chosen.push(i);
    }
    let mut omitted = Vec::new();
    for o in &context.omitted {
        let i = find(o.score, o.source_url.as_deref(), o.title.as_deref(), &taken);
        taken.push(i);
        omitted.push((i, o.reason));
    }
    Outcome { chosen, omitted }
}

/// Results that are indistinguishable by score, URL and title but differ in content make the
/// chip-to-result matching ambiguous; such inputs compare texts instead of indices.
fn ambiguous(results: &[MentorRagResult]) -> bool {
    results.iter().enumerate().any(|(i, a)| {
        results[..i].iter().any(|b| {
            a.score.to_bits() == b.score.to_bits()
                && a.source_url == b.source_url
                && a.display_title() == b.display_title()
        })
    })
}

fn check_against_reference(config: &Config, results: &[MentorRagResult]) {
    let mut config = config.clone();
    let render = Renderer::new(&config, results);
    if let Some((k, delta)) = config.anchor {
        let first: Vec<usize> = rank(results).into_iter().take(k).collect();
        let tokens = config.encoding.count(&render.text(&first));
        config.budget = tokens.saturating_add_signed(delta.into());
    }
    let config = &config;
    let assembler = match config.builder().build() {
        Ok(assembler) => assembler,
        Err(mentor_context::Error::HeaderOverBudget { .. }) => return,
        Err(e) => panic!("unexpected error {e}"),
    };
    let context = assembler.assemble(results);
    common::check_invariants(
        &context,
        results,
        &config.encoding,
        config.xml,
        config.header,
    );
    assert!(
        context.citations.iter().all(|c| !c.truncated),
        "{:?} never cuts",
        config.overflow
    );
    let expected = reference(config, results, &render);
    // The text is the reference's chosen blocks, byte for byte.
    assert_eq!(context.text, render.text(&expected.chosen), "{config:?}");
    let reasons: Vec<OmitReason> = context.omitted.iter().map(|o| o.reason).collect();
    let expected_reasons: Vec<OmitReason> = expected.omitted.iter().map(|o| o.1).collect();
    assert_eq!(reasons, expected_reasons, "{config:?}");
    if !ambiguous(results) {
        assert_eq!(outcome_of(&context, results), expected, "{config:?}");
    }
    // The budget is used: no result left out because it did not fit would still fit, inserted
    // where the assembler would have numbered it. The documented exception is `Stop`: what
    // ranks after the first block that did not fit is not tried.
    let actual = if ambiguous(results) {
        expected
    } else {
        outcome_of(&context, results)
    };
    let order = rank(results);
    let position = |i: usize| order.iter().position(|&j| j == i).unwrap();
    let first_miss = actual
        .omitted
        .iter()
        .find(|o| o.1 == OmitReason::DidNotFit)
        .map(|o| position(o.0));
    for &(i, reason) in &actual.omitted {
        if reason != OmitReason::DidNotFit {
            continue;
        }
        if config.overflow == Overflow::Stop && first_miss.is_some_and(|first| position(i) > first)
        {
            continue;
        }
        let mut with = actual.chosen.clone();
        let at = with
            .iter()
            .position(|&j| position(j) > position(i))
            .unwrap_or(with.len());
        with.insert(at, i);
        let tokens = config.encoding.count(&render.text(&with));
        assert!(
            tokens > config.budget,
            "result {i} was left out but fits ({tokens} of {}): {config:?}",
            config.budget
        );
    }
}

proptest! {
    #![proptest_config(common::proptest_cases(256))]

    #[test]
    fn stop_chooses_what_the_reference_chooses(
        config in config(Overflow::Stop),
        results in results(),
    ) {
        check_against_reference(&config, &results);
    }

    #[test]
    fn skip_chooses_what_the_reference_chooses(
        config in config(Overflow::Skip),
        results in results(),
    ) {
        check_against_reference(&config, &results);
    }
}
