//! How much text the meter hands the tokenizer at a time: chunks sized by the bytes per token
//! seen so far, ending at exact split points.

use super::Meter;

/// Bytes per token assumed when choosing how much to tokenize next, until the meter has seen
/// [`MIN_SEEN_TOKENS`] of the text. English runs about 4.5 bytes per token, other scripts
/// fewer, so a chunk sized by this usually overflows the room left: the block that does not
/// fit is then found in one call into the tokenizer at the price of tokenizing a little past
/// the cut.
pub(super) const CHUNK_BYTES_PER_TOKEN: usize = 5;

/// Tokens the meter must have seen before it sizes chunks by the bytes per token of what it
/// saw rather than by [`CHUNK_BYTES_PER_TOKEN`]. An assembly measures its blocks with one
/// meter, so the last block, the one that is cut, is sized by the blocks before it: with the
/// fixed guess, text denser than five bytes a token (multilingual cl100k_base) was tokenized
/// well past the cut.
pub(super) const MIN_SEEN_TOKENS: usize = 256;

/// How far over the bytes per token seen a chunk reaches, in tenths: enough that the text
/// seen so far being a little denser than what follows still overflows in one call.
pub(super) const SEEN_MARGIN_TENTHS: usize = 11;

/// How far under the room left, in tenths, the tokens of a last stretch must be estimated
/// (by the bytes per token seen) for the meter to only count it. A stretch that overflows
/// after all is tokenized again, so the margin is wide: the block an assembly cuts is seldom
/// within a fifth of fitting by its estimate, and a block that fits with less to spare is
/// measured as before.
pub(super) const LIKELY_FIT_TENTHS: usize = 8;

/// Bytes to tokenize next to cover `tokens` tokens by the fixed guess,
/// [`CHUNK_BYTES_PER_TOKEN`].
pub(super) fn fixed_chunk_bytes(tokens: usize) -> usize {
    tokens.saturating_mul(CHUNK_BYTES_PER_TOKEN)
}

impl Meter<'_> {
    /// Bytes to tokenize next to cover `tokens` tokens, and usually a little more: by the
    /// bytes per token of what this meter has tokenized so far, once that is enough to go by.
    pub(super) fn chunk_bytes(&self, tokens: usize) -> usize {
        if self.tokens_seen < MIN_SEEN_TOKENS {
            return fixed_chunk_bytes(tokens);
        }
        let per_token_tenths = (self.bytes_tokenized.saturating_mul(SEEN_MARGIN_TENTHS)
            / self.tokens_seen)
            .clamp(10, CHUNK_BYTES_PER_TOKEN * 10);
        tokens.saturating_mul(per_token_tenths) / 10
    }

    /// Whether a stretch of `bytes` surely or likely fits in `room` tokens: surely when it has
    /// no more bytes than `room` (every token spans a byte at least); likely when, at the
    /// bytes per token seen so far, its tokens come to at most [`LIKELY_FIT_TENTHS`] of
    /// `room`.
    pub(super) fn likely_fits(&self, bytes: usize, room: usize) -> bool {
        if bytes <= room {
            return true;
        }
        if self.tokens_seen < MIN_SEEN_TOKENS {
            return false;
        }
        // bytes × seen tokens / seen bytes ≤ room × 8/10, without dividing.
        bytes.saturating_mul(self.tokens_seen).saturating_mul(10)
            <= room
                .saturating_mul(LIKELY_FIT_TENTHS)
                .saturating_mul(self.bytes_tokenized)
    }

    /// Where a chunk of about `want` bytes from `at` ends: the end of `text` if that is
    /// within `want`, else an exact split near `at + want`; `None` if there is none near.
    pub(super) fn chunk_end(
        &self,
        text: &str,
        at: usize,
        want: usize,
        max_call: usize,
    ) -> Option<usize> {
        if text.len() - at <= want {
            Some(text.len())
        } else {
            self.split_near(text, at, at + want, max_call)
        }
    }
}
