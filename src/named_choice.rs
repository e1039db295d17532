//! One name per value: the choices that are named (an overflow policy, an encoding, a
//! dialect, ...) are written and read by the same name everywhere, in serde, `Display`,
//! `FromStr`, the command's flags, the settings files and the bindings.
//!
//! [`named_choice!`] writes those four impls from a type's `ALL` and `as_str`, so that no
//! impl can spell a value its own way: serde writes `as_str`, and reads what `FromStr` reads.
//! Reading ignores ASCII letter case everywhere, and takes the spellings of earlier versions
//! listed as `legacy` (a stored settings file may hold them); writing never produces them.

/// `names` as words: `a`, `a or b`, `a, b or c`.
#[cfg(test)]
pub(crate) fn words(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [only] => (*only).to_string(),
        [first @ .., last] => format!("{} or {last}", first.join(", ")),
    }
}

/// Writes `Display`, `FromStr` (ASCII case-insensitive), `Serialize` and `Deserialize` for a
/// `Copy` enum with an inherent `ALL` and `as_str`, by those names.
///
/// `kind` names what is named in an unknown name's error (`"overflow policy"`), `expected`
/// lists the names as words (a unit test checks it against `ALL`). `legacy` maps older
/// spellings, still read; `unknown` replaces the unknown-name error where a type says more.
macro_rules! named_choice {
    (
        $type:ty, $kind:literal, $expected:literal
        $(, legacy: [$($old:literal => $value:expr),* $(,)?])?
        $(, unknown: $unknown:path)?
    ) => {
        impl ::std::fmt::Display for $type {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl ::std::str::FromStr for $type {
            type Err = $crate::error::Error;

            fn from_str(name: &str) -> Result<Self, $crate::error::Error> {
                if let Some(value) = <$type>::ALL
                    .iter().copied()
                    .find(|value| value.as_str().eq_ignore_ascii_case(name))
                {
                    return Ok(value);
                }
                $($(
                    if name.eq_ignore_ascii_case($old) {
                        return Ok($value);
                    }
                )*)?
                $(return Err($unknown(name));)?
                #[allow(unreachable_code)]
                Err($crate::error::Error::unknown_name($kind, name, $expected))
            }
        }

        impl ::serde::Serialize for $type {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $type {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct Visitor;
                impl ::serde::de::Visitor<'_> for Visitor {
                    type Value = $type;
                    fn expecting(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                        write!(f, "a {}: {}", $kind, $expected)
                    }
                    fn visit_str<E: ::serde::de::Error>(self, name: &str) -> Result<$type, E> {
                        name.parse().map_err(|err: $crate::error::Error| E::custom(err))
                    }
                }
                deserializer.deserialize_str(Visitor)
            }
        }

        /// A string, one of the names.
        #[cfg(feature = "openapi")]
        impl ::utoipa::PartialSchema for $type {
            fn schema() -> ::utoipa::openapi::RefOr<::utoipa::openapi::schema::Schema> {
                ::utoipa::openapi::ObjectBuilder::new()
                    .schema_type(::utoipa::openapi::Type::String)
                    .enum_values(Some(<$type>::ALL.iter().copied().map(<$type>::as_str)))
                    .into()
            }
        }

        #[cfg(feature = "openapi")]
        impl ::utoipa::ToSchema for $type {}

        #[cfg(test)]
        impl $crate::named_choice::Listed for $type {
            const EXPECTED: &'static str = $expected;
            fn names() -> Vec<&'static str> {
                <$type>::ALL.iter().copied().map(<$type>::as_str).collect()
            }
        }
    };
}

pub(crate) use named_choice;

/// What the tests check of every named choice: its listed names are its `ALL`.
#[cfg(test)]
pub(crate) trait Listed: std::str::FromStr + serde::Serialize + std::fmt::Display {
    const EXPECTED: &'static str;
    fn names() -> Vec<&'static str>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dialects::Dialect;
    use crate::format::BuiltinFormat;
    use crate::prompt::{ContextPlacement, ReasoningEffort};
    use crate::tokenizer::{Engine, TokenizerKind};
    use crate::{Duplicates, Encoding, Order, Overflow};

    /// Every name is read in any case, written back as itself by `Display` and serde, and
    /// listed in the unknown-name error.
    fn check<T: Listed + serde::de::DeserializeOwned + std::fmt::Debug + PartialEq>() {
        let names = T::names();
        assert_eq!(T::EXPECTED, words(&names));
        for name in names {
            let upper = name.to_ascii_uppercase();
            let Ok(value) = upper.parse::<T>() else {
                panic!("{upper} is not read")
            };
            assert_eq!(value.to_string(), name);
            let json = serde_json::to_string(&value).unwrap();
            assert_eq!(json, format!("\"{name}\""));
            assert_eq!(serde_json::from_str::<T>(&json).unwrap(), value);
            let shouted: T = serde_json::from_str(&format!("\"{upper}\"")).unwrap();
            assert_eq!(shouted, value);
        }
        let Err(err) = serde_json::from_str::<T>("\"no-such-name\"") else {
            panic!("an unknown name is read")
        };
        assert!(err.to_string().contains(T::EXPECTED), "{err}");
    }

    #[test]
    fn every_choice_has_one_name_everywhere() {
        check::<Overflow>();
        check::<Duplicates>();
        check::<Order>();
        check::<Engine>();
        check::<BuiltinFormat>();
        check::<Dialect>();
        check::<ContextPlacement>();
        check::<ReasoningEffort>();
        check::<TokenizerKind>();
        let names = Encoding::names();
        assert_eq!(Encoding::EXPECTED, words(&names));
        for name in names {
            assert_eq!(
                name.to_ascii_uppercase()
                    .parse::<Encoding>()
                    .unwrap()
                    .as_str(),
                name
            );
        }
    }

    #[test]
    fn earlier_spellings_are_still_read_and_never_written() {
        let read: Duplicates = serde_json::from_str("\"urlAndContent\"").unwrap();
        assert_eq!(read, Duplicates::UrlAndContent);
        assert_eq!(serde_json::to_string(&read).unwrap(), "\"url-and-content\"");
        let read: Order = serde_json::from_str("\"asGiven\"").unwrap();
        assert_eq!(read, Order::AsGiven);
        assert_eq!(serde_json::to_string(&read).unwrap(), "\"as-given\"");
    }

    #[test]
    fn words_join_as_a_sentence_does() {
        assert_eq!(words(&["a"]), "a");
        assert_eq!(words(&["a", "b"]), "a or b");
        assert_eq!(words(&["a", "b", "c"]), "a, b or c");
    }
}
