//! `sealKey`: bytes as they are (a `Uint8Array`, a `Buffer`), or a string as its UTF-8.
//!
//! Read from the options object itself, not from its packed form: JSON has no bytes.

use napi::sys::ValueType;

use crate::errors::{ErrorCode, Failure};
use crate::raw::{self, Env, Value};

/// The key `options.sealKey` holds, if any.
pub(crate) fn read(env: Env, options: Value) -> napi::Result<Option<Vec<u8>>> {
    if raw::type_of(env, options)? != ValueType::napi_object {
        return Ok(None);
    }
    let key = raw::named(env, options, c"sealKey")?;
    match raw::type_of(env, key)? {
        ValueType::napi_undefined | ValueType::napi_null => Ok(None),
        ValueType::napi_string => Ok(Some(crate::codec::read_string(env, key)?.into_bytes())),
        kind => match raw::bytes(env, key)? {
            Some(bytes) => Ok(Some(bytes)),
            None => {
                let what = if kind == ValueType::napi_object {
                    "an object"
                } else {
                    "another type"
                };
                Err(Failure::new(
                    ErrorCode::InvalidSetting,
                    format!("sealKey: expected a string or a Uint8Array, got {what}"),
                )
                .into_napi(env))
            }
        },
    }
}
