//! `--tokenizer-file`: a model's own tokenizer, read from a local file, in place of an OpenAI
//! encoding.

use std::io::Read;
use std::path::Path;

use clap::ValueEnum;
use mentor_context::tokenizer::{TekkenTokenizer, TokenCounter};

use crate::output::{Failure, escape_os};

/// What kind of file `--tokenizer-file` names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TokenizerKind {
    /// A Hugging Face `tokenizer.json` (Llama 3, Qwen 3, DeepSeek V3, Gemma 3, ...).
    Huggingface,
    /// A Mistral `tekken_*.json` file.
    Tekken,
}

/// The kind of the file at `path` by its first bytes: a Tekken file opens with its `config`,
/// which names `default_num_special_tokens`; anything else is taken for a `tokenizer.json`.
fn detect(path: &Path) -> std::io::Result<TokenizerKind> {
    let mut head = Vec::with_capacity(4096);
    std::fs::File::open(path)?
        .take(4096)
        .read_to_end(&mut head)?;
    let tekken = head
        .windows(b"\"default_num_special_tokens\"".len())
        .any(|w| w == b"\"default_num_special_tokens\"");
    Ok(if tekken {
        TokenizerKind::Tekken
    } else {
        TokenizerKind::Huggingface
    })
}

/// The tokenizer in the file at `path`, of `kind` or, without one, of the kind its contents
/// show.
///
/// # Errors
///
/// A bad-input failure naming the file when it cannot be read or loaded, or when it is a
/// `tokenizer.json` and the command was built without the `huggingface` feature.
pub(crate) fn load(
    path: &Path,
    kind: Option<TokenizerKind>,
) -> Result<Box<dyn TokenCounter>, Failure> {
    let fail = |message: String| Failure::bad_input(format!("--tokenizer-file: {message}"));
    let kind = match kind {
        Some(kind) => kind,
        None => detect(path).map_err(|e| fail(format!("{}: {e}", escape_os(path.as_os_str()))))?,
    };
    match kind {
        TokenizerKind::Tekken => TekkenTokenizer::from_file(path)
            .map(|t| Box::new(t) as Box<dyn TokenCounter>)
            .map_err(|e| fail(e.to_string())),
        #[cfg(feature = "huggingface")]
        TokenizerKind::Huggingface => {
            mentor_context::tokenizer::HuggingFaceTokenizer::from_file(path)
                .map(|t| Box::new(t) as Box<dyn TokenCounter>)
                .map_err(|e| fail(e.to_string()))
        }
        #[cfg(not(feature = "huggingface"))]
        TokenizerKind::Huggingface => Err(fail(format!(
            "{} is a Hugging Face tokenizer.json, and this build has no `huggingface` feature \
             (cargo install mentor-context-cli --features huggingface); Tekken files need none",
            escape_os(path.as_os_str())
        ))),
    }
}
