//! Reading a `tokenizer.json` in one pass over the bytes.
//!
//! The `tokenizers` crate (0.23) reads the `model` object through two buffered copies before
//! it builds the model: serde's untagged-enum buffer, then a `serde_json::Value` (a
//! `BTreeMap` of all 128,000 of Llama 3's tokens), and its merges through a third. That was
//! most of the time to load a file. Here a byte-pair model (`"type": "BPE"` first, as the
//! crate writes every file) is read straight into the crate's `BpeBuilder`, with the same
//! options and checks; any other model goes through the crate's own reader. The rest of the
//! file is read as the crate reads it, so the tokenizer is the one `Tokenizer::from_bytes`
//! builds: a test compares the two, serialized, on every file it has. Two malformed shapes are
//! read differently: an unknown top-level key is skipped (the crate fails on it, leaving its
//! value unread), and a key a byte-pair model gives twice is refused (see [`read_bpe`]).

use std::fmt;

use serde::Deserialize;
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use tokenizers::models::bpe::{BpeBuilder, Merges, Vocab};

use super::hf_shape::{AddedToken as AddedTokenFacts, FileFacts, LongestToken, ModelFacts};
use tokenizers::{
    AddedToken, DecoderWrapper, ModelWrapper, NormalizerWrapper, PaddingParams,
    PostProcessorWrapper, PreTokenizerWrapper, Tokenizer, TokenizerBuilder, TruncationParams,
};

/// Reads `json` as `Tokenizer::from_bytes` would, and refuses what it refuses; with it, what
/// the file's shape is worked out from, gathered on the way.
pub(super) fn read_tokenizer(json: &[u8]) -> Result<(Tokenizer, FileFacts), serde_json::Error> {
    // Checked as UTF-8 once, in bulk: read from a `&str`, serde_json does not check each of
    // the file's hundreds of thousands of strings again. Bytes
    // that are not UTF-8 are refused either way; this way, serde_json's reader names where.
    match std::str::from_utf8(json) {
        Ok(text) => serde_json::from_str::<OnePass>(text),
        Err(_) => serde_json::from_slice::<OnePass>(json),
    }
    .map(|one_pass| (one_pass.0, one_pass.1))
}

struct OnePass(Tokenizer, FileFacts);

/// An entry of `added_tokens`: the token and the id the file gives it (which, as in the
/// crate, the tokenizer does not use: the model's own id or the next free one is; the shape
/// reads it).
#[derive(Deserialize)]
struct AddedTokenWithId {
    id: u32,
    #[serde(flatten)]
    token: AddedToken,
}

type Builder = TokenizerBuilder<
    ModelWrapper,
    NormalizerWrapper,
    PreTokenizerWrapper,
    PostProcessorWrapper,
    DecoderWrapper,
>;

impl<'de> Deserialize<'de> for OnePass {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        // As a struct, as the crate asks for it, so a file that is not an object is refused
        // in the same words.
        deserializer.deserialize_struct("Tokenizer", &TOKENIZER_KEYS, TokenizerVisitor)
    }
}

/// The keys of a `tokenizer.json` the crate reads.
const TOKENIZER_KEYS: [&str; 9] = [
    "version",
    "truncation",
    "padding",
    "added_tokens",
    "normalizer",
    "pre_tokenizer",
    "model",
    "decoder",
    "post_processor",
];

struct TokenizerVisitor;

impl<'de> Visitor<'de> for TokenizerVisitor {
    type Value = OnePass;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("struct Tokenizer")
    }

    // The keys and their handling are the crate's `TokenizerVisitor`'s.
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<OnePass, A::Error> {
        let mut builder = Builder::new();
        let mut tokens: Vec<AddedTokenWithId> = Vec::new();
        let mut model = ModelFacts::default();
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "version" => {
                    let version: String = map.next_value()?;
                    if version != "1.0" {
                        return Err(de::Error::custom(format!(
                            "Unknown tokenizer version '{version}'"
                        )));
                    }
                }
                "truncation" => {
                    builder =
                        builder.with_truncation(map.next_value::<Option<TruncationParams>>()?);
                }
                "padding" => {
                    builder = builder.with_padding(map.next_value::<Option<PaddingParams>>()?);
                }
                "added_tokens" => tokens = map.next_value()?,
                "normalizer" => builder = builder.with_normalizer(map.next_value()?),
                "pre_tokenizer" => builder = builder.with_pre_tokenizer(map.next_value()?),
                "model" => {
                    let (wrapper, facts) = map.next_value_seed(ModelSeed)?;
                    builder = builder.with_model(wrapper);
                    model = facts;
                }
                "decoder" => builder = builder.with_decoder(map.next_value()?),
                "post_processor" => builder = builder.with_post_processor(map.next_value()?),
                _ => {
                    map.next_value::<de::IgnoredAny>()?;
                }
            }
        }
        let mut tokenizer = builder.build().map_err(de::Error::custom)?;
        let added_tokens = tokens
            .iter()
            .map(|t| AddedTokenFacts {
                id: t.id,
                content: t.token.content.clone(),
                special: t.token.special,
                lstrip: t.token.lstrip,
                rstrip: t.token.rstrip,
                single_word: t.token.single_word,
            })
            .collect();
        tokenizer
            .add_tokens(tokens.into_iter().map(|t| t.token))
            .map_err(de::Error::custom)?;
        // The two small parts the shape reads as the file writes them: written back from what
        // was built, in the crate's own format.
        let facts = FileFacts {
            normalizer: as_value(tokenizer.get_normalizer())?,
            pre_tokenizer: as_value(tokenizer.get_pre_tokenizer())?,
            added_tokens,
            model,
        };
        Ok(OnePass(tokenizer.into(), facts))
    }
}

/// The `model` object: a byte-pair model whose first key is `"type": "BPE"` is read here;
/// anything else is handed whole to the crate's reader.
struct ModelSeed;

impl<'de> DeserializeSeed<'de> for ModelSeed {
    type Value = (ModelWrapper, ModelFacts);

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for ModelSeed {
    type Value = (ModelWrapper, ModelFacts);

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a tokenizer model")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut rest = Map::new();
        if let Some(key) = map.next_key::<String>()? {
            let value: Value = map.next_value()?;
            if key == "type" && value == "BPE" {
                return read_bpe(map);
            }
            rest.insert(key, value);
        }
        while let Some((key, value)) = map.next_entry::<String, Value>()? {
            // The crate refuses a model that gives its type twice; the map would keep one.
            if key == "type" && rest.contains_key("type") {
                return Err(de::Error::duplicate_field("type"));
            }
            rest.insert(key, value);
        }
        let facts = ModelFacts {
            kind: rest.get("type").and_then(Value::as_str).map(str::to_owned),
            byte_fallback: rest
                .get("byte_fallback")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            vocab: match rest.get("vocab") {
                Some(Value::Object(vocab)) => LongestToken::of(vocab.keys().map(String::as_str)),
                Some(Value::Array(_)) => LongestToken::UNBOUNDED,
                _ => LongestToken::default(),
            },
        };
        let wrapper = ModelWrapper::deserialize(Value::Object(rest)).map_err(de::Error::custom)?;
        Ok((wrapper, facts))
    }
}

/// Reads the value of an optional setting of the model and gives it to the builder through
/// `set`; a `null` leaves the crate's default, as the crate's reader does.
fn optional<'de, A: MapAccess<'de>, T: Deserialize<'de>>(
    map: &mut A,
    builder: BpeBuilder,
    set: impl FnOnce(BpeBuilder, T) -> BpeBuilder,
) -> Result<BpeBuilder, A::Error> {
    Ok(match map.next_value::<Option<T>>()? {
        Some(value) => set(builder, value),
        None => builder,
    })
}

/// The rest of a byte-pair model, as the crate's `BPEVisitor` reads it.
///
/// One difference, a refusal of a file the crate would take: a key of the model's own given
/// twice is refused by name (the crate buffers the model and keeps the last value, so an
/// earlier one, even a malformed one, is dropped silently). A repeated `type` is refused, as
/// the crate refuses it.
fn read_bpe<'de, A: MapAccess<'de>>(mut map: A) -> Result<(ModelWrapper, ModelFacts), A::Error> {
    let mut builder = BpeBuilder::new();
    let mut vocab: Option<Vocab> = None;
    let mut merges: Option<Merges> = None;
    let mut seen: Vec<String> = Vec::new();
    let mut byte_fallback = false;
    while let Some(key) = map.next_key::<String>()? {
        if seen.contains(&key) {
            return Err(de::Error::custom(format_args!(
                "the model gives `{key}` twice"
            )));
        }
        match key.as_str() {
            "dropout" => builder = optional(&mut map, builder, BpeBuilder::dropout)?,
            "unk_token" => builder = optional(&mut map, builder, BpeBuilder::unk_token)?,
            "continuing_subword_prefix" => {
                builder = optional(&mut map, builder, BpeBuilder::continuing_subword_prefix)?;
            }
            "end_of_word_suffix" => {
                builder = optional(&mut map, builder, BpeBuilder::end_of_word_suffix)?;
            }
            "fuse_unk" => builder = optional(&mut map, builder, BpeBuilder::fuse_unk)?,
            "byte_fallback" => {
                builder = optional(&mut map, builder, |builder, fallback| {
                    byte_fallback = fallback;
                    builder.byte_fallback(fallback)
                })?;
            }
            "ignore_merges" => builder = optional(&mut map, builder, BpeBuilder::ignore_merges)?,
            "vocab" => vocab = Some(map.next_value()?),
            "merges" => merges = Some(map.next_value_seed(MergesSeed)?),
            "type" => return Err(de::Error::duplicate_field("type")),
            // Read, not skipped: the crate refuses what it cannot buffer (a lone surrogate, a
            // number out of range, too deep a nesting), and so must this.
            _ => {
                map.next_value::<Value>()?;
                continue;
            }
        }
        seen.push(key);
    }
    let (Some(vocab), Some(merges)) = (vocab, merges) else {
        return Err(de::Error::custom("Missing vocab/merges"));
    };
    let facts = ModelFacts {
        kind: Some("BPE".to_owned()),
        byte_fallback,
        vocab: LongestToken::of(vocab.keys().map(String::as_str)),
    };
    let bpe = builder
        .vocab_and_merges(vocab, merges)
        .build()
        .map_err(de::Error::custom)?;
    Ok((ModelWrapper::BPE(bpe), facts))
}

/// `part` of the built tokenizer, written back as the file writes it.
fn as_value<T: serde::Serialize, E: de::Error>(part: Option<&T>) -> Result<Option<Value>, E> {
    part.map(serde_json::to_value)
        .transpose()
        .map_err(de::Error::custom)
}

/// `merges`, in either form the crate takes: pairs `["a", "b"]`, or the older strings `"a b"`
/// (skipping `#version` lines, and refusing a string that is not two parts).
struct MergesSeed;

impl<'de> DeserializeSeed<'de> for MergesSeed {
    type Value = Merges;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Merges, D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for MergesSeed {
    type Value = Merges;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of merges")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Merges, A::Error> {
        let mut merges = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        let mut form = None;
        while let Some(merge) = seq.next_element::<Merge>()? {
            // The crate reads either all pairs or all strings.
            let this_form = matches!(merge, Merge::Pair(..));
            // (A `#version` line counts as a string.)
            if *form.get_or_insert(this_form) != this_form {
                return Err(de::Error::custom(
                    "data did not match any variant of untagged enum MergeType",
                ));
            }
            match merge {
                Merge::Pair(a, b) | Merge::Line(Some((a, b))) => merges.push((a, b)),
                Merge::Version => {}
                Merge::Line(None) => {
                    return Err(de::Error::custom(format!(
                        "Merges text file invalid at line {}",
                        merges.len() + 1
                    )));
                }
            }
        }
        Ok(merges)
    }
}

/// One entry of `merges`, read without buffering it first.
enum Merge {
    /// `["a", "b"]`.
    Pair(String, String),
    /// `"a b"`, split where it is read (no copy of the whole string); `None` if it is not two
    /// parts.
    Line(Option<(String, String)>),
    /// A `#version` line, which the crate skips.
    Version,
}

impl<'de> Deserialize<'de> for Merge {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(MergeVisitor)
    }
}

struct MergeVisitor;

impl<'de> Visitor<'de> for MergeVisitor {
    type Value = Merge;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a merge: two strings, or one string of two parts")
    }

    fn visit_str<E: de::Error>(self, line: &str) -> Result<Merge, E> {
        if line.starts_with("#version") {
            return Ok(Merge::Version);
        }
        Ok(Merge::Line(match line.split_once(' ') {
            Some((a, b)) if !b.contains(' ') => Some((a.to_owned(), b.to_owned())),
            _ => None,
        }))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Merge, A::Error> {
        let pair = (seq.next_element::<String>()?, seq.next_element::<String>()?);
        let (Some(a), Some(b)) = pair else {
            return Err(de::Error::invalid_length(
                usize::from(pair.0.is_some()),
                &self,
            ));
        };
        if seq.next_element::<de::IgnoredAny>()?.is_some() {
            return Err(de::Error::invalid_length(3, &self));
        }
        Ok(Merge::Pair(a, b))
    }
}

#[cfg(test)]
mod tests;
