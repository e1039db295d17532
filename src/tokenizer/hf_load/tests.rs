//! The one-pass reader against the crate's own, file by file.

use super::*;

/// The tokenizer serialized: the crate writes every setting, the vocabulary by id and the
/// merges by rank, so two equal strings are two equal tokenizers.
fn written(json: &[u8]) -> Result<String, String> {
    let (ours, _) = read_tokenizer(json).map_err(|e| e.to_string())?;
    Ok(ours
        .to_string(false)
        .expect("a loaded tokenizer serializes"))
}

fn reference(json: &[u8]) -> Result<String, String> {
    let theirs = Tokenizer::from_bytes(json).map_err(|e| e.to_string())?;
    Ok(theirs
        .to_string(false)
        .expect("a loaded tokenizer serializes"))
}

/// A whole file around `model` (written by hand: the order of keys matters here).
fn tokenizer(model: &str) -> Vec<u8> {
    format!(
        r#"{{"version": "1.0",
        "truncation": {{"direction": "Right", "max_length": 8, "strategy": "LongestFirst", "stride": 0}},
        "padding": {{"strategy": "BatchLongest", "direction": "Right", "pad_to_multiple_of": null,
            "pad_id": 5, "pad_type_id": 0, "pad_token": "<unk>"}},
        "added_tokens": [
            {{"id": 9, "content": "<s>", "single_word": false, "lstrip": false, "rstrip": false, "normalized": false, "special": true}},
            {{"id": 10, "content": "ab", "single_word": true, "lstrip": false, "rstrip": true, "normalized": true, "special": false}}
        ],
        "normalizer": {{"type": "NFC"}},
        "pre_tokenizer": {{"type": "ByteLevel", "add_prefix_space": false, "trim_offsets": true, "use_regex": true}},
        "post_processor": {{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": false, "use_regex": true}},
        "decoder": {{"type": "ByteLevel", "add_prefix_space": true, "trim_offsets": true, "use_regex": true}},
        "model": {model}}}"#
    )
    .into_bytes()
}

const VOCAB: &str =
    r###""vocab": {"a": 0, "b": 1, "c": 2, "ab": 3, "abc": 4, "<unk>": 5, "##b": 6}"###;

#[test]
fn every_kind_of_model_reads_as_the_crate_reads_it() {
    let models = [
        // Pairs, and the older "a b" strings with a version line.
        format!(r#"{{"type": "BPE", {VOCAB}, "merges": [["a", "b"], ["ab", "c"]]}}"#),
        format!(r##"{{"type": "BPE", {VOCAB}, "merges": ["#version: 0.2", "a b", "ab c"]}}"##),
        // Every option set, and a key the crate does not know.
        format!(
            r###"{{"type": "BPE", "dropout": 0.25, "unk_token": "<unk>", "continuing_subword_prefix": "##",
            "end_of_word_suffix": "</w>", "fuse_unk": true, "byte_fallback": true, "ignore_merges": true,
            {VOCAB}, "merges": [["a", "##b"]], "extra": {{"x": [1]}}}}"###
        ),
        // Options given as null are left at their defaults.
        format!(r#"{{"type": "BPE", "dropout": null, "unk_token": null, "fuse_unk": null, {VOCAB}, "merges": []}}"#),
        // "type" not first, no "type" at all, and models that are not byte-pair ones.
        format!(r#"{{{VOCAB}, "type": "BPE", "merges": [["a", "b"]]}}"#),
        format!(r#"{{{VOCAB}, "merges": [["a", "b"]]}}"#),
        format!(r#"{{"type": "WordLevel", {VOCAB}, "unk_token": "<unk>"}}"#),
        format!(
            r###"{{"type": "WordPiece", {VOCAB}, "unk_token": "<unk>", "continuing_subword_prefix": "##",
            "max_input_chars_per_word": 100}}"###
        ),
        r#"{"type": "Unigram", "unk_id": 0, "vocab": [["<unk>", 0.0], ["a", -1.0]], "byte_fallback": false}"#
            .to_owned(),
    ];
    for model in models {
        let json = tokenizer(&model);
        let expected =
            reference(&json).unwrap_or_else(|e| panic!("the crate refuses {model}: {e}"));
        assert_eq!(written(&json), Ok(expected), "{model}");
    }
}

#[test]
fn what_the_crate_refuses_is_refused() {
    let models = [
        format!(r#"{{"type": "BPE", {VOCAB}, "merges": ["a b c"]}}"#),
        format!(r#"{{"type": "BPE", {VOCAB}, "merges": ["ab"]}}"#),
        format!(r#"{{"type": "BPE", {VOCAB}, "merges": [["a", "z"]]}}"#),
        format!(r#"{{"type": "BPE", {VOCAB}, "merges": [["a", "b"], "ab c"]}}"#),
        format!(r#"{{"type": "BPE", {VOCAB}, "merges": ["a b", ["ab", "c"]]}}"#),
        format!(r#"{{"type": "BPE", {VOCAB}, "merges": [["a", "b", "c"]]}}"#),
        format!(r#"{{"type": "BPE", {VOCAB}, "merges": [["a"]]}}"#),
        format!(r#"{{"type": "BPE", {VOCAB}, "merges": [7]}}"#),
        format!(r#"{{"type": "BPE", {VOCAB}}}"#),
        r#"{"type": "BPE", "merges": []}"#.to_owned(),
        format!(r#"{{"type": "BPE", "dropout": 1.5, {VOCAB}, "merges": []}}"#),
        format!(r#"{{"type": "BPE", "type": "WordLevel", {VOCAB}, "merges": []}}"#),
        r#"{"type": "BPE", "vocab": {"a": -1}, "merges": []}"#.to_owned(),
        format!(r#"{{"type": "Nope", {VOCAB}, "merges": []}}"#),
        r#""BPE""#.to_owned(),
    ];
    let deep = format!("{}{}", "[".repeat(130), "]".repeat(130));
    let models = models.into_iter().chain([
        // `type` twice, where it is read first and where it is not.
        format!(r#"{{"type": "BPE", {VOCAB}, "merges": [["a", "b"]], "type": "BPE"}}"#),
        format!(r#"{{{VOCAB}, "type": "BPE", "merges": [["a", "b"]], "type": "BPE"}}"#),
        // An unknown key holding what the crate cannot buffer.
        format!(r#"{{"type": "BPE", {VOCAB}, "merges": [], "extra": "\ud800"}}"#),
        format!(r#"{{"type": "BPE", {VOCAB}, "merges": [], "extra": 1e400}}"#),
        format!(r#"{{"type": "BPE", {VOCAB}, "merges": [], "extra": {deep}}}"#),
    ]);
    for model in models {
        let json = tokenizer(&model);
        assert!(reference(&json).is_err(), "the crate takes {model}");
        assert!(written(&json).is_err(), "{model} is taken");
    }
    // Invalid UTF-8 inside an unknown key's string.
    let mut json = tokenizer(&format!(
        r#"{{"type": "BPE", {VOCAB}, "merges": [], "extra": "ab"}}"#
    ));
    let at = json
        .windows(4)
        .position(|w| w == b"\"ab\"")
        .expect("the fixture has it");
    json[at + 1] = 0xff;
    assert!(reference(&json).is_err() && written(&json).is_err());
    // A key of the model's own given twice: the crate keeps the last; this refuses it by name.
    for (model, key) in [
        (
            format!(r#"{{"type": "BPE", {VOCAB}, "merges": [], "dropout": 0.5, "dropout": null}}"#),
            "dropout",
        ),
        (
            format!(
                r#"{{"type": "BPE", {VOCAB}, "merges": [], "unk_token": "<unk>", "unk_token": null}}"#
            ),
            "unk_token",
        ),
        (
            format!(r#"{{"type": "BPE", {VOCAB}, "merges": [], "merges": [["a", "b"]]}}"#),
            "merges",
        ),
        (
            format!(r#"{{"type": "BPE", "vocab": {{}}, {VOCAB}, "merges": []}}"#),
            "vocab",
        ),
    ] {
        let json = tokenizer(&model);
        assert!(reference(&json).is_ok(), "the crate refuses {model}");
        let message = written(&json).unwrap_err();
        assert!(
            message.contains(&format!("the model gives `{key}` twice")),
            "{message}"
        );
    }
    // An unknown key given twice is taken, as the crate takes it.
    let json = tokenizer(&format!(
        r#"{{"type": "BPE", {VOCAB}, "merges": [], "x": 1, "x": 2}}"#
    ));
    assert_eq!(written(&json), reference(&json));
    // A line of three parts is refused even where its last two would make a token.
    let three = tokenizer(
        r#"{"type": "BPE", "vocab": {"a": 0, "b c": 1, "ab c": 2}, "merges": ["a b c"]}"#,
    );
    assert!(reference(&three).is_err());
    assert!(
        written(&three)
            .unwrap_err()
            .contains("Merges text file invalid at line 1")
    );
    let not_a_list = tokenizer(&format!(r#"{{"type": "BPE", {VOCAB}, "merges": 5}}"#));
    assert!(
        written(&not_a_list)
            .unwrap_err()
            .contains("expected a list of merges")
    );
    // Where the crate's reader is not used, the errors say what was expected, in our words.
    let not_a_merge = tokenizer(&format!(r#"{{"type": "BPE", {VOCAB}, "merges": [7]}}"#));
    let message = written(&not_a_merge).unwrap_err();
    assert!(
        message.contains("expected a merge: two strings, or one string of two parts"),
        "{message}"
    );
    let message = written(&tokenizer(r#""BPE""#)).unwrap_err();
    assert!(message.contains("expected a tokenizer model"), "{message}");
    // Not an object at all: the crate's own words.
    assert_eq!(written(b"[]").unwrap_err(), reference(b"[]").unwrap_err());
    // Bytes that are not UTF-8, inside a string: refused where they are, in the same words.
    let not_utf8 = b"{\"version\": \"1.\xff\"}";
    assert!(written(not_utf8).unwrap_err().contains("line 1 column"));
    assert_eq!(
        written(not_utf8).unwrap_err(),
        reference(not_utf8).unwrap_err()
    );
    let newer = String::from_utf8(tokenizer(&format!(
        r#"{{"type": "BPE", {VOCAB}, "merges": []}}"#
    )))
    .expect("the file is text")
    .replace("\"1.0\"", "\"2.0\"");
    assert_eq!(
        written(newer.as_bytes()).unwrap_err(),
        reference(newer.as_bytes()).unwrap_err()
    );
}

/// The real files (`.ci/tokenizer-data` fetches them; `.ci/run` runs this).
#[test]
#[ignore = "needs MENTOR_TOKENIZER_DATA, the folder .ci/tokenizer-data fills"]
fn the_model_files_read_as_the_crate_reads_them() {
    let folder = std::env::var("MENTOR_TOKENIZER_DATA")
        .expect("MENTOR_TOKENIZER_DATA names the folder .ci/tokenizer-data fills");
    for model in ["llama3", "qwen3", "deepseek_v3", "gemma3"] {
        let path = format!("{folder}/{model}/tokenizer.json");
        let json = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        assert!(
            written(&json) == reference(&json),
            "{path} reads differently"
        );
    }
}
