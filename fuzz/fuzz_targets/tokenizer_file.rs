//! Any bytes as a Tekken file (`TekkenTokenizer::from_slice`): an error naming the problem,
//! or a tokenizer that keeps the `TokenCounter` contract on a sample text: token lengths add
//! up to the text's bytes, each at least 1 and at most `max_token_bytes`, `count` is the
//! number of lengths and of `encode`'s tokens (or a token a byte, where the file's pattern
//! leaves text unmatched), and at every split it calls exact the counts of
//! the two sides add up to the count of the whole.
//!
//! Input layout (see `fuzz/README.md`; `fuzz/seed_targets.sh` writes seeds in it):
//!
//! | bytes | meaning |
//! | ----- | ------- |
//! | 0     | the sample text (modulo 4) |
//! | 1..   | the file's bytes |
//!
//! `tokenizer.json` (the `huggingface` feature) is not fuzzed here: its reader is the
//! `tokenizers` crate's, and the feature builds the onig C library (see `fuzz/README.md`).

#![no_main]

use libfuzzer_sys::fuzz_target;
use mentor_context::Error;
use mentor_context::tokenizer::{TekkenTokenizer, TokenCounter};

const SAMPLES: [&str; 4] = [
    "The Team plan costs 15 EUR a seat and month [1]; the 2025 list said 13 EUR [9].",
    "Plan B kostet 12 € im Monat.\r\n\r\n  - Préférence: «oui»\t\n123456 x_y",
    "価格は12ユーロです[1]。 Ünïcödé, 😀 emoji and\u{200b}zero width.",
    "   \n\n\n   leading and trailing spaces   \n",
];

fuzz_target!(|data: &[u8]| {
    let Some((&which, file)) = data.split_first() else {
        return;
    };
    let tekken = match TekkenTokenizer::from_slice(file) {
        Ok(tekken) => tekken,
        Err(Error::TokenizerFile { problem, .. }) => {
            assert!(!problem.is_empty(), "an error that says nothing");
            return;
        }
        Err(other) => panic!("not a tokenizer-file error: {other:?}"),
    };
    let text = SAMPLES[usize::from(which) % SAMPLES.len()];
    let mut lengths = Vec::new();
    tekken.token_lengths(text, &mut lengths);
    let sum: usize = lengths.iter().map(|&n| n as usize).sum();
    assert_eq!(
        sum,
        text.len(),
        "token lengths {lengths:?} do not add up to the text"
    );
    let most = tekken.max_token_bytes();
    assert!(
        lengths.iter().all(|&n| n >= 1 && n as usize <= most),
        "a token length outside 1..={most}: {lengths:?}"
    );
    let count = tekken.count(text);
    assert_eq!(count, lengths.len(), "count is not the number of lengths");
    // Text the pattern leaves unmatched is counted a token a byte, more than `encode` gives.
    let tokens = tekken.encode(text).len();
    assert!(
        count == tokens || (count == text.len() && tokens < count),
        "count {count} is neither the {tokens} tokens nor a token a byte"
    );
    for (at, _) in text.char_indices().skip(1) {
        if tekken.splits_exactly(text, at) {
            let parts = tekken.count(&text[..at]) + tekken.count(&text[at..]);
            assert_eq!(
                parts, count,
                "split at {at} called exact but counts {parts} != {count}"
            );
        }
    }
});
