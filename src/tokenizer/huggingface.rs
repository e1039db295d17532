//! The Hugging Face backend (feature `huggingface`): counts with a local `tokenizer.json`
//! through the `tokenizers` crate, configured as the model owners' Python package would be
//! with `encode_special_tokens = True` and `add_special_tokens=False`.
//!
//! What the file's shape allows (the exact-split rule, the token lengths, the family name) is
//! worked out once, from the file, in `hf_shape.rs`.

use std::path::Path;

use tokenizers::Tokenizer;

use super::file_id::{file_name, load_file};
use super::hf_load::read_tokenizer;
use super::hf_shape::{Shape, SplitRule};
use super::nfc::nfc_splits_at;
use super::openai_splits_exactly;
use super::{DEFAULT_MAX_CALL_BYTES, TokenCounter};
use crate::error::Error;

/// The most bytes per call for a file whose longest token is known: the `tokenizers` crate
/// (onig) takes a megabyte of any one kind of text in one call without a panic and in linear
/// time (`benches/README.md`, "Hostile input"). With the longest token known, a block that
/// cannot fit is tokenized only as far as could fit, so a larger call costs nothing then; and
/// a file on the recount path (Gemma 3) gets contexts of up to this much.
const MEASURED_MAX_CALL_BYTES: usize = 1 << 20;

/// A model's own tokenizer, from the `tokenizer.json` file it ships with (Llama 3, Qwen 3,
/// DeepSeek V3, Gemma 3, ...). Needs the `huggingface` feature.
///
/// Nothing is downloaded: the file is read from where the caller points.
///
/// - **Special tokens are text.** `<|begin_of_text|>` or `<|im_start|>` in a document is
///   counted as the ordinary text it is, never as one control token, as the built-in
///   encodings do; no beginning-of-text token is added either. Added tokens the file marks
///   as not special (Qwen's `<think>`, Gemma's `<unused0>`) are matched in text, as the model's
///   own tokenizer matches them.
/// - **Exact splits where the file proves them.** Where the pre-tokenizer is one of the
///   regular-expression splits whose piece boundaries are known (Llama 3's is cl100k's,
///   Qwen 3's and DeepSeek V3's are checked the same way) and nothing rewrites the text
///   first but NFC, the assembler counts each block once: at the positions of OpenAI's
///   exact-split rule, and under NFC (Qwen 3) only where the character after is one NFC
///   cannot join to what comes before. Any other file (a normalizer such as Gemma's
///   space-to-`▁`, or an unknown pattern) takes the whole-text recount, which is exact but
///   counts the text again, and gives contexts of at most a call's length.
/// - **Truncation and padding** configured in the file are switched off: they would change
///   the count.
///
/// ```no_run
/// use mentor_context::ContextBuilder;
/// use mentor_context::tokenizer::{HuggingFaceTokenizer, TokenCounter};
///
/// let llama = HuggingFaceTokenizer::from_file("tokenizer.json")?;
/// assert!(llama.name().starts_with("llama3@"));
/// // Ordinary text, several tokens: never the one control token.
/// assert!(llama.count("<|begin_of_text|>") > 1);
/// let assembler = ContextBuilder::new(4000).tokenizer(llama).build()?;
/// # Ok::<(), mentor_context::Error>(())
/// ```
#[cfg_attr(docsrs, doc(cfg(feature = "huggingface")))]
pub struct HuggingFaceTokenizer {
    tokenizer: Tokenizer,
    shape: Shape,
    name: String,
}

impl HuggingFaceTokenizer {
    /// Reads a `tokenizer.json` file.
    ///
    /// # Errors
    ///
    /// [`Error::TokenizerFile`] when the file cannot be read or is not a tokenizer the
    /// `tokenizers` crate can load.
    pub fn from_file(path: impl AsRef<Path>) -> Result<HuggingFaceTokenizer, Error> {
        load_file(path.as_ref(), HuggingFaceTokenizer::from_slice)
    }

    /// Reads the contents of a `tokenizer.json` file.
    ///
    /// # Errors
    ///
    /// [`Error::TokenizerFile`] when `json` is not a tokenizer the `tokenizers` crate can
    /// load.
    pub fn from_slice(json: &[u8]) -> Result<HuggingFaceTokenizer, Error> {
        let (mut tokenizer, facts) =
            read_tokenizer(json).map_err(|e| Error::tokenizer_data(e.to_string()))?;
        tokenizer.set_encode_special_tokens(true);
        tokenizer
            .with_truncation(None)
            .map_err(|e| Error::tokenizer_data(e.to_string()))?;
        tokenizer.with_padding(None);
        let shape = Shape::new(&facts);
        let name = file_name(shape.family, json);
        Ok(HuggingFaceTokenizer {
            tokenizer,
            shape,
            name,
        })
    }

    /// A tokenizer the caller has already loaded with the `tokenizers` crate, configured as
    /// [`from_slice`](Self::from_slice) configures a file's (special tokens as text, no
    /// truncation or padding). What the file's shape allows is worked out from the tokenizer
    /// written out again as JSON, so this costs about a load; the name's hash is of that JSON,
    /// which need not be the bytes of the file it came from, so a report counted with
    /// [`from_file`](Self::from_file) is continued by a tokenizer from the same file, not by
    /// this one.
    ///
    /// # Errors
    ///
    /// [`Error::TokenizerFile`] when the tokenizer cannot be written out, or what it writes is
    /// not a tokenizer [`from_slice`](Self::from_slice) reads.
    pub fn from_tokenizer(tokenizer: &Tokenizer) -> Result<HuggingFaceTokenizer, Error> {
        let json = tokenizer
            .to_string(false)
            .map_err(|e| Error::tokenizer_data(e.to_string()))?;
        HuggingFaceTokenizer::from_slice(json.as_bytes())
    }

    /// The token ids of `text`, encoded as ordinary text (as the Python package's
    /// `encode(text, add_special_tokens=False)` with `encode_special_tokens = True`); empty if
    /// the `tokenizers` crate refuses the text (no `&str` is known to make it).
    #[must_use]
    pub fn encode(&self, text: &str) -> Vec<u32> {
        self.tokenizer
            .encode_fast(text, false)
            .map(|encoding| encoding.get_ids().to_vec())
            .unwrap_or_default()
    }

    /// The file's added tokens, with whether each is special: what a chat template's control
    /// tokens are drawn from.
    pub(crate) fn added_tokens(&self) -> Vec<(String, bool)> {
        let mut tokens: Vec<(u32, String, bool)> = self
            .tokenizer
            .get_added_tokens_decoder()
            .into_iter()
            .map(|(id, token)| (id, token.content, token.special))
            .collect();
        tokens.sort_unstable_by_key(|(id, _, _)| *id);
        tokens
            .into_iter()
            .map(|(_, content, special)| (content, special))
            .collect()
    }

    /// Whether U+200B survives the file's normalizer (the neutralizer of control tokens
    /// relies on it: a normalizer that removed it would join a broken token again).
    pub(crate) fn keeps_zero_width_space(&self) -> bool {
        self.tokenizer.encode("a\u{200b}a", false).is_ok_and(|e| {
            e.get_offsets()
                .iter()
                .any(|&(start, end)| (start..end).contains(&1))
        })
    }

    /// Whether splits are exact by the rule of the file's pre-tokenizer (`false`: the
    /// assembler recounts the whole text).
    #[must_use]
    pub fn has_exact_splits(&self) -> bool {
        self.shape.split_rule != SplitRule::Recount
    }
}

impl std::fmt::Debug for HuggingFaceTokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HuggingFaceTokenizer")
            .field("name", &self.name)
            .field("split_rule", &self.shape.split_rule)
            .finish_non_exhaustive()
    }
}

impl TokenCounter for HuggingFaceTokenizer {
    fn name(&self) -> &str {
        &self.name
    }

    fn token_lengths(&self, text: &str, lengths: &mut Vec<u32>) {
        // The `tokenizers` crate returns an error only for input it cannot take at all (none
        // is known for a `&str`). Then a token per byte: more than the model could count, so a
        // text that fits by this count fits.
        match self.tokenizer.encode(text, false) {
            Ok(encoding) => self.shape.lengths(text, &encoding, lengths),
            Err(_) => lengths.extend(std::iter::repeat_n(1, text.len())),
        }
    }

    fn count(&self, text: &str) -> usize {
        self.tokenizer
            .encode_fast(text, false)
            // As in `token_lengths`: a token per byte if the crate ever refuses a text.
            .map_or(text.len(), |encoding| encoding.len())
    }

    fn splits_exactly(&self, text: &str, at: usize) -> bool {
        match self.shape.split_rule {
            SplitRule::OpenAi => openai_splits_exactly(text, at),
            SplitRule::OpenAiNfc => openai_splits_exactly(text, at) && nfc_splits_at(text, at),
            SplitRule::Recount => false,
        }
    }

    fn max_token_bytes(&self) -> usize {
        self.shape.max_token_bytes
    }

    /// A megabyte where the longest token is known (Llama 3, DeepSeek V3, Gemma 3): safe,
    /// and what is tokenized stays bounded by the budget. Otherwise (Qwen 3's NFC can make a
    /// token stand for more bytes than its string has) the default 64 KiB, which then also
    /// bounds the work spent on a block that cannot fit. On the exact path that bounds only a
    /// stretch without an exact split point, not the context.
    fn max_call_bytes(&self) -> usize {
        if self.shape.max_token_bytes == usize::MAX {
            DEFAULT_MAX_CALL_BYTES
        } else {
            MEASURED_MAX_CALL_BYTES
        }
    }
}

impl TryFrom<&Tokenizer> for HuggingFaceTokenizer {
    type Error = Error;

    /// [`HuggingFaceTokenizer::from_tokenizer`].
    fn try_from(tokenizer: &Tokenizer) -> Result<HuggingFaceTokenizer, Error> {
        HuggingFaceTokenizer::from_tokenizer(tokenizer)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A byte-pair tokenizer of three tokens, `a`, `b` and `ab`.
    const TINY: &str = r#"{"version": "1.0", "truncation": null, "padding": null,
        "added_tokens": [{"id": 3, "content": "<s>", "single_word": false, "lstrip": false,
            "rstrip": false, "normalized": false, "special": true}],
        "normalizer": null, "pre_tokenizer": null, "post_processor": null, "decoder": null,
        "model": {"type": "BPE", "dropout": null, "unk_token": null,
            "continuing_subword_prefix": null, "end_of_word_suffix": null,
            "fuse_unk": false, "byte_fallback": false, "ignore_merges": false,
            "vocab": {"a": 0, "b": 1, "ab": 2}, "merges": ["a b"]}}"#;

    #[test]
    fn a_loaded_tokenizer_counts_as_its_file_does() {
        let loaded: Tokenizer = TINY.parse().expect("the tokenizers crate reads it");
        let ours = HuggingFaceTokenizer::try_from(&loaded).unwrap();
        let file = HuggingFaceTokenizer::from_slice(TINY.as_bytes()).unwrap();
        for text in ["abab", "aab", "ba", "<s>ab"] {
            assert_eq!(ours.count(text), file.count(text), "{text}");
            assert_eq!(ours.encode(text), file.encode(text), "{text}");
        }
        assert_eq!(ours.count("abab"), 2);
        // Configured as a file is: the special token is text.
        assert_eq!(ours.count("<s>"), file.count("<s>"));
        assert!(ours.encode("<s>").iter().all(|&id| id != 3));
    }

    #[test]
    fn bad_files_name_the_problem() {
        let err = HuggingFaceTokenizer::from_file("/nonexistent/tokenizer.json").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("tokenizer file /nonexistent/tokenizer.json: "),
            "{err}"
        );
        for (json, problem) in [
            (&b"not json"[..], "expected"),
            (b"{}", "Model missing"),
            (b"{\"model\": {\"type\": \"Nope\"}}", "ModelUntagged"),
        ] {
            let err = HuggingFaceTokenizer::from_slice(json).unwrap_err();
            let message = err.to_string();
            assert!(
                message.starts_with("tokenizer file (given as bytes): ")
                    && message.contains(problem),
                "{message} lacks {problem}"
            );
        }
    }
}
