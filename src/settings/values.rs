//! The values serde's own rules would read differently in each format: a count given as a
//! JavaScript number (a float) or a Python int, a flag or a list given as `null`. Each says
//! what is wrong in the same words whatever the format, as the command's flags do.

use serde::de::{self, Deserializer, SeqAccess, Visitor};
use std::fmt;

/// A problem with a value, in words: a settings read finds them again (`refusal.rs`), so a
/// reader must say the same words of the same value.
fn refuse<E: de::Error>(problem: String) -> E {
    E::custom(problem)
}

/// A count of tokens, blocks or bytes: a whole number, 0 or more, or nothing. One rule whatever
/// the number's form: at most `usize::MAX` (18446744073709551615 on 64-bit targets), as the
/// command's flags take it, whether written as an integer (`18446744073709551615`) or as a
/// float (`1e19`, a JavaScript number); a float is taken for the whole number it holds.
pub(super) fn count<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<usize>, D::Error> {
    struct Count;
    impl<'de> Visitor<'de> for Count {
        type Value = Option<usize>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a whole number, 0 or more")
        }
        fn visit_none<E: de::Error>(self) -> Result<Option<usize>, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Option<usize>, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<usize>, D::Error> {
            d.deserialize_any(Count)
        }
        fn visit_u64<E: de::Error>(self, n: u64) -> Result<Option<usize>, E> {
            usize::try_from(n).map(Some).map_err(|_| too_large())
        }
        fn visit_i64<E: de::Error>(self, n: i64) -> Result<Option<usize>, E> {
            match u64::try_from(n) {
                Ok(n) => self.visit_u64(n),
                Err(_) => Err(negative()),
            }
        }
        fn visit_f64<E: de::Error>(self, n: f64) -> Result<Option<usize>, E> {
            if n < 0.0 {
                Err(negative())
            } else if n.is_finite() && n.fract() == 0.0 {
                // Whole and at least 0: the cast saturates past u128, and the integer rule
                // decides.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let whole = n as u128;
                match u64::try_from(whole) {
                    Ok(whole) => self.visit_u64(whole),
                    Err(_) => Err(too_large()),
                }
            } else {
                Err(refuse(format!(
                    "expected a whole number, 0 or more, got {n}"
                )))
            }
        }
        fn visit_str<E: de::Error>(self, text: &str) -> Result<Option<usize>, E> {
            Err(refuse(format!(
                "expected a whole number, 0 or more, got the string {text:?}"
            )))
        }
        fn visit_bool<E: de::Error>(self, flag: bool) -> Result<Option<usize>, E> {
            Err(refuse(format!(
                "expected a whole number, 0 or more, got {flag}"
            )))
        }
    }
    fn negative<E: de::Error>() -> E {
        refuse("negative; expected a whole number, 0 or more".to_string())
    }
    fn too_large<E: de::Error>() -> E {
        refuse(format!("too large; at most {}", usize::MAX))
    }
    deserializer.deserialize_option(Count)
}

/// A number, or nothing, read as `f64` (a minimum score, a share).
fn number<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    struct Number;
    impl<'de> Visitor<'de> for Number {
        type Value = Option<f64>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a number")
        }
        fn visit_none<E: de::Error>(self) -> Result<Option<f64>, E> {
            Ok(None)
        }
        fn visit_unit<E: de::Error>(self) -> Result<Option<f64>, E> {
            Ok(None)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<f64>, D::Error> {
            d.deserialize_any(Number)
        }
        #[allow(clippy::cast_precision_loss)]
        fn visit_u64<E: de::Error>(self, n: u64) -> Result<Option<f64>, E> {
            Ok(Some(n as f64))
        }
        #[allow(clippy::cast_precision_loss)]
        fn visit_i64<E: de::Error>(self, n: i64) -> Result<Option<f64>, E> {
            Ok(Some(n as f64))
        }
        fn visit_f64<E: de::Error>(self, n: f64) -> Result<Option<f64>, E> {
            Ok(Some(n))
        }
        fn visit_str<E: de::Error>(self, text: &str) -> Result<Option<f64>, E> {
            Err(refuse(format!(
                "expected a number, got the string {text:?}"
            )))
        }
        fn visit_bool<E: de::Error>(self, flag: bool) -> Result<Option<f64>, E> {
            Err(refuse(format!("expected a number, got {flag}")))
        }
    }
    deserializer.deserialize_option(Number)
}

/// A minimum score: a number (NaN passes here, for the assembler to refuse by name).
pub(super) fn score<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<f32>, D::Error> {
    // An f32, as the command's `--min-score` parses one.
    #[allow(clippy::cast_possible_truncation)]
    number(deserializer).map(|score| score.map(|score| score as f32))
}

/// A share, such as the trim step (its range is the prompt builder's to check).
pub(super) fn share<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    number(deserializer)
}

/// `true` or `false`; nothing is `false`.
pub(super) fn flag<'de, D: Deserializer<'de>>(deserializer: D) -> Result<bool, D::Error> {
    struct Flag;
    impl<'de> Visitor<'de> for Flag {
        type Value = bool;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("true or false")
        }
        fn visit_none<E: de::Error>(self) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_unit<E: de::Error>(self) -> Result<bool, E> {
            Ok(false)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<bool, D::Error> {
            d.deserialize_any(Flag)
        }
        fn visit_bool<E: de::Error>(self, flag: bool) -> Result<bool, E> {
            Ok(flag)
        }
        fn visit_u64<E: de::Error>(self, n: u64) -> Result<bool, E> {
            Err(refuse(format!("expected true or false, got {n}")))
        }
        fn visit_i64<E: de::Error>(self, n: i64) -> Result<bool, E> {
            Err(refuse(format!("expected true or false, got {n}")))
        }
        fn visit_f64<E: de::Error>(self, n: f64) -> Result<bool, E> {
            Err(refuse(format!("expected true or false, got {n}")))
        }
        fn visit_str<E: de::Error>(self, text: &str) -> Result<bool, E> {
            Err(refuse(format!(
                "expected true or false, got the string {text:?}"
            )))
        }
    }
    deserializer.deserialize_option(Flag)
}

/// A list of strings (metadata keys); nothing is an empty list.
pub(super) fn list<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Vec<String>, D::Error> {
    struct List;
    impl<'de> Visitor<'de> for List {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a list of strings")
        }
        fn visit_none<E: de::Error>(self) -> Result<Vec<String>, E> {
            Ok(Vec::new())
        }
        fn visit_unit<E: de::Error>(self) -> Result<Vec<String>, E> {
            Ok(Vec::new())
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Vec<String>, D::Error> {
            d.deserialize_any(List)
        }
        fn visit_str<E: de::Error>(self, text: &str) -> Result<Vec<String>, E> {
            Err(refuse(format!(
                "expected a list of strings, got the string {text:?}"
            )))
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<String>, A::Error> {
            let mut keys = Vec::new();
            loop {
                let at = keys.len();
                match seq.next_element::<String>() {
                    Ok(Some(key)) => keys.push(key),
                    Ok(None) => return Ok(keys),
                    Err(_) => return Err(refuse(format!("[{at}]: expected a string"))),
                }
            }
        }
    }
    deserializer.deserialize_option(List)
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::count;

    fn read(value: Value) -> Result<Option<usize>, String> {
        count(value).map_err(|err| err.to_string())
    }

    /// A count has one bound whatever its form: an integer past it and a float past it are
    /// refused alike, and a whole float under it is read.
    #[cfg(target_pointer_width = "64")]
    #[test]
    fn a_count_has_one_bound_whether_integer_or_float() {
        let too_large = format!("too large; at most {}", usize::MAX);
        assert_eq!(read(json!(u64::MAX)), Ok(Some(usize::MAX)));
        assert_eq!(read(json!(1e19)), Ok(Some(10_000_000_000_000_000_000)));
        assert_eq!(
            read(json!(9_007_199_254_740_994.0)),
            Ok(Some(9_007_199_254_740_994))
        );
        assert_eq!(read(json!(3.0)), Ok(Some(3)));
        for past in [
            json!(1e20),
            json!(18_446_744_073_709_551_616.0),
            json!(1e300),
        ] {
            assert_eq!(read(past.clone()), Err(too_large.clone()), "{past}");
        }
        let past: Value = serde_json::from_str("18446744073709551616").unwrap();
        assert_eq!(read(past), Err(too_large));
        assert!(
            read(json!(2.5))
                .unwrap_err()
                .contains("expected a whole number")
        );
        assert!(read(json!(-1.0)).unwrap_err().starts_with("negative"));
    }
}
