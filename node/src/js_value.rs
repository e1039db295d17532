//! A Rust value given to JavaScript: written by serde onto the codec's tape, unpacked by
//! JavaScript into one value. Shared by the dialects' methods, `ResponseStream` and
//! `CitationStream` (so that the dialects' methods and `ResponseStream` need nothing of
//! each other).

use napi::Result;
use napi::bindgen_prelude::{Env, Unknown};
use serde::Serialize;

use crate::codec::Codec;
use crate::errors::OrThrow;
use crate::request::internal;

/// `value` as a JavaScript value, through the tape.
pub(crate) fn to_js<'env, T: Serialize>(env: &'env Env, value: &T) -> Result<Unknown<'env>> {
    let raw = env.raw();
    let codec = Codec::get(raw)?;
    let mut tape = codec.take_tape();
    tape.write(value).map_err(internal).or_throw(raw)?;
    let value = codec.unpack(raw, tape)?;
    // SAFETY: a value of this call's handle scope.
    Ok(unsafe { Unknown::from_raw_unchecked(raw, value) })
}
