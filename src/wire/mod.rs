//! Reading requests as .NET writes them: the JSON wire form of `MentorRagResult`.
//!
//! A .NET service serializes its `List<MentorRagResult>` with System.Text.Json's web
//! defaults, and these functions read it the same way:
//!
//! - property names in any letter case (`Content`, `SourceUrl`, `sourceURL`), as
//!   `PropertyNameCaseInsensitive` does; the same property twice under two spellings is an
//!   error rather than a silent choice;
//! - a score as a number or a string holding a JSON number (`"0.9"`), as
//!   `NumberHandling.AllowReadingFromString` does, and `"NaN"`, `"Infinity"` and
//!   `"-Infinity"`, as `JsonNumberHandling.AllowNamedFloatingPointLiterals` writes them;
//! - `null` metadata values (`Dictionary<string, string?>`): kept on the citation as `null`,
//!   with no line in the prompt;
//! - unknown properties ignored, as .NET does, but listed ([`UnknownProperty`], with the
//!   closest known name), or refused with [`UnknownProperties::Reject`].
//!
//! A request that is not an array is named in plain words ("found an object holding an array
//! in `results`; pass the array itself"). `result.rs` reads one result; `similar.rs` finds the
//! closest known name; `in_place/` reads a field into the value already there, for a caller
//! that reads request after request into the same buffers.

mod in_place;
mod result;
pub(crate) mod similar;

use std::fmt;
use std::sync::Arc;

use serde::de::{self, DeserializeSeed, Deserializer, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::Error;
use crate::rag_result::MentorRagResult;
use result::{RecordInto, Unknowns};
pub use result::{UnknownProperties, UnknownProperty};

/// A request read by [`parse_request`]: the results, and the properties that were ignored.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ParsedResults {
    /// The results, in input order.
    pub results: Vec<MentorRagResult>,
    /// One entry per distinct unknown property name, in the order first seen.
    pub unknown_properties: Vec<UnknownProperty>,
}

/// Reads a JSON array of results in the wire form of [`MentorRagResult`], as .NET's
/// System.Text.Json web defaults read it (property names in any case, numeric-string scores,
/// `null` metadata values). Unknown properties are ignored; [`parse_request`] reports them.
///
/// # Errors
///
/// [`Error::Json`], with the line and column, when the text is not JSON, not an array of
/// results (the message says what it is instead), a record lacks `content` or `score`, a
/// field has the wrong type (metadata values must be strings or `null`), or a score is not a
/// finite number.
///
/// ```
/// let results = mentor_context::wire::parse_results(r#"[{"Content":"a","Score":"1"}]"#)?;
/// assert_eq!(results[0].score, 1.0);
///
/// let err = mentor_context::wire::parse_results(r#"[{"score":1}]"#).unwrap_err();
/// assert_eq!(err.to_string(), "line 1, column 12: missing field `content`");
/// # Ok::<(), mentor_context::Error>(())
/// ```
pub fn parse_results(json: &str) -> Result<Vec<MentorRagResult>, Error> {
    parse_request(json, UnknownProperties::Report).map(|parsed| parsed.results)
}

/// [`parse_results`], also telling what was ignored: with [`UnknownProperties::Report`] each
/// distinct unknown property is listed with the known name it most resembles; with
/// [`UnknownProperties::Reject`] the first one is an error.
///
/// # Errors
///
/// As [`parse_results`], and [`Error::Json`] at the first unknown property with
/// [`UnknownProperties::Reject`].
///
/// ```
/// use mentor_context::wire::{UnknownProperties, parse_request};
///
/// let json = r#"[{"content":"a","score":1,"source_url":"https://x.example"}]"#;
/// let parsed = parse_request(json, UnknownProperties::Report)?;
/// assert_eq!(parsed.unknown_properties[0].name, "source_url");
/// assert_eq!(parsed.unknown_properties[0].closest.as_deref(), Some("sourceUrl"));
///
/// let err = parse_request(json, UnknownProperties::Reject).unwrap_err();
/// assert!(err.to_string().ends_with("unknown property `source_url` (did you mean `sourceUrl`?)"));
/// # Ok::<(), mentor_context::Error>(())
/// ```
pub fn parse_request(json: &str, unknown: UnknownProperties) -> Result<ParsedResults, Error> {
    let start = json.len() - json.trim_start().len();
    if !json[start..].starts_with('[') {
        return Err(not_an_array(json, start));
    }
    let mut deserializer = serde_json::Deserializer::from_str(json);
    let parsed = deserialize_request(&mut deserializer, unknown)?;
    if let Err(err) = deserializer.end() {
        // serde_json says "trailing characters"; the position of the extra JSON is right.
        let mut error = Error::from(err);
        if let Error::Json { message, .. } = &mut error {
            *message = "expected one JSON array of results, found more JSON after it \
                        (for many requests use `mentor-context batch`)"
                .to_string();
        }
        return Err(error);
    }
    Ok(parsed)
}

/// [`parse_request`] over any serde [`Deserializer`], not only JSON text: a request already
/// in memory in another data model (Python objects through `pythonize`, say) is read with
/// exactly the rules of the wire form (property names in any case, numeric-string scores,
/// `null` metadata values) and its unknown properties reported or refused the same way.
///
/// # Errors
///
/// The deserializer's own error when the input is not a sequence of results, a record
/// lacks `content` or `score`, a field has the wrong type, a score is not finite, or, with
/// [`UnknownProperties::Reject`], at the first unknown property.
///
/// ```
/// use mentor_context::wire::{UnknownProperties, deserialize_request};
///
/// let value = serde_json::json!([{"Content": "a", "score": "0.5", "url": "x"}]);
/// let parsed = deserialize_request(&value, UnknownProperties::Report)?;
/// assert_eq!(parsed.results[0].score, 0.5);
/// assert_eq!(parsed.unknown_properties[0].name, "url");
/// # Ok::<(), serde_json::Error>(())
/// ```
pub fn deserialize_request<'de, D: Deserializer<'de>>(
    deserializer: D,
    unknown: UnknownProperties,
) -> Result<ParsedResults, D::Error> {
    let mut parsed = ParsedResults::default();
    deserialize_request_into(deserializer, unknown, &mut parsed)?;
    Ok(parsed)
}

/// [`deserialize_request`] into `parsed`, keeping its buffers; see
/// [`machinery::deserialize_request_into`](crate::machinery), where it is public.
pub(crate) fn deserialize_request_into<'de, D: Deserializer<'de>>(
    deserializer: D,
    unknown: UnknownProperties,
    parsed: &mut ParsedResults,
) -> Result<(), D::Error> {
    let mut unknowns = Unknowns::new(Some(unknown));
    let read = ListInto {
        unknowns: &mut unknowns,
        place: &mut parsed.results,
    }
    .deserialize(deserializer);
    if let Err(err) = read {
        parsed.results.clear();
        parsed.unknown_properties.clear();
        return Err(err);
    }
    parsed.unknown_properties = unknowns.into_found();
    Ok(())
}

/// Reads the array into `place`, each record into the one already at its index; the list
/// ends as long as the array.
struct ListInto<'u, 'p> {
    unknowns: &'u mut Unknowns,
    place: &'p mut Vec<MentorRagResult>,
}

impl<'de> DeserializeSeed<'de> for ListInto<'_, '_> {
    type Value = ();

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ListInto<'_, '_> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON array of results")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        // The size hint of a JSON array is unknown, and a hostile one could claim anything:
        // the list grows by what is read, not by what is claimed.
        let mut read = 0;
        loop {
            if read == self.place.len() {
                self.place.push(MentorRagResult::default());
            }
            let record = RecordInto {
                unknowns: &mut *self.unknowns,
                place: &mut self.place[read],
            };
            if seq.next_element_seed(record)?.is_none() {
                break;
            }
            read += 1;
        }
        self.place.truncate(read);
        Ok(())
    }
}

/// The error for a request that does not start with `[`, saying what it is instead: one
/// object (perhaps a single result), an object holding the array, one object per line (JSON
/// Lines), or a value of another kind. Only runs on the error path.
fn not_an_array(json: &str, start: usize) -> Error {
    let mut values = serde_json::Deserializer::from_str(&json[start..]).into_iter::<Value>();
    let first = match values.next() {
        Some(Ok(value)) => value,
        // Not JSON at all: the parser's own message, at its position.
        Some(Err(err)) => return Error::from(err),
        None => {
            return at(
                json,
                start,
                "empty input; expected a JSON array of results",
                None,
            );
        }
    };
    let found = match &first {
        Value::Object(map) => {
            let another = matches!(values.next(), Some(Ok(Value::Object(_))));
            let holder = map.iter().find(|(_, v)| v.is_array()).map(|(k, _)| k);
            match (another, holder) {
                (true, _) => "one JSON object per line (JSON Lines); put the results in one \
                              array, [{...}, {...}]"
                    .to_string(),
                (false, Some(key)) => format!(
                    "an object holding an array in `{key}`; pass the array itself \
                     (for many requests use `mentor-context batch`)"
                ),
                // One result sent alone, as a .NET service that serializes an item rather
                // than its list does: the fix is two characters.
                (false, None) if map.keys().any(|k| k.eq_ignore_ascii_case("content")) => {
                    "an object, a single result: wrap it in [ ]".to_string()
                }
                (false, None) => {
                    "an object (for many requests use `mentor-context batch`)".to_string()
                }
            }
        }
        Value::String(_) => "a string".to_string(),
        Value::Number(_) => "a number".to_string(),
        Value::Bool(b) => format!("`{b}`"),
        Value::Null => "`null`".to_string(),
        Value::Array(_) => unreachable!("the text does not start with `[`"),
    };
    at(
        json,
        start,
        &format!("expected a JSON array of results, found {found}"),
        None,
    )
}

/// An [`Error::Json`] at byte `offset` of `json`.
fn at(
    json: &str,
    offset: usize,
    message: &str,
    source: impl Into<Option<serde_json::Error>>,
) -> Error {
    let before = &json[..offset];
    let line = 1 + before.matches('\n').count();
    let column = 1 + offset - before.rfind('\n').map_or(0, |at| at + 1);
    let source = source
        .into()
        .unwrap_or_else(|| <serde_json::Error as de::Error>::custom(message));
    Error::Json {
        line,
        column,
        message: message.to_string(),
        source: Arc::new(source),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(json: &str) -> String {
        parse_results(json).unwrap_err().to_string()
    }

    #[test]
    fn shapes_that_are_not_an_array_are_named_in_plain_words() {
        assert_eq!(
            message(r#"{"Content":"x","score":1}"#),
            "line 1, column 1: expected a JSON array of results, found an object, a single \
             result: wrap it in [ ]"
        );
        assert_eq!(
            message(r#"{"text":"x","score":1}"#),
            "line 1, column 1: expected a JSON array of results, found an object \
             (for many requests use `mentor-context batch`)"
        );
        assert_eq!(
            message("\n  {\"results\": [{\"content\":\"x\",\"score\":1}]}"),
            "line 2, column 3: expected a JSON array of results, found an object holding an \
             array in `results`; pass the array itself (for many requests use `mentor-context \
             batch`)"
        );
        assert!(
            message("{\"content\":\"a\",\"score\":1}\n{\"content\":\"b\",\"score\":1}\n")
                .contains("found one JSON object per line (JSON Lines)")
        );
        assert!(message("\"x\"").ends_with("found a string"));
        assert!(message("12").ends_with("found a number"));
        assert!(message("null").ends_with("found `null`"));
        assert!(message("true").ends_with("found `true`"));
        assert!(message("[1]").contains("expected a result object"));
        assert!(message("   ").contains("empty input"));
        assert_eq!(
            message("[]\n[]"),
            "line 2, column 1: expected one JSON array of results, found more JSON after it \
             (for many requests use `mentor-context batch`)"
        );
        // Not JSON: the parser's description, at its position.
        assert!(message("{oops").starts_with("line 1, column 2: key must be a string"));
    }

    #[test]
    fn report_lists_unknown_properties_and_reject_refuses_at_the_property() {
        let json =
            "[{\"content\":\"a\",\"score\":1},\n{\"content\":\"b\",\"score\":1,\"Url\":\"u\"}]";
        let parsed = parse_request(json, UnknownProperties::Report).unwrap();
        assert_eq!(parsed.results.len(), 2);
        assert_eq!(parsed.unknown_properties.len(), 1);
        let err = parse_request(json, UnknownProperties::Reject).unwrap_err();
        let Error::Json { line, message, .. } = &err else {
            panic!("{err:?}")
        };
        assert_eq!(*line, 2);
        assert!(message.starts_with("unknown property `Url`"), "{message}");
    }

    #[test]
    fn any_deserializer_reads_as_the_text_reader_does() {
        let json = r#"[{"CONTENT":"a","score":"0.25","metadata":{"k":null}},
                       {"content":"b","score":1,"source_url":"u"},{"content":"c","score":2,"source_url":"v"}]"#;
        let value: Value = serde_json::from_str(json).unwrap();
        let from_text = parse_request(json, UnknownProperties::Report).unwrap();
        let from_value = deserialize_request(&value, UnknownProperties::Report).unwrap();
        assert_eq!(from_value, from_text);
        assert_eq!(from_value.unknown_properties[0].count, 2);
        let err = deserialize_request(&value, UnknownProperties::Reject).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("unknown property `source_url` (did you mean `sourceUrl`?)"),
            "{err}"
        );
        let missing = serde_json::json!([{"score": 1}]);
        let err = deserialize_request(&missing, UnknownProperties::Report).unwrap_err();
        assert_eq!(err.to_string(), "missing field `content`");
        let one = serde_json::json!({"content": "a", "score": 1});
        let err = deserialize_request(&one, UnknownProperties::Report).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid type: map, expected a JSON array of results"
        );
    }
}
