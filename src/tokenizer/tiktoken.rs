//! The tiktoken-rs engine: the reference every other engine is tested against.
//!
//! tiktoken-rs gives token ranks, not where tokens end. A token's byte length is looked up
//! per rank in a table filled as ranks are first seen, so no request pays for decoding the
//! whole vocabulary (200k ranks for o200k_base, about 100 ms) before it starts.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU8, Ordering};

use tiktoken_rs::CoreBPE;

use super::Encoding;

/// tiktoken-rs 0.12.1 panics (a fancy-regex backtrack limit, unwrapped inside
/// `encode_ordinary`) on a run of about a million whitespace characters with o200k, and long
/// runs without a break are slow. Handing it at most
/// this many bytes at a time keeps every run far below the limit and every call short. Text
/// is split for it only at exact split points, so this bounds only a stretch without any.
pub(super) const MAX_CALL_BYTES: usize = super::DEFAULT_MAX_CALL_BYTES;

/// Ranks the length table has room for: more than any of the four vocabularies holds
/// (o200k_base, the largest, has 200,019 with its special tokens). A rank beyond it, which
/// tiktoken-rs never returns, would be decoded each time instead of remembered.
const TABLE_RANKS: usize = 1 << 18;

/// The tiktoken-rs encoder and, per token rank, its length in bytes once seen (0: not yet).
struct Tables {
    bpe: &'static CoreBPE,
    /// Relaxed atomics: every thread that fills a slot writes the same value, so a race costs
    /// at most a second decode of the same token.
    token_bytes: Box<[AtomicU8]>,
}

impl Tables {
    fn new(bpe: &'static CoreBPE) -> Tables {
        Tables {
            bpe,
            token_bytes: std::iter::repeat_with(|| AtomicU8::new(0))
                .take(TABLE_RANKS)
                .collect(),
        }
    }

    /// The byte length of the token with this rank.
    fn token_len(&self, rank: u32) -> u32 {
        let slot = self.token_bytes.get(rank as usize);
        if let Some(len) = slot.map(|s| s.load(Ordering::Relaxed)).filter(|&l| l > 0) {
            return u32::from(len);
        }
        // A rank tiktoken-rs returned always decodes; 1 keeps the lengths' contract (each at
        // least 1) should it ever not.
        let len = self
            .bpe
            .decode_bytes(&[rank])
            .map_or(1, |bytes| bytes.len().max(1));
        // Measured: no token is longer than 128 bytes, so a byte holds the length.
        if let (Some(slot), Ok(short)) = (slot, u8::try_from(len)) {
            slot.store(short, Ordering::Relaxed);
        }
        u32::try_from(len).unwrap_or(u32::MAX)
    }
}

fn tables(encoding: Encoding) -> &'static Tables {
    static O200K: OnceLock<Tables> = OnceLock::new();
    static CL100K: OnceLock<Tables> = OnceLock::new();
    static P50K: OnceLock<Tables> = OnceLock::new();
    static R50K: OnceLock<Tables> = OnceLock::new();
    match encoding {
        Encoding::O200kBase => {
            O200K.get_or_init(|| Tables::new(tiktoken_rs::o200k_base_singleton()))
        }
        Encoding::Cl100kBase => {
            CL100K.get_or_init(|| Tables::new(tiktoken_rs::cl100k_base_singleton()))
        }
        Encoding::P50kBase => P50K.get_or_init(|| Tables::new(tiktoken_rs::p50k_base_singleton())),
        Encoding::R50kBase => R50K.get_or_init(|| Tables::new(tiktoken_rs::r50k_base_singleton())),
    }
}

/// Loads the encoder of `encoding` now rather than on first use.
pub(super) fn warm_up(encoding: Encoding) {
    tables(encoding);
}

/// Appends the byte length of each token of `text` to `lengths`.
pub(super) fn token_lengths(encoding: Encoding, text: &str, lengths: &mut Vec<u32>) {
    let tables = tables(encoding);
    lengths.extend(
        tables
            .bpe
            .encode_ordinary(text)
            .into_iter()
            .map(|rank| tables.token_len(rank)),
    );
}

/// The number of tokens of `text`.
pub(super) fn count(encoding: Encoding, text: &str) -> usize {
    tables(encoding).bpe.encode_ordinary(text).len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_are_learned_per_rank_and_match_the_decoded_tokens() {
        let text = "Grüße, 世界! 👩🏽‍💻 <|endoftext|>\n\n  tabs\tand spaces   ";
        for &encoding in Encoding::ALL {
            let bpe = tables(encoding).bpe;
            let mut lengths = Vec::new();
            token_lengths(encoding, text, &mut lengths);
            let expected: Vec<u32> = bpe
                .encode_ordinary(text)
                .into_iter()
                .map(|rank| bpe.decode_bytes(&[rank]).unwrap().len() as u32)
                .collect();
            assert_eq!(lengths, expected, "{encoding}");
            // The second time, from the table.
            lengths.clear();
            token_lengths(encoding, text, &mut lengths);
            assert_eq!(lengths, expected, "{encoding}");
        }
    }

    #[test]
    fn the_table_has_room_for_every_rank() {
        for &encoding in Encoding::ALL {
            let bpe = tables(encoding).bpe;
            assert!(bpe.decode_bytes(&[TABLE_RANKS as u32 - 1]).is_err());
        }
    }
}
