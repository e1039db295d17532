//! The `bpe-openai` engine: GitHub's `bpe-openai` crate, the default for `o200k_base` and
//! `cl100k_base`.
//!
//! `bpe-openai` pre-tokenizes with the same patterns as tiktoken (with a linear-time regex
//! engine, look-ahead emulated) and encodes each piece with a faster byte-pair algorithm. Its
//! counts match tiktoken-rs on every fixture and on arbitrary Unicode (`tests/engines.rs`),
//! so the exact-split rule and every guarantee carry over unchanged.
//!
//! Two things are done here rather than through `bpe-openai`'s own `count` and `encode`: the
//! pieces are split with a search cache per thread (`pieces.rs`), and a piece that is itself a
//! token is looked up in the vocabulary instead of encoded, as tiktoken does.

use std::sync::LazyLock;

use super::vocabulary::Vocabulary;
use super::{Encoding, Engine, OpenAiTokenizer, TokenCounter, pieces};
use bpe_openai::byte_pair_encoding::BytePairEncoding;

/// No limit per call. A pre-tokenizer that cannot backtrack does not panic or stall on a
/// long run without a break: 2 MB of spaces, newlines, one letter, digits, CJK or `"a\n"`
/// pairs each take at most 0.4 s in one call, with no crash (measured for issue 10), about
/// what tiktoken-rs takes for the same run in 64 KiB pieces. The assembler still hands over
/// no more than could fit in the budget.
pub(super) const MAX_CALL_BYTES: usize = usize::MAX;

/// Whether `bpe-openai` ships `encoding`.
pub(super) fn ships(encoding: Encoding) -> bool {
    matches!(encoding, Encoding::O200kBase | Encoding::Cl100kBase)
}

/// What the engine keeps of an encoding: `bpe-openai`'s byte-pair tables, and the bytes of
/// every token.
///
/// tiktoken encodes a piece that is itself a token as that one token without running the
/// byte-pair merges (`CoreBPE::encode_ordinary`), and most pieces of prose are: a word with
/// its leading space. Looking the piece up is several times cheaper than `bpe`'s backtracking
/// encoder, which allocates for every piece.
struct Loaded {
    bpe: &'static BytePairEncoding,
    vocabulary: Vocabulary,
}

impl Loaded {
    fn new(tokenizer: &'static bpe_openai::Tokenizer) -> Loaded {
        let bpe = &tokenizer.bpe;
        let vocabulary = Vocabulary::new(
            (0..u32::try_from(bpe.num_tokens()).unwrap_or(u32::MAX))
                .map(|token| bpe.token_bytes(token)),
        );
        Loaded { bpe, vocabulary }
    }
}

static O200K_BASE: LazyLock<Loaded> = LazyLock::new(|| Loaded::new(bpe_openai::o200k_base()));
static CL100K_BASE: LazyLock<Loaded> = LazyLock::new(|| Loaded::new(bpe_openai::cl100k_base()));

/// The tables of `encoding`, loaded on first use (about 70 ms for o200k_base).
///
/// # Panics
///
/// If `bpe-openai` does not ship `encoding`; [`OpenAiTokenizer::new`] rules that out.
fn loaded(encoding: Encoding) -> &'static Loaded {
    match encoding {
        Encoding::O200kBase => &O200K_BASE,
        Encoding::Cl100kBase => &CL100K_BASE,
        other => unreachable!("bpe-openai has no {other}; OpenAiTokenizer::new checks"),
    }
}

/// Loads the tables of `encoding` now rather than on first use.
pub(super) fn warm_up(encoding: Encoding) {
    loaded(encoding);
}

/// Appends the byte length of each token of `text` to `lengths`.
pub(super) fn token_lengths(encoding: Encoding, text: &str, lengths: &mut Vec<u32>) {
    let Loaded { bpe, vocabulary } = loaded(encoding);
    pieces::for_each_piece(encoding, text, |piece| {
        let piece = piece.as_bytes();
        if vocabulary.contains(piece) {
            // A token is at most 128 bytes.
            lengths.push(u32::try_from(piece.len()).unwrap_or(u32::MAX));
            return;
        }
        lengths.extend(
            bpe.encode_via_backtracking(piece)
                .into_iter()
                .map(|token| u32::try_from(bpe.token_len(token)).unwrap_or(u32::MAX)),
        );
    });
}

/// The number of tokens of `text`.
pub(super) fn count(encoding: Encoding, text: &str) -> usize {
    let Loaded { bpe, vocabulary } = loaded(encoding);
    let mut count = 0;
    pieces::for_each_piece(encoding, text, |piece| {
        let piece = piece.as_bytes();
        count += if vocabulary.contains(piece) {
            1
        } else {
            bpe.count(piece)
        };
    });
    count
}

/// `o200k_base` or `cl100k_base`, counted with `bpe-openai`.
///
/// Kept for code written before `bpe-openai` became the default engine: an [`Encoding`] now
/// counts with it where it can, and [`Encoding::with_engine`] chooses the engine explicitly.
#[deprecated(
    since = "0.2.0",
    note = "`Encoding` counts with bpe-openai by default; use `Encoding::with_engine` to choose"
)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FastEncoding {
    /// `o200k_base`.
    O200kBase,
    /// `cl100k_base`.
    Cl100kBase,
}

#[allow(deprecated)]
impl FastEncoding {
    /// The encoding this one counts.
    #[must_use]
    pub fn encoding(self) -> Encoding {
        match self {
            FastEncoding::O200kBase => Encoding::O200kBase,
            FastEncoding::Cl100kBase => Encoding::Cl100kBase,
        }
    }

    fn tokenizer(self) -> OpenAiTokenizer {
        OpenAiTokenizer::with_supported_engine(self.encoding(), Engine::BpeOpenai)
    }
}

#[allow(deprecated)]
impl TryFrom<Encoding> for FastEncoding {
    type Error = crate::Error;

    /// # Errors
    ///
    /// [`Error::EngineLacksEncoding`](crate::Error::EngineLacksEncoding) for `p50k_base` and
    /// `r50k_base`, which `bpe-openai` does not ship.
    fn try_from(encoding: Encoding) -> Result<Self, Self::Error> {
        match encoding {
            Encoding::O200kBase => Ok(FastEncoding::O200kBase),
            Encoding::Cl100kBase => Ok(FastEncoding::Cl100kBase),
            other => Err(crate::Error::EngineLacksEncoding {
                engine: Engine::BpeOpenai.as_str(),
                encoding: other.as_str(),
            }),
        }
    }
}

#[allow(deprecated)]
impl TokenCounter for FastEncoding {
    fn name(&self) -> &str {
        self.encoding().as_str()
    }

    fn token_lengths(&self, text: &str, lengths: &mut Vec<u32>) {
        self.tokenizer().token_lengths(text, lengths);
    }

    fn count(&self, text: &str) -> usize {
        self.tokenizer().count(text)
    }

    fn splits_exactly(&self, text: &str, at: usize) -> bool {
        self.tokenizer().splits_exactly(text, at)
    }

    fn max_token_bytes(&self) -> usize {
        self.tokenizer().max_token_bytes()
    }

    fn max_call_bytes(&self) -> usize {
        self.tokenizer().max_call_bytes()
    }
}

#[cfg(test)]
#[allow(deprecated)]
mod tests {
    use super::*;

    #[test]
    fn the_deprecated_fast_encoding_still_counts_with_bpe_openai() {
        let fast = FastEncoding::try_from(Encoding::Cl100kBase).unwrap();
        assert_eq!(fast, FastEncoding::Cl100kBase);
        assert_eq!(fast.name(), "cl100k_base");
        assert_eq!(fast.count("hello world"), 2);
        assert!(FastEncoding::try_from(Encoding::R50kBase).is_err());
    }
}
