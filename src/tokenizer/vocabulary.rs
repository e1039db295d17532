//! The set of an encoding's tokens, for telling whether a piece of text is one token.
//!
//! Most pieces of prose are a single token, so this lookup runs once per piece of every text
//! the default engine counts. A set of byte slices hashes the piece, then follows a pointer to
//! a candidate's bytes and compares them with a call to `memcmp`: in a profile of an English
//! request, that comparison was a tenth of the time. Here a token of at most
//! [`SHORT_TOKEN_BYTES`] bytes (nearly all of them) is a 128-bit key holding its bytes and
//! length, compared in place; only longer ones are kept as slices.

use rustc_hash::{FxBuildHasher, FxHashSet};

/// The longest token kept as a 128-bit key: fifteen bytes of text and one of length.
const SHORT_TOKEN_BYTES: usize = 15;

/// The tokens of an encoding.
pub(super) struct Vocabulary {
    /// Tokens of at most [`SHORT_TOKEN_BYTES`], by [`short_key`].
    short: FxHashSet<u128>,
    /// Longer tokens.
    long: FxHashSet<&'static [u8]>,
}

impl Vocabulary {
    /// The set of `tokens`.
    pub(super) fn new(tokens: impl ExactSizeIterator<Item = &'static [u8]>) -> Self {
        // Sized once for all: growing a set of 200,000 rehashes it again and again, and this
        // is built while a command starts.
        let mut short = FxHashSet::with_capacity_and_hasher(tokens.len(), FxBuildHasher);
        let mut long = FxHashSet::default();
        for token in tokens {
            if token.len() <= SHORT_TOKEN_BYTES {
                short.insert(short_key(token));
            } else {
                long.insert(token);
            }
        }
        Vocabulary { short, long }
    }

    /// Whether `piece` is one of the tokens.
    pub(super) fn contains(&self, piece: &[u8]) -> bool {
        if piece.len() <= SHORT_TOKEN_BYTES {
            self.short.contains(&short_key(piece))
        } else {
            self.long.contains(piece)
        }
    }
}

/// `piece` (at most [`SHORT_TOKEN_BYTES`] long) as a number: its bytes little-endian from the
/// lowest byte, zeros after them, and its length in the highest byte. Different pieces give
/// different keys: the length says how many of the low bytes are the piece's.
///
/// The bytes are read as two words that overlap in the middle (the second shifted to drop the
/// overlap), not one at a time.
fn short_key(piece: &[u8]) -> u128 {
    let len = piece.len();
    debug_assert!(len <= SHORT_TOKEN_BYTES);
    let bytes = if len >= 8 {
        let low = u64::from_le_bytes(piece[..8].try_into().unwrap_or_default());
        let tail = u64::from_le_bytes(piece[len - 8..].try_into().unwrap_or_default());
        // The tail's last `len - 8` bytes are the piece's bytes from 8 on.
        let high = tail.checked_shr(8 * (16 - len as u32)).unwrap_or(0);
        u128::from(low) | u128::from(high) << 64
    } else if len >= 4 {
        let low = u32::from_le_bytes(piece[..4].try_into().unwrap_or_default());
        let tail = u32::from_le_bytes(piece[len - 4..].try_into().unwrap_or_default());
        let high = tail.checked_shr(8 * (8 - len as u32)).unwrap_or(0);
        u128::from(low) | u128::from(high) << 32
    } else {
        piece
            .iter()
            .rev()
            .fold(0, |key, &byte| key << 8 | u128::from(byte))
    };
    bytes | (len as u128) << 120
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key of `piece` written the slow way: its bytes in a zeroed array, length last.
    fn plain_key(piece: &[u8]) -> u128 {
        let mut bytes = [0u8; 16];
        bytes[..piece.len()].copy_from_slice(piece);
        bytes[15] = piece.len() as u8;
        u128::from_le_bytes(bytes)
    }

    #[test]
    fn keys_are_the_bytes_and_the_length() {
        let mut pieces: Vec<Vec<u8>> = Vec::new();
        for len in 0..=SHORT_TOKEN_BYTES {
            // Runs of one byte (whose overlapping reads agree), zeros (which padding also
            // is), and bytes that differ at every position.
            pieces.push(vec![b'a'; len]);
            pieces.push(vec![0; len]);
            pieces.push((0..len as u8).map(|i| 0xF0 ^ i.wrapping_mul(37)).collect());
        }
        for piece in &pieces {
            assert_eq!(short_key(piece), plain_key(piece), "{piece:?}");
        }
        let keys: FxHashSet<u128> = pieces.iter().map(|p| short_key(p)).collect();
        let distinct: FxHashSet<&Vec<u8>> = pieces.iter().collect();
        assert_eq!(keys.len(), distinct.len());
    }

    #[test]
    fn membership_is_that_of_the_byte_strings() {
        let bpe = &bpe_openai::o200k_base().bpe;
        let tokens: Vec<&'static [u8]> = (0..u32::try_from(bpe.num_tokens()).unwrap())
            .map(|token| bpe.token_bytes(token))
            .collect();
        assert!(tokens.iter().any(|t| t.len() > SHORT_TOKEN_BYTES));
        let vocabulary = Vocabulary::new(tokens.iter().copied());
        let set: FxHashSet<&[u8]> = tokens.iter().copied().collect();
        for token in &tokens {
            assert!(vocabulary.contains(token));
            // Near misses: one byte more, one byte less, the last byte changed.
            let mut longer = token.to_vec();
            longer.push(b'q');
            let shorter = &token[..token.len() - 1];
            let mut changed = token.to_vec();
            *changed.last_mut().unwrap() ^= 1;
            for near in [&longer[..], shorter, &changed[..]] {
                assert_eq!(vocabulary.contains(near), set.contains(near), "{near:?}");
            }
        }
    }
}
