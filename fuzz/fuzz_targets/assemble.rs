//! JSON bytes, then `parse_results`, then `assemble` in every format and overflow policy.
//!
//! Input layout (see `fuzz/README.md`; `fuzz/seed.sh` writes seeds in it):
//!
//! | bytes  | meaning |
//! | ------ | ------- |
//! | 0..2   | budget: `u16` little-endian, modulo 3001 (so 0..=3000) |
//! | 2      | options: bits 0-1 encoding (o200k, cl100k, p50k, r50k); bit 2 `Duplicates::Keep`; bit 3 `max_blocks(b3 % 8)`; bit 4 `min_truncated_tokens(b3 * 4)`; bit 5 a header; bit 6 hide the first metadata key; bit 7 `min_score(b3 / 255)` |
//! | 3      | the option argument `b3` |
//! | 4..    | UTF-8 JSON array of results (inputs that are not UTF-8 or do not parse are skipped) |
//!
//! For each of the 2 formats x 3 overflow policies it checks: no panic; only the configuration
//! errors the options call for; `token_count <= budget`; a recount of `text` with the same
//! encoding equals `token_count`; every result is either cited or omitted; citations are
//! numbered 1..=n in order; and a few documented consequences of the options.

#![no_main]

use libfuzzer_sys::fuzz_target;
use mentor_context::format::{BuiltinFormat, Format};
use mentor_context::tokenizer::TokenCounter;
use mentor_context::wire::parse_results;
use mentor_context::{
    AssembledContext, ContextBuilder, Duplicates, Encoding, Error, MentorRagResult, OmitReason,
    Overflow,
};

const HEADER: &str = "Answer only from these documents and cite them as [n].";
const MAX_BUDGET: usize = 3000;

struct Options {
    budget: usize,
    encoding: Encoding,
    keep_duplicates: bool,
    max_blocks: Option<usize>,
    min_truncated_tokens: Option<usize>,
    header: bool,
    hide_key: Option<String>,
    min_score: Option<f32>,
}

impl Options {
    fn decode(control: [u8; 4], results: &[MentorRagResult]) -> Options {
        let [b0, b1, flags, arg] = control;
        let budget = usize::from(u16::from_le_bytes([b0, b1])) % (MAX_BUDGET + 1);
        let encoding = Encoding::ALL[usize::from(flags & 0b11)];
        let hide_key = (flags & 0x40 != 0)
            .then(|| {
                results
                    .iter()
                    .find_map(|r| r.metadata.as_ref()?.keys().next().cloned())
            })
            .flatten();
        Options {
            budget,
            encoding,
            keep_duplicates: flags & 0x04 != 0,
            max_blocks: (flags & 0x08 != 0).then_some(usize::from(arg % 8)),
            min_truncated_tokens: (flags & 0x10 != 0).then_some(usize::from(arg) * 4),
            header: flags & 0x20 != 0,
            hide_key,
            min_score: (flags & 0x80 != 0).then_some(f32::from(arg) / 255.0),
        }
    }

    fn builder(&self, overflow: Overflow) -> ContextBuilder {
        ContextBuilder::new(self.budget)
            .encoding(self.encoding)
            .overflow(overflow)
            .duplicates(if self.keep_duplicates {
                Duplicates::Keep
            } else {
                Duplicates::UrlAndContent
            })
            .max_blocks(self.max_blocks)
            .min_truncated_tokens(self.min_truncated_tokens)
            .header(if self.header { HEADER } else { "" })
            .hide_metadata_keys(self.hide_key.clone())
            .min_score(self.min_score)
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((control, json)) = data.split_first_chunk::<4>() else {
        return;
    };
    let Ok(json) = std::str::from_utf8(json) else {
        return;
    };
    let Ok(results) = parse_results(json) else {
        return;
    };
    let options = Options::decode(*control, &results);
    for overflow in [Overflow::Truncate, Overflow::Stop, Overflow::Skip] {
        let builder = options.builder(overflow);
        for &format in BuiltinFormat::ALL {
            let outcome = builder.clone().format(format).build();
            let outcome = outcome.map(|assembler| assembler.assemble(&results));
            check(&options, overflow, format.name(), &results, outcome);
        }
    }
});

fn check(
    options: &Options,
    overflow: Overflow,
    format: &str,
    results: &[MentorRagResult],
    outcome: Result<AssembledContext, Error>,
) {
    let budget = options.budget;
    let min_truncated_over = options.min_truncated_tokens.is_some_and(|min| min > budget);
    let context = match outcome {
        Ok(context) => context,
        Err(Error::MinTruncatedOverBudget { .. }) if min_truncated_over => return,
        Err(Error::HeaderOverBudget { budget: b }) if options.header && !min_truncated_over => {
            let header_tokens = options.encoding.count(&format!("{HEADER}\n"));
            assert!(
                header_tokens > budget && b == budget,
                "header of {header_tokens} tokens rejected for budget {budget}"
            );
            return;
        }
        Err(err) => panic!("unexpected error ({format}, {overflow:?}, budget {budget}): {err}"),
    };
    assert!(
        !min_truncated_over,
        "min_truncated_tokens over the budget was accepted"
    );
    let what = format!(
        "{format}, {overflow:?}, budget {budget}, {:?}",
        options.encoding
    );

    assert_eq!(context.budget, budget, "{what}");
    assert!(
        context.token_count <= budget,
        "{what}: token_count {} over budget",
        context.token_count
    );
    let recount = options.encoding.count(&context.text);
    assert_eq!(
        recount, context.token_count,
        "{what}: recount {recount} != token_count {}\n{:?}",
        context.token_count, context.text
    );
    assert_eq!(
        context.citations.len() + context.omitted.len(),
        results.len(),
        "{what}: citations + omitted != results"
    );
    for (i, citation) in context.citations.iter().enumerate() {
        assert_eq!(citation.index, i + 1, "{what}: citation numbering");
    }
    if context.citations.is_empty() {
        let expected = if options.header {
            format!("{HEADER}\n")
        } else {
            String::new()
        };
        assert_eq!(context.text, expected, "{what}: text without any block");
    }

    // What the options document.
    if let Some(max) = options.max_blocks {
        assert!(
            context.citations.len() <= max,
            "{what}: over max_blocks {max}"
        );
    }
    let n = context.citations.len();
    for (i, citation) in context.citations.iter().enumerate() {
        if citation.truncated {
            assert_eq!(
                overflow,
                Overflow::Truncate,
                "{what}: cut a block without Truncate"
            );
            assert_eq!(i + 1, n, "{what}: a cut block is not the last");
        }
    }
    for omission in &context.omitted {
        match omission.reason {
            OmitReason::Duplicate => {
                assert!(
                    !options.keep_duplicates,
                    "{what}: duplicate dropped under Keep"
                )
            }
            OmitReason::OverBlockLimit => {
                assert!(
                    options.max_blocks.is_some(),
                    "{what}: block limit without max_blocks"
                )
            }
            OmitReason::BelowMinScore => {
                assert!(
                    options.min_score.is_some(),
                    "{what}: min score without min_score"
                )
            }
            _ => {}
        }
    }
    if let Some(min) = options.min_score {
        for citation in &context.citations {
            assert!(
                citation.score >= min,
                "{what}: cited a score below min_score"
            );
        }
    }
}
