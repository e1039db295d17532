//! The traits of a setting given as JSON (`Tools`, `TemplateOptions`): read from text with an
//! error naming the setting, written and read by serde as the JSON it holds, shown in `Debug`
//! by its names. One macro, so the two cannot drift apart.

/// Implements `FromStr`, `Debug`, `Serialize` and `Deserialize` for `$ty`, a type with a
/// `value: Value` field, `from_value(Value) -> Result<$ty, Error>` and `names()`; `$setting`
/// names it in errors, `$what` starts the message for text that is not JSON.
macro_rules! json_setting {
    ($ty:ident, $setting:literal, $what:literal) => {
        impl std::str::FromStr for $ty {
            type Err = crate::error::Error;

            /// Reads the JSON and checks it.
            fn from_str(json: &str) -> Result<$ty, crate::error::Error> {
                let value: minijinja::value::Value = serde_json::from_str(json).map_err(|err| {
                    crate::error::Error::PromptSetting {
                        setting: $setting,
                        problem: format!(concat!($what, " not valid JSON: {}"), err),
                    }
                })?;
                $ty::from_value(value)
            }
        }

        impl std::fmt::Debug for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.debug_list().entries(self.names()).finish()
            }
        }

        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                self.value.serialize(serializer)
            }
        }

        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                let value = minijinja::value::Value::deserialize(deserializer)?;
                $ty::from_value(value).map_err(serde::de::Error::custom)
            }
        }
    };
}

pub(super) use json_setting;
