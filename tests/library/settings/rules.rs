//! The rules between settings, each naming the settings as the caller spells them: for a
//! context, and for a whole prompt.

use mentor_context::ErrorKind;
use mentor_context::settings::{Settings, Spelling};
use serde_json::json;

use super::{TEKKEN, TempFile, read};

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
        (
            json!({"window": 4096, "chat_template": "mistral", "tokenizer_file": TEKKEN, "dialect": "mistral"}),
            "dialect: a whole prompt cannot be fitted in the mistral dialect: its tool result is the documents' JSON object, not the text the budget counts; give the context as text in the `tool` result instead, which Mistral's template writes with its tool-call tokens",
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
