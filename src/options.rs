//! The choices of the assembler that are named values: what to do with a block that does not
//! fit, and with duplicates. Each reads and writes its name, for command lines and
//! configuration files.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// How the assembler treats the first block that does not fit in what is left of the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum Overflow {
    /// Cut its content to fill the room left (at a grapheme boundary, preferring a sentence or
    /// word end), mark it truncated, and stop. It is left out instead when less than
    /// [`min_truncated_tokens`](crate::ContextBuilder::min_truncated_tokens) of room would be
    /// left for its content.
    #[default]
    Truncate,
    /// Leave it and every lower-ranked block out.
    Stop,
    /// Leave it out and keep trying lower-ranked blocks.
    Skip,
}

impl Overflow {
    /// Every policy, in a fixed order.
    pub const ALL: [Overflow; 3] = [Overflow::Truncate, Overflow::Stop, Overflow::Skip];

    /// The policy's name: `"truncate"`, `"stop"` or `"skip"`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Overflow::Truncate => "truncate",
            Overflow::Stop => "stop",
            Overflow::Skip => "skip",
        }
    }
}

/// What to do with results that have the same source URL and content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum Duplicates {
    /// Keep the best-ranked one and leave the others out.
    #[default]
    Drop,
    /// Keep them all.
    Keep,
}

impl Duplicates {
    /// Every mode, in a fixed order.
    pub const ALL: [Duplicates; 2] = [Duplicates::Drop, Duplicates::Keep];

    /// The mode's name: `"drop"` or `"keep"`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Duplicates::Drop => "drop",
            Duplicates::Keep => "keep",
        }
    }
}

/// `Display` and a case-insensitive `FromStr` by the names of `as_str`.
macro_rules! named {
    ($type:ty, $kind:literal, $expected:literal) => {
        impl fmt::Display for $type {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $type {
            type Err = Error;

            fn from_str(name: &str) -> Result<Self, Error> {
                <$type>::ALL
                    .into_iter()
                    .find(|value| value.as_str().eq_ignore_ascii_case(name))
                    .ok_or_else(|| Error::unknown_name($kind, name, $expected))
            }
        }
    };
}

named!(Overflow, "overflow policy", "truncate, stop or skip");
named!(Duplicates, "duplicates mode", "drop or keep");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_in_any_case() {
        for overflow in Overflow::ALL {
            assert_eq!(overflow.to_string().parse::<Overflow>().unwrap(), overflow);
            assert_eq!(
                overflow
                    .as_str()
                    .to_uppercase()
                    .parse::<Overflow>()
                    .unwrap(),
                overflow
            );
        }
        for duplicates in Duplicates::ALL {
            assert_eq!(
                duplicates.to_string().parse::<Duplicates>().unwrap(),
                duplicates
            );
        }
        assert_eq!(Overflow::Skip.to_string(), "skip");
        assert_eq!(Duplicates::Keep.to_string(), "keep");
    }

    #[test]
    fn unknown_names_say_what_is_expected() {
        assert_eq!(
            "cut".parse::<Overflow>().unwrap_err().to_string(),
            "unknown overflow policy `cut` (expected truncate, stop or skip)"
        );
        assert_eq!(
            "".parse::<Duplicates>().unwrap_err().to_string(),
            "unknown duplicates mode `` (expected drop or keep)"
        );
    }
}
