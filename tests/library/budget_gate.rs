//! The deterministic performance gate: instead of timing (machines are shared and noisy), count
//! the bytes handed to the tokenizer. Tokenizing is nearly all of the cost, so bytes
//! tokenized over bytes in the final text is the cost relative to the floor: one pass over
//! the text that ends up in the prompt.

use crate::common;

use common::fixture;
use mentor_context::format::XmlFormat;
use mentor_context::tokenizer::TokenCache;
use mentor_context::{ContextBuilder, Encoding, MentorRagResult, Overflow};

/// Every combination the gate covers: the three 50 x 2 KiB fixtures, both common encodings, both
/// formats, at the 4,000-token budget of the target.
fn cases() -> Vec<(String, Vec<MentorRagResult>, ContextBuilder)> {
    let mut cases = Vec::new();
    for name in [
        "bench-english.json",
        "bench-multilingual.json",
        "bench-markdown.json",
    ] {
        let results = fixture(name);
        for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
            for xml in [false, true] {
                let mut builder = ContextBuilder::new(4000).encoding(encoding);
                if xml {
                    builder = builder.format(XmlFormat);
                }
                let label = format!("{name} {encoding} xml={xml}");
                cases.push((label, results.clone(), builder));
            }
        }
    }
    cases
}

#[test]
fn default_policy_tokenizes_at_most_ten_percent_beyond_the_text() {
    for (label, results, builder) in cases() {
        let (context, stats) =
            mentor_context::machinery::assemble_with_stats(&builder.build().unwrap(), &results);
        let bytes = stats.bytes_tokenized;
        let ratio = bytes as f64 / context.text.len() as f64;
        assert!(
            context.citations.last().unwrap().truncated,
            "{label}: the gate needs a cut"
        );
        assert!(ratio <= 1.1, "{label}: tokenized {ratio:.3} x the text");
    }
}

#[test]
fn stop_policy_pays_at_most_part_of_the_rejected_block() {
    for (label, results, builder) in cases() {
        let assembler = builder.overflow(Overflow::Stop).build().unwrap();
        let (context, stats) = mentor_context::machinery::assemble_with_stats(&assembler, &results);
        let bytes = stats.bytes_tokenized;
        let k = context.citations.len() as f64;
        let ratio = bytes as f64 / context.text.len() as f64;
        let limit = (k + 1.0) / k + 0.05;
        assert!(
            ratio <= limit,
            "{label}: tokenized {ratio:.3} x the text, limit {limit:.3}"
        );
    }
}

#[test]
fn warm_path_tokenizes_only_around_the_cut() {
    for (label, results, builder) in cases() {
        let cached = builder.cache(TokenCache::new(64 << 20)).build().unwrap();
        let (cold, cold_stats) = mentor_context::machinery::assemble_with_stats(&cached, &results);
        let (warm, warm_stats) = mentor_context::machinery::assemble_with_stats(&cached, &results);
        assert_eq!(warm, cold, "{label}: the cache changed the result");
        let bytes = warm_stats.bytes_tokenized;
        // A cache that remembered nothing would tokenize as much again.
        assert!(
            bytes * 10 < cold_stats.bytes_tokenized,
            "{label}: warm {bytes} bytes against cold {}",
            cold_stats.bytes_tokenized
        );
        // The cut block's truncated head and frame, and one stretch between checkpoints
        // (32 tokens) on either side of the cut: about a kilobyte, against ~17 KB of text.
        assert!(bytes <= 1024, "{label}: warm path tokenized {bytes} bytes");
    }
}

/// The counter itself is honest: a cold assembly hands every byte of its blocks to the
/// tokenizer at least once (the header and the layout were counted when it was built), so the
/// ratios above cannot pass by under-counting.
#[test]
fn a_cold_assembly_tokenizes_at_least_its_blocks() {
    for (label, results, builder) in cases() {
        for overflow in [Overflow::Truncate, Overflow::Stop, Overflow::Skip] {
            let assembler = builder.clone().overflow(overflow).build().unwrap();
            let (context, stats) =
                mentor_context::machinery::assemble_with_stats(&assembler, &results);
            let layout = if label.contains("xml=true") {
                "<documents>\n</documents>\n".len()
            } else {
                0
            };
            let blocks = context.text.len() - layout;
            assert!(
                stats.bytes_tokenized >= blocks,
                "{label} {overflow:?}: {} bytes tokenized for {blocks} bytes of blocks",
                stats.bytes_tokenized
            );
        }
    }
}
