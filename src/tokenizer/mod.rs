//! Tokenizers: how the assembler counts tokens.
//!
//! The assembler needs three things from a tokenizer: the byte length of each token of a
//! text (to find where a block that does not fit must be cut), a count, and the positions at
//! which a text can be split so that the counts of the two halves add up to the count of the
//! whole. The last one is what lets the assembler count each block once and still report the
//! exact count of the assembled text: blocks are joined only at such positions.
//!
//! [`Encoding`] names the vocabulary (`encoding.rs`); an [`Engine`] is the code that counts it
//! (`engine.rs`, with [`OpenAiTokenizer`], the pair). The engines sit one to a file:
//! `bpe_openai.rs` (the default where it ships the encoding) and `tiktoken.rs` (the
//! reference). The exact-split rule of OpenAI's patterns is in `split_rule.rs`, and where an NFC
//! normalizer leaves a split alone in `nfc.rs`.

mod bpe_openai;
mod cache;
mod encoding;
mod engine;
mod file_id;
mod file_kind;
#[cfg(feature = "huggingface")]
mod hf_load;
#[cfg(feature = "huggingface")]
mod hf_shape;
#[cfg(feature = "huggingface")]
mod huggingface;
#[cfg(any(feature = "huggingface", test))]
mod nfc;
mod pieces;
mod split_rule;
mod tekken;
mod tekken_version;
mod tiktoken;
mod vocabulary;

pub use cache::TokenCache;
pub use encoding::Encoding;
pub use engine::{Engine, OpenAiTokenizer};
pub use file_kind::TokenizerKind;
#[cfg(feature = "huggingface")]
#[cfg_attr(docsrs, doc(cfg(feature = "huggingface")))]
pub use huggingface::HuggingFaceTokenizer;
#[cfg(all(feature = "huggingface", feature = "unstable_machinery"))]
pub(crate) use nfc::nfc_stable;
pub(crate) use split_rule::openai_splits_exactly;
pub use tekken::TekkenTokenizer;
pub use tekken_version::TekkenVersion;

/// The most bytes handed to a tokenizer in one call unless it says otherwise
/// ([`TokenCounter::max_call_bytes`]): tiktoken-rs 0.12.1 panics on about a million
/// whitespace characters, and a custom counter wrapping it would too; 64 KiB is far below
/// that and keeps every call short.
pub(crate) const DEFAULT_MAX_CALL_BYTES: usize = 64 * 1024;

/// Counts tokens the way the model will.
///
/// Implement this to plug in a tokenizer other than the built-in [`Encoding`]s.
///
/// # What an implementation must provide
///
/// [`name`](TokenCounter::name) and [`token_lengths`](TokenCounter::token_lengths): the exact
/// byte length of every token, adding up to the text. With only these, every guarantee
/// holds: the count is exact (the assembler recounts the whole text, since it cannot know
/// where counts add up), the budget is kept, and the assembler never hands the tokenizer more
/// than 64 KiB in one call, whatever text it is given, so a
/// tokenizer that would crash or stall on a megabyte of whitespace is never asked to take
/// one.
///
/// # What it gains by providing more
///
/// - [`splits_exactly`](TokenCounter::splits_exactly): the assembler counts each block once,
///   in chunks that stop as soon as the budget is full, instead of recounting the whole text;
///   and a context can then be longer than one call. Without it, the text is at most one
///   call long (64 KiB, or what [`max_call_bytes`](TokenCounter::max_call_bytes) says), and
///   a block that does not fit is tokenized up to that limit to find out.
/// - [`count`](TokenCounter::count): a faster count where token ends are not needed.
/// - [`max_token_bytes`](TokenCounter::max_token_bytes): text that cannot fit is rejected
///   without tokenizing it.
/// - [`max_call_bytes`](TokenCounter::max_call_bytes): a lower limit for a tokenizer that
///   needs one, or a higher one (up to `usize::MAX`) for a tokenizer that is linear and
///   cannot panic on any input, as the default `bpe-openai` engine: then a stretch without
///   a split point longer than 64 KiB can fit too.
///
/// ```
/// use mentor_context::tokenizer::TokenCounter;
///
/// /// One token per byte: handy in tests.
/// struct Bytes;
///
/// impl TokenCounter for Bytes {
///     fn name(&self) -> &str {
///         "bytes"
///     }
///     fn token_lengths(&self, text: &str, lengths: &mut Vec<u32>) {
///         lengths.extend(std::iter::repeat_n(1, text.len()));
///     }
///     fn splits_exactly(&self, _text: &str, _at: usize) -> bool {
///         true
///     }
/// }
///
/// assert_eq!(Bytes.count("héllo"), 6);
/// ```
pub trait TokenCounter: Send + Sync {
    /// A short name for reports, such as `"o200k_base"`.
    fn name(&self) -> &str;

    /// Appends the length in bytes of each token of `text`, encoded as ordinary text (special
    /// tokens such as `<|endoftext|>` are plain text), to `lengths`.
    ///
    /// The lengths must add up to `text.len()`, and each should be at least 1. A tokenizer
    /// that can give more tokens than bytes (a normalizer that expands a character, as Qwen
    /// 3's NFC does U+0F76) gives the extra tokens length 0, after the token that holds the
    /// bytes: a token of length 0 is counted with the position where it ends, as one of the
    /// tokens before it.
    fn token_lengths(&self, text: &str, lengths: &mut Vec<u32>);

    /// The number of tokens in `text`, encoded as ordinary text.
    fn count(&self, text: &str) -> usize {
        let mut lengths = Vec::new();
        self.token_lengths(text, &mut lengths);
        lengths.len()
    }

    /// Whether `count(&text[..at]) + count(&text[at..]) == count(text)` holds for every text
    /// that agrees with `text` on the characters around `at`.
    ///
    /// Returning `false` is always safe. `at` is a byte offset on a `char` boundary.
    fn splits_exactly(&self, text: &str, at: usize) -> bool {
        let _ = (text, at);
        false
    }

    /// The most bytes a single token can span; the assembler uses it to reject text that
    /// cannot fit without tokenizing it.
    fn max_token_bytes(&self) -> usize {
        usize::MAX
    }

    /// The most bytes the assembler may hand to [`token_lengths`](TokenCounter::token_lengths)
    /// or [`count`](TokenCounter::count) in one call: 64 KiB unless the
    /// tokenizer says otherwise. Raising it is a promise that no text of that length makes
    /// the tokenizer panic or stall. The assembler never hands less than 64 bytes.
    fn max_call_bytes(&self) -> usize {
        DEFAULT_MAX_CALL_BYTES
    }
}

/// Forwards every method, so references and shared pointers to a tokenizer are tokenizers.
macro_rules! forward_token_counter {
    ($($pointer:ty),*) => {$(
        impl<T: TokenCounter + ?Sized> TokenCounter for $pointer {
            fn name(&self) -> &str {
                (**self).name()
            }
            fn token_lengths(&self, text: &str, lengths: &mut Vec<u32>) {
                (**self).token_lengths(text, lengths)
            }
            fn count(&self, text: &str) -> usize {
                (**self).count(text)
            }
            fn splits_exactly(&self, text: &str, at: usize) -> bool {
                (**self).splits_exactly(text, at)
            }
            fn max_token_bytes(&self) -> usize {
                (**self).max_token_bytes()
            }
            fn max_call_bytes(&self) -> usize {
                (**self).max_call_bytes()
            }
        }
    )*};
}

forward_token_counter!(&T, Box<T>, std::sync::Arc<T>);
