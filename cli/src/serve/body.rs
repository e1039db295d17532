//! A request's JSON body: checked for its content type and read into its named parts, each
//! kept as the raw JSON it is, for the library's own readers (the wire rules for results, the
//! report's `Deserialize`) to read. Keys are matched in any letter case, as System.Text.Json
//! reads them: a .NET backend sends `Results` as readily as `results`.

use std::borrow::Cow;
use std::collections::BTreeMap;

use mentor_context::ErrorKind;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;

use super::problem::Problem;

/// The named parts of a body, by the name the endpoint knows them under.
pub(crate) struct Body<'a> {
    text: &'a str,
    /// Each part's JSON text, a slice of the body's.
    parts: BTreeMap<&'static str, &'a str>,
}

impl<'a> Body<'a> {
    /// Reads `bytes` as a JSON object of the parts `known` names (a bare array is the part
    /// `array_as`, when one is given), refusing what is not JSON, not UTF-8 or not such an
    /// object.
    pub(crate) fn read(
        bytes: &'a [u8],
        known: &[&'static str],
        array_as: Option<&'static str>,
    ) -> Result<Body<'a>, Problem> {
        let text = std::str::from_utf8(bytes)
            .map_err(|_| Problem::bad_request(ErrorKind::InvalidJson, "the body is not UTF-8"))?;
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let trimmed = text.trim_start();
        if trimmed.is_empty() {
            return Err(Problem::bad_request(
                ErrorKind::InvalidJson,
                format!(
                    "the body is empty; expected a JSON object of {}",
                    words(known)
                ),
            ));
        }
        // The bare array is read by its reader alone, which names its problems as the
        // command does for a file.
        if let Some(name) = array_as.filter(|_| trimmed.starts_with('[')) {
            return Ok(Body {
                text,
                parts: BTreeMap::from([(name, text)]),
            });
        }
        let Entries(given) = serde_json::from_str(text).map_err(json_problem)?;
        let mut parts = BTreeMap::new();
        for (key, value) in given {
            let Some(name) = known.iter().find(|name| name.eq_ignore_ascii_case(&key)) else {
                return Err(Problem::bad_request(
                    ErrorKind::InvalidArgument,
                    format!("unknown field `{key}` (expected {})", words(known)),
                ));
            };
            if parts.insert(*name, value.get()).is_some() {
                return Err(Problem::bad_request(
                    ErrorKind::InvalidArgument,
                    format!("`{name}` is given twice (names are read in any letter case)"),
                ));
            }
        }
        Ok(Body { text, parts })
    }

    /// The part `name`'s JSON text, if given and not `null`.
    pub(crate) fn part(&self, name: &str) -> Option<&'a str> {
        self.parts.get(name).copied().filter(|json| *json != "null")
    }

    /// The part `name`'s JSON text, or a problem naming it as missing.
    pub(crate) fn required(&self, name: &str) -> Result<&'a str, Problem> {
        self.part(name).ok_or_else(|| {
            Problem::bad_request(ErrorKind::InvalidArgument, format!("`{name}`: missing"))
        })
    }

    /// A library error in part `name`, its place said in the whole body: a JSON error's line
    /// and column count from the body's start, not the part's.
    pub(crate) fn problem_in(&self, name: &str, err: &mentor_context::Error) -> Problem {
        let shifted = match (err, self.parts.get(name)) {
            (
                mentor_context::Error::Json {
                    line,
                    column,
                    message,
                    ..
                },
                Some(part),
            ) => {
                let start = part.as_ptr() as usize - self.text.as_ptr() as usize;
                let before = &self.text[..start.min(self.text.len())];
                let lines_before = before.matches('\n').count();
                let column = if *line == 1 {
                    column + before.rsplit('\n').next().map_or(0, |l| l.chars().count())
                } else {
                    *column
                };
                Some(format!(
                    "line {}, column {column}: {message}",
                    line + lines_before
                ))
            }
            _ => None,
        };
        let detail = shifted.unwrap_or_else(|| err.to_string());
        Problem::bad_request(err.kind(), super::problem::in_part(name, &detail))
    }
}

/// A JSON object's entries as they come, each value's raw text: every one, so that a name
/// given twice is seen (a map would keep the last silently), and names with escapes read.
struct Entries<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de: 'a, 'a> Deserialize<'de> for Entries<'a> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct EntriesVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for EntriesVisitor<'a> {
            type Value = Entries<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Entries<'a>, M::Error> {
                let mut entries = Vec::new();
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    entries.push((key, map.next_value::<&'de RawValue>()?));
                }
                Ok(Entries(entries))
            }
        }
        deserializer.deserialize_map(EntriesVisitor(std::marker::PhantomData))
    }
}

/// A body that is not the JSON it should be, at its line and column.
fn json_problem(err: serde_json::Error) -> Problem {
    let err = mentor_context::Error::from(err);
    Problem::bad_request(err.kind(), format!("the body: {err}"))
}

fn words(names: &[&str]) -> String {
    match names {
        [] => String::new(),
        [one] => format!("`{one}`"),
        [first @ .., last] => format!(
            "{} and `{last}`",
            first
                .iter()
                .map(|name| format!("`{name}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::Body;

    const KNOWN: &[&str] = &["results", "previous"];

    fn detail(bytes: &[u8]) -> String {
        let problem = Body::read(bytes, KNOWN, Some("results"))
            .err()
            .expect("refused");
        serde_json::to_value(&problem).unwrap()["detail"]
            .as_str()
            .unwrap()
            .to_string()
    }

    #[test]
    fn a_name_given_twice_is_refused_whatever_its_letter_case() {
        for body in [
            r#"{"results": [], "results": [1]}"#,
            r#"{"results": [], "Results": [1]}"#,
            r#"{"results": [], "res\u0075lts": [1]}"#,
        ] {
            assert_eq!(
                detail(body.as_bytes()),
                "`results` is given twice (names are read in any letter case)",
                "{body}"
            );
        }
    }

    #[test]
    fn what_is_refused_says_what_was_expected() {
        assert_eq!(
            detail(b"{\"x\": 1}"),
            "unknown field `x` (expected `results` and `previous`)"
        );
        assert_eq!(
            detail(b"  "),
            "the body is empty; expected a JSON object of `results` and `previous`"
        );
        let three = Body::read(b"{\"x\": 1}", &["a", "b", "c"], None)
            .err()
            .unwrap();
        assert!(
            serde_json::to_value(&three).unwrap()["detail"]
                .as_str()
                .unwrap()
                .ends_with("(expected `a`, `b` and `c`)")
        );
        assert!(
            detail(b"1").contains("expected a JSON object"),
            "{}",
            detail(b"1")
        );
        let body = Body::read(b"{\"results\": []}", KNOWN, None).ok().unwrap();
        assert_eq!(body.required("results").ok(), Some("[]"));
        let missing = body.required("previous").err().unwrap();
        assert_eq!(
            serde_json::to_value(&missing).unwrap()["detail"],
            "`previous`: missing"
        );
    }

    /// A result's reader places its error in the part; the problem places it in the body: on
    /// the part's first line the column counts from the body's line, below it the line
    /// counts from the body's first.
    #[test]
    fn a_json_error_in_a_part_is_placed_in_the_whole_body() {
        for (body, part_place, body_place) in [
            (
                "{\"results\": [{\"content\": 1}]}",
                "line 1, column 14",
                "line 1, column 26",
            ),
            (
                "{\n  \"results\": [\n    {\"content\": 1}]}",
                "line 2, column 17",
                "line 3, column 17",
            ),
        ] {
            let read = Body::read(body.as_bytes(), KNOWN, None).ok().unwrap();
            let err = mentor_context::wire::parse_results(read.required("results").ok().unwrap())
                .unwrap_err();
            assert!(err.to_string().starts_with(part_place), "{err}");
            let problem = serde_json::to_value(read.problem_in("results", &err)).unwrap();
            let detail = problem["detail"].as_str().unwrap();
            assert!(
                detail.starts_with(&format!("results: {body_place}: ")),
                "{detail}"
            );
        }
    }

    #[test]
    fn a_name_written_with_escapes_is_read() {
        let body = br#"{"res\u0075lts": [], "Previous": null}"#;
        let read = Body::read(body, KNOWN, Some("results")).ok().unwrap();
        assert_eq!(read.part("results"), Some("[]"));
        assert_eq!(read.part("previous"), None);
    }

    proptest! {
        /// Any bytes: refused with a problem that says what is wrong, or read into parts
        /// that are each a slice of the body holding one JSON value.
        #[test]
        fn any_bytes_are_read_or_refused_with_a_reason(
            bytes in prop_oneof![
                proptest::collection::vec(any::<u8>(), 0..64),
                "[{}\\[\\]\":,a-zA-Z0-9 \\\\u]{0,64}".prop_map(String::into_bytes),
            ]
        ) {
            match Body::read(&bytes, KNOWN, Some("results")) {
                Ok(body) => {
                    for name in KNOWN {
                        if let Some(part) = body.part(name) {
                            prop_assert!(serde_json::from_str::<serde_json::Value>(part).is_ok()
                                || part.trim_start().starts_with('['), "{part}");
                        }
                    }
                }
                Err(problem) => {
                    let problem = serde_json::to_value(&problem).unwrap();
                    prop_assert_eq!(&problem["status"], 400);
                    prop_assert!(!problem["detail"].as_str().unwrap().is_empty());
                }
            }
        }
    }
}
