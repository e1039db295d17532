//! Arguments other than results: strings, and objects of options, checked by name.

use serde::Deserialize;

use crate::codec::{Chunks, Codec};
use crate::errors::{ErrorCode, Failure, OrThrow};
use crate::given::{self, Given};
use crate::raw::{Env, Value};
use crate::request::internal;

/// The string `value`, or an error naming `what` and what it is instead.
pub(crate) fn string(env: Env, value: Value, what: &str) -> napi::Result<String> {
    match given::primitive(env, value)? {
        Given::Text(text) => Ok(text),
        other => Err(Failure::new(
            ErrorCode::InvalidArgument,
            format!("{what}: expected a string, got {}", other.described()),
        )
        .into_napi(env)),
    }
}

/// The string chunk `value` of a stream, read through `chunks` (see [`Chunks`]), or an error
/// naming `what` and what it is instead.
pub(crate) fn chunk(
    env: Env,
    value: Value,
    what: &str,
    chunks: &mut Chunks,
) -> napi::Result<String> {
    if crate::raw::type_of(env, value)? == napi::sys::ValueType::napi_string {
        chunks.read(env, value)
    } else {
        string(env, value, what)
    }
}

/// The entries of an object of options (`undefined` and `null` are none), each of them one
/// of `known`.
pub(crate) fn options(
    env: Env,
    codec: &Codec,
    value: Option<Value>,
    known: &[&str],
) -> napi::Result<Vec<(String, Given)>> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    let packed = codec.pack(env, value)?;
    let read = (|| {
        let mut reader = packed.reader().map_err(internal)?;
        let refused = |problem: String| Failure::new(ErrorCode::InvalidArgument, problem);
        if let Some(what) = reader.unsupported() {
            return Err(refused(format!("options: expected an object, got {what}")));
        }
        let entries = match Given::deserialize(&mut reader) {
            Ok(Given::Object(entries)) => entries,
            Ok(Given::Nothing) => Vec::new(),
            Ok(other) => {
                return Err(refused(format!(
                    "options: expected an object, got {}",
                    other.described()
                )));
            }
            Err(err) => return Err(refused(format!("options: {err}"))),
        };
        if let Some((name, _)) = entries
            .iter()
            .find(|(name, _)| !known.contains(&name.as_str()))
        {
            return Err(refused(format!(
                "options: unknown option `{name}` (known: {})",
                known.join(", ")
            )));
        }
        Ok(entries)
    })();
    codec.recycle(packed);
    read.or_throw(env)
}

/// The flag `name` of `entries`: `false` when not given.
pub(crate) fn flag(entries: &[(String, Given)], name: &str) -> Result<bool, Failure> {
    match entries.iter().find(|(key, _)| key == name) {
        None | Some((_, Given::Nothing)) => Ok(false),
        Some((_, Given::Flag(flag))) => Ok(*flag),
        Some((_, other)) => Err(Failure::new(
            ErrorCode::InvalidArgument,
            format!("{name}: expected true or false, got {}", other.described()),
        )),
    }
}
