//! A JavaScript value as an option or argument is given: read whole, then checked for its
//! type by the option that takes it, so that a wrong one is refused by name.

use std::fmt;

use napi::sys::ValueType;
use serde::Deserialize;
use serde::de::{self, MapAccess, SeqAccess, Visitor};

use crate::raw::{self, Env, Value};

/// A value given for an option.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Given {
    /// `undefined` or `null`: not given.
    Nothing,
    Flag(bool),
    Number(f64),
    Text(String),
    List(Vec<Given>),
    /// An object's own entries, in order.
    Object(Vec<(String, Given)>),
    /// Another kind of value, by its `typeof`.
    Other(&'static str),
}

impl Given {
    /// What it is, for a message: "a string", "5".
    pub(crate) fn described(&self) -> String {
        match self {
            Given::Nothing => "null".to_string(),
            Given::Flag(flag) => flag.to_string(),
            Given::Number(n) => n.to_string(),
            Given::Text(_) => "a string".to_string(),
            Given::List(_) => "an array".to_string(),
            Given::Object(_) => "an object".to_string(),
            Given::Other(kind) => format!("a {kind}"),
        }
    }
}

impl<'de> Deserialize<'de> for Given {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Given, D::Error> {
        deserializer.deserialize_any(GivenVisitor)
    }
}

struct GivenVisitor;

impl<'de> Visitor<'de> for GivenVisitor {
    type Value = Given;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any value")
    }

    fn visit_unit<E>(self) -> Result<Given, E> {
        Ok(Given::Nothing)
    }

    fn visit_none<E>(self) -> Result<Given, E> {
        Ok(Given::Nothing)
    }

    fn visit_bool<E>(self, value: bool) -> Result<Given, E> {
        Ok(Given::Flag(value))
    }

    fn visit_u64<E>(self, value: u64) -> Result<Given, E> {
        Ok(Given::Number(value as f64))
    }

    fn visit_i64<E>(self, value: i64) -> Result<Given, E> {
        Ok(Given::Number(value as f64))
    }

    fn visit_f64<E>(self, value: f64) -> Result<Given, E> {
        Ok(Given::Number(value))
    }

    fn visit_str<E>(self, value: &str) -> Result<Given, E> {
        Ok(Given::Text(value.to_string()))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Given, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Given::List(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Given, A::Error> {
        let mut entries = Vec::new();
        while let Some(key) = map.next_key::<String>()? {
            entries.push((key, map.next_value()?));
        }
        Ok(Given::Object(entries))
    }
}

/// An argument read without packing it: a number, a string, a flag, or nothing; anything
/// else is [`Given::Other`], named by its `typeof` (the caller says what it expected).
pub(crate) fn primitive(env: Env, value: Value) -> napi::Result<Given> {
    Ok(match raw::type_of(env, value)? {
        ValueType::napi_undefined | ValueType::napi_null => Given::Nothing,
        ValueType::napi_number => Given::Number(raw::number(env, value)?),
        ValueType::napi_boolean => Given::Flag(raw::boolean(env, value)?),
        ValueType::napi_string => Given::Text(crate::codec::read_string(env, value)?),
        ValueType::napi_object => Given::Other("object"),
        ValueType::napi_function => Given::Other("function"),
        ValueType::napi_symbol => Given::Other("symbol"),
        ValueType::napi_bigint => Given::Other("bigint"),
        _ => Given::Other("value"),
    })
}
