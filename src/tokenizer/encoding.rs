//! OpenAI's encodings by name: which vocabulary and pre-tokenizer pattern count.

use super::{Engine, OpenAiTokenizer, TokenCounter, openai_splits_exactly};
use crate::error::Error;
use crate::named_choice::named_choice;

/// One of OpenAI's byte-pair encodings: the vocabulary that counts.
///
/// Which code counts it is the [`Engine`]'s business: by default the fastest that ships the
/// encoding ([`default_engine`](Self::default_engine)); the counts are the same either way.
/// An encoding's tables are loaded on first use (bpe-openai: about 70 ms for o200k_base;
/// tiktoken-rs: several hundred) and shared by every assembler in the process.
///
/// ```
/// use mentor_context::Encoding;
/// use mentor_context::tokenizer::TokenCounter;
///
/// let encoding = Encoding::for_model("gpt-4o")?;
/// assert_eq!(encoding, Encoding::O200kBase);
/// assert_eq!(encoding.count("hello world"), 2);
/// # Ok::<(), mentor_context::Error>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
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

impl Encoding {
    /// Every encoding, in a fixed order.
    /// A slice, not an array: a new value does not change this constant's type.
    pub const ALL: &[Encoding] = &[
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
    /// [`Error::ModelNamedAsEncoding`] for an OpenAI model's name (`gpt-4o`), which
    /// [`for_model`](Self::for_model) takes; [`Error::UnknownEncoding`] for any other name.
    pub fn from_name(name: &str) -> Result<Encoding, Error> {
        name.parse()
    }

    /// The error for `name`, which names no encoding: a model's name is pointed to
    /// [`for_model`](Self::for_model).
    fn unknown(name: &str) -> Error {
        match Encoding::for_model(name) {
            Ok(encoding) => Error::ModelNamedAsEncoding {
                name: name.to_string(),
                encoding: encoding.as_str(),
            },
            Err(_) => Error::UnknownEncoding {
                name: name.to_string(),
            },
        }
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

    /// The engine that counts this encoding by default: [`Engine::BpeOpenai`] where it ships
    /// the encoding, [`Engine::Tiktoken`] otherwise.
    #[must_use]
    pub fn default_engine(self) -> Engine {
        if Engine::BpeOpenai.supports(self) {
            Engine::BpeOpenai
        } else {
            Engine::Tiktoken
        }
    }

    /// This encoding counted by `engine` rather than by its
    /// [`default_engine`](Self::default_engine).
    ///
    /// ```
    /// use mentor_context::{ContextBuilder, Encoding};
    /// use mentor_context::tokenizer::{Engine, TokenCounter};
    ///
    /// let reference = Encoding::O200kBase.with_engine(Engine::Tiktoken)?;
    /// assert_eq!(reference.count("hello world"), Encoding::O200kBase.count("hello world"));
    /// let assembler = ContextBuilder::new(1500).tokenizer(reference).build()?;
    /// # Ok::<(), mentor_context::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::EngineLacksEncoding`] when the engine does not ship this encoding
    /// (`bpe-openai` has no `p50k_base` or `r50k_base`).
    pub fn with_engine(self, engine: Engine) -> Result<OpenAiTokenizer, Error> {
        OpenAiTokenizer::new(self, engine)
    }

    /// Loads this encoding's tables in its default engine now rather than on the first
    /// request.
    pub fn warm_up(self) {
        self.tokenizer().warm_up();
    }

    /// This encoding in its default engine.
    fn tokenizer(self) -> OpenAiTokenizer {
        OpenAiTokenizer::with_supported_engine(self, self.default_engine())
    }
}

named_choice!(
    Encoding,
    "encoding",
    "o200k_base, cl100k_base, p50k_base or r50k_base",
    unknown: Encoding::unknown
);

/// Counts with the [`default_engine`](Encoding::default_engine); the counts are the same
/// whichever engine counts (the engines are tested against each other).
impl TokenCounter for Encoding {
    fn name(&self) -> &str {
        self.as_str()
    }

    fn token_lengths(&self, text: &str, lengths: &mut Vec<u32>) {
        self.tokenizer().token_lengths(text, lengths);
    }

    fn count(&self, text: &str) -> usize {
        self.tokenizer().count(text)
    }

    fn splits_exactly(&self, text: &str, at: usize) -> bool {
        openai_splits_exactly(text, at)
    }

    fn max_token_bytes(&self) -> usize {
        self.tokenizer().max_token_bytes()
    }

    fn max_call_bytes(&self) -> usize {
        self.tokenizer().max_call_bytes()
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
        for &e in Encoding::ALL {
            assert_eq!(Encoding::from_name(e.as_str()).unwrap(), e);
        }
        assert!(matches!(
            Encoding::from_name("cl100k"),
            Err(Error::UnknownEncoding { .. })
        ));
    }

    #[test]
    fn a_model_named_as_an_encoding_is_told_so() {
        let err = Encoding::from_name("gpt-4o").unwrap_err();
        assert!(
            matches!(&err, Error::ModelNamedAsEncoding { name, encoding: "o200k_base" } if name == "gpt-4o"),
            "{err:?}"
        );
        assert_eq!(
            err.to_string(),
            "`gpt-4o` is a model, not an encoding: name it as the model, or give its encoding, \
             o200k_base"
        );
        assert!(matches!(
            Encoding::from_name("gpt-4"),
            Err(Error::ModelNamedAsEncoding {
                encoding: "cl100k_base",
                ..
            })
        ));
    }

    #[test]
    fn token_lengths_cover_the_text() {
        let text = "Grüße, 世界! 👩🏽‍💻 <|endoftext|>\n\n  tabs\tand spaces   ";
        for &e in Encoding::ALL {
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
