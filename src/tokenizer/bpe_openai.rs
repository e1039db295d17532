//! The same encodings, counted with GitHub's `bpe-openai` crate (feature `bpe-openai`).
//!
//! `bpe-openai` pre-tokenizes with the same patterns as tiktoken and encodes each piece with
//! a faster byte-pair algorithm. Its counts match tiktoken-rs on every fixture and on
//! arbitrary Unicode (`tests/bpe_openai.rs`), so the exact-split rule and every guarantee carry
//! over unchanged.

use crate::tokenizer::{Encoding, TokenCounter, openai_splits_exactly};

/// `o200k_base` or `cl100k_base`, counted with `bpe-openai`.
///
/// ```
/// use mentor_context::{ContextBuilder, Encoding, FastEncoding, TokenCounter};
///
/// let fast = FastEncoding::try_from(Encoding::O200kBase)?;
/// assert_eq!(fast.count("hello world"), Encoding::O200kBase.count("hello world"));
/// let builder = ContextBuilder::new(4000).tokenizer(fast);
/// # Ok::<(), mentor_context::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FastEncoding {
    /// `o200k_base`.
    O200kBase,
    /// `cl100k_base`.
    Cl100kBase,
}

impl FastEncoding {
    fn tokenizer(self) -> &'static bpe_openai::Tokenizer {
        match self {
            FastEncoding::O200kBase => bpe_openai::o200k_base(),
            FastEncoding::Cl100kBase => bpe_openai::cl100k_base(),
        }
    }

    /// The tiktoken-rs encoding this one counts like.
    #[must_use]
    pub fn encoding(self) -> Encoding {
        match self {
            FastEncoding::O200kBase => Encoding::O200kBase,
            FastEncoding::Cl100kBase => Encoding::Cl100kBase,
        }
    }
}

impl TryFrom<Encoding> for FastEncoding {
    type Error = crate::Error;

    /// # Errors
    ///
    /// [`Error::UnknownEncoding`](crate::Error::UnknownEncoding) for `p50k_base` and
    /// `r50k_base`, which `bpe-openai` does not ship.
    fn try_from(encoding: Encoding) -> Result<Self, Self::Error> {
        match encoding {
            Encoding::O200kBase => Ok(FastEncoding::O200kBase),
            Encoding::Cl100kBase => Ok(FastEncoding::Cl100kBase),
            other => Err(crate::Error::UnknownEncoding {
                name: format!("{other} (bpe-openai ships only o200k_base and cl100k_base)"),
            }),
        }
    }
}

impl TokenCounter for FastEncoding {
    /// The encoding's own name: counts are the same as tiktoken-rs's, so reports and caches
    /// need not tell the two apart.
    fn name(&self) -> &str {
        self.encoding().as_str()
    }

    fn token_lengths(&self, text: &str, lengths: &mut Vec<u32>) {
        let tokenizer = self.tokenizer();
        lengths.extend(
            tokenizer
                .encode(text)
                .into_iter()
                .map(|token| tokenizer.bpe.token_len(token) as u32),
        );
    }

    fn count(&self, text: &str) -> usize {
        self.tokenizer().count(text)
    }

    fn splits_exactly(&self, text: &str, at: usize) -> bool {
        openai_splits_exactly(text, at)
    }

    fn max_token_bytes(&self) -> usize {
        self.encoding().max_token_bytes()
    }

    fn max_call_bytes(&self) -> usize {
        self.encoding().max_call_bytes()
    }
}
