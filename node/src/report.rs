//! Reports given back: a previous turn's, for a follow-up turn, and the one an answer is read
//! against. Either the object `assemble` returned (or `JSON.parse` of a stored one), or the
//! stored JSON text itself, read as the command reads `--previous`.

use mentor_context::citations::Resolver;
use mentor_context::{AssembledContext, Citation};
use napi::sys::ValueType;
use std::fmt;

use serde::Deserialize;
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

/// What a report given to read an answer against is, found in a first pass that reads no
/// value: a whole report (it has a `context`), an object of `citations` alone, or the array
/// of them. The second pass reads it as what it is, straight into the library's types, so
/// that nothing (a citation's metadata, whose order is the head's) goes through a map that
/// sorts its keys.
enum Shape {
    Whole,
    Citations,
    Chips,
}

/// The part of a report the chips are in.
#[derive(Deserialize)]
struct ReportChips {
    citations: Vec<Citation>,
}

impl<'de> Deserialize<'de> for Shape {
    fn deserialize<D: de::Deserializer<'de>>(deserializer: D) -> Result<Shape, D::Error> {
        deserializer.deserialize_any(ShapeVisitor)
    }
}

struct ShapeVisitor;

impl<'de> Visitor<'de> for ShapeVisitor {
    type Value = Shape;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a report of assemble, or its citations")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Shape, A::Error> {
        while seq.next_element::<de::IgnoredAny>()?.is_some() {}
        Ok(Shape::Chips)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Shape, A::Error> {
        let mut whole = false;
        while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
            whole |= key == "context";
            map.next_value::<de::IgnoredAny>()?;
        }
        Ok(if whole {
            Shape::Whole
        } else {
            Shape::Citations
        })
    }
}

/// The resolver for `value`, owning what it reads against: a report of `assemble` (object or
/// JSON text) checks quotes against the contents read back from it in the layout it records,
/// as `mentor-context cite` does; its citations alone check none.
pub(crate) fn resolver(env: Env, codec: &Codec, value: Value) -> napi::Result<Resolver<'static>> {
    Ok(match read::<Shape>(env, codec, value, "report", true)? {
        Shape::Whole => {
            let context: AssembledContext<'static> = read(env, codec, value, "report", false)?;
            Resolver::for_context(&context).into_owned()
        }
        Shape::Citations => {
            let chips: ReportChips = read(env, codec, value, "report", false)?;
            Resolver::new(&chips.citations).into_owned()
        }
        Shape::Chips => {
            let chips: Vec<Citation> = read(env, codec, value, "report", true)?;
            Resolver::new(&chips).into_owned()
        }
    })
}

/// The resolver for the JSON text of a report or of its citations, read as `resolver` reads
/// one given as a string (for `node/benches/plain.mjs`).
pub(crate) fn resolver_of_json(text: &str) -> Result<Resolver<'static>, serde_json::Error> {
    Ok(match serde_json::from_str::<Shape>(text)? {
        Shape::Whole => {
            let context: AssembledContext<'static> = serde_json::from_str(text)?;
            Resolver::for_context(&context).into_owned()
        }
        Shape::Citations => {
            let chips: ReportChips = serde_json::from_str(text)?;
            Resolver::new(&chips.citations).into_owned()
        }
        Shape::Chips => {
            let chips: Vec<Citation> = serde_json::from_str(text)?;
            Resolver::new(&chips).into_owned()
        }
    })
}
