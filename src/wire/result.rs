//! Reading one record as System.Text.Json's web defaults read it: property names in any
//! letter case, a score given as a numeric string, `null` metadata values, unknown properties
//! ignored (and, when asked, reported or refused).

use std::collections::HashMap;
use std::fmt;

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, Visitor};
use serde::{Deserialize, Serialize};

use super::in_place::{OptionInto, StringInto};
use super::similar::closest;
use crate::rag_result::MentorRagResult;

/// The property names of the wire form, as written.
pub(super) const PROPERTIES: [&str; 5] = ["content", "sourceUrl", "title", "score", "metadata"];

/// What to do with a property the record does not have.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum UnknownProperties {
    /// Ignore it, as System.Text.Json does, and list it in
    /// [`ParsedResults::unknown_properties`](super::ParsedResults::unknown_properties).
    #[default]
    Report,
    /// Refuse the request: [`Error::Json`](crate::Error::Json) at the property.
    Reject,
}

/// A property the records had that [`MentorRagResult`] does not: it was ignored.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct UnknownProperty {
    /// The name as written in the input (the first spelling seen).
    pub name: String,
    /// The known property it most resembles, when one is close (`source_url` → `sourceUrl`).
    pub closest: Option<String>,
    /// In how many records it occurred.
    pub count: usize,
}

/// What to say about it: the name, and the close known name or else the known names.
impl fmt::Display for UnknownProperty {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&describe(&self.name, self.closest.as_deref()))
    }
}

fn describe(name: &str, closest: Option<&str>) -> String {
    match closest {
        Some(known) => format!("unknown property `{name}` (did you mean `{known}`?)"),
        None => format!(
            "unknown property `{name}` (known: {})",
            PROPERTIES.join(", ")
        ),
    }
}

/// Collects the unknown properties of a request: one entry per distinct name.
#[derive(Debug, Default)]
pub(super) struct Unknowns {
    policy: Option<UnknownProperties>,
    found: Vec<UnknownProperty>,
    /// Position in `found` by name: a hostile request can hold many distinct names.
    seen: HashMap<String, usize>,
}

impl Unknowns {
    /// Collects according to `policy`; `None` ignores them without a word (the plain
    /// `Deserialize` of one record, which has nowhere to report to).
    pub(super) fn new(policy: Option<UnknownProperties>) -> Self {
        Unknowns {
            policy,
            ..Unknowns::default()
        }
    }

    fn note<E: de::Error>(&mut self, name: &str) -> Result<(), E> {
        match self.policy {
            None => Ok(()),
            Some(UnknownProperties::Reject) => {
                Err(E::custom(describe(name, closest(name, &PROPERTIES))))
            }
            Some(UnknownProperties::Report) => {
                if let Some(&at) = self.seen.get(name) {
                    self.found[at].count += 1;
                } else {
                    self.seen.insert(name.to_string(), self.found.len());
                    self.found.push(UnknownProperty {
                        name: name.to_string(),
                        closest: closest(name, &PROPERTIES).map(str::to_string),
                        count: 1,
                    });
                }
                Ok(())
            }
        }
    }

    pub(super) fn into_found(self) -> Vec<UnknownProperty> {
        self.found
    }
}

impl<'de> Deserialize<'de> for MentorRagResult {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        RecordSeed(&mut Unknowns::new(None)).deserialize(deserializer)
    }
}

/// Reads one record, noting its unknown properties.
pub(super) struct RecordSeed<'u>(pub(super) &'u mut Unknowns);

impl<'de> DeserializeSeed<'de> for RecordSeed<'_> {
    type Value = MentorRagResult;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<Self::Value, D::Error> {
        let mut result = MentorRagResult::default();
        RecordInto {
            unknowns: self.0,
            place: &mut result,
        }
        .deserialize(deserializer)?;
        Ok(result)
    }
}

/// Reads one record into `place`, keeping the buffers of the one that was there, and notes
/// its unknown properties. The one reader of a record: [`RecordSeed`] reads into a new one.
pub(super) struct RecordInto<'u, 'p> {
    pub(super) unknowns: &'u mut Unknowns,
    pub(super) place: &'p mut MentorRagResult,
}

impl<'de> DeserializeSeed<'de> for RecordInto<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

/// A property of the record, matched in any letter case as System.Text.Json's web defaults
/// (`PropertyNameCaseInsensitive`) do.
enum Property {
    Known(usize),
    Unknown(String),
}

impl<'de> Deserialize<'de> for Property {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Name;
        impl Visitor<'_> for Name {
            type Value = Property;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a property name")
            }
            fn visit_str<E: de::Error>(self, name: &str) -> Result<Property, E> {
                // Most names come as written: an exact match is cheaper to find first.
                let exact = PROPERTIES.iter().position(|p| *p == name);
                let at =
                    exact.or_else(|| PROPERTIES.iter().position(|p| p.eq_ignore_ascii_case(name)));
                Ok(match at {
                    Some(at) => Property::Known(at),
                    None => Property::Unknown(name.to_string()),
                })
            }
        }
        deserializer.deserialize_identifier(Name)
    }
}

impl<'de> Visitor<'de> for RecordInto<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a result object with `content` and `score`")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let place = self.place;
        // Which properties were read: one absent from the input must not keep the value the
        // place held before.
        let mut seen = [false; PROPERTIES.len()];
        while let Some(property) = map.next_key::<Property>()? {
            let at = match property {
                Property::Known(at) => at,
                Property::Unknown(name) => {
                    self.unknowns.note(&name)?;
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            // Two spellings of one property ("content" and "Content") would leave one of
            // them unread: refuse rather than pick one silently.
            if seen[at] {
                return Err(de::Error::custom(format_args!(
                    "`{}` is given twice (property names are read in any letter case)",
                    PROPERTIES[at]
                )));
            }
            seen[at] = true;
            match at {
                0 => map.next_value_seed(StringInto(&mut place.content))?,
                1 => map.next_value_seed(OptionInto(&mut place.source_url))?,
                2 => map.next_value_seed(OptionInto(&mut place.title))?,
                3 => place.score = map.next_value_seed(Score)?,
                _ => map.next_value_seed(OptionInto(&mut place.metadata))?,
            }
        }
        let [content, source_url, title, score, metadata] = seen;
        if !content {
            return Err(de::Error::missing_field("content"));
        }
        if !score {
            return Err(de::Error::missing_field("score"));
        }
        if !source_url {
            place.source_url = None;
        }
        if !title {
            place.title = None;
        }
        if !metadata {
            place.metadata = None;
        }
        Ok(())
    }
}

/// Reads a score: any JSON number that is finite as a 32-bit float, or a string holding one
/// (System.Text.Json's web defaults set `NumberHandling.AllowReadingFromString`), or one of
/// the strings `"NaN"`, `"Infinity"` and `"-Infinity"`, which .NET writes for those values
/// under `JsonNumberHandling.AllowNamedFloatingPointLiterals`. Assembling handles any score.
struct Score;

impl<'de> DeserializeSeed<'de> for Score {
    type Value = f32;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<f32, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl Visitor<'_> for Score {
    type Value = f32;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a finite number, or \"NaN\", \"Infinity\" or \"-Infinity\"")
    }

    fn visit_f64<E: de::Error>(self, score: f64) -> Result<f32, E> {
        // A JSON number too large for f32 would silently become infinity.
        let narrowed = score as f32;
        if narrowed.is_finite() {
            Ok(narrowed)
        } else {
            Err(E::custom(format_args!(
                "score {score:e} is not a finite 32-bit number"
            )))
        }
    }

    fn visit_i64<E: de::Error>(self, score: i64) -> Result<f32, E> {
        self.visit_f64(score as f64)
    }

    fn visit_u64<E: de::Error>(self, score: u64) -> Result<f32, E> {
        self.visit_f64(score as f64)
    }

    fn visit_str<E: de::Error>(self, text: &str) -> Result<f32, E> {
        // .NET's named literals, spelled exactly as it reads them: "nan" or "inf" is not one.
        match text {
            "NaN" => return Ok(f32::NAN),
            "Infinity" => return Ok(f32::INFINITY),
            "-Infinity" => return Ok(f32::NEG_INFINITY),
            _ => {}
        }
        // Else only the JSON number grammar, as .NET reads it: no "inf", "+1", " 1", "1 " or
        // ".5" (serde_json alone would accept whitespace after the number).
        let number = (!text.starts_with(|c: char| c.is_whitespace())
            && !text.ends_with(|c: char| c.is_whitespace()))
        .then(|| serde_json::from_str::<f64>(text).ok())
        .flatten();
        match number {
            Some(score) => self.visit_f64(score),
            None => Err(E::invalid_value(de::Unexpected::Str(text), &self)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(json: &str) -> Result<MentorRagResult, serde_json::Error> {
        serde_json::from_str(json)
    }

    #[test]
    fn property_names_are_read_in_any_case() {
        let pascal =
            read(r#"{"Content":"x","SourceUrl":"u","Title":"t","Score":0.5,"Metadata":{"K":"v"}}"#)
                .unwrap();
        let camel =
            read(r#"{"content":"x","sourceURL":"u","TITLE":"t","score":0.5,"metadata":{"K":"v"}}"#)
                .unwrap();
        assert_eq!(pascal, camel);
        assert_eq!(pascal.source_url.as_deref(), Some("u"));
        assert_eq!(pascal.title.as_deref(), Some("t"));
        // Metadata keys are data, not property names: their case is kept.
        assert!(pascal.metadata.unwrap().contains_key("K"));
    }

    #[test]
    fn scores_may_be_numeric_strings_but_only_numbers() {
        assert_eq!(read(r#"{"content":"x","score":"0.9"}"#).unwrap().score, 0.9);
        assert_eq!(
            read(r#"{"content":"x","score":"-2e1"}"#).unwrap().score,
            -20.0
        );
        for bad in [
            "nan",
            "NAN",
            "inf",
            "infinity",
            "+Infinity",
            " NaN",
            "NaN ",
            "+1",
            " 1",
            "1 ",
            ".5",
            "",
            "high",
            "1e39",
        ] {
            let json = format!(r#"{{"content":"x","score":"{bad}"}}"#);
            assert!(read(&json).is_err(), "{bad:?} was read as a score");
        }
    }

    /// System.Text.Json with `AllowNamedFloatingPointLiterals` writes these three strings for
    /// a `double` that is not finite; escaped characters are read unescaped, as .NET does.
    #[test]
    fn dotnet_named_floating_point_literals_are_read() {
        let score =
            |text: &str| read(&format!(r#"{{"Content":"x","Score":{text}}}"#)).map(|r| r.score);
        assert!(score(r#""NaN""#).unwrap().is_nan());
        assert!(score(r#""\u004eaN""#).unwrap().is_nan());
        assert_eq!(score(r#""Infinity""#).unwrap(), f32::INFINITY);
        assert_eq!(score(r#""-Infinity""#).unwrap(), f32::NEG_INFINITY);
        // A JSON number still has to fit: 1e39 is no infinity .NET meant.
        assert!(score("1e39").is_err());
    }

    #[test]
    fn null_metadata_values_are_kept_as_none() {
        let r = read(r#"{"content":"x","score":1,"metadata":{"a":null,"b":"v"}}"#).unwrap();
        let metadata = r.metadata.unwrap();
        assert_eq!(metadata["a"], None);
        assert_eq!(metadata["b"].as_deref(), Some("v"));
    }

    #[test]
    fn a_property_given_twice_in_two_cases_is_refused() {
        let err = read(r#"{"content":"x","Content":"y","score":1}"#).unwrap_err();
        assert!(
            err.to_string().contains("`content` is given twice"),
            "{err}"
        );
        let err = read(r#"{"content":"x","score":1,"SCORE":2}"#).unwrap_err();
        assert!(err.to_string().contains("`score` is given twice"), "{err}");
    }

    #[test]
    fn unknown_properties_are_counted_once_per_name_or_refused() {
        let json = r#"{"content":"x","score":1,"source_url":"u","embedding":[1,2]}"#;
        let mut unknowns = Unknowns::new(Some(UnknownProperties::Report));
        for _ in 0..3 {
            let mut de = serde_json::Deserializer::from_str(json);
            RecordSeed(&mut unknowns).deserialize(&mut de).unwrap();
        }
        let found = unknowns.into_found();
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].name, "source_url");
        assert_eq!(found[0].closest.as_deref(), Some("sourceUrl"));
        assert_eq!(found[0].count, 3);
        assert_eq!(found[1].closest, None);
        assert_eq!(
            found[1].to_string(),
            "unknown property `embedding` (known: content, sourceUrl, title, score, metadata)"
        );
        let mut reject = Unknowns::new(Some(UnknownProperties::Reject));
        let mut de = serde_json::Deserializer::from_str(json);
        let err = RecordSeed(&mut reject).deserialize(&mut de).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("unknown property `source_url` (did you mean `sourceUrl`?)"),
            "{err}"
        );
    }

    #[test]
    fn the_written_form_stays_camel_case() {
        let r = read(r#"{"CONTENT":"x","Score":"1","Metadata":{"a":null}}"#).unwrap();
        assert_eq!(
            serde_json::to_string(&r).unwrap(),
            r#"{"content":"x","sourceUrl":null,"title":null,"score":1.0,"metadata":{"a":null}}"#
        );
    }
}
