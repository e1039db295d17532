//! Reading [`Settings`] from any self-describing serde format (JSON, TOML, a Python dict, a
//! JavaScript object), with keys spelled as the caller spells them.
//!
//! serde's derive reads the struct; this module stands between it and the format's
//! deserializer. It turns each key from the caller's spelling into the setting's name (an
//! unknown one is refused with the closest known name), and when a value is refused, it names
//! the setting as the caller spelled it, with the problem in the same words whatever the
//! format: each value is watched as it is read (`seen.rs`), and a refused one is read again
//! for its reader's own words and library error (`refusal.rs`), where the format's own
//! message would carry its position or its own wording.

use std::cell::RefCell;
use std::fmt;

use serde::de::{
    self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, Visitor,
    value::StrDeserializer,
};
use serde::{Deserialize, forward_to_deserialize_any};

use super::refusal::{Problem, refusal};
use super::seen::{Seen, WatchedSeed};
use super::{Settings, Spelling};
use crate::error::Error;
use crate::wire::similar::closest;

impl Settings {
    /// Reads settings from `deserializer`, a map whose keys are spelled as `spelling`
    /// spells them; errors then name settings that way too.
    ///
    /// # Errors
    ///
    /// - [`Error::UnknownSetting`] for a key that is no setting in this spelling, with the
    ///   closest known one;
    /// - [`Error::Setting`] naming the setting whose value cannot be read (for an unknown
    ///   name, with the [`Error::UnknownName`] as its source), or naming `settings` when the
    ///   input is not a map.
    pub fn deserialize_spelled<'de, D: Deserializer<'de>>(
        deserializer: D,
        spelling: Spelling,
    ) -> Result<Settings, Error> {
        Settings::deserialize_spelled_except(deserializer, spelling, &[])
    }

    /// [`deserialize_spelled`](Self::deserialize_spelled), passing over the keys in
    /// `own`, which the caller reads itself (a seal key given as bytes, in an object that
    /// holds the settings too).
    ///
    /// # Errors
    ///
    /// As [`deserialize_spelled`](Self::deserialize_spelled).
    pub fn deserialize_spelled_except<'de, D: Deserializer<'de>>(
        deserializer: D,
        spelling: Spelling,
        own: &[&str],
    ) -> Result<Settings, Error> {
        let failure = RefCell::new(None);
        let read = Settings::deserialize(Spelled {
            inner: deserializer,
            reading: Reading {
                spelling,
                own,
                failure: &failure,
            },
        });
        match read {
            Ok(settings) => Ok(settings.spelled(spelling)),
            Err(err) => Err(failure.into_inner().unwrap_or_else(|| Error::Setting {
                setting: "settings".to_string(),
                problem: without_position(&err.to_string()),
                source: None,
            })),
        }
    }

    /// Reads settings from JSON text, an object whose keys are spelled as `spelling` spells
    /// them.
    ///
    /// # Errors
    ///
    /// As [`deserialize_spelled`](Self::deserialize_spelled) (a setting given twice is
    /// refused, as TOML refuses it), and [`Error::Json`] for text that is not JSON.
    pub fn from_json(json: &str, spelling: Spelling) -> Result<Settings, Error> {
        // Text that is not JSON is said as such, before any setting is read.
        serde_json::from_str::<de::IgnoredAny>(json)?;
        // Read from the text, not from a `serde_json::Value`: a map keeps the last of two
        // equal keys without a word.
        let mut text = serde_json::Deserializer::from_str(json);
        Settings::deserialize_spelled(&mut text, spelling)
    }
}

/// serde_json ends a message with the place ("at line 1 column 9"), which a settings object
/// held in memory does not have.
fn without_position(message: &str) -> String {
    match message.rfind(" at line ") {
        Some(at) => message[..at].to_string(),
        None => message.to_string(),
    }
}

/// Every field of [`Settings`], from its serde description: the derive hands its list of
/// fields to `deserialize_struct`, which this deserializer keeps.
pub(super) fn field_names() -> &'static [&'static str] {
    struct Fields<'a>(&'a mut &'static [&'static str]);
    impl<'de> Deserializer<'de> for Fields<'_> {
        type Error = de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("only the fields are read"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = fields;
            Err(de::Error::custom("only the fields are read"))
        }
        forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }
    static FIELDS: std::sync::OnceLock<&'static [&'static str]> = std::sync::OnceLock::new();
    FIELDS.get_or_init(|| {
        let mut fields: &'static [&'static str] = &[];
        let _ = Settings::deserialize(Fields(&mut fields));
        fields
    })
}

/// What each layer between the derive and the format carries down to [`SpelledMap`].
#[derive(Clone, Copy)]
struct Reading<'f> {
    spelling: Spelling,
    /// Keys the caller reads itself, passed over.
    own: &'f [&'f str],
    /// Where the error that names a setting is kept, for the read to return.
    failure: &'f RefCell<Option<Error>>,
}

/// A deserializer that reads its map through [`SpelledMap`].
struct Spelled<'f, D> {
    inner: D,
    reading: Reading<'f>,
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Spelled<'_, D> {
    type Error = D::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
        self.inner.deserialize_any(visitor)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        _: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.inner.deserialize_map(MapOfSettings {
            visitor,
            reading: self.reading,
        })
    }

    forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
        identifier ignored_any
    }
}

/// The visitor the format sees: it hands the derive's visitor a [`SpelledMap`].
struct MapOfSettings<'f, V> {
    visitor: V,
    reading: Reading<'f>,
}

impl<'de, V: Visitor<'de>> Visitor<'de> for MapOfSettings<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map of settings")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.visitor.visit_map(SpelledMap {
            map,
            reading: self.reading,
            key: String::new(),
            setting: "",
            seen: Vec::new(),
        })
    }
}

/// A map whose keys are turned from the caller's spelling into the settings' names, and
/// whose refused values are said to be the setting's, as the caller spelled it.
struct SpelledMap<'f, A> {
    map: A,
    reading: Reading<'f>,
    /// The key being read, as given.
    key: String,
    /// The setting it names.
    setting: &'static str,
    /// The settings read so far: a format that lets a key come twice (JSON text) must not
    /// keep the last one silently.
    seen: Vec<&'static str>,
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for SpelledMap<'_, A> {
    type Error = A::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, A::Error> {
        let given = loop {
            let Some(given) = self.map.next_key::<String>()? else {
                return Ok(None);
            };
            if !self.reading.own.contains(&given.as_str()) {
                break given;
            }
            self.map.next_value::<de::IgnoredAny>()?;
        };
        let Some(setting) = self.reading.spelling.setting(&given) else {
            let known = self.reading.spelling.names();
            let known: Vec<&str> = known.iter().map(String::as_str).collect();
            let suggestion = closest(&given, &known).map(str::to_string);
            let err = Error::UnknownSetting {
                setting: given,
                suggestion,
            };
            let message = err.to_string();
            *self.reading.failure.borrow_mut() = Some(err);
            return Err(de::Error::custom(message));
        };
        if self.seen.contains(&setting) {
            let err = Error::Setting {
                setting: given,
                problem: "given twice; give it once".to_string(),
                source: None,
            };
            let message = err.to_string();
            *self.reading.failure.borrow_mut() = Some(err);
            return Err(de::Error::custom(message));
        }
        self.seen.push(setting);
        self.key = given;
        self.setting = setting;
        let name: StrDeserializer<'_, A::Error> = setting.into_deserializer();
        seed.deserialize(name).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, A::Error> {
        let mut seen = Seen::Unknown;
        let read = self.map.next_value_seed(WatchedSeed {
            seed,
            seen: &mut seen,
        });
        if let Err(err) = &read {
            let (problem, source) = match refusal(self.setting, &seen) {
                Some(Problem::Library(source)) => (source.to_string(), Some(Box::new(source))),
                Some(Problem::Message(problem)) => (problem, None),
                None => (without_position(&err.to_string()), None),
            };
            *self.reading.failure.borrow_mut() = Some(Error::Setting {
                setting: std::mem::take(&mut self.key),
                problem,
                source,
            });
        }
        read
    }
}
