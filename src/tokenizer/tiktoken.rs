//! OpenAI's encodings, counted with tiktoken-rs: the reference backend.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use tiktoken_rs::CoreBPE;

use super::{TokenCounter, openai_splits_exactly};
use crate::error::Error;

/// One of OpenAI's byte-pair encodings, counted with tiktoken-rs.
///
/// The tables are built on first use (36-92 ms) and shared by every builder in the process.
///
/// ```
/// use mentor_context::{Encoding, TokenCounter};
///
/// let encoding = Encoding::for_model("gpt-4o")?;
/// assert_eq!(encoding, Encoding::O200kBase);
/// assert_eq!(encoding.count("hello world"), 2);
/// # Ok::<(), mentor_context::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Encoding {
    /// `o200k_base`: GPT-4o, GPT-4.1, GPT-5, o1, o3, o4.
    #[default]
    O200kBase,
    /// `cl100k_base`: GPT-4, GPT-3.5-turbo, text-embedding-3.
    Cl100kBase,
    /// `p50k_base`: Codex and text-davinci-002/003.
    P50kBase,
    /// `r50k_base`: GPT-3 (davinci, curie, ...).
    R50kBase,
}

/// Tokens never span more bytes than this in any of the four encodings (measured: the longest
/// token of each vocabulary is 128 bytes).
const OPENAI_MAX_TOKEN_BYTES: usize = 128;

/// tiktoken-rs 0.12.1 panics (a fancy-regex backtrack limit, unwrapped inside
/// `encode_ordinary`) on a run of about a million whitespace characters with o200k, and long
/// runs without a break are slow (64 KiB of spaces takes about 16 ms). Handing it at most
/// this many bytes at a time keeps every run far below the limit and every call short. Text
/// is split for it only at exact split points, so this bounds only a stretch without any.
const OPENAI_MAX_CALL_BYTES: usize = 64 * 1024;

impl Encoding {
    /// Every encoding, in a fixed order.
    pub const ALL: [Encoding; 4] = [
        Encoding::O200kBase,
        Encoding::Cl100kBase,
        Encoding::P50kBase,
        Encoding::R50kBase,
    ];

    /// The encoding's name, as OpenAI spells it: `"o200k_base"`, `"cl100k_base"`, ...
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
            Encoding::P50kBase => "p50k_base",
            Encoding::R50kBase => "r50k_base",
        }
    }

    /// The encoding called `name` (`"o200k_base"`, `"cl100k_base"`, `"p50k_base"`,
    /// `"r50k_base"`).
    ///
    /// # Errors
    ///
    /// [`Error::UnknownEncoding`] for any other name.
    pub fn from_name(name: &str) -> Result<Encoding, Error> {
        Encoding::ALL
            .into_iter()
            .find(|e| e.as_str() == name)
            .ok_or_else(|| Error::UnknownEncoding {
                name: name.to_string(),
            })
    }

    /// The encoding an OpenAI model uses, by model name: `gpt-4o` is `o200k_base`, `gpt-4` is
    /// `cl100k_base`, and so on (tiktoken-rs's table, which follows OpenAI's tiktoken).
    ///
    /// # Errors
    ///
    /// [`Error::UnknownModel`] when the model is unknown or uses an encoding this crate does not
    /// offer.
    pub fn for_model(model: &str) -> Result<Encoding, Error> {
        use tiktoken_rs::tokenizer::Tokenizer as T;
        match tiktoken_rs::tokenizer::get_tokenizer(model) {
            Some(T::O200kBase) => Ok(Encoding::O200kBase),
            Some(T::Cl100kBase) => Ok(Encoding::Cl100kBase),
            Some(T::P50kBase) => Ok(Encoding::P50kBase),
            Some(T::R50kBase | T::Gpt2) => Ok(Encoding::R50kBase),
            _ => Err(Error::UnknownModel {
                model: model.to_string(),
            }),
        }
    }

    fn tables(self) -> &'static Tables {
        static O200K: OnceLock<Tables> = OnceLock::new();
        static CL100K: OnceLock<Tables> = OnceLock::new();
        static P50K: OnceLock<Tables> = OnceLock::new();
        static R50K: OnceLock<Tables> = OnceLock::new();
        match self {
            Encoding::O200kBase => {
                O200K.get_or_init(|| Tables::new(tiktoken_rs::o200k_base_singleton()))
            }
            Encoding::Cl100kBase => {
                CL100K.get_or_init(|| Tables::new(tiktoken_rs::cl100k_base_singleton()))
            }
            Encoding::P50kBase => {
                P50K.get_or_init(|| Tables::new(tiktoken_rs::p50k_base_singleton()))
            }
            Encoding::R50kBase => {
                R50K.get_or_init(|| Tables::new(tiktoken_rs::r50k_base_singleton()))
            }
        }
    }

    /// Builds this encoding's tables now rather than on the first request.
    pub fn warm_up(self) {
        self.tables();
    }
}

impl std::fmt::Display for Encoding {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Encoding {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Encoding::from_name(s)
    }
}

/// The tiktoken-rs encoder and, per token rank, its length in bytes. tiktoken-rs has no
/// offsets API; a table built once turns ranks into lengths without decoding each token.
struct Tables {
    bpe: &'static CoreBPE,
    token_bytes: Vec<u8>,
}

impl Tables {
    fn new(bpe: &'static CoreBPE) -> Tables {
        let mut token_bytes = Vec::new();
        // Ranks are dense from 0 (special tokens sit just past the vocabulary and never occur
        // in ordinary encoding); a long run of unknown ranks means the table is complete.
        let mut misses = 0;
        let mut rank = 0u32;
        while misses < 1024 {
            match bpe.decode_bytes(&[rank]) {
                Ok(bytes) => {
                    misses = 0;
                    // Measured: no token is longer than 128 bytes, so a byte holds the length.
                    token_bytes.push(u8::try_from(bytes.len()).unwrap_or(u8::MAX));
                }
                Err(_) => {
                    misses += 1;
                    token_bytes.push(0);
                }
            }
            rank += 1;
        }
        Tables { bpe, token_bytes }
    }
}

impl TokenCounter for Encoding {
    fn name(&self) -> &str {
        self.as_str()
    }

    fn token_lengths(&self, text: &str, lengths: &mut Vec<u32>) {
        let tables = self.tables();
        lengths.extend(
            tables
                .bpe
                .encode_ordinary(text)
                .into_iter()
                .map(|rank| u32::from(tables.token_bytes[rank as usize])),
        );
    }

    fn count(&self, text: &str) -> usize {
        self.tables().bpe.encode_ordinary(text).len()
    }

    fn splits_exactly(&self, text: &str, at: usize) -> bool {
        openai_splits_exactly(text, at)
    }

    fn max_token_bytes(&self) -> usize {
        OPENAI_MAX_TOKEN_BYTES
    }

    fn max_call_bytes(&self) -> usize {
        OPENAI_MAX_CALL_BYTES
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_names_map_to_encodings() {
        assert_eq!(Encoding::for_model("gpt-4o").unwrap(), Encoding::O200kBase);
        assert_eq!(Encoding::for_model("gpt-4").unwrap(), Encoding::Cl100kBase);
        assert_eq!(
            Encoding::for_model("gpt-3.5-turbo-0125").unwrap(),
            Encoding::Cl100kBase
        );
        assert_eq!(
            Encoding::for_model("text-davinci-003").unwrap(),
            Encoding::P50kBase
        );
        assert!(matches!(
            Encoding::for_model("llama-3"),
            Err(Error::UnknownModel { .. })
        ));
    }

    #[test]
    fn names_round_trip() {
        for e in Encoding::ALL {
            assert_eq!(Encoding::from_name(e.as_str()).unwrap(), e);
        }
        assert!(matches!(
            Encoding::from_name("cl100k"),
            Err(Error::UnknownEncoding { .. })
        ));
    }

    #[test]
    fn token_lengths_cover_the_text() {
        let text = "Grüße, 世界! 👩🏽‍💻 <|endoftext|>\n\n  tabs\tand spaces   ";
        for e in Encoding::ALL {
            let mut lengths = Vec::new();
            e.token_lengths(text, &mut lengths);
            assert_eq!(
                lengths.iter().map(|&l| l as usize).sum::<usize>(),
                text.len()
            );
            assert_eq!(lengths.len(), e.count(text));
        }
    }

    #[test]
    fn special_token_text_is_ordinary() {
        // As ordinary text `<|endoftext|>` is several tokens, never the special token.
        assert!(Encoding::Cl100kBase.count("<|endoftext|>") > 1);
    }
}
