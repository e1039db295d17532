//! What `Settings` says of itself: the names of each choice, whether it seals, whether it is
//! a whole prompt's, how it spells; and the seal key file's bounds.

use mentor_context::dialects::Dialect;
use mentor_context::format::BuiltinFormat;
use mentor_context::prompt::ContextPlacement;
use mentor_context::settings::{Settings, Spelling};
use mentor_context::tokenizer::{Engine, TokenizerKind};
use mentor_context::{Duplicates, Encoding, ErrorKind, Order, Overflow};
use serde::Serialize;
use serde_json::json;

use super::{TempFile, read};

/// The names serde writes for every value, in `ALL`'s order.
fn serde_names<T: Serialize>(all: &[T]) -> Vec<String> {
    all.iter()
        .map(|value| {
            serde_json::to_value(value)
                .unwrap()
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect()
}

#[test]
fn choices_are_the_names_serde_writes_and_only_for_choices() {
    for (setting, names) in [
        ("encoding", serde_names(Encoding::ALL)),
        ("engine", serde_names(Engine::ALL)),
        ("tokenizer_kind", serde_names(TokenizerKind::ALL)),
        ("format", serde_names(BuiltinFormat::ALL)),
        ("dialect", serde_names(Dialect::ALL)),
        ("overflow", serde_names(Overflow::ALL)),
        ("duplicates", serde_names(Duplicates::ALL)),
        ("order", serde_names(Order::ALL)),
        ("context_in", serde_names(ContextPlacement::ALL)),
    ] {
        assert!(names.len() >= 2, "{setting}: {names:?}");
        assert_eq!(
            Settings::choices(setting),
            Some(names.iter().map(String::as_str).collect())
        );
    }
    for setting in ["budget", "window", "max-blocks", "maxBlocks", ""] {
        assert_eq!(Settings::choices(setting), None, "{setting}");
    }
}

#[test]
fn what_the_settings_say_of_themselves() {
    assert!(!read(&json!({"budget": 9})).seals());
    assert!(read(&json!({"budget": 9, "seal_key_file": "k"})).seals());
    assert!(!read(&json!({"budget": 9})).is_whole_prompt());
    assert!(read(&json!({"window": 4096})).is_whole_prompt());
    assert!(read(&json!({"chat_template": "harmony"})).is_whole_prompt());
    assert_eq!(read(&json!({})).spelling(), Spelling::Snake);
    for spelling in [Spelling::Flag, Spelling::Camel] {
        assert_eq!(read(&json!({})).spelled(spelling).spelling(), spelling);
    }
}

/// A key too short is said of the setting that gave it: `seal_key` for bytes,
/// `seal_key_file` for a file.
#[test]
fn a_short_key_is_said_of_where_it_came_from() {
    let err = read(&json!({"budget": 9}))
        .with_seal_key(b"short")
        .assembler()
        .unwrap_err();
    assert_eq!(err.kind(), ErrorKind::SealKeyTooShort);
    assert!(err.to_string().starts_with("seal_key: "), "{err}");
}

/// A key file holds at most 4,096 bytes; one newline at its end is not part of the key.
#[test]
fn a_key_file_is_bounded_and_loses_its_last_newline() {
    let at_most = TempFile::new("key-4096", &[b'k'; 4096]);
    let path = at_most.0.to_str().unwrap();
    assert!(
        read(&json!({"budget": 9, "seal_key_file": path}))
            .assembler()
            .is_ok()
    );
    for (name, len) in [("key-4097", 4097), ("key-5000", 5000)] {
        let over = TempFile::new(name, &vec![b'k'; len]);
        let err = read(&json!({"budget": 9, "seal_key_file": over.0.to_str().unwrap()}))
            .assembler()
            .unwrap_err();
        assert!(
            err.to_string()
                .contains("cannot read: larger than 4 KiB, the most read for a seal key file"),
            "{len}: {err}"
        );
    }
    // 15 bytes and a newline are 15 bytes of key: too short; 16 and CRLF are enough.
    let fifteen = TempFile::new("key-15", b"0123456789abcde\n");
    let err = read(&json!({"budget": 9, "seal_key_file": fifteen.0.to_str().unwrap()}))
        .assembler()
        .unwrap_err();
    assert!(
        err.to_string().contains("the seal key is 15 bytes"),
        "{err}"
    );
    let sixteen = TempFile::new("key-16", b"0123456789abcdef\r\n");
    let path = sixteen.0.to_str().unwrap();
    assert!(
        read(&json!({"budget": 9, "seal_key_file": path}))
            .assembler()
            .is_ok()
    );
}

#[test]
fn settings_read_from_json_text_in_the_caller_s_spelling() {
    let settings =
        Settings::from_json(r#"{"budget": 10, "maxBlocks": 3}"#, Spelling::Camel).unwrap();
    let assembler = settings.assembler().unwrap();
    assert_eq!((assembler.budget(), assembler.max_blocks()), (10, Some(3)));
    let err = Settings::from_json("{budget", Spelling::Camel).unwrap_err();
    assert_eq!(err.kind(), ErrorKind::InvalidJson);
    // A map would keep the last of two equal keys; TOML and the service's bodies refuse them.
    let err = Settings::from_json(
        r#"{"budget": 10, "maxBlocks": 3, "budget": 20}"#,
        Spelling::Camel,
    )
    .unwrap_err();
    assert_eq!(err.to_string(), "budget: given twice; give it once");
    assert_eq!(err.kind(), ErrorKind::InvalidSetting);
}
