//! `Settings`: every option read under its one name, reaching the assembler it builds; the
//! rules between options, each naming the option as the caller spells it; values refused in
//! the same words whatever the format.

use mentor_context::dialects::Dialect;
use mentor_context::prompt::ContextPlacement;
use mentor_context::settings::{Settings, Spelling};
use mentor_context::{Duplicates, ErrorKind, Order, Overflow};
use serde_json::{Value, json};

mod accessors;
mod files;
mod rules;

pub(super) const TEKKEN: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/fixtures/tokenizers/tekken-tiny.json"
);

/// A file holding `contents`, removed when dropped.
pub(super) struct TempFile(pub(super) std::path::PathBuf);

impl TempFile {
    pub(super) fn new(name: &str, contents: &[u8]) -> TempFile {
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

pub(super) fn read(value: &Value) -> Settings {
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
        (
            "tools",
            (
                harmony(json!({"tools": []})),
                Box::new(|s: &Settings| {
                    assert_eq!(
                        s.tools.as_ref().map(mentor_context::prompt::Tools::len),
                        Some(0)
                    );
                    assert!(s.prompt_assembler().is_ok());
                }),
            ),
        ),
        (
            "template_options",
            (
                harmony(json!({"template_options": {"enable_thinking": false}})),
                Box::new(|s: &Settings| {
                    let names = s.template_options.as_ref().map(|o| o.names().count());
                    assert_eq!(names, Some(1));
                    // Harmony reads none: the options reached the builder.
                    assert!(s.prompt_assembler().is_err());
                }),
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
        // Nothing unset is written: no defaults, no `false` flags.
        for key in written.as_object().unwrap().keys() {
            assert!(
                value.get(key).is_some(),
                "{name}: {key} was not set: {written}"
            );
        }
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
