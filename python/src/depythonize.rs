//! A serde `Deserializer` over Python objects: dicts, lists, tuples, strings, numbers,
//! booleans and `None`, read without copying them into JSON first.
//!
//! Every request goes through here, so it is lean where `pythonize` is general: a dict is
//! walked in place (no `keys()` and `values()` lists, no probe for a dataclass, which costs a
//! raised and caught `AttributeError` per dict on Python before 3.13), and strings are
//! borrowed as UTF-8. Every value is handed to the visitor as what it is
//! (`deserialize_any`), so the library's visitors decide what is acceptable and word the
//! error exactly as they do for JSON ("invalid type: integer `5`, expected a string").

use std::fmt;

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyMapping, PyString, PyTuple};
use serde::de::{self, DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};

/// Why a Python value could not be read: a message in serde's words.
#[derive(Debug)]
pub(crate) struct DeError(String);

impl fmt::Display for DeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DeError {}

impl de::Error for DeError {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        DeError(msg.to_string())
    }
}

impl From<PyErr> for DeError {
    fn from(err: PyErr) -> Self {
        DeError(err.to_string())
    }
}

/// Reads one Python value.
pub(crate) struct PyDeserializer<'a, 'py>(pub(crate) &'a Bound<'py, PyAny>);

impl<'de> Deserializer<'de> for PyDeserializer<'_, '_> {
    type Error = DeError;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        let value = self.0;
        if value.is_none() {
            visitor.visit_unit()
        } else if let Ok(text) = value.cast::<PyString>() {
            visitor.visit_str(text.to_str()?)
        } else if let Ok(dict) = value.cast::<PyDict>() {
            visitor.visit_map(DictAccess::new(dict))
        } else if let Ok(list) = value.cast::<PyList>() {
            visitor.visit_seq(ListAccess {
                len: list.len(),
                items: Items::List(list.clone()),
                at: 0,
            })
        } else if let Ok(tuple) = value.cast::<PyTuple>() {
            visitor.visit_seq(ListAccess {
                len: tuple.len(),
                items: Items::Tuple(tuple.clone()),
                at: 0,
            })
        } else if value.is_instance_of::<PyBool>() {
            visitor.visit_bool(value.is_truthy()?)
        } else if value.is_instance_of::<PyInt>() {
            if let Ok(n) = value.extract::<i64>() {
                visitor.visit_i64(n)
            } else if let Ok(n) = value.extract::<u64>() {
                visitor.visit_u64(n)
            } else {
                // Past 64 bits, as serde_json reads such a number: as a float.
                visitor.visit_f64(value.extract::<f64>()?)
            }
        } else if let Ok(float) = value.cast::<PyFloat>() {
            visitor.visit_f64(float.value())
        } else if value.hasattr("__fspath__")? {
            // A path (`pathlib.Path`, any `os.PathLike`): its text, as `os.fspath` gives it.
            let path = value.call_method0("__fspath__")?;
            match path.cast::<PyString>() {
                Ok(text) => visitor.visit_str(text.to_str()?),
                Err(_) => Err(DeError(
                    "a path given as bytes: give it as str or pathlib.Path".to_string(),
                )),
            }
        } else if let Ok(mapping) = value.cast::<PyMapping>() {
            // Another mapping (a MappingProxy, an OrderedDict subclass): as a dict.
            let dict = PyDict::new(value.py());
            dict.update(mapping)?;
            visitor.visit_map(DictAccess::new(&dict))
        } else {
            Err(DeError(format!(
                "unexpected type `{}`: expected a dict, list, str, number, bool or None",
                value.get_type().name()?
            )))
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        if self.0.is_none() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, DeError> {
        // An ignored (unknown) property is not looked at, as serde_json skips it.
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct newtype_struct seq tuple tuple_struct map struct enum identifier
    }
}

/// A dict's items, in order, walked in place.
struct DictAccess<'py> {
    dict: Bound<'py, PyDict>,
    /// The dict's size when the walk began, and the items read since. Python code run during
    /// the walk (a `Mapping`'s `__getitem__`, reading metadata) can change the dict, and
    /// pyo3's iterator panics when it sees that; these turn it into an error first.
    size: usize,
    read: usize,
    items: pyo3::types::iter::BoundDictIterator<'py>,
    value: Option<Bound<'py, PyAny>>,
}

impl<'py> DictAccess<'py> {
    fn new(dict: &Bound<'py, PyDict>) -> Self {
        DictAccess {
            dict: dict.clone(),
            size: dict.len(),
            read: 0,
            items: dict.clone().into_iter(),
            value: None,
        }
    }
}

impl<'de> MapAccess<'de> for DictAccess<'_> {
    type Error = DeError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, DeError> {
        let now = self.dict.len();
        if now != self.size {
            return Err(DeError(format!(
                "a dict changed size from {} to {now} items while it was read",
                self.size
            )));
        }
        let Some((key, value)) = self.items.next() else {
            return Ok(None);
        };
        // One item more than it had: its keys were replaced (the iterator would panic at
        // the next call).
        if self.read == self.size {
            return Err(DeError(
                "a dict's keys changed while it was read".to_string(),
            ));
        }
        self.read += 1;
        self.value = Some(value);
        seed.deserialize(PyDeserializer(&key)).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, DeError> {
        let value = self
            .value
            .take()
            .ok_or_else(|| DeError("a value was asked for before its key".to_string()))?;
        seed.deserialize(PyDeserializer(&value))
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// The items of a list or a tuple, read by index.
enum Items<'py> {
    List(Bound<'py, PyList>),
    Tuple(Bound<'py, PyTuple>),
}

/// A list's or tuple's items, in order.
struct ListAccess<'py> {
    items: Items<'py>,
    at: usize,
    len: usize,
}

impl<'de> SeqAccess<'de> for ListAccess<'_> {
    type Error = DeError;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, DeError> {
        if self.at >= self.len {
            return Ok(None);
        }
        let item = match &self.items {
            Items::List(list) => list.get_item(self.at)?,
            Items::Tuple(tuple) => tuple.get_item(self.at)?,
        };
        self.at += 1;
        seed.deserialize(PyDeserializer(&item)).map(Some)
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.len - self.at)
    }
}
