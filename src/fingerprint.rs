//! What links a chip back to the result it came from: a fingerprint of the content, so that a
//! later turn can tell whether a new result is a block it already has.
//!
//! A report outlives the request (a chat backend keeps it for the next turn) but does not
//! carry the content, which can be megabytes; the fingerprint stands in for it.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::hash::{hash_four, hash_parts};

/// Content up to this length is hashed whole; longer content by its first and last halves of
/// it and its length, so fingerprinting costs the same for a 10 MB result as for a 64 KiB
/// one (the cost of an assembly follows the budget, not the input).
const WHOLE_UP_TO: usize = 64 << 10;

/// A 64-bit fingerprint of a result's content, written as 16 lowercase hex digits on the
/// wire (a JSON number that large would lose digits in JavaScript or a .NET `double`).
///
/// Two contents with the same fingerprint are taken for the same. It is not cryptographic:
/// content over 64 KiB is fingerprinted by its length, its first 32 KiB and its last 32
/// KiB, and a deliberate collision is possible. In a fresh assembly a collision can keep a
/// new result out of a follow-up turn as already present (its URL must match too). In an
/// unsealed previous report it is worse: a content edited to keep its fingerprint (a change
/// in the middle of content over 64 KiB that keeps its length, or a crafted collision) passes
/// the check, which is why reports that leave the server should be sealed
/// ([`seal`](crate::seal)).
///
/// The hash is the crate's own, not the standard library's, whose hashers may change between
/// Rust versions: a report written by one build must be read by the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Fingerprint(u64);

impl Fingerprint {
    /// The fingerprint of `content`.
    #[must_use]
    pub fn of(content: &str) -> Fingerprint {
        let bytes = content.as_bytes();
        let length = (bytes.len() as u64).to_le_bytes();
        let hash = if bytes.len() <= WHOLE_UP_TO {
            hash_parts(0, &[bytes])
        } else {
            let half = WHOLE_UP_TO / 2;
            hash_parts(0, &[&length, &bytes[..half], &bytes[bytes.len() - half..]])
        };
        Fingerprint(hash)
    }

    /// [`of`](Self::of) of each of four contents, found side by side: an assembly
    /// fingerprints every block it places, and one at a time each would wait on its own chain
    /// of multiplies. Content over 64 KiB is fingerprinted alone.
    pub(crate) fn of_four(contents: [&str; 4]) -> [Fingerprint; 4] {
        let short = |content: &&str| content.len() <= WHOLE_UP_TO;
        // A long content's lane hashes a short one instead, and is then replaced.
        let stand_in = contents.iter().copied().find(short).unwrap_or_default();
        let parts =
            contents.map(|content| if short(&content) { content } else { stand_in }.as_bytes());
        let hashes = hash_four(0, parts);
        let mut fingerprints = hashes.map(Fingerprint);
        for (fingerprint, content) in fingerprints.iter_mut().zip(contents) {
            if !short(&content) {
                *fingerprint = Fingerprint::of(content);
            }
        }
        fingerprints
    }
}

impl fmt::Display for Fingerprint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:016x}", self.0)
    }
}

impl FromStr for Fingerprint {
    type Err = String;

    fn from_str(text: &str) -> Result<Fingerprint, String> {
        if text.len() != 16 || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(format!(
                "invalid fingerprint {text:?}: expected 16 hex digits"
            ));
        }
        u64::from_str_radix(text, 16)
            .map(Fingerprint)
            .map_err(|err| err.to_string())
    }
}

impl Serialize for Fingerprint {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Fingerprint {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Fingerprint, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// The length of `text` in UTF-16 code units: what a .NET or JavaScript string's `Length`
/// says.
pub(crate) fn utf16_len(text: &str) -> usize {
    // One unit per character (each starts with a byte that is not a continuation byte,
    // 0b10xx_xxxx), and a second for each outside the Basic Multilingual Plane (those start
    // with 0xF0 or above). Counted a byte at a time, which the compiler vectorizes: a cut
    // block's kept content is measured this way on every request.
    text.bytes()
        .map(|byte| usize::from((byte as i8) >= -0x40) + usize::from(byte >= 0xF0))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fingerprints_tell_contents_apart_and_are_stable() {
        let a = Fingerprint::of("Plan B costs 12 EUR a month.");
        assert_eq!(a, Fingerprint::of("Plan B costs 12 EUR a month."));
        assert_ne!(a, Fingerprint::of("Plan B costs 13 EUR a month."));
        assert_ne!(Fingerprint::of("a"), Fingerprint::of("a\0"));
        assert_ne!(Fingerprint::of(""), Fingerprint::of("\0"));
        // Pinned: reports written by this build must be read by the next.
        assert_eq!(Fingerprint::of("").to_string(), "387c60b930b78b04");
        assert_eq!(Fingerprint::of("hello").to_string(), "19fc289f90937d58");
    }

    /// Four at a time are the fingerprints of each, long content among them or not.
    #[test]
    fn four_at_a_time_are_each_ones_fingerprint() {
        let long = "ab".repeat(WHOLE_UP_TO);
        let cases = [
            ["Plan B", "", "hello", "Plan B costs 12 EUR a month."],
            [&long, "hello", "", "x"],
            ["hello", &long, &long[1..], "hello"],
            [
                &long,
                &long[3..],
                &long[..WHOLE_UP_TO + 1],
                &long[..WHOLE_UP_TO],
            ],
        ];
        for contents in cases {
            assert_eq!(
                Fingerprint::of_four(contents),
                contents.map(Fingerprint::of)
            );
        }
        assert_eq!(
            Fingerprint::of_four(["hello"; 4])[3].to_string(),
            "19fc289f90937d58"
        );
    }

    #[test]
    fn long_content_is_fingerprinted_by_its_ends_and_length() {
        let long = "x".repeat(WHOLE_UP_TO + 10);
        let mut middle = long.clone();
        middle.replace_range(WHOLE_UP_TO / 2 + 3..WHOLE_UP_TO / 2 + 4, "y");
        // A change in the middle of long content is not seen (documented)...
        assert_eq!(Fingerprint::of(&long), Fingerprint::of(&middle));
        // ...one at either end, or in the length, is.
        let mut end = long.clone();
        end.replace_range(long.len() - 1.., "y");
        assert_ne!(Fingerprint::of(&long), Fingerprint::of(&end));
        assert_ne!(Fingerprint::of(&long), Fingerprint::of(&long[1..]));
    }

    #[test]
    fn wire_form_is_sixteen_hex_digits() {
        let fingerprint = Fingerprint(0xab);
        let json = serde_json::to_string(&fingerprint).unwrap();
        assert_eq!(json, "\"00000000000000ab\"");
        assert_eq!(
            serde_json::from_str::<Fingerprint>(&json).unwrap(),
            fingerprint
        );
        assert!(serde_json::from_str::<Fingerprint>("\"ab\"").is_err());
        assert!(serde_json::from_str::<Fingerprint>("\"+00000000000000a\"").is_err());
        assert!(serde_json::from_str::<Fingerprint>("171").is_err());
    }

    #[test]
    fn utf16_lengths_count_surrogate_pairs() {
        assert_eq!(utf16_len("abc"), 3);
        assert_eq!(utf16_len("é"), 1);
        assert_eq!(utf16_len("😀"), 2);
        assert_eq!(utf16_len("👨‍👩‍👧"), 8);
        assert_eq!(
            utf16_len("€ 中 \u{7f}\u{80}\u{7ff}\u{800}\u{ffff}\u{10000}\u{10ffff}"),
            13
        );
        // Every character, and a text of them all, as `char::len_utf16` counts.
        let every: String = (0..=0x10_FFFF).filter_map(char::from_u32).collect();
        let expected: usize = every.chars().map(char::len_utf16).sum();
        assert_eq!(utf16_len(&every), expected);
    }
}
