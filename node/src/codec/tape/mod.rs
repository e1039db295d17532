//! A tape that `codec.js` turns into JavaScript values: written by a serde `Serializer`
//! straight from the library's own `Serialize`, so the keys and their order are the
//! library's.
//!
//! It writes what `serde_json` writes, read back by `JSON.parse`: an `f32` becomes the number
//! of its shortest decimal (`0.91`, not `0.9100000262260437`), a non-finite number `null`, a
//! unit variant its name, a newtype variant a one-entry object. The tests compare every
//! report with `assemble --json`.

use serde::ser::{self, Serialize};

use super::{keys, shapes, tag};

/// Why a value could not be written: only a map key that is not a string, which no report
/// has.
pub(crate) use mentor_context::machinery::MessageError as SerError;

/// Strings end to end, and the tags that say what they and the numbers between them are.
#[derive(Debug, Default)]
pub(crate) struct Tape {
    text: String,
    tags: Vec<f64>,
    /// Whether the text holds a character past ASCII, and one past Latin-1 (U+00FF).
    beyond_ascii: bool,
    beyond_latin1: bool,
    /// The fields of the structs being written, innermost last: their names, as serde hands
    /// them (a `&'static str` is the same text at the same address every time).
    fields: Vec<&'static str>,
}

impl Tape {
    /// Writes `value` after what the tape holds (a cleared tape holds nothing).
    pub(crate) fn write<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), SerError> {
        value.serialize(&mut *self)
    }

    /// Empties the tape, keeping its room.
    pub(crate) fn clear(&mut self) {
        self.text.clear();
        self.tags.clear();
        self.beyond_ascii = false;
        self.beyond_latin1 = false;
        self.fields.clear();
    }

    /// The text as Latin-1, one byte per character, into `out`, if every character is below
    /// U+0100: what V8 copies into a string as it is, where it decodes UTF-8.
    pub(crate) fn latin1<'o>(&'o self, out: &'o mut Vec<u8>) -> Option<&'o [u8]> {
        if !self.beyond_ascii {
            return Some(self.text.as_bytes());
        }
        if self.beyond_latin1 {
            return None;
        }
        super::utf16::latin1_from_utf8(&self.text, out);
        Some(out)
    }

    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    pub(crate) fn tags(&self) -> &[f64] {
        &self.tags
    }

    /// About the bytes the tape holds.
    pub(crate) fn bytes(&self) -> usize {
        self.text.capacity() + self.tags.capacity() * size_of::<f64>()
    }

    pub(super) fn piece(&mut self, text: &str) {
        // JavaScript slices the text by UTF-16 code units.
        let units = if text.is_ascii() {
            text.len()
        } else {
            self.beyond_ascii = true;
            let (units, beyond_latin1) = super::utf16::units_of(text);
            self.beyond_latin1 |= beyond_latin1;
            units
        };
        self.tags.push(units as f64);
        self.text.push_str(text);
    }

    /// The start of an array or object: its tag and a count, filled in by [`Self::close`].
    fn open(&mut self, kind: f64) -> Open {
        self.tags.push(kind);
        self.tags.push(0.0);
        Open {
            count_at: self.tags.len() - 1,
            count: 0,
        }
    }

    fn close(&mut self, open: &Open) {
        self.tags[open.count_at] = open.count as f64;
    }
}

/// An array or object being written.
pub(crate) struct Open {
    count_at: usize,
    count: usize,
}

/// An array or object being written, on its tape.
pub(crate) struct Compound<'t> {
    tape: &'t mut Tape,
    open: Open,
    /// For a variant written as `{"Variant": ...}`: the outer object to close after.
    outer: Option<Open>,
    /// For a struct: where its fields' key numbers start in `Tape::fields`. Its tag is then
    /// `SHAPE` and its count the number of its shape, filled in at its end.
    fields_from: Option<usize>,
}

impl Compound<'_> {
    fn end(self) {
        match self.fields_from {
            Some(from) => {
                let shape = shapes::of_fields(&self.tape.fields[from..]);
                self.tape.tags[self.open.count_at] = f64::from(shape);
                self.tape.fields.truncate(from);
            }
            None => self.tape.close(&self.open),
        }
        if let Some(outer) = &self.outer {
            self.tape.close(outer);
        }
    }
}

macro_rules! number {
    ($($method:ident: $type:ty),*) => {$(
        fn $method(self, value: $type) -> Result<(), SerError> {
            // Counts and offsets: exact up to 2^53, far beyond any report's.
            self.tags.push(tag::NUMBER);
            self.tags.push(value as f64);
            Ok(())
        }
    )*};
}

impl<'t> ser::Serializer for &'t mut Tape {
    type Ok = ();
    type Error = SerError;
    type SerializeSeq = Compound<'t>;
    type SerializeTuple = Compound<'t>;
    type SerializeTupleStruct = Compound<'t>;
    type SerializeTupleVariant = Compound<'t>;
    type SerializeMap = Compound<'t>;
    type SerializeStruct = Compound<'t>;
    type SerializeStructVariant = Compound<'t>;

    number!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64,
        serialize_i128: i128, serialize_u128: u128);

    fn serialize_bool(self, value: bool) -> Result<(), SerError> {
        self.tags.push(if value { tag::TRUE } else { tag::FALSE });
        Ok(())
    }

    fn serialize_f32(self, value: f32) -> Result<(), SerError> {
        if value.is_finite() {
            self.tags.push(tag::NUMBER);
            self.tags
                .push(mentor_context::machinery::shortest_f32(value));
        } else {
            self.tags.push(tag::NULL);
        }
        Ok(())
    }

    fn serialize_f64(self, value: f64) -> Result<(), SerError> {
        if value.is_finite() {
            self.tags.push(tag::NUMBER);
            self.tags.push(value);
        } else {
            self.tags.push(tag::NULL);
        }
        Ok(())
    }

    fn serialize_char(self, value: char) -> Result<(), SerError> {
        self.serialize_str(value.encode_utf8(&mut [0; 4]))
    }

    fn serialize_str(self, value: &str) -> Result<(), SerError> {
        self.tags.push(tag::STRING);
        self.piece(value);
        Ok(())
    }

    fn serialize_bytes(self, value: &[u8]) -> Result<(), SerError> {
        // As serde_json: an array of numbers.
        let open = self.open(tag::ARRAY);
        for byte in value {
            self.tags.push(tag::NUMBER);
            self.tags.push(f64::from(*byte));
        }
        self.close(&Open {
            count: value.len(),
            ..open
        });
        Ok(())
    }

    fn serialize_none(self) -> Result<(), SerError> {
        self.tags.push(tag::NULL);
        Ok(())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), SerError> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), SerError> {
        self.serialize_none()
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), SerError> {
        self.serialize_none()
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), SerError> {
        self.serialize_str(variant)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), SerError> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<(), SerError> {
        let mut open = self.open(tag::OBJECT);
        self.tags.push(f64::from(keys::number(variant)));
        value.serialize(&mut *self)?;
        open.count = 1;
        self.close(&open);
        Ok(())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Compound<'t>, SerError> {
        Ok(self.compound(tag::ARRAY, None))
    }

    fn serialize_tuple(self, len: usize) -> Result<Compound<'t>, SerError> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Compound<'t>, SerError> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'t>, SerError> {
        let outer = self.variant(variant);
        Ok(self.compound(tag::ARRAY, Some(outer)))
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Compound<'t>, SerError> {
        Ok(self.compound(tag::OBJECT, None))
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Compound<'t>, SerError> {
        let open = self.open(tag::SHAPE);
        let fields_from = Some(self.fields.len());
        Ok(Compound {
            tape: self,
            open,
            outer: None,
            fields_from,
        })
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Compound<'t>, SerError> {
        let outer = self.variant(variant);
        Ok(self.compound(tag::OBJECT, Some(outer)))
    }
}

impl Tape {
    /// Opens an array or object (`kind`) that is not a struct, inside `outer` for a variant.
    fn compound(&mut self, kind: f64, outer: Option<Open>) -> Compound<'_> {
        let open = self.open(kind);
        Compound {
            tape: self,
            open,
            outer,
            fields_from: None,
        }
    }

    /// Opens `{"variant": ...}` for a tuple or struct variant, its one entry counted.
    fn variant(&mut self, variant: &'static str) -> Open {
        let mut outer = self.open(tag::OBJECT);
        outer.count = 1;
        self.tags.push(f64::from(keys::number(variant)));
        outer
    }
}

mod compound;
