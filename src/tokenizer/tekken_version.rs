//! [`TekkenVersion`]: the tokenizer version a Tekken file names in `config.version`, read as
//! `mistral-common` reads it (`TokenizerVersion`), and the special tokens the file lists.
//!
//! The version does not change how text is counted; it names the instruct format the model
//! was trained on, which the `mistral` chat template writes. `mistral-common` refuses a file
//! whose version it does not know, or that has none, so this does too: counting with such a
//! file would be counting for a model no one can prompt.

use serde::Deserialize;

use crate::error::Error;

/// The tokenizer version of a Tekken file: `mistral-common`'s `TokenizerVersion`.
///
/// Ordered: a later version compares greater.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum TekkenVersion {
    /// `v1`.
    V1,
    /// `v2`: `[INST]` and `[/INST]` are control tokens.
    V2,
    /// `v3`: the system prompt before the last user message (Mistral NeMo, Large 2, Pixtral).
    V3,
    /// `v7`: system messages in place, between `[SYSTEM_PROMPT]` and `[/SYSTEM_PROMPT]`.
    V7,
    /// `v11`: tool calls written with `[ARGS]` (and `[CALL_ID]`).
    V11,
    /// `v13`: tools at the first user message, no call ids.
    V13,
    /// `v15`: model settings (reasoning effort).
    V15,
}

impl TekkenVersion {
    /// Every version `mistral-common` 1.13 knows, oldest first.
    /// A slice, not an array: a new value does not change this constant's type.
    pub const ALL: &[TekkenVersion] = &[
        TekkenVersion::V1,
        TekkenVersion::V2,
        TekkenVersion::V3,
        TekkenVersion::V7,
        TekkenVersion::V11,
        TekkenVersion::V13,
        TekkenVersion::V15,
    ];

    /// The name a file gives it: `"v3"`, `"v7"`, ...
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            TekkenVersion::V1 => "v1",
            TekkenVersion::V2 => "v2",
            TekkenVersion::V3 => "v3",
            TekkenVersion::V7 => "v7",
            TekkenVersion::V11 => "v11",
            TekkenVersion::V13 => "v13",
            TekkenVersion::V15 => "v15",
        }
    }

    /// The version a file's `config.version` names (`None`: the field is missing).
    pub(super) fn read(version: Option<&serde_json::Value>) -> Result<TekkenVersion, Error> {
        let known = || {
            TekkenVersion::ALL
                .iter()
                .map(|v| v.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        let text = match version {
            None => {
                return Err(Error::tokenizer_data(format!(
                    "config.version is missing; a Tekken file names its tokenizer version, one of {}",
                    known()
                )));
            }
            Some(serde_json::Value::String(text)) => text,
            Some(other) => {
                return Err(Error::tokenizer_data(format!(
                    "config.version is {other}, not a version name: one of {}",
                    known()
                )));
            }
        };
        TekkenVersion::ALL
            .iter().copied()
            .find(|v| v.as_str() == text)
            .ok_or_else(|| {
                Error::tokenizer_data(format!(
                    "config.version {text:?} is not a tokenizer version mistral-common knows: one of {}",
                    known()
                ))
            })
    }
}

impl std::fmt::Display for TekkenVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One entry of a file's `special_tokens`; only the string matters here.
#[derive(Deserialize)]
pub(super) struct SpecialToken {
    pub(super) token_str: String,
}

/// The named special tokens of a file's list, without the `<SPECIAL_n>` fillers that only
/// hold ranks (they are never written, and no text holds them by accident).
pub(super) fn named_special_tokens(tokens: Vec<SpecialToken>) -> Vec<String> {
    tokens
        .into_iter()
        .map(|t| t.token_str)
        .filter(|t| {
            !t.strip_prefix("<SPECIAL_")
                .and_then(|rest| rest.strip_suffix('>'))
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(json: &str) -> Result<TekkenVersion, String> {
        let value: Option<serde_json::Value> = serde_json::from_str(json).unwrap();
        TekkenVersion::read(value.as_ref()).map_err(|e| e.to_string())
    }

    #[test]
    fn every_known_version_is_read_by_its_name() {
        for &version in TekkenVersion::ALL {
            assert_eq!(read(&format!("\"{version}\"")), Ok(version));
        }
        assert!(TekkenVersion::V3 < TekkenVersion::V7 && TekkenVersion::V11 < TekkenVersion::V13);
    }

    #[test]
    fn an_unknown_or_malformed_version_is_refused_in_one_line() {
        for (json, problem) in [
            (
                "\"v99\"",
                "config.version \"v99\" is not a tokenizer version",
            ),
            (
                "\"banana\"",
                "config.version \"banana\" is not a tokenizer version",
            ),
            ("\"V3\"", "config.version \"V3\" is not"),
            ("\"v3 \"", "config.version \"v3 \" is not"),
            ("\"\"", "config.version \"\" is not"),
            ("3", "config.version is 3, not a version name"),
            ("null", "config.version is missing"),
        ] {
            let err = read(json).unwrap_err();
            assert!(err.contains(problem), "{json}: {err}");
            assert!(
                err.ends_with("one of v1, v2, v3, v7, v11, v13, v15") && !err.contains('\n'),
                "{json}: {err}"
            );
        }
    }

    #[test]
    fn fillers_are_not_named_special_tokens() {
        let tokens = [
            "<s>",
            "[THINK]",
            "<SPECIAL_20>",
            "<SPECIAL_>",
            "<SPECIAL_2x>",
        ]
        .map(|t| SpecialToken {
            token_str: t.to_string(),
        })
        .into_iter()
        .collect();
        assert_eq!(
            named_special_tokens(tokens),
            ["<s>", "[THINK]", "<SPECIAL_>", "<SPECIAL_2x>"]
        );
    }
}
