//! `Settings`: every option read under its one name, reaching the assembler it builds; the
//! rules between options, each naming the option as the caller spells it; values refused in
//! the same words whatever the format.

use mentor_context::dialects::Dialect;
use mentor_context::prompt::ContextPlacement;
use mentor_context::settings::{Settings, Spelling};
use mentor_context::{Duplicates, ErrorKind, Order, Overflow};
use serde_json::{Value, json};

const TEKKEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fixtures/tokenizers/tekken-tiny.json"
);

/// A file holding `contents`, removed when dropped.
struct TempFile(std::path::PathBuf);

impl TempFile {
    fn new(name: &str, contents: &[u8]) -> TempFile {
        let path =
            std::env::temp_dir().join(format!("mentor-settings-{}-{name}", std::process::id()));
        std::fs::write(&path, contents).unwrap();
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn read(value: &Value) -> Settings {
    Settings::deserialize_spelled(value, Spelling::Snake)
        .unwrap_or_else(|err| panic!("{value}: {err}"))
}

/// Each setting, with the settings it needs beside it and what it changes. The table must
/// name every setting, in order: a setting added without a case here fails the test.
#[test]
fn every_setting_is_read_under_its_name_and_reaches_what_it_sets() {
    let key = TempFile::new("key", b"sixteen bytes or more, a key\n");
    let key_path = key.0.to_str().unwrap();
    type Check = Box<dyn Fn(&Settings)>;
    let context = |value: Value, check: fn(&mentor_context::Assembler)| -> (Value, Check) {
        (
            value,
            Box::new(move |s: &Settings| check(&s.assembler().unwrap())),
        )
    };
    let prompt =
        |value: Value, check: fn(&mentor_context::prompt::PromptAssembler)| -> (Value, Check) {
            (
                value,
                Box::new(move |s: &Settings| check(&s.prompt_assembler().unwrap())),
            )
        };
    let harmony = |extra: Value| {
        let mut base = json!({"window": 8192, "chat_template": "harmony"});
        base.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        base
    };
    let cases: Vec<(&str, (Value, Check))> = vec![
        (
            "budget",
            context(json!({"budget": 777}), |a| assert_eq!(a.budget(), 777)),
        ),
        (
            "encoding",
            context(json!({"budget": 99, "encoding": "cl100k_base"}), |a| {
                assert_eq!(a.tokenizer_name(), "cl100k_base");
            }),
        ),
        (
            "model",
            context(json!({"budget": 99, "model": "gpt-4"}), |a| {
                assert_eq!(a.tokenizer_name(), "cl100k_base");
            }),
        ),
        (
            "reserve_output",
            context(json!({"model": "gpt-4", "reserve_output": 1000}), |a| {
                assert_eq!(a.budget(), 8192 - 1000);
            }),
        ),
        (
            "prompt_tokens",
            context(json!({"model": "gpt-4", "prompt_tokens": 192}), |a| {
                assert_eq!(a.budget(), 8192 - 192);
                assert_eq!(a.window().unwrap().prompt_tokens, 192);
            }),
        ),
        (
            "engine",
            (
                json!({"budget": 99, "encoding": "p50k_base", "engine": "bpe-openai"}),
                Box::new(|s: &Settings| {
                    let err = s.assembler().unwrap_err();
                    assert_eq!(err.kind(), ErrorKind::EngineLacksEncoding);
                    assert!(
                        err.to_string()
                            .starts_with("engine: the bpe-openai engine has no p50k_base"),
                        "{err}"
                    );
                }),
            ),
        ),
        (
            "tokenizer_file",
            context(json!({"budget": 99, "tokenizer_file": TEKKEN}), |a| {
                assert!(
                    a.tokenizer_name().starts_with("tekken-v3@"),
                    "{}",
                    a.tokenizer_name()
                );
            }),
        ),
        (
            "tokenizer_kind",
            (
                json!({"budget": 99, "tokenizer_file": TEKKEN, "tokenizer_kind": "huggingface"}),
                Box::new(|s: &Settings| {
                    let err = s.assembler().unwrap_err();
                    assert_eq!(err.kind(), ErrorKind::TokenizerFile, "{err}");
                    assert!(
                        err.to_string()
                            .starts_with("tokenizer_file: tokenizer file "),
                        "{err}"
                    );
                }),
            ),
        ),
        (
            "format",
            context(json!({"budget": 99, "format": "XML"}), |a| {
                assert_eq!(a.format().name(), "xml");
            }),
        ),
        (
            "dialect",
            context(json!({"budget": 99, "dialect": "cohere"}), |a| {
                assert_eq!(a.dialect(), Some(Dialect::Cohere));
            }),
        ),
        (
            "header",
            context(json!({"budget": 99, "header": "Cite as [n]. "}), |a| {
                assert_eq!(a.header(), "Cite as [n].\n");
            }),
        ),
        (
            "hide_metadata_keys",
            context(
                json!({"budget": 99, "hide_metadata_keys": ["a", "b"]}),
                |a| assert_eq!(a.hidden_metadata_keys(), ["a", "b"]),
            ),
        ),
        (
            "max_head_tokens",
            context(json!({"budget": 99, "max_head_tokens": 40}), |a| {
                assert_eq!(a.max_head_tokens(), Some(40));
            }),
        ),
        (
            "overflow",
            context(json!({"budget": 99, "overflow": "skip"}), |a| {
                assert_eq!(a.overflow(), Overflow::Skip);
            }),
        ),
        (
            "duplicates",
            context(json!({"budget": 99, "duplicates": "keep"}), |a| {
                assert_eq!(a.duplicates(), Duplicates::Keep);
            }),
        ),
        (
            "order",
            context(json!({"budget": 99, "order": "as-given"}), |a| {
                assert_eq!(a.order(), Order::AsGiven);
            }),
        ),
        (
            "min_score",
            context(json!({"budget": 99, "min_score": 0.5}), |a| {
                assert_eq!(a.min_score(), Some(0.5));
            }),
        ),
        (
            "max_blocks",
            context(json!({"budget": 99, "max_blocks": 3}), |a| {
                assert_eq!(a.max_blocks(), Some(3));
            }),
        ),
        (
            "max_per_source",
            context(json!({"budget": 99, "max_per_source": 2}), |a| {
                assert_eq!(a.max_per_source(), Some(2));
            }),
        ),
        (
            "min_truncated_tokens",
            context(json!({"budget": 99, "min_truncated_tokens": 10}), |a| {
                assert_eq!(a.min_truncated_tokens(), 10);
            }),
        ),
        (
            "cache_bytes",
            context(json!({"budget": 99, "cache_bytes": 1_048_576}), |a| {
                assert!(a.cache().is_some());
            }),
        ),
        (
            "seal_key_file",
            context(json!({"budget": 99, "seal_key_file": key_path}), |a| {
                assert!(a.seals());
            }),
        ),
        (
            "cache_control",
            (
                json!({"budget": 99, "dialect": "anthropic", "cache_control": true}),
                Box::new(|s: &Settings| {
                    assert!(s.cache_control);
                    assert!(s.assembler().is_ok());
                }),
            ),
        ),
        (
            "strict",
            (
                json!({"budget": 99, "strict": true}),
                Box::new(|s: &Settings| assert!(s.strict)),
            ),
        ),
        (
            "window",
            prompt(harmony(json!({})), |p| assert_eq!(p.window(), 8192)),
        ),
        (
            "reserve",
            prompt(harmony(json!({"reserve": 500})), |p| {
                assert_eq!(p.reserve(), 500);
            }),
        ),
        (
            "chat_template",
            prompt(harmony(json!({})), |p| {
                assert_eq!(p.template().name(), "harmony/o200k_harmony");
            }),
        ),
        (
            "date",
            prompt(harmony(json!({"date": "2026-12-04"})), |p| {
                assert_eq!(p.date().unwrap().to_string(), "2026-12-04");
            }),
        ),
        (
            "context_in",
            prompt(harmony(json!({"context_in": "system"})), |p| {
                assert_eq!(p.placement(), ContextPlacement::System);
            }),
        ),
        (
            "history_max_tokens",
            prompt(harmony(json!({"history_max_tokens": 900})), |p| {
                assert_eq!(p.history_max_tokens(), Some(900));
            }),
        ),
        (
            "trim_step",
            prompt(harmony(json!({"trim_step": 0.5})), |p| {
                assert_eq!(p.trim_step(), 0.5);
            }),
        ),
        (
            "allow_special_tokens_in_messages",
            prompt(
                harmony(json!({"allow_special_tokens_in_messages": true})),
                |p| assert!(p.special_tokens_in_messages()),
            ),
        ),
    ];
    let named: Vec<&str> = cases.iter().map(|(name, _)| *name).collect();
    assert_eq!(named, Settings::names(), "the cases follow the settings");
    for (name, (value, check)) in &cases {
        assert!(value.get(name).is_some(), "{name}'s case sets it");
        let settings = read(value);
        check(&settings);
        // Written back under the same names, it reads back the same.
        let written = serde_json::to_value(&settings).unwrap();
        assert_eq!(read(&written), settings, "{name}");
        assert!(written.get(name).is_some(), "{name} is written: {written}");
    }
}

#[test]
fn unknown_settings_are_refused_with_the_closest_name_in_the_caller_s_spelling() {
    for (spelling, given, expected) in [
        (
            Spelling::Snake,
            "max_block",
            "unknown setting `max_block` (did you mean `max_blocks`?)",
        ),
        (
            Spelling::Camel,
            "maxBlock",
            "unknown setting `maxBlock` (did you mean `maxBlocks`?)",
        ),
        (
            Spelling::Flag,
            "--max-block",
            "unknown setting `--max-block` (did you mean `--max-blocks`?)",
        ),
        // Another front end's spelling is not read, but it is pointed to.
        (
            Spelling::Camel,
            "max_blocks",
            "unknown setting `max_blocks` (did you mean `maxBlocks`?)",
        ),
        (Spelling::Snake, "embedding", "unknown setting `embedding`"),
    ] {
        let err = Settings::deserialize_spelled(json!({ given: 3 }), spelling).unwrap_err();
        assert_eq!(err.to_string(), expected);
        assert_eq!(err.kind(), ErrorKind::UnknownSetting);
    }
}

#[test]
fn refused_values_name_the_setting_in_the_same_words_whatever_the_format() {
    for (value, expected, kind) in [
        (
            json!({"maxBlocks": -1}),
            "maxBlocks: negative; expected a whole number, 0 or more",
            ErrorKind::InvalidSetting,
        ),
        (
            json!({"maxBlocks": 2.5}),
            "maxBlocks: expected a whole number, 0 or more, got 2.5",
            ErrorKind::InvalidSetting,
        ),
        (
            json!({"maxBlocks": "3"}),
            "maxBlocks: expected a whole number, 0 or more, got the string \"3\"",
            ErrorKind::InvalidSetting,
        ),
        (
            json!({"strict": "yes"}),
            "strict: expected true or false, got the string \"yes\"",
            ErrorKind::InvalidSetting,
        ),
        (
            json!({"hideMetadataKeys": "a"}),
            "hideMetadataKeys: expected a list of strings, got the string \"a\"",
            ErrorKind::InvalidSetting,
        ),
        (
            json!({"hideMetadataKeys": ["a", 1]}),
            "hideMetadataKeys: [1]: expected a string",
            ErrorKind::InvalidSetting,
        ),
        (
            json!({"overflow": "cut"}),
            "overflow: unknown overflow policy `cut` (expected truncate, stop or skip)",
            ErrorKind::UnknownName,
        ),
        (
            json!({"encoding": "gpt-4o"}),
            "encoding: `gpt-4o` is a model, not an encoding: name it as the model, or give its encoding, o200k_base",
            ErrorKind::UnknownEncoding,
        ),
        (
            json!({"date": "2026-02-30"}),
            "date: invalid date `2026-02-30` (expected YYYY-MM-DD)",
            ErrorKind::InvalidDate,
        ),
        (
            json!({"minScore": "high"}),
            "minScore: expected a number, got the string \"high\"",
            ErrorKind::InvalidSetting,
        ),
    ] {
        let err = Settings::deserialize_spelled(&value, Spelling::Camel).unwrap_err();
        assert_eq!(err.to_string(), expected, "{value}");
        assert_eq!(err.kind(), kind, "{value}");
    }
    // JavaScript numbers are floats: a whole one is a count.
    let settings =
        Settings::deserialize_spelled(json!({"maxBlocks": 3.0}), Spelling::Camel).unwrap();
    assert_eq!(settings.max_blocks, Some(3));
    // Nothing is unset.
    let settings =
        Settings::deserialize_spelled(json!({"max_blocks": null, "strict": null}), Spelling::Snake)
            .unwrap();
    assert_eq!(settings, Settings::default());
    let err = Settings::deserialize_spelled(json!([1]), Spelling::Snake).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("settings: invalid type: sequence, expected a map of settings"),
        "{err}"
    );
}

#[test]
fn the_rules_between_settings_name_them_as_the_caller_spells_them() {
    let key = TempFile::new("rules-key", b"0123456789abcdef");
    let short = TempFile::new("short-key", b"short\n");
    let key_path = key.0.to_str().unwrap();
    for (value, snake, flag) in [
        (
            json!({}),
            "budget: missing; give the budget in tokens, or model with reserve_output or prompt_tokens",
            "--budget: missing; give the budget in tokens, or --model with --reserve-output or --prompt-tokens",
        ),
        (
            json!({"budget": 9, "encoding": "o200k_base", "model": "gpt-4o"}),
            "model: cannot be used with encoding: both choose the encoding; give one",
            "--model: cannot be used with --encoding: both choose the encoding; give one",
        ),
        (
            json!({"budget": 9, "reserve_output": 5}),
            "reserve_output: needs model, whose window it shares",
            "--reserve-output: needs --model, whose window it shares",
        ),
        (
            json!({"budget": 9, "model": "gpt-4", "prompt_tokens": 5}),
            "budget: cannot be used with prompt_tokens: the model's window sets the budget; give one",
            "--budget: cannot be used with --prompt-tokens: the model's window sets the budget; give one",
        ),
        (
            json!({"budget": 9, "format": "xml", "dialect": "cohere"}),
            "dialect: cannot be used with format: both choose what is written; give one",
            "--dialect: cannot be used with --format: both choose what is written; give one",
        ),
        (
            json!({"budget": 9, "cache_control": true}),
            "cache_control: marks a dialect's entries: give dialect anthropic or anthropic-documents",
            "--cache-control: marks a dialect's entries: give --dialect anthropic or anthropic-documents",
        ),
        (
            json!({"budget": 9, "tokenizer_file": TEKKEN, "encoding": "o200k_base"}),
            "encoding: cannot be used with tokenizer_file: a tokenizer file counts with its own vocabulary; give one",
            "--encoding: cannot be used with --tokenizer-file: a tokenizer file counts with its own vocabulary; give one",
        ),
        (
            json!({"budget": 9, "tokenizer_kind": "tekken"}),
            "tokenizer_kind: says what tokenizer_file is, and none is given",
            "--tokenizer-kind: says what --tokenizer-file is, and none is given",
        ),
        (
            json!({"budget": 9, "window": 100}),
            "window: a whole prompt's setting; a context alone is fitted to budget",
            "--window: a whole prompt's setting; a context alone is fitted to --budget",
        ),
        (
            json!({"budget": 5, "header": "A header that takes more than five tokens."}),
            "header: the header takes more tokens than the budget of 5",
            "--header: the header takes more tokens than the budget of 5",
        ),
        (
            json!({"budget": 5, "min_truncated_tokens": 6}),
            "min_truncated_tokens: the minimum truncated block of 6 tokens is larger than the budget of 5",
            "--min-truncated-tokens: the minimum truncated block of 6 tokens is larger than the budget of 5",
        ),
        (
            json!({"budget": 5, "model": "gpt-nothing"}),
            "model: unknown model `gpt-nothing`: no known encoding or window (name an encoding instead)",
            "--model: unknown model `gpt-nothing`: no known encoding or window (name an encoding instead)",
        ),
    ] {
        let snake_err = read(&value).assembler().unwrap_err();
        assert_eq!(snake_err.to_string(), snake, "{value}");
        let flag_err = read(&value)
            .spelled(Spelling::Flag)
            .assembler()
            .unwrap_err();
        assert_eq!(flag_err.to_string(), flag, "{value}");
    }
    let err = read(&json!({"budget": 9, "seal_key_file": short.0.to_str().unwrap()}))
        .assembler()
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "seal_key_file: the seal key is 5 bytes; it needs at least 16 (32 random bytes are best)"
    );
    assert_eq!(err.kind(), ErrorKind::SealKeyTooShort);
    let both =
        read(&json!({"budget": 9, "seal_key_file": key_path})).with_seal_key(b"0123456789abcdef");
    assert!(
        both.assembler()
            .unwrap_err()
            .to_string()
            .starts_with("seal_key_file: cannot be used with a seal key given as bytes")
    );
    let missing = read(&json!({"budget": 9, "seal_key_file": "/no/such/key"}))
        .assembler()
        .unwrap_err();
    assert!(
        missing
            .to_string()
            .starts_with("seal_key_file: /no/such/key: cannot read: "),
        "{missing}"
    );
    let bytes = read(&json!({"budget": 9})).with_seal_key(b"0123456789abcdef");
    assert!(bytes.seals() && bytes.assembler().unwrap().seals());
}

#[test]
fn a_whole_prompt_s_rules_name_its_settings() {
    for (value, expected) in [
        (
            json!({"chat_template": "harmony"}),
            "window: missing; give the model's context window in tokens (prompt and answer)",
        ),
        (
            json!({"window": 4096}),
            "chat_template: missing; give openai, harmony, mistral or the path of a tokenizer_config.json or chat_template.jinja",
        ),
        (
            json!({"window": 4096, "chat_template": "harmony", "budget": 9}),
            "budget: not a setting of a whole prompt: the window sets the context's budget; give window",
        ),
        (
            json!({"window": 4096, "chat_template": "harmony", "engine": "tiktoken"}),
            "engine: not a setting of a whole prompt: the chat template's tokenizer counts",
        ),
        (
            json!({"window": 4096, "chat_template": "harmony", "reserve": 4096}),
            "reserve: the answer's reserve of 4096 tokens takes the whole window of 4096",
        ),
        (
            json!({"window": 4096, "chat_template": "harmony", "trim_step": 1.5}),
            "trim_step: the trim step must be in 0.0..1.0, not 1.5",
        ),
        (
            json!({"window": 4096, "chat_template": "harmony", "context_in": "documents"}),
            "context_in: the context cannot go to `documents`: this chat template does not read them (transformers would drop them without a word); put it in the user or system message",
        ),
        (
            json!({"window": 4096, "chat_template": "harmony", "encoding": "cl100k_base"}),
            "encoding: the `harmony` chat template (gpt-oss) counts with o200k_base and Harmony's tokens, not cl100k_base: leave the encoding out",
        ),
        (
            json!({"window": 4096, "chat_template": "mistral"}),
            "tokenizer_file: the `mistral` chat template needs the model's Tekken file as its tokenizer file",
        ),
        (
            json!({"window": 4096, "chat_template": "/no/such/template.jinja", "tokenizer_file": TEKKEN}),
            "chat_template: the chat template /no/such/template.jinja: no such file (openai, harmony and mistral are the templates written here)",
        ),
        (
            json!({"window": 4096, "chat_template": "openai", "dialect": "anthropic"}),
            "dialect: a whole prompt cannot be fitted in the anthropic dialect",
        ),
    ] {
        let err = read(&value).prompt_assembler().unwrap_err();
        assert!(err.to_string().starts_with(expected), "{value}: {err}");
    }
    let camel = Settings::deserialize_spelled(
        json!({"window": 4096, "chatTemplate": "harmony", "trimStep": -0.5}),
        Spelling::Camel,
    )
    .unwrap();
    assert!(
        camel
            .prompt_assembler()
            .unwrap_err()
            .to_string()
            .starts_with("trimStep: ")
    );
}
