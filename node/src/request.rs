//! One request's results, read by the library's wire rules, and its work: read, assemble,
//! write the report.
//!
//! A result is an object in the .NET wire form (`content`, `score`, `sourceUrl`, `title`,
//! `metadata`; names in any letter case, a score may be a numeric string, a metadata value
//! may be `null`), read through `mentor_context::machinery::deserialize_request_into`, so it
//! means exactly what the same JSON means to the command. Only the JavaScript side of it is
//! this package's: values are read as `JSON.stringify` would write them.

use mentor_context::machinery::deserialize_request_into;
use mentor_context::wire::{ParsedResults, UnknownProperties};
use mentor_context::{AssembledContext, Assembler};
use serde::Deserialize;

use crate::codec::{DeError, Reader, Tape};
use crate::errors::{ErrorCode, Failure};
use crate::given::Given;

/// A tape or reader that cannot be what the codec wrote: a bug, said as one.
pub(crate) fn internal(err: impl std::fmt::Display) -> Failure {
    Failure::new(ErrorCode::LibraryError, format!("internal error: {err}"))
}

/// Reads the results `reader` holds into `parsed` (reusing its buffers), and returns the
/// warnings to give: one per distinct unknown property, worded as the command's, unless
/// `strict` makes the first one an error. A refused result is named by its index.
pub(crate) fn read_results(
    mut reader: Reader<'_>,
    strict: bool,
    parsed: &mut ParsedResults,
) -> Result<Vec<String>, Failure> {
    if !reader.is_array() {
        return Err(not_an_array(reader));
    }
    let policy = if strict {
        UnknownProperties::Reject
    } else {
        UnknownProperties::Report
    };
    if let Err(err) = deserialize_request_into(&mut reader, policy, parsed) {
        let at = match reader.element() {
            Some(at) => format!("results[{at}]"),
            None => "results".to_string(),
        };
        return Err(Failure::new(ErrorCode::InvalidResult, err.0).at(&at));
    }
    let count = parsed.results.len();
    Ok(parsed
        .unknown_properties
        .iter()
        .map(|property| {
            format!(
                "{property}, ignored in {} of {count} results (strict: true makes this an \
                 error)",
                property.count
            )
        })
        .collect())
}

/// The error for results that are not an array, saying what they are instead (only on the
/// error path, so it reads the value whole).
fn not_an_array(mut reader: Reader<'_>) -> Failure {
    if let Some(what) = reader.unsupported() {
        return Failure::new(
            ErrorCode::InvalidResult,
            format!("results: expected an array of results, got {what}"),
        );
    }
    let given = Given::deserialize(&mut reader);
    let found = match &given {
        Ok(Given::Object(entries)) => match entries
            .iter()
            .find(|(_, value)| matches!(value, Given::List(_)))
        {
            Some((key, _)) => {
                format!("an object holding an array in `{key}`; pass the array itself")
            }
            // One result sent alone: the fix is two characters, as the command says.
            None if entries
                .iter()
                .any(|(key, _)| key.eq_ignore_ascii_case("content")) =>
            {
                "an object, a single result: wrap it in [ ]".to_string()
            }
            None => "an object".to_string(),
        },
        Ok(other) => other.described(),
        Err(DeError(problem)) => problem.clone(),
    };
    Failure::new(
        ErrorCode::InvalidResult,
        format!("results: expected an array of results, got {found}"),
    )
}

/// What one request gave: its report on a tape and the warnings to give with it.
pub struct Done {
    pub(crate) tape: Tape,
    pub(crate) warnings: Vec<String>,
}

/// Reads `reader`'s results into `parsed`, assembles them, and writes the report on `tape`.
/// Runs on any thread.
pub(crate) fn assemble(
    assembler: &Assembler,
    strict: bool,
    reader: Reader<'_>,
    parsed: &mut ParsedResults,
    mut tape: Tape,
) -> Result<Done, Failure> {
    let warnings = read_results(reader, strict, parsed)?;
    let context = assembler.assemble(&parsed.results);
    write(&context, &mut tape)?;
    Ok(Done { tape, warnings })
}

/// Writes `context` on `tape`.
pub(crate) fn write(context: &AssembledContext<'_>, tape: &mut Tape) -> Result<(), Failure> {
    tape.write(context).map_err(internal)
}

/// `context` as one line of JSON, as `assemble --json` prints it (without the newline).
pub(crate) fn to_json(context: &AssembledContext<'_>) -> Result<String, Failure> {
    // Not the input's fault: a report serializes from plain fields.
    serde_json::to_string(context).map_err(internal)
}
