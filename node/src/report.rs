//! Reports given back: a previous turn's, for a follow-up turn, and the one an answer is read
//! against. Either the object `assemble` returned (or `JSON.parse` of a stored one), or the
//! stored JSON text itself, read as the command reads `--previous`.

use mentor_context::citations::Resolver;
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

/// A whole report, or its `citations` alone: what an answer's markers are read against.
enum Given {
    /// A report of `assemble`: its quotes are checked against its contents.
    Whole(Box<AssembledContext<'static>>),
    /// Chips alone: no contents to check quotes against.
    Chips(Vec<Citation>),
}

/// The part of a report the chips are in.
#[derive(Deserialize)]
struct ReportChips {
    citations: Vec<Citation>,
}

impl<'de> Deserialize<'de> for Given {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Given, D::Error> {
        deserializer.deserialize_any(GivenVisitor)
    }
}

struct GivenVisitor;

impl<'de> Visitor<'de> for GivenVisitor {
    type Value = Given;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a report of assemble, or its citations")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Given, A::Error> {
        Vec::deserialize(SeqAccessDeserializer::new(seq)).map(Given::Chips)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Given, A::Error> {
        // Held as JSON values, to be read as a whole report if it has a text (and a bad
        // field then named), else as its citations.
        let map = serde_json::Map::deserialize(MapAccessDeserializer::new(map))?;
        let value = serde_json::Value::Object(map);
        if value.get("context").is_some() {
            AssembledContext::deserialize(value)
                .map(|context| Given::Whole(Box::new(context)))
                .map_err(de::Error::custom)
        } else {
            ReportChips::deserialize(value)
                .map(|report| Given::Chips(report.citations))
                .map_err(de::Error::custom)
        }
    }
}

/// The resolver for the JSON text of a report or of its citations, read as `resolver` reads
/// one given as a string (for `node/benches/plain.mjs`).
pub(crate) fn resolver_of_json(text: &str) -> Result<Resolver<'static>, serde_json::Error> {
    Ok(match serde_json::from_str::<Given>(text)? {
        Given::Whole(context) => Resolver::for_context(&context).into_owned(),
        Given::Chips(chips) => Resolver::new(&chips).into_owned(),
    })
}

/// The resolver for `value`, owning what it reads against: a report of `assemble` (object or
/// JSON text) checks quotes against the contents read back from it in the layout it records,
/// as `mentor-context cite` does; its citations alone check none.
pub(crate) fn resolver(env: Env, codec: &Codec, value: Value) -> napi::Result<Resolver<'static>> {
    Ok(match read::<Given>(env, codec, value, "report", true)? {
        Given::Whole(context) => Resolver::for_context(&context).into_owned(),
        Given::Chips(chips) => Resolver::new(&chips).into_owned(),
    })
}
