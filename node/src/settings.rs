//! An options object of `new Assembler` or `new PromptAssembler` into the library's
//! `Settings`: read by the library through serde, under the settings' one name in camelCase
//! (`maxBlocks`), so the package accepts exactly the settings the command and Python accept,
//! refused in the same words with the same codes. `sealKey`, bytes that no settings file
//! holds, is read from the object itself.

use mentor_context::settings::{Settings, Spelling};
use napi::sys::ValueType;
use napi_derive::napi;

use crate::codec::Codec;
use crate::errors::{ErrorCode, Failure, OrThrow};
use crate::given::Given;
use crate::raw::{self, Env, Value};
use crate::request::internal;
use crate::seal_key;

/// The options object `value` (`undefined` and `null` are none) as settings, with `first`
/// (a constructor's positional arguments, by name: `budget`) among them.
pub(crate) fn read(
    env: Env,
    codec: &Codec,
    value: Option<Value>,
    first: &[(&str, Option<usize>)],
) -> napi::Result<Settings> {
    let value = match value {
        Some(value) => match raw::type_of(env, value)? {
            ValueType::napi_undefined | ValueType::napi_null => None,
            ValueType::napi_object => Some(value),
            _ => {
                let what = crate::given::primitive(env, value)?.described();
                return Err(Failure::new(
                    ErrorCode::InvalidArgument,
                    format!("options: expected an object, got {what}"),
                )
                .into_napi(env));
            }
        },
        None => None,
    };
    let mut settings = match value {
        Some(value) => {
            let packed = codec.pack(env, value)?;
            let read = (|| {
                let mut reader = packed.reader().map_err(internal)?;
                if let Some(what) = reader.unsupported() {
                    return Err(Failure::new(
                        ErrorCode::InvalidArgument,
                        format!("options: expected an object, got {what}"),
                    ));
                }
                Settings::deserialize_spelled_except(&mut reader, Spelling::Camel, &["sealKey"])
                    .map_err(Failure::from)
            })();
            codec.recycle(packed);
            let settings = read.or_throw(env)?;
            match seal_key::read(env, value)? {
                Some(key) => settings.with_seal_key(key),
                None => settings,
            }
        }
        None => Settings::default().spelled(Spelling::Camel),
    };
    for &(name, given) in first {
        let Some(given) = given else { continue };
        if name == "budget" {
            if settings.budget.is_some() {
                return Err(Failure::new(
                    ErrorCode::InvalidSetting,
                    "budget: given twice, as the first argument and in the options: give one",
                )
                .into_napi(env));
            }
            settings.budget = Some(given);
        }
    }
    Ok(settings)
}

/// A count given as a number: a whole number, 0 or more, in the words of the settings'
/// counts (the first argument of `new Assembler`, `withBudget`, `threads`).
pub(crate) fn count(name: &str, given: &Given) -> Result<Option<usize>, Failure> {
    let refused =
        |problem: String| Failure::new(ErrorCode::InvalidArgument, format!("{name}: {problem}"));
    match *given {
        Given::Nothing => Ok(None),
        // Whole numbers up to 2^53 are exact in a JavaScript number.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Given::Number(n) if n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_992.0 => {
            Ok(Some(n as usize))
        }
        Given::Number(n) if n < 0.0 => Err(refused(
            "negative; expected a whole number, 0 or more".to_string(),
        )),
        Given::Number(n) if n.is_finite() && n.fract() == 0.0 => {
            Err(refused("too large".to_string()))
        }
        ref other => Err(refused(format!(
            "expected a whole number, 0 or more, got {}",
            other.described()
        ))),
    }
}

/// For the tests: every setting's name in camelCase, from the library's serde description.
#[napi(js_name = "_settingsNames", skip_typescript)]
#[cfg_attr(test, allow(dead_code))]
pub fn settings_names() -> Vec<String> {
    Spelling::Camel.names()
}

/// For the tests: the names each named choice's value may take, by setting in camelCase.
#[napi(js_name = "_settingsChoices", skip_typescript)]
#[cfg_attr(test, allow(dead_code))]
pub fn settings_choices() -> Vec<Vec<String>> {
    Settings::names()
        .iter()
        .filter_map(|&name| {
            Settings::choices(name).map(|choices| {
                std::iter::once(Spelling::Camel.of(name))
                    .chain(choices.into_iter().map(str::to_string))
                    .collect()
            })
        })
        .collect()
}

/// For the tests: every error code of the library's `ErrorKind`.
#[napi(js_name = "_errorCodes", skip_typescript)]
#[cfg_attr(test, allow(dead_code))]
pub fn error_codes() -> Vec<&'static str> {
    mentor_context::ErrorKind::ALL
        .iter()
        .map(|kind| kind.code())
        .collect()
}
