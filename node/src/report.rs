//! Reports given back: a previous turn's, for a follow-up turn, and the one an answer is read
//! against. Either the object `assemble` returned (or `JSON.parse` of a stored one), or the
//! stored JSON text itself, read as the command reads `--previous`.

use mentor_context::{AssembledContext, Citation};
use napi::sys::ValueType;
use std::fmt;

use serde::Deserialize;
use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, DeserializeOwned, MapAccess, SeqAccess, Visitor};

use crate::codec::Codec;
use crate::errors::{ErrorCode, Failure, OrThrow};
use crate::raw::{self, Env, Value};
use crate::request::internal;

fn refused(what: &str, problem: impl std::fmt::Display) -> Failure {
    Failure::new(ErrorCode::InvalidReport, format!("{what}: {problem}"))
}

/// Reads `value` as a `T`: JSON text if it is a string, else the packed object. `what` names
/// the argument in messages. An array is refused unless `arrays` (a list of chips is one).
fn read<T: DeserializeOwned>(
    env: Env,
    codec: &Codec,
    value: Value,
    what: &str,
    arrays: bool,
) -> napi::Result<T> {
    if raw::type_of(env, value)? == ValueType::napi_string {
        let text = crate::codec::read_string(env, value)?;
        let text = text.trim_start_matches('\u{feff}');
        if text.trim().is_empty() {
            return Err(refused(what, "empty; expected a report of assemble").into_napi(env));
        }
        if !arrays && text.trim_start().starts_with('[') {
            return Err(refused(
                what,
                "a JSON array; expected a report of assemble (a JSON object)",
            )
            .into_napi(env));
        }
        return serde_json::from_str(text)
            .map_err(|err| refused(what, mentor_context::Error::from(err)))
            .or_throw(env);
    }
    let packed = codec.pack(env, value)?;
    let read = (|| {
        let mut reader = packed.reader().map_err(internal)?;
        if !arrays && reader.is_array() {
            return Err(refused(
                what,
                "an array; expected a report of assemble (an object)",
            ));
        }
        T::deserialize(&mut reader).map_err(|err| refused(what, err))
    })();
    codec.recycle(packed);
    read.or_throw(env)
}

/// The previous turn's report, for `assembleFollowUp`.
pub(crate) fn previous(
    env: Env,
    codec: &Codec,
    value: Value,
) -> napi::Result<AssembledContext<'static>> {
    read(env, codec, value, "previous", false)
}

/// A report an answer or a dialect's entries are read from (`what` names it), whole: its
/// text is read back for the contents.
pub(crate) fn context(
    env: Env,
    codec: &Codec,
    value: Value,
    what: &str,
) -> napi::Result<AssembledContext<'static>> {
    read(env, codec, value, what, false)
}

/// A report, or its `citations` alone: what an answer's markers are read against.
struct Chips(Vec<Citation>);

/// The part of a report the chips are in.
#[derive(Deserialize)]
struct ReportChips {
    citations: Vec<Citation>,
}

impl<'de> Deserialize<'de> for Chips {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Chips, D::Error> {
        deserializer.deserialize_any(ChipsVisitor)
    }
}

struct ChipsVisitor;

impl<'de> Visitor<'de> for ChipsVisitor {
    type Value = Chips;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a report of assemble, or its citations")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Chips, A::Error> {
        Vec::deserialize(SeqAccessDeserializer::new(seq)).map(Chips)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Chips, A::Error> {
        ReportChips::deserialize(MapAccessDeserializer::new(map))
            .map(|report| Chips(report.citations))
    }
}

/// The chips of `value`: a report of `assemble` (object or JSON text), or its citations.
pub(crate) fn chips(env: Env, codec: &Codec, value: Value) -> napi::Result<Vec<Citation>> {
    read::<Chips>(env, codec, value, "report", true).map(|chips| chips.0)
}
