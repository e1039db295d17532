//! The `bpe-openai` engine: GitHub's `bpe-openai` crate, the default for `o200k_base` and
//! `cl100k_base`.
//!
//! `bpe-openai` pre-tokenizes with the same patterns as tiktoken (with a linear-time regex
//! engine, look-ahead emulated) and encodes each piece with a faster byte-pair algorithm. Its
//! counts match tiktoken-rs on every fixture and on arbitrary Unicode (`tests/library/engines.rs`),
//! so the exact-split rule and every guarantee carry over unchanged.
//!
//! Two things are done here rather than through `bpe-openai`'s own `count` and `encode`: the
//! pieces are split with one search cache per count (`pieces.rs`), and a piece that is itself a
//! token is looked up in the vocabulary instead of encoded, as tiktoken does.

use std::sync::LazyLock;

use super::vocabulary::Vocabulary;
use super::{Encoding, pieces};
use bpe_openai::byte_pair_encoding::BytePairEncoding;

/// No limit per call: a pre-tokenizer that cannot backtrack neither panics nor stalls on a
/// long run without a break (the megabyte runs of `benches/README.md`, "Hostile input"). The
/// assembler still hands over no more than could fit in the budget.
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
