//! Reading a field into the value already there, keeping its buffers.
//!
//! A caller that reads request after request into one [`ParsedResults`](super::ParsedResults)
//! (the Python bindings do) then allocates a result's strings and metadata table once, not
//! per request: a 2 KiB content is copied into the capacity the last one left. Each seed
//! accepts exactly what the plain type accepts and words its errors the same way
//! (`String` expects "a string", `Option` "option", `IndexMap` "a map"), so reading in place
//! and reading fresh cannot differ but in allocations.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, Visitor};

use crate::rag_result::Metadata;

/// The most metadata entries reserved ahead from a size hint: a hint is the input's claim,
/// and a hostile one could claim anything (serde caps its own pre-allocation the same way).
const MAX_RESERVED_ENTRIES: usize = 4096;

/// Reads a string into `self.0`, replacing its text and keeping its capacity.
pub(super) struct StringInto<'a>(pub(super) &'a mut String);

impl<'de> DeserializeSeed<'de> for StringInto<'_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_string(self)
    }
}

impl Visitor<'_> for StringInto<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<(), E> {
        self.0.clear();
        self.0.push_str(text);
        Ok(())
    }

    fn visit_string<E: de::Error>(self, text: String) -> Result<(), E> {
        // Already owned: taking it costs less than copying it.
        *self.0 = text;
        Ok(())
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<(), E> {
        match std::str::from_utf8(bytes) {
            Ok(text) => self.visit_str(text),
            Err(_) => Err(E::invalid_value(de::Unexpected::Bytes(bytes), &self)),
        }
    }
}

/// A value that can be read into, keeping what it can of what it held.
pub(super) trait ReadInto: Default {
    fn read_into<'de, D: Deserializer<'de>>(&mut self, deserializer: D) -> Result<(), D::Error>;
}

impl ReadInto for String {
    fn read_into<'de, D: Deserializer<'de>>(&mut self, deserializer: D) -> Result<(), D::Error> {
        StringInto(self).deserialize(deserializer)
    }
}

/// A map is read into the table that was there (see [`EntriesInto`]). A key given twice keeps
/// its first place and its last value, as `IndexMap` reads it.
impl ReadInto for Metadata {
    fn read_into<'de, D: Deserializer<'de>>(&mut self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(EntriesInto(self))
    }
}

/// Reads an optional value into `self.0`: `null` makes it `None`; a value is read into the
/// one that was there, or into a new one.
pub(super) struct OptionInto<'a, T>(pub(super) &'a mut Option<T>);

impl<'de, T: ReadInto> DeserializeSeed<'de> for OptionInto<'_, T> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_option(self)
    }
}

impl<'de, T: ReadInto> Visitor<'de> for OptionInto<'_, T> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("option")
    }

    fn visit_none<E: de::Error>(self) -> Result<(), E> {
        *self.0 = None;
        Ok(())
    }

    fn visit_unit<E: de::Error>(self) -> Result<(), E> {
        self.visit_none()
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        self.0
            .get_or_insert_with(T::default)
            .read_into(deserializer)
    }
}

/// Reads a map's entries into the table of the last request's, which it ends holding alone.
///
/// Results in a stream mostly carry the same keys in the same order (`chunk_id`, `product`),
/// so while the keys come as the table has them each value is read into its entry: no key
/// is allocated or hashed. At the first key that differs, the rest of the old table goes,
/// and entries are inserted as `IndexMap` reads them.
struct EntriesInto<'a>(&'a mut Metadata);

impl<'de> Visitor<'de> for EntriesInto<'_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a map")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let table = self.0;
        let hinted = map.size_hint().unwrap_or(0).min(MAX_RESERVED_ENTRIES);
        table.reserve(hinted.saturating_sub(table.len()));
        // The entries read so far are `table[..read]` while `in_step`.
        let mut read = 0;
        let mut in_step = true;
        loop {
            let expected = if in_step { table.get_index(read) } else { None };
            let seed = KeyAgainst(expected.map(|(key, _)| key.as_str()));
            match map.next_key_seed(seed)? {
                None => break,
                Some(Key::AsExpected) => {
                    // The key was compared with this very entry, and nothing came between.
                    let Some((_, value)) = table.get_index_mut(read) else {
                        return Err(de::Error::custom("a metadata entry went missing"));
                    };
                    map.next_value_seed(OptionInto(value))?;
                    read += 1;
                }
                Some(Key::Other(key)) => {
                    if in_step {
                        table.truncate(read);
                        in_step = false;
                    }
                    let mut value = None;
                    map.next_value_seed(OptionInto(&mut value))?;
                    // A key given twice keeps its first place and its last value.
                    table.insert(key, value);
                }
            }
        }
        if in_step {
            table.truncate(read);
        }
        Ok(())
    }
}

/// A metadata key read: the one expected (not copied), or another.
enum Key {
    AsExpected,
    Other(String),
}

/// Reads a metadata key, telling whether it is the expected one; it accepts what `String`
/// accepts.
struct KeyAgainst<'a>(Option<&'a str>);

impl<'de> DeserializeSeed<'de> for KeyAgainst<'_> {
    type Value = Key;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Key, D::Error> {
        deserializer.deserialize_string(self)
    }
}

impl Visitor<'_> for KeyAgainst<'_> {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a string")
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<Key, E> {
        Ok(if self.0 == Some(text) {
            Key::AsExpected
        } else {
            Key::Other(text.to_string())
        })
    }

    fn visit_string<E: de::Error>(self, text: String) -> Result<Key, E> {
        Ok(if self.0 == Some(text.as_str()) {
            Key::AsExpected
        } else {
            Key::Other(text)
        })
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Key, E> {
        match std::str::from_utf8(bytes) {
            Ok(text) => self.visit_str(text),
            Err(_) => Err(E::invalid_value(de::Unexpected::Bytes(bytes), &self)),
        }
    }
}

#[cfg(test)]
mod tests;
