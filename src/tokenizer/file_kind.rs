//! A model's own tokenizer file by its path, of the kind its contents show: what the
//! `tokenizer_file` setting loads in every front end.

use std::path::Path;
use std::sync::Arc;

use super::{TekkenTokenizer, TokenCounter};
use crate::error::Error;
use crate::named_choice::named_choice;

/// What kind of file a tokenizer file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TokenizerKind {
    /// A Hugging Face `tokenizer.json` (Llama 3, Qwen 3, DeepSeek V3, Gemma 3, ...); needs
    /// the `huggingface` feature.
    Huggingface,
    /// A Mistral `tekken_*.json` file.
    Tekken,
}

impl TokenizerKind {
    /// Every kind, in a fixed order.
    /// A slice, not an array: a new value does not change this constant's type.
    pub const ALL: &[TokenizerKind] = &[TokenizerKind::Huggingface, TokenizerKind::Tekken];

    /// The kind's name: `"huggingface"` or `"tekken"`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            TokenizerKind::Huggingface => "huggingface",
            TokenizerKind::Tekken => "tekken",
        }
    }

    /// The kind of the file at `path` by its first 4 KiB: a Tekken file opens with its
    /// `config`, which names `default_num_special_tokens`; anything else is taken for a
    /// `tokenizer.json`.
    ///
    /// # Errors
    ///
    /// [`Error::TokenizerFile`] when the file cannot be read or is not a regular file (a
    /// directory, a FIFO, a device).
    pub fn of_file(path: &Path) -> Result<TokenizerKind, Error> {
        const TEKKEN_KEY: &[u8] = b"\"default_num_special_tokens\"";
        let head = crate::read_file::read_head(path, 4096)
            .map_err(|err| Error::tokenizer_file(path, err))?;
        let tekken = head.windows(TEKKEN_KEY.len()).any(|w| w == TEKKEN_KEY);
        Ok(if tekken {
            TokenizerKind::Tekken
        } else {
            TokenizerKind::Huggingface
        })
    }

    /// The tokenizer in the file at `path`, read as this kind.
    ///
    /// # Errors
    ///
    /// [`Error::TokenizerFile`] naming the file when it cannot be read or is not a tokenizer
    /// of this kind, or when it is a `tokenizer.json` and the crate was built without the
    /// `huggingface` feature.
    pub fn load(self, path: &Path) -> Result<Arc<dyn TokenCounter>, Error> {
        match self {
            TokenizerKind::Tekken => Ok(Arc::new(TekkenTokenizer::from_file(path)?)),
            #[cfg(feature = "huggingface")]
            TokenizerKind::Huggingface => {
                Ok(Arc::new(super::HuggingFaceTokenizer::from_file(path)?))
            }
            #[cfg(not(feature = "huggingface"))]
            TokenizerKind::Huggingface => Err(Error::TokenizerFile {
                file: path.display().to_string(),
                problem: "a Hugging Face tokenizer.json needs the `huggingface` feature, which \
                          this build lacks (Tekken files need none)"
                    .to_string(),
                source: None,
            }),
        }
    }
}

named_choice!(TokenizerKind, "tokenizer kind", "huggingface or tekken");
