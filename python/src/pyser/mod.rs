//! A serde `Serializer` that builds Python objects: the report as dicts, lists, strings and
//! numbers, straight from the library's own `Serialize` (so the keys and their order are the
//! library's), without writing JSON text and parsing it back.
//!
//! It writes what `serde_json` writes, read back by `json.loads`: an `f32` becomes the
//! `float` of its shortest decimal (`0.91`, not `0.9100000262260437`), a non-finite number
//! `None`, a unit variant its name. The tests compare every report with `assemble --json`.
//!
//! Why not `pythonize`: it writes an `f32` as its `f64` (`0.9100000262260437`) and NaN as
//! `nan`, so the dict would not be the JSON report's; and it makes a new string for every
//! key of every struct, hashed anew on insertion, where these are interned once and kept
//! (`keys`). `python/benches/measure.py` times both in the same run (`benches/README.md`).

mod keys;

use std::cell::{Cell, RefCell};
use std::fmt;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyFloat, PyList, PyString};
use serde::ser::{self, Serialize};

use keys::{Keys, put_back_known_keys, take_known_keys};
use mentor_context::machinery::shortest_f32;

/// Why a value could not be built: a Python error, or a shape the report never has.
#[derive(Debug)]
pub(crate) struct SerError(PyErr);

impl fmt::Display for SerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for SerError {}

impl ser::Error for SerError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        SerError(crate::errors::refused(format!(
            "cannot build the report: {msg}"
        )))
    }
}

impl From<std::convert::Infallible> for SerError {
    fn from(never: std::convert::Infallible) -> Self {
        match never {}
    }
}

impl From<PyErr> for SerError {
    fn from(err: PyErr) -> Self {
        SerError(err)
    }
}

/// `value` as Python objects.
pub(crate) fn to_python<'py, T: Serialize + ?Sized>(
    py: Python<'py>,
    value: &T,
) -> PyResult<Bound<'py, PyAny>> {
    let keys = Keys {
        py,
        seen: RefCell::new(take_known_keys()),
        next: Cell::new(0),
    };
    let built = value.serialize(PySerializer(&keys)).map_err(|err| err.0);
    put_back_known_keys(keys.seen.into_inner());
    built
}

#[derive(Clone, Copy)]
struct PySerializer<'a, 'py>(&'a Keys<'py>);

/// A list being built.
struct Seq<'a, 'py> {
    ser: PySerializer<'a, 'py>,
    items: Vec<Bound<'py, PyAny>>,
    /// For a tuple or struct variant: the variant's name, the key of a one-entry dict.
    variant: Option<&'static str>,
}

/// A dict being built.
struct Map<'a, 'py> {
    ser: PySerializer<'a, 'py>,
    dict: Bound<'py, PyDict>,
    key: Option<Bound<'py, PyAny>>,
    variant: Option<&'static str>,
}

impl<'py> PySerializer<'_, 'py> {
    fn py(self) -> Python<'py> {
        self.0.py
    }

    fn wrap(
        self,
        variant: Option<&'static str>,
        value: Bound<'py, PyAny>,
    ) -> Result<Bound<'py, PyAny>, SerError> {
        match variant {
            None => Ok(value),
            Some(name) => {
                let dict = PyDict::new(self.py());
                dict.set_item(self.0.get(name), value)?;
                Ok(dict.into_any())
            }
        }
    }
}

macro_rules! int {
    ($($method:ident: $type:ty),*) => {$(
        fn $method(self, value: $type) -> Result<Self::Ok, SerError> {
            Ok(value.into_pyobject(self.py())?.into_any())
        }
    )*};
}

impl<'a, 'py> ser::Serializer for PySerializer<'a, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = SerError;
    type SerializeSeq = Seq<'a, 'py>;
    type SerializeTuple = Seq<'a, 'py>;
    type SerializeTupleStruct = Seq<'a, 'py>;
    type SerializeTupleVariant = Seq<'a, 'py>;
    type SerializeMap = Map<'a, 'py>;
    type SerializeStruct = Map<'a, 'py>;
    type SerializeStructVariant = Map<'a, 'py>;

    int!(serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
         serialize_i128: i128, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
         serialize_u64: u64, serialize_u128: u128);

    fn serialize_bool(self, value: bool) -> Result<Self::Ok, SerError> {
        Ok(value.into_pyobject(self.py())?.to_owned().into_any())
    }

    fn serialize_f32(self, value: f32) -> Result<Self::Ok, SerError> {
        if value.is_finite() {
            self.serialize_f64(shortest_f32(value))
        } else {
            self.serialize_none()
        }
    }

    fn serialize_f64(self, value: f64) -> Result<Self::Ok, SerError> {
        if value.is_finite() {
            Ok(PyFloat::new(self.py(), value).into_any())
        } else {
            // As serde_json writes it: JSON has no NaN or infinity.
            self.serialize_none()
        }
    }

    fn serialize_char(self, value: char) -> Result<Self::Ok, SerError> {
        self.serialize_str(value.encode_utf8(&mut [0; 4]))
    }

    fn serialize_str(self, value: &str) -> Result<Self::Ok, SerError> {
        Ok(PyString::new(self.py(), value).into_any())
    }

    fn serialize_bytes(self, value: &[u8]) -> Result<Self::Ok, SerError> {
        Ok(PyBytes::new(self.py(), value).into_any())
    }

    fn serialize_none(self) -> Result<Self::Ok, SerError> {
        Ok(self.py().None().into_bound(self.py()))
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Self::Ok, SerError> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<Self::Ok, SerError> {
        self.serialize_none()
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<Self::Ok, SerError> {
        self.serialize_none()
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Self::Ok, SerError> {
        Ok(self.0.get(variant).into_any())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<Self::Ok, SerError> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Self::Ok, SerError> {
        let value = value.serialize(self)?;
        self.wrap(Some(variant), value)
    }

    fn serialize_seq(self, len: Option<usize>) -> Result<Self::SerializeSeq, SerError> {
        Ok(Seq {
            ser: self,
            items: Vec::with_capacity(len.unwrap_or(0)),
            variant: None,
        })
    }

    fn serialize_tuple(self, len: usize) -> Result<Self::SerializeTuple, SerError> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleStruct, SerError> {
        self.serialize_seq(Some(len))
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeTupleVariant, SerError> {
        let mut seq = self.serialize_seq(Some(len))?;
        seq.variant = Some(variant);
        Ok(seq)
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, SerError> {
        Ok(Map {
            ser: self,
            dict: PyDict::new(self.py()),
            key: None,
            variant: None,
        })
    }

    fn serialize_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStruct, SerError> {
        self.serialize_map(Some(len))
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Self::SerializeStructVariant, SerError> {
        let mut map = self.serialize_map(Some(len))?;
        map.variant = Some(variant);
        Ok(map)
    }
}

impl<'py> Seq<'_, 'py> {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), SerError> {
        self.items.push(value.serialize(self.ser)?);
        Ok(())
    }

    fn finish(self) -> Result<Bound<'py, PyAny>, SerError> {
        let list = PyList::new(self.ser.py(), self.items)?.into_any();
        self.ser.wrap(self.variant, list)
    }
}

macro_rules! seq_impl {
    ($($trait:ident :: $method:ident),*) => {$(
        impl<'py> ser::$trait for Seq<'_, 'py> {
            type Ok = Bound<'py, PyAny>;
            type Error = SerError;
            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), SerError> {
                self.push(value)
            }
            fn end(self) -> Result<Self::Ok, SerError> {
                self.finish()
            }
        }
    )*};
}

seq_impl!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

impl<'py> Map<'_, 'py> {
    fn field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<(), SerError> {
        let value = value.serialize(self.ser)?;
        self.dict.set_item(self.ser.0.get(key), value)?;
        Ok(())
    }

    fn finish(self) -> Result<Bound<'py, PyAny>, SerError> {
        let dict = self.dict.into_any();
        self.ser.wrap(self.variant, dict)
    }
}

impl<'py> ser::SerializeMap for Map<'_, 'py> {
    type Ok = Bound<'py, PyAny>;
    type Error = SerError;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), SerError> {
        self.key = Some(key.serialize(self.ser)?);
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), SerError> {
        let key = self
            .key
            .take()
            .ok_or_else(|| <SerError as ser::Error>::custom("a map value before its key"))?;
        self.dict.set_item(key, value.serialize(self.ser)?)?;
        Ok(())
    }

    fn end(self) -> Result<Self::Ok, SerError> {
        self.finish()
    }
}

macro_rules! struct_impl {
    ($($trait:ident),*) => {$(
        impl<'py> ser::$trait for Map<'_, 'py> {
            type Ok = Bound<'py, PyAny>;
            type Error = SerError;
            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), SerError> {
                self.field(key, value)
            }
            fn end(self) -> Result<Self::Ok, SerError> {
                self.finish()
            }
        }
    )*};
}

struct_impl!(SerializeStruct, SerializeStructVariant);
