//! What a `tokenizer.json` file's shape allows: which family it is, whether splits can be
//! exact, the longest token, and how to turn the `tokenizers` crate's tokens into byte lengths.

use serde_json::Value;
use tokenizers::Encoding;
use unicode_normalization::{IsNormalized, is_nfc_quick};

/// cl100k_base's split pattern, which Llama 3 (and 3.1 to 3.3) uses unchanged.
const CL100K_PATTERN: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

/// Qwen 2 to 3's: cl100k's with single digits.
const QWEN_PATTERN: &str = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+";

/// DeepSeek V3's three splits, applied one after the other.
const DEEPSEEK_V3_PATTERNS: [&str; 3] = [
    r"\p{N}{1,3}",
    "[\u{4e00}-\u{9fa5}\u{3040}-\u{309f}\u{30a0}-\u{30ff}]+",
    "[!\"#$%&'()*+,\\-./:;<=>?@\\[\\\\\\]^_`{|}~][A-Za-z]+|[^\r\n\\p{L}\\p{P}\\p{S}]?[\\p{L}\\p{M}]+| ?[\\p{P}\\p{S}]+[\r\n]*|\\s*[\r\n]+|\\s+(?!\\S)|\\s+",
];

/// How the assembler may split text for this tokenizer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum SplitRule {
    /// At [`openai_splits_exactly`](super::openai_splits_exactly)'s positions: the file's
    /// pre-tokenizer keeps every piece whole there, and nothing rewrites the text first.
    OpenAi,
    /// At those positions where the character after is NFC-stable
    /// ([`nfc_splits_at`](super::nfc::nfc_splits_at)): the same pre-tokenizer, after an NFC
    /// normalizer that then changes neither side across the split (Qwen 3).
    OpenAiNfc,
    /// Nowhere: the assembler recounts the whole text.
    Recount,
}

/// What the counting needs to know about a file, read once when it is loaded.
pub(super) struct Shape {
    /// `llama3`, `qwen`, `deepseek-v3`, `gemma` or `huggingface` (anything else).
    pub(super) family: &'static str,
    pub(super) split_rule: SplitRule,
    pub(super) max_token_bytes: usize,
    /// Byte-level BPE: every character of a token's string stands for one byte.
    byte_level: bool,
    /// SentencePiece-style byte fallback: `<0xNN>` tokens stand for one byte.
    byte_fallback: bool,
    /// The normalizer is NFC alone: text not in NFC is placed by the tokens' offsets.
    nfc: bool,
    /// Ids of added tokens (matched in text whole, so their offsets are exact).
    added: Vec<u32>,
}

/// What the shape is worked out from: the parts of `tokenizer.json` it needs, gathered by the
/// one-pass reader (`hf_load`) as it reads the file, so the file is read once.
pub(super) struct FileFacts {
    /// The normalizer and the pre-tokenizer, as the file writes them.
    pub(super) normalizer: Option<Value>,
    pub(super) pre_tokenizer: Option<Value>,
    pub(super) added_tokens: Vec<AddedToken>,
    pub(super) model: ModelFacts,
}

/// An entry of the file's `added_tokens`.
pub(super) struct AddedToken {
    pub(super) id: u32,
    pub(super) content: String,
    pub(super) special: bool,
    pub(super) lstrip: bool,
    pub(super) rstrip: bool,
    pub(super) single_word: bool,
}

/// The model's `type` (if given), its `byte_fallback`, and its longest token.
#[derive(Default)]
pub(super) struct ModelFacts {
    pub(super) kind: Option<String>,
    pub(super) byte_fallback: bool,
    pub(super) vocab: LongestToken,
}

/// The most characters, and the most bytes, of any token string of the vocabulary.
#[derive(Default)]
pub(super) struct LongestToken {
    chars: usize,
    bytes: usize,
}

impl LongestToken {
    /// No bound: for a vocabulary given as a list (Unigram), from which none is read.
    pub(super) const UNBOUNDED: LongestToken = LongestToken {
        chars: usize::MAX,
        bytes: usize::MAX,
    };

    /// The longest of `tokens`.
    pub(super) fn of<'a>(tokens: impl IntoIterator<Item = &'a str>) -> LongestToken {
        tokens
            .into_iter()
            .fold(LongestToken::default(), |longest, token| LongestToken {
                chars: longest.chars.max(token.chars().count()),
                bytes: longest.bytes.max(token.len()),
            })
    }
}

/// The pre-tokenizers of `value`, a single one or a `Sequence`, in order.
fn pre_tokenizers(value: Option<&Value>) -> Vec<&Value> {
    match value {
        None | Some(Value::Null) => Vec::new(),
        Some(v) if v["type"] == "Sequence" => v["pretokenizers"]
            .as_array()
            .map(|a| a.iter().collect())
            .unwrap_or_default(),
        Some(v) => vec![v],
    }
}

/// Whether the normalizer is NFC alone (alone in a `Sequence` too).
fn only_nfc(value: Option<&Value>) -> bool {
    match value {
        Some(v) if v["type"] == "Sequence" => v["normalizers"]
            .as_array()
            .is_some_and(|n| n.len() == 1 && n[0]["type"] == "NFC"),
        Some(v) => v["type"] == "NFC",
        None => false,
    }
}

/// Whether the normalizer leaves text as it is.
fn no_normalizer(value: Option<&Value>) -> bool {
    match value {
        None | Some(Value::Null) => true,
        Some(v) => {
            v["type"] == "Sequence" && v["normalizers"].as_array().is_some_and(Vec::is_empty)
        }
    }
}

impl Shape {
    /// The shape of the file `file` was gathered from.
    pub(super) fn new(file: &FileFacts) -> Shape {
        let pre = pre_tokenizers(file.pre_tokenizer.as_ref());
        let regexes: Vec<&str> = pre
            .iter()
            .filter(|p| p["type"] == "Split" && p["behavior"] == "Isolated" && p["invert"] == false)
            .filter_map(|p| p["pattern"]["Regex"].as_str())
            .collect();
        // A byte-level step that splits nothing more (its own regex is GPT-2's).
        let byte_level = pre
            .iter()
            .any(|p| p["type"] == "ByteLevel" && p["use_regex"] == false);
        let only_splits_and_bytes = pre.len() == regexes.len() + 1 && byte_level;
        let family = if only_splits_and_bytes && regexes == [CL100K_PATTERN] {
            "llama3"
        } else if only_splits_and_bytes && regexes == DEEPSEEK_V3_PATTERNS {
            "deepseek-v3"
        } else if only_splits_and_bytes && regexes == [QWEN_PATTERN] {
            "qwen"
        } else if file.model.byte_fallback
            && file.normalizer.as_ref().is_some_and(|n| {
                n["type"] == "Replace"
                    && n["pattern"]["String"] == " "
                    && n["content"] == "\u{2581}"
            })
        {
            "gemma"
        } else {
            "huggingface"
        };
        // Added tokens matched in text cut the text before the pre-tokenizer sees it: one with
        // whitespace in it, or that strips whitespace around it, could span a split position.
        let added_keep_splits = file.added_tokens.iter().filter(|t| !t.special).all(|t| {
            !(t.lstrip || t.rstrip || t.single_word || t.content.contains(char::is_whitespace))
        });
        // The three families' patterns keep pieces whole at OpenAI's positions (Qwen's is
        // cl100k's with single digits); an NFC normalizer before them is allowed for where it
        // changes nothing across a split.
        let pieces_kept = matches!(family, "llama3" | "deepseek-v3" | "qwen")
            && file.model.kind.as_deref() == Some("BPE")
            && added_keep_splits;
        let nfc = only_nfc(file.normalizer.as_ref());
        let split_rule = if pieces_kept && no_normalizer(file.normalizer.as_ref()) {
            SplitRule::OpenAi
        } else if pieces_kept && nfc {
            SplitRule::OpenAiNfc
        } else {
            SplitRule::Recount
        };
        let mut added: Vec<u32> = file.added_tokens.iter().map(|t| t.id).collect();
        added.sort_unstable();
        // Without a normalizer, a byte-level token spans as many bytes of the text as its
        // string has characters. Gemma's normalizer only turns a space (1 byte) into `▁` (3),
        // so a token spans at most the bytes of its string (a byte-fallback `<0xNN>`, 6 bytes,
        // spans 1). Other normalizers can make a token stand for more of the text (NFC
        // composes three jamo into one syllable), so no bound is claimed then.
        let added_bytes = file.added_tokens.iter().map(|t| t.content.len());
        let vocab = &file.model.vocab;
        let max_token_bytes = if byte_level && no_normalizer(file.normalizer.as_ref()) {
            added_bytes.fold(vocab.chars.max(1), usize::max)
        } else if family == "gemma" {
            added_bytes.fold(vocab.bytes.max(1), usize::max)
        } else {
            usize::MAX
        };
        Shape {
            family,
            split_rule,
            max_token_bytes,
            byte_level,
            byte_fallback: file.model.byte_fallback,
            nfc,
            added,
        }
    }

    /// The bytes of the text token `i` stands for, by its string alone; `0` when unknown.
    fn natural_len(&self, encoding: &Encoding, i: usize) -> usize {
        let (start, end) = encoding.get_offsets()[i];
        let token = &encoding.get_tokens()[i];
        if self.added.binary_search(&encoding.get_ids()[i]).is_ok() {
            end - start
        } else if self.byte_level {
            token.chars().count()
        } else if self.byte_fallback
            && token.len() == 6
            && token.starts_with("<0x")
            && token.ends_with('>')
        {
            1
        } else {
            // SentencePiece style: `▁` stands for the space the normalizer replaced.
            token
                .chars()
                .map(|c| if c == '\u{2581}' { 1 } else { c.len_utf8() })
                .sum()
        }
    }

    /// Appends the byte length of each token of `encoding` (of `text`) to `lengths`.
    ///
    /// Each token's string says how many bytes it stands for; when those add up to the text
    /// (always, without a normalizer), they are exact. When a normalizer changed the text's
    /// length (a literal `▁` for Gemma), the tokens' offsets into the text place them instead:
    /// exact where a token ends on a character boundary, and a guess inside a character split
    /// between tokens. The lengths add up to the text either way, and each is at least 1
    /// unless the text has more tokens than bytes; the extra tokens then have length 0.
    ///
    /// Under NFC, text that is not in NFC is placed by the offsets always
    /// ([`Shape::nfc_lengths`]): by the strings alone, a character NFC shrinks and one it grows
    /// can add up to the text with every token in between misplaced.
    pub(super) fn lengths(&self, text: &str, encoding: &Encoding, lengths: &mut Vec<u32>) {
        if self.nfc && is_nfc_quick(text.chars()) != IsNormalized::Yes {
            self.nfc_lengths(text, encoding, lengths);
            return;
        }
        let n = encoding.len();
        let first = lengths.len();
        let mut sum = 0;
        for i in 0..n {
            let len = self.natural_len(encoding, i);
            sum += len;
            lengths.push(u32::try_from(len).unwrap_or(u32::MAX));
        }
        if sum == text.len() && lengths[first..].iter().all(|&l| l > 0) {
            return;
        }
        lengths.truncate(first);
        let offsets = encoding.get_offsets();
        let mut pos = 0;
        for i in 0..n {
            let left = n - i - 1;
            let end = if left == 0 {
                text.len()
            } else {
                let (_, end) = offsets[i];
                let next = offsets[i + 1].0;
                let want = if next >= end {
                    next
                } else {
                    pos + self.natural_len(encoding, i)
                };
                // Leave a byte for each token after this one, where the text has them.
                let most = text.len().saturating_sub(left).max(pos);
                want.clamp((pos + 1).min(most), most)
            };
            lengths.push(u32::try_from(end - pos).unwrap_or(u32::MAX));
            pos = end;
        }
    }

    /// [`lengths`](Shape::lengths) of text an NFC normalizer changed, placed by the tokens'
    /// offsets (into `text`).
    ///
    /// A token that starts at or after the end of the one before it starts exactly where its
    /// offset says: at the first byte of the character it begins with. The tokens between two
    /// such starts share that stretch of bytes, each its string's length as far as the
    /// stretch has bytes, at least one while it has. Where NFC made more tokens than bytes
    /// (Qwen 3 counts U+0F76, 3 bytes, as 6 tokens), the last tokens of the stretch get 0, so
    /// every token ends at or before the start of the next stretch. An exact split is such a
    /// start (NFC changes nothing across it, and a piece starts there), so the tokens before
    /// it add up to it exactly; the meter counts the tokens of length 0 with the position
    /// where they end.
    fn nfc_lengths(&self, text: &str, encoding: &Encoding, lengths: &mut Vec<u32>) {
        let offsets = encoding.get_offsets();
        let n = encoding.len();
        let (mut first, mut pos) = (0, 0);
        for i in 0..n {
            let end = if i + 1 == n {
                text.len()
            } else {
                let next = offsets[i + 1].0;
                let starts_after = next >= offsets[i].1 && next >= pos;
                if !(starts_after && text.is_char_boundary(next)) {
                    continue;
                }
                next
            };
            let mut left = end - pos;
            for k in first..=i {
                let after = i - k;
                let len = if after == 0 {
                    left
                } else {
                    // Leave a byte for each token after this one, as far as there are bytes.
                    let least = left.min(1);
                    let most = left.saturating_sub(after).max(least);
                    self.natural_len(encoding, k).clamp(least, most)
                };
                lengths.push(u32::try_from(len).unwrap_or(u32::MAX));
                left -= len;
            }
            (first, pos) = (i + 1, end);
        }
    }
}
