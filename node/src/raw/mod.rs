//! The raw N-API calls the codec makes, each behind a function that checks its status.
//!
//! napi-rs's own wrappers allocate where these reuse a buffer (a string is read into the
//! capacity the last request left), and they cannot hand out instance data without a
//! `&mut`, which a call re-entered from JavaScript (a `toJSON` that assembles) would alias.
//! Strings and typed arrays, copied in and out, are in `buffers.rs`.
//!
//! Every function is called with the `env` of the JavaScript call in progress on this thread
//! and values of its current handle scope ("of this scope" in the SAFETY comments), and every
//! value it makes lives in that scope. N-API checks the rest itself: a value of the wrong
//! type is answered with a status, not read.

use std::ffi::{CStr, c_void};
use std::ptr;

use napi::{Error, Result, Status, sys};

mod buffers;

pub(crate) use buffers::{
    bytes, f64_array, latin1_string, read_f64s, read_latin1, read_utf16, string,
};

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
        // SAFETY: `script` is a string of this scope, and `value` a local the call writes.
        unsafe { sys::napi_run_script(env, script, &mut value) },
        "napi_run_script",
    )?;
    Ok(value)
}

/// A strong reference to `value`, for as long as the environment lives.
pub(crate) fn keep(env: Env, value: Value) -> Result<sys::napi_ref> {
    let mut kept = ptr::null_mut();
    check(
        // SAFETY: `value` is a value of this scope, and `kept` a local the call writes.
        unsafe { sys::napi_create_reference(env, value, 1, &mut kept) },
        "napi_create_reference",
    )?;
    Ok(kept)
}

/// The value `kept` refers to.
pub(crate) fn kept(env: Env, kept: sys::napi_ref) -> Result<Value> {
    let mut value = ptr::null_mut();
    check(
        // SAFETY: `kept` was made by `keep` in this environment and is never deleted (the codec
        // keeps its references for the life of the environment); `value` is a local the call
        // writes.
        unsafe { sys::napi_get_reference_value(env, kept, &mut value) },
        "napi_get_reference_value",
    )?;
    Ok(value)
}

/// `object[name] = undefined`.
pub(crate) fn clear_named(env: Env, object: Value, name: &CStr) -> Result<()> {
    let mut undefined = ptr::null_mut();
    check(
        // SAFETY: `undefined` is a local the call writes.
        unsafe { sys::napi_get_undefined(env, &mut undefined) },
        "napi_get_undefined",
    )?;
    check(
        // SAFETY: `object` and `undefined` are values of this scope, and `name` is a
        // NUL-terminated string that outlives the call.
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
        // SAFETY: `array` is a value of this scope, and `value` a local the call writes.
        unsafe { sys::napi_get_element(env, array, at, &mut value) },
        "napi_get_element",
    )?;
    Ok(value)
}

/// `object[name]`.
pub(crate) fn named(env: Env, object: Value, name: &CStr) -> Result<Value> {
    let mut value = ptr::null_mut();
    check(
        // SAFETY: `object` is a value of this scope, `name` a NUL-terminated string that
        // outlives the call, and `value` a local the call writes.
        unsafe { sys::napi_get_named_property(env, object, name.as_ptr(), &mut value) },
        "napi_get_named_property",
    )?;
    Ok(value)
}

/// `function.call(this, ...args)`.
pub(crate) fn call(env: Env, function: Value, this: Value, args: &[Value]) -> Result<Value> {
    let mut value = ptr::null_mut();
    check(
        // SAFETY: `function`, `this` and the `args.len()` values at `args.as_ptr()` are values
        // of this scope, and `value` is a local the call writes.
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
        // SAFETY: `value` is a value of this scope, and `kind` a local the call writes.
        unsafe { sys::napi_typeof(env, value, &mut kind) },
        "napi_typeof",
    )?;
    Ok(kind)
}

/// The number `value` holds (its type checked by the caller).
pub(crate) fn number(env: Env, value: Value) -> Result<f64> {
    let mut number = 0.0;
    check(
        // SAFETY: `value` is a value of this scope, and `number` a local the call writes (a
        // value that is not a number is refused with a status, not read).
        unsafe { sys::napi_get_value_double(env, value, &mut number) },
        "napi_get_value_double",
    )?;
    Ok(number)
}

/// The boolean `value` holds (its type checked by the caller).
pub(crate) fn boolean(env: Env, value: Value) -> Result<bool> {
    let mut flag = false;
    check(
        // SAFETY: `value` is a value of this scope, and `flag` a local the call writes (a value
        // that is not a boolean is refused with a status, not read).
        unsafe { sys::napi_get_value_bool(env, value, &mut flag) },
        "napi_get_value_bool",
    )?;
    Ok(flag)
}

/// A new array of `len` holes, for [`set_element`] to fill.
pub(crate) fn array(env: Env, len: usize) -> Result<Value> {
    let mut array = ptr::null_mut();
    check(
        // SAFETY: `array` is a local the call writes.
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
        // SAFETY: `array` and `value` are values of this scope.
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
        // SAFETY: `code` and `message` are strings of this scope, and `value` a local the call
        // writes.
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
    // SAFETY: `data` is a live box, handed over with the finalizer that frees it as a `T`,
    // once, when the environment is torn down.
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
        // SAFETY: `data` is a local the call writes.
        unsafe { sys::napi_get_instance_data(env, &mut data) },
        "napi_get_instance_data",
    )?;
    // SAFETY: only `set_instance_data::<T>` sets it, with this one `T`; it lives as long as the
    // environment, which outlives every call made in it.
    Ok(unsafe { data.cast::<T>().as_ref() })
}
