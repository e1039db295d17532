//! The raw N-API calls the codec makes, each behind a function that checks its status.
//!
//! napi-rs's own wrappers allocate where these reuse a buffer (a string is read into the
//! capacity the last request left), and they cannot hand out instance data without a
//! `&mut`, which a call re-entered from JavaScript (a `toJSON` that assembles) would alias.
//! Every value here lives in the handle scope of the call that made it.

use std::ffi::{CStr, c_void};
use std::ptr;

use napi::{Error, Result, Status, sys};

/// A JavaScript environment: one per thread that runs JavaScript (the main thread, each
/// worker thread).
pub(crate) type Env = sys::napi_env;
/// A JavaScript value, valid in the current handle scope.
pub(crate) type Value = sys::napi_value;

/// `Ok` if `status` is, else an error saying what failed. A pending JavaScript exception
/// (a getter that threw while a value was packed) stays pending: napi-rs throws it as it is.
fn check(status: sys::napi_status, what: &str) -> Result<()> {
    if status == sys::Status::napi_ok {
        Ok(())
    } else {
        Err(Error::new(Status::from(status), format!("N-API: {what}")))
    }
}

/// Runs `source` as a script and returns its value.
pub(crate) fn run_script(env: Env, source: &str) -> Result<Value> {
    let script = string(env, source)?;
    let mut value = ptr::null_mut();
    check(
        unsafe { sys::napi_run_script(env, script, &mut value) },
        "napi_run_script",
    )?;
    Ok(value)
}

/// A strong reference to `value`, for as long as the environment lives.
pub(crate) fn keep(env: Env, value: Value) -> Result<sys::napi_ref> {
    let mut kept = ptr::null_mut();
    check(
        unsafe { sys::napi_create_reference(env, value, 1, &mut kept) },
        "napi_create_reference",
    )?;
    Ok(kept)
}

/// The value `kept` refers to.
pub(crate) fn kept(env: Env, kept: sys::napi_ref) -> Result<Value> {
    let mut value = ptr::null_mut();
    check(
        unsafe { sys::napi_get_reference_value(env, kept, &mut value) },
        "napi_get_reference_value",
    )?;
    Ok(value)
}

/// `object[name] = undefined`.
pub(crate) fn clear_named(env: Env, object: Value, name: &CStr) -> Result<()> {
    let mut undefined = ptr::null_mut();
    check(
        unsafe { sys::napi_get_undefined(env, &mut undefined) },
        "napi_get_undefined",
    )?;
    check(
        unsafe { sys::napi_set_named_property(env, object, name.as_ptr(), undefined) },
        "napi_set_named_property",
    )
}

/// `object[name] = value`.
pub(crate) fn set_named(env: Env, object: Value, name: &CStr, value: Value) -> Result<()> {
    check(
        // SAFETY: `object` and `value` are values of this environment's handle scope, and
        // `name` is a NUL-terminated string that outlives the call.
        unsafe { sys::napi_set_named_property(env, object, name.as_ptr(), value) },
        "napi_set_named_property",
    )
}

/// A JavaScript number.
pub(crate) fn number_value(env: Env, number: f64) -> Result<Value> {
    let mut value = ptr::null_mut();
    check(
        // SAFETY: `value` is written by the call.
        unsafe { sys::napi_create_double(env, number, &mut value) },
        "napi_create_double",
    )?;
    Ok(value)
}

/// `array[at]`.
pub(crate) fn element(env: Env, array: Value, at: usize) -> Result<Value> {
    let at = u32::try_from(at)
        .map_err(|_| Error::new(Status::InvalidArg, "an array index past 2^32".to_string()))?;
    let mut value = ptr::null_mut();
    check(
        unsafe { sys::napi_get_element(env, array, at, &mut value) },
        "napi_get_element",
    )?;
    Ok(value)
}

/// `object[name]`.
pub(crate) fn named(env: Env, object: Value, name: &CStr) -> Result<Value> {
    let mut value = ptr::null_mut();
    check(
        unsafe { sys::napi_get_named_property(env, object, name.as_ptr(), &mut value) },
        "napi_get_named_property",
    )?;
    Ok(value)
}

/// `function.call(this, ...args)`.
pub(crate) fn call(env: Env, function: Value, this: Value, args: &[Value]) -> Result<Value> {
    let mut value = ptr::null_mut();
    check(
        unsafe {
            sys::napi_call_function(env, this, function, args.len(), args.as_ptr(), &mut value)
        },
        "napi_call_function",
    )?;
    Ok(value)
}

/// `typeof value`, as N-API's `napi_valuetype`.
pub(crate) fn type_of(env: Env, value: Value) -> Result<sys::napi_valuetype> {
    let mut kind = 0;
    check(
        unsafe { sys::napi_typeof(env, value, &mut kind) },
        "napi_typeof",
    )?;
    Ok(kind)
}

/// The number `value` holds (its type checked by the caller).
pub(crate) fn number(env: Env, value: Value) -> Result<f64> {
    let mut number = 0.0;
    check(
        unsafe { sys::napi_get_value_double(env, value, &mut number) },
        "napi_get_value_double",
    )?;
    Ok(number)
}

/// The boolean `value` holds (its type checked by the caller).
pub(crate) fn boolean(env: Env, value: Value) -> Result<bool> {
    let mut flag = false;
    check(
        unsafe { sys::napi_get_value_bool(env, value, &mut flag) },
        "napi_get_value_bool",
    )?;
    Ok(flag)
}

/// The length of the string `value` in UTF-16 code units (what `.length` says).
pub(crate) fn utf16_len(env: Env, value: Value) -> Result<usize> {
    let mut len = 0;
    check(
        unsafe { sys::napi_get_value_string_utf16(env, value, ptr::null_mut(), 0, &mut len) },
        "napi_get_value_string_utf16",
    )?;
    Ok(len)
}

/// Appends the string `value` to `into` as UTF-16 code units: a plain copy (see
/// `codec/utf16.rs` for why not UTF-8).
pub(crate) fn read_utf16(env: Env, value: Value, into: &mut Vec<u16>) -> Result<()> {
    let units = utf16_len(env, value)?;
    // With room for the NUL N-API writes after the string.
    into.reserve(units + 1);
    let spare = into.spare_capacity_mut();
    let mut written = 0;
    check(
        unsafe {
            sys::napi_get_value_string_utf16(
                env,
                value,
                spare.as_mut_ptr().cast(),
                spare.len(),
                &mut written,
            )
        },
        "napi_get_value_string_utf16",
    )?;
    // SAFETY: N-API wrote `written` code units (and a NUL after them) into the spare capacity.
    unsafe { into.set_len(into.len() + written.min(units)) };
    Ok(())
}

/// Appends the string `value` to `into` as Latin-1, one byte per code unit: a plain copy,
/// for a string whose every character is below U+0100 (V8 keeps such a string so; a
/// character above would be cut to its low byte).
pub(crate) fn read_latin1(env: Env, value: Value, into: &mut Vec<u8>) -> Result<()> {
    let units = utf16_len(env, value)?;
    // With room for the NUL N-API writes after the string.
    into.reserve(units + 1);
    let spare = into.spare_capacity_mut();
    let mut written = 0;
    check(
        unsafe {
            sys::napi_get_value_string_latin1(
                env,
                value,
                spare.as_mut_ptr().cast(),
                spare.len(),
                &mut written,
            )
        },
        "napi_get_value_string_latin1",
    )?;
    // SAFETY: N-API wrote `written` bytes (and a NUL after them) into the spare capacity.
    unsafe { into.set_len(into.len() + written.min(units)) };
    Ok(())
}

/// Copies the first `count` numbers of the Float64Array `value` into `into`.
pub(crate) fn read_f64s(env: Env, value: Value, count: usize, into: &mut Vec<f64>) -> Result<()> {
    let mut kind = 0;
    let mut length = 0;
    let mut data: *mut c_void = ptr::null_mut();
    let mut buffer = ptr::null_mut();
    let mut offset = 0;
    check(
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
    if kind != sys::TypedarrayType::float64_array || length < count || data.is_null() {
        return Err(Error::new(
            Status::InvalidArg,
            "the codec's tags are not a Float64Array of the length it gave".to_string(),
        ));
    }
    // SAFETY: `data` points at `length` f64s of a live typed array; nothing runs meanwhile.
    let tags = unsafe { std::slice::from_raw_parts(data.cast::<f64>(), count) };
    into.clear();
    into.extend_from_slice(tags);
    Ok(())
}

/// The bytes of `value` if it is a `Uint8Array` (a `Buffer` is one), else `None`.
pub(crate) fn bytes(env: Env, value: Value) -> Result<Option<Vec<u8>>> {
    let mut is_typed = false;
    check(
        unsafe { sys::napi_is_typedarray(env, value, &mut is_typed) },
        "napi_is_typedarray",
    )?;
    if !is_typed {
        return Ok(None);
    }
    let mut kind = 0;
    let mut length = 0;
    let mut data: *mut c_void = ptr::null_mut();
    let mut buffer = ptr::null_mut();
    let mut offset = 0;
    check(
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
    if kind != sys::TypedarrayType::uint8_array {
        return Ok(None);
    }
    if length == 0 || data.is_null() {
        return Ok(Some(Vec::new()));
    }
    // SAFETY: `data` points at `length` bytes of a live typed array; nothing runs meanwhile.
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
        unsafe { sys::napi_create_string_latin1(env, text.as_ptr().cast(), len, &mut value) }
    } else {
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

/// A new array of `len` holes, for [`set_element`] to fill.
pub(crate) fn array(env: Env, len: usize) -> Result<Value> {
    let mut array = ptr::null_mut();
    check(
        unsafe { sys::napi_create_array_with_length(env, len, &mut array) },
        "napi_create_array_with_length",
    )?;
    Ok(array)
}

/// `array[at] = value`.
pub(crate) fn set_element(env: Env, array: Value, at: usize, value: Value) -> Result<()> {
    let at = u32::try_from(at)
        .map_err(|_| Error::new(Status::InvalidArg, "an array index past 2^32".to_string()))?;
    check(
        unsafe { sys::napi_set_element(env, array, at, value) },
        "napi_set_element",
    )
}

/// A new array of the strings `items`.
pub(crate) fn string_array(env: Env, items: &[&str]) -> Result<Value> {
    let array = array(env, items.len())?;
    for (at, item) in items.iter().enumerate() {
        set_element(env, array, at, string(env, item)?)?;
    }
    Ok(array)
}

/// A new `Error` with `message` and the property `code`.
pub(crate) fn error(env: Env, code: &str, message: &str) -> Result<Value> {
    let code = string(env, code)?;
    let message = string(env, message)?;
    let mut value = ptr::null_mut();
    check(
        unsafe { sys::napi_create_error(env, code, message, &mut value) },
        "napi_create_error",
    )?;
    Ok(value)
}

/// Keeps `data` with the environment until it is torn down; [`instance_data`] lends it out.
/// This addon keeps one type there (the codec), so the cast back cannot go wrong.
pub(crate) fn set_instance_data<T>(env: Env, data: Box<T>) -> Result<()> {
    unsafe extern "C" fn drop_data<T>(_env: Env, data: *mut c_void, _hint: *mut c_void) {
        // SAFETY: `data` is the box `set_instance_data` leaked, handed back once.
        drop(unsafe { Box::from_raw(data.cast::<T>()) });
    }
    let data = Box::into_raw(data);
    let status = unsafe {
        sys::napi_set_instance_data(
            env,
            data.cast::<c_void>(),
            Some(drop_data::<T>),
            ptr::null_mut(),
        )
    };
    if status != sys::Status::napi_ok {
        // SAFETY: N-API did not take it.
        drop(unsafe { Box::from_raw(data) });
    }
    check(status, "napi_set_instance_data")
}

/// The data [`set_instance_data`] kept for this environment, shared: a call re-entered from
/// JavaScript borrows it again, so it is never lent out as `&mut`.
pub(crate) fn instance_data<'env, T>(env: Env) -> Result<Option<&'env T>> {
    let mut data: *mut c_void = ptr::null_mut();
    check(
        unsafe { sys::napi_get_instance_data(env, &mut data) },
        "napi_get_instance_data",
    )?;
    // SAFETY: only `set_instance_data::<T>` sets it, with this one `T`; it lives as long as
    // the environment, which outlives every call made in it.
    Ok(unsafe { data.cast::<T>().as_ref() })
}
