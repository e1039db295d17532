//! Mistral's Tekken tokenizer, read from a `tekken_*.json` file.
//!
//! A Tekken file holds a tiktoken vocabulary (base64 token bytes with their ranks), the split
//! pattern, and the number of special tokens. mistral-common's `Tekkenizer` keeps the first
//! `default_vocab_size - default_num_special_tokens` ranks and encodes with tiktoken and the
//! pattern, with no special tokens (they are added by id, never matched in text). This does the
//! same with tiktoken-rs, the port of the same code: counts match mistral-common token for token
//! (`tests/library/open_models.rs`, run by `.ci/run`).

use std::path::Path;

use base64::Engine as _;
use serde::Deserialize;
use tiktoken_rs::{CoreBPE, Rank};

use super::file_id::{file_name, load_file};
use super::tekken_version::{SpecialToken, TekkenVersion, named_special_tokens};
use super::{TokenCounter, openai_splits_exactly};
use crate::error::Error;

/// The split pattern of every Tekken file mistral-common 1.13 ships (`tekken_240718.json`,
/// `tekken_240911.json`): o200k_base's without its contraction suffixes, so the exact-split
/// rule of OpenAI's patterns holds for it (checked against the pattern, and locked in by
/// `tests/library/open_models.rs`, which recounts).
/// Letters of several scripts in every case, marks, digits, spaces and line ends, punctuation,
/// symbols, an emoji, a zero-width space: what a split pattern must match all of.
const COVERAGE_PROBE: &str = "Aa Zz \u{c9}t\u{e9} \u{df} \u{1c5} \u{65e5}\u{672c} \u{d55c} \u{41f}\u{440} \u{5d0} \u{627} \
     e\u{301} 0123456789 \u{663}\u{b2} \t\n\r\n  .,;:!?-_()[]{}<>/\\|@#$%^&*+=~`'\" \u{20ac}\u{a3} \u{1f600} \u{200b} \u{a0}\u{3000}x\n";

const TEKKEN_PATTERN: &str = r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+";

/// The parts of a Tekken file the counting and the chat template need; the rest (image and
/// audio settings) is ignored.
#[derive(Deserialize)]
struct TekkenFile {
    config: TekkenConfig,
    vocab: Vec<TekkenToken>,
    #[serde(default)]
    special_tokens: Option<Vec<SpecialToken>>,
}

#[derive(Deserialize)]
struct TekkenConfig {
    pattern: String,
    default_vocab_size: usize,
    default_num_special_tokens: usize,
    #[serde(default)]
    version: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct TekkenToken {
    rank: Rank,
    token_bytes: String,
}

/// Mistral's Tekken tokenizer (Mistral NeMo, Large 2, Small 3, Pixtral, ...), from a
/// `tekken_*.json` file.
///
/// Special-token strings in text are ordinary text, as mistral-common encodes them. With the
/// split pattern of the published files, splits are exact at
/// the positions of OpenAI's exact-split rule and the assembler counts each block once; a file with
/// any other pattern takes the whole-text recount. The tokenizer is handed at most
/// 64 KiB per call (the default of [`TokenCounter::max_call_bytes`]), since the pattern's
/// `\s+(?!\S)` runs on fancy-regex, which gives up on very long whitespace runs.
///
/// ```no_run
/// use mentor_context::ContextBuilder;
/// use mentor_context::tokenizer::{TekkenTokenizer, TokenCounter};
///
/// let tekken = TekkenTokenizer::from_file("tekken_240911.json")?;
/// assert!(tekken.name().starts_with("tekken-v3@"));
/// let assembler = ContextBuilder::new(4000).tokenizer(tekken).build()?;
/// # Ok::<(), mentor_context::Error>(())
/// ```
pub struct TekkenTokenizer {
    bpe: CoreBPE,
    /// The byte length of each rank's token.
    token_bytes: Vec<u32>,
    max_token_bytes: usize,
    /// Whether the file's pattern is the published one, whose splits are known.
    exact_splits: bool,
    name: String,
    version: TekkenVersion,
    /// The file's named special tokens, when it lists them (v11 and later files must).
    special_tokens: Option<Vec<String>>,
    /// The rank given to an empty piece, which a pattern that can match nothing makes and
    /// tiktoken cannot encode (it panics): such pieces are dropped, being no text.
    empty_piece: Rank,
}

impl TekkenTokenizer {
    /// Reads a `tekken_*.json` file.
    ///
    /// # Errors
    ///
    /// [`Error::TokenizerFile`] when the file cannot be read or is not a valid Tekken file.
    pub fn from_file(path: impl AsRef<Path>) -> Result<TekkenTokenizer, Error> {
        load_file(path.as_ref(), TekkenTokenizer::from_slice)
    }

    /// Reads the contents of a `tekken_*.json` file.
    ///
    /// # Errors
    ///
    /// [`Error::TokenizerFile`] when `json` is not a valid Tekken file, or its
    /// `config.version` is missing or not one of [`TekkenVersion::ALL`] (as `mistral-common`
    /// refuses it).
    pub fn from_slice(json: &[u8]) -> Result<TekkenTokenizer, Error> {
        let file: TekkenFile =
            serde_json::from_slice(json).map_err(|e| Error::tokenizer_data(format!("{e}")))?;
        let version = TekkenVersion::read(file.config.version.as_ref())?;
        let config = &file.config;
        let ranks = config
            .default_vocab_size
            .checked_sub(config.default_num_special_tokens)
            .filter(|&n| n > 0 && n <= file.vocab.len())
            .ok_or_else(|| {
                Error::tokenizer_data(format!(
                    "default_vocab_size {} less default_num_special_tokens {} must be between 1 \
                     and the {} tokens of the vocabulary",
                    config.default_vocab_size,
                    config.default_num_special_tokens,
                    file.vocab.len()
                ))
            })?;
        let mut encoder = rustc_hash::FxHashMap::default();
        encoder.reserve(ranks);
        let mut token_bytes = Vec::with_capacity(ranks);
        let base64 = base64::engine::general_purpose::STANDARD;
        for (i, token) in file.vocab.iter().take(ranks).enumerate() {
            // mistral-common asserts the same: rank i is the i-th entry.
            if token.rank as usize != i {
                return Err(Error::tokenizer_data(format!(
                    "vocabulary entry {i} has rank {}",
                    token.rank
                )));
            }
            let bytes = base64.decode(&token.token_bytes).map_err(|e| {
                Error::tokenizer_data(format!("vocabulary entry {i}: token_bytes: {e}"))
            })?;
            if bytes.is_empty() || encoder.insert(bytes.clone(), token.rank).is_some() {
                return Err(Error::tokenizer_data(format!(
                    "vocabulary entry {i} is empty or repeats an earlier token"
                )));
            }
            token_bytes.push(u32::try_from(bytes.len()).unwrap_or(u32::MAX));
        }
        // Byte-pair encoding needs every single byte as a token; mistral-common asserts it.
        if (0..=255u8).any(|b| !encoder.contains_key(&[b][..])) {
            return Err(Error::tokenizer_data(
                "the vocabulary lacks a token for some single byte".to_string(),
            ));
        }
        let max_token_bytes = token_bytes.iter().copied().max().unwrap_or(1) as usize;
        let empty_piece = Rank::try_from(ranks).unwrap_or(Rank::MAX - 1);
        encoder.insert(Vec::new(), empty_piece);
        let bpe = CoreBPE::new(encoder, rustc_hash::FxHashMap::default(), &config.pattern)
            .map_err(|e| Error::tokenizer_data(format!("split pattern: {e}")))?;
        // tiktoken drops text its pattern does not match, and dropped text would go
        // uncounted: a pattern that leaves any of a text of every kind of character is refused.
        let matched: usize = bpe
            .encode_ordinary(COVERAGE_PROBE)
            .iter()
            .filter(|&&rank| rank != empty_piece)
            .map(|&rank| token_bytes.get(rank as usize).map_or(1, |&n| n as usize))
            .sum();
        if matched != COVERAGE_PROBE.len() {
            return Err(Error::tokenizer_data(
                "split pattern: it leaves some text unmatched, which would not be counted"
                    .to_string(),
            ));
        }
        Ok(TekkenTokenizer {
            bpe,
            token_bytes,
            max_token_bytes,
            exact_splits: config.pattern == TEKKEN_PATTERN,
            name: file_name(&format!("tekken-{version}"), json),
            version,
            special_tokens: file.special_tokens.map(named_special_tokens),
            empty_piece,
        })
    }

    /// The file's tokenizer version (`config.version`), which names the model's instruct
    /// format.
    #[must_use]
    pub fn version(&self) -> TekkenVersion {
        self.version
    }

    /// The named special tokens the file lists (`special_tokens`), without the fillers; `None`
    /// when it lists none, as v3 and v7 files may.
    pub(crate) fn special_tokens(&self) -> Option<&[String]> {
        self.special_tokens.as_deref()
    }

    /// Whether splits are exact by the rule of the file's pattern (`false`: the assembler
    /// recounts the whole text).
    #[must_use]
    pub fn has_exact_splits(&self) -> bool {
        self.exact_splits
    }

    /// The ranks of the tokens of `text`, as tiktoken gives them (mistral-common's ids less
    /// the number of special tokens).
    #[must_use]
    pub fn encode(&self, text: &str) -> Vec<u32> {
        let mut ranks = self.bpe.encode_ordinary(text);
        ranks.retain(|&rank| rank != self.empty_piece);
        ranks
    }
}

impl std::fmt::Debug for TekkenTokenizer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TekkenTokenizer")
            .field("name", &self.name)
            .field("ranks", &self.token_bytes.len())
            .finish_non_exhaustive()
    }
}

impl TokenCounter for TekkenTokenizer {
    fn name(&self) -> &str {
        &self.name
    }

    fn token_lengths(&self, text: &str, lengths: &mut Vec<u32>) {
        let from = lengths.len();
        lengths.extend(
            self.encode(text)
                .into_iter()
                // Every rank tiktoken returns is in the table; 1 keeps the contract if not.
                .map(|rank| self.token_bytes.get(rank as usize).copied().unwrap_or(1)),
        );
        // A pattern that passed the load's probe and still leaves text unmatched here: one
        // token per byte, never fewer than the bytes could hold.
        if lengths[from..].iter().map(|&n| n as usize).sum::<usize>() != text.len() {
            lengths.truncate(from);
            lengths.extend(std::iter::repeat_n(1, text.len()));
        }
    }

    fn count(&self, text: &str) -> usize {
        let ranks = self.encode(text);
        let matched: usize = ranks
            .iter()
            .map(|&rank| {
                self.token_bytes
                    .get(rank as usize)
                    .map_or(1, |&n| n as usize)
            })
            .sum();
        if matched == text.len() {
            ranks.len()
        } else {
            text.len()
        }
    }

    fn splits_exactly(&self, text: &str, at: usize) -> bool {
        self.exact_splits && openai_splits_exactly(text, at)
    }

    fn max_token_bytes(&self) -> usize {
        self.max_token_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Tekken file with the 256 single bytes and `extra` tokens after them.
    fn file(extra: &[&str], vocab_size: usize, specials: usize) -> String {
        let base64 = base64::engine::general_purpose::STANDARD;
        let tokens: Vec<String> = (0..=255u8)
            .map(|b| vec![b])
            .chain(extra.iter().map(|t| t.as_bytes().to_vec()))
            .enumerate()
            .map(|(rank, bytes)| {
                format!(
                    r#"{{"rank":{rank},"token_bytes":"{}","token_str":null}}"#,
                    base64.encode(bytes)
                )
            })
            .collect();
        format!(
            r#"{{"config":{{"pattern":"\\p{{L}}+|\\s+(?!\\S)|\\s+|[^\\s\\p{{L}}]+","default_vocab_size":{vocab_size},"default_num_special_tokens":{specials},"version":"v3"}},"vocab":[{}]}}"#,
            tokens.join(",")
        )
    }

    #[test]
    fn counts_with_the_kept_ranks_only() {
        let extra = ["ab", "abc", "<s"];
        // 256 + 2 ranks kept: "ab" and "abc", not "<s".
        let json = file(&extra, 258 + 10, 10);
        let tekken = TekkenTokenizer::from_slice(json.as_bytes()).unwrap();
        assert!(tekken.name().starts_with("tekken-v3@"), "{}", tekken.name());
        assert_eq!(tekken.version(), TekkenVersion::V3);
        assert_eq!(tekken.special_tokens(), None);
        assert_eq!(tekken.encode("abc"), vec![257]);
        let mut lengths = Vec::new();
        tekken.token_lengths("abc <s>", &mut lengths);
        // "abc", " ", "<", "s", ">": "<s" is not kept, and "s" is a letter piece of its own.
        assert_eq!(lengths, vec![3, 1, 1, 1, 1]);
        assert_eq!(tekken.max_token_bytes(), 3);
        // All three kept: "<s" still splits, since the pattern puts "<" and "s" apart.
        let all = TekkenTokenizer::from_slice(file(&extra, 259, 0).as_bytes()).unwrap();
        assert_eq!(all.count("abc <s>"), 5);
        assert_ne!(all.name(), tekken.name());
    }

    #[test]
    fn bad_files_name_the_problem() {
        let cases = [
            (file(&[], 100, 300), "less default_num_special_tokens"),
            (file(&[], 300, 0), "less default_num_special_tokens"),
            (file(&[], 256 + 5, 10), "lacks a token for some single byte"),
            (
                file(&[], 256, 0).replace(r#""rank":3,"#, r#""rank":4,"#),
                "entry 3 has rank 4",
            ),
            (file(&["a"], 257, 0), "repeats an earlier token"),
            (
                file(&[], 256, 0).replace("\\\\p{L}+|", "(|"),
                "split pattern",
            ),
            ("{\"vocab\": []}".to_string(), "missing field `config`"),
            // What mistral-common refuses, the version not being one it knows or absent.
            (
                file(&[], 256, 0).replace("\"v3\"", "\"v99\""),
                "\"v99\" is not",
            ),
            (
                file(&[], 256, 0).replace("\"v3\"", "\"banana\""),
                "\"banana\" is not",
            ),
            (
                file(&[], 256, 0).replace(",\"version\":\"v3\"", ""),
                "version is missing",
            ),
            // Found by fuzz/fuzz_targets/tokenizer_file.rs: spaces were not counted.
            (
                file(&[], 256, 0).replace("|\\\\s+(?!\\\\S)|\\\\s+", ""),
                "leaves some text unmatched",
            ),
        ];
        for (json, problem) in cases {
            let err = TekkenTokenizer::from_slice(json.as_bytes()).unwrap_err();
            assert!(err.to_string().contains(problem), "{err} lacks {problem}");
        }
        let err = TekkenTokenizer::from_file("/nonexistent/tekken.json").unwrap_err();
        assert!(
            err.to_string()
                .starts_with("tokenizer file /nonexistent/tekken.json: "),
            "{err}"
        );
    }

    /// Found by fuzz/fuzz_targets/tokenizer_file.rs: a pattern that can match nothing made
    /// tiktoken panic on the empty piece.
    #[test]
    fn a_pattern_that_matches_nothing_somewhere_does_not_panic() {
        // Refused at load: the empty matches skip the probe's characters.
        let at_load = file(&[], 256, 0).replace(r"\\p{L}+|", r"[xy]*|\\p{L}+|");
        let err = TekkenTokenizer::from_slice(at_load.as_bytes()).unwrap_err();
        assert!(
            err.to_string().contains("leaves some text unmatched"),
            "{err}"
        );
        // Only before a character the probe lacks: loads, and counts that text a token a byte.
        let later = file(&[], 256, 0).replace(r"\\p{L}+|", r"(?=\\u{1F9FF})|\\p{L}+|");
        let tekken = TekkenTokenizer::from_slice(later.as_bytes()).unwrap();
        assert_eq!(tekken.count("a xb"), 4);
        assert_eq!(tekken.count("a\u{1F9FF}"), 5);
    }

    /// Text a pattern skips that the load's probe did not catch is counted a token a byte.
    #[test]
    fn text_the_pattern_skips_is_counted_a_token_a_byte() {
        let json = file(&[], 256, 0).replace(
            "\\\\p{L}+|\\\\s+(?!\\\\S)|\\\\s+|[^\\\\s\\\\p{L}]+",
            "[^\\\\u{1F9FF}]+",
        );
        let tekken = TekkenTokenizer::from_slice(json.as_bytes()).unwrap();
        let text = "ab\u{1F9FF}c";
        let mut lengths = Vec::new();
        tekken.token_lengths(text, &mut lengths);
        assert_eq!(lengths, vec![1; text.len()]);
        assert_eq!(tekken.count(text), text.len());
        assert_eq!(tekken.count("abc"), 3);
        // The published pattern matches all of the probe.
        let published = serde_json::to_string(TEKKEN_PATTERN).unwrap();
        let json = file(&[], 256, 0).replace(
            r"\\p{L}+|\\s+(?!\\S)|\\s+|[^\\s\\p{L}]+",
            published.trim_matches('"'),
        );
        assert!(
            TekkenTokenizer::from_slice(json.as_bytes())
                .unwrap()
                .has_exact_splits()
        );
    }
}
