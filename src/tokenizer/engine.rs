//! Engines: the code that counts an [`Encoding`]. Every engine gives the same counts, token
//! lengths and contexts (`tests/library/engines.rs` checks it); they differ in speed, start-up time and
//! what they survive.

use super::{Encoding, TokenCounter, bpe_openai, openai_splits_exactly, tiktoken};
use crate::error::Error;
use crate::named_choice::named_choice;

/// Tokens never span more bytes than this in any of the four encodings (measured: the longest
/// token of each vocabulary is 128 bytes).
const OPENAI_MAX_TOKEN_BYTES: usize = 128;

/// Which implementation counts an [`Encoding`].
///
/// ```
/// use mentor_context::Encoding;
/// use mentor_context::tokenizer::Engine;
///
/// assert_eq!(Encoding::O200kBase.default_engine(), Engine::BpeOpenai);
/// assert_eq!(Encoding::P50kBase.default_engine(), Engine::Tiktoken);
/// assert_eq!("tiktoken".parse::<Engine>()?, Engine::Tiktoken);
/// # Ok::<(), mentor_context::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Engine {
    /// GitHub's `bpe-openai`: `o200k_base` and `cl100k_base` only. Loads in about a fifth of
    /// tiktoken-rs's time, counts 1.3 to 2.3 times faster, and takes megabyte runs without a
    /// break in one call.
    #[default]
    BpeOpenai,
    /// `tiktoken-rs`, the port of OpenAI's tiktoken: all four encodings; the reference the
    /// other engines are tested against.
    Tiktoken,
}

impl Engine {
    /// Every engine, in a fixed order.
    /// A slice, not an array: a new value does not change this constant's type.
    pub const ALL: &[Engine] = &[Engine::BpeOpenai, Engine::Tiktoken];

    /// The engine's name: `"bpe-openai"` or `"tiktoken"`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Engine::BpeOpenai => "bpe-openai",
            Engine::Tiktoken => "tiktoken",
        }
    }

    /// The engine called `name` (`"bpe-openai"` or `"tiktoken"`).
    ///
    /// # Errors
    ///
    /// [`Error::UnknownName`] for any other name.
    pub fn from_name(name: &str) -> Result<Engine, Error> {
        name.parse()
    }

    /// Whether this engine can count `encoding`.
    #[must_use]
    pub fn supports(self, encoding: Encoding) -> bool {
        match self {
            Engine::BpeOpenai => bpe_openai::ships(encoding),
            Engine::Tiktoken => true,
        }
    }
}

named_choice!(Engine, "engine", "bpe-openai or tiktoken");

/// An [`Encoding`] counted by a chosen [`Engine`]; made by [`Encoding::with_engine`].
///
/// Its [`name`](TokenCounter::name) is the encoding's: counts are the same whichever engine
/// counts, so reports and a shared [`TokenCache`](super::TokenCache) need not tell engines
/// apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct OpenAiTokenizer {
    encoding: Encoding,
    engine: Engine,
}

impl OpenAiTokenizer {
    /// `encoding` counted by `engine`.
    ///
    /// # Errors
    ///
    /// [`Error::EngineLacksEncoding`] when `engine` does not ship `encoding`.
    pub fn new(encoding: Encoding, engine: Engine) -> Result<OpenAiTokenizer, Error> {
        if engine.supports(encoding) {
            Ok(OpenAiTokenizer::with_supported_engine(encoding, engine))
        } else {
            Err(Error::EngineLacksEncoding {
                engine: engine.as_str(),
                encoding: encoding.as_str(),
            })
        }
    }

    /// `encoding` counted by `engine`, which the caller knows supports it.
    pub(super) fn with_supported_engine(encoding: Encoding, engine: Engine) -> OpenAiTokenizer {
        debug_assert!(engine.supports(encoding));
        OpenAiTokenizer { encoding, engine }
    }

    /// The encoding counted.
    #[must_use]
    pub fn encoding(self) -> Encoding {
        self.encoding
    }

    /// The engine that counts it.
    #[must_use]
    pub fn engine(self) -> Engine {
        self.engine
    }

    /// Loads the engine's tables for the encoding now rather than on the first request.
    pub fn warm_up(self) {
        match self.engine {
            Engine::BpeOpenai => bpe_openai::warm_up(self.encoding),
            Engine::Tiktoken => tiktoken::warm_up(self.encoding),
        }
    }
}

impl TokenCounter for OpenAiTokenizer {
    fn name(&self) -> &str {
        self.encoding.as_str()
    }

    fn token_lengths(&self, text: &str, lengths: &mut Vec<u32>) {
        match self.engine {
            Engine::BpeOpenai => bpe_openai::token_lengths(self.encoding, text, lengths),
            Engine::Tiktoken => tiktoken::token_lengths(self.encoding, text, lengths),
        }
    }

    fn count(&self, text: &str) -> usize {
        match self.engine {
            Engine::BpeOpenai => bpe_openai::count(self.encoding, text),
            Engine::Tiktoken => tiktoken::count(self.encoding, text),
        }
    }

    fn splits_exactly(&self, text: &str, at: usize) -> bool {
        openai_splits_exactly(text, at)
    }

    fn max_token_bytes(&self) -> usize {
        OPENAI_MAX_TOKEN_BYTES
    }

    fn max_call_bytes(&self) -> usize {
        match self.engine {
            Engine::BpeOpenai => bpe_openai::MAX_CALL_BYTES,
            Engine::Tiktoken => tiktoken::MAX_CALL_BYTES,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for &engine in Engine::ALL {
            assert_eq!(Engine::from_name(engine.as_str()).unwrap(), engine);
            let json = serde_json::to_string(&engine).unwrap();
            assert_eq!(json, format!("\"{engine}\""));
        }
        let err = Engine::from_name("tiktoken-rs").unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown engine `tiktoken-rs` (expected bpe-openai or tiktoken)"
        );
    }

    #[test]
    fn bpe_openai_lacks_the_older_encodings() {
        for &encoding in Encoding::ALL {
            assert!(OpenAiTokenizer::new(encoding, Engine::Tiktoken).is_ok());
        }
        assert!(OpenAiTokenizer::new(Encoding::O200kBase, Engine::BpeOpenai).is_ok());
        assert!(OpenAiTokenizer::new(Encoding::Cl100kBase, Engine::BpeOpenai).is_ok());
        let err = OpenAiTokenizer::new(Encoding::P50kBase, Engine::BpeOpenai).unwrap_err();
        assert_eq!(
            err.to_string(),
            "the bpe-openai engine has no p50k_base (choose the tiktoken engine)"
        );
        assert_eq!(Encoding::R50kBase.default_engine(), Engine::Tiktoken);
    }

    #[test]
    fn only_tiktoken_is_bounded_per_call() {
        let fast = OpenAiTokenizer::new(Encoding::O200kBase, Engine::BpeOpenai).unwrap();
        let reference = OpenAiTokenizer::new(Encoding::O200kBase, Engine::Tiktoken).unwrap();
        assert_eq!(fast.max_call_bytes(), usize::MAX);
        assert_eq!(reference.max_call_bytes(), 64 * 1024);
        assert_eq!(Encoding::O200kBase.max_call_bytes(), usize::MAX);
        assert_eq!(Encoding::P50kBase.max_call_bytes(), 64 * 1024);
    }
}
