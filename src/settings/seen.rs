//! What a value reader was handed, kept while a setting's value is read, so that a refused
//! value can be read again ([`refusal`](super::refusal)).
//!
//! [`Watched`] stands between the format's deserializer and the derive's reader of one
//! setting: it hands every call and every value through unchanged, in the format's own error
//! type, and records into a [`Seen`] that the read owns and passes down.

use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, EnumAccess, MapAccess, SeqAccess, Visitor};

/// A value as a reader was handed it: the scalars the value readers judge, and lists of them.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Seen {
    /// Nothing a reader can be asked again about: nothing was handed yet, or a map, an enum,
    /// bytes, a 128-bit number.
    Unknown,
    /// `null`, `None`, a unit.
    Unit,
    Bool(bool),
    U64(u64),
    I64(i64),
    F64(f64),
    Str(String),
    List(Vec<Seen>),
}

/// The seed of one setting's value, watched into `seen`.
pub(super) struct WatchedSeed<'s, S> {
    pub(super) seed: S,
    pub(super) seen: &'s mut Seen,
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for WatchedSeed<'_, S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, inner: D) -> Result<S::Value, D::Error> {
        self.seed.deserialize(Watched {
            inner,
            seen: self.seen,
        })
    }
}

/// The format's deserializer, its visitors watched.
struct Watched<'s, D> {
    inner: D,
    seen: &'s mut Seen,
}

macro_rules! forward_watched {
    ($($method:ident($($arg:ident: $type:ty),*);)*) => {$(
        fn $method<V: Visitor<'de>>(self, $($arg: $type,)* visitor: V) -> Result<V::Value, D::Error> {
            self.inner.$method($($arg,)* Watching { visitor, seen: self.seen })
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for Watched<'_, D> {
    type Error = D::Error;

    forward_watched! {
        deserialize_any(); deserialize_bool(); deserialize_i8(); deserialize_i16();
        deserialize_i32(); deserialize_i64(); deserialize_i128(); deserialize_u8();
        deserialize_u16(); deserialize_u32(); deserialize_u64(); deserialize_u128();
        deserialize_f32(); deserialize_f64(); deserialize_char(); deserialize_str();
        deserialize_string(); deserialize_bytes(); deserialize_byte_buf(); deserialize_option();
        deserialize_unit(); deserialize_seq(); deserialize_map(); deserialize_identifier();
        deserialize_ignored_any();
        deserialize_unit_struct(name: &'static str);
        deserialize_newtype_struct(name: &'static str);
        deserialize_tuple(len: usize);
        deserialize_tuple_struct(name: &'static str, len: usize);
        deserialize_struct(name: &'static str, fields: &'static [&'static str]);
        deserialize_enum(name: &'static str, variants: &'static [&'static str]);
    }

    fn is_human_readable(&self) -> bool {
        self.inner.is_human_readable()
    }
}

/// A reader's visitor, its values recorded as they pass.
struct Watching<'s, V> {
    visitor: V,
    seen: &'s mut Seen,
}

macro_rules! record {
    ($($method:ident($type:ty) => $seen:expr;)*) => {$(
        fn $method<E: de::Error>(self, value: $type) -> Result<V::Value, E> {
            #[allow(clippy::redundant_closure_call)]
            let seen = ($seen)(&value);
            *self.seen = seen;
            self.visitor.$method(value)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Watching<'_, V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.visitor.expecting(f)
    }

    record! {
        visit_bool(bool) => |v: &bool| Seen::Bool(*v);
        visit_i8(i8) => |v: &i8| Seen::I64(i64::from(*v));
        visit_i16(i16) => |v: &i16| Seen::I64(i64::from(*v));
        visit_i32(i32) => |v: &i32| Seen::I64(i64::from(*v));
        visit_i64(i64) => |v: &i64| Seen::I64(*v);
        visit_u8(u8) => |v: &u8| Seen::U64(u64::from(*v));
        visit_u16(u16) => |v: &u16| Seen::U64(u64::from(*v));
        visit_u32(u32) => |v: &u32| Seen::U64(u64::from(*v));
        visit_u64(u64) => |v: &u64| Seen::U64(*v);
        visit_i128(i128) => |_: &i128| Seen::Unknown;
        visit_u128(u128) => |_: &u128| Seen::Unknown;
        visit_f32(f32) => |v: &f32| Seen::F64(f64::from(*v));
        visit_f64(f64) => |v: &f64| Seen::F64(*v);
        visit_char(char) => |v: &char| Seen::Str(v.to_string());
        visit_str(&str) => |v: &&str| Seen::Str((*v).to_string());
        visit_borrowed_str(&'de str) => |v: &&str| Seen::Str((*v).to_string());
        visit_string(String) => |v: &String| Seen::Str(v.clone());
        visit_bytes(&[u8]) => |_: &&[u8]| Seen::Unknown;
        visit_borrowed_bytes(&'de [u8]) => |_: &&[u8]| Seen::Unknown;
        visit_byte_buf(Vec<u8>) => |_: &Vec<u8>| Seen::Unknown;
    }

    fn visit_none<E: de::Error>(self) -> Result<V::Value, E> {
        *self.seen = Seen::Unit;
        self.visitor.visit_none()
    }

    fn visit_unit<E: de::Error>(self) -> Result<V::Value, E> {
        *self.seen = Seen::Unit;
        self.visitor.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, inner: D) -> Result<V::Value, D::Error> {
        self.visitor.visit_some(Watched {
            inner,
            seen: self.seen,
        })
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, inner: D) -> Result<V::Value, D::Error> {
        self.visitor.visit_newtype_struct(Watched {
            inner,
            seen: self.seen,
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        let mut items = Vec::new();
        let read = self.visitor.visit_seq(WatchedSeq {
            seq,
            items: &mut items,
        });
        *self.seen = Seen::List(items);
        read
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        *self.seen = Seen::Unknown;
        self.visitor.visit_map(map)
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        *self.seen = Seen::Unknown;
        self.visitor.visit_enum(data)
    }
}

/// A list's items, each recorded as it is read (a refused one too, so that its index holds).
struct WatchedSeq<'s, A> {
    seq: A,
    items: &'s mut Vec<Seen>,
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for WatchedSeq<'_, A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        let mut item = Seen::Unknown;
        let read = self.seq.next_element_seed(WatchedSeed {
            seed,
            seen: &mut item,
        });
        if !matches!(read, Ok(None)) {
            self.items.push(item);
        }
        read
    }

    fn size_hint(&self) -> Option<usize> {
        self.seq.size_hint()
    }
}
