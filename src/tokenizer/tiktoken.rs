//! The tiktoken-rs engine: the reference every other engine is tested against.
//!
//! tiktoken-rs gives token ranks, not where tokens end. The byte length of every rank is
//! decoded once, when the encoding is loaded, into a table that is never written again: the
//! library keeps no global mutable state (issue 48), and a count never decodes a token.

use std::sync::OnceLock;

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
/// tiktoken-rs never returns, would be decoded each time instead.
const TABLE_RANKS: usize = 1 << 18;

/// The tiktoken-rs encoder and the length in bytes of the token of each rank (0: no token
/// has that rank), both read-only once built.
struct Tables {
    bpe: &'static CoreBPE,
    token_bytes: Box<[u8]>,
}

impl Tables {
    fn new(bpe: &'static CoreBPE) -> Tables {
        let token_bytes = (0..TABLE_RANKS)
            .map(|rank| {
                let rank = u32::try_from(rank).unwrap_or(u32::MAX);
                // Measured: no token is longer than 128 bytes, so a byte holds the length.
                bpe.decode_bytes(&[rank])
                    .ok()
                    .and_then(|bytes| u8::try_from(bytes.len()).ok())
                    .unwrap_or(0)
            })
            .collect();
        Tables { bpe, token_bytes }
    }

    /// The byte length of the token with this rank.
    fn token_len(&self, rank: u32) -> u32 {
        match self.token_bytes.get(rank as usize) {
            Some(&len) if len > 0 => u32::from(len),
            // A rank tiktoken-rs returned always decodes; 1 keeps the lengths' contract (each
            // at least 1) should it ever not.
            _ => self.bpe.decode_bytes(&[rank]).map_or(1, |bytes| {
                u32::try_from(bytes.len().max(1)).unwrap_or(u32::MAX)
            }),
        }
    }
}

/// The tables of `encoding`, built on first use.
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
    fn lengths_are_the_decoded_tokens() {
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
        }
    }

    /// The table is whole once built: a count never decodes a token, and never writes.
    #[test]
    fn the_table_holds_the_length_of_every_rank() {
        for &encoding in Encoding::ALL {
            let tables = tables(encoding);
            for (rank, &len) in tables.token_bytes.iter().enumerate() {
                let decoded = tables.bpe.decode_bytes(&[rank as u32]);
                assert_eq!(
                    usize::from(len),
                    decoded.map_or(0, |b| b.len()),
                    "{encoding} {rank}"
                );
            }
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
