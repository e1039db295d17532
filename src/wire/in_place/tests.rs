//! The in-place readers against the plain types' own readers.

use serde::Deserialize;
use serde::de::IntoDeserializer;
use serde::de::value::{
    BytesDeserializer, Error, I64Deserializer, StringDeserializer, UnitDeserializer,
};

use super::*;

/// Equal, and in the same order: `==` on an `IndexMap` does not look at the order.
#[track_caller]
fn same<T: std::fmt::Debug>(into: T, plain: T, what: &str) {
    assert_eq!(format!("{into:?}"), format!("{plain:?}"), "{what}");
}

/// Reads `$input` (an expression making a fresh deserializer) as each plain type and
/// into a place that held something else: the value or the error must be the same.
macro_rules! reads_as_the_plain_type {
    ($input:expr) => {{
        let what = stringify!($input);
        let plain = String::deserialize($input).map_err(|e: Error| e.to_string());
        let mut text = "left over".to_string();
        let into = StringInto(&mut text).deserialize($input);
        let into = into.map(|()| text.clone()).map_err(|e| e.to_string());
        same(into, plain, &format!("String from {what}"));

        let plain = Option::<String>::deserialize($input).map_err(|e: Error| e.to_string());
        let mut optional = Some("left over".to_string());
        let into = OptionInto(&mut optional).deserialize($input);
        let into = into.map(|()| optional.clone()).map_err(|e| e.to_string());
        same(into, plain, &format!("Option<String> from {what}"));

        let plain = Option::<Metadata>::deserialize($input).map_err(|e: Error| e.to_string());
        let mut table = Some(Metadata::from_iter([("old".to_string(), None)]));
        let into = OptionInto(&mut table).deserialize($input);
        let into = into.map(|()| table.clone()).map_err(|e| e.to_string());
        same(into, plain, &format!("Option<Metadata> from {what}"));
    }};
}

#[test]
fn every_kind_of_value_reads_as_it_reads_into_the_plain_type() {
    reads_as_the_plain_type!(IntoDeserializer::<Error>::into_deserializer("abc"));
    reads_as_the_plain_type!(StringDeserializer::<Error>::new("owned".to_string()));
    reads_as_the_plain_type!(BytesDeserializer::<Error>::new(b"bytes"));
    reads_as_the_plain_type!(BytesDeserializer::<Error>::new(&[0xff, 0xfe]));
    reads_as_the_plain_type!(UnitDeserializer::<Error>::new());
    reads_as_the_plain_type!(I64Deserializer::<Error>::new(5));
    reads_as_the_plain_type!(IntoDeserializer::<Error>::into_deserializer(
        std::collections::BTreeMap::from([("k".to_string(), "v".to_string())])
    ));
    reads_as_the_plain_type!(UnitOnly);
}

/// JSON, against the plain types' own visitors (`IndexMap`'s for metadata): the values
/// and the wording of every error.
#[test]
fn json_reads_as_it_reads_into_the_plain_type() {
    for json in [
        r#""text""#,
        "null",
        "5",
        "[1]",
        r#"{"k":"v","w":null}"#,
        r#"{"k":"v","w":null,"k":"again"}"#,
        r#"{"k":5}"#,
        r#"{"k":[]}"#,
    ] {
        macro_rules! json {
            () => {
                &mut serde_json::Deserializer::from_str(json)
            };
        }
        let what = json;
        let plain = String::deserialize(json!()).map_err(|e| e.to_string());
        let mut text = "left over".to_string();
        let into = StringInto(&mut text).deserialize(json!());
        same(into.map(|()| text).map_err(|e| e.to_string()), plain, what);

        let plain = Option::<String>::deserialize(json!()).map_err(|e| e.to_string());
        let mut optional = Some("left over".to_string());
        let into = OptionInto(&mut optional).deserialize(json!());
        same(
            into.map(|()| optional).map_err(|e| e.to_string()),
            plain,
            what,
        );

        let plain = Option::<Metadata>::deserialize(json!()).map_err(|e| e.to_string());
        let mut table = Some(Metadata::from_iter([("k".to_string(), None)]));
        let into = OptionInto(&mut table).deserialize(json!());
        same(into.map(|()| table).map_err(|e| e.to_string()), plain, what);

        // An owned `Value` hands over owned strings (`visit_string`), keys included.
        let value = || serde_json::from_str::<serde_json::Value>(json).unwrap();
        let plain = Option::<Metadata>::deserialize(value()).map_err(|e| e.to_string());
        let mut table = Some(Metadata::from_iter([("k".to_string(), None)]));
        let into = OptionInto(&mut table).deserialize(value());
        let into = into.map(|()| table).map_err(|e| e.to_string());
        same(into, plain, &format!("owned {what}"));
        let plain = String::deserialize(value()).map_err(|e| e.to_string());
        let mut text = "left over".to_string();
        let into = StringInto(&mut text).deserialize(value());
        let into = into.map(|()| text).map_err(|e| e.to_string());
        same(into, plain, &format!("owned {what}"));
    }
}

/// Entries whose keys or values are not strings, and keys given twice, from a map
/// deserializer: worded as `IndexMap`'s own reader words them.
#[test]
fn entries_read_as_indexmap_reads_them() {
    use serde::de::value::MapDeserializer;
    use serde_json::{Value, json};

    let text = |s: &str| Value::String(s.to_string());
    let cases: Vec<Vec<(Value, Value)>> = vec![
        vec![(json!(1), text("v"))],
        vec![(text("k"), json!(5))],
        vec![
            (text("k"), text("v")),
            (text("w"), Value::Null),
            (text("k"), text("x")),
        ],
        vec![(text("w"), text("first")), (text("k"), text("second"))],
    ];
    for entries in cases {
        let input = || MapDeserializer::<_, serde_json::Error>::new(entries.clone().into_iter());
        let plain = Metadata::deserialize(input()).map_err(|e| e.to_string());
        let mut table = Metadata::from_iter([("k".to_string(), Some("old".to_string()))]);
        let into = input().deserialize_map(EntriesInto(&mut table));
        let into = into.map(|()| table).map_err(|e| e.to_string());
        same(into, plain, &format!("{entries:?}"));
    }
}

/// A deserializer that has only a unit to give, however it is asked: as formats without
/// an option type hand over a `null`.
#[derive(Clone, Copy)]
struct UnitOnly;

impl<'de> Deserializer<'de> for UnitOnly {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map struct
        enum identifier ignored_any
    }
}

#[test]
fn a_hostile_size_hint_reserves_a_bounded_table() {
    /// A map that claims a billion entries and has none.
    struct Claims;
    impl<'de> MapAccess<'de> for Claims {
        type Error = Error;
        fn next_key_seed<K: DeserializeSeed<'de>>(
            &mut self,
            _: K,
        ) -> Result<Option<K::Value>, Error> {
            Ok(None)
        }
        fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, _: V) -> Result<V::Value, Error> {
            unreachable!("no key was given")
        }
        fn size_hint(&self) -> Option<usize> {
            Some(1 << 30)
        }
    }
    let mut table = Metadata::default();
    EntriesInto(&mut table).visit_map(Claims).unwrap();
    assert!(table.is_empty());
    assert!(table.capacity() >= MAX_RESERVED_ENTRIES);
    assert!(
        table.capacity() < 2 * MAX_RESERVED_ENTRIES,
        "{}",
        table.capacity()
    );
}
