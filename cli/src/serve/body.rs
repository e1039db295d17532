//! A request's JSON body: checked for its content type and read into its named parts, each
//! kept as the raw JSON it is, for the library's own readers (the wire rules for results, the
//! report's `Deserialize`) to read. Keys are matched in any letter case, as System.Text.Json
//! reads them: a .NET backend sends `Results` as readily as `results`.

use std::collections::BTreeMap;

use mentor_context::ErrorKind;
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
        let given: BTreeMap<&'a str, &'a RawValue> =
            serde_json::from_str(text).map_err(json_problem)?;
        let mut parts = BTreeMap::new();
        for (key, value) in given {
            let Some(name) = known.iter().find(|name| name.eq_ignore_ascii_case(key)) else {
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
        Problem::bad_request(
            err.kind(),
            format!("{name}: {}", shifted.unwrap_or_else(|| err.to_string())),
        )
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
