//! Why a setting's value was refused, in its reader's words, with the library error behind
//! it where there is one: found by reading the value again, as it was [`Seen`], with an error
//! type of our own.
//!
//! The format's error cannot say it: serde hands an error only the reader's words as text,
//! and each format dresses them its own way (serde_json adds the position, toml a newline
//! and the key), while a library error (an unknown name, an invalid date) is lost as text.
//! The readers are pure, so the same value refused once is refused again, in words
//! [`Said`] keeps as they are.

use std::fmt;
use std::str::FromStr;

use serde::Deserialize;
use serde::de::{self, Deserializer, IntoDeserializer, SeqAccess, Visitor};
use serde::forward_to_deserialize_any;

use super::Settings;
use super::seen::Seen;
use crate::dialects::Dialect;
use crate::error::Error;
use crate::format::BuiltinFormat;
use crate::options::{Duplicates, Order, Overflow};
use crate::prompt::{ContextPlacement, ConversationDate};
use crate::tokenizer::{Encoding, Engine, TokenizerKind};

/// A value's problem, as its reader said it.
#[derive(Debug)]
pub(super) enum Problem {
    /// In words.
    Message(String),
    /// A library error (an unknown name, an invalid date), kept as the setting's source.
    Library(Error),
}

/// Why `setting` refused `seen`, if its reader says so in words of its own; `None` where
/// the refusal is the format's or serde's ("invalid type: ..."), which the format words.
pub(super) fn refusal(setting: &'static str, seen: &Seen) -> Option<Problem> {
    let value = SeenValue(seen);
    let again = Settings::deserialize(de::value::MapDeserializer::<_, Said>::new(std::iter::once(
        (setting, value),
    )));
    let Err(Said::Words(words)) = again else {
        return None;
    };
    Some(match (library_error(setting, seen), words) {
        (Some(err), words) if err.to_string() == words => Problem::Library(err),
        (_, words) => Problem::Message(words),
    })
}

/// The library error a named choice's or a date's `FromStr` gives for `seen`.
fn library_error(setting: &str, seen: &Seen) -> Option<Error> {
    fn parse<T: FromStr<Err = Error>>(text: &str) -> Option<Error> {
        text.parse::<T>().err()
    }
    let Seen::Str(text) = seen else {
        return None;
    };
    match setting {
        "encoding" => parse::<Encoding>(text),
        "engine" => parse::<Engine>(text),
        "tokenizer_kind" => parse::<TokenizerKind>(text),
        "format" => parse::<BuiltinFormat>(text),
        "dialect" => parse::<Dialect>(text),
        "overflow" => parse::<Overflow>(text),
        "duplicates" => parse::<Duplicates>(text),
        "order" => parse::<Order>(text),
        "context_in" => parse::<ContextPlacement>(text),
        "date" => parse::<ConversationDate>(text),
        _ => None,
    }
}

/// An error that keeps a reader's own words (`custom`) apart from serde's.
#[derive(Debug)]
enum Said {
    Words(String),
    Serde,
}

impl fmt::Display for Said {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Said::Words(words) => f.write_str(words),
            Said::Serde => f.write_str("refused by serde"),
        }
    }
}

impl std::error::Error for Said {}

impl de::Error for Said {
    fn custom<T: fmt::Display>(words: T) -> Said {
        Said::Words(words.to_string())
    }
    fn invalid_type(_: de::Unexpected<'_>, _: &dyn de::Expected) -> Said {
        Said::Serde
    }
    fn invalid_value(_: de::Unexpected<'_>, _: &dyn de::Expected) -> Said {
        Said::Serde
    }
    fn invalid_length(_: usize, _: &dyn de::Expected) -> Said {
        Said::Serde
    }
    fn unknown_variant(_: &str, _: &'static [&'static str]) -> Said {
        Said::Serde
    }
    fn unknown_field(_: &str, _: &'static [&'static str]) -> Said {
        Said::Serde
    }
    fn missing_field(_: &'static str) -> Said {
        Said::Serde
    }
    fn duplicate_field(_: &'static str) -> Said {
        Said::Serde
    }
}

/// A [`Seen`] value handed to a reader again, as the format handed it: a present value
/// through `visit_some`, then as what it is.
#[derive(Clone, Copy)]
struct SeenValue<'a>(&'a Seen);

impl<'de> IntoDeserializer<'de, Said> for SeenValue<'_> {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

impl<'de> Deserializer<'de> for SeenValue<'_> {
    type Error = Said;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Said> {
        match self.0 {
            Seen::Unknown => Err(Said::Serde),
            Seen::Unit => visitor.visit_unit(),
            Seen::Bool(flag) => visitor.visit_bool(*flag),
            Seen::U64(n) => visitor.visit_u64(*n),
            Seen::I64(n) => visitor.visit_i64(*n),
            Seen::F64(n) => visitor.visit_f64(*n),
            Seen::Str(text) => visitor.visit_str(text),
            Seen::List(items) => visitor.visit_seq(SeenItems(items.iter())),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Said> {
        match self.0 {
            Seen::Unit => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

struct SeenItems<'a>(std::slice::Iter<'a, Seen>);

impl<'de> SeqAccess<'de> for SeenItems<'_> {
    type Error = Said;

    fn next_element_seed<T: de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Said> {
        self.0
            .next()
            .map(|item| seed.deserialize(SeenValue(item)))
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;
    use crate::settings::Spelling;

    /// A format that dresses every message its own way, as toml adds a newline and the key.
    #[derive(Debug)]
    struct Dressed(String);

    impl fmt::Display for Dressed {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(&self.0)
        }
    }

    impl std::error::Error for Dressed {}

    impl de::Error for Dressed {
        fn custom<T: fmt::Display>(message: T) -> Dressed {
            Dressed(format!("dressed: {message}\nin `key`\n"))
        }
    }

    fn refused<'de, V: IntoDeserializer<'de, Dressed>>(setting: &'static str, value: V) -> Error {
        let map = de::value::MapDeserializer::<_, Dressed>::new(std::iter::once((setting, value)));
        Settings::deserialize_spelled(map, Spelling::Snake).unwrap_err()
    }

    /// Whatever a format makes of the readers' words, the error says them as they were
    /// said, with the library error behind them; serde's own refusal is the format's.
    #[test]
    fn a_format_that_dresses_its_messages_still_gives_the_readers_words() {
        let err = refused("budget", -1_i64);
        assert_eq!(
            err.to_string(),
            "budget: negative; expected a whole number, 0 or more"
        );
        assert_eq!(err.kind(), ErrorKind::InvalidSetting);
        let err = refused("overflow", "cut");
        assert_eq!(
            err.to_string(),
            "overflow: unknown overflow policy `cut` (expected truncate, stop or skip)"
        );
        assert_eq!(err.kind(), ErrorKind::UnknownName);
        let err = refused("date", "2026-02-30");
        assert_eq!(
            err.to_string(),
            "date: invalid date `2026-02-30` (expected YYYY-MM-DD)"
        );
        assert_eq!(err.kind(), ErrorKind::InvalidDate);
        let err = refused("hide_metadata_keys", vec![7_i64]);
        assert_eq!(
            err.to_string(),
            "hide_metadata_keys: [0]: expected a string"
        );
        let err = refused("overflow", 3_i64);
        assert!(
            err.to_string()
                .starts_with("overflow: dressed: invalid type: integer `3`"),
            "{err}"
        );
        assert_eq!(err.kind(), ErrorKind::InvalidSetting);
    }

    /// Every setting whose value is a name or a date gives its library error as the source,
    /// and the words of a value reader come back as they were said.
    #[test]
    fn named_settings_and_dates_give_their_library_error() {
        let mut named: Vec<&'static str> = Settings::names()
            .iter()
            .copied()
            .filter(|setting| Settings::choices(setting).is_some())
            .collect();
        named.push("date");
        for setting in named {
            let seen = Seen::Str("no such thing".to_string());
            let Some(Problem::Library(err)) = refusal(setting, &seen) else {
                panic!("{setting}: no library error");
            };
            assert!(!err.to_string().is_empty());
        }
        let Some(Problem::Message(words)) = refusal("budget", &Seen::I64(-1)) else {
            panic!("budget: no words");
        };
        assert_eq!(words, "negative; expected a whole number, 0 or more");
        let list = Seen::List(vec![Seen::Str("a".to_string()), Seen::Unknown]);
        let Some(Problem::Message(words)) = refusal("hide_metadata_keys", &list) else {
            panic!("hide_metadata_keys: no words");
        };
        assert_eq!(words, "[1]: expected a string");
        // serde's own refusal is the format's to word.
        assert!(refusal("overflow", &Seen::U64(3)).is_none());
    }
}
