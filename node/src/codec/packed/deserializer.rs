//! The serde `Deserializer` over a [`Reader`](super::Reader): every value handed to the
//! visitor as what it is.

use serde::de::value::{BorrowedStrDeserializer, MapAccessDeserializer, StrDeserializer};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Unexpected, Visitor};

use super::super::{tag, unsupported};
use super::{DeError, Piece, Reader, malformed};

/// Hands `number` to `visitor` as serde_json would read what `JSON.stringify` writes for it.
fn visit_number<'de, V: Visitor<'de>>(number: f64, visitor: V) -> Result<V::Value, DeError> {
    const TWO_63: f64 = 9_223_372_036_854_775_808.0;
    if number.fract() == 0.0 && (-TWO_63..2.0 * TWO_63).contains(&number) {
        if number >= 0.0 {
            visitor.visit_u64(number as u64)
        } else {
            visitor.visit_i64(number as i64)
        }
    } else {
        visitor.visit_f64(number)
    }
}

impl<'de> Deserializer<'de> for &mut Reader<'de> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        match self.next()? {
            tag::STRING => {
                let units = self.count()?;
                let piece = self.piece(units)?;
                self.visit_piece(piece, visitor)
            }
            tag::BIG => {
                let at = self.count()?;
                let piece = self.big(at)?;
                self.visit_piece(piece, visitor)
            }
            tag::NUMBER => visit_number(self.next()?, visitor),
            tag::TRUE => visitor.visit_bool(true),
            tag::FALSE => visitor.visit_bool(false),
            tag::NULL => visitor.visit_unit(),
            tag::ARRAY => {
                let left = self.count()?;
                self.depth += 1;
                let mut items = Items {
                    reader: &mut *self,
                    left,
                    read: 0,
                };
                let value = visitor.visit_seq(&mut items)?;
                // A visitor that stopped early leaves the rest to be skipped.
                for _ in 0..items.left {
                    self.skip()?;
                }
                self.depth -= 1;
                Ok(value)
            }
            tag::OBJECT => self.visit_entries(|entries| visitor.visit_map(entries)),
            tag::UNSUPPORTED => {
                let what = match self.next()? {
                    unsupported::BIGINT => "bigint",
                    unsupported::UNDEFINED => "undefined",
                    unsupported::FUNCTION => "function",
                    unsupported::SYMBOL => "symbol",
                    unsupported::TOO_DEEP => {
                        return Err(DeError("recursion limit exceeded".to_string()));
                    }
                    _ => return Err(malformed()),
                };
                Err(de::Error::invalid_type(Unexpected::Other(what), &visitor))
            }
            _ => Err(malformed()),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        if self.tags.get(self.pos) == Some(&tag::NULL) {
            self.pos += 1;
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, DeError> {
        // As serde_json reads an enum: a unit variant by its name, any other as an object
        // of one entry, `{"Variant": ...}`.
        match self.tags.get(self.pos) {
            Some(&tag::STRING) => {
                self.pos += 1;
                let units = self.count()?;
                match self.piece(units)? {
                    Piece::Borrowed(name) => visitor.visit_enum(BorrowedStrDeserializer::new(name)),
                    Piece::Scratch => visitor.visit_enum(StrDeserializer::new(&self.scratch)),
                }
            }
            Some(&tag::OBJECT) => {
                self.pos += 1;
                self.visit_entries(|entries| {
                    visitor.visit_enum(MapAccessDeserializer::new(entries))
                })
            }
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        self.skip()?;
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct newtype_struct seq tuple tuple_struct map struct identifier
    }
}

impl<'de> Reader<'de> {
    /// Hands the entries of the object whose count is next to `visit`, then steps over those
    /// it did not read.
    fn visit_entries<T>(
        &mut self,
        visit: impl FnOnce(&mut Entries<'_, 'de>) -> Result<T, DeError>,
    ) -> Result<T, DeError> {
        let left = self.count()?;
        self.depth += 1;
        let mut entries = Entries {
            reader: &mut *self,
            left,
        };
        let value = visit(&mut entries)?;
        for _ in 0..entries.left {
            let units = self.key_units()?;
            self.step(units)?;
            self.skip()?;
        }
        self.depth -= 1;
        Ok(value)
    }
}

/// The items of an array.
struct Items<'r, 'a> {
    reader: &'r mut Reader<'a>,
    left: usize,
    read: usize,
}

impl<'de> SeqAccess<'de> for Items<'_, 'de> {
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        if self.reader.depth == 1 {
            self.reader.element = Some(self.read);
        }
        self.read += 1;
        seed.deserialize(&mut *self.reader).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}

/// The entries of an object, in order.
struct Entries<'r, 'a> {
    reader: &'r mut Reader<'a>,
    left: usize,
}

impl<'de> MapAccess<'de> for Entries<'_, 'de> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        if self.left == 0 {
            return Ok(None);
        }
        self.left -= 1;
        self.reader.key(seed).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        seed.deserialize(&mut *self.reader)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.left)
    }
}
