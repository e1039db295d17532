//! Strings and typed arrays between JavaScript and Rust, copied into and out of Rust's
//! buffers (the same rules as `mod.rs`: the `env` of the call in progress, values of its
//! handle scope).

use std::ffi::c_void;
use std::ptr;

use napi::{Error, Result, Status, sys};

use super::{Env, Value, check};

/// The length of the string `value` in UTF-16 code units (what `.length` says).
fn utf16_len(env: Env, value: Value) -> Result<usize> {
    let mut len = 0;
    check(
        // SAFETY: with no buffer N-API writes only the length, into the local `len`; `value` is
        // a value of this scope (one that is not a string is refused with a status).
        unsafe { sys::napi_get_value_string_utf16(env, value, ptr::null_mut(), 0, &mut len) },
        "napi_get_value_string_utf16",
    )?;
    Ok(len)
}

/// Appends the string `value` to `into` as UTF-16 code units: a plain copy (see
/// `codec/utf16.rs` for why not UTF-8).
pub(crate) fn read_utf16(env: Env, value: Value, into: &mut Vec<u16>) -> Result<()> {
    // SAFETY: N-API writes at most `room` code units, the NUL among them, at `spare`, and
    // their count (the NUL left out) into `written`.
    unsafe {
        read_string(
            env,
            value,
            into,
            "napi_get_value_string_utf16",
            |spare, room, written| {
                sys::napi_get_value_string_utf16(env, value, spare, room, written)
            },
        )
    }
}

/// Appends the string `value` to `into` as Latin-1, one byte per code unit: a plain copy,
/// for a string whose every character is below U+0100 (V8 keeps such a string so; a
/// character above would be cut to its low byte).
pub(crate) fn read_latin1(env: Env, value: Value, into: &mut Vec<u8>) -> Result<()> {
    // SAFETY: N-API writes at most `room` bytes, the NUL among them, at `spare`, and their
    // count (the NUL left out) into `written`.
    unsafe {
        read_string(
            env,
            value,
            into,
            "napi_get_value_string_latin1",
            |spare, room, written| {
                sys::napi_get_value_string_latin1(env, value, spare.cast(), room, written)
            },
        )
    }
}

/// Appends the string `value` to `into`, one element per UTF-16 code unit, as `copy` (the
/// N-API call `what`) copies it into spare room at the end of `into`.
///
/// # Safety
///
/// `copy(spare, room, written)` must write at most `room` elements at `spare`, and the count
/// of those it wrote (leaving out a NUL after them) into `written`.
unsafe fn read_string<T>(
    env: Env,
    value: Value,
    into: &mut Vec<T>,
    what: &str,
    copy: impl FnOnce(*mut T, usize, &mut usize) -> sys::napi_status,
) -> Result<()> {
    let units = utf16_len(env, value)?;
    // With room for the NUL N-API writes after the string.
    into.reserve(units + 1);
    let spare = into.spare_capacity_mut();
    let mut written = 0;
    check(
        copy(spare.as_mut_ptr().cast(), spare.len(), &mut written),
        what,
    )?;
    // SAFETY: `copy` wrote `written` elements (and a NUL after them) into the spare capacity.
    unsafe { into.set_len(into.len() + written.min(units)) };
    Ok(())
}

/// A typed array's kind, length (in elements) and data, for `value` of this scope (one that
/// is not a typed array is refused with a status).
fn typed_array(env: Env, value: Value) -> Result<(sys::napi_typedarray_type, usize, *mut c_void)> {
    let mut kind = 0;
    let mut length = 0;
    let mut data: *mut c_void = ptr::null_mut();
    let mut buffer = ptr::null_mut();
    let mut offset = 0;
    check(
        // SAFETY: `value` is a value of this scope, and the five outputs are locals the call
        // writes.
        unsafe {
            sys::napi_get_typedarray_info(
                env,
                value,
                &mut kind,
                &mut length,
                &mut data,
                &mut buffer,
                &mut offset,
            )
        },
        "napi_get_typedarray_info",
    )?;
    Ok((kind, length, data))
}

/// Copies the first `count` numbers of the Float64Array `value` into `into`.
pub(crate) fn read_f64s(env: Env, value: Value, count: usize, into: &mut Vec<f64>) -> Result<()> {
    let (kind, length, data) = typed_array(env, value)?;
    if kind != sys::TypedarrayType::float64_array || length < count || data.is_null() {
        return Err(Error::new(
            Status::InvalidArg,
            "the codec's tags are not a Float64Array of the length it gave".to_string(),
        ));
    }
    // SAFETY: `data` points at `length` f64s of a live typed array (a Float64Array's data is
    // 8-byte aligned), `count` of them at most; no JavaScript runs meanwhile to detach it.
    let tags = unsafe { std::slice::from_raw_parts(data.cast::<f64>(), count) };
    into.clear();
    into.extend_from_slice(tags);
    Ok(())
}

/// The bytes of `value` if it is a `Uint8Array` (a `Buffer` is one), else `None`.
pub(crate) fn bytes(env: Env, value: Value) -> Result<Option<Vec<u8>>> {
    let mut is_typed = false;
    check(
        // SAFETY: `value` is a value of this scope, and `is_typed` a local the call writes.
        unsafe { sys::napi_is_typedarray(env, value, &mut is_typed) },
        "napi_is_typedarray",
    )?;
    if !is_typed {
        return Ok(None);
    }
    let (kind, length, data) = typed_array(env, value)?;
    if kind != sys::TypedarrayType::uint8_array {
        return Ok(None);
    }
    if length == 0 || data.is_null() {
        return Ok(Some(Vec::new()));
    }
    // SAFETY: `data` points at `length` bytes of a live typed array; no JavaScript runs
    // meanwhile to detach it.
    Ok(Some(
        unsafe { std::slice::from_raw_parts(data.cast::<u8>(), length) }.to_vec(),
    ))
}

/// A JavaScript string of `text`.
pub(crate) fn string(env: Env, text: &str) -> Result<Value> {
    let mut value = ptr::null_mut();
    let len = isize::try_from(text.len()).unwrap_or(isize::MAX);
    // ASCII is Latin-1, which V8 copies as it is; UTF-8 it decodes.
    let status = if text.is_ascii() {
        // SAFETY: `text` is ASCII, so Latin-1, and N-API reads exactly its `len` bytes; `value`
        // is a local the call writes.
        unsafe { sys::napi_create_string_latin1(env, text.as_ptr().cast(), len, &mut value) }
    } else {
        // SAFETY: `text` is UTF-8 and N-API reads exactly its `len` bytes; `value` is a local
        // the call writes.
        unsafe { sys::napi_create_string_utf8(env, text.as_ptr().cast(), len, &mut value) }
    };
    check(status, "napi_create_string")?;
    Ok(value)
}

/// A JavaScript string of the Latin-1 `bytes`, one character per byte.
pub(crate) fn latin1_string(env: Env, bytes: &[u8]) -> Result<Value> {
    let mut value = ptr::null_mut();
    let len = isize::try_from(bytes.len()).unwrap_or(isize::MAX);
    check(
        // SAFETY: N-API reads exactly the `len` bytes of `bytes`; `value` is a local the call
        // writes.
        unsafe { sys::napi_create_string_latin1(env, bytes.as_ptr().cast(), len, &mut value) },
        "napi_create_string_latin1",
    )?;
    Ok(value)
}

/// A new Float64Array holding `numbers`.
pub(crate) fn f64_array(env: Env, numbers: &[f64]) -> Result<Value> {
    let mut data: *mut c_void = ptr::null_mut();
    let mut buffer = ptr::null_mut();
    check(
        // SAFETY: `data` and `buffer` are locals the call writes.
        unsafe { sys::napi_create_arraybuffer(env, size_of_val(numbers), &mut data, &mut buffer) },
        "napi_create_arraybuffer",
    )?;
    if !numbers.is_empty() {
        // SAFETY: the buffer was just made with room for exactly these bytes.
        unsafe {
            ptr::copy_nonoverlapping(numbers.as_ptr(), data.cast::<f64>(), numbers.len());
        }
    }
    let mut array = ptr::null_mut();
    check(
        // SAFETY: `buffer` is the array buffer just made, of exactly `numbers.len()` f64s from
        // offset 0, and `array` a local the call writes.
        unsafe {
            sys::napi_create_typedarray(
                env,
                sys::TypedarrayType::float64_array,
                numbers.len(),
                buffer,
                0,
                &mut array,
            )
        },
        "napi_create_typedarray",
    )?;
    Ok(array)
}
